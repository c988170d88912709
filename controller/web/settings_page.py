"""The owner's settings on the page (``static/settings.js``): read, changed and saved.

Routes (token-guarded; a POST from another web site is refused by the guard before it
gets here, ``controller/web/guard.py``):

* ``GET /api/settings`` — the settings :mod:`controller.settings` lets an owner change,
  as the configuration file holds them now (``describe``), each with when it takes
  effect (:data:`APPLIES`); the page's pairing code and the online token only masked;
* ``POST /api/settings`` — ``{"changes": {"section.name": value, …}}``: validated exactly
  as the file is at start (``save_settings``), written atomically, only the changed lines;
  a bad value is one line naming its ``field``, and the file stays as it was;
* ``POST /api/settings/online-token`` — ``{"token": "…"}``: the online server's personal
  token saved (mode 0600, atomically); never sent back;
* ``POST /api/settings/pairing`` — ``{"renew": true}``: a new pairing code, used from
  the next start (the board prints it in its log then); every paired browser pairs again.
"""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.config import MAX_DEPTH, ConfigError, load_config, nesting_depth
from controller.i18n import LANGUAGES, LanguageError, Text, render, text_of
from controller.settings import OWNER_SETTINGS, SettingsError, describe, save_settings
from controller.web.texts import page_language

#: when a saved setting takes effect in the running board; every other at the next start
APPLIES: dict[str, str] = {
    "board.takeback": "next game",
    "board.menu_hint": "next game",
    "players.names": "next game",
    "speech.volume": "now",
}
RESTART = "restart"
#: how an owner restarts the board (docs/service.md)
RESTART_TEXT = Text("after the board restarts (sudo systemctl restart fairyboard)")
#: the words a choice is shown by (the page sends back the value; a game by its title, a
#: language by its own name)
CHOICE_WORDS: dict[str, dict[str, Text]] = {
    "board.on_flag": {"end": Text("end the game as the rules say"),
                      "report": Text("report it and play on")},
}
_FIELD = re.compile(r"\b([a-z]+\.[a-z_]+)\b")


def pairing_path(service: Any) -> Path:
    """Where the page's pairing code is kept (``controller/process.py`` reads it)."""
    return Path(service.config.journal.path).expanduser().parent / "pairing-token"


def masked(secret: str) -> str:
    """A secret as the page shows it: its last four characters, if it is long."""
    return "•" * len(secret) if len(secret) <= 8 else "•" * 8 + secret[-4:]


def _read_secret(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()[:200] or None
    except (OSError, UnicodeDecodeError):
        return None


async def _json_body(request: Request, allowed: set[str]) -> dict[str, Any]:
    raw = await request.body()
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ValueError(Text("request body is not valid JSON")) from None
    if not isinstance(data, dict) or nesting_depth(data) > MAX_DEPTH:
        raise ValueError(Text("request body must be a JSON object nested at most {depth} deep",
                              depth=MAX_DEPTH))
    unknown = sorted(str(k)[:30] for k in data if k not in allowed)
    if unknown:
        raise ValueError(Text("settings: unknown field {field} (known: {known})",
                              field=repr(unknown[0]), known=", ".join(sorted(allowed))))
    return data


def choice_labels(key: str, choices: list[str], code: str) -> dict[str, str]:
    """Each choice of setting ``key`` in words of language ``code`` (value -> words)."""
    if key == "board.game":
        from controller.rules import GAMES

        return {c: render(GAMES[c].title, code) if c in GAMES else c for c in choices}
    if key == "speech.language":
        return {c: LANGUAGES[c][0] if c in LANGUAGES else c for c in choices}
    words = CHOICE_WORDS.get(key, {})
    return {c: render(words[c], code) if c in words else c for c in choices}


def field_of(message: str, changes: dict[str, Any]) -> str | None:
    """The setting a validation message is about (the first changed key it names)."""
    for name in _FIELD.findall(message):
        if name in changes:
            return name
    return next(iter(changes)) if len(changes) == 1 else None


def settings_routes(service: Any, guarded: Any, config_path: str | Path | None) -> list[Route]:
    """The settings routes of ``service`` saving to ``config_path`` (None: read only)."""
    path = None if config_path is None else Path(config_path).expanduser()

    def _language(request: Request) -> str:
        try:
            return page_language(request, service)
        except LanguageError:
            return "en"

    def said(request: Request, text: str) -> str:
        """An error line in the language the request reads (its values kept)."""
        return render(text, _language(request))

    def current() -> Any:
        if path is None or not path.exists():
            return service.config
        try:
            return load_config(path)
        except ConfigError:
            return service.config

    async def read(request: Request) -> Response:
        items = describe(current())
        code = _language(request)
        for item in items:
            item["applies"] = APPLIES.get(item["key"], RESTART)
            if item.get("choices"):
                item["labels"] = choice_labels(item["key"], item["choices"], code)
        code = _read_secret(pairing_path(service))
        online = _read_secret(Path(service.config.online.token_file).expanduser())
        return JSONResponse({
            "settings": items, "saveable": path is not None,
            "file": None if path is None else path.name, "restart": RESTART_TEXT,
            "pairing": {"needed": not _loopback(service),
                        "masked": masked(code) if code else None},
            "online_token": masked(online) if online else None})

    async def save(request: Request) -> Response:
        data = await _json_body(request, {"changes"})
        changes = data.get("changes")
        if not isinstance(changes, dict) or not changes:
            raise ValueError(Text('settings: expected {"changes": {"section.name": value, …}}'))
        if path is None:
            return JSONResponse({"error": said(request, Text(
                "this board was started without a configuration file (fairyboard run "
                "--config FILE): nothing to save to"))}, status_code=409)
        try:
            config = save_settings(path, changes)
        except SettingsError as exc:
            return JSONResponse({"error": said(request, text_of(exc)),
                                 "field": field_of(str(exc), changes)}, status_code=400)
        now = _apply(service, config, changes)
        later = [k for k in changes if k not in now]
        return JSONResponse({"ok": True, "saved": sorted(changes), "applied": now,
                             "after_restart": later})

    async def online_token(request: Request) -> Response:
        from controller.online.room import OnlineRefused

        data = await _json_body(request, {"token"})
        token = data.get("token")
        if not isinstance(token, str):
            raise ValueError(Text('online token: expected {"token": "…"}'))
        try:  # the online room is the token's one home: it saves it and connects with it
            shown = service.online.set_token(token)
        except OnlineRefused as exc:
            return JSONResponse({"error": said(request, text_of(exc)), "field": "online_token"},
                                status_code=400)
        return JSONResponse({"ok": True, "online_token": shown})

    async def pairing(request: Request) -> Response:
        from controller.atomic import write_atomically

        data = await _json_body(request, {"renew"})
        if data.get("renew") is not True:
            raise ValueError(Text('pairing: expected {"renew": true}'))
        target = pairing_path(service)
        code = secrets.token_urlsafe(9)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(target, (code + "\n").encode("ascii"), mode=0o600)
        except OSError as exc:
            return JSONResponse({"error": said(request, Text(
                "cannot save a new code: {problem}", problem=str(exc.strerror or exc))),
                                 "field": "pairing"}, status_code=400)
        return JSONResponse({"ok": True, "masked": masked(code), "applies": RESTART_TEXT})

    return [
        Route("/api/settings", guarded(read)),
        Route("/api/settings", guarded(save), methods=["POST"]),
        Route("/api/settings/online-token", guarded(online_token), methods=["POST"]),
        Route("/api/settings/pairing", guarded(pairing), methods=["POST"]),
    ]


def _loopback(service: Any) -> bool:
    from controller.web.guard import is_loopback

    return is_loopback(service.config.web.host)


def _apply(service: Any, config: Any, changes: dict[str, Any]) -> list[str]:
    """Carry the saved settings that the running board reads as it goes (:data:`APPLIES`)
    into its configuration; the others wait for the next start."""
    applied = []
    for key in changes:
        if key in APPLIES and key in OWNER_SETTINGS:
            section, name = key.split(".")
            setattr(getattr(service.config, section), name,
                    getattr(getattr(config, section), name))
            applied.append(key)
    return applied


__all__ = ["APPLIES", "CHOICE_WORDS", "choice_labels", "field_of", "masked", "pairing_path",
           "settings_routes"]
