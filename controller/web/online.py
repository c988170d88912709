"""The page's online routes (docs/online.md): the token, seeking, challenges and the
online game's commands, each answered by the service's online room
(``controller/online/room.py``); a refusal is one line (HTTP 400), never a traceback.

* ``GET /api/online`` — the account and game as the page shows them (the token masked);
* ``POST /api/online/token`` — ``{"token": "…"}`` saves it (mode 0600), ``{"clear": true}``
  removes it;
* ``POST /api/online/seek`` — ``{"minutes", "increment", "rated", "colour"}`` (a real-time
  seek) or ``{"days", "rated", "colour"}`` (correspondence), with ``"variant"`` (a variant
  key, or a game of ``GET /api/online``'s ``games`` by its name) and its ``"options"``
  (an object: ``{"players": 3, "dice": true}``); ``{"cancel": true}`` stops;
* ``POST /api/online/challenge`` — ``{"name", "minutes", "increment", "rated", "colour",
  "variant", "options"}`` challenges a player; ``{"open": true, "minutes", "increment",
  "variant", "options"}`` makes an open challenge;
* ``POST /api/online/answer`` — ``{"challenge": id, "accept": true|false}``;
* ``POST /api/online/command`` — ``{"command": "offer draw" | "accept draw" | "decline
  draw" | "resign" | "abort" | "takeback" | "accept takeback" | "decline takeback" |
  "claim victory"}``;
* ``POST /api/online/chat`` — ``{"text": "…"}``: a line to the opponent in the game's chat.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.i18n import LanguageError, Text
from controller.web.texts import localise_online, page_language

#: the fields each online request body may have
FIELDS: dict[str, frozenset[str]] = {
    "online token": frozenset({"token", "clear"}),
    "online seek": frozenset({"minutes", "increment", "rated", "colour", "days", "cancel",
                              "variant", "options"}),
    "online challenge": frozenset({"name", "minutes", "increment", "rated", "colour",
                                   "open", "variant", "options"}),
    "online answer": frozenset({"challenge", "accept"}),
    "online command": frozenset({"command"}),
    "online chat": frozenset({"text"}),
}

Body = Callable[[Request, str], Awaitable[dict[str, Any]]]


def _number(data: dict[str, Any], name: str, default: float, whole: bool = False) -> Any:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or (
            whole and not isinstance(value, int)):
        shown = repr(str(value)[:20])
        if whole:
            raise ValueError(Text("{name} must be a whole number, got {value}", name=name,
                                  value=shown))
        raise ValueError(Text("{name} must be a number, got {value}", name=name, value=shown))
    return value


def _flag(data: dict[str, Any], name: str) -> bool:
    value = data.get(name, False)
    if not isinstance(value, bool):
        raise ValueError(Text("{name} must be true or false", name=name))
    return value


def _text(data: dict[str, Any], name: str, default: str = "") -> str:
    value = data.get(name, default)
    if not isinstance(value, str):
        raise ValueError(Text("{name} must be a text", name=name))
    return value


def _options(data: dict[str, Any]) -> dict[str, Any]:
    value = data.get("options", {})
    if not isinstance(value, dict):
        raise ValueError(Text("options must be an object of name: value"))
    return value


def online_routes(service: Any, guarded: Callable[[Any], Any], body: Body) -> list[Route]:
    """The routes, around ``service.online`` (``guarded`` answers a refusal with 400;
    ``body`` reads a request's JSON object, checked against :data:`FIELDS`)."""
    room = service.online

    def shown(request: Request) -> dict[str, Any] | None:
        """The room as the page shows it, its notices in the request's language."""
        try:
            return localise_online(room.json(), page_language(request, service))
        except LanguageError:
            return room.json()

    def done(request: Request) -> Response:
        service.changed()
        return JSONResponse({"ok": True, "online": shown(request)})

    async def state(request: Request) -> Response:
        return JSONResponse(shown(request))

    async def token(request: Request) -> Response:
        data = await body(request, "online token")
        if _flag(data, "clear"):
            room.clear_token()
        else:
            room.set_token(_text(data, "token"))
        return done(request)

    async def seek(request: Request) -> Response:
        data = await body(request, "online seek")
        if _flag(data, "cancel"):
            room.cancel_seek()
            return done(request)
        days = data.get("days")
        if days is not None:
            days = _number(data, "days", 0, whole=True)
        room.seek(_number(data, "minutes", 10), _number(data, "increment", 0, whole=True),
                  _flag(data, "rated"), _text(data, "colour", "random"), days,
                  _text(data, "variant", "standard"), _options(data))
        return done(request)

    async def challenge(request: Request) -> Response:
        data = await body(request, "online challenge")
        minutes = _number(data, "minutes", 10)
        increment = _number(data, "increment", 0, whole=True)
        if _flag(data, "open"):
            room.open_challenge(minutes, increment, _text(data, "variant", "standard"),
                                _options(data))
        else:
            room.challenge(_text(data, "name"), minutes, increment, _flag(data, "rated"),
                           _text(data, "colour", "random"), _text(data, "variant", "standard"),
                           _options(data))
        return done(request)

    async def answer(request: Request) -> Response:
        data = await body(request, "online answer")
        room.answer_challenge(_text(data, "challenge"), _flag(data, "accept"))
        return done(request)

    async def command(request: Request) -> Response:
        data = await body(request, "online command")
        room.command(_text(data, "command"))
        return done(request)

    async def chat(request: Request) -> Response:
        data = await body(request, "online chat")
        room.send_chat(_text(data, "text"))
        return done(request)

    return [Route("/api/online", guarded(state)),
            Route("/api/online/token", guarded(token), methods=["POST"]),
            Route("/api/online/seek", guarded(seek), methods=["POST"]),
            Route("/api/online/challenge", guarded(challenge), methods=["POST"]),
            Route("/api/online/answer", guarded(answer), methods=["POST"]),
            Route("/api/online/command", guarded(command), methods=["POST"]),
            Route("/api/online/chat", guarded(chat), methods=["POST"])]
