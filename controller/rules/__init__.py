"""The rules of the games, pure: no I/O, no clock.

The registry names every game and where its class lives (:data:`GAME_PATHS`), and imports
a game's module only when the game is first used, so a command pays only for the game it
plays.  Adding a game is one rules module and one line in :data:`GAME_PATHS` — or, for a
game kept outside this package (a test's), one call of :func:`register_game`.  Everything
else the product needs to know about a game (its board shape, pads, options, hidden
information) is data on the class (:class:`Game`).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from controller.rules.core import (
    Game,
    GameOption,
    IllegalMoveError,
    Move,
    OptionError,
    Outcome,
    PadNeed,
    Piece,
    PlayerView,
    Position,
    PositionError,
    RulesError,
    Token,
)

__all__ = [
    "DEFAULT_GAME", "GAMES", "GAME_CLASSES", "GAME_PATHS", "Game", "GameOption",
    "IllegalMoveError", "Move", "OptionError", "Outcome", "PadNeed", "Piece", "PlayerView",
    "Position", "PositionError", "RulesError", "Token", "game_class", "get_game",
    "register_game", "token_named",
]

#: every game: registry name -> ``module:Class``, in the order the command line and the
#: page list them
GAME_PATHS: dict[str, str] = {
    "luotuoqi": "controller.rules.luotuoqi:Luotuoqi",
    "laotzu": "controller.rules.laotzu:LaoTzu",
    "gnuqi": "controller.rules.gnuqi:GnuQi",
    "kaleidochess": "controller.rules.kaleidochess:KaleidoChess",
    "lotus39": "controller.rules.lotus39:Lotus39",
    "lotus39-modern": "controller.rules.lotus39:ModernLotus39",
    "chess": "controller.rules.chess:Chess",
}

#: the game a new board plays until configured otherwise (the first listed)
DEFAULT_GAME: str = next(iter(GAME_PATHS))

_loaded: dict[str, type[Game]] = {}


def _load(name: str) -> type[Game]:
    cls = _loaded.get(name)
    if cls is None:
        module, _, attr = GAME_PATHS[name].partition(":")
        cls = getattr(importlib.import_module(module), attr)
        if not (isinstance(cls, type) and issubclass(cls, Game)) or cls.name != name:
            raise RulesError(f"{GAME_PATHS[name]} is not the Game class named {name!r}")
        _loaded[name] = cls
    return cls


class _Games(Mapping[str, type[Game]]):
    """Registry name -> game class, importing a game's module on its first look-up
    (``name in GAMES`` and listing the names import nothing)."""

    def __getitem__(self, name: str) -> type[Game]:
        if name not in GAME_PATHS:
            raise KeyError(name)
        return _load(name)

    def __contains__(self, name: object) -> bool:
        return name in GAME_PATHS

    def __iter__(self) -> Iterator[str]:
        return iter(list(GAME_PATHS))

    def __len__(self) -> int:
        return len(GAME_PATHS)


class _GameClasses(Sequence[type[Game]]):
    """Every game class in the registry's order (importing each when looked at)."""

    @overload
    def __getitem__(self, index: int) -> type[Game]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[type[Game]]: ...
    def __getitem__(self, index: int | slice) -> type[Game] | Sequence[type[Game]]:
        names = list(GAME_PATHS)
        if isinstance(index, slice):
            return tuple(_load(n) for n in names[index])
        return _load(names[index])

    def __len__(self) -> int:
        return len(GAME_PATHS)

    def __repr__(self) -> str:
        return f"GAME_CLASSES({', '.join(GAME_PATHS)})"


#: registry name -> game class
GAMES: Mapping[str, type[Game]] = _Games()
#: every game class, in the order the command line and the page list them
GAME_CLASSES: Sequence[type[Game]] = _GameClasses()


def register_game(cls: type[Game] | str) -> None:
    """Add a game kept outside this package (a class, or its ``module:Class`` path,
    imported on first use) at the end of the registry.  A name already taken is refused."""
    path = cls if isinstance(cls, str) else f"{cls.__module__}:{cls.__qualname__}"
    if isinstance(cls, str):
        module, _, attr = path.partition(":")
        loaded = getattr(importlib.import_module(module), attr)
    else:
        loaded = cls
    name = loaded.name
    if not name or name in GAME_PATHS:
        raise RulesError(f"cannot register game {name!r}: no name, or the name is taken")
    GAME_PATHS[name] = path
    _loaded[name] = loaded


def game_class(name: str) -> type[Game]:
    """The class of the named game (:class:`RulesError` naming the known games if none)."""
    if name not in GAME_PATHS:
        raise RulesError(f"unknown game {str(name)[:40]!r} (known: {', '.join(GAME_PATHS)})")
    return _load(name)


def get_game(name: str, **options: Any) -> Game:
    """An instance of the named game with its options (``players=3``, ``dice=True``, …),
    checked against the game's declared options first (:meth:`Game.validate_options`)."""
    cls = game_class(name)
    return cls(**cls.validate_options(options))


def token_named(name: str) -> Token | None:
    """The off-board token of this name declared by a game loaded so far (a token lies
    on a board only while its game is played, so no game is imported to find it)."""
    for cls in list(_loaded.values()):
        for token in cls.tokens:
            if token.name == name:
                return token
    return None


_CLASS_NAMES = {path.partition(":")[2]: name for name, path in GAME_PATHS.items()}


def __getattr__(attr: str) -> Any:
    """The game classes by their class names (``from controller.rules import Chess``),
    imported when asked for."""
    name = _CLASS_NAMES.get(attr)
    if name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
    return _load(name)
