"""An external UCI engine as the computer player of a game whose text is FEN and UCI.

The owner names the program in the configuration (``[engine] uci_engine``) and the games
it plays (``uci_games``): games whose position text is FEN and whose long move notation is
UCI with castling written King-to-Rook — Chess960's form, which needs the engine's
``UCI_Chess960`` option and covers standard chess too (the standard array is one of the
960).  An engine without that option gets castling as the King's two-square step.

The level maps onto the engine's own strength settings: levels 1–9 spread evenly over
``UCI_Elo`` (with ``UCI_LimitStrength``) or else over ``Skill Level``; level 10 is full
strength.  Its time per move is the level's time budget (``LEVELS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.engine.uci import UciEngine, UciError
from controller.geometry import load_shape
from controller.rules import Game, Move, Position

__all__ = ["ExternalPlayer", "UciError", "strength_options", "uci_move_text"]


def strength_options(engine: UciEngine, level: int) -> list[tuple[str, Any]]:
    """The options that make ``engine`` play at ``level`` (1–10), in the order to send."""
    options = engine.options
    limit, elo, skill = (options.get(n) for n in ("uci_limitstrength", "uci_elo",
                                                   "skill level"))
    if level >= 10:
        full = [("UCI_LimitStrength", False)] if limit else []
        if skill is not None and skill.max is not None:
            full.append(("Skill Level", skill.max))
        return full
    share = (max(level, 1) - 1) / 8
    if limit and elo is not None and elo.min is not None and elo.max is not None:
        return [("UCI_LimitStrength", True),
                ("UCI_Elo", round(elo.min + share * (elo.max - elo.min)))]
    if skill is not None and skill.min is not None and skill.max is not None:
        return [("Skill Level", round(skill.min + share * (skill.max - skill.min)))]
    return []


def uci_move_text(game: Game, pos: Position, move: Move, chess960: bool) -> str:
    """``move`` in UCI: the game's long notation in Chess960 mode (castling King-to-Rook),
    else from cell to cell (castling as the King's step, ``e1g1``)."""
    if chess960:
        return game.long_move_text(pos, move)
    cells = load_shape(game.shape).cells
    return cells[move.origin] + cells[move.target] + move.promotion.lower()


class ExternalPlayer:
    """A UCI engine playing one game after another, kept running between moves.

    ``move(game, setup, moves, level, movetime)`` answers with the legal move the engine
    chose; a dead engine is started again on the next question.  Failures raise
    :class:`UciError` (one line); the caller decides what plays instead.
    """

    def __init__(self, program: str | Sequence[str], options: Sequence[tuple[str, Any]] = (),
                 timeout: float = 10.0) -> None:
        self.program = program
        self.options = tuple(options)
        self.timeout = timeout
        self.engine: UciEngine | None = None
        self._game: tuple[str, list[str]] | None = None  # the set-up and moves last asked
        self._level: int | None = None

    def _started(self) -> UciEngine:
        if self.engine is not None and self.engine.alive:
            return self.engine
        self.close()
        engine = UciEngine(self.program, timeout=self.timeout)
        try:
            if engine.offers("UCI_Chess960"):
                engine.set_option("UCI_Chess960", True)
            engine.is_ready()
        except UciError:
            engine.close(grace=0.1)
            raise
        self.engine, self._game, self._level = engine, None, None
        return engine

    def move(self, game: Game, setup: str, moves: Sequence[str], level: int,
             movetime: float) -> Move:
        """The engine's move after ``moves`` (the game's long notation) from ``setup``."""
        engine = self._started()
        pos = game.parse_position(setup)
        chess960 = engine.offers("UCI_Chess960")
        said = []
        for text in moves:
            move = game.parse_move(pos, text)
            said.append(uci_move_text(game, pos, move, chess960))
            pos.push(move)
        if level != self._level:
            for name, value in strength_options(engine, level):
                engine.set_option(name, value)
            for name, value in self.options:  # the owner's settings have the last word
                engine.set_option(name, value)
            self._level = level
        last = self._game
        if last is None or last[0] != setup or list(moves[:len(last[1])]) != last[1]:
            engine.new_game()
        self._game = (setup, list(moves))
        engine.position(setup, said)
        best = engine.go(movetime=movetime)
        legal = game.legal_moves(pos)
        if best.move is None:
            if legal:
                raise UciError(f"UCI engine {engine.label!r} found no move in a position "
                               "with legal moves")
            raise UciError(f"UCI engine {engine.label!r}: asked in a finished game")
        for move in legal:
            if best.move in (game.long_move_text(pos, move),
                             uci_move_text(game, pos, move, chess960=False)):
                return move
        raise UciError(f"UCI engine {engine.label!r} answered {best.move!r}, not a legal "
                       "move here")

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None
