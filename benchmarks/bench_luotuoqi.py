"""Lùotuoqí move generation speed against python-chess, interleaved, on process CPU time.

Run: ``python -m benchmarks.bench_luotuoqi [--quick]``.  Positions come from seeded random
play (the same seed and ply range as python-chess's comparison set).  Each position's
legal-move listing is timed alternately with a python-chess listing of a random chess
position, over several rounds; the ratio *python-chess time per position ÷ ours* is
printed per round as median (min–max), for every kind of position: all, the mover holds
the Cube, in check (against python-chess positions in check), many Towers (≥ 3 of the
mover's), none of these.  Random play reaches few checks (3 of the 180 positions), so a
second set of positions in check, the first ones met in seeded random games (ours and
python-chess's alike), is timed in the same rounds.  Also the slowest position and perft
leaves per second.
python-chess is a benchmark-only comparison; the product never imports it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from benchmarks.benchtools import chess_perft, chess_random_positions, cpu_per_call, spread
from controller.rules.luotuoqi import Luotuoqi

SEED = 2024
MAX_PLIES = 80
GAME = Luotuoqi()


def random_positions(n: int, seed: int = SEED) -> list[str]:
    """Position texts of ``n`` positions of seeded random Lùotuoqí play (the game not over)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = GAME.start()
        for _ in range(rng.randrange(2, MAX_PLIES)):
            moves = GAME.legal_moves(pos)
            if not moves or GAME.outcome(pos):
                break
            pos.push(rng.choice(moves))
        if GAME.legal_moves(pos):
            out.append(GAME.position_text(pos))
    return out


def kinds_of(text: str) -> list[str]:
    """The kinds of position a Lùotuoqí position belongs to (for the per-kind ratios)."""
    pos = GAME.parse_position(text)
    me = pos.turn
    kinds = ["all"]
    if pos.tokens.get("cube") == me and not pos.state.get("cube_second"):
        kinds.append("cube")
    if GAME.in_check(pos):
        kinds.append("check")
    if sum(1 for p in pos.board if p is not None and p.owner == me and p.kind == "T") >= 3:
        kinds.append("towers")
    if len(kinds) == 1:
        kinds.append("plain")
    return kinds


def check_positions(n: int, seed: int = SEED) -> list[str]:
    """Position texts of ``n`` positions in check: the first one (with a move) of each
    seeded random Lùotuoqí game that reaches one."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        pos = GAME.start()
        for _ in range(MAX_PLIES):
            moves = GAME.legal_moves(pos)
            if not moves or GAME.outcome(pos):
                break
            if GAME.in_check(pos):
                out.append(GAME.position_text(pos))
                break
            pos.push(rng.choice(moves))
    return out


def chess_check_positions(n: int, seed: int = SEED) -> list[str]:
    """FENs of ``n`` chess positions in check, found the same way with python-chess."""
    import chess  # benchmark-only comparison

    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        board = chess.Board()
        for _ in range(MAX_PLIES):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over():
                break
            if board.is_check():
                out.append(board.fen())
                break
            board.push(rng.choice(moves))
    return out


KIND_TITLES = {
    "all": "every position",
    "cube": "the mover holds the Cube",
    "check": "in check",
    "towers": "≥ 3 Towers of the mover",
    "plain": "none of these",
    "checks": "in check, the first check of each seeded game",
}


def listing(n: int, rounds: int, repeat: int, checks: int = 0) -> dict:
    """Interleaved listing times: per position our best CPU time and python-chess's (the
    ``n`` positions of random play, then ``checks`` positions in check of each)."""
    import chess

    ours_texts = random_positions(n) + check_positions(checks)
    theirs_fens = chess_random_positions(n, SEED, MAX_PLIES) + chess_check_positions(checks)
    ours_pos = [GAME.parse_position(t) for t in ours_texts]
    boards = [chess.Board(f) for f in theirs_fens]
    total = n + checks
    ours_t = [[0.0] * total for _ in range(rounds)]
    theirs_t = [[0.0] * total for _ in range(rounds)]
    legal = GAME.legal_moves
    for r in range(rounds):
        for i in range(total):
            pos, board = ours_pos[i], boards[i]
            ours_t[r][i] = cpu_per_call(lambda pos=pos: legal(pos), repeat)
            theirs_t[r][i] = cpu_per_call(lambda b=board: list(b.legal_moves), repeat)
    kinds = [kinds_of(t) for t in ours_texts[:n]] + [["checks"]] * checks
    their_check = [i for i, b in enumerate(boards[:n]) if b.is_check()]
    rows = []
    for kind in KIND_TITLES:
        mine = [i for i in range(total) if kind in kinds[i]]
        if not mine:
            continue
        ref = (list(range(n, total)) if kind == "checks" else
               their_check if kind == "check" and their_check else list(range(n)))
        ratios, ours_us, theirs_us = [], [], []
        for r in range(rounds):
            o = statistics.fmean(ours_t[r][i] for i in mine)
            t = statistics.fmean(theirs_t[r][i] for i in ref)
            ratios.append(t / o)
            ours_us.append(o * 1e6)
            theirs_us.append(t * 1e6)
        moves = statistics.fmean(len(legal(ours_pos[i])) for i in mine)
        their_moves = statistics.fmean(boards[i].legal_moves.count() for i in ref)
        rows.append({"kind": kind, "title": KIND_TITLES[kind], "positions": len(mine),
                     "moves": moves, "ours_us": statistics.median(ours_us),
                     "their_positions": len(ref), "their_moves": their_moves,
                     "theirs_us": statistics.median(theirs_us), "ratios": ratios,
                     "per_move": [r * moves / their_moves for r in ratios]})
    best = [min(ours_t[r][i] for r in range(rounds)) for i in range(total)]
    worst = max(range(total), key=best.__getitem__)
    return {"rows": rows, "worst_us": best[worst] * 1e6, "worst_text": ours_texts[worst],
            "worst_moves": len(legal(ours_pos[worst])), "rounds": rounds}


def in_game_order(games: int, plies: int) -> dict:
    """Every position of seeded random games listed once, in the order of play (nothing
    listed twice: no table can be warmed by the position itself), ours and python-chess's
    (random chess games), game by game; CPU time per listing."""
    import chess

    rng, their_rng = random.Random(SEED), random.Random(SEED)
    ours = theirs = 0.0
    n = their_n = 0
    clock = time.process_time
    for _ in range(games):
        pos = GAME.start()
        for _ in range(plies):
            t0 = clock()
            moves = GAME.legal_moves(pos)
            ours += clock() - t0
            n += 1
            if not moves or GAME.outcome(pos) is not None:
                break
            pos.push(rng.choice(moves))
        board = chess.Board()
        for _ in range(plies):
            t0 = clock()
            their_moves = list(board.legal_moves)
            theirs += clock() - t0
            their_n += 1
            if not their_moves or board.is_game_over():
                break
            board.push(their_rng.choice(their_moves))
    return {"games": games, "positions": n, "ours_us": ours / n * 1e6,
            "their_positions": their_n, "theirs_us": theirs / their_n * 1e6,
            "ratio": (theirs / their_n) / (ours / n)}


def perft(rounds: int, quick: bool) -> dict:
    """Leaves per second: perft(3) from our start vs python-chess perft(4) from its start,
    interleaved; the ratio per round."""
    import chess

    ours_depth, their_depth = (2, 3) if quick else (3, 4)
    ratios, ours_rate, their_rate = [], [], []
    for _ in range(rounds):
        pos = GAME.start()
        t0 = time.process_time()
        nodes = GAME.perft(pos, ours_depth)
        t1 = time.process_time()
        cnodes = chess_perft(chess.Board(), their_depth)
        t2 = time.process_time()
        ours_rate.append(nodes / (t1 - t0))
        their_rate.append(cnodes / (t2 - t1))
        ratios.append(ours_rate[-1] / their_rate[-1])
    return {"ours_depth": ours_depth, "ours_nodes": nodes,
            "ours_rate": statistics.median(ours_rate),
            "their_depth": their_depth, "their_nodes": cnodes,
            "their_rate": statistics.median(their_rate), "ratios": ratios}


def run(quick: bool = False) -> dict:
    """Every figure of this benchmark (``benchmarks.run_all`` writes them to the docs)."""
    n, rounds, repeat, checks = (60, 3, 2, 20) if quick else (180, 5, 5, 60)
    return {"listing": listing(n, rounds, repeat, checks),
            "perft": perft(3 if not quick else 2, quick),
            "games": in_game_order(10 if quick else 40, MAX_PLIES)}


def report(result: dict) -> None:
    lst = result["listing"]
    print(f"legal-move listing, CPU time, {lst['rounds']} interleaved rounds; ratio = "
          "python-chess time per position / ours, median (min–max) over rounds")
    print(f"  {'kind':<26} {'positions':>9} {'moves':>6} {'ours µs':>8} "
          f"{'chess moves':>11} {'chess µs':>8}  {'ratio':<18} per listed move")
    for row in lst["rows"]:
        print(f"  {row['title']:<26} {row['positions']:>9} {row['moves']:>6.1f} "
              f"{row['ours_us']:>8.1f} {row['their_moves']:>11.1f} {row['theirs_us']:>8.1f}  "
              f"{spread(row['ratios']):<18} {spread(row['per_move'])}")
    print(f"  slowest position: {lst['worst_us']:.0f} µs, {lst['worst_moves']} moves: "
          f"{lst['worst_text']}")
    g = result["games"]
    print(f"  {g['games']} seeded random games, every position listed once in the order of "
          f"play: {g['positions']} positions, {g['ours_us']:.1f} µs per listing; python-chess "
          f"({g['their_positions']} positions) {g['theirs_us']:.1f} µs; ratio {g['ratio']:.2f}")
    p = result["perft"]
    print(f"perft({p['ours_depth']}) from the start: {p['ours_nodes']} leaves, "
          f"{p['ours_rate']:,.0f} leaves/s; python-chess perft({p['their_depth']}): "
          f"{p['their_nodes']} leaves, {p['their_rate']:,.0f} leaves/s; "
          f"ratio {spread(p['ratios'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer positions and rounds")
    report(run(parser.parse_args().quick))


if __name__ == "__main__":
    main()
