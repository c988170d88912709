"""Hints and the coach: the engine's advice to the player at the board.

A *hint* is the engine's best move for the player to move, lit on the board until he
starts a move.  The *coach* (optional) looks at each move a person made and, when it
loses more than a margin against the best move, says so and shows the better move.  The
page also shows the evaluation when asked.

Everything runs in one worker process (as the computer's search), so the board loop
stays responsive.  In a game with hidden information the worker is given the player's
view, never the position: it samples positions consistent with the view and judges the
moves there (:mod:`controller.engine.fog`), so a hint never reveals a hidden piece.
"""

from __future__ import annotations

import logging
import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from controller.rules import Game, Move, Position, get_game

log = logging.getLogger("fairyboard.coach")

#: how long the engine thinks for a hint or a review (seconds, here; a Pi is slower)
ADVICE_SECONDS = 0.5
#: the coach speaks when a move loses at least this much (centipawns) against the best
DEFAULT_MARGIN = 150


@dataclass(frozen=True)
class Advice:
    """The engine's best move (long notation; empty when there is none) and its score
    (centipawns, the mover's view); ``played_score`` is the move made, for the coach."""

    best: str
    score: int
    played: str = ""
    played_score: int | None = None

    @property
    def loss(self) -> int:
        return 0 if self.played_score is None else self.score - self.played_score


def _replayed(game_name: str, options: dict[str, Any], setup: str,
              moves: list[str]) -> tuple[Game, Position]:
    game = get_game(game_name, **options)
    pos = game.parse_position(setup)
    for text in moves:
        pos.push(game.parse_move(pos, text))
    return game, pos


def advise(game_name: str, options: dict[str, Any], setup: str, moves: list[str],
           played: str | None = None, seconds: float = ADVICE_SECONDS) -> Advice:
    """In the worker: the best move after ``moves``; with ``played`` (the move then made)
    also that move's score, searched to the same depth as the best move's."""
    from controller.engine.search import Limits, Search

    game, pos = _replayed(game_name, options, setup, moves)
    search = Search(game, seed=len(moves))
    best = search.best_move(pos, Limits(depth=6, movetime=seconds))
    if best.move is None:
        return Advice("", best.score)
    text = game.long_move_text(pos, best.move)
    if played is None:
        return Advice(text, best.score)
    move = game.parse_move(pos, played)
    if move == best.move:
        return Advice(text, best.score, played, best.score)
    mover = game.ply_mover(pos)
    pos.push(move)
    reply = Search(game, seed=len(moves) + 1).best_move(
        pos, Limits(depth=max(1, best.depth - 1), movetime=seconds))
    same_side = game.ply_mover(pos) == mover  # a die roll or the Cube's second move
    score = reply.score if same_side else -reply.score
    if reply.move is None:  # the move ended the game
        outcome = game.outcome(pos)
        score = 0 if outcome is None or not outcome.winners else (
            best.score if mover in outcome.winners else -best.score)
    return Advice(text, best.score, played, score)


def advise_from_view(game_name: str, options: dict[str, Any], view: Any,
                     seconds: float = ADVICE_SECONDS, memory: tuple = ()) -> Advice:
    """In the worker, with hidden information: the best try judged from ``view`` and the
    player's earlier views ``memory`` alone (no score: the view cannot be scored without
    guessing the hidden pieces)."""
    from controller.engine.fog import ranked_tries
    from controller.engine.search import Limits

    game = get_game(game_name, **options)
    # a node budget rather than a clock: the same view always gets the same hint
    tries = ranked_tries(game, view, Limits(depth=3, nodes=max(500, int(seconds * 8000))),
                         seed=view.fullmove, memory=memory)
    return Advice(view.move_text(tries[0]) if tries else "", 0)


class Coach:
    """Asks the worker for advice; one question at a time, answers matched to it."""

    def __init__(self, margin: int = DEFAULT_MARGIN, seconds: float = ADVICE_SECONDS) -> None:
        self.margin = margin
        self.seconds = seconds
        self.on = False  #: review every move a person makes
        self._pool: ProcessPoolExecutor | None = None
        self._question: tuple[str, tuple, Future] | None = None

    @property
    def busy(self) -> bool:
        return self._question is not None and not self._question[2].done()

    def ask(self, kind: str, key: tuple, game: Game, options: dict[str, Any], setup: str,
            moves: list[str], pos: Position, played: str | None = None) -> None:
        """Start a question: ``kind`` is "hint", "review" or "evaluate"; ``key`` names the
        position it is about (an answer for another position is dropped)."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1,
                                             mp_context=multiprocessing.get_context("spawn"))
        if game.hidden_information:
            from controller.engine.fog import earlier_views

            mover = game.ply_mover(pos)
            view = game.player_view(pos, mover)
            public = {k: v for k, v in options.items() if k not in game.hidden_options}
            future = self._pool.submit(advise_from_view, game.name, public, view,
                                       self.seconds, earlier_views(game, pos, mover))
        else:
            future = self._pool.submit(advise, game.name, dict(options), setup, list(moves),
                                       played, self.seconds)
        self._question = (kind, key, future)

    def answer(self, key: tuple) -> tuple[str, Advice] | None:
        """The answer once ready, if it is still about ``key``."""
        q = self._question
        if q is None or not q[2].done():
            return None
        self._question = None
        kind, asked, future = q
        if asked != key:
            return None
        # a failed worker raises here: the coach's seat shows it (controller/seats.py)
        return kind, future.result()

    def cancel(self) -> None:
        self._question = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def parse_advice(game: Game, pos: Position, advice: Advice) -> Move | None:
    """The advised move in ``pos``.  With hidden information it is the player's *try*
    as his view spells it — shown even when a piece he cannot see makes it illegal, as
    anything else would tell him about that piece."""
    if not advice.best:
        return None
    if game.hidden_information:
        view = game.player_view(pos, game.ply_mover(pos))
        return next((t for t in view.moves() if view.move_text(t) == advice.best), None)
    return game.parse_move(pos, advice.best)
