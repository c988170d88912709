"""Lao Tzu Chess on the board: what hidden information costs per commit and per sensor
change.

For each position (midgame positions of seeded random games, with pieces in hand) the
figures are: the player's view (``view``), the moves he may try (``board_moves``, built
from the view), the position index over them (built once per committed move, in the
settle gate's hold when a slide previews), and the latency of one sensor change through
the whole ``Board`` (decision, hints, the fogged Interaction): a piece lifted and put
down again.

Goal (interaction.md): LED reaction well under 100 ms; a commit "immediately".  Run:
``python3 benchmarks/bench_board_laotzu.py``.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchtools import per_call  # noqa: E402

from controller.board import Board  # noqa: E402
from controller.layout import load_layout  # noqa: E402
from controller.reconcile import PositionIndex, SensorView  # noqa: E402
from controller.rules.laotzu import LaoTzu, view  # noqa: E402
from controller.sensing.frame import Frame  # noqa: E402

LAYOUT = load_layout("square8")
N = len(LAYOUT.spots)


def positions(count: int = 8) -> list:
    out = []
    for seed in range(count):
        game = LaoTzu(seed=seed)
        rng = random.Random(seed)
        pos = game.start()
        for _ in range(30 + seed * 3):
            moves = game.legal_moves(pos)
            if not moves:
                break
            captures = [m for m in moves if m.captures or m.kind == "drop"]
            pos.push(rng.choice(captures if captures and rng.random() < 0.5 else moves))
        if game.outcome(pos) is None:
            out.append(game.parse_position(game.position_text(pos)))
    return out


def frame(pos, lifted: int | None, t: float) -> Frame:
    occ = [False] * N
    for c, p in enumerate(pos.board):
        occ[c] = p is not None
    for owner, hand in enumerate(pos.hands):
        for kind, n in hand.items():
            occ[LAYOUT.spot_index(LAYOUT.pad("hand", owner, kind).name)] = n > 0
    if lifted is not None:
        occ[lifted] = False
    return Frame(t, tuple(occ), (None,) * N, (None,) * N)


def main() -> None:
    pos_list = positions()
    sensor = SensorView(pos_list[0].game, LAYOUT)
    rows = []
    latencies = []
    for pos in pos_list:
        game = pos.game
        t_view = per_call(lambda p=pos: view(p, p.turn), 0.1)
        t_moves = per_call(lambda g=game, p=pos: g.board_moves(p), 0.1)
        t_legal = per_call(lambda g=game, p=pos: g.legal_moves(p), 0.1)
        t_index = per_call(lambda p=pos: PositionIndex(sensor, p), 0.2)
        board = Board(game, LAYOUT, pos)
        t = 0.0
        board.feed(frame(pos, None, t))
        own = [c for c, p in enumerate(pos.board) if p is not None and p.owner == pos.turn]
        for c in own:
            for lifted in (c, None):
                t += 1.0
                f = frame(pos, lifted, t)
                t0 = time.perf_counter()
                board.feed(f)
                latencies.append(time.perf_counter() - t0)
        rows.append((len(game.legal_moves(pos)), len(game.board_moves(pos)),
                     t_view, t_legal, t_moves, t_index))
    print("Lao Tzu on the board (square8): per position, times in ms")
    print(f"{'legal':>6} {'tries':>6} {'view':>7} {'legal':>7} {'tries':>7} {'index':>7}")
    for legal, tries, tv, tl, tm, ti in rows:
        print(f"{legal:>6} {tries:>6} {tv * 1e3:>7.3f} {tl * 1e3:>7.3f} {tm * 1e3:>7.3f} "
              f"{ti * 1e3:>7.2f}")
    latencies.sort()
    p99 = latencies[int(0.99 * (len(latencies) - 1))]
    print(f"sensor change through the Board (lift / put back, {len(latencies)} changes): "
          f"median {statistics.median(latencies) * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms, "
          f"max {latencies[-1] * 1e3:.2f} ms")
    print(f"index per commit: median {statistics.median(r[5] for r in rows) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
