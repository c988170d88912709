"""Playing a hidden-information game from one's own view only (Lao Tzu Chess).

The engine is given the player's :class:`~controller.rules.PlayerView` — never the true
position — and:

1. estimates the enemy pieces it cannot see: the enemy army's kinds (King, Queen, two
   Rooks, Bishops and Knights, eight Pawns), less those it sees, less those in its own
   hand (captured from the enemy and not yet dropped back);
2. draws ``samples`` positions consistent with the view: every visible cell as seen, the
   unseen enemy pieces on unseen empty cells (Pawns off the first and last ranks), the
   enemy King never in check while the player is to move (such a draw is rejected);
3. searches each sample and ranks the moves the player may try by votes, ties broken by
   the summed scores.

The answer is a ranked list: the board refuses a try that the hidden pieces make illegal
("illegal move", exactly as it refuses a person's), and the next candidate is used.
Because the input is the view alone, two true positions that look the same to the player
give the same answer for the same seed (tests/test_engine_fog.py proves it).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.engine.search import Limits, Search
from controller.rules import Game, Move, Piece, PlayerView, RulesError

if TYPE_CHECKING:
    from controller.engine import Level

#: the army of one side of an 8×8 chess set, by kind
ARMY = Counter({"K": 1, "Q": 1, "R": 2, "B": 2, "N": 2, "P": 8})
FILES = "abcdefgh"


def unseen_enemies(view: PlayerView) -> Counter:
    """The enemy pieces the player cannot see, by kind (an estimate from his view)."""
    seen = Counter(p.kind for _, p in view.enemies)
    mine_in_hand = Counter(dict(view.hands[view.player]))
    left = ARMY - seen - mine_in_hand
    left["K"] = 0 if seen["K"] else 1
    return +left


def sample_text(view: PlayerView, rng: random.Random) -> str:
    """One position text consistent with ``view`` (Lao Tzu's FEN with hands)."""
    me, enemy = view.player, 1 - view.player
    board: dict[int, Piece] = dict(view.own) | dict(view.enemies)
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
    rng.shuffle(free)
    for kind, n in sorted(unseen_enemies(view).items()):
        for _ in range(n):
            spots = [c for c in free if kind != "P" or 8 <= c < 56]
            if not spots:
                break
            c = spots[0]
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


def same_try(a: Move, b: Move) -> bool:
    """The same try on the board: same cells, kind of move, promotion and dropped piece."""
    return (a.kind, a.origin, a.target, a.promotion) == (b.kind, b.origin, b.target,
                                                          b.promotion) and (
        a.kind != "drop" or a.piece == b.piece)


#: positions drawn from the view per decision
SAMPLES = 6


def sample_limits(level: Level, movetime: float | None = None) -> Limits:
    """One sample's search limits at ``level``: its share of the level's time (or of the
    shorter ``movetime``) and node cap, at most depth 3 (six searches where the full
    information engine makes one), and the level's own noise — so the weak levels stay
    weak from a view too."""
    budget = level.movetime if movetime is None else min(movetime, level.movetime)
    nodes = max(1, level.nodes // SAMPLES) if level.nodes is not None else None
    return Limits(depth=min(level.depth, 3), movetime=budget / SAMPLES, nodes=nodes,
                  noise=level.noise)


def ranked_tries(game: Game, view: PlayerView, limits: Limits, seed: int = 0,
                 samples: int = SAMPLES, clock: Callable[[], float] = time.monotonic,
                 ) -> list[Move]:
    """The moves the player may try, best first, judged on positions drawn from his view."""
    tries = view.moves()
    if len(tries) <= 1:
        return tries
    rng = random.Random(seed)
    votes: Counter = Counter()
    totals: Counter = Counter()
    drawn = 0
    for _ in range(samples * 5):
        if drawn == samples:
            break
        try:
            pos = game.parse_position(sample_text(view, rng))
        except RulesError:
            continue  # e.g. the enemy King drawn into check: not a possible position
        drawn += 1
        result = Search(game, seed=rng.randrange(1 << 30), clock=clock).best_move(pos, limits)
        if result.move is None:
            continue
        for i, t in enumerate(tries):
            if same_try(t, result.move):
                votes[i] += 1
                totals[i] += result.score
                break
    order = sorted(range(len(tries)), key=lambda i: (-votes[i], -totals[i], i))
    return [tries[i] for i in order]


def choose_try(game: Game, view: PlayerView, legal: list[Move], limits: Limits,
               seed: int = 0, clock: Callable[[], float] = time.monotonic) -> Any:
    """The first ranked try that is legal in the true position (the board's refusals
    tell the player no more than they tell a person), as the true legal move."""
    for t in ranked_tries(game, view, limits, seed, clock=clock):
        for m in legal:
            if same_try(t, m):
                return m
    return legal[0] if legal else None
