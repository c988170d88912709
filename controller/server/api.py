"""The Board API's routes on the fairyboard server: lichess's shape (paths, form fields,
NDJSON streams with empty keep-alive lines, ``{"error": …}`` answers), extended only where
the games need it (docs/server.md "The Board API").

A board authenticates with its device token (``Authorization: Bearer fbd_…``); a browser
with its session cookie, and then every POST carries the session's CSRF token in
``X-CSRF-Token`` (a form posted from another site cannot set that header).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from controller.i18n import LANGUAGES, Text, render, text_of
from controller.server.games import PlayError, game_and_options
from controller.server.hub import Hub
from controller.server.seatboard import SeatBoards, layout_data
from controller.server.store import Unavailable
from controller.wire import variant_keys

log = logging.getLogger("fairyboard.server.api")

MAX_FORM = 16 * 1024
SESSION_COOKIE = "fb_session"
#: the language a person chose on the server's pages (its language menu)
LANG_COOKIE = "lang"


def reader_language(request: Request) -> str:
    """The language of the person asking: a board (its token) reads English, a page the
    ``lang`` cookie's language, else the browser's ``Accept-Language`` (its first known
    language; ``de-CH`` is ``de``), else English."""
    if request.headers.get("authorization", "").startswith("Bearer "):
        return "en"
    chosen = request.cookies.get(LANG_COOKIE, "")
    if chosen in LANGUAGES:
        return chosen
    for part in request.headers.get("accept-language", "")[:500].split(","):
        tag, _, weight = part.partition(";")
        code = tag.strip().lower().split("-")[0]
        if code in LANGUAGES and weight.replace(" ", "") not in ("q=0", "q=0.0"):
            return code
    return "en"


def error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def unavailable(request: Request, exc: Exception | None = None) -> JSONResponse:
    """The store cannot be reached: one line, 503 (the app's answer wherever it happens)."""
    return error(render(Text("the store cannot be reached now: try again"),
                        reader_language(request)), 503)


async def read_form(request: Request) -> dict[str, str]:
    """An url-encoded body (at most :data:`MAX_FORM` bytes); a JSON body is read too."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            raise PlayError("the request is too large", 413)
    if not body:
        return {}
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            data = json.loads(body)
        except ValueError:
            raise PlayError("the body is not JSON") from None
        if not isinstance(data, dict):
            raise PlayError("the body must be a JSON object")
        return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in data.items()}
    try:
        return dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
    except UnicodeDecodeError:
        raise PlayError("the body is not UTF-8") from None


class BoardRoutes:
    """The routes, on the server's :class:`Hub`; ``accounts`` knows tokens and sessions."""

    def __init__(self, hub: Hub, accounts: Any, keepalive_s: float = 2.0) -> None:
        self.hub = hub
        self.accounts = accounts
        self.keepalive_s = keepalive_s
        self.boards = SeatBoards(hub)

    def routes(self) -> list[Route]:
        r = self
        return [
            Route("/api/account", r.account),
            Route("/api/stream/event", r.stream_event),
            Route("/api/board/seek", r.seek, methods=["POST"]),
            Route("/api/challenge/open", r.open_challenge, methods=["POST"]),
            Route("/api/challenge/{user}", r.challenge, methods=["POST"]),
            Route("/api/challenge/{cid}/accept", r.accept, methods=["POST"]),
            Route("/api/challenge/{cid}/decline", r.decline, methods=["POST"]),
            Route("/api/challenge/{cid}/cancel", r.decline, methods=["POST"]),
            Route("/api/board/game/stream/{gid}", r.stream_game),
            Route("/api/board/game/{gid}/board", r.seat_board),
            Route("/api/board/game/{gid}/watch", r.watch),
            Route("/api/layout/{name}", r.layout),
            Route("/api/board/game/{gid}/move/{move:path}", r.move, methods=["POST"]),
            Route("/api/board/game/{gid}/{action}", r.action, methods=["POST"]),
            Route("/api/board/game/{gid}/{action}/{answer}", r.action, methods=["POST"]),
            Route("/api/lobby", r.lobby),
        ]

    # -- who asks ---------------------------------------------------------------------------
    def who(self, request: Request) -> str:
        auth = request.headers.get("authorization", "")
        if auth.startswith("Bearer "):
            account = self.accounts.token_account(auth[7:].strip())
            if account is None:
                raise PlayError("No such token", 401)
            return account
        session = self.accounts.session(request.cookies.get(SESSION_COOKIE))
        if session is None:
            raise PlayError("No such token", 401)
        if request.method == "POST" and not self.accounts.csrf_ok(
                session, request.headers.get("x-csrf-token")):
            raise PlayError("the page's CSRF token is missing or wrong", 403)
        return session.account

    async def guarded(self, request: Request, act) -> Response:
        try:
            return await act(await self.hub.io(self.who, request))
        except PlayError as exc:  # (a page's request: in the page's language)
            return error(render(text_of(exc), reader_language(request)), exc.status)
        except Unavailable:
            return unavailable(request)

    # -- routes ------------------------------------------------------------------------------
    async def account(self, request: Request) -> Response:
        async def act(account: str) -> Response:
            # (extension: the variant keys played here, so a board offers them all)
            return JSONResponse({"id": account, "username": account,
                                 "variants": [k for k in variant_keys() if k != "fromPosition"]})
        return await self.guarded(request, act)

    async def stream_event(self, request: Request) -> Response:
        async def act(account: str) -> Response:
            hub = self.hub
            seen = hub.events_count.get(account, 0)

            async def lines() -> AsyncIterator[str]:
                nonlocal seen
                for event in hub.ongoing(account):
                    yield json.dumps(event) + "\n"
                while True:
                    signal = hub.signal_of(account)
                    watch = signal.watch()  # (before reading: see Signal)
                    new, seen = hub.events_since(account, seen)
                    for event in new:
                        yield json.dumps(event) + "\n"
                    if not new:
                        yield "\n"
                    await signal.wait(self.keepalive_s, watch)
            return StreamingResponse(lines(), media_type="application/x-ndjson")
        return await self.guarded(request, act)

    async def seek(self, request: Request) -> Response:
        async def act(account: str) -> Response:
            form = await read_form(request)
            if form.get("days"):
                terms = terms_of(form, "-", "-", True)
                seek = await self.hub.seek(account, **terms)
                return JSONResponse({"id": seek.id})
            terms = terms_of(form, "time", "increment", True)
            if terms["clock"] is None:
                raise PlayError("a real-time seek needs time (minutes) or days")
            seek = await self.hub.seek(account, **terms)

            async def lines() -> AsyncIterator[str]:
                try:
                    while not seek.found.done():
                        yield "\n"
                        with contextlib.suppress(TimeoutError):
                            await _wait_future(seek.found, self.keepalive_s)
                    yield json.dumps({"gameId": seek.found.result()}) + "\n"
                finally:  # the stream closed: the seek is withdrawn (lichess's rule)
                    self.hub.cancel_seek(seek)
            return StreamingResponse(lines(), media_type="application/x-ndjson")
        return await self.guarded(request, act)

    async def challenge(self, request: Request) -> Response:
        async def act(account: str) -> Response:
            form = await read_form(request)
            terms = terms_of(form, "clock.limit", "clock.increment", False)
            c = await self.hub.challenge(account, request.path_params["user"].lower(), **terms)
            return JSONResponse({"challenge": c.json()})
        return await self.guarded(request, act)

    async def open_challenge(self, request: Request) -> Response:
        """lichess's open challenge: any two players (or the two ``users``) join it with
        ``/api/challenge/{id}/accept`` (``color`` white or black: that side)."""
        async def act(account: str) -> Response:
            form = await read_form(request)
            terms = terms_of(form, "clock.limit", "clock.increment", False)
            del terms["color"]  # (each joining player chooses)
            users = tuple(u.strip().lower()[:40] for u in form.get("users", "").split(",")
                          if u.strip())
            c = await self.hub.open_challenge(account, users=users, **terms)
            return JSONResponse(c.json(str(request.base_url).rstrip("/")))
        return await self.guarded(request, act)

    async def accept(self, request: Request) -> Response:
        async def act(account: str) -> Response:
            cid = request.path_params["cid"]
            await self.hub.sync_lobby()  # (made on another worker a moment ago?)
            if cid in self.hub.open_challenges:
                form = await read_form(request)
                color = form.get("color") or request.query_params.get("color") or "random"
                await self.hub.join_open(account, cid, color)
            else:
                await self.hub.answer_challenge(account, cid, True)
            return JSONResponse({"ok": True})
        return await self.guarded(request, act)

    async def decline(self, request: Request) -> Response:
        async def act(account: str) -> Response:
            cid = request.path_params["cid"]
            await self.hub.sync_lobby()
            if cid in self.hub.open_challenges:
                await self.hub.cancel_open(account, cid)
            else:
                await self.hub.answer_challenge(account, cid, False)
            return JSONResponse({"ok": True})
        return await self.guarded(request, act)

    async def stream_game(self, request: Request) -> Response:
        async def act(account: str) -> Response:
            hub = self.hub
            g = await hub.game_of(request.path_params["gid"])
            seat = g.seat_of(account)
            await hub.check_time(g)
            watch = g.signal.watch()  # (before reading: see Signal)
            first = await hub.full(g, seat)

            async def lines() -> AsyncIterator[str]:
                nonlocal watch
                yield json.dumps(first) + "\n"
                last = _without_times(first["state"])
                while not g.ended:
                    await g.signal.wait(self.keepalive_s, watch)
                    watch = g.signal.watch()
                    with contextlib.suppress(PlayError):  # (the store down: next time)
                        await hub.check_time(g)
                    state = hub.state(g, seat)
                    if _without_times(state) != last:
                        last = _without_times(state)
                        yield json.dumps(state) + "\n"
                    else:
                        yield "\n"
            return StreamingResponse(lines(), media_type="application/x-ndjson")
        return await self.guarded(request, act)

    async def seat_board(self, request: Request) -> Response:
        """The asker's drawn board (a seat's, or a watcher's): ``docs/server.md``."""
        async def act(account: str) -> Response:
            g = await self.hub.game_of(request.path_params["gid"])
            seat = g.seats.index(account) if account in g.seats else None
            await self.hub.check_time(g)
            return JSONResponse(self.boards.board(g, seat))
        return await self.guarded(request, act)

    async def watch(self, request: Request) -> Response:
        """A watcher's board as NDJSON, a line at every change (the club view's rule in a
        game with hidden information: no piece, the moves only as the referee shows
        them)."""
        async def act(account: str) -> Response:
            g = await self.hub.game_of(request.path_params["gid"])
            watch = g.signal.watch()  # (before reading: see Signal)
            first = self.boards.board(g, None)

            async def lines() -> AsyncIterator[str]:
                nonlocal watch
                last = first
                yield json.dumps(first) + "\n"
                while not g.ended:
                    await g.signal.wait(self.keepalive_s, watch)
                    watch = g.signal.watch()
                    with contextlib.suppress(PlayError):  # (the store down: next time)
                        await self.hub.check_time(g)
                    now = self.boards.board(g, None)
                    if now != last:
                        last = now
                        yield json.dumps(now) + "\n"
                    else:
                        yield "\n"
            return StreamingResponse(lines(), media_type="application/x-ndjson")
        return await self.guarded(request, act)

    async def layout(self, request: Request) -> Response:
        """A printed board's drawing data (public, the same as the companion page's)."""
        async def act(account: str) -> Response:
            from controller.layout import layout_names

            name = request.path_params["name"]
            if name not in layout_names():
                raise PlayError("no such printed board", 404)
            return JSONResponse(layout_data(name))
        return await self.guarded(request, act)

    async def move(self, request: Request) -> Response:
        async def act(account: str) -> Response:
            await self.hub.move(account, request.path_params["gid"], request.path_params["move"])
            return JSONResponse({"ok": True})
        return await self.guarded(request, act)

    async def action(self, request: Request) -> Response:
        async def act(account: str) -> Response:
            gid, action = request.path_params["gid"], request.path_params["action"]
            answer = request.path_params.get("answer", "yes")
            if answer not in ("yes", "no"):
                raise PlayError("answer yes or no", 404)
            hub = self.hub
            if action == "resign":
                await hub.resign(account, gid)
            elif action == "abort":
                await hub.abort(account, gid)
            elif action == "draw":
                await hub.draw(account, gid, answer == "yes")
            elif action == "takeback":
                await hub.takeback(account, gid, answer == "yes")
            elif action == "claim-victory":
                raise PlayError("The opponent is still here")
            else:
                raise PlayError("No such action", 404)
            return JSONResponse({"ok": True})
        return await self.guarded(request, act)

    async def lobby(self, request: Request) -> Response:
        """The open seeks and games (public: no option or move a game hides)."""
        async def act(account: str) -> Response:
            await self.hub.sync_lobby()
            return JSONResponse(lobby_json(self.hub))
        return await self.guarded(request, act)


def terms_of(form: dict[str, str], limit_key: str, increment_key: str,
             minutes: bool) -> dict[str, Any]:
    """The game, options, clock, rating and colour a seek or challenge asks for."""
    try:
        options = json.loads(form.get("options") or "{}")
    except ValueError:
        raise PlayError("options must be a JSON object") from None
    if not isinstance(options, dict):
        raise PlayError("options must be a JSON object")
    for key in ("players", "dice", "chess960"):
        if key in form:
            raw = form[key]
            options[key] = (raw == "true") if key != "players" else _int(raw, key)
    name, options = game_and_options(form.get("variant") or "standard", options)
    clock = None
    if form.get(limit_key) not in (None, ""):
        limit = _number(form[limit_key], limit_key)
        increment = _int(form.get(increment_key) or "0", increment_key)
        limit_ms = int(limit * 60_000) if minutes else int(limit * 1000)
        if not (0 < limit_ms <= 3 * 3600_000 and 0 <= increment <= 180):
            raise PlayError("the clock is 1 s to 180 min, the increment 0 to 180 s")
        clock = (limit_ms, increment * 1000)
    color = form.get("color") or "random"
    if color not in ("white", "black", "random"):
        raise PlayError("color is white, black or random")
    return {"name": name, "options": options, "clock": clock,
            "rated": form.get("rated") == "true", "color": color}


def lobby_json(hub: Hub) -> dict[str, Any]:
    seeks = [{"id": s.id, "player": s.account, "variant": s.name, "options": s.options,
              "clock": list(s.clock) if s.clock else None, "rated": s.rated}
             for s in hub.seeks]
    games = [{"id": g.id, "variant": g.name, "options": g.options, "seats": list(g.seats),
              "status": g.status, "ply": g.ply} for g in hub.games.values() if not g.ended]
    open_ = [{"id": c.id, "maker": c.maker, "variant": c.name, "options": c.options,
              "clock": list(c.clock) if c.clock else None, "rated": c.rated,
              "users": list(c.users), "joined": [who for who, _ in c.joined]}
             for c in hub.open_challenges.values()]
    return {"seeks": seeks, "games": games, "open": open_}


def _without_times(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k not in ("wtime", "btime", "times")}


async def _wait_future(future, timeout: float) -> None:
    import asyncio

    await asyncio.wait_for(asyncio.shield(future), timeout)


def _int(raw: str, what: str) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise PlayError(Text("{name} must be a whole number, got {value}", name=what,
                             value=repr(str(raw)[:20]))) from None


def _number(raw: str, what: str) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise PlayError(Text("{name} must be a number, got {value}", name=what,
                             value=repr(str(raw)[:20]))) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise PlayError(Text("{name} must be a number, got {value}", name=what,
                             value=repr(str(raw)[:20])))
    return value

