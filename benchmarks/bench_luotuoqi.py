"""Lùotuoqí move generation speed, compared with python-chess on chess positions of similar size.

Run: ``python benchmarks/bench_luotuoqi.py``.  Prints, in one run: legal-move listing time
for the start position and five busy middle games, perft nodes per second, and python-chess's
time for the same job on comparable chess positions, as a ratio (>1 means we are faster).
python-chess is a benchmark-only comparison; the product never imports it.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchtools import chess_perft, per_call  # noqa: E402

from controller.rules.luotuoqi import Luotuoqi  # noqa: E402

POSITIONS = {
    "start": "rmdt8kdmr/eeeeeeee/8/8/8/8/EEEEEEEE/RMDT8KDMR w KQkq b 0 1",
    "towers": "r1d1k2r/e1et32e1/1eT22m2/3e1E2/2D1T32e/1E3t22/E1E1E1E1/R3K1MR w KQkq b 0 12",
    "open": "r3k2r/8/2t21t33/8/3D4/8/2T21T33/R3K2R w KQkq b* 0 20",
    "bypassers": "r3k2r/e1e2e1e/2m2m2/1D4d1/1d4D1/2M2M2/E1E2E1E/R3K2R w KQkq w 0 15",
    "cube-turn": "r1d1k2r/eee2eee/2m1t33/3e4/3E4/2M1T33/EEE2EEE/R1D1K2R w KQkq w 0 10",
    "endgame": "4k3/2e2e2/1t44T11/3D4/4d3/1T44t21/2E2E2/4K3 w - - 0 40",
}
# Chess positions with a similar number of moves (python-chess, for the ratio).
CHESS = {
    "start": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "towers": "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
    "open": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "bypassers": "r2q1rk1/pp2ppbp/2p2np1/6B1/3PP1b1/Q1P2N2/P4PPP/3RKB1R b K - 0 13",
    "cube-turn": "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "endgame": "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
}




def main() -> None:
    import chess  # benchmark-only comparison

    game = Luotuoqi()
    print(f"{'position':<10} {'moves':>5} {'ours µs':>9} {'chess moves':>11} "
          f"{'python-chess µs':>15} {'ratio':>6} {'per-move ratio':>14}")
    ratios, per_move = [], []
    for name, text in POSITIONS.items():
        pos = game.parse_position(text)
        n = len(game.legal_moves(pos))
        ours = per_call(lambda pos=pos: game.legal_moves(pos))
        board = chess.Board(CHESS[name])
        cn = board.legal_moves.count()
        theirs = per_call(lambda board=board: list(board.legal_moves))
        ratio = theirs / ours
        ratios.append(ratio)
        pm = (theirs / cn) / (ours / n)
        per_move.append(pm)
        print(f"{name:<10} {n:>5} {ours * 1e6:>9.1f} {cn:>11} {theirs * 1e6:>15.1f} {ratio:>6.2f}"
              f" {pm:>14.2f}")
    print(f"geometric-mean ratio (python-chess time / ours): "
          f"{statistics.geometric_mean(ratios):.2f}; per listed move: "
          f"{statistics.geometric_mean(per_move):.2f}")
    print("(cube-turn and bypassers: the side to move holds the Cube, so every quiet move is"
          " also checked for check and for a legal second move)")

    pos = game.start()
    t0 = time.perf_counter()
    nodes = game.perft(pos, 3)
    ours = time.perf_counter() - t0
    board = chess.Board()


    t0 = time.perf_counter()
    cnodes = chess_perft(board, 4)
    theirs = time.perf_counter() - t0
    print(f"perft(3) luotuoqi start: {nodes} nodes in {ours:.2f} s = {nodes / ours:,.0f} nodes/s")
    print(f"perft(4) chess start (python-chess): {cnodes} nodes in {theirs:.2f} s = "
          f"{cnodes / theirs:,.0f} nodes/s; ratio {(nodes / ours) / (cnodes / theirs):.2f}")


if __name__ == "__main__":
    main()
