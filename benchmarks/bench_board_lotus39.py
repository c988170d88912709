"""Lotus-39 on its board: reconciler and state machine latency with linear-hall frames,
and the cost of a whole game on the running board service.

Positions: both starting positions and every fifth position of seeded driven games
(tests/test_board_lotus39.py's driver).  For every legal move the pictures a player
produces are replayed as analog frames (occupancy, stack class, polarity): the moving
piece in the hand (a Pawn off the stack: the cell still occupied, its class one lower;
the Knight off its reserve pad), the move complete.  Each is decided by
``Reconciler.decide`` and fed to a ``Board``.  Then a whole game per variant is played on
``BoardService`` (simulated board, the layout's gpio-analog scanner at 50 Hz) by
simulator actions, and its wall time per ply is printed.

Goal: p99 <= 2 ms per sensor change.  Latencies are the thread's CPU time
(``time.thread_time``): on a shared machine the wall clock's p99 is the scheduler's
time slice, not the work.  Run: ``python3 benchmarks/bench_board_lotus39.py``.
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchtools import percentile  # noqa: E402

from controller.board import Board  # noqa: E402
from controller.config import Config  # noqa: E402
from controller.layout import load_layout  # noqa: E402
from controller.reconcile import PositionIndex, Reconciler  # noqa: E402
from controller.rules import get_game  # noqa: E402
from controller.rules.core import Position  # noqa: E402
from controller.sensing.frame import Frame  # noqa: E402
from controller.service import BoardService  # noqa: E402
from controller.web.simulator import move_actions  # noqa: E402
from controller.web.state import position_objects  # noqa: E402

LAYOUT = load_layout("lotus39")
N = len(LAYOUT.spots)
GAMES = [get_game("lotus39"), get_game("lotus39-modern")]
CLOCK = time.thread_time


def driven(game, seed: int, limit: int = 200) -> list[Position]:
    """Positions of a seeded game: captures, promotions and the reserve Knight favoured."""
    rng = random.Random(seed)
    pos = game.start()
    out = [pos.copy()]
    while pos.outcome() is None and len(pos.moves) < limit:
        moves = game.legal_moves(pos)
        special = [m for m in moves if m.promotion or m.kind == "place" or m.captures]
        pos.push(rng.choice(special) if special and rng.random() < 0.6 else rng.choice(moves))
        if len(pos.moves) % 5 == 0:
            out.append(pos.copy())
    return out


def piles(game, pos: Position) -> list[list[str]]:
    out: list[list[str]] = [[] for _ in range(N)]
    for spot, names in position_objects(game, pos, LAYOUT).items():
        out[spot] = list(names)
    return out


def frame_of(p: list[list[str]], t: float) -> Frame:
    """What ideal linear halls read for these piles."""
    return Frame(t, tuple(bool(x) for x in p), tuple(min(3, len(x)) for x in p),
                 tuple(0 if not x else -1 if x[-1].startswith("black") else 1 for x in p))


def pictures(game, pos: Position) -> list[list[list[str]]]:
    """Per legal move: the moving piece in the hand, then the move done."""
    before = piles(game, pos)
    out = []
    for m in game.legal_moves(pos):
        hand = [list(x) for x in before]
        if m.origin >= 0:
            hand[m.origin] = hand[m.origin][:-1]  # one Pawn of a stack, or the piece
        else:
            pad = LAYOUT.spot_index(LAYOUT.pad("reserve", pos.turn, "N").name)
            hand[pad] = hand[pad][:-1]
        out.append(hand)
        pos.push(m, record=False)
        out.append(piles(game, pos))
        pos.pop()
    return out


def row(name: str, xs: list[float]) -> None:
    ms = [x * 1e3 for x in xs]
    print(f"{name:<44} n={len(ms):5d}  p50 {statistics.median(ms):7.3f} ms  "
          f"p99 {percentile(ms, 99):7.3f} ms  max {max(ms):7.3f} ms")


def latency() -> bool:
    build, decide, feed = [], [], []
    for game in GAMES:
        positions = [p for seed in range(3) for p in driven(game, seed)]
        for pos in positions:
            rec = Reconciler(game, LAYOUT, pos.copy())
            for _ in range(3):
                t0 = CLOCK()
                PositionIndex(rec.view, rec.pos)
                build.append(CLOCK() - t0)
            shots = pictures(game, rec.pos)
            for k, p in enumerate(shots):
                f = frame_of(p, 0.0)
                t0 = CLOCK()
                rec.decide(f, rec.lifted(f))
                decide.append(CLOCK() - t0)
                if k % 2:
                    continue  # the machine: the lifted pictures (a complete one commits)
                board = Board(game, LAYOUT, pos.copy())
                board.feed(frame_of(piles(game, pos), 0.0))
                gc.collect()  # the garbage of the Boards built here, not of the feed
                t0 = CLOCK()
                board.feed(frame_of(p, 0.05))
                feed.append(CLOCK() - t0)
        print(f"{game.name:<16} {len(positions):4d} positions")
    print()
    row("index build, once per position", build)
    row("Reconciler.decide, per sensor change", decide)
    row("Board.feed, per change (no commit)", feed)
    return percentile(decide, 99) <= 2e-3 and percentile(feed, 99) <= 2e-3


def whole_game(name: str, seed: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        config = Config()
        config.journal.path = folder
        config.board.layout = "lotus39"
        config.board.game = name
        config.sensing.scan_hz = 50.0
        svc = BoardService(config, seed=1)
        try:
            svc.sim_action({"action": "arrange"})
            svc.step(0.2)
            rng = random.Random(seed)
            sim0, t0 = svc.sim.now, time.perf_counter()
            while svc.outcome is None:
                game, pos = svc.game, svc.position
                moves = game.legal_moves(pos)
                special = [m for m in moves if m.promotion or m.kind == "place" or m.captures]
                move = rng.choice(special) if special and rng.random() < 0.6 else rng.choice(
                    moves)
                before = len(svc.plies)
                for action in move_actions(game, pos, move, svc.layout):
                    svc.sim_action(action)
                    svc.step(0.06)
                    if svc.interaction.phase == "choice" and len(svc.plies) == before:
                        svc.answer_choice(svc.choice_labels().index(game.move_text(pos, move)))
                svc.step(0.2)
                assert len(svc.plies) == before + 1
            wall, simulated, plies = time.perf_counter() - t0, svc.sim.now - sim0, len(svc.plies)
        finally:
            svc.close()
    print(f"{name:<16} seed {seed}: {plies:3d} plies to {svc.outcome.reason:<10} "
          f"{wall / plies * 1e3:6.1f} ms wall per ply, {simulated / plies:4.2f} s board time "
          f"per ply ({simulated / wall:5.1f}x real time)")


def main() -> None:
    ok = latency()
    print(f"\ngoal p99 <= 2 ms per sensor change (decision and machine): "
          f"{'met' if ok else 'MISSED'}\n")
    for name in ("lotus39", "lotus39-modern"):
        whole_game(name, 1)


if __name__ == "__main__":
    main()
