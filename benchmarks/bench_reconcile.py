"""Sensor change → decision latency of the reconciler and of the whole board state machine.

Busy Lùotuoqí positions (many Towers, Bypassers on long diagonals, the Cube in play).  For
every legal move of each position the pictures a player produces are replayed: the
moving piece lifted, the move complete, a bypass victim still on the board, a stray
piece; each is decided by ``Reconciler.decide`` (the pure decision) and fed to a ``Board``
(decision + state machine + the published Interaction; in three rounds on new Boards, per
frame the median over the rounds, with each round's p99).  The index is built once per
position (reported separately: it is paid once per committed move).

Goal: p99 ≤ 2 ms per sensor change.  Run: ``python -m benchmarks.bench_reconcile``.
Times are process CPU time.
"""

from __future__ import annotations

import gc
import statistics
import time

from benchmarks.bench_board import FEED_ROUNDS, feed_round
from benchmarks.benchtools import percentile
from controller.board import Board
from controller.layout import load_layout
from controller.reconcile import PositionIndex, Reconciler, mask_of
from controller.rules.luotuoqi import Luotuoqi
from controller.sensing.frame import Frame

GAME = Luotuoqi()
LAYOUT = load_layout("square8")
N = len(LAYOUT.spots)

BUSY = [
    # many Towers, Bypassers on open diagonals, Cube with White (to move) or pending
    "r1d1k2r/e1et32e1/1eT22m2/3e1E2/2D1T32e/1E3t22/E1E1E1E1/R3K1MR w KQkq b 0 12",
    "4k3/1t22e3/2T31t33/3D4/4T33/1d3T22/8/4K3 b - w 3 30",
    "r3k2r/8/2t21t33/8/3D4/8/2T21T33/R3K2R w KQkq w 0 20",
    "k7/2t34t2/1T55T3/3D4/3t44/T46T2/2T55/K3t53 w - w 0 30",
]


def busiest(count: int = 5, seed: int = 1) -> list[str]:
    """More busy positions: seeded random walks that favour Tower splits, keeping the
    positions with the most legal moves (deterministic)."""
    import random

    rng = random.Random(seed)
    found: list[tuple[int, str]] = []
    for start in BUSY:
        pos = GAME.parse_position(start)
        for _ in range(30):
            moves = GAME.legal_moves(pos)
            if not moves:
                break
            splits = [m for m in moves if m.kind == "split" and not m.captures]
            pos.push(rng.choice(splits) if splits and rng.random() < 0.5 else rng.choice(moves))
            found.append((len(GAME.legal_moves(pos)), GAME.position_text(pos)))
    found.sort(reverse=True)
    return [text for _, text in found[:count]]


def frame_of(rec: Reconciler, key, t: float) -> Frame:
    occ = [False] * N
    for j, on in enumerate(key):
        occ[rec.view.tracked[j]] = on
    return Frame(t, tuple(occ), (None,) * N, (None,) * N)


def pictures(rec: Reconciler) -> list[tuple]:
    """Keys a player's hands produce while making each legal move of the position."""
    idx = rec.index
    out = []
    for e in idx.effects:
        E = idx.expected
        lifted = list(E)
        for j in range(len(E)):
            if e.source >> j & 1:
                lifted[j] = False
        out.append(tuple(lifted))  # the moving piece in the hand
        out.append(e.key)  # the move complete
        if e.victims:  # arrived, one victim still on the board
            partial = list(e.key)
            j = (e.victims & -e.victims).bit_length() - 1
            partial[j] = True
            out.append(tuple(partial))
    stray = list(idx.expected)
    j = next(k for k in range(64) if not stray[k])
    stray[j] = True
    out.append(tuple(stray))  # a piece where none should be
    return out


def run(quick: bool = False, say=print) -> dict:
    """Every figure (``benchmarks.run_all`` writes them to the docs)."""
    import random

    rng = random.Random(5)
    build, decide, feed, commit, commit_prebuilt = [], [], [], [], []
    feed_rounds: list[list[float]] = [[] for _ in range(FEED_ROUNDS)]
    texts = BUSY + busiest(2 if quick else 5)
    moves = []
    for text in texts:
        pos = GAME.parse_position(text)
        view = Reconciler(GAME, LAYOUT, GAME.parse_position(text)).view
        for _ in range(3 if quick else 5):
            t0 = time.process_time()
            PositionIndex(view, pos)
            build.append(time.process_time() - t0)
        rec = Reconciler(GAME, LAYOUT, GAME.parse_position(text))
        moves.append(len(rec.index.moves))
        keys = pictures(rec)
        for key in keys:  # the pure decision
            f = frame_of(rec, key, 0.0)
            touched = rec.index.emask & ~mask_of(key)
            t0 = time.process_time()
            rec.decide(f, touched)
            decide.append(time.process_time() - t0)
        # the machine: every picture that commits nothing, then back to the position, in
        # rounds on new Boards (per frame the median over the rounds, as bench_board)
        now = 0.0
        expected = rec.index.expected
        complete = {e.key for e in rec.index.effects}
        frames = []
        for key in keys[::3] if quick else keys:
            if key in complete:
                continue
            for k in (key, expected):
                now += 0.05
                frames.append(frame_of(rec, k, now))
        pos = GAME.parse_position(text)
        rounds = [feed_round(GAME, pos, LAYOUT, frame_of(rec, expected, 0.0), frames)
                  for _ in range(FEED_ROUNDS)]
        for r, times in enumerate(rounds):
            feed_rounds[r] += [t for t in times if t is not None]
        feed += [statistics.median(ts) for ts in zip(*rounds, strict=True) if None not in ts]
        # committing pictures (a sample): the commit builds the next position's index,
        # unless the settle gate's hold already did (Board.preview)
        singles = [i for i, e in enumerate(rec.index.effects)
                   if len(rec.index.by_key.get(e.key, ())) == 1 and not e.must_lift]
        for i in rng.sample(singles, min(4 if quick else 12, len(singles))):
            for prebuilt, out in ((False, commit), (True, commit_prebuilt)):
                gc.collect()  # the benchmark's own garbage, not the commit's (before the
                # Board is built: a collection leaves the caches cold, see bench_board)
                board = Board(GAME, LAYOUT, GAME.parse_position(text))
                board.feed(frame_of(rec, expected, 0.0))
                f = frame_of(rec, rec.index.effects[i].key, 0.05)
                if prebuilt:
                    board.reconciler.preview(rec.index.moves[i])
                t0 = time.process_time()
                board.feed(f)
                out.append(time.process_time() - t0)
                assert len(board.position.moves) == 1
        say(f"{text.split()[0]:<56} {len(rec.index.moves):4d} moves "
            f"{len(rec.index.by_key):4d} pictures")
    return {"positions": len(texts), "moves": (min(moves), max(moves)),
            "build": summary(build), "decide": summary(decide), "feed": summary(feed),
            "feed_rounds_p99": [percentile(xs, 99) * 1e3 for xs in feed_rounds],
            "commit": summary(commit), "commit_prebuilt": summary(commit_prebuilt)}


ROWS = (("build", "index build, once per position"),
        ("decide", "Reconciler.decide, per sensor change"),
        ("feed", "Board.feed, per change (no commit)"),
        ("commit", "Board.feed, commit + next index"),
        ("commit_prebuilt", "Board.feed, commit, index prebuilt in hold"))


def summary(xs: list[float]) -> dict[str, float]:
    return {"n": len(xs), "p50": statistics.median(xs) * 1e3,
            "p99": percentile(xs, 99) * 1e3, "max": max(xs) * 1e3}


def main() -> None:
    result = run()
    print()
    for key, name in ROWS:
        r = result[key]
        print(f"{name:<44} n={r['n']:5d}  p50 {r['p50']:7.3f} ms  "
              f"p99 {r['p99']:7.3f} ms  max {r['max']:7.3f} ms")
        if key == "feed":
            print("  p99 of each round: "
                  + ", ".join(f"{x:.3f} ms" for x in result["feed_rounds_p99"]))
    ok = result["decide"]["p99"] <= 2 and result["feed"]["p99"] <= 2
    print(f"\ngoal p99 <= 2 ms per sensor change (decision and machine): "
          f"{'met' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()
