"""Every game's legal-move listing and perft against python-chess, interleaved, CPU time.

Run: ``python -m benchmarks.bench_rules [--quick] [--game G ...]``.  For each game, the
positions of seeded random play (the game not over) are listed alternately with
python-chess listing positions of seeded random chess play (same seed and ply range),
position by position, over several rounds; *ratio* = python-chess time per position ÷
ours, per round, printed as median (min–max) over the rounds; *per listed move* scales it
by the moves each side lists.  Perft from the start position: leaves per second against
python-chess perft from the chess start, interleaved, per round.  Process CPU time
throughout.  python-chess is a benchmark-only comparison; the product never imports it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from benchmarks.benchtools import chess_perft, chess_random_positions, cpu_per_call, spread
from controller.rules import get_game
from controller.rules.core import Game, Position

SEED = 2024
MAX_PLIES = 80
#: label -> (registered game, options, perft depth, quick perft depth)
GAMES: dict[str, tuple[str, dict, int, int]] = {
    "Lùotuoqí": ("luotuoqi", {}, 3, 2),
    "Lao Tzu Chess": ("laotzu", {"white_array": 518, "black_array": 518}, 4, 3),
    "Gnu Qi": ("gnuqi", {}, 3, 2),
    "KaleidoChess (2 players)": ("kaleidochess", {}, 2, 2),
    "KaleidoChess (4 players)": ("kaleidochess", {"players": 4}, 2, 2),
    "Lotus-39": ("lotus39", {}, 4, 3),
    "Chess": ("chess", {}, 4, 3),
}


def random_positions(game: Game, n: int, seed: int = SEED) -> list[Position]:
    """``n`` positions of seeded random play, each with a legal move and the game on."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = game.start()
        for _ in range(rng.randrange(2, MAX_PLIES)):
            moves = game.legal_moves(pos)
            if not moves:
                break
            pos.push(rng.choice(moves))
            if game.outcome(pos) is not None or not game.legal_moves(pos):
                pos.pop()
                break
        out.append(game.parse_position(game.position_text(pos)))
    return out


def listing(game: Game, boards: list, n: int, rounds: int, repeat: int) -> dict:
    """Our listing and python-chess's, position by position, interleaved."""
    ours_pos = random_positions(game, n)
    legal = game.legal_moves
    ours = [[0.0] * n for _ in range(rounds)]
    theirs = [[0.0] * n for _ in range(rounds)]
    for r in range(rounds):
        for i in range(n):
            pos, board = ours_pos[i], boards[i]
            ours[r][i] = cpu_per_call(lambda pos=pos: legal(pos), repeat)
            theirs[r][i] = cpu_per_call(lambda b=board: list(b.legal_moves), repeat)
    moves = statistics.fmean(len(legal(p)) for p in ours_pos)
    their_moves = statistics.fmean(b.legal_moves.count() for b in boards)
    ratios = [sum(theirs[r]) / sum(ours[r]) for r in range(rounds)]
    best = [min(ours[r][i] for r in range(rounds)) for i in range(n)]
    return {"positions": n, "moves": moves, "their_moves": their_moves,
            "ours_us": statistics.median(statistics.fmean(o) for o in ours) * 1e6,
            "theirs_us": statistics.median(statistics.fmean(t) for t in theirs) * 1e6,
            "ratios": ratios, "per_move": [r * moves / their_moves for r in ratios],
            "worst_us": max(best) * 1e6}


def perft(game: Game, depth: int, their_depth: int, rounds: int) -> dict:
    """Leaves per second from the start, ours and python-chess's, interleaved."""
    import chess

    ratios, ours_rate, their_rate = [], [], []
    nodes = cnodes = 0
    for _ in range(rounds):
        t0 = time.process_time()
        nodes = game.perft(game.start(), depth)
        t1 = time.process_time()
        cnodes = chess_perft(chess.Board(), their_depth)
        t2 = time.process_time()
        ours_rate.append(nodes / (t1 - t0))
        their_rate.append(cnodes / (t2 - t1))
        ratios.append(ours_rate[-1] / their_rate[-1])
    return {"depth": depth, "nodes": nodes, "rate": statistics.median(ours_rate),
            "their_depth": their_depth, "their_nodes": cnodes,
            "their_rate": statistics.median(their_rate), "ratios": ratios}


def run(quick: bool = False, only: list[str] | None = None) -> dict:
    """Every figure (``benchmarks.run_all`` writes them to the docs)."""
    import chess

    n, rounds, repeat = (40, 3, 2) if quick else (180, 5, 5)
    boards = [chess.Board(f) for f in chess_random_positions(n, SEED, MAX_PLIES)]
    out = {}
    for label, (name, options, depth, quick_depth) in GAMES.items():
        if only and name not in only:
            continue
        game = get_game(name, **options)
        out[label] = {"listing": listing(game, boards, n, rounds, repeat),
                      "perft": perft(game, quick_depth if quick else depth,
                                     3 if quick else 4, 2 if quick else 3)}
    return out


def report(result: dict) -> None:
    print("legal-move listing (CPU time; ratio = python-chess time per position / ours, "
          "median (min–max) over interleaved rounds)")
    print(f"  {'game':<26} {'moves':>6} {'ours µs':>8} {'chess µs':>8}  {'ratio':<18} "
          f"{'per listed move':<18} slowest µs")
    for label, r in result.items():
        li = r["listing"]
        print(f"  {label:<26} {li['moves']:>6.1f} {li['ours_us']:>8.1f} {li['theirs_us']:>8.1f}"
              f"  {spread(li['ratios']):<18} {spread(li['per_move']):<18} {li['worst_us']:.0f}")
    print("perft from the start (leaves per second; python-chess perft from the chess start)")
    for label, r in result.items():
        p = r["perft"]
        print(f"  {label:<26} perft({p['depth']}) = {p['nodes']:>8}: {p['rate']:>10,.0f}/s; "
              f"python-chess perft({p['their_depth']}) {p['their_rate']:>10,.0f}/s; "
              f"ratio {spread(p['ratios'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer positions and rounds")
    parser.add_argument("--game", action="append", help="registered game name (repeatable)")
    args = parser.parse_args()
    report(run(args.quick, args.game))


if __name__ == "__main__":
    main()
