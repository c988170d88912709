"""The page in its reader's language: ``GET /api/texts?lang=de`` gives the page every
translation it needs (``t("…")`` in its scripts looks them up), and the state a page is
sent has the board's words (its message, the choice's labels, why the game ended, the
guided first game's steps, the voice's announcements) in the
page's language (:func:`localise`).  A page names its language on its websocket
(``/ws?lang=de``) and in each request (``?lang=`` or ``Accept-Language``); without one it
reads the board's (``[speech] language``)."""

from __future__ import annotations

from typing import Any

from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse

from controller.i18n import LANGUAGES, catalogue, check_language, render


def board_language(service: Any) -> str:
    """The owner's language for the board (``[speech] language``): a page's default."""
    config = getattr(service, "config", None)
    code = getattr(getattr(config, "speech", None), "language", "en")
    return code if code in LANGUAGES else "en"


def page_language(conn: HTTPConnection, service: Any) -> str:
    """The language a request or websocket asks for: ``?lang=``, else the first known
    language of ``Accept-Language``, else the board's.  An unknown ``?lang=`` is one
    clear line (:class:`~controller.i18n.LanguageError`)."""
    asked = conn.query_params.get("lang")
    if asked:
        return check_language(asked)
    for part in conn.headers.get("accept-language", "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGUAGES:
            return code
    return board_language(service)


def localise(state: dict[str, Any], code: str) -> dict[str, Any]:
    """``state`` with the board's words in language ``code`` (a new dict; the cached
    English state is shared by every English page)."""
    heard = [dict({k: v for k, v in a.items() if k != "texts"},
                  **({"text": a["texts"][code], "lang": code} if code in a.get("texts", {})
                     else {})) for a in state.get("announcements", ())]
    if code == "en":
        return dict(state, announcements=heard)
    out = dict(state, message=render(state.get("message"), code), announcements=heard,
               choice=[dict(c, label=render(c["label"], code)) for c in state["choice"]])
    if state.get("tutorial"):
        tutorial = state["tutorial"]
        out["tutorial"] = dict(tutorial, done_text=render(tutorial["done_text"], code),
                               steps=[dict(s, text=render(s["text"], code))
                                      for s in tutorial["steps"]])
    if state.get("advice"):  # the coach's note and the evaluation, worded by the service
        out["advice"] = dict(state["advice"], **{
            key: dict(item, text=render(item["text"], code))
            for key in ("note", "evaluation")
            if isinstance(item := state["advice"].get(key), dict) and item.get("text")})
    if state.get("link") and state["link"].get("notice"):  # the linked board's notices
        out["link"] = dict(state["link"], notice=render(state["link"]["notice"], code))
    if state.get("resume") and state["resume"].get("summary"):  # (and the journal's damage)
        out["resume"] = dict(state["resume"], summary=render(state["resume"]["summary"], code),
                             dropped=render(state["resume"].get("dropped"), code) or None)
    adaptive = (state.get("computer") or {}).get("adaptive") or {}
    if adaptive.get("problem"):  # the adaptive level's file could not be written
        out["computer"] = dict(state["computer"], adaptive=dict(
            adaptive, problem=render(adaptive["problem"], code)))
    if state.get("result"):
        result = state["result"]
        out["result"] = dict(result, text=render(result["text"], code),
                             reason=render(result["reason"], code))
    return out


def localise_online(online: dict[str, Any] | None, code: str) -> dict[str, Any] | None:
    """The online section (``OnlineRoom.json``) with its notices and the game's status
    words in language ``code``; the wire's ``status`` and the commands stay the server's
    names (the page shows each command by its catalogue message)."""
    if not online or code == "en":
        return online
    out = dict(online, notices=[render(n, code) for n in online.get("notices", ())],
               challenges=[dict(c, problem=render(c["problem"], code)) if c.get("problem")
                           else c for c in online.get("challenges", ())])
    if online.get("game"):
        game = online["game"]
        out["game"] = dict(game, status_text=render(game.get("status_text"), code))
    return out


def texts_json(code: str, default: str) -> dict[str, Any]:
    """What a page needs to read in ``code``: its translations and the choices."""
    return {"lang": code, "default": default, "texts": catalogue(code),
            "languages": {k: name for k, (name, _voice) in LANGUAGES.items()}}


def texts_endpoint(service: Any):
    """The ``GET /api/texts`` handler (without ``?lang=``: the board's language)."""
    async def texts(request: Any) -> JSONResponse:
        default = board_language(service)
        code = check_language(request.query_params.get("lang") or default)
        return JSONResponse(texts_json(code, default))
    return texts


__all__ = ["board_language", "localise", "localise_online", "page_language", "texts_endpoint",
           "texts_json"]
