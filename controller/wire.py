"""The Board API's wire: variant keys and move texts, one home for both ends.

The fairyboard server (``controller/server/``) and the board's online client
(``controller/online/``) speak lichess's Board API, extended for the other games
(``docs/server.md``).  Both read and write a game's name and its moves here, so the two
ends cannot drift apart; pure functions of the rules, no network, no state.

* A variant key is lichess's for chess (``standard``, ``chess960``, ``fromPosition``), so a
  board's lichess client reads these games as it reads lichess, and the registry's name
  for every other game.
* A move is the game's long notation (what its ``parse_move`` reads), except where that
  has spaces (KaleidoChess's words): the short notation then, since ``moves`` is one
  space-separated list.  Standard chess castles as lichess writes it, the King's two-cell
  step; Chess960 as the King taking its Rook (the long notation).
"""

from __future__ import annotations

from typing import Any

from controller.rules import GAMES
from controller.rules.core import Game, Move, Position

#: lichess's variant keys for the game whose moves and positions are UCI chess, and the
#: options each stands for (``fromPosition``: chess from the ``initialFen`` given)
LICHESS_KEYS: dict[str, dict[str, Any]] = {"standard": {}, "chess960": {"chess960": True},
                                           "fromPosition": {}}


def lichess_game() -> str:
    """The registry's name of the game lichess plays: the one whose positions and moves
    are UCI chess (``Game.uci_chess``); of a game and its subclasses, the base game."""
    uci_games = [cls for cls in GAMES.values() if cls.uci_chess]
    return min(uci_games, key=lambda cls: len(cls.__mro__)).name


def variant_key(name: str, options: dict[str, Any]) -> str:
    """The Board API's variant key of registry game ``name`` with ``options``."""
    if GAMES[name].uci_chess:
        return "chess960" if options.get("chess960") else "standard"
    return name


def variant_game(key: str) -> tuple[str, dict[str, Any]] | None:
    """The registry's game and the options a variant key stands for (None: no such
    game here)."""
    if key in LICHESS_KEYS:
        return lichess_game(), dict(LICHESS_KEYS[key])
    if key in GAMES:
        return key, {}
    return None


def variant_keys() -> tuple[str, ...]:
    """Every variant key a server may name (lichess's for chess, the registry's names)."""
    uci = lichess_game()
    return (*LICHESS_KEYS, *(name for name in GAMES if name != uci))


def wire_move(game: Game, pos: Position, move: Move) -> str:
    """``move`` (legal in ``pos``) as the API carries it (see the module docstring)."""
    if (move.kind == "castle" and game.uci_chess and not game.options.get("chess960")
            and move.target >= 0):
        cells = game.geometry.cells
        return cells[move.origin] + cells[move.target]
    text = game.long_move_text(pos, move)
    if any(c.isspace() for c in text):
        text = game.move_text(pos, move)
    return text


def read_move(game: Game, pos: Position, text: str) -> Move:
    """The legal move a wire text names in ``pos`` (``RulesError`` when none): the game's
    own reading, which takes its long and its short notation."""
    return game.parse_move(pos, text)
