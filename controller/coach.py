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
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from typing import Any

from controller.i18n import Text
from controller.rules import Game, Move, Position, get_game

log = logging.getLogger("fairyboard.coach")

#: how long the engine thinks for a hint or a review (seconds, here; a Pi is slower)
ADVICE_SECONDS = 0.5
#: the coach speaks when a move loses at least this much (centipawns) against the best
DEFAULT_MARGIN = 150


@dataclass(frozen=True)
class Advice:
    """The engine's best move (long notation; empty when there is none) and its score
    (centipawns, the mover's view); ``played_score`` is the move made, for the coach.
    ``best_text``/``played_text`` are the same moves in the game's notation (what the
    move list shows); ``mate``/``played_mate`` the plies to mate the engine saw after
    them (positive: the mover mates; negative: he is mated; None: no mate seen)."""

    best: str
    score: int
    played: str = ""
    played_score: int | None = None
    best_text: str = ""
    played_text: str = ""
    mate: int | None = None
    played_mate: int | None = None
    ply: int | None = None  #: the reviewed move's ply (set when the answer is taken)

    @property
    def loss(self) -> int:
        return 0 if self.played_score is None else self.score - self.played_score


def _moves(plies: int) -> int:
    """Plies to mate -> the moves a player counts ("mate in 3": his third move mates)."""
    return (abs(plies) + 1) // 2


def evaluation_words(advice: Advice) -> str:
    """The evaluation as a person reads it: "+1.3", "mate in 3", "mated in 2" (a
    :class:`Text`, said later in each reader's language)."""
    if advice.mate is not None:
        n = _moves(advice.mate)
        return Text("mate in {n}", n=n) if advice.mate > 0 else Text("mated in {n}", n=n)
    return f"{advice.score / 100:+.1f}"


def review_words(advice: Advice) -> str:
    """The coach's remark on a poor move, in the game's notation and in words: "Qd4 allows
    mate in 3 — Qxa4 was better", "Qd4 misses mate in 2 — …", "Qd4 loses about 8.5
    pawns — …" (pawns only when no mate decides it)."""
    played = advice.played_text or advice.played
    better = advice.best_text or advice.best
    if advice.played_mate is not None and advice.played_mate < 0 and (
            advice.mate is None or advice.mate > 0):
        what = Text("allows mate in {n}", n=_moves(advice.played_mate))
    elif advice.mate is not None and advice.mate > 0 and (
            advice.played_mate is None or advice.played_mate < 0):
        what = Text("misses mate in {n}", n=_moves(advice.mate))
    else:
        what = Text("loses about {pawns}", pawns=_pawns(advice.loss))
    return Text("{played} {what} — {better} was better", played=played, what=what,
                better=better)


def _pawns(centipawns: int) -> str:
    pawns = round(min(centipawns, 99_900) / 100, 1)
    return Text("1 pawn") if pawns == 1 else Text("{count} pawns", count=f"{pawns:g}")


def _replayed(game_name: str, options: dict[str, Any], setup: str,
              moves: list[str]) -> tuple[Game, Position]:
    game = get_game(game_name, **options)
    pos = game.parse_position(setup)
    for text in moves:
        pos.push(game.parse_move(pos, text))
    return game, pos


def advise(game_name: str, options: dict[str, Any], setup: str, moves: list[str],
           played: str | None = None, seconds: float = ADVICE_SECONDS,
           depth: int | None = None) -> Advice:
    """In the worker: the best move after ``moves``; with ``played`` (the move then made)
    also that move's score, searched to the same depth as the best move's.  ``depth``: to
    that depth whatever the time (the same answer on every machine), else up to depth 6
    within ``seconds``."""
    from controller.engine.search import Limits, Search

    game, pos = _replayed(game_name, options, setup, moves)
    search = Search(game, seed=len(moves))
    best = search.best_move(pos, Limits(depth=depth) if depth is not None
                            else Limits(depth=6, movetime=seconds))
    if best.move is None:
        return Advice("", best.score)
    text = game.long_move_text(pos, best.move)
    shown = game.move_text(pos, best.move)
    if played is None:
        return Advice(text, best.score, best_text=shown, mate=best.mate_in)
    move = game.parse_move(pos, played)
    played_shown = game.move_text(pos, move)
    if move == best.move:
        return Advice(text, best.score, played, best.score, shown, played_shown,
                      best.mate_in, best.mate_in)
    mover = game.ply_mover(pos)
    pos.push(move)
    reply = Search(game, seed=len(moves) + 1).best_move(
        pos, Limits(depth=max(1, best.depth - 1),
                    movetime=None if depth is not None else seconds))
    same_side = game.ply_mover(pos) == mover  # a die roll or a token's second move
    score = reply.score if same_side else -reply.score
    seen = reply.mate_in if same_side or reply.mate_in is None else -reply.mate_in
    # counted, as ``best.mate_in``, from before the move played
    played_mate = None if seen is None else seen + (1 if seen > 0 else -1)
    if reply.move is None:  # the move ended the game
        outcome = game.outcome(pos)
        score = 0 if outcome is None or not outcome.winners else (
            best.score if mover in outcome.winners else -best.score)
        played_mate = None if outcome is None or mover not in outcome.winners else 1
    return Advice(text, best.score, played, score, shown, played_shown, best.mate_in,
                  played_mate)


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
    """Asks the worker for advice; one hint or evaluation at a time, answers matched to
    it.  Reviews queue up: each move a person makes is reviewed, however fast the next
    move follows (a review replaced by the next one was a poor move never named)."""

    def __init__(self, margin: int = DEFAULT_MARGIN, seconds: float = ADVICE_SECONDS) -> None:
        self.margin = margin
        self.seconds = seconds
        self.on = False  #: review every move a person makes
        self._pool: ProcessPoolExecutor | None = None
        self._question: tuple[str, tuple, Future] | None = None
        self._reviews: list[tuple[tuple, Future]] = []  #: oldest first

    def remarks_on(self, advice: Advice) -> bool:
        """The coach says something of a reviewed move: it loses the margin or more."""
        return advice.loss >= self.margin

    @property
    def busy(self) -> bool:
        return (self._question is not None and not self._question[2].done()) or any(
            not f.done() for _, f in self._reviews)

    def ask(self, kind: str, key: tuple, game: Game, options: dict[str, Any], setup: str,
            moves: list[str], pos: Position, played: str | None = None) -> None:
        """Start a question: ``kind`` is "hint", "review" or "evaluate"; ``key`` names the
        position it is about (an answer for another position is dropped)."""
        self._start_pool()
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
        if kind == "review":
            self._reviews.append((key, future))
        else:
            self._question = (kind, key, future)

    def _start_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1,
                                             mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    def submit(self, function: Any, *args: Any) -> Future:
        """Run ``function(*args)`` in the same worker (the review room's positions, one at
        a time between the hints); a broken worker is replaced once."""
        try:
            return self._start_pool().submit(function, *args)
        except BrokenProcessPool:
            self.close()
            return self._start_pool().submit(function, *args)

    def answer(self, key: tuple) -> tuple[str, Advice] | None:
        """The answer once ready: the oldest finished review (each about its own move,
        ``Advice.ply`` says which), else the hint or evaluation if still about ``key``."""
        if self._reviews and self._reviews[0][1].done():
            asked, future = self._reviews.pop(0)
            # a failed worker raises here: the coach's seat shows it (controller/seats.py)
            return "review", replace(future.result(), ply=asked[-1])
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
        """Forget every question (a takeback, a new game: the moves they are about)."""
        self._question = None
        self._reviews.clear()

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
