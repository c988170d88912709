"""The weakest levels' way of choosing a move: as a beginner does, not as a dice does.

A beginner looks at the pieces near the one he moves, takes what he sees is free, keeps
what he sees is attacked, likes a move that develops a piece towards the centre and
dislikes knocking out his own pieces — and he does not see far: a Bishop on the other
side of the board eyeing his Knight, or a long capture of his own, is beyond his horizon;
and now and then, busy with the piece he moves, he forgets another that is already
attacked.  That is what this module does, over any game through the ``Game``/``Move``
contract (no game is named): one ply of his own, the opponent's captures within a
horizon of ``Style.horizon`` cells, a small bias from the move's facts, and a seeded
choice among the moves close to the best he sees.

What it never does: give away the piece it moves to a reply it can see when a move
exists that loses nothing it can see, miss a win in one, or end the game lost by its
own move while another exists (the game's own verdict is asked first).  Nothing here
searches deeper; ``Engine`` uses it for levels with a ``Level.style``
(``controller/engine/__init__.py``).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from controller.engine.evaluation import Evaluator
from controller.rules import Game, Move, Position

#: centipawns a cell closer to the board's centre is worth to the beginner (at most
#: ``CENTRE_CELLS`` cells counted either way)
CENTRE_BONUS = 8
CENTRE_CELLS = 2
#: leaving the cell the piece started the game on (developing it)
DEVELOP_BONUS = 10
#: taking something, when it gains
CAPTURE_BONUS = 10
#: knocking out one of one's own pieces, on top of its value
OWN_CAPTURE_PENALTY = 50


@dataclass(frozen=True)
class Style:
    """How a beginner level sees the board (``Level.style``)."""

    #: cells (centre to centre, in side-neighbour spacings) an opponent's capture may
    #: travel and still be seen
    horizon: float
    #: how often (0–1) he looks only at the piece he moves: another piece of his already
    #: attacked is then forgotten, and a capture of his own beyond the horizon not seen
    overlook: float
    noise: int  #: centipawns within which a move he likes less may still be chosen
    #: how often (0–1) he notices a capture of his own within the horizon (beyond it:
    #: only when he is not busy with one piece, ``overlook``)
    notice: float = 1.0


class Beginner:
    """The choice of one beginner level in one game (deterministic for a seed)."""

    def __init__(self, game: Game, style: Style, rng: random.Random,
                 evaluator: Evaluator | None = None) -> None:
        self.game = game
        self.style = style
        self.rng = rng
        evaluator = evaluator or Evaluator(game)
        self.value = evaluator.piece_value
        #: the game's own data (values.toml) says which pieces belong in the centre (a
        #: King does not) and which are developed by leaving home (Knights, Bishops);
        #: a game without centre data: every piece but a royal one (worth 0)
        w = evaluator.w
        self.centre_sign = {k: -1 if v == 0 else 1 for k, v in w.values.items()}
        self.centre_sign.update({k: (v > 0) - (v < 0) for k, v in w.centre.items()})
        self.develops = frozenset(k for k, v in w.home.items() if v < 0)
        geo = game.geometry
        self.centres = geo.centres
        spans = [math.dist(geo.centres[a], geo.centres[b])
                 for a, near in enumerate(geo.side) for b in near]
        self.spacing = (sum(spans) / len(spans)) if spans else 1.0
        n = len(geo.centres)
        self.middle = (sum(p[0] for p in geo.centres) / n, sum(p[1] for p in geo.centres) / n)
        self.start_board = tuple(game.start().board)

    # -- facts of a move ---------------------------------------------------------------
    def cells(self, a: int, b: int) -> float:
        """How far apart two cells are, in cells (a drop's origin is off the board: 0)."""
        if a < 0 or b < 0:
            return 0.0
        return math.dist(self.centres[a], self.centres[b]) / self.spacing

    def near(self, move: Move) -> bool:
        """Whether ``move`` travels within the beginner's horizon."""
        return self.cells(move.origin, move.target) <= self.style.horizon

    def taken(self, pos: Position, move: Move, player: int) -> tuple[int, int]:
        """(the opponents' value ``move`` removes, ``player``'s own value it removes)."""
        theirs = mine = 0
        for c in move.captures:
            victim = pos.board[c]
            if victim is not None:
                worth = self.value(victim.kind, victim.height)
                if victim.owner == player:
                    mine += worth
                else:
                    theirs += worth
        return theirs, mine

    def bias(self, pos: Position, move: Move) -> int:
        """The beginner's liking for a move: a piece that belongs in the centre towards
        it (one that does not, away from it), a piece that develops off its start."""
        piece = pos.board[move.origin] if move.origin >= 0 else None
        if piece is None or move.target < 0:
            return 0
        closer = (math.dist(self.centres[move.origin], self.middle)
                  - math.dist(self.centres[move.target], self.middle)) / self.spacing
        sign = self.centre_sign.get(piece.kind, 0)
        score = round(sign * CENTRE_BONUS * max(-CENTRE_CELLS, min(CENTRE_CELLS, closer)))
        if (piece.kind in self.develops and move.origin != move.target
                and piece == self.start_board[move.origin]):
            score += DEVELOP_BONUS
        return score

    def defended(self, pos: Position, cell: int, player: int) -> bool:
        """Whether ``player`` can take back on ``cell`` (the position after the capture)."""
        attacked = self.game.cell_attacked(pos, cell, player)
        if attacked is not None:
            return attacked
        if self.game.ply_mover(pos) != player:
            return False
        return any(cell in m.captures for m in self.game.legal_moves(pos))

    def threat(self, pos: Position, me: int, moved: int, careless: bool) -> int:
        """The most the beginner sees the next player win by a capture in ``pos`` (after
        his move to ``moved``): a piece taken, less the taker when he can take back."""
        game = self.game
        if game.outcome(pos) is not None or game.ply_mover(pos) == me:
            return 0
        worst = 0
        for reply in game.legal_moves(pos):
            if not reply.captures or not self.near(reply):
                continue
            if careless and moved not in reply.captures:
                continue  # busy with the piece he moves: the others are forgotten
            _, lost = self.taken(pos, reply, me)
            if lost <= worst:
                continue
            taker = pos.board[reply.origin] if reply.origin >= 0 else None
            pos.push(reply)
            try:
                back = self.defended(pos, reply.target, me)
            finally:
                pos.pop()
            if back and taker is not None and taker.owner != me:
                lost = max(0, lost - self.value(taker.kind, taker.height))
            worst = max(worst, lost)
        return worst

    # -- the choice --------------------------------------------------------------------
    def choose(self, pos: Position, moves: list[Move]) -> Move:
        """The beginner's move among ``moves`` (the legal moves of ``pos``)."""
        game = self.game
        me = game.ply_mover(pos)
        losing: set[Move] = set()  # moves that end the game lost (a capitulation)
        for move in moves:  # a win in one is never missed
            pos.push(move)
            try:
                outcome = game.outcome(pos)
            finally:
                pos.pop()
            if outcome is not None and me in outcome.winners:
                return move
            if outcome is not None and outcome.winners:
                losing.add(move)
        if len(losing) < len(moves):  # never a move that loses the game at once
            moves = [m for m in moves if m not in losing]
        careless = self.rng.random() < self.style.overlook
        scored: list[tuple[Move, int, bool]] = []  # move, how he likes it, safe as seen
        for move in moves:
            theirs, mine = self.taken(pos, move, me)
            # his own capture: a near one noticed ``notice`` of the time, a long one
            # unless he is busy with one piece
            seen = (self.rng.random() < self.style.notice if self.near(move)
                    else not careless) if theirs else True
            gain = (theirs if seen else 0) - mine
            liking = self.bias(pos, move)
            if mine:
                liking -= OWN_CAPTURE_PENALTY
            elif theirs and gain > 0:
                liking += CAPTURE_BONUS
            pos.push(move)
            try:
                loss = self.threat(pos, me, move.target, careless)
            finally:
                pos.pop()
            net = gain + (800 if move.promotion else 0) - loss
            scored.append((move, net + liking, net >= 0 or loss == 0))
        if any(safe for _, _, safe in scored):  # never a piece given away, as he sees it
            scored = [s for s in scored if s[2]]
        top = max(score for _, score, _ in scored)
        near = [(m, s) for m, s, _ in scored if s >= top - self.style.noise]
        weights = [1 + s - (top - self.style.noise) for _, s in near]
        return self.rng.choices([m for m, _ in near], weights=weights)[0]
