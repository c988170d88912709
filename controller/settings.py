"""The owner's settings, changed from the page and saved to the configuration file.

:data:`OWNER_SETTINGS` names the settings an owner changes while living with the board
(the game and its options, the computer's seats and level and whether that level adapts
to the owner, the clock, the coach, the LED brightness, the players' names, the voice's
volume and the board's language — ``speech.language``, its one home: the Pi's voice and
every page that has not chosen its own); :func:`describe` gives them as JSON for a page
to draw (value, default, type, choices or range, and the help text — the comment above
the setting in ``controller/config.py``, its one home).

:func:`save_settings` validates a change exactly as the file is validated when the
service starts (the whole file with the change applied goes through
``config_from_dict``), then edits only the changed lines of the file — every comment,
every other setting and their order stay — and replaces the file atomically (temporary
file, fsync, rename).  Bad input is one line (:class:`SettingsError`) and the file is
left as it was.
"""

from __future__ import annotations

import inspect
import json
import math
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, get_type_hints

from controller.atomic import write_atomically
from controller.config import (
    CHOICES,
    RANGES,
    Config,
    ConfigError,
    TomlError,
    config_from_dict,
    not_utf8,
    parse_toml,
)
from controller.i18n import Text, text_of

#: the settings the page may change (``section.name`` of ``controller/config.py``)
OWNER_SETTINGS: tuple[str, ...] = (
    "board.game", "board.options", "board.computer", "board.computer_level", "board.clock",
    "board.on_flag", "board.coach", "board.coach_margin", "board.menu_hint",
    "board.takeback", "leds.brightness", "players.names", "speech.language",
    "speech.volume", "engine.adaptive",
)
#: bounds the file's validation leaves to the code that reads the setting
_EXTRA_RANGES = {"board.computer_level": (1, 10)}
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\-\s\"']+?)\s*\]\s*(#.*)?$")


class SettingsError(ValueError):
    """A settings change that cannot be saved; the message is one line (a :class:`Text`
    with its values, so the page reads it in its own language)."""


# -- the description --------------------------------------------------------------------
def _field_help(cls: type) -> dict[str, str]:
    """The ``#:`` comment lines above each field of a settings class."""
    help_text: dict[str, str] = {}
    pending: list[str] = []
    for line in inspect.getsource(cls).splitlines():
        stripped = line.strip()
        if stripped.startswith("#:"):
            pending.append(stripped[2:].strip())
        elif m := re.match(r"^\s+(\w+):", line):
            if pending:
                help_text[m.group(1)] = " ".join(pending)
            pending = []
        else:
            pending = []
    return help_text


def _kind(typ: Any) -> str:
    origin = getattr(typ, "__origin__", None)
    if origin is list:
        return f"list of {_kind(typ.__args__[0])}"
    if origin is dict:
        return "table"
    return {bool: "bool", int: "int", float: "number", str: "text"}.get(typ, str(typ))


def describe(config: Config) -> list[dict[str, Any]]:
    """The owner's settings as JSON-able dicts: ``key``, ``type``, ``value`` (``config``'s),
    ``default``, ``help``, and ``choices`` or ``min``/``max`` where the file has them."""
    from controller.rules import GAMES

    defaults = Config()
    out = []
    for key in OWNER_SETTINGS:
        section, name = key.split(".")
        cls = type(getattr(defaults, section))
        hint = get_type_hints(cls)[name]
        item: dict[str, Any] = {
            "key": key, "type": _kind(hint),
            "value": _plain(getattr(getattr(config, section), name)),
            "default": _plain(getattr(getattr(defaults, section), name)),
            "help": _field_help(cls).get(name, "")}
        choices = list(GAMES) if key == "board.game" else CHOICES.get(key)
        if choices:
            item["choices"] = list(choices)
        low_high = RANGES.get(key) or _EXTRA_RANGES.get(key)
        if low_high:
            item["min"], item["max"] = low_high
        out.append(item)
    return out


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


# -- validating and saving a change -------------------------------------------------------
def validate_change(data: Mapping[str, Any], changes: Mapping[str, Any],
                    source: str = "settings") -> tuple[dict[str, Any], Config]:
    """The file's tables with ``changes`` applied, and the configuration they make —
    validated as the file is; a bad change is a :class:`SettingsError`."""
    if not isinstance(changes, Mapping) or not changes:
        raise SettingsError(Text("settings: expected {\"section.name\": value, …}"))
    merged = json.loads(json.dumps(data))  # a copy (the parsed file is plain data)
    for key, value in changes.items():
        if key not in OWNER_SETTINGS:
            raise SettingsError(Text("settings: {key} is not a setting the page may change "
                                     "(these are: {known})", key=repr(key),
                                     known=", ".join(OWNER_SETTINGS)))
        if isinstance(value, float) and not math.isfinite(value):
            raise SettingsError(Text("settings: {key}: expected a finite number, got {value}",
                                     key=key, value=repr(value)))
        low_high = _EXTRA_RANGES.get(key)
        if (low_high and isinstance(value, int) and not isinstance(value, bool)
                and not low_high[0] <= value <= low_high[1]):
            raise SettingsError(Text("settings: {key}: expected a number from {low} to {high}, "
                                     "got {value}", key=key, low=low_high[0], high=low_high[1],
                                     value=repr(value)))
        section, name = key.split(".")
        table = merged.setdefault(section, {})
        if not isinstance(table, dict):
            raise SettingsError(Text("settings: [{section}] in the file is not a table",
                                     section=section))
        table[name] = value
    try:
        config = config_from_dict(merged, source)
        _check_game(config)
    except ConfigError as exc:
        text = text_of(exc)  # (the file's own words, kept as a Text to be translated)
        raise SettingsError(text if isinstance(text, Text) else " ".join(text.split())) from None
    return merged, config


def _check_game(config: Config) -> None:
    """The game and its options as the service will start them (its own validation)."""
    from controller.rules import GAMES, get_game

    board = config.board
    if board.game not in GAMES:
        raise ConfigError(Text("board.game: unknown game {game} (known: {known})",
                               game=repr(board.game), known=", ".join(GAMES)))
    try:
        game = get_game(board.game, **board.options)
    except (TypeError, ValueError, KeyError) as exc:
        raise ConfigError(Text("board.options: {problem}", problem=text_of(exc))) from None
    unknown = [n for n in board.computer if n not in game.player_names]
    if unknown:
        raise ConfigError(Text("board.computer: {player} is not a player of {game} ({players})",
                               player=repr(unknown[0]), game=game.title,
                               players=Text.join(", ", list(game.player_names))))


def save_settings(path: str | Path, changes: Mapping[str, Any]) -> Config:
    """Validate ``changes`` (``{"board.computer_level": 4, …}``) against the file at
    ``path`` (made if missing), write them into it atomically and return the new
    configuration.  Only the changed settings' lines change."""
    path = Path(path).expanduser()
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        data = parse_toml(text)
    except (OSError, UnicodeDecodeError, TomlError) as exc:
        problem = (not_utf8(exc) if isinstance(exc, UnicodeDecodeError) else text_of(exc)
                   if isinstance(exc, TomlError) else str(exc.strerror or exc))
        raise SettingsError(Text("{file}: cannot read it to change it ({problem})",
                                 file=path.name, problem=problem)) from None
    merged, config = validate_change(data, changes, path.name)
    new_text = text
    for key in changes:
        section, name = key.split(".")
        new_text = _set_line(new_text, section, name, merged[section][name])
    if tomllib.loads(new_text) != merged:  # the edit must say exactly what was validated
        raise SettingsError(Text("{file}: the file is laid out in a way this cannot edit "
                                 "(a dotted key or an inline table?): change it by hand",
                                 file=path.name))
    try:
        write_atomically(path, new_text.encode("utf-8"))
    except OSError as exc:
        raise SettingsError(Text("{file}: cannot save it ({problem}); the file is unchanged",
                                 file=str(path), problem=str(exc.strerror or exc))) from None
    return config


def toml_value(value: Any) -> str:
    """A value as TOML text (one line)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON's escapes are TOML's
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        items = [f"{_key(k)} = {toml_value(v)}" for k, v in value.items()]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    raise SettingsError(f"settings: cannot write {value!r} to TOML")


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else json.dumps(name, ensure_ascii=False)


def _table_name(header: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in header.split("."))


def _set_line(text: str, section: str, name: str, value: Any) -> str:
    """``text`` with ``name = value`` in ``[section]``: the setting's lines replaced (a
    value over several lines too), or a line added at the end of the table (the table
    added at the end of the file); a ``[section.name]`` table is replaced by the line."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    line = f"{name} = {toml_value(value)}\n"
    start = end = None  # the section's body: lines[start:end]
    sub = None  # a [section.name] table: (header line, end)
    k = 0
    while k < len(lines):
        m = _HEADER.match(lines[k])
        if m and not lines[k].lstrip().startswith("[["):
            table = _table_name(m.group(1))
            stop = k + 1
            while stop < len(lines) and not _HEADER.match(lines[stop]):
                stop += 1
            if table == section:
                start, end = k + 1, stop
            elif table == f"{section}.{name}":
                sub = (k, stop)
            k = stop
        else:
            k += 1
    if sub is not None:  # the table becomes one line of its section
        del lines[sub[0]:sub[1]]
        if start is not None and start > sub[0]:
            start, end = start - (sub[1] - sub[0]), end - (sub[1] - sub[0])
    if start is None:
        if lines and lines[-1].strip():
            lines.append("\n")
        lines += [f"[{section}]\n", line]
        return "".join(lines)
    pattern = re.compile(rf"^\s*{re.escape(name)}\s*=")
    for k in range(start, end):
        if pattern.match(lines[k]):
            span = _value_span(lines, k, end)
            comment = _trailing_comment(lines[k]) if span == 1 else ""
            lines[k:k + span] = [line[:-1] + comment + "\n" if comment else line]
            return "".join(lines)
    last = end
    while last > start and not lines[last - 1].strip():
        last -= 1  # after the table's last setting, before the blank lines
    lines.insert(last, line)
    return "".join(lines)


def _trailing_comment(line: str) -> str:
    """The comment after a setting's value on its line ("  # bright room"), if any."""
    text = line.rstrip("\n")
    try:
        whole = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return ""
    for at in (k for k, c in enumerate(text) if c == "#"):
        try:
            if tomllib.loads(text[:at]) == whole:
                before = text[:at]
                return text[len(before.rstrip()):]
        except tomllib.TOMLDecodeError:
            continue
    return ""


def _value_span(lines: list[str], k: int, end: int) -> int:
    """How many lines the setting on line ``k`` takes (an array may span several)."""
    for span in range(1, end - k + 1):
        try:
            tomllib.loads("".join(lines[k:k + span]))
            return span
        except tomllib.TOMLDecodeError:
            continue
    return 1


__all__ = ["OWNER_SETTINGS", "SettingsError", "describe", "save_settings", "toml_value",
           "validate_change"]
