"""The server's own pages: sign-up, login, the board tokens, the lobby and the play page.

Plain HTML forms, each with a CSRF token: the session's once logged in, before that a
random value in a cookie of its own that the form must repeat (double submit).  Cookies
are HttpOnly and SameSite=Strict (Secure when the page is served over HTTPS).  A refused
form shows one line on the page it came from; nothing is lost but the password.

Every page is in its reader's language (:func:`~controller.server.api.reader_language`:
the ``lang`` cookie its language menu sets, else ``Accept-Language``), worded through the
product's catalogues (``_("…")`` here, ``t("…")`` in the scripts with the companion page's
``i18n.js``, served from its one home with ``/api/texts``).
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import html
import json
import secrets
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Route

from controller.i18n import LANGUAGES, Text, language, render, speaking, text_of
from controller.i18n import translate as _
from controller.online.seat import STATUS_WORDS
from controller.rules import GAMES
from controller.server.accounts import SESSION_S, AccountError, Accounts, Session
from controller.server.api import (
    LANG_COOKIE,
    SESSION_COOKIE,
    lobby_json,
    read_form,
    reader_language,
    terms_of,
)
from controller.server.games import PlayError
from controller.server.hub import Hub
from controller.web.texts import texts_json

PRE_COOKIE = "fb_form"
EXPIRED = Text("the form has expired: please send it again")
#: the companion page's files the play page loads from their one home
WEB_STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
SHARED_STATIC = ("board.js", "board.css", "i18n.js")
#: how long the language chosen on the menu is kept (a year)
LANG_S = 365 * 24 * 3600

STYLE = """body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}
form{margin:.6rem 0}input,select,button{font-size:1rem;margin:.2rem}
.problem{color:#a00}.token{font-family:monospace;background:#eee;padding:.3rem}
table{border-collapse:collapse}td,th{padding:.2rem .6rem;border-bottom:1px solid #ddd}
#board{width:100%;height:auto;max-height:75vh;display:block;user-select:none}
#board .spot{cursor:pointer}#moves{columns:12rem}
nav.languages a,nav.languages b{margin-right:.6rem}"""


def _esc(text: str) -> str:
    return html.escape(text)


def _menu(here: str) -> str:
    """The language menu: each language by its own name, the page's marked."""
    now, back = language(), html.escape(quote(here, safe="/"))
    items = "".join(
        f"<b lang={code} aria-current=true>{html.escape(name)}</b>" if code == now
        else f"<a lang={code} hreflang={code} href='/lang/{code}?back={back}'>"
        f"{html.escape(name)}</a>" for code, (name, _voice) in LANGUAGES.items())
    return (f"<nav class=languages translate=no aria-label=\"{_esc(_('Language'))}\">"
            f"{items}</nav>")


def page(title: str, body: str, status: int = 200, sheet: str = "",
         here: str = "/") -> HTMLResponse:
    """A server page in the language being spoken (:func:`speaking`); ``sheet``: a
    stylesheet of this server's own (the board's); ``here``: where the language menu
    comes back to."""
    link = f"<link rel=stylesheet href={sheet}>" if sheet else ""
    lang = "zh-CN" if language() == "zh" else language()
    return HTMLResponse(f"<!doctype html><html lang={lang}><head><meta charset=utf-8>"
                        f"<meta name=viewport content='width=device-width'>"
                        f"<title>{html.escape(title)} · fairyboard</title>{link}"
                        f"<style>{STYLE}</style></head><body>{_menu(here)}"
                        f"<main><h1>{html.escape(title)}</h1>"
                        f"{body}</main></body></html>", status_code=status,
                        headers={"Content-Security-Policy": "default-src 'self'; "
                                 "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
                                 "X-Content-Type-Options": "nosniff",
                                 "Cache-Control": "no-store", "Vary": "Accept-Language"})


def _spoken(handler: Callable[..., Awaitable[Response]]) -> Callable[..., Awaitable[Response]]:
    """A route whose words are built in its reader's language."""
    async def run(request: Request) -> Response:
        with speaking(reader_language(request)):
            return await handler(request)
    return run


def _input(name: str, label: str, attributes: str = "") -> str:
    """A text field named ``name``, its placeholder and accessible name ``label`` (said in
    the page's language), with other ``attributes``."""
    said = _esc(label)
    return (f"<input name={name} placeholder=\"{said}\" aria-label=\"{said}\""
            + (f" {attributes}" if attributes else "") + ">")


def _field(csrf: str) -> str:
    return f"<input type=hidden name=csrf value='{html.escape(csrf)}'>"


class Pages:
    """The server's pages.  What they ask of the store runs in the hub's store threads and
    the password hashing (argon2, tens of milliseconds by design) in a thread of its own,
    one login at a time: the event loop serves the games meanwhile."""

    def __init__(self, hub: Hub, accounts: Accounts) -> None:
        self.hub = hub
        self.accounts = accounts
        self._hashing = ThreadPoolExecutor(1, thread_name_prefix="passwords")

    def close(self) -> None:
        self._hashing.shutdown(wait=True)

    async def _hashed(self, call: Callable[..., Any], *args: Any) -> Any:
        """``call`` (a sign-up or a login) in the password thread."""
        return await asyncio.get_running_loop().run_in_executor(
            self._hashing, functools.partial(call, *args))

    def routes(self) -> list[Route]:
        spoken = [("/", self.home, ["GET"]), ("/signup", self.signup, ["POST"]),
                  ("/login", self.login, ["POST"]), ("/logout", self.logout, ["POST"]),
                  ("/devices", self.devices, ["GET", "POST"]),
                  ("/devices/{did}/revoke", self.revoke, ["POST"]),
                  ("/seek", self.seek, ["POST"]), ("/seek/{sid}/{act}", self.seek_act, ["POST"]),
                  ("/challenge", self.challenge, ["POST"]),
                  ("/challenge/{cid}/{answer}", self.answer, ["POST"]),
                  ("/open/{cid}/join", self.join_open, ["POST"]),
                  ("/play/{gid}", self.play, ["GET"]), ("/watch/{gid}", self.watch, ["GET"]),
                  ("/lang/{code}", self.choose_language, ["GET"])]
        return [*(Route(path, _spoken(handler), methods=methods)
                  for path, handler, methods in spoken),
                Route("/api/texts", self.texts),
                *(Route(f"/static/{name}", self.shared_static) for name in SHARED_STATIC)]

    def open_challenge_route(self) -> Route:
        """``/{id}``: an open challenge's page, lichess's ``url`` (the app's last route, so
        that it takes only what no other route does)."""
        return Route("/{cid}", _spoken(self.open_challenge), methods=["GET"])

    # -- cookies and tokens -----------------------------------------------------------------
    @staticmethod
    def _cookie(response: Response, request: Request, name: str, value: str,
                max_age: int | None) -> None:
        response.set_cookie(name, value, max_age=max_age, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https", path="/")

    async def _session(self, request: Request) -> Session | None:
        return await self.hub.io(self.accounts.session, request.cookies.get(SESSION_COOKIE))

    def _pre_token(self, request: Request) -> str:
        return request.cookies.get(PRE_COOKIE) or secrets.token_urlsafe(24)

    def _form_ok(self, request: Request, form: dict[str, str],
                 session: Session | None) -> bool:
        sent = form.get("csrf", "")
        if session is not None:
            return Accounts.csrf_ok(session, sent)
        pre = request.cookies.get(PRE_COOKIE, "")
        return bool(pre and sent and hmac.compare_digest(pre, sent))

    async def _posted(self, request: Request) -> tuple[Session, dict[str, str]] | Response:
        """A logged-in player's form with its CSRF token, or the lobby with one line."""
        session = await self._session(request)
        try:
            form = await read_form(request)
        except PlayError as exc:
            return await self.home(request, text_of(exc), 400)
        if session is None or not self._form_ok(request, form, session):
            return await self.home(request, EXPIRED, 403)
        return session, form

    # -- pages ---------------------------------------------------------------------------------
    async def home(self, request: Request, problem: str = "", status: int = 200) -> Response:
        """The login and sign-up forms, or the lobby; ``problem``: a refusal's one line
        (a catalogue message or a :class:`~controller.i18n.Text`, said in the page's
        language)."""
        session = await self._session(request)
        note = (f"<p class=problem role=alert>{_esc(render(problem, language()))}</p>"
                if problem else "")
        if session is None:
            csrf = self._pre_token(request)
            name = _input("name", _("user name"), "autocomplete=username required")

            def form(action: str, title: str, password: str, complete: str) -> str:
                return (f"<h2>{_esc(title)}</h2><form method=post action=/{action}>"
                        + _field(csrf) + name
                        + _input("password", password,
                                 f"type=password autocomplete={complete} required")
                        + f"<button>{_esc(title)}</button></form>")

            body = (note + form("login", _("Log in"), _("your password"), "current-password")
                    + form("signup", _("Sign up"), _("password (8 or more)"), "new-password"))
            response = page(_("fairyboard server"), body, status)
            self._cookie(response, request, PRE_COOKIE, csrf, 3600)
            return response
        await self.hub.sync_lobby()  # (cluster mode: the same lobby on every worker)
        return page(_("Lobby"), self._lobby(session, note), status)

    def _lobby(self, session: Session, note: str) -> str:
        """The lobby: the seek and challenge form, the challenges and seeks (each with its
        answer or its cancel), the player's games and the live games to watch."""
        me, csrf = session.account, session.csrf
        lobby = lobby_json(self.hub)

        def button(action: str, text: str) -> str:
            return (f"<form method=post action={action}>{_field(csrf)}"
                    f"<button>{_esc(text)}</button></form>")

        def title(name: str) -> str:
            return _esc(_(GAMES[name].title)) if name in GAMES else _esc(name)

        incoming = "".join(
            f"<tr data-challenge={c.id}><td>{_esc(c.challenger)}</td>"
            f"<td>{title(c.name)}{_options_text(c.options)}</td><td>{_clock_text(c.clock)}"
            f"</td><td>{button(f'/challenge/{c.id}/accept', _('Accept'))}"
            f"{button(f'/challenge/{c.id}/decline', _('Decline'))}</td></tr>"
            for c in self.hub.challenges.values() if c.dest == me)
        outgoing = "".join(
            f"<tr data-challenge={c.id}><td>{_esc(c.dest)}</td>"
            f"<td>{title(c.name)}{_options_text(c.options)}</td><td>{_clock_text(c.clock)}"
            f"</td><td>{button(f'/challenge/{c.id}/cancel', _('Cancel'))}</td></tr>"
            for c in self.hub.challenges.values() if c.challenger == me)
        seeks = "".join(
            f"<tr data-seek={s['id']}><td>{_esc(s['player'])}</td>"
            f"<td>{title(s['variant'])}{_options_text(s['options'])}</td>"
            f"<td>{_clock_text(s['clock'])}</td><td>"
            + (button(f"/seek/{s['id']}/cancel", _("Cancel")) if s["player"] == me
               else button(f"/seek/{s['id']}/join", _("Join"))) + "</td></tr>"
            for s in lobby["seeks"])
        mine = "".join(
            f"<tr><td><a href=/play/{g['id']}>{title(g['variant'])}</a></td>"
            f"<td>{_esc(' – '.join(g['seats']))}</td><td>{g['ply']}</td></tr>"
            for g in lobby["games"] if me in g["seats"])
        live = "".join(
            f"<tr><td><a href=/watch/{g['id']}>{title(g['variant'])}</a></td>"
            f"<td>{_esc(' – '.join(g['seats']))}</td><td>{g['ply']}</td></tr>"
            for g in lobby["games"] if me not in g["seats"])
        known = " ".join([*(g["id"] for g in lobby["games"] if me in g["seats"]),
                          *(c.id for c in self.hub.challenges.values()
                            if me in (c.dest, c.challenger))])
        none = f"<tr><td>{_esc(_('none yet'))}</td></tr>"
        return (note + f"<div id=lobby data-known='{known}'></div>"
                + "<p>" + _esc(_("Logged in as {name}")).format(name=f"<b>{_esc(me)}</b>")
                + f" · <a href=/devices>{_esc(_('your boards'))}</a></p>"
                "<form method=post action=/logout>"
                + _field(csrf) + f"<button>{_esc(_('Log out'))}</button></form>"
                f"<h2>{_esc(_('Seek or challenge'))}</h2>"
                "<form method=post action=/seek id=terms>"
                + _field(csrf) + _terms_fields()
                + f"<p><button>{_esc(_('Seek'))}</button> {_esc(_('or'))} "
                + _input("opponent", _("player to challenge"), "maxlength=40")
                + f"<button formaction=/challenge>{_esc(_('Challenge'))}</button></p></form>"
                + (f"<h2>{_esc(_('Challenges for you'))}</h2>"
                   f"<table id=challenges>{incoming}</table>" if incoming else "")
                + (f"<h2>{_esc(_('Your challenges'))}</h2><table id=sent>{outgoing}</table>"
                   if outgoing else "")
                + f"<h2>{_esc(_('Open seeks'))}</h2><table id=seeks>{seeks or none}</table>"
                f"<h2>{_esc(_('Your games'))}</h2><table id=games>{mine or none}</table>"
                f"<h2>{_esc(_('Live games'))}</h2><table id=live>{live or none}</table>"
                "<script src=/static/ndjson.js></script><script src=/static/lobby.js></script>")

    async def choose_language(self, request: Request) -> Response:
        """The language menu's link: the language kept in the ``lang`` cookie, then back
        to the page it was chosen on (a path of this server only)."""
        code = request.path_params["code"]
        if code not in LANGUAGES:
            return page(_("No such language"), f"<p><a href=/>{_esc(_('Lobby'))}</a></p>", 404)
        back = request.query_params.get("back", "/")
        if not back.startswith("/") or back.startswith(("//", "/\\")):
            back = "/"
        response = RedirectResponse(back, status_code=303)
        self._cookie(response, request, LANG_COOKIE, code, LANG_S)
        return response

    async def texts(self, request: Request) -> Response:
        """The scripts' texts (``i18n.js`` asks): ``?lang=``, else the reader's language."""
        asked = request.query_params.get("lang", "")
        code = asked if asked in LANGUAGES else reader_language(request)
        if asked and asked not in LANGUAGES:
            return JSONResponse({"error": f"unknown language {asked[:20]!r}"}, status_code=404)
        return JSONResponse(texts_json(code, reader_language(request)),
                            headers={"Cache-Control": "no-store"})
    async def signup(self, request: Request) -> Response:
        return await self._enter(request, sign_up=True)

    async def login(self, request: Request) -> Response:
        return await self._enter(request, sign_up=False)

    async def _enter(self, request: Request, sign_up: bool) -> Response:
        try:
            form = await read_form(request)
        except PlayError as exc:
            return await self.home(request, text_of(exc), 400)
        if not self._form_ok(request, form, None):
            return await self.home(request, EXPIRED, 403)
        name, password = form.get("name", ""), form.get("password", "")
        address = request.client.host if request.client else "?"
        try:
            if sign_up:
                await self._hashed(self.accounts.sign_up, name, password)
            value, _ = await self._hashed(self.accounts.log_in, name, password, address)
        except AccountError as exc:
            status = 429 if "too many" in str(exc) else 400
            return await self.home(request, text_of(exc), status)
        response = RedirectResponse("/", status_code=303)
        self._cookie(response, request, SESSION_COOKIE, value, int(SESSION_S))
        response.delete_cookie(PRE_COOKIE, path="/")
        return response

    async def logout(self, request: Request) -> Response:
        posted = await self._posted(request)
        if isinstance(posted, Response):
            return posted
        await self.hub.io(self.accounts.log_out, request.cookies.get(SESSION_COOKIE, ""))
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    async def devices(self, request: Request) -> Response:
        session = await self._session(request)
        if session is None:
            return RedirectResponse("/", status_code=303)
        shown = ""
        if request.method == "POST":
            try:
                form = await read_form(request)
            except PlayError as exc:
                return await self.home(request, text_of(exc), 400)
            if not self._form_ok(request, form, session):
                return await self.home(request, EXPIRED, 403)
            did, token = await self.hub.io(self.accounts.issue_token, session.account,
                                           form.get("name", ""))
            shown = ("<p>" + _esc(_("The board's token, shown only now: enter it on the "
                                    "board with {command}.")).format(
                         command="<code>fairyboard online token</code>") + "</p>"
                     f"<p class=token>{html.escape(token)}</p><p>"
                     + _esc(_("A board linked over MQTT logs in to the club's broker with "
                              "the user name {device} and this token as its password.")
                            ).format(device=f"<code>{html.escape(did)}</code>") + "</p>")
        devices = await self.hub.io(self.accounts.store.devices, session.account)
        rows = "".join(
            f"<tr><td>{html.escape(d.name)}</td><td><code>{html.escape(d.id)}</code></td><td>"
            + (_esc(_("token revoked")) if d.revoked else
               f"<form method=post action=/devices/{d.id}/revoke>{_field(session.csrf)}"
               f"<button>{_esc(_('Revoke'))}</button></form>") + "</td></tr>"
            for d in devices)
        none = f"<tr><td>{_esc(_('no board yet'))}</td></tr>"
        body = (shown + f"<table>{rows or none}</table>"
                f"<h2>{_esc(_('A token for a board'))}</h2><form method=post action=/devices>"
                + _field(session.csrf) + _input("name", _("board name"), "maxlength=40")
                + f"<button>{_esc(_('Make a token'))}</button></form>"
                f"<p><a href=/>{_esc(_('Lobby'))}</a></p>")
        return page(_("Your boards"), body, here="/devices")

    async def revoke(self, request: Request) -> Response:
        posted = await self._posted(request)
        if isinstance(posted, Response):
            return posted
        session, _ = posted
        await self.hub.io(self.accounts.revoke, session.account, request.path_params["did"])
        return RedirectResponse("/devices", status_code=303)

    async def seek(self, request: Request) -> Response:
        """A correspondence-like seek from the lobby form: it stays until matched or
        cancelled."""
        posted = await self._posted(request)
        if isinstance(posted, Response):
            return posted
        session, form = posted
        try:
            await self.hub.seek(session.account, **_terms(form))
        except PlayError as exc:
            return await self.home(request, text_of(exc), exc.status)
        return RedirectResponse("/", status_code=303)

    async def challenge(self, request: Request) -> Response:
        """A challenge to a named player from the lobby form."""
        posted = await self._posted(request)
        if isinstance(posted, Response):
            return posted
        session, form = posted
        opponent = form.get("opponent", "").strip().lower()
        if not opponent:
            return await self.home(request, Text("name the player to challenge"), 400)
        try:
            await self.hub.challenge(session.account, opponent[:40], **_terms(form))
        except PlayError as exc:
            return await self.home(request, text_of(exc), exc.status)
        return RedirectResponse("/", status_code=303)

    async def seek_act(self, request: Request) -> Response:
        """Cancel one's own seek, or play an open seek (a seek of the same terms)."""
        posted = await self._posted(request)
        if isinstance(posted, Response):
            return posted
        session, _ = posted
        act = request.path_params["act"]
        await self.hub.sync_lobby()
        seek = next((s for s in self.hub.seeks if s.id == request.path_params["sid"]), None)
        if act not in ("cancel", "join"):
            return await self.home(request, Text("cancel or join"), 404)
        if seek is None or (act == "cancel") != (seek.account == session.account):
            return await self.home(request, Text("no such seek"), 404)
        if act == "cancel":
            self.hub.cancel_seek(seek)
            return RedirectResponse("/", status_code=303)
        try:
            mine = await self.hub.seek(session.account, seek.name, seek.options, seek.clock,
                                       seek.rated, "random")
        except PlayError as exc:
            return await self.home(request, text_of(exc), exc.status)
        if mine.found.done():
            return RedirectResponse(f"/play/{mine.found.result()}", status_code=303)
        return RedirectResponse("/", status_code=303)

    async def answer(self, request: Request) -> Response:
        """Accept (then play it) or decline a challenge for you; cancel one of yours."""
        posted = await self._posted(request)
        if isinstance(posted, Response):
            return posted
        session, _ = posted
        answer = request.path_params["answer"]
        if answer not in ("accept", "decline", "cancel"):
            return await self.home(request, Text("accept, decline or cancel"), 404)
        try:
            g = await self.hub.answer_challenge(session.account, request.path_params["cid"],
                                                answer == "accept")
        except PlayError as exc:
            return await self.home(request, text_of(exc), exc.status)
        return RedirectResponse(f"/play/{g.id}" if g else "/", status_code=303)

    async def open_challenge(self, request: Request) -> Response:
        """An open challenge (the ``url`` its maker shares): its terms and who has taken a
        seat, with a button for each colour (``?color=`` puts that colour first)."""
        await self.hub.sync_lobby()
        c = self.hub.open_challenges.get(request.path_params["cid"])
        if c is None:
            return page(_("No such challenge"), f"<p><a href=/>{_esc(_('Lobby'))}</a></p>", 404)
        session = await self._session(request)
        if session is None:  # (log in, then open the address again)
            return RedirectResponse("/", status_code=303)
        joined = [who for who, _colour in c.joined]
        terms = (f"<p>{_esc(_(GAMES[c.name].title))}{_options_text(c.options)}"
                 f" · {_clock_text(c.clock)} · {_esc(c.maker)}</p>")
        if session.account in joined:
            body = terms + "<p>" + _esc(_("You have taken a seat: the game starts when a "
                                          "second player takes the other.")) + "</p>"
        else:
            wanted = request.query_params.get("color", "")
            colours = sorted(("white", "black", "random"), key=lambda k: k != wanted)
            said = {"white": _("Play white"), "black": _("Play black"),
                    "random": _("Play either colour")}
            body = terms + "".join(
                f"<form method=post action=/open/{html.escape(c.id)}/join>"
                + _field(session.csrf) + f"<input type=hidden name=color value={k}>"
                f"<button>{_esc(said[k])}</button></form>" for k in colours)
        known = " ".join(g.id for g in self.hub.games.values() if session.account in g.seats)
        body = (f"<div id=lobby data-known='{known}'></div>" + body
                + f"<p><a href=/>{_esc(_('Lobby'))}</a></p>"
                "<script src=/static/ndjson.js></script><script src=/static/lobby.js></script>")
        return page(_("Open challenge"), body)

    async def join_open(self, request: Request) -> Response:
        """Take a seat of an open challenge: the game once two have."""
        posted = await self._posted(request)
        if isinstance(posted, Response):
            return posted
        session, form = posted
        cid = request.path_params["cid"]
        try:
            g = await self.hub.join_open(session.account, cid, form.get("color") or "random")
        except PlayError as exc:
            return await self.home(request, text_of(exc), exc.status)
        return RedirectResponse(f"/play/{g.id}" if g else f"/{cid}", status_code=303)

    async def play(self, request: Request) -> Response:
        """The play page of a seat (the drawn board, its moves, the game's notation)."""
        return await self._game_page(request, watch=False)

    async def watch(self, request: Request) -> Response:
        """A live game watched (a hidden-information game as the club view shows it)."""
        return await self._game_page(request, watch=True)

    async def _game_page(self, request: Request, watch: bool) -> Response:
        session = await self._session(request)
        if session is None:
            return RedirectResponse("/", status_code=303)
        gid = request.path_params["gid"]
        g = self.hub.games.get(gid)
        if g is None or (not watch and session.account not in g.seats):
            return page(_("No such game"), f"<p><a href=/>{_esc(_('Lobby'))}</a></p>", 404)
        if watch and session.account in g.seats:
            return RedirectResponse(f"/play/{gid}", status_code=303)
        seats = html.escape(" – ".join(g.seats))
        controls = "" if watch else (
            f"<div id=choice hidden><p>{_esc(_('Several moves fit: choose one'))}</p>"
            "<div id=choice-options></div></div><div id=other-moves></div>"
            "<form id=move>" + _input("move", _("your move"), "autocomplete=off")
            + f"<button>{_esc(_('Move'))}</button></form>"
            "<p id=offer hidden><span id=offer-text></span> "
            f"<button type=button id=offer-yes>{_esc(_('Accept'))}</button> "
            f"<button type=button id=offer-no>{_esc(_('Decline'))}</button></p>"
            f"<p id=actions><button type=button data-act=resign>{_esc(_('Resign'))}</button> "
            f"<button type=button data-act=draw>{_esc(_('Offer a draw'))}</button> "
            f"<button type=button data-act=takeback>{_esc(_('Ask to take back'))}</button> "
            f"<button type=button data-act=abort>{_esc(_('Abort'))}</button></p>")
        statuses = {status: _(str(words)) for status, words in STATUS_WORDS.items()}
        body = (f"<div id=play data-game='{html.escape(gid)}' "
                f"data-csrf='{html.escape(session.csrf)}' data-watch={int(watch)} "
                f"data-statuses=\"{_esc(json.dumps(statuses, ensure_ascii=False))}\"></div>"
                f"<p id=players translate=no>{seats}</p><p id=status>{_esc(_('connecting…'))}</p>"
                f"<svg id=board role=img aria-label=\"{_esc(_('the board'))}\"></svg>"
                + controls + "<p class=problem id=problem role=alert></p>"
                f"<h2>{_esc(_('Moves'))}</h2><ol id=moves></ol>"
                f"<details><summary>{_esc(_('The position as text'))}</summary>"
                "<pre id=position></pre>"
                f"</details><p><a href=/>{_esc(_('Lobby'))}</a></p>"
                "<script src=/static/i18n.js></script>"
                "<script src=/static/board.js></script><script src=/static/ndjson.js></script>"
                "<script src=/static/play.js></script>")
        return page(_(g.game.title), body, sheet="/static/board.css",
                    here=request.url.path)

    async def shared_static(self, request: Request) -> Response:
        """The companion page's board drawing (``controller/web/static``), served as it is:
        one home for both pages."""
        name = request.url.path.rsplit("/", 1)[-1]
        return FileResponse(WEB_STATIC / name, headers={"X-Content-Type-Options": "nosniff"})

def _declared() -> dict[str, list[Any]]:
    """Every option a player may choose (none the server draws), and the games that
    declare it: one field each in the lobby's form."""
    out: dict[str, list[Any]] = {}
    for cls in GAMES.values():
        for spec in cls.option_specs:
            if spec.name not in cls.hidden_options | {"seed"}:
                out.setdefault(spec.name, []).append((cls, spec))
    return out


def _terms_fields() -> str:
    """The lobby form's game, clock, colour and option fields (an option's field names the
    games it belongs to; the server keeps it only for those)."""
    games = "".join(f"<option value={n}>{_esc(_(c.title))}</option>"
                    for n, c in GAMES.items())
    fields = []
    for name, owners in _declared().items():
        spec = owners[0][1]
        label = _esc(f"{_option_name(name)} ({', '.join(_(c.title) for c, _s in owners)})")
        key = f"option.{name}"
        if spec.kind is bool:
            fields.append(f"<label><input type=checkbox name={key} value=true> {label}</label>")
        elif spec.choices:
            choices = "".join(f"<option>{html.escape(str(c))}</option>" for c in spec.choices)
            fields.append(f"<label>{label} <select name={key}><option value=''>"
                          f"{_esc(_('default'))}</option>{choices}</select></label>")
        else:
            fields.append(f"<label>{label} <input name={key} type=number "
                          f"{'' if spec.low is None else f'min={spec.low} '}"
                          f"{'' if spec.high is None else f'max={spec.high} '}"
                          "style='width:5rem'></label>")
    colours = "".join(f"<option value={c}>{_esc(_(c))}</option>"
                      for c in ("random", "white", "black"))
    return (f"<p><select name=variant aria-label=\"{_esc(_('game to play'))}\">{games}"
            f"</select> <label>{_esc(_('clock (minutes)'))} "
            "<input name=time type=number min=1 max=180 value=10 style='width:4rem'></label> "
            f"<label>{_esc(_('increment (seconds)'))} "
            "<input name=increment type=number min=0 max=180 value=5 style='width:4rem'>"
            f"</label> <select name=color aria-label=\"{_esc(_('your colour'))}\">{colours}"
            "</select> "
            "<label><input type=checkbox name=rated value=true> "
            f"{_esc(_('rated'))}</label></p>"
            f"<details><summary>{_esc(_('Options'))}</summary><p>{'<br>'.join(fields)}</p>"
            "</details>")


def _option_name(name: str) -> str:
    """An option by its catalogue name (English: the name with spaces)."""
    said = _(name)
    return name.replace("_", " ") if said == name else said


def _terms(form: dict[str, str]) -> dict[str, Any]:
    """A lobby form's terms: the options the chosen game declares (a field left empty:
    the game's default), the clock in minutes and seconds."""
    cls = GAMES.get(form.get("variant", ""))
    options: dict[str, Any] = {}
    for name, owners in _declared().items():
        raw = form.get(f"option.{name}", "")
        spec = next((spec for c, spec in owners if c is cls), None)
        if spec is None or raw == "":
            continue
        if spec.kind is bool:
            options[name] = raw == "true"
        elif spec.kind is int:
            try:
                options[name] = int(raw)
            except ValueError:
                raise PlayError(Text("{name} must be a whole number, got {value}",
                                     name=name, value=repr(raw[:20]))) from None
        else:
            options[name] = raw[:40]
    fields = {k: v for k, v in form.items() if not k.startswith("option.")}
    fields["options"] = json.dumps(options)
    return terms_of(fields, "time", "increment", True)


def _options_text(options: dict[str, Any]) -> str:
    return _esc(" (" + ", ".join(f"{_option_name(k)} {v}" for k, v in options.items()) + ")"
                if options else "")


def _clock_text(clock: Any) -> str:
    if not clock:
        return _esc(_("no clock"))
    return f"{clock[0] // 60000}+{clock[1] // 1000}"
