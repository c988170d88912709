"""A game-independent search over the product's own rules.

Iterative deepening alpha-beta with principal variation search, a transposition table,
quiescence on captures and move ordering (table move, captures by value, killers,
history).  It calls the rules only through ``Game`` (``legal_moves``, ``push``/``pop``,
``outcome``, ``ply_mover``) and the evaluation only through :class:`Evaluator`, so every
game the registry knows can be searched.

Long module: one recursion (root, node, quiescence, ordering, tables) whose parts share
the search object's tables and counters; Cython compiles it as one extension type.

Scores are always from the point of view of the *root* player, the one the engine moves
for; a node is a maximising node when the root player makes its ply.  That one rule
covers what is special in our games:

* Lùotuoqí's Cube: the same player makes two plies in a row — two maximising plies;
* three or four KaleidoChess players: either every opponent minimises in turn
  ("paranoid") or, in *best-reply search* (Schadd & Winands 2011), the opponents'
  layer is one node where only the opponent with the best reply against the root player
  moves and the others pass (``opponents=``: :data:`OPPONENT_MODELS`);
* the dice variant: a node whose moves are all die rolls is a chance node, worth the
  average of its faces (expectimax); at the horizon a rolled node whose every move ends
  the game is scored as that end, not stood pat on.

The transposition table is keyed by the position key that ``Position.push`` records for
the repetition rules (its hash), so the key is kept up to date by ``push``/``pop`` at no
extra cost.  Repetitions inside the search count as draws.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from controller.engine.evaluation import Evaluator
from controller.rules import Game, Move, Outcome, Position

if TYPE_CHECKING:
    from controller.engine.human import Style

MATE = 1_000_000
INF = 10 * MATE
#: how far a node is from the root, in the mate scores' unit: a ply is 2, a ply after
#: which the same player moves on (a Cube turn's first) 1 — so of two mates as many plies
#: deep the one in fewer turns scores higher (a mate in two by Cube turns, not a mate in
#: three single moves)
PLY, SAME_TURN = 2, 1
#: scores this close to MATE are mates; they are stored relative to the node in the table
MATE_BOUND = MATE - 10_000
EXACT, LOWER, UPPER = 0, 1, 2
QUIESCENCE_PLIES = 4
#: centipawns a capture must be able to gain beyond its victims to be searched in quiescence
DELTA_MARGIN = 200
#: quiescence skips a capture whose piece is worth this much more than its defended victim
BAD_CAPTURE = 50
CHECK_EVERY = 512  # nodes between two looks at the clock and the stop flag
#: … and for a budget shorter than ``SHORT_BUDGET`` seconds
SHORT_CHECK_EVERY, SHORT_BUDGET = 32, 0.05
#: reverse futility and futility pruning: centipawns per ply of depth left, up to this depth
FUTILITY_MARGIN = 150
FUTILE_DEPTH = 2
#: null move: from this depth on, searched this many plies shallower (one more from 6)
NULL_MIN_DEPTH = 3
NULL_REDUCTION = 2
#: check extension: only a node in check this close to the horizon is searched a ply
#: deeper (a check higher up is answered within the depth anyway; extending every check
#: let a Rook's chasing checks in Lùotuoqí's mates in two cost three times the nodes)
EXTEND_NEAR = 1
#: late-move reductions: quiet moves from this place in the order on, from this depth
LATE_MOVES = 3
LMR_DEPTH = 3
#: aspiration window around the last iteration's score (centipawns)
ASPIRATION = 50
#: time manager: from depth 3 on, the next iteration is expected to take the last one's
#: time times the growth from the one before (within these bounds) — or, where smaller,
#: the growth of the iteration before that: a Cube holder's two plies make every other
#: depth the dear one, so the last growth alone overrates the next; the iteration is
#: started if this share of it — about what its first move, the last best, takes — fits
#: in the time left, or anyway while at least ``FAIR_SHARE`` of the budget is left.
#: What an unfinished iteration has searched in full is used: its first move is the last
#: best, so anything it prefers is better still.
GROWTH = (2.0, 8.0)
FIRST_MOVE_SHARE = 0.5
FAIR_SHARE = 0.4
#: how the opponents of three or four players are searched: "paranoid" (each minimises
#: in turn) or "brs" (best-reply search: one layer, the strongest single reply)
OPPONENT_MODELS = ("paranoid", "brs")
#: the model per player count unless one is asked for — the stronger one measured by
#: benchmarks/multiplayer.py (docs/engine.md, "Three and four players")
DEFAULT_OPPONENTS: dict[int, str] = {3: "paranoid", 4: "brs"}


def expected_time(took: list[float]) -> float:
    """Seconds the next iteration is expected to take, from the times of the last three
    (``took[-1]`` the last; 0 for none): the last one's times the growth from the one
    before, or the growth before that where smaller (see ``GROWTH``)."""
    growth = took[-1] / took[-2] if took[-2] > 0 else GROWTH[1]
    if took[-3] > 0:
        growth = min(growth, took[-2] / took[-3])
    return took[-1] * min(max(growth, GROWTH[0]), GROWTH[1])


class SearchStopped(Exception):
    """Raised inside the search when time, nodes or the stop flag say so."""


@dataclass(frozen=True)
class Limits:
    """When to stop: the first limit reached ends the search (at least depth 1 is done)."""

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None  #: seconds of wall-clock time for this move
    noise: int = 0  #: centipawns: weak levels choose among moves this close to the best
    #: a beginner level's way of choosing (``controller/engine/human.py``): the fog
    #: engine lets him choose on the positions he pictures instead of searching them
    #: (``Search`` itself ignores it; ``Engine`` asks the beginner directly)
    style: Style | None = None


@dataclass
class Result:
    """The engine's answer: the move, its score (centipawns, the mover's view), how deep."""

    move: Move | None
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: list[Move] = field(default_factory=list)

    @property
    def mate_in(self) -> int | None:
        """Plies to mate (positive: the mover mates; negative: the mover is mated); a
        Cube turn's first ply counts half, rounded up (see ``PLY``)."""
        if abs(self.score) < MATE_BOUND:
            return None
        plies = (MATE - abs(self.score) + 1) // PLY
        return plies if self.score > 0 else -plies


class Search:
    """One search object per game; reuse it between moves to keep its tables warm.

    Many fields: the search's tables (transposition, killers, history), its limits and
    counters live on the object so the hot recursion reads attributes, not arguments."""

    def __init__(self, game: Game, seed: int = 0, evaluator: Evaluator | None = None,
                 table_size: int = 1 << 18,
                 clock: Callable[[], float] = time.monotonic,
                 opponents: str | None = None) -> None:
        if opponents is not None and opponents not in OPPONENT_MODELS:
            raise ValueError(f"opponents must be one of {', '.join(OPPONENT_MODELS)}, "
                             f"got {opponents!r}")
        self.game = game
        #: 3–4 players: the opponents' model (two players: always plain alpha-beta)
        self.opponents = opponents or DEFAULT_OPPONENTS.get(game.players, "paranoid")
        self._multi = game.players > 2
        self._brs = self._multi and self.opponents == "brs"
        #: what time budgets are measured on: wall time at the board; a benchmark on a
        #: shared machine passes ``time.process_time`` so load does not weaken the search
        self.clock = clock
        self.evaluator = evaluator or Evaluator(game)
        self.rng = random.Random(seed)
        self.table: dict[int, tuple[int, int, int, Move | None]] = {}
        self.table_size = table_size
        self.history: dict[tuple[int, int, int], int] = {}
        self.killers: list[list[Move]] = []
        self.nodes = 0
        self.root = 0
        self._deadline = float("inf")
        self._check_every = CHECK_EVERY
        #: told of each completed depth (``fairyboard uci``'s ``info`` lines)
        self.report: Callable[[Result], None] | None = None
        self._max_nodes: int | None = None
        self._stop: Callable[[], bool] | None = None
        self._partial: tuple[int, Move] | None = None
        self._partial_scores: dict[Move, int] = {}
        self._evals: dict[int, int] = {}
        self._evals_for = -1
        #: the game's own verdict (``Game.outcome``) on positions that have moves, by key
        self._ends: dict[tuple[int, int], Outcome | None] = {}
        self._checks: dict[int, bool] = {}  # whether the side to move is in check
        #: quiescence's results by position: (plies left, bound, score), as ``table``
        self._quiet: dict[int, tuple[int, int, int]] = {}
        self._extend_below = 0  # check extensions only this close to the root
        #: the game ends inside quiescence only by mate (values.toml ``mate_only``)
        self._mate_only = self.evaluator.w.mate_only
        #: 3–4 players: the danger to the root player's last castles is scored
        #: (``Evaluator.exposure``)
        self._exposed = self._multi and self.evaluator.w.castle_threat > 0
        #: Star1 pruning at chance nodes (same answers; False: plain expectimax, kept for
        #: the tests and benchmarks/engine_chance.py to compare)
        self.chance_pruning = True

    # -- the public entry --------------------------------------------------------------
    def best_move(self, pos: Position, limits: Limits,
                  stop: Callable[[], bool] | None = None) -> Result:
        """Search ``pos`` within ``limits``; ``stop()`` returning True ends it early.

        ``pos`` is returned unchanged.  A position without legal moves gives
        ``Result(move=None, …)``."""
        started = self.clock()
        self.nodes = 0
        self.root = self.game.ply_mover(pos)
        if self.root != self._evals_for:  # remembered scores are one player's
            self._evals.clear()
            self._quiet.clear()
            self._evals_for = self.root
        deadline = started + limits.movetime if limits.movetime else float("inf")
        self._max_nodes = limits.nodes
        self._stop = stop
        self.killers = []
        moves = self.game.legal_moves(pos)
        if not moves:
            return Result(None, self._terminal(pos, 0), 0, 0, 0.0)
        if moves[0].kind == "roll":  # the die decides, not the player: a virtual die
            roll = self.rng.choice(moves)
            return Result(roll, 0, 0, 0, self.clock() - started, [roll])
        if len(moves) == 1 and not limits.noise:
            return Result(moves[0], self._static(pos), 0, 0,
                          self.clock() - started, [moves[0]])
        max_depth = limits.depth or 64
        self._deadline = deadline
        # a budget of a few hundredths of a second (the fog's many small searches) is
        # looked at more often: 512 nodes are 20 ms here, 0.2 s on a Raspberry Pi
        self._check_every = (SHORT_CHECK_EVERY if limits.movetime is not None
                             and limits.movetime < SHORT_BUDGET else CHECK_EVERY)
        moves = self._order(pos, moves, None, 0, self.root)
        win = self._wins_now(pos, moves)
        if win is not None:
            return Result(win, MATE - PLY, 1, self.nodes, self.clock() - started, [win])
        best = Result(moves[0], self._static(pos), 0, 0, 0.0, [moves[0]])
        scores: dict[Move, int] = {}
        exact = limits.noise > 0
        took = [0.0, 0.0, 0.0]  # seconds of the last three iterations
        for depth in range(1, max_depth + 1):
            now = self.clock()
            # (depth 2 is cheap: always tried)
            if (depth > 2 and limits.movetime
                    and now + FIRST_MOVE_SHARE * expected_time(took) > deadline
                    and deadline - now < FAIR_SHARE * limits.movetime):
                break  # not even its first move would be searched in the time left
            self._partial = None
            self._extend_below = 2 * depth * PLY
            try:
                window = (-INF, INF)
                if depth > 1 and not exact and abs(best.score) < MATE_BOUND:
                    window = (best.score - ASPIRATION, best.score + ASPIRATION)
                score, move, scores = self._root(pos, moves, depth, exact, window)
                if not window[0] < score < window[1]:  # outside the window: search again
                    score, move, scores = self._root(pos, moves, depth, exact)
            except SearchStopped:
                if self._partial is not None and (depth == 1 or not exact):
                    # out of time inside an iteration: the best move it has searched in
                    # full so far (the last iteration's best is searched first, so this
                    # one is at least as good)
                    score, move = self._partial
                    if depth == 1 and exact:  # a weak level's noise still chooses
                        scores = dict(self._partial_scores)  # among the moves searched
                    best = Result(move, score, depth if depth == 1 else depth - 1,
                                  self.nodes, self.clock() - started, [move])
                break
            took = [took[-2], took[-1], self.clock() - now]
            best = Result(move, score, depth, self.nodes, self.clock() - started,
                          self._pv(pos, move, depth))
            if self.report is not None:
                self.report(best)
            moves = sorted(moves, key=lambda m: -scores.get(m, -INF))
            if abs(score) >= MATE_BOUND:
                break  # a forced mate, found at its shortest: deeper adds nothing
        if limits.noise and scores:
            best.move = self._noisy_choice(scores, limits.noise)
        best.nodes = self.nodes
        best.seconds = self.clock() - started
        return best

    # -- internals ---------------------------------------------------------------------
    def _wins_now(self, pos: Position, moves: list[Move]) -> Move | None:
        """The first of ``moves`` (in search order) after which the game has ended with the
        root player among the winners (mate, the last castle, the last player out, the
        hill): asked of the game before any search, so a level stopped inside its first
        depth still takes a win in one (at a level's budget the check always completes; a
        tiny budget, a sub-search of the fog's, may end it: the captures and checks, first
        in the order, have been asked by then)."""
        game = self.game
        for i, move in enumerate(moves):
            if i % 4 == 3 and self.clock() >= self._deadline:
                return None
            pos.push(move)
            try:
                self.nodes += 1
                outcome = game.outcome(pos)
            finally:
                pos.pop()
            if outcome is not None and self.root in outcome.winners:
                return move
        return None

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes % self._check_every == 0:
            if self.clock() >= self._deadline:
                raise SearchStopped
            if self._stop is not None and self._stop():
                raise SearchStopped
        if self._max_nodes is not None and self.nodes >= self._max_nodes:
            raise SearchStopped

    def _step(self, pos: Position, mover: int) -> int:
        """How much farther from the root the position after ``mover``'s ply is: a ply,
        or half of one when ``mover`` moves on (see ``PLY``)."""
        return SAME_TURN if self.game.ply_mover(pos) == mover else PLY

    def _static(self, pos: Position, in_check: bool | None = None,
                key: int | None = None) -> int:
        """The evaluation for the root player, remembered by position for this search
        (iterative deepening meets the same leaves again and again); ``key``: the
        position's, when the caller has it (hashing the key is not free)."""
        if key is None:
            key = self._key(pos)
        score = self._evals.get(key)
        if score is None:
            score = self.evaluator.score(pos, self.root, in_check)
            if self._exposed:
                score -= self.evaluator.exposure(pos, self.root)
            if len(self._evals) >= self.table_size:
                self._evals.clear()
            self._evals[key] = score
        return score

    def _checked(self, pos: Position, key: int | None = None) -> bool:
        """Whether the side to move is in check, remembered by position: a node, the
        parent's gives-check test and quiescence ask it of the same position."""
        if key is None:
            key = self._key(pos)
        checked = self._checks.get(key)
        if checked is None:
            checked = self.game.in_check(pos, self.game.ply_mover(pos))
            if len(self._checks) >= self.table_size:
                self._checks.clear()
            self._checks[key] = checked
        return checked

    def _noisy_choice(self, scores: dict[Move, int], noise: int) -> Move:
        """A move within ``noise`` of the best, the better ones more likely."""
        top = max(scores.values())
        near = sorted((m for m, s in scores.items() if s >= top - noise),
                      key=lambda m: -scores[m])
        weights = [1 + (scores[m] - (top - noise)) for m in near]
        return self.rng.choices(near, weights=weights)[0]

    def _terminal(self, pos: Position, ply: int, outcome: Outcome | None = None) -> int:
        """A finished game's score (``outcome``: the game's, when already asked)."""
        if outcome is None:
            outcome = self.game.outcome(pos)
        if outcome is None or not outcome.winners:
            return 0
        return MATE - ply if self.root in outcome.winners else -MATE + ply

    def _key(self, pos: Position) -> int:
        return hash(pos.keys[-1]) if pos.keys else hash(self.game.position_key(pos))

    def _repeated(self, pos: Position) -> bool:
        keys = pos.keys
        if len(keys) < 2:
            return False
        if self.game.move_rule is not None:  # only positions since the last capture or
            back = pos.halfmove                # Pawn move can repeat
            return back >= 2 and keys[-1] in keys[-back - 1:-1]
        return keys[-1] in keys[:-1]

    def _root(self, pos: Position, moves: list[Move], depth: int, exact: bool,
              window: tuple[int, int] = (-INF, INF)) -> tuple[int, Move, dict[Move, int]]:
        alpha, beta = window
        best_move, best = moves[0], -INF
        scores: dict[Move, int] = {}
        self._partial_scores = scores  # what a stop inside the first depth leaves
        for i, move in enumerate(moves):
            floor = alpha  # what this move must beat to be known better
            pos.push(move)
            try:
                ply = self._step(pos, self.root)
                if i == 0 or exact:
                    score = self._node(pos, depth - 1, alpha if not exact else -INF, beta, ply)
                else:
                    score = self._node(pos, depth - 1, alpha, alpha + 1, ply)
                    if alpha < score < beta:
                        score = self._node(pos, depth - 1, score, beta, ply)
            finally:
                pos.pop()
            scores[move] = score
            if score > best:
                best, best_move = score, move
                alpha = max(alpha, score)
                if i == 0 or score > floor:
                    # what a stop leaves: not a later move whose score is only a bound at
                    # or below the aspiration window's floor (it says "no better than
                    # this", as the first move's does: two such bounds cannot be ranked)
                    self._partial = (best, best_move)
            if best >= beta:
                break  # above the aspiration window: searched again with a wider one
        if window[0] < best < window[1]:
            self._store(self._key(pos), depth, EXACT, best, best_move, 0)
        return best, best_move, scores

    def _node(self, pos: Position, depth: int, alpha: int, beta: int, ply: int,
              may_pass: bool = True, rolled: bool = False) -> int:
        self._tick()
        if self._repeated(pos):
            return 0
        if self._multi and self.root in self.game.out_players(pos):
            return -MATE + ply  # put out: lost for the root player, whoever plays on
        # mate-distance pruning: no line from here ends sooner than this ply, so once a
        # mate that near is in hand for either side nothing here can beat it
        if alpha >= MATE - ply:
            return alpha
        if beta <= -MATE + ply:
            return beta
        key = self._key(pos)
        entry = self.table.get(key)
        table_move = None
        if entry is not None:  # no entry is ever stored for a position without moves
            e_depth, flag, e_score, table_move = entry
            if e_depth >= depth:
                score = self._from_table(e_score, ply)
                if flag == EXACT or (flag == LOWER and score >= beta) or (
                        flag == UPPER and score <= alpha):
                    return score
        game = self.game
        mover = game.ply_mover(pos)
        in_check = self._checked(pos, key)
        maximising = mover == self.root
        pv = beta - alpha > 1
        # (not after a roll: the static score cannot see that every move the die allows
        # may lose — a forced capitulation — and a chance node's pruned faces are
        # searched with narrower windows than the plain average's, which must not change
        # their values)
        calm = (not pv and not in_check and not rolled and alpha > -MATE_BOUND
                and beta < MATE_BOUND)
        if self._mate_only and not in_check:
            # a game only mate ends, not in check: at the horizon straight to quiescence,
            # which may stand pat before listing the moves; near it, reverse futility
            # before listing them too (Lùotuoqí's Cube holder's list is its dearest part)
            if depth <= 0:
                return self._quiesce(pos, alpha, beta, ply, QUIESCENCE_PLIES, counted=True)
            if calm and depth <= FUTILE_DEPTH:
                cut = self._reverse_futility(pos, depth, alpha, beta, maximising, key)
                if cut is not None:
                    return cut
        moves = game.legal_moves(pos)
        if not moves:
            return self._terminal(pos, ply)
        if moves[0].kind == "roll":
            score = self._chance(pos, moves, depth, ply, alpha, beta)
            if self.chance_pruning:  # (a bound is stored as one, not as exact)
                flag = EXACT if alpha < score < beta else (LOWER if score >= beta else UPPER)
                self._store(key, depth, flag, score, None, ply)
            return score
        if in_check and depth <= EXTEND_NEAR and ply < self._extend_below:
            depth += 1  # check extension: a check is answered one ply deeper
        if depth <= 0 and rolled:
            # the die has chosen what may move: standing pat assumes a harmless move, but
            # every move the roll allows may end the game (a forced capitulation)
            forced = self._forced_end(pos, moves, ply, mover == self.root)
            if forced is not None:
                return forced
        if depth <= 0:
            return self._quiesce(pos, alpha, beta, ply, QUIESCENCE_PLIES, moves, in_check,
                                 rolled=rolled)
        # the contract, not a convention, says whether the game has ended: a game may end
        # with moves left (King of the Hill, dead material, the move rule), so an inner
        # node asks ``outcome`` (remembered by position); at the horizon an empty list
        # is the sign, and the root asks of every move (``_wins_now``)
        # (with the plies since the last capture or Pawn move: a move rule ends by them)
        ended = self._ends.get((key, pos.halfmove), False)
        if ended is False:
            if len(self._ends) >= self.table_size:
                self._ends.clear()
            ended = self._ends[(key, pos.halfmove)] = game.outcome(pos)
        if ended is not None:
            return self._terminal(pos, ply, ended)
        stand: int | None = None
        if calm:
            if depth <= FUTILE_DEPTH:
                stand = self._static(pos, in_check, key)
                if not self._mate_only:  # (those were tried before listing the moves)
                    cut = self._reverse_futility(pos, depth, alpha, beta, maximising, key)
                    if cut is not None:
                        return cut
            if may_pass and depth >= NULL_MIN_DEPTH:
                passing = game.pass_move(pos)
                if passing is not None and self.evaluator.phase_material(pos, mover) > 0:
                    if stand is None:
                        stand = self._static(pos, in_check, key)
                    if (stand >= beta) if maximising else (stand <= alpha):
                        # null move: even after passing the turn the mover stays past the
                        # window, so a real move would too (not in check, not in a Pawn
                        # ending, where passing may be the best move there is)
                        reduced = depth - 1 - NULL_REDUCTION - (depth >= 6)
                        pos.push(passing)
                        try:
                            if maximising:
                                score = self._node(pos, reduced, beta - 1, beta, ply + PLY,
                                                   False)
                            else:
                                score = self._node(pos, reduced, alpha, alpha + 1, ply + PLY,
                                                   False)
                        finally:
                            pos.pop()
                        if maximising and score >= beta:
                            return beta
                        if not maximising and score <= alpha:
                            return alpha
        seats: list[int] | None = None  # best-reply search: who makes each move
        if self._brs and not maximising:
            ordered, seats = self._replies(pos, moves, table_move, ply, mover)
        else:
            ordered = self._order(pos, moves, table_move, ply, mover)
        a0, b0 = alpha, beta
        best_move = ordered[0]
        best = -INF if maximising else INF
        futile = False
        if calm and depth == 1:
            if stand is None:
                stand = self._static(pos, in_check, key)
            futile = (stand + FUTILITY_MARGIN <= alpha) if maximising else (
                stand - FUTILITY_MARGIN >= beta)
        searched = 0
        for i, move in enumerate(ordered):
            quiet = not move.captures and not move.promotion
            if seats is None:
                pos.push(move)
            else:
                self._push_reply(pos, seats[i], move)
            try:
                child = ply + self._step(pos, mover)
                late = quiet and i >= LATE_MOVES and not in_check and depth >= LMR_DEPTH
                # (a move after which the same player moves on gives no check)
                gives_check = (futile or late) and quiet and child - ply == PLY and (
                    self._checked(pos))
                if futile and quiet and i > 0 and not gives_check:
                    # futility: a quiet move one ply from the horizon cannot lift the score
                    # into the window; counted as the best it could be
                    bound = stand + FUTILITY_MARGIN if maximising else stand - FUTILITY_MARGIN
                    best = max(best, bound) if maximising else min(best, bound)
                    continue
                # late-move reduction: quiet moves late in the order are searched one or two
                # plies shallower first, and again at full depth only if they surprise
                reduce = 0
                if late and not gives_check:
                    reduce = 1 if (pv or i < 2 * LATE_MOVES) else 2
                    reduce = min(reduce, depth - 1)
                searched += 1
                if i == 0:
                    score = self._node(pos, depth - 1, alpha, beta, child)
                elif maximising:
                    score = self._node(pos, depth - 1 - reduce, alpha, alpha + 1, child)
                    if reduce and score > alpha:
                        score = self._node(pos, depth - 1, alpha, alpha + 1, child)
                    if alpha < score < beta:
                        score = self._node(pos, depth - 1, score, beta, child)
                else:
                    score = self._node(pos, depth - 1 - reduce, beta - 1, beta, child)
                    if reduce and score < beta:
                        score = self._node(pos, depth - 1, beta - 1, beta, child)
                    if alpha < score < beta:
                        score = self._node(pos, depth - 1, alpha, score, child)
            finally:
                if seats is None:
                    pos.pop()
                else:
                    self._pop_reply(pos, mover)
            if maximising:
                if score > best:
                    best, best_move = score, move
                alpha = max(alpha, score)
            else:
                if score < best:
                    best, best_move = score, move
                beta = min(beta, score)
            if alpha >= beta:
                if quiet:
                    self._remember(move, ply, depth, mover if seats is None else seats[i])
                break
        flag = EXACT if a0 < best < b0 else (LOWER if best >= b0 else UPPER)
        self._store(key, depth, flag, best, best_move, ply)
        return best

    def _replies(self, pos: Position, moves: list[Move], table_move: Move | None,
                 ply: int, mover: int) -> tuple[list[Move], list[int]]:
        """Best-reply search: the opponents' layer is the moves of every opponent still
        in (``moves`` are the one to move's), in one order; the chosen one moves, the
        others pass.  Returns the moves and who makes each."""
        ranked: list[tuple[int, int, Move]] = []
        for seat, seat_moves in self._layer(pos, moves, mover):
            rank = self._ranker(pos, table_move, ply, seat)
            ranked += [(rank(m), seat, m) for m in seat_moves]
        ranked.sort(key=lambda r: r[0], reverse=True)
        return [m for _, _, m in ranked], [seat for _, seat, _ in ranked]

    def _layer(self, pos: Position, moves: list[Move], mover: int,
               ) -> list[tuple[int, list[Move]]]:
        """Every opponent still in with his moves, in turn order from ``mover`` (whose
        moves are ``moves``)."""
        game = self.game
        out = game.out_players(pos)
        layer: list[tuple[int, list[Move]]] = []
        for k in range(game.players):
            seat = (mover + k) % game.players
            if seat == self.root or seat in out:
                continue
            if seat != mover:
                pos.turn = seat  # the search's own skip: the players between pass
                try:
                    layer.append((seat, game.legal_moves(pos)))
                finally:
                    pos.turn = mover
            else:
                layer.append((seat, moves))
        return layer

    def _push_reply(self, pos: Position, seat: int, move: Move) -> None:
        """Make ``seat``'s ``move`` as the opponents' layer's one move: the players
        between pass, and the root player is to move next (undone by ``_pop_reply``)."""
        pos.turn = seat
        pos.push(move, record=False)
        pos.turn = self.root
        pos.keys.append(self.game.position_key(pos))  # the key of the position searched

    def _pop_reply(self, pos: Position, mover: int) -> None:
        pos.keys.pop()
        pos.pop()
        pos.turn = mover

    def _reverse_futility(self, pos: Position, depth: int, alpha: int, beta: int,
                          maximising: bool, key: int) -> int | None:
        """Reverse futility: a static score so far past the window that one or two plies
        of quiet moves will not bring it back ends the node (its bound), else None."""
        stand = self._static(pos, False, key)
        margin = FUTILITY_MARGIN * depth
        if maximising and stand - margin >= beta:
            return stand - margin
        if not maximising and stand + margin <= alpha:
            return stand + margin
        return None

    def _chance(self, pos: Position, rolls: list[Move], depth: int, ply: int,
                alpha: int = -INF, beta: int = INF) -> int:
        """A die roll: the average over its faces (each face equally likely), exact when
        it lies inside (``alpha``, ``beta``), else a bound past the window (fail-soft).

        Star1 (Ballard 1983): each face is searched with the window the average can still
        enter given the faces searched so far and bounds on the rest, and the node ends
        once it cannot.  No bound on a face is sound but ±``MATE`` (a mate's: one face's
        forced capitulation moves the average by a sixth of it), which prunes nothing,
        so the faces not yet searched are assumed at the window's floor — an assumption
        each cut checks before it is made: a null-window probe per face not yet
        searched, whose fail-soft bound then stands in for the assumption; a face past
        it counts at ±``MATE`` and the face at hand is searched again, wider.  The
        node's result is stored in the table as exact only inside the window."""
        n = len(rolls)
        if not self.chance_pruning or depth <= 0 or (alpha <= -MATE and beta >= MATE):
            total = 0
            for move in rolls:
                total += self._face(pos, move, depth, -INF, INF, ply)
            return total // n
        # each face's bounds: assumed at the window's floor, or proved by a probe
        hi = [min(max(alpha, -MATE), MATE)] * n
        lo = list(hi)
        sure_hi = [False] * n
        sure_lo = [False] * n
        total = 0  # the faces searched so far: exact values
        i = 0
        while i < n:
            a = n * alpha - total - sum(hi[i + 1:])
            b = n * beta - total - sum(lo[i + 1:])
            score = self._face(pos, rolls[i], depth, max(a, -INF), min(b, INF), ply)
            if score <= a:  # the average is at most alpha if the rest keep their bounds
                if self._prove(pos, rolls, i + 1, depth, ply, hi, lo, sure_hi, sure_lo,
                               True) and total + score + sum(hi[i + 1:]) <= n * alpha:
                    return (total + score + sum(hi[i + 1:])) // n
                continue  # a face past its assumed bound: this one again, wider
            if score >= b:
                if self._prove(pos, rolls, i + 1, depth, ply, hi, lo, sure_hi, sure_lo,
                               False) and total + score + sum(lo[i + 1:]) >= n * beta:
                    return (total + score + sum(lo[i + 1:])) // n
                continue
            total += score
            i += 1
        return total // n

    def _prove(self, pos: Position, rolls: list[Move], start: int, depth: int, ply: int,
               hi: list[int], lo: list[int], sure_hi: list[bool], sure_lo: list[bool],
               upper: bool) -> bool:
        """Star1's check before a cut: probe each face from ``start`` on whose bound
        (``hi`` if ``upper``, else ``lo``) is only assumed, with a null window at that
        bound; a probe that holds leaves its fail-soft bound (tighter still), one that
        fails leaves ±``MATE`` (always sound) and the probe's bound on the other side.
        True if every bound held."""
        for j in range(start, len(rolls)):
            if upper and not sure_hi[j]:
                sure_hi[j] = True
                probe = self._face(pos, rolls[j], depth, hi[j], hi[j] + 1, ply)
                if probe <= hi[j]:
                    hi[j] = probe
                    lo[j] = min(lo[j], probe)  # (still to be probed if a cut needs it)
                else:
                    hi[j] = MATE
                    lo[j], sure_lo[j] = max(lo[j], probe), True
                    return False
            elif not upper and not sure_lo[j]:
                sure_lo[j] = True
                probe = self._face(pos, rolls[j], depth, lo[j] - 1, lo[j], ply)
                if probe >= lo[j]:
                    lo[j] = probe
                    hi[j] = max(hi[j], probe)
                else:
                    lo[j] = -MATE
                    hi[j], sure_hi[j] = min(hi[j], probe), True
                    return False
        return True

    def _face(self, pos: Position, roll: Move, depth: int, alpha: int, beta: int,
              ply: int) -> int:
        """One face of a roll, searched within (``alpha``, ``beta``)."""
        pos.push(roll)
        try:
            return self._node(pos, depth, alpha, beta, ply + PLY, rolled=True)
        finally:
            pos.pop()

    def _forced_end(self, pos: Position, moves: list[Move], ply: int,
                    maximising: bool) -> int | None:
        """At the horizon after a roll: the score if every move the roll allows ends the
        game or puts the mover out (a forced capitulation) — the mover's best of them —
        else None, and quiescence may stand pat."""
        game = self.game
        mover = game.ply_mover(pos)
        best: int | None = None
        for move in moves:
            pos.push(move)
            try:
                outcome = game.outcome(pos)
                if outcome is not None:
                    score = self._terminal(pos, ply + PLY, outcome)
                elif mover in game.out_players(pos):  # out, the others play on
                    score = -MATE + ply + PLY if mover == self.root else self._static(pos)
                else:
                    return None
            finally:
                pos.pop()
            if best is None or (score > best if maximising else score < best):
                best = score
        return best

    def _quiesce(self, pos: Position, alpha: int, beta: int, ply: int, left: int,
                 moves: list[Move] | None = None, in_check: bool = False,
                 counted: bool = False, rolled: bool = False) -> int:
        """Captures (and, where only mate ends the game, the answers to a check) until
        the position is quiet, remembered by position (``_quiet``): capture sequences
        meet again in another order — about a third of Lùotuoqí's quiescence nodes were
        positions already searched as deep."""
        key = self._key(pos)
        entry = self._quiet.get(key)
        if entry is not None and entry[0] >= left:
            score = self._from_table(entry[2], ply)
            flag = entry[1]
            if flag == EXACT or (flag == LOWER and score >= beta) or (
                    flag == UPPER and score <= alpha):
                return score
        score = self._quiesce_position(pos, alpha, beta, ply, left, moves, in_check,
                                       counted, key, rolled)
        if len(self._quiet) >= self.table_size:
            self._quiet.clear()
        flag = UPPER if score <= alpha else LOWER if score >= beta else EXACT
        self._quiet[key] = (left, flag, self._to_table(score, ply))
        return score

    def _quiesce_position(self, pos: Position, alpha: int, beta: int, ply: int, left: int,
                          moves: list[Move] | None, in_check: bool, counted: bool,
                          key: int, rolled: bool = False) -> int:
        game = self.game
        mover = game.ply_mover(pos)
        # whether ``in_check`` is known: handed over with the moves, or asked below
        known = moves is not None or self._mate_only
        if moves is None:
            if not counted:
                self._tick()
            if self._mate_only:
                # the game ends here only by mate: a side not in check may stand pat
                # before its moves are listed
                in_check = self._checked(pos, key)
            else:
                if self._repeated(pos):
                    return 0
                moves = game.legal_moves(pos)
                if not moves:
                    return self._terminal(pos, ply)
        maximising = mover == self.root
        if in_check and self._mate_only and left > 0:
            if moves is None:
                moves = game.legal_moves(pos)
                if not moves:
                    return self._terminal(pos, ply)
            return self._evasions(pos, moves, alpha, beta, ply, left, maximising)
        stand = self._static(pos, in_check if known else None, key)
        if left <= 0 or (moves is not None and moves[0].kind == "roll"):
            return stand
        if maximising:
            if stand >= beta:
                return stand
            alpha = max(alpha, stand)
        else:
            if stand <= alpha:
                return stand
            beta = min(beta, stand)
        best = stand
        board = pos.board
        # best-reply search: the opponents' layer holds every opponent's captures, as in
        # the full-width search (else a capture by an opponent who is not next to move
        # lies past the horizon: the engine's pieces were lost to it in the opening)
        layer = self._brs and not maximising
        if moves is None and not layer:
            # (only where mate alone ends the game) the captures alone, not the quiet
            # moves: in Lùotuoqí listing them all was over a third of a depth-3 search;
            # None where no move is left at all (a stalemate: a draw), as an empty
            # listing said before
            only = game.legal_captures(pos)
            if only is None:
                return self._terminal(pos, ply)
            captures = [(m, mover) for m in only]
        else:
            if moves is None:
                moves = game.legal_moves(pos)
                if not moves:
                    return self._terminal(pos, ply)
            captures = [(m, seat) for seat, seat_moves in (
                            self._layer(pos, moves, mover) if layer else [(mover, moves)])
                        for m in seat_moves
                        if m.captures and any(board[c] is not None and board[c].owner != seat
                                              for c in m.captures)]
        if len(captures) > 1:
            captures.sort(key=lambda ms: -self._gain(pos, ms[0]))
        value = self.evaluator.piece_value
        for move, seat in captures:
            # delta pruning: a capture that cannot lift the score past the window is skipped
            # (not right after a roll: a chance node's faces are searched with narrower
            # windows than the plain average's full one, and the estimate misses a
            # capture that ends the game — a castle's — which must not change their values)
            taken = self._taken(pos, move)
            if not rolled and ((stand + taken + DELTA_MARGIN <= alpha) if maximising else (
                    stand - taken - DELTA_MARGIN >= beta)):
                continue
            # a dearer piece taking a defended one loses material: left to the full search
            attacker = board[move.origin] if move.origin >= 0 else None
            if (attacker is not None and not move.promotion and len(move.captures) == 1
                    and value(attacker.kind, attacker.height) > taken + BAD_CAPTURE
                    and game.cell_attacked(pos, move.captures[0],
                                           board[move.captures[0]].owner)):
                continue
            if layer:
                self._push_reply(pos, seat, move)
            else:
                pos.push(move)
            try:
                score = self._quiesce(pos, alpha, beta, ply + self._step(pos, mover),
                                      left - 1)
            finally:
                if layer:
                    self._pop_reply(pos, mover)
                else:
                    pos.pop()
            if maximising:
                best = max(best, score)
                alpha = max(alpha, score)
            else:
                best = min(best, score)
                beta = min(beta, score)
            if alpha >= beta:
                break
        return best

    def _evasions(self, pos: Position, moves: list[Move], alpha: int, beta: int, ply: int,
                  left: int, maximising: bool) -> int:
        """In check inside quiescence: every answer to the check (no standing pat)."""
        best = -INF if maximising else INF
        mover = self.game.ply_mover(pos)
        for move in self._order(pos, moves, None, ply, mover):
            pos.push(move)
            try:
                score = self._quiesce(pos, alpha, beta, ply + self._step(pos, mover),
                                      left - 1)
            finally:
                pos.pop()
            if maximising:
                best = max(best, score)
                alpha = max(alpha, score)
            else:
                best = min(best, score)
                beta = min(beta, score)
            if alpha >= beta:
                break
        return best

    def _taken(self, pos: Position, move: Move) -> int:
        """Value of the pieces ``move`` removes (and of a promotion): the opponents' gained,
        the mover's own lost (KaleidoChess lets a piece knock out its own side's)."""
        value = self.evaluator.piece_value
        board = pos.board
        own = board[move.origin].owner if move.origin >= 0 and board[move.origin] else -1
        taken = 800 if move.promotion else 0
        for c in move.captures:
            victim = board[c]
            if victim is not None:
                worth = value(victim.kind, victim.height)
                taken += -worth if victim.owner == own else worth
        return taken

    def _gain(self, pos: Position, move: Move) -> int:
        """Most valuable victims first, cheapest attackers first (MVV-LVA); one's own
        pieces knocked out count against the move."""
        value = self.evaluator.piece_value
        board = pos.board
        mover = board[move.origin] if move.origin >= 0 else None
        own = mover.owner if mover is not None else -1
        taken = 0
        for c in move.captures:
            victim = board[c]
            if victim is not None:
                worth = value(victim.kind, victim.height)
                taken += -worth if victim.owner == own else worth
        cost = value(mover.kind, mover.height) if mover is not None else 0
        return 16 * taken - cost // 16 + (800 if move.promotion else 0)

    def _order(self, pos: Position, moves: list[Move], table_move: Move | None,
               ply: int, mover: int) -> list[Move]:
        return sorted(moves, key=self._ranker(pos, table_move, ply, mover), reverse=True)

    def _ranker(self, pos: Position, table_move: Move | None, ply: int,
                mover: int) -> Callable[[Move], int]:
        """The move order's key: table move, captures by value, killers, history."""
        killers = self.killers[ply] if ply < len(self.killers) else []
        history = self.history

        def rank(m: Move) -> int:
            if m == table_move:
                return 1 << 40
            if m.captures or m.promotion:
                gain = self._gain(pos, m)
                # a capture that loses more of one's own than it takes (knocking out one's
                # own piece) comes after every quiet move
                return (1 << 30) + gain if gain > 0 or m.promotion else gain - (1 << 28)
            if m in killers:
                return (1 << 29) - killers.index(m)
            return history.get((mover, m.origin, m.target), 0)

        return rank

    def _remember(self, move: Move, ply: int, depth: int, mover: int) -> None:
        while len(self.killers) <= ply:
            self.killers.append([])
        killers = self.killers[ply]
        if move not in killers:
            killers.insert(0, move)
            del killers[2:]
        key = (mover, move.origin, move.target)
        self.history[key] = self.history.get(key, 0) + depth * depth

    def _store(self, key: int, depth: int, flag: int, score: int, move: Move | None,
               ply: int) -> None:
        if len(self.table) >= self.table_size:
            self.table.clear()
        self.table[key] = (depth, flag, self._to_table(score, ply), move)

    def _to_table(self, score: int, ply: int) -> int:
        """A mate score stored relative to the node, so it holds wherever the node
        is met again."""
        if score >= MATE_BOUND:
            return score + ply
        if score <= -MATE_BOUND:
            return score - ply
        return score

    def _from_table(self, score: int, ply: int) -> int:
        if score >= MATE_BOUND:
            return score - ply
        if score <= -MATE_BOUND:
            return score + ply
        return score

    def _pv(self, pos: Position, first: Move, depth: int) -> list[Move]:
        """The principal variation, read back from the table."""
        line = [first]
        pushed = 0
        pos.push(first)
        pushed += 1
        try:
            while len(line) < depth:
                entry = self.table.get(self._key(pos))
                if entry is None or entry[3] is None:
                    break
                move = entry[3]
                if move not in self.game.legal_moves(pos):
                    break
                line.append(move)
                pos.push(move)
                pushed += 1
        finally:
            for _ in range(pushed):
                pos.pop()
        return line
