"""The companion web page's server: a Starlette app around a running board service.

Routes (all JSON except ``/`` and ``/static``):

* ``GET /`` — the page; ``GET /static/*`` — its script and style (no CDN, works offline);
* ``GET /api/layout`` — drawing data of the board (spot outlines in mm, LEDs);
* ``GET /api/state?viewer=N`` — the live state (``viewer`` picks the player whose view a
  hidden-information game shows; default: the side to move);
* ``GET /api/texts?lang=de`` — the page's translations in a language (default: the board's);
  every answer's words follow ``?lang=`` or ``Accept-Language`` (``/ws?lang=de`` too);
* ``POST /api/sim`` — a human action on the simulated board (lift, place, slide, …);
  answers with the new state;
* ``POST /api/choice`` — answer the board's open choice (``{"index": i}``);
* ``POST /api/new-game`` — ``{"game", "options", "setup", "computer", "clock", "remote"}``
  (``clock``: a time control such as ``"3+2"``; empty: no clock; ``remote``:
  ``{"1": "beta"}`` — player 1 plays on the linked board ``beta``, docs/link.md);
* ``POST /api/resume`` — ``{"resume": true|false}``: keep the resumed game or start anew;
* ``POST /api/roll`` — roll the virtual die (KaleidoChess dice variant);
* ``POST /api/command`` — ``{"command": "offer draw" | "accept draw" | "resign" |
  "takeback"}`` for the player to move (``takeback``: on a table that holds the person's
  view only, ``controller/fogtable.py``);
* ``POST /api/link`` — ``{"action": "resync" | "decline-takeback" | "accept-invitation" |
  "decline-invitation"}``: a linked game stopped by a disagreement takes the other
  board's moves; the other board's takeback request is declined; the invitation waiting
  while a game is in progress is accepted or declined (docs/link.md);
* ``/api/online…`` — the online account and game (``controller/web/online.py``);
* ``GET /club`` — the spectators' page; ``GET /api/club`` — the club's linked games
  (docs/link.md);
* ``/api/games…`` — the game archive (``controller/web/archive.py``); ``/api/settings``
  — the owner's settings (``controller/web/settings_page.py``);
* ``GET /health`` — status, uptime, sensing back end, last frame age, journal path;
* ``/api/access``, ``POST /api/access/move``, ``POST /api/access/ask`` — the
  screen-reader mode: moves typed on the keyboard, the board as text
  (``controller/web/access.py``);
* ``WS /ws`` — live updates: ``{"type": "state", "state": …}`` on every change and
  ``{"type": "leds", "leds": …}`` when only the LEDs changed; the client may send
  ``{"type": "viewer", "viewer": N|null}``.

The app never touches the pipeline itself: it calls the service's methods, which run in
the same event loop as the board's polling, so no locking is needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from controller.config import MAX_DEPTH, nesting_depth
from controller.i18n import LanguageError, Text, render
from controller.web.access import ACCESS_FIELDS, access_routes
from controller.web.archive import archive_routes
from controller.web.online import FIELDS as ONLINE_FIELDS
from controller.web.online import online_routes
from controller.web.page import page_for
from controller.web.settings_page import settings_routes
from controller.web.texts import page_language, texts_endpoint

STATIC = Path(__file__).resolve().parent / "static"
#: at most this many state pushes per second to one page
MAX_PUSH_HZ = 30.0


class RequestError(ValueError):
    """A request the service cannot carry out; answered with HTTP 400 and the message."""


def _viewer(value: Any) -> int | None:
    if value in (None, "", "auto", "null"):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise RequestError(Text("viewer must be a player number, got {value}",
                                 value=repr(value)[:40])) from None


#: the fields each request body may have (anything else is refused with 400)
FIELDS: dict[str, frozenset[str]] = {
    "sim": frozenset({"action", "spot", "count", "path", "object", "onto", "toward",
                      "amount", "dwell_s", "plies", "viewer"}),
    "choice": frozenset({"index"}),
    "new game": frozenset({"game", "options", "setup", "computer", "clock", "remote"}),
    "resume": frozenset({"resume"}),
    "command": frozenset({"command"}),
    "link": frozenset({"action"}),
    "tutorial": frozenset({"on"}),
    "roll": frozenset(),
    **ONLINE_FIELDS,
}
FIELDS.update(ACCESS_FIELDS)  # the screen-reader mode's requests (controller/web/access.py)


def _no_constant(name: str) -> Any:
    raise RequestError(Text("request body: {name} is not a number JSON allows", name=name))


async def _body(request: Request, what: str) -> dict[str, Any]:
    """The request's JSON object, checked: valid JSON without NaN/Infinity, an object
    nested at most ``MAX_DEPTH`` deep, only the fields ``FIELDS[what]`` allows."""
    raw = await request.body()
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise RequestError("request body is not valid JSON") from None
    except RecursionError:
        raise RequestError(Text("request body nested deeper than {depth}",
                                depth=MAX_DEPTH)) from None
    if not isinstance(data, dict):
        raise RequestError("request body must be a JSON object")
    if nesting_depth(data) > MAX_DEPTH:
        raise RequestError(Text("request body nested deeper than {depth}", depth=MAX_DEPTH))
    unknown = sorted(str(k)[:30] for k in data if k not in FIELDS[what])
    if unknown:
        raise RequestError(Text("{what}: unknown field {field} (known: {known})", what=what,
                                field=repr(unknown[0]),
                                known=", ".join(sorted(FIELDS[what])) or "none"))
    return data


def _remote(value: Any) -> dict[int, str] | None:
    """``{"1": "beta"}``: player 1 plays on the board named beta (docs/link.md)."""
    if value is None:
        return None
    problem = RequestError("new game: 'remote' must be {\"player number\": \"board name\"}")
    if not isinstance(value, dict) or len(value) > 3:
        raise problem
    out = {}
    for key, board in value.items():
        if not str(key).isdigit() or not isinstance(board, str):
            raise problem
        out[int(key)] = board
    return out


def _computer(value: Any) -> Any:
    """``{"players": [1], "level": 6}`` (players by number) or null: nobody."""
    from controller.opponent import Computer

    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - {"players", "level"}:
        raise RequestError("new game: 'computer' must be {\"players\": [numbers], "
                           "\"level\": 1..10}")
    players, level = value.get("players", []), value.get("level", 6)
    if (not isinstance(players, list) or len(players) > 4
            or not all(isinstance(p, int) and not isinstance(p, bool) for p in players)
            or not isinstance(level, int) or isinstance(level, bool)):
        raise RequestError("new game: 'computer' must be {\"players\": [numbers], "
                           "\"level\": 1..10}")
    return Computer(frozenset(players), level)


def create_app(service: Any, config_path: str | Path | None = None) -> Starlette:
    """The Starlette app serving ``service`` (a :class:`controller.service.BoardService`);
    what the page is sent is built by its :class:`~controller.web.page.Page`; the owner's
    settings are saved to ``config_path`` (None: the page cannot save them)."""
    page = page_for(service)

    def guarded(handler):
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except (RequestError, ValueError) as exc:
                return JSONResponse({"error": _said(exc, request)}, status_code=400)
            except ClientDisconnect:  # hung up mid-body: nobody left to answer
                return Response(status_code=400)
        return endpoint

    def _said(exc: Exception, request: Request) -> str:
        """An error's one line in the language the request reads."""
        text = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], Text) else str(exc)
        try:
            return render(text, page_language(request, service))
        except LanguageError:
            return str(text)

    def lang(request: Request) -> str:
        return page_language(request, service)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def sound(request: Request) -> Response:
        """An event's sound (``controller/speech/sounds.py``), generated, at the owner's
        volume."""
        from controller.speech.sounds import SOUNDS, wav_bytes

        name = request.path_params["name"]
        if name not in SOUNDS:
            return JSONResponse({"error": render(Text("no sound {name}", name=repr(name[:30])),
                                                 lang(request))}, status_code=404)
        return Response(wav_bytes(name, service.config.speech.volume), media_type="audio/wav",
                        headers={"Cache-Control": "max-age=3600"})

    async def layout(request: Request) -> Response:
        page.follow_layout()
        return JSONResponse(page.layout_json)

    async def club(request: Request) -> Response:
        return FileResponse(STATIC / "club.html", headers={"Cache-Control": "no-cache"})

    async def club_games(request: Request) -> Response:
        return JSONResponse(service.club_json())

    async def state(request: Request) -> Response:
        return JSONResponse(page.state(_viewer(request.query_params.get("viewer")),
                                       lang(request)))

    async def sim(request: Request) -> Response:
        data = await _body(request, "sim")
        service.sim_action(data)
        # the new state at once, so the page decides its next gesture on fresh data
        return JSONResponse({"ok": True, "state": page.state(_viewer(data.get("viewer")),
                                                             lang(request))})

    async def choice(request: Request) -> Response:
        data = await _body(request, "choice")
        index = data.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            raise RequestError(Text("choice index must be a whole number, got {index}",
                                    index=repr(index)[:40]))
        service.answer_choice(index)
        return JSONResponse({"ok": True})

    async def new_game(request: Request) -> Response:
        from controller.rules import GAMES

        data = await _body(request, "new game")
        game = data.get("game")
        options = data.get("options") or {}
        setup = data.get("setup")
        if not isinstance(game, str):
            raise RequestError("new game: 'game' must name a game")
        if not isinstance(options, dict):
            raise RequestError("new game: 'options' must be an object")
        if setup is not None and not isinstance(setup, str):
            raise RequestError("new game: 'setup' must be a position text")
        if game in GAMES:  # a bad option is the request's fault, whatever else it asks
            GAMES[game].validate_options(options)
        clock = data.get("clock")
        if clock is not None and not isinstance(clock, str):
            raise RequestError("new game: 'clock' must be a time control such as \"3+2\"")
        service.new_game(game, options, setup or None, _computer(data.get("computer")),
                         time_control=clock, remote=_remote(data.get("remote")))
        return JSONResponse({"ok": True, "id": service.game_id})

    async def guide(request: Request) -> Response:
        from controller.rules import GAMES
        from controller.web.guides import guide_html, reader_language

        name = request.path_params["game"]
        if len(name) > 40:  # no game has such a name (and the file system refuses it)
            return JSONResponse({"error": render(Text("no guide for that name"),
                                                 page_language(request, service))},
                                status_code=404)
        cls = GAMES.get(name)  # a game may share another's guide
        lang, note = reader_language(request.query_params.get("lang"),
                                     request.headers.get("accept-language"))
        page = guide_html(cls.guide or name if cls else name, cls.title if cls else name,
                          lang, note)
        if page is None:
            return JSONResponse({"error": render(Text("no guide for {name}", name=repr(name)),
                                                 lang)}, status_code=404)
        return HTMLResponse(page, headers={"Vary": "Accept-Language"})

    async def guide_picture(request: Request) -> Response:
        from controller.web.guides import guide_image

        name = request.path_params["name"]
        path = guide_image(name) if len(name) <= 80 else None
        if path is None:
            return JSONResponse({"error": render(Text("no such picture"), lang(request))},
                                status_code=404)
        return FileResponse(path, media_type="image/svg+xml")

    async def tutorial(request: Request) -> Response:
        data = await _body(request, "tutorial")
        on = data.get("on")
        if not isinstance(on, bool) or set(data) != {"on"}:
            raise RequestError('tutorial: expected {"on": true or false}')
        service.set_tutorial(on)
        return JSONResponse({"ok": True})

    async def resume(request: Request) -> Response:
        data = await _body(request, "resume")
        keep = data.get("resume")
        if not isinstance(keep, bool):
            raise RequestError("resume: expected {\"resume\": true or false}")
        service.decide_resume(keep)
        return JSONResponse({"ok": True, "id": service.game_id})

    async def command(request: Request) -> Response:
        data = await _body(request, "command")
        name = data.get("command")
        if not isinstance(name, str):
            raise RequestError("command: expected {\"command\": \"resign\"} or similar")
        service.command(name)
        return JSONResponse({"ok": True})

    async def link(request: Request) -> Response:
        data = await _body(request, "link")
        action = data.get("action")
        if action == "resync":
            service.link_resync()
        elif action == "decline-takeback":
            service.decline_takeback()
        elif action in ("accept-invitation", "decline-invitation"):
            service.link_accept(action == "accept-invitation")
        else:
            raise RequestError("link: expected {\"action\": \"resync\"} or "
                               "{\"action\": \"decline-takeback\"}")
        return JSONResponse({"ok": True})

    async def roll(request: Request) -> Response:
        face = service.roll_die()
        return JSONResponse({"ok": True, "face": face})

    async def health(request: Request) -> Response:
        report = service.health()
        return JSONResponse(report, status_code=200 if report["status"] == "ok" else 503)

    async def live(websocket: WebSocket) -> None:
        try:
            language = page_language(websocket, service)
        except LanguageError:
            language = "en"
        await websocket.accept()
        changed = asyncio.Event()
        changed.set()  # the first state goes out at once, not after the first change
        service.listeners.add(changed.set)
        service.pages_sent[changed] = -1
        viewer: list[int | None] = [None]
        force = [True]

        async def receive() -> None:
            while True:
                message = await websocket.receive_text()
                try:
                    data = json.loads(message)
                    if isinstance(data, dict) and data.get("type") == "viewer":
                        viewer[0] = _viewer(data.get("viewer"))
                        force[0] = True
                        changed.set()
                except (ValueError, RequestError):
                    continue

        reader = asyncio.create_task(receive())
        sent_state = sent_leds = -1
        try:
            while not service.stopping:
                if reader.done():
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), timeout=1.0)
                changed.clear()
                if service.version != sent_state or force[0]:
                    force[0] = False
                    sent_state, sent_leds = service.version, service.led_version
                    await websocket.send_json({"type": "state",
                                               "state": page.state(viewer[0], language)})
                    service.pages_sent[changed] = sent_state
                elif service.led_version != sent_leds:
                    sent_leds = service.led_version
                    await websocket.send_json({"type": "leds", "led_seq": sent_leds,
                                               "leds": page.leds(viewer[0])})
                await asyncio.sleep(1.0 / MAX_PUSH_HZ)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            service.listeners.discard(changed.set)
            service.pages_sent.pop(changed, None)
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
            with contextlib.suppress(Exception):
                await websocket.close(code=1001)

    routes = [
        Route("/", index),
        Route("/api/layout", guarded(layout)),
        Route("/club", club),
        Route("/api/club", guarded(club_games)),
        Route("/api/state", guarded(state)),
        Route("/api/texts", guarded(texts_endpoint(service))),
        Route("/api/sim", guarded(sim), methods=["POST"]),
        Route("/api/tutorial", guarded(tutorial), methods=["POST"]),
        Route("/guide/images/{name}", guide_picture),
        Route("/sound/{name}", sound),
        Route("/guide/{game}", guide),
        Route("/api/choice", guarded(choice), methods=["POST"]),
        Route("/api/new-game", guarded(new_game), methods=["POST"]),
        Route("/api/resume", guarded(resume), methods=["POST"]),
        Route("/api/roll", guarded(roll), methods=["POST"]),
        Route("/api/command", guarded(command), methods=["POST"]),
        Route("/api/link", guarded(link), methods=["POST"]),
        *online_routes(service, guarded, _body),
        Route("/health", health),
        *archive_routes(service, guarded),
        *settings_routes(service, guarded, config_path),
        *access_routes(service, guarded, _body),
        WebSocketRoute("/ws", live),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)
