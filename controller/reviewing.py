"""The review room: a recorded game's positions judged by the engine, off the board loop.

:class:`GameReviews` is asked for a game's review (a journal record) by the page.  It
judges the game's positions a few at a time (:data:`POSITIONS_PER_JOB`, one job per
request of the page, which asks again while it waits) in the engine's worker process (the
coach's, :meth:`controller.coach.Coach.submit`), each within a small node budget
(:data:`NODES_PER_POSITION`: the same game always gets the same review, and a hint asked
meanwhile waits for one job at most), and keeps the scores by game and move count;
:mod:`controller.review` turns them into the curve, the mistakes and the picture.

It never judges while an online game is played on the board (the worker is that game's),
and a game with hidden information only once it has ended, from its full record (what
the players could not see is no secret any more; the archive refuses it before).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from controller.i18n import Text
from controller.journal import GameRecord
from controller.review import DECIDED, Ply, PositionScore, Review, review_of
from controller.rules import Game, get_game

log = logging.getLogger("fairyboard.review")

#: the engine's budget per position (nodes: ~0.1 s here, under a second on a Pi)
NODES_PER_POSITION = 3000
#: and its depth cap (a quiet position is not searched deeper than needed)
MAX_DEPTH = 5
#: positions judged by one job in the worker (a hint asked meanwhile waits for them)
POSITIONS_PER_JOB = 4
#: reviews kept (the latest asked for; a game of 100 plies is ~10 kB)
KEPT = 16


def score_positions(game_name: str, options: dict[str, Any], setup: str, moves: list[str],
                    first: int, count: int,
                    nodes: int = NODES_PER_POSITION) -> list[PositionScore]:
    """In the worker: the positions ``first`` … ``first + count - 1`` of the game (after
    that many of ``moves``) judged by the engine."""
    game = get_game(game_name, **options)
    pos = game.parse_position(setup)
    out = []
    for k in range(first + count):
        if k >= first:
            out.append(_score(game, pos, k, nodes))
        if k < len(moves) and k < first + count - 1:
            pos.push(game.parse_move(pos, moves[k]))
    return out


def score_position(game_name: str, options: dict[str, Any], setup: str, moves: list[str],
                   nodes: int = NODES_PER_POSITION) -> PositionScore:
    """The position after ``moves`` judged by the engine (the full position, hidden
    information included: only finished games are reviewed)."""
    return score_positions(game_name, options, setup, moves, len(moves), 1, nodes)[0]


def _score(game: Game, pos: Any, ply: int, nodes: int) -> PositionScore:
    from controller.engine.search import Limits, Search

    mover = game.ply_mover(pos)
    outcome = game.outcome(pos)
    if outcome is not None:
        won = mover in outcome.winners
        score = 0 if not outcome.winners else DECIDED if won else -DECIDED
        return PositionScore(mover, score, 0)
    best = Search(game, seed=ply).best_move(pos, Limits(depth=MAX_DEPTH, nodes=nodes))
    if best.move is None:
        return PositionScore(mover, best.score, 0)
    return PositionScore(mover, best.score, best.mate_in,
                         game.long_move_text(pos, best.move),
                         game.move_text(pos, best.move))


def record_plies(record: GameRecord) -> tuple[Game, list[Ply]]:
    """The game of ``record`` and its plies as the review reads them."""
    game, _ = record.replay(salvage=True)
    pos = game.parse_position(record.setup)
    plies = []
    for text in record.moves:
        move = game.parse_move(pos, text)
        plies.append(Ply(game.ply_mover(pos), game.move_text(pos, move),
                         game.long_move_text(pos, move)))
        pos.push(move)
    return game, plies


@dataclass
class _Work:
    """One game's review under way: the scores so far, by position."""

    record: GameRecord
    scores: dict[int, PositionScore] = field(default_factory=dict)
    asked: int = -1  #: the position being judged (-1: none)
    problem: Text | None = None


class GameReviews:
    """The reviews of recorded games, made on request in the engine's worker."""

    def __init__(self, submit: Callable[..., Future], online: Callable[[], bool],
                 margin: int = 150, nodes: int = NODES_PER_POSITION) -> None:
        self._submit = submit
        self._online = online
        self.margin = margin
        self.nodes = nodes
        self._work: dict[tuple[str, int], _Work] = {}
        # re-entrant: a job already done when its callback is added runs the callback at
        # once, in the thread holding the lock
        self._lock = threading.RLock()

    def status(self, record: GameRecord) -> dict[str, Any]:
        """``{"status": "ready", "review": Review}``, or ``"working"`` with ``done`` and
        ``total`` positions, or ``"waiting"``/``"failed"`` with the ``reason`` (a
        :class:`Text`: the page reads it in its language); starts or continues the work."""
        if record.game_rules().hidden_information and not record.finished:
            return {"status": "refused", "reason": Text("a game with hidden information is "
                                                        "reviewed once it has ended")}
        key = (record.id, len(record.moves))
        with self._lock:
            work = self._work.get(key)
            if work is None:
                work = self._work[key] = _Work(record)
                while len(self._work) > KEPT:
                    self._work.pop(next(iter(self._work)))
            total = len(record.moves) + 1
            if work.problem is not None:  # said once; the next request starts afresh
                del self._work[key]
                return {"status": "failed", "reason": work.problem}
            if len(work.scores) == total:
                game, plies = record_plies(record)
                scores = [work.scores[k] for k in range(total)]
                return {"status": "ready",
                        "review": review_of(game.player_names, plies, scores, self.margin)}
            if self._online():
                return {"status": "waiting", "reason": Text(
                    "the review waits until the online game on the board has ended"),
                        "done": len(work.scores), "total": total}
            if work.asked < 0:
                self._next(key, work)
            return {"status": "working", "done": len(work.scores), "total": total}

    def _next(self, key: tuple[str, int], work: _Work) -> None:
        """Ask the worker for the next positions not yet judged (under the lock).  Only a
        request asks: when nobody looks any more (the page closed, the service stopped)
        nothing more is judged."""
        total = len(work.record.moves) + 1
        todo = next((k for k in range(total) if k not in work.scores), None)
        if todo is None:
            return
        count = min(POSITIONS_PER_JOB, total - todo)
        record = work.record
        try:
            future = self._submit(score_positions, record.game, dict(record.options),
                                  record.setup, list(record.moves), todo, count, self.nodes)
        except Exception as exc:  # noqa: BLE001 - the worker cannot start
            self._failed(work, exc)
            return
        work.asked = todo
        future.add_done_callback(lambda f: self._done(work, todo, f))

    def _done(self, work: _Work, first: int, future: Future) -> None:
        with self._lock:
            work.asked = -1
            if future.cancelled():
                return
            exc = future.exception()
            if exc is not None:
                self._failed(work, exc)
                return
            for k, score in enumerate(future.result(), start=first):
                work.scores[k] = score

    def _failed(self, work: _Work, exc: BaseException) -> None:
        log.error("review failed", exc_info=(type(exc), exc, exc.__traceback__),
                  extra={"game_id": work.record.id})
        work.asked = -1
        work.problem = Text("the engine could not judge this game ({error}); ask again to "
                            "retry", error=type(exc).__name__)


def review_for(reviews: GameReviews, record: GameRecord) -> Review | None:
    """The finished review of ``record``, if it is ready."""
    status = reviews.status(record)
    return status.get("review")


__all__ = ["GameReviews", "NODES_PER_POSITION", "POSITIONS_PER_JOB", "record_plies",
           "review_for", "score_position", "score_positions"]
