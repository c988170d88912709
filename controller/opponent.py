"""The computer at the board: which players it plays, and its search in another process.

The board loop must stay responsive while the engine thinks (a sensor change is decided in
well under a millisecond; a search takes up to seconds), so the search runs in a worker
process.  The worker gets the game's record — name, options, set-up and the moves so far
in long notation — rebuilds the position (repetitions included) and answers with the move
in long notation; the service parses it back in its own position and shows it on the
board with the ordinary "execute the shown move" flow.

An answer is used only if the position is still the one it was asked about: a takeback or
a new game while the engine thinks simply makes the answer stale (the worker's search is
bounded by the level's time budget, so it is free again soon).

For the games the configuration gives to an external UCI engine (``[engine]``), the
worker asks that engine instead and keeps it running between moves; should it fail, the
built-in search makes the move and the failure is logged in one line.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.util
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from controller.config import EngineSettings
from controller.rules import Game, Move, Position, get_game

log = logging.getLogger("fairyboard.opponent")

#: in the worker: the external engines already running, by program and options
_EXTERNAL: dict[tuple, Any] = {}
#: in the worker: how many times slower its machine searches than the levels' (see
#: ``start_worker``); the levels' time budgets are stretched by it
_SLOWNESS = 1.0


def think(game_name: str, options: dict[str, Any], setup: str, moves: list[str],
          level: int, seed: int, movetime: float | None = None) -> str:
    """In the worker: the engine's move (long notation) after ``moves`` from ``setup``."""
    from controller.engine import Engine  # the worker imports the search, not the service

    game = get_game(game_name, **options)
    pos = game.parse_position(setup)
    for text in moves:
        pos.push(game.parse_move(pos, text))
    result = Engine(game, level=level, seed=seed + len(moves),
                    slowness=_SLOWNESS).choose(pos, movetime=movetime)
    if result.move is None:
        return ""
    return game.long_move_text(pos, result.move)


#: how much nicer than the service the worker (and an external engine it starts) runs
WORKER_NICENESS = 10


def lower_priority() -> None:
    """In the worker, at its start: give way to the board loop when a core is contended
    (an external engine started by the worker inherits it)."""
    import contextlib
    import os

    with contextlib.suppress(AttributeError, OSError):  # not here: the worker still works
        os.nice(WORKER_NICENESS)


def start_worker(slowness: float = 1.0) -> None:
    """In the worker, at its start: lower its priority and settle how many times slower
    this machine searches (``slowness``; 0: measure it — a few tenths of a second on a
    Raspberry Pi, once per worker)."""
    global _SLOWNESS
    from controller.engine import machine_slowness

    lower_priority()
    _SLOWNESS = slowness if slowness > 0 else machine_slowness()


def worker_slowness() -> float:
    """In the worker: the slowness its searches use (tests ask it through the pool)."""
    return _SLOWNESS


@dataclass(frozen=True)
class ExternalAnswer:
    """The worker's answer for an external engine's game: the move (long notation) and,
    when the engine failed and the built-in search moved instead, why (one line)."""

    text: str
    failure: str = ""


def close_external() -> None:
    """In the worker, as it ends: quit every external engine it started."""
    for player in _EXTERNAL.values():
        player.close()
    _EXTERNAL.clear()


def think_external(program: str, engine_options: tuple, game_name: str,
                   options: dict[str, Any], setup: str, moves: list[str], level: int,
                   seed: int, movetime: float | None = None) -> ExternalAnswer:
    """In the worker: the external UCI engine's move, or the built-in search's if it fails."""
    from controller.engine import LEVELS
    from controller.engine.external import ExternalPlayer, UciError

    game = get_game(game_name, **options)
    # not stretched by the machine's slowness: that measures our Python search, not a
    # compiled engine's
    budget = LEVELS[level].movetime if movetime is None else movetime
    key = (program, engine_options)
    player = _EXTERNAL.get(key)
    if player is None:
        if not _EXTERNAL:  # the worker ends: quit the engines and reap them (no zombies)
            multiprocessing.util.Finalize(None, close_external, exitpriority=10)
        player = _EXTERNAL[key] = ExternalPlayer(program, engine_options)
    try:
        move = player.move(game, setup, moves, level, budget)
    except UciError as exc:
        player.close()  # started afresh for the next move
        text = think(game_name, options, setup, moves, level, seed, movetime)
        return ExternalAnswer(text, f"{exc}; the built-in search made this move")
    pos = game.parse_position(setup)
    for text in moves:
        pos.push(game.parse_move(pos, text))
    return ExternalAnswer(game.long_move_text(pos, move))


def think_from_view(game_name: str, options: dict[str, Any], view: Any, level: int,
                    seed: int, movetime: float | None = None,
                    limits: Any = None, memory: tuple = ()) -> list[Move]:
    """In the worker, for a hidden-information game: the moves to try, best first, judged
    from ``view`` and the player's earlier views ``memory`` alone (the true position never
    leaves the service).  ``limits`` replaces the level's (tests bound the search by
    depth alone, to be repeatable)."""
    from controller.engine import LEVELS
    from controller.engine.fog import ranked_tries, sample_limits

    game = get_game(game_name, **options)
    if limits is None:
        limits = sample_limits(LEVELS[level], movetime, _SLOWNESS)
    return ranked_tries(game, view, limits, seed=seed + view.fullmove,
                        samples=LEVELS[level].samples, memory=memory)


@dataclass
class Computer:
    """The players the computer plays (player indices) and its level."""

    seats: frozenset[int] = frozenset()
    level: int = 6

    def json(self, game: Game) -> dict[str, Any]:
        return {"seats": sorted(self.seats), "level": self.level,
                "names": [game.player_names[p] for p in sorted(self.seats)]}


@dataclass
class _Question:
    key: tuple
    future: Future
    started_moves: int = 0
    answer: Move | None = field(default=None)


class Opponent:
    """Asks the worker for the computer's moves and hands them over when they are current."""

    def __init__(self, computer: Computer, seed: int = 0,
                 engine: EngineSettings | None = None) -> None:
        self.computer = computer
        self.seed = seed
        #: the external UCI engine and the games it plays (``[engine]``)
        self.engine = engine or EngineSettings()
        self._pool: ProcessPoolExecutor | None = None
        self._question: _Question | None = None

    @property
    def thinking(self) -> bool:
        return self._question is not None and not self._question.future.done()

    def to_move(self, game: Game, pos: Position) -> bool:
        """Whether the computer makes the next ply (and there is one)."""
        return bool(self.computer.seats) and game.ply_mover(pos) in self.computer.seats

    def _key(self, game: Game, pos: Position) -> tuple:
        return (game.name, len(pos.moves), game.position_text(pos))

    def poll(self, game: Game, options: dict[str, Any], setup: str, moves: list[str],
             pos: Position, movetime: float | None = None) -> Move | None:
        """The computer's move for ``pos`` once it is ready (None meanwhile, or when the
        computer is not to move).  ``moves`` is the game's record in long notation;
        ``movetime`` caps the level's time for this move (the clock's share)."""
        if not self.to_move(game, pos) or not game.legal_moves(pos):
            self._question = None
            return None
        key = self._key(game, pos)
        q = self._question
        if q is None or q.key != key:
            pool = self.worker()
            if game.hidden_information:  # the worker sees what the player sees, no more
                from controller.engine.fog import earlier_views

                mover = game.ply_mover(pos)
                view = game.player_view(pos, mover)
                public = {k: v for k, v in options.items() if k not in game.hidden_options}
                future = pool.submit(think_from_view, game.name, public, view,
                                     self.computer.level, self.seed, movetime,
                                     None, earlier_views(game, pos, mover))
            elif self.engine.uci_engine and game.name in self.engine.uci_games:
                future = pool.submit(think_external, self.engine.uci_engine,
                                     tuple(self.engine.uci_options.items()), game.name,
                                     dict(options), setup, list(moves),
                                     self.computer.level, self.seed, movetime)
            else:
                future = pool.submit(think, game.name, dict(options), setup,
                                     list(moves), self.computer.level, self.seed, movetime)
            self._question = _Question(key, future, len(moves))
            return None
        if not q.future.done():
            return None
        self._question = None
        # a failed search raises here: the computer's seat shows it and stops asking
        # (controller/seats.py), so a broken worker neither stops the board nor floods
        text = q.future.result()
        if isinstance(text, ExternalAnswer):
            if text.failure:
                log.error("external engine failed", extra={"error": text.failure})
            text = text.text
        if not text:
            return None
        if isinstance(text, list):  # ranked tries from a view: the first the rules allow
            from controller.engine.fog import same_try

            legal = game.legal_moves(pos)
            for tried in text:
                for move in legal:
                    if same_try(tried, move):
                        return move
            return legal[0]
        return game.parse_move(pos, text)

    def worker(self) -> ProcessPoolExecutor:
        """The search process, started on first use (its start settles the machine's
        slowness, ``[engine] slowness``)."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker, initargs=(self.engine.slowness,))
        return self._pool

    def cancel(self) -> None:
        """Forget the question (takeback, new game): a late answer is never used."""
        self._question = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
