"""Playing a hidden-information game from one's own view only (Lao Tzu Chess).

The engine is given the player's :class:`~controller.rules.PlayerView` — never the true
position — and:

1. estimates the enemy pieces it cannot see: of the 32 men, those neither its own, nor
   seen, nor in a hand (:func:`unseen_enemies`);
2. draws ``samples`` positions consistent with the view: every visible cell as seen, the
   unseen enemy pieces on unseen empty cells, most likely near their home ranks (the
   farther the less, the less so as the game goes on; Pawns off the first and last
   ranks), the enemy King never in check while the player is to move (such a draw is
   rejected), the player's own King in check exactly when check was announced, and the
   pieces the enemy dropped out of sight (remembered from the player's earlier views,
   :func:`lurking_drops`) where they attack;
3. searches each sample for its best move (a proposal), answers every proposal in every
   sample (the enemy's best reply) and ranks the proposals by a risk-averse worth of
   those scores (:func:`risk_averse`: the mean pulled toward the worst half) — a move
   that wins a Pawn where nothing defends it and loses the Queen where an unseen piece
   does is judged on both; a move that brings back its own pieces and the hands as after
   an earlier move of its own counts as the draw a repetition may be
   (:func:`_mark_repeats`).

The answer is a ranked list: the board refuses a try that the hidden pieces make illegal
("illegal move", exactly as it refuses a person's), and the next candidate is used.
Because the input is the player's views alone, two true positions that look the same to
him, now and at his earlier turns, give the same answer for the same seed
(tests/test_engine_fog.py proves it).
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from controller.engine.search import Limits, Search
from controller.rules import Game, Move, Piece, PlayerView, Position, RulesError
from controller.rules.laotzu_board import KING_ATT, attacks

if TYPE_CHECKING:
    from controller.engine import Level

#: the army of one side of an 8×8 chess set, by kind
ARMY = Counter({"K": 1, "Q": 1, "R": 2, "B": 2, "N": 2, "P": 8})
FILES = "abcdefgh"


def unseen_enemies(view: PlayerView) -> Counter:
    """The enemy pieces the player cannot see, by kind (an estimate from his view).

    Every one of the 32 men is on the board or in a hand (a captured piece goes to the
    captor's hand, a promoted one goes back as a Pawn), so what is neither his, nor seen,
    nor in a hand is the enemy's and unseen — whoever dropped what.  Only the enemy's
    unseen promotions are not known: they are counted as the Pawns they were."""
    mine = Counter("P" if c in view.own_promoted else p.kind for c, p in view.own)
    seen = Counter(p.kind for _, p in view.enemies)
    hands = Counter(dict(view.hands[0])) + Counter(dict(view.hands[1]))
    left = Counter({k: 2 * n for k, n in ARMY.items()}) - mine - seen - hands
    left["K"] = 0 if seen["K"] else 1
    return +left


#: how far from home an unseen enemy piece is drawn: the chance falls by e for every
#: ``SPREAD + fullmove / SPREAD_GROWTH`` ranks it stands out of its home rank (his Pawns:
#: their starting rank), so early in the game the unseen army stands mostly where it
#: started and later it may be anywhere; the King stays back twice as firmly
SPREAD = 0.7
SPREAD_GROWTH = 12.0


def _home_weight(kind: str, cell: int, enemy: int, fullmove: int) -> float:
    """How plausible an unseen enemy piece of ``kind`` on ``cell`` is (relative weight)."""
    rank = cell // 8
    home = (1 if kind == "P" else 0) if enemy == 0 else (6 if kind == "P" else 7)
    out = abs(rank - home)
    spread = SPREAD + fullmove / SPREAD_GROWTH
    if kind == "K":
        spread /= 2
    return math.exp(-out / spread)


#: how many plies back the engine recalls the player's views (:func:`earlier_views`)
MEMORY_PLIES = 32


def earlier_views(game: Game, pos: Position, player: int,
                  plies: int = MEMORY_PLIES) -> tuple[PlayerView, ...]:
    """``player``'s views after each of the last ``plies`` plies before this one (his
    turns and the enemy's), oldest first — what he saw, nothing more (``pos`` is walked
    back and restored)."""
    undone: list[tuple[Move, bool]] = []  # each move, and whether it had a repetition key
    views: list[PlayerView] = []
    try:
        while pos.moves and len(views) < plies:
            keys = len(pos.keys)
            move = pos.pop()
            undone.append((move, len(pos.keys) < keys))
            views.append(game.player_view(pos, player))
    finally:
        while undone:
            move, recorded = undone.pop()
            pos.push(move, record=recorded)
    return tuple(reversed(views))


def lurking_drops(views: Sequence[PlayerView]) -> tuple[tuple[str, int], ...]:
    """The enemy pieces he dropped out of the player's sight that the player has not seen
    since, as ``(kind, age)`` (enemy moves since the drop), newest first, judged from the
    player's views (oldest first, the current one last).  Hands are public, so a drop
    shows as the enemy's hand shrinking; a piece of that kind that comes into view may be
    it and strikes off the newest (a drop in sight comes into view at once)."""
    if not views:
        return ()
    me = views[-1].player
    enemy = 1 - me
    lurking: list[tuple[str, int]] = []  # newest first
    for before, now in pairwise(views):
        if before.turn != me:
            lurking = [(kind, age + 1) for kind, age in lurking]
        dropped = Counter(dict(before.hands[enemy])) - Counter(dict(now.hands[enemy]))
        lurking = [(kind, 0) for kind in sorted(dropped.elements())] + lurking
        came = Counter(p.kind for _, p in now.enemies) - Counter(
            p.kind for _, p in before.enemies)
        for kind in came.elements():
            newest = next((i for i, (k, _) in enumerate(lurking) if k == kind), None)
            if newest is not None:
                del lurking[newest]
    unseen = unseen_enemies(views[-1])
    kept: list[tuple[str, int]] = []
    for kind, age in lurking:
        if sum(k == kind for k, _ in kept) < unseen[kind]:
            kept.append((kind, age))
    return tuple(kept)


#: the chance that an enemy piece stands where it was last seen, or where it took one of
#: the player's pieces, right after (guessed, not fitted), and the share of that chance
#: left after each further enemy move
GHOST_FIRST = 0.8
GHOST_STAYS = 0.8


@dataclass(frozen=True)
class Recall:
    """What the player remembers beyond his view now (:func:`recall`).

    ``lurking``: enemy pieces dropped out of his sight, ``(kind, age)`` newest first
    (:func:`lurking_drops`).
    ``ghosts``: ``(cell, kind, age)`` — an enemy piece last seen on ``cell``, or one that
    took his piece there (``kind`` None: he did not see what), ``age`` enemy moves ago,
    on a cell he does not see now."""

    lurking: tuple[tuple[str, int], ...] = ()
    ghosts: tuple[tuple[int, str | None, int], ...] = ()


def recall(views: Sequence[PlayerView]) -> Recall:
    """What the player's views (oldest first, the current one last; one after every ply,
    :func:`earlier_views`) tell beyond the last: the drops out of sight, and where enemy
    pieces were last seen or took his pieces."""
    if not views:
        return Recall()
    me = views[-1].player
    ghosts: dict[int, tuple[str | None, int]] = {}
    for before, now in pairwise(views):
        if before.turn != me:  # the enemy moved: a piece of his missing was taken there
            ghosts = {c: (k, age + 1) for c, (k, age) in ghosts.items()}
            still = {c for c, _ in now.own}
            for c, _ in before.own:
                if c not in still:
                    ghosts[c] = (None, 0)
        for c, p in before.enemies:
            if c not in now.visible:
                ghosts[c] = (p.kind, 0)
        ghosts = {c: ka for c, ka in ghosts.items() if c not in now.visible}
    return Recall(lurking_drops(views),
                  tuple((c, k, age) for c, (k, age) in sorted(ghosts.items())))


#: where a piece the enemy dropped out of sight is drawn: anywhere unseen (the floor),
#: likelier where it attacks — the worth of each of the player's pieces it attacks, and
#: per cell of his King's neighbourhood — by a share that halves with every enemy move
#: since the drop (a drop may aim at something; the greedy yardstick's often do not;
#: guessed, not fitted)
THREAT_VALUE = {"P": 1.0, "N": 3.0, "B": 3.0, "R": 5.0, "Q": 9.0, "K": 0.0}
KING_ZONE = 2.0
THREAT_FLOOR = 1.0
THREAT_SCALE = 1.0
THREAT_STAYS = 0.5


def _occupancy(board: dict[int, Piece]) -> int:
    occ = 0
    for c in board:
        occ |= 1 << c
    return occ


def _threat_weight(att: int, mine: dict[int, Piece], king: int, age: int) -> float:
    """How plausible an enemy piece dropped ``age`` enemy moves ago and attacking ``att``
    is (relative weight): a drop may be made to attack the player's pieces or his King's
    neighbourhood, and may have moved on since."""
    worth = sum(THREAT_VALUE[p.kind] for c, p in mine.items() if att >> c & 1)
    zone = (att & KING_ATT[king]).bit_count() if king >= 0 else 0
    return THREAT_FLOOR + THREAT_SCALE * THREAT_STAYS ** age * (worth + KING_ZONE * zone)


#: the unseen pieces are placed King first (he has the fewest plausible cells), Pawns last
PLACE_ORDER = {"K": 0, "Q": 1, "R": 2, "B": 3, "N": 4, "P": 5}


def sample_text(view: PlayerView, rng: random.Random, memory: Recall | None = None) -> str:
    """One position text consistent with ``view`` (Lao Tzu's FEN with hands), the unseen
    enemy pieces drawn near their home ranks (:func:`_home_weight`).

    ``memory`` (the engine's draw; :func:`recall`) also honours what else the player
    knows: the check announcement — in check, one unseen piece is drawn where it gives
    the check; not in check, none is drawn where it would; a cell in front of his Pawn
    that he does not see is blocked (:func:`_blocked_cells`); enemy pieces where he last
    saw them or where they took his pieces (:data:`GHOST_FIRST`, :data:`GHOST_STAYS`); and the
    pieces the enemy dropped out of sight, drawn where they attack his pieces or his
    King's neighbourhood (:func:`_threat_weight`) rather than near home.  ``None`` is the
    plain draw from the view alone (the one-ply yardstick's, kept as it was measured)."""
    me, enemy = view.player, 1 - view.player
    board: dict[int, Piece] = dict(view.own) | dict(view.enemies)
    mine = dict(view.own)
    king = next((c for c, p in view.own if p.kind == "K"), -1)
    # a cell one of his Pawns could take on would be visible with a piece on it
    pawn_takes = set()
    step = 8 if me == 0 else -8
    for c, p in view.own:
        if p.kind == "P":
            for df in (-1, 1):
                if 0 <= c % 8 + df < 8 and 0 <= c + step + df < 64:
                    pawn_takes.add(c + step + df)
    free = [c for c in range(64)
            if c not in view.visible and c not in board and c not in pawn_takes]
    unseen = unseen_enemies(view)
    lurking: dict[str, list[int]] | None = None  # the ages of the drops, by kind
    if memory is not None:
        lurking = {}
        for kind, age in memory.lurking:
            lurking.setdefault(kind, []).append(age)
        _draw_checker(view, rng, board, free, unseen, lurking, king)
        _draw_ghosts(view, rng, memory.ghosts, board, free, unseen, king)
        _fill_blocked(view, rng, board, free, unseen, king)
    for kind, n in sorted(unseen.items(), key=lambda kn: PLACE_ORDER[kn[0]]):
        for k in range(n):
            spots = [c for c in free if kind != "P" or 8 <= c < 56]
            if lurking is None:
                weights = [_home_weight(kind, c, enemy, view.fullmove) for c in spots]
            else:  # never a check that was not announced; the dropped ones aim somewhere
                occ = _occupancy(board)
                reach = {c: attacks(kind, enemy, c, occ) for c in spots}
                spots = [c for c in spots if king < 0 or not reach[c] >> king & 1]
                ages = lurking.get(kind, [])[:n]
                if k < len(ages):
                    weights = [_threat_weight(reach[c], mine, king, ages[k]) for c in spots]
                else:
                    weights = [_home_weight(kind, c, enemy, view.fullmove) for c in spots]
            if not spots:
                break
            c = rng.choices(spots, weights=weights)[0]
            free.remove(c)
            board[c] = Piece(enemy, kind)
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            p = board.get(rank * 8 + f)
            if p is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            letter = p.kind if p.owner == 0 else p.kind.lower()
            row += letter + ("~" if rank * 8 + f in view.own_promoted else "")
        rows.append(row + (str(empty) if empty else ""))
    hands = "".join(k * n for k, n in view.hands[0]) + "".join(
        k.lower() * n for k, n in view.hands[1])
    castling = "".join(
        (FILES[c % 8].upper() if me == 0 else FILES[c % 8]) for c in sorted(view.castling,
                                                                           reverse=True))
    ep = "-" if view.en_passant is None else f"{FILES[view.en_passant % 8]}" \
        f"{view.en_passant // 8 + 1}"
    side = "w" if view.turn == 0 else "b"
    return (f"{'/'.join(rows)}[{hands}] {side} {castling or '-'} {ep} 0 "
            f"{view.fullmove}")


def _may_stand(kind: str, cell: int, enemy: int, occ: int, king: int, in_check: bool) -> bool:
    """Whether an unseen enemy ``kind`` may stand on ``cell`` as far as the player can
    tell: no Pawn on an end rank, no check that was not announced, no Kings side by side."""
    if kind == "P" and not 8 <= cell < 56:
        return False
    if king >= 0 and attacks(kind, enemy, cell, occ) >> king & 1:
        return in_check and kind != "K"
    return True


def _put(board: dict[int, Piece], free: list[int], unseen: Counter, enemy: int, kind: str,
         cell: int) -> None:
    """Stand an unseen enemy ``kind`` on ``cell`` in a draw."""
    board[cell] = Piece(enemy, kind)
    free.remove(cell)
    unseen[kind] -= 1


def _draw_checker(view: PlayerView, rng: random.Random, board: dict[int, Piece],
                  free: list[int], unseen: Counter, lurking: dict[str, list[int]],
                  king: int) -> None:
    """In check with no checker in sight: draw one unseen piece where it gives the check
    (a dropped one likelier), taking it from ``unseen`` and its cell from ``free``."""
    if not view.in_check or king < 0:
        return
    enemy = 1 - view.player
    occ = _occupancy(board)
    if any(attacks(p.kind, enemy, c, occ) >> king & 1 for c, p in view.enemies):
        return
    options, weights = [], []
    for kind, n in unseen.items():
        if kind == "K":
            continue
        for c in free:
            if (kind != "P" or 8 <= c < 56) and attacks(kind, enemy, c, occ) >> king & 1:
                options.append((kind, c))
                weights.append(n * _home_weight(kind, c, enemy, view.fullmove)
                               + len(lurking.get(kind, ())))
    if not options:
        return
    kind, c = rng.choices(options, weights=weights)[0]
    _put(board, free, unseen, enemy, kind, c)
    if lurking.get(kind):
        lurking[kind].pop(0)


def _draw_ghosts(view: PlayerView, rng: random.Random,
                 ghosts: tuple[tuple[int, str | None, int], ...], board: dict[int, Piece],
                 free: list[int], unseen: Counter, king: int) -> None:
    """Put remembered enemy pieces back where they were seen or took a piece, each with
    the chance its age leaves it; an unknown capturer is of a kind that could have
    taken there (weighted by how many are unseen and from how many cells they could)."""
    enemy = 1 - view.player
    for cell, kind, age in ghosts:
        if cell not in free or rng.random() >= GHOST_FIRST * GHOST_STAYS ** age:
            continue
        occ = _occupancy(board)
        options, weights = [], []
        for k, n in unseen.items():
            if n <= 0 or (kind is not None and k != kind) or not _may_stand(
                    k, cell, enemy, occ, king, view.in_check):
                continue
            reach = 1 if kind is not None else sum(
                1 for c in free if c != cell and attacks(k, enemy, c, occ) >> cell & 1)
            if reach:
                options.append(k)
                weights.append(n * reach)
        if options:
            _put(board, free, unseen, enemy, rng.choices(options, weights=weights)[0], cell)


def _blocked_cells(view: PlayerView, board: dict[int, Piece]) -> list[int]:
    """Cells he does not see that something must stand on: the step in front of one of
    his Pawns (and the double step from its start when the single one is seen empty) —
    a Pawn sees the cells it could step to, so an unseen one is blocked."""
    step = 8 if view.player == 0 else -8
    start = range(8, 16) if view.player == 0 else range(48, 56)
    cells = []
    for c, p in view.own:
        if p.kind != "P" or not 0 <= c + step < 64:
            continue
        one = c + step
        if one not in view.visible:
            cells.append(one)
        elif c in start and one not in board and one + step not in view.visible:
            cells.append(one + step)
    return cells


def _fill_blocked(view: PlayerView, rng: random.Random, board: dict[int, Piece],
                  free: list[int], unseen: Counter, king: int) -> None:
    """Put an unseen enemy piece on every cell that must hold one (:func:`_blocked_cells`),
    of a kind likely there (:func:`_home_weight`) that gives no check unannounced."""
    enemy = 1 - view.player
    for cell in _blocked_cells(view, board):
        if cell not in free:
            continue
        occ = _occupancy(board)
        options, weights = [], []
        for k, n in unseen.items():
            if n > 0 and _may_stand(k, cell, enemy, occ, king, view.in_check):
                options.append(k)
                weights.append(n * _home_weight(k, cell, enemy, view.fullmove))
        if options:
            _put(board, free, unseen, enemy, rng.choices(options, weights=weights)[0], cell)


def same_try(a: Move, b: Move) -> bool:
    """The same try on the board: same cells, kind of move, promotion and dropped piece."""
    return (a.kind, a.origin, a.target, a.promotion) == (b.kind, b.origin, b.target,
                                                          b.promotion) and (
        a.kind != "drop" or a.piece == b.piece)


#: positions drawn from the view per decision (the strong levels'; ``Level.samples``)
SAMPLES = 8
#: a score is counted at most this far from level (centipawns): a mate found in one
#: drawn position must not outweigh what all the others say
SCORE_CAP = 1500
#: how much of a move's worth is its worst half of the drawn positions (the rest: its
#: mean over all of them) — a capture that loses the Queen where an unseen piece defends
#: the cell is not made up for by the positions where none does
RISK = 0.5
#: the share of a sample's time (and nodes) spent answering the proposals in it, and how
#: deep the enemy's answer is searched (quiescence follows: a defended cell is seen)
ANSWER_SHARE = 0.25
ANSWER_DEPTH = 1


def sample_limits(level: Level, movetime: float | None = None,
                  slowness: float = 1.0) -> Limits:
    """One sample's search limits at ``level`` (which draws ``level.samples`` positions):
    its share of the level's time (stretched by the machine's ``slowness``, or the shorter
    ``movetime``) and node cap, at most depth 3 (a search per drawn position where the full
    information engine makes one), and the level's own noise — so the weak levels stay
    weak from a view too."""
    budget = level.budget(movetime, slowness)
    share = level.samples
    nodes = max(1, level.nodes // share) if level.nodes is not None else None
    return Limits(depth=min(level.depth, 3), movetime=budget / share, nodes=nodes,
                  noise=level.noise, style=level.style)


def draw_positions(game: Game, view: PlayerView, rng: random.Random,
                   samples: int, memory: Recall | None = None) -> list[Position]:
    """Up to ``samples`` positions consistent with ``view`` and what the player recalls
    (a draw the rules refuse, e.g. the enemy King left in check, or one that would look
    otherwise to him — other cells seen, another check announcement — is not a possible
    position and is drawn again; only if none agrees are such draws used)."""
    memory = Recall() if memory is None else memory
    drawn: list[Position] = []
    contradicting: list[Position] = []  # only if no draw agrees (no checker fits)
    for _ in range(samples * 5):
        if len(drawn) == samples:
            break
        try:
            pos = game.parse_position(sample_text(view, rng, memory))
        except RulesError:
            continue
        (drawn if _looks_like(game, pos, view) else contradicting).append(pos)
    return drawn or contradicting[:samples]


def _looks_like(game: Game, pos: Position, view: PlayerView) -> bool:
    """Whether ``pos`` would show the player exactly ``view``."""
    seen = game.player_view(pos, view.player)
    return (seen.visible, seen.enemies, seen.in_check) == (view.visible, view.enemies,
                                                            view.in_check)


def _signature(view: PlayerView) -> tuple:
    """What comes back when a position repeats, as far as a drawn position can tell: the
    player's own pieces, the hands (no capture, no drop since) and the side to move — not
    the cells he sees nor the enemies on them, which depend on the hidden pieces drawn."""
    return (view.turn, view.own, view.hands, view.castling)


def _mark_repeats(game: Game, pos: Position, player: int, seen: set[tuple]) -> None:
    """Let the search see a repetition where the player would: each of his moves in the
    drawn ``pos`` after which his view is one he had after an earlier move of his
    (``seen``: :func:`_signature`) leads to a position put into ``pos``'s history, so the
    search scores it as the draw a third time would be — a side far ahead does not
    give checks back and forth until the referee calls the draw."""
    phantoms = []
    for move in game.legal_moves(pos):
        pos.push(move)
        try:
            if _signature(game.player_view(pos, player)) in seen:
                phantoms.append(pos.keys[-1])
        finally:
            pos.pop()
    if phantoms:
        pos.keys[:0] = phantoms
        pos.halfmove = max(pos.halfmove, len(pos.keys))  # within the repetition window


def risk_averse(scores: list[int]) -> float:
    """A move's worth over the drawn positions: its mean, pulled toward the mean of its
    worst half by :data:`RISK` (each score capped at :data:`SCORE_CAP`)."""
    capped = sorted(max(-SCORE_CAP, min(SCORE_CAP, s)) for s in scores)
    worst = capped[:max(1, len(capped) // 2)]
    return (1 - RISK) * sum(capped) / len(capped) + RISK * sum(worst) / len(worst)


def _part(budget: float | int | None, share: float) -> Any:
    """``share`` of a time or node budget (``None``: no budget)."""
    if budget is None:
        return None
    return max(1, int(budget * share)) if isinstance(budget, int) else budget * share


def _index_of(tries: list[Move], move: Move) -> int | None:
    for i, t in enumerate(tries):
        if same_try(t, move):
            return i
    return None


def ranked_tries(game: Game, view: PlayerView, limits: Limits, seed: int = 0,
                 samples: int = SAMPLES, clock: Callable[[], float] = time.monotonic,
                 memory: Sequence[PlayerView] = ()) -> list[Move]:
    """The moves the player may try, best first, judged on positions drawn from his view.

    Each drawn position is searched and proposes its best move; then every proposal is
    answered in every drawn position (the enemy's best reply, :data:`ANSWER_DEPTH` and
    quiescence) and the proposals are ranked by :func:`risk_averse` of those scores.  A plain vote
    would favour a capture that wins in most drawn positions and loses the Queen in the
    rest; this asks what each move risks where it goes wrong.  The other tries follow in
    the view's order (the board may refuse a try the hidden pieces make illegal).
    ``memory``: the player's earlier views (:func:`earlier_views`), for what he recalls
    (:func:`recall`)."""
    tries = view.moves()
    if len(tries) <= 1:
        return tries
    started = clock()
    # the whole decision keeps to the level's budget (``samples`` sample shares): drawing
    # the positions, marking repeats and the answers take time too, so each search gets
    # its share of what is left, not of what there was (issue 33: level 6 took 0.63 s)
    total = limits.movetime * samples if limits.movetime else None
    rng = random.Random(seed)
    positions = draw_positions(game, view, rng, samples, recall((*memory, view)))
    if not positions:
        return tries
    seen = {_signature(v) for v in memory if v.turn != view.player}
    if seen:
        for pos in positions:
            _mark_repeats(game, pos, view.player, seen)
    if limits.style is not None:
        return _beginners_tries(game, tries, positions, limits, rng)
    # most of each sample's time and nodes for its proposal, the rest for the answers
    propose = replace(limits, movetime=_part(limits.movetime, 1 - ANSWER_SHARE),
                      nodes=_part(limits.nodes, 1 - ANSWER_SHARE))
    proposals: list[int] = []
    for k, pos in enumerate(positions):
        if total is not None:  # the proposals' part of the time left, over those to come
            left = total * (1 - ANSWER_SHARE) - (clock() - started)
            propose = replace(propose, movetime=max(0.001, min(
                limits.movetime * (1 - ANSWER_SHARE), left / (len(positions) - k))))
        result = Search(game, seed=rng.randrange(1 << 30), clock=clock).best_move(pos, propose)
        i = None if result.move is None else _index_of(tries, result.move)
        if i is not None and i not in proposals:
            proposals.append(i)
    if not proposals:
        return tries
    answer = Limits(depth=ANSWER_DEPTH,
                    movetime=_part(limits.movetime, ANSWER_SHARE / len(proposals)),
                    nodes=_part(limits.nodes, ANSWER_SHARE / len(proposals)))
    worth: dict[int, list[int]] = {i: [] for i in proposals}
    for k, pos in enumerate(positions):
        if total is not None:  # the time left, over the answers to come
            left = total - (clock() - started)
            answer = replace(answer, movetime=max(0.001, min(
                limits.movetime * ANSWER_SHARE / len(proposals),
                left / ((len(positions) - k) * len(proposals)))))
        search = Search(game, seed=rng.randrange(1 << 30), clock=clock)
        legal = game.legal_moves(pos)
        here: dict[int, int] = {}
        for i in proposals:
            move = next((m for m in legal if same_try(m, tries[i])), None)
            if move is None:
                continue
            pos.push(move)
            try:
                repeated = pos.keys[-1] in pos.keys[:-1]  # marked by _mark_repeats
                here[i] = 0 if repeated else -search.best_move(pos, answer).score
            finally:
                pos.pop()
        refused = max(here.values(), default=0)  # a refused try: the next one is played
        for i in proposals:
            worth[i].append(here.get(i, refused))
    value = {i: risk_averse(worth[i]) for i in proposals}
    ranked = sorted(proposals, key=lambda i: (-value[i], i))
    if limits.noise:  # a weak level: any proposal this close to the best, better ones likelier
        top = value[ranked[0]]
        near = [i for i in ranked if value[i] >= top - limits.noise]
        weights = [1 + value[i] - (top - limits.noise) for i in near]
        first = rng.choices(near, weights=weights)[0]
        ranked.remove(first)
        ranked.insert(0, first)
    chosen = set(ranked)
    return [tries[i] for i in ranked] + [t for i, t in enumerate(tries) if i not in chosen]


def _beginners_tries(game: Game, tries: list[Move], positions: list[Position],
                     limits: Limits, rng: random.Random) -> list[Move]:
    """A beginner level from a view (``Limits.style``): in each position he pictures he
    chooses as at an open board (``controller/engine/human.py``: his horizon, what he
    overlooks) — his choices first, in the order drawn, then the other tries.  Before,
    Lao Tzu's level 1 was a one-ply search with quiescence on one drawn position and
    beat the greedy player in 15 of 20 games (docs/engine.md, "Levels")."""
    from controller.engine.human import Beginner

    beginner = Beginner(game, limits.style, rng)
    first: list[int] = []
    for pos in positions:
        legal = game.legal_moves(pos)
        if not legal:
            continue
        i = _index_of(tries, beginner.choose(pos, legal))
        if i is not None and i not in first:
            first.append(i)
    chosen = set(first)
    return [tries[i] for i in first] + [t for i, t in enumerate(tries) if i not in chosen]


def choose_try(game: Game, view: PlayerView, legal: list[Move], limits: Limits,
               seed: int = 0, clock: Callable[[], float] = time.monotonic,
               samples: int = SAMPLES, memory: Sequence[PlayerView] = ()) -> Any:
    """The first ranked try that is legal in the true position (the board's refusals
    tell the player no more than they tell a person), as the true legal move."""
    for t in ranked_tries(game, view, limits, seed, samples, clock=clock, memory=memory):
        for m in legal:
            if same_try(t, m):
                return m
    return legal[0] if legal else None
