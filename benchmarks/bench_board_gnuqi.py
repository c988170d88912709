"""Gnu Qi on the square9 board: sensor change → decision latency, and the index build.

Positions: the start and every tenth position of a seeded game (the driver of
``tests/test_board_gnuqi.py``'s whole game: castling, Pawn → Wazir moves, captures).  For
every legal move the pictures a player produces are replayed — the moving piece lifted,
the move complete, a Wazir put on the target before the Pawn is lifted, the exchanged
piece lifted off its cell after the commit, a stray piece — through
``Reconciler.decide`` (the pure decision) and ``Board.feed`` (decision + state machine +
the published Interaction).  The index is built once per committed position.

Goal (as for every game): p99 ≤ 2 ms per sensor change.
Run: ``python3 benchmarks/bench_board_gnuqi.py``.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from benchtools import percentile  # noqa: E402
from test_board_gnuqi import choose  # noqa: E402

from controller.board import Board  # noqa: E402
from controller.layout import load_layout  # noqa: E402
from controller.reconcile import PositionIndex, Reconciler, mask_of  # noqa: E402
from controller.rules import get_game  # noqa: E402
from controller.sensing.frame import Frame  # noqa: E402

GAME = get_game("gnuqi")
LAYOUT = load_layout("square9")
N = len(LAYOUT.spots)


#: five White Pawns about to become Wazirs (two by capturing), both castlings open
PROMOTIONS = "r3k3r/pp5pp/9/2PPPPP2/9/9/9/9/R3K3R w KQkq - 0 1"


def positions(seed: int = 22, every: int = 10) -> list[str]:
    rng = random.Random(seed)
    pos = GAME.start()
    out = [PROMOTIONS, GAME.position_text(pos)]
    while GAME.outcome(pos) is None:
        pos.push(choose(GAME, pos, rng))
        if len(pos.moves) % every == 0:
            out.append(GAME.position_text(pos))
    return out


def frame_of(key, t: float) -> Frame:
    occ = [False] * N
    occ[:len(key)] = key  # square9 tracks the cells only: tracked spot j = cell j
    return Frame(t, tuple(occ), None, None)


def pictures(idx: PositionIndex) -> list[tuple]:
    """Keys a player's hands produce while making each legal move of the position."""
    out = []
    E = idx.expected
    for m, e in zip(idx.moves, idx.effects, strict=True):
        lifted = list(E)
        lifted[m.origin] = False
        out.append(tuple(lifted))  # the moving piece in the hand
        out.append(e.key)  # the move complete
        if idx.swaps_piece(m) and not E[m.target]:
            early = list(E)
            early[m.target] = True
            out.append(tuple(early))  # the Wazir put down before the Pawn is lifted
    stray = list(E)
    stray[stray.index(False)] = True
    out.append(tuple(stray))
    return out


def main() -> None:
    build, decide, feed, commit, exchange = [], [], [], [], []
    for text in positions():
        pos = GAME.parse_position(text)
        rec = Reconciler(GAME, LAYOUT, GAME.parse_position(text))
        for _ in range(5):
            t0 = time.perf_counter()
            PositionIndex(rec.view, pos)
            build.append(time.perf_counter() - t0)
        idx = rec.index
        keys = pictures(idx)
        for key in keys:
            touched = idx.emask & ~mask_of(key)
            f = frame_of(key, 0.0)
            t0 = time.perf_counter()
            rec.decide(f, touched)
            decide.append(time.perf_counter() - t0)
        board = Board(GAME, LAYOUT, GAME.parse_position(text))
        now = 0.0
        board.feed(frame_of(idx.expected, now))
        complete = {e.key for e in idx.effects}
        for key in keys:
            if key in complete:
                continue
            for k in (key, idx.expected):
                now += 0.05
                f = frame_of(k, now)
                t0 = time.perf_counter()
                board.feed(f)
                feed.append(time.perf_counter() - t0)
        for i, m in enumerate(idx.moves):  # a sample of commits, every Wazir move
            if not (idx.swaps_piece(m) or i % 7 == 0) or len(idx.by_key[idx.effects[i].key]) > 1:
                continue
            board = Board(GAME, LAYOUT, GAME.parse_position(text))
            board.feed(frame_of(idx.expected, 0.0))
            board.feed(frame_of(tuple(False if j == m.origin else on
                                      for j, on in enumerate(idx.expected)), 0.05))
            t0 = time.perf_counter()
            board.feed(frame_of(idx.effects[i].key, 0.1))
            commit.append(time.perf_counter() - t0)
            assert len(board.position.moves) == 1
            if idx.swaps_piece(m):  # then the exchange: the Pawn lifted off its cell
                after = list(idx.effects[i].key)
                after[m.target] = False
                t0 = time.perf_counter()
                board.feed(frame_of(tuple(after), 0.15))
                exchange.append(time.perf_counter() - t0)
                assert board.interaction.message.startswith("exchange the piece")
        print(f"{text.split()[0]:<44} {len(idx.moves):3d} moves {len(keys):4d} pictures")

    def row(name: str, xs: list[float]) -> None:
        ms = [x * 1e3 for x in xs]
        print(f"{name:<40} n={len(ms):5d}  p50 {statistics.median(ms):7.3f} ms  "
              f"p99 {percentile(ms, 99):7.3f} ms  max {max(ms):7.3f} ms")

    print()
    row("index build, once per position", build)
    row("Reconciler.decide, per sensor change", decide)
    row("Board.feed, per change (no commit)", feed)
    row("Board.feed, commit + next index", commit)
    row("Board.feed, the exchange lift", exchange)
    ok = percentile(decide, 99) <= 2e-3 and percentile(feed, 99) <= 2e-3
    print(f"\ngoal p99 <= 2 ms per sensor change (decision and machine): "
          f"{'met' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()
