"""What the board may seek, challenge and accept on the connected server: the games the
server plays (its account answer's ``variants``, the fairyboard server's extension; a
server listing none plays lichess's chess and Chess960 and takes no options) and this
board's layout can, each with the options its rules declare (none the server draws).
Pure functions of the rules, the server's list and the host's layout check; the online
room (``room.py``) asks them and owns the state."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from controller.i18n import Text, text_of
from controller.rules import GAMES, Game, get_game
from controller.rules.core import GameOption, RulesError
from controller.wire import LICHESS_KEYS, variant_game, variant_key

#: what a server plays when its account answer does not list ``variants`` (lichess's Board
#: API: chess and Chess960 from a board, no game options); a fairyboard server lists its
#: variant keys there and takes each game's options
PLAIN_VARIANTS = tuple(k for k in LICHESS_KEYS if k != "fromPosition")

#: why this board cannot play a game (its printed layout is made for others), or None
LayoutProblem = Callable[[Game], "str | None"]


class OnlineRefused(ValueError):
    """A request the room cannot carry out now (one line, a :class:`Text`: the page's
    request error reads it in the page's language)."""


def plays(listed: tuple[str, ...] | None) -> tuple[str, ...]:
    """The variant keys a server plays, from its account answer's list (None: none)."""
    return listed if listed is not None else PLAIN_VARIANTS


def public_specs(cls: type[Game]) -> list[GameOption]:
    """The options of a game a player may choose (none the server draws: hidden ones and
    seeds)."""
    return [s for s in cls.option_specs if s.name not in cls.hidden_options | {"seed"}]


def spec_json(spec: GameOption) -> dict[str, Any]:
    """One option as the page's form draws it (a field of its kind, bounds, choices)."""
    return {"name": spec.name, "type": spec.kind.__name__, "default": spec.default,
            "choices": list(spec.choices), "low": spec.low, "high": spec.high,
            "nullable": spec.nullable, "help": spec.help}


def _played(name: str, variants: tuple[str, ...]) -> bool:
    return any((variant_game(k) or ("",))[0] == name for k in variants)


def wire_terms(variant: str, options: Mapping[str, Any] | None,
               listed: tuple[str, ...] | None, layout_problem: LayoutProblem
               ) -> tuple[str, dict[str, Any], str]:
    """What a seek or challenge sends for game ``variant`` (a variant key, or a registry
    name with its options: ``chess`` and ``{"chess960": true}``): the wire's variant key,
    the options to send (none the key stands for, none at its default) and the game's
    title — or :class:`OnlineRefused`, one line why not (a game or option this server or
    this board's layout cannot play, a bad option)."""
    variants = plays(listed)
    named = variant_game(variant) if isinstance(variant, str) else None
    if named is None or not _played(named[0], variants):
        raise OnlineRefused(Text("variant: one of {variants}", variants=", ".join(variants)))
    name, base = named
    cls = GAMES[name]
    if options is not None and not isinstance(options, Mapping):
        raise OnlineRefused(Text("options must be an object of name: value"))
    merged = {**base, **(options or {})}
    drawn = sorted(set(merged) & (cls.hidden_options | {"seed"}))
    if drawn:
        raise OnlineRefused(Text("{options}: drawn by the server, never chosen",
                                 options=", ".join(drawn)))
    try:
        checked = cls.validate_options(merged)
        game = get_game(name, **checked)
    except RulesError as exc:
        raise OnlineRefused(text_of(exc)) from None
    key = variant_key(name, checked)
    title = "Chess960" if key == "chess960" else cls.title
    if key not in variants:
        raise OnlineRefused(Text("{game}: not played on this server (it plays {variants})",
                                 game=title, variants=", ".join(variants)))
    problem = layout_problem(game)
    if problem is not None:
        raise OnlineRefused(Text("{game}: {problem}", game=title, problem=problem))
    defaults = {s.name: s.default for s in cls.option_specs}
    sent = {k: v for k, v in checked.items()
            if k not in LICHESS_KEYS.get(key, {}) and v != defaults.get(k)}
    if sent and listed is None:
        raise OnlineRefused(Text("this server takes no game options ({options})",
                                 options=", ".join(sorted(sent))))
    return key, sent, title


def offered_games(listed: tuple[str, ...] | None,
                  layout_problem: LayoutProblem) -> list[dict[str, Any]]:
    """The games the page's seek and challenge forms offer: those the server plays and
    this board's layout can, each with the options a player may choose (on a server that
    takes none, only those a variant key stands for: Chess960)."""
    variants = plays(listed)
    keyed = [o for k, options in LICHESS_KEYS.items() if k in variants for o in options]
    out = []
    for name, cls in GAMES.items():
        if not _played(name, variants) or layout_problem(get_game(name)) is not None:
            continue
        out.append({"name": name, "title": cls.title,
                    "options": [spec_json(s) for s in public_specs(cls)
                                if listed is not None or s.name in keyed]})
    return out


def challenge_terms(c: dict[str, Any], layout_problem: LayoutProblem) -> dict[str, Any]:
    """An incoming challenge (its ``variant`` key and the ``options`` the server sent) with
    its game's name, title and public options not at their defaults, and ``problem``: why
    this board cannot play it (None: it can)."""
    sent = c.get("options") if isinstance(c.get("options"), dict) else {}
    named = variant_game(c["variant"])
    if named is None:
        return dict(c, game=None, title=c["variant"], options={},
                    problem=Text("variant {variant}: not played here",
                                 variant=repr(c["variant"][:20])))
    name, base = named
    cls = GAMES[name]
    public = {s.name for s in public_specs(cls)}
    options = {k: v for k, v in {**base, **sent}.items() if k in public}
    title = "Chess960" if options.get("chess960") is True else cls.title
    defaults = {s.name: s.default for s in cls.option_specs}
    problem: str | Text | None = None
    try:
        checked = cls.validate_options(options)
        problem = layout_problem(get_game(name, **checked))
        if problem is not None:
            problem = Text("{game}: {problem}", game=title, problem=problem)
    except RulesError as exc:  # (a server's options this board's rules refuse)
        checked, problem = {}, text_of(exc)
    shown = {k: v for k, v in checked.items()
             if v != defaults.get(k) and k not in LICHESS_KEYS["chess960"]}  # (the title)
    return dict(c, game=name, title=title, options=shown, problem=problem)
