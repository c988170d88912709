"""KaleidoChess on the kaleido89 board: sensor change → decision latency, the index build,
and whole games played through the simulated board.

Positions: the start and every eighth position of seeded games for two, three and four
players (the driver of ``tests/test_board_kaleidochess.py``: own captures, eliminations,
pieces given up).  For every legal move the pictures a player produces are replayed — the
moving piece lifted, the victim lifted too, the move complete, a knocked-out player's
pieces still on the board, a stray piece — through ``Reconciler.decide`` (the pure
decision) and ``Board.feed`` (decision + state machine + the published Interaction,
which for KaleidoChess includes every piece's owner).  The index is built once per
committed position; it also asks the rules which moves a slide may pass over.

Goal (as for every game): p99 ≤ 2 ms per sensor change.
Run: ``python3 benchmarks/bench_board_kaleidochess.py``.
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
from test_board_kaleidochess import KRig, pick, play_to_the_end  # noqa: E402

from controller.board import Board  # noqa: E402
from controller.layout import load_layout  # noqa: E402
from controller.reconcile import PositionIndex, Reconciler  # noqa: E402
from controller.rules.kaleidochess import KaleidoChess  # noqa: E402
from controller.sensing.frame import Frame  # noqa: E402

LAYOUT = load_layout("kaleido89")
N = len(LAYOUT.spots)


def positions(game: KaleidoChess, seed: int, every: int = 8) -> list[str]:
    rng = random.Random(seed)
    pos = game.start()
    out = [game.position_text(pos)]
    while game.outcome(pos) is None and len(pos.moves) < 80:
        pos.push(pick(game, pos, game.legal_moves(pos), rng, 0.97))
        if len(pos.moves) % every == 0:
            out.append(game.position_text(pos))
    return out


def frame_of(key, t: float) -> Frame:
    occ = [False] * N
    occ[:len(key)] = key  # kaleido89 tracks the fields only: tracked spot j = field j
    return Frame(t, tuple(occ), None, None)


def pictures(idx: PositionIndex) -> list[tuple[tuple, int]]:
    """(key, cells seen empty) a player's hands produce while making each legal move."""
    out = []
    E = idx.expected
    for m, e in zip(idx.moves, idx.effects, strict=True):
        if m.origin < 0:
            continue
        lifted = list(E)
        lifted[m.origin] = False
        out.append((tuple(lifted), 1 << m.origin))  # the moving piece in the hand
        if E[m.target]:
            both = list(lifted)
            both[m.target] = False
            out.append((tuple(both), 1 << m.origin | 1 << m.target))  # the victim too
        seen = e.must_lift | 1 << m.origin
        out.append((e.key, seen))  # the move complete
        rest = [c for c in m.captures if c != m.target]
        if rest:  # the mover arrived, a knocked-out player's pieces still there
            early = list(e.key)
            for c in rest:
                early[c] = True
            early[m.target] = m.piece is not None
            out.append((tuple(early), seen))
    stray = list(E)
    stray[stray.index(False)] = True
    out.append((tuple(stray), 0))
    return out


def main() -> None:
    build, decide, feed, commit = [], [], [], []
    for players, seed in ((2, 1), (3, 2), (4, 0)):
        game = KaleidoChess(players=players)
        for text in positions(game, seed):
            pos = game.parse_position(text)
            rec = Reconciler(game, LAYOUT, game.parse_position(text))
            for _ in range(3):
                t0 = time.perf_counter()
                PositionIndex(rec.view, pos)
                build.append(time.perf_counter() - t0)
            idx = rec.index
            shots = pictures(idx)
            for key, seen in shots:
                f = frame_of(key, 0.0)
                t0 = time.perf_counter()
                rec.decide(f, seen)
                decide.append(time.perf_counter() - t0)
            board = Board(game, LAYOUT, game.parse_position(text))
            now = 0.0
            board.feed(frame_of(idx.expected, now))
            complete = {e.key for e in idx.effects}
            for key, _ in shots[::3]:
                if key in complete:
                    continue
                for k in (key, idx.expected):
                    now += 0.05
                    t0 = time.perf_counter()
                    board.feed(frame_of(k, now))
                    feed.append(time.perf_counter() - t0)
            for i in range(0, len(idx.moves), 9):  # a sample of commits
                m, e = idx.moves[i], idx.effects[i]
                if m.origin < 0 or e.must_lift or i in idx.landing or len(
                        idx.by_key.get(e.key, ())) != 1:
                    continue
                board = Board(game, LAYOUT, game.parse_position(text))
                board.feed(frame_of(idx.expected, 0.0))
                board.feed(frame_of(tuple(False if j == m.origin else on
                                          for j, on in enumerate(idx.expected)), 0.05))
                t0 = time.perf_counter()
                board.feed(frame_of(e.key, 0.1))
                commit.append(time.perf_counter() - t0)
                assert board.position.moves == [m]
            print(f"{players} players, turn {pos.halfmove:3d}: {len(idx.moves):3d} moves, "
                  f"{len(shots):4d} pictures")

    def row(name: str, xs: list[float]) -> None:
        ms = [x * 1e3 for x in xs]
        print(f"{name:<40} n={len(ms):5d}  p50 {statistics.median(ms):7.3f} ms  "
              f"p99 {percentile(ms, 99):7.3f} ms  max {max(ms):7.3f} ms")

    print()
    row("index build, once per position", build)
    row("Reconciler.decide, per sensor change", decide)
    row("Board.feed, per change (no commit)", feed)
    row("Board.feed, commit + next index", commit)
    ok = percentile(decide, 99) <= 2e-3 and percentile(feed, 99) <= 2e-3
    print(f"\ngoal p99 <= 2 ms per sensor change (decision and machine): "
          f"{'met' if ok else 'MISSED'}")

    print("\nwhole games on the simulated board (clumsy human, ideal sensors):")
    for players, dice, cap, seed in ((2, False, 60, 1), (3, True, 90, 6), (4, False, 90, 0)):
        game = KaleidoChess(players=players, dice=dice, move_cap=cap)
        rig = KRig(game=game, seed=seed)
        t0 = time.perf_counter()
        moves = play_to_the_end(game, rig, seed=seed, keep_castle=0.97)
        spent = time.perf_counter() - t0
        print(f"  {players} players{' + dice' if dice else '':7} {len(moves):4d} plies "
              f"({rig.board.outcome.reason}): {spent:5.2f} s real, "
              f"{spent / len(moves) * 1e3:5.1f} ms per ply, {rig.sim.now:6.1f} s simulated")


if __name__ == "__main__":
    main()
