"""The engine's speed and its tactics: nodes per second per game, mate-in-one sets solved.

* Search speed: the default level searches the starting position and a few seeded
  random-play positions of every game; nodes per second of **process CPU time**.  As a
  yardstick, python-chess's legal-move generation (moves listed per second on the same
  number of random chess positions) is measured in the same run.
* Tactics: every position of ``tests/data/tactics/*.txt`` at level 10 with a 2 s budget;
  solved when the engine plays one of the mating moves.

* The board loop while the computer thinks (``--board``): a person lifts and puts back a
  piece on the simulated chess board again and again while the computer is to move; the
  wall-clock time of every poll of the loop (sensor frame → decision → LEDs) is measured
  with nobody thinking, with the built-in search thinking in its worker process (level
  10: 4 s), and with Stockfish thinking (an external UCI engine, when installed).

* Chess to a fixed depth (``--chess-depth N``): five middlegame and endgame positions
  searched to depth N; nodes and CPU seconds, so changes to the pruning and to the cost
  per node show apart from the load of the machine.
* Where the time goes (``--profile GAME``): cProfile of the speed searches of one game,
  the functions by their own time — the starting point for cutting the search's overhead.

    python -m benchmarks.bench_engine [--quick] [--speed] [--board] [--profile chess]
        [--chess-depth 5]
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from controller.engine import Engine, Limits, Search
from controller.rules import GAMES, get_game

TACTICS = Path(__file__).resolve().parents[1] / "tests" / "data" / "tactics"
SETS = {"kaleidochess-3": ("kaleidochess", {"players": 3})}


def positions(game, count: int, seed: int) -> list:
    rng = random.Random(seed)
    out = [game.start()]
    while len(out) < count:
        pos = game.start()
        for _ in range(rng.randint(6, 40)):
            moves = game.legal_moves(pos)
            if not moves:
                break
            pos.push(rng.choice(moves))  # a die's roll too: the dice variant plays on
        if game.legal_moves(pos):
            out.append(pos)
    return out


def search_speed(name: str, count: int) -> tuple[float, int]:
    game = get_game(name)
    nodes = 0
    cpu = 0.0
    for pos in positions(game, count, 1):
        search = Search(game, clock=time.process_time)  # CPU time: the machine is shared
        t = time.process_time()
        result = search.best_move(pos, Limits(depth=3, movetime=5.0))
        cpu += time.process_time() - t
        nodes += result.nodes
    return nodes / cpu, nodes


#: positions for --chess-depth: open game, Queen's Gambit, a sharp middlegame (a well-known
#: perft position), a quiet middlegame, a Rook ending
CHESS_POSITIONS = (
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "2r3k1/pp3ppp/2n1b3/q2p4/3P4/P1NQ1N2/1P3PPP/R4RK1 w - - 0 18",
    "8/5pk1/6p1/3R4/8/6P1/5PK1/2r5 w - - 0 40",
)


def chess_depth(depth: int) -> tuple[int, float]:
    """Nodes and CPU seconds to search ``CHESS_POSITIONS`` to ``depth`` (fresh tables)."""
    game = get_game("chess")
    nodes, cpu = 0, 0.0
    for text in CHESS_POSITIONS:
        t = time.process_time()
        nodes += Search(game).best_move(game.parse_position(text), Limits(depth=depth)).nodes
        cpu += time.process_time() - t
    return nodes, cpu


def chess_yardstick(count: int) -> float:
    """python-chess: legal moves listed per second of CPU time (test-only, GPL)."""
    import chess

    rng = random.Random(1)
    boards = []
    for _ in range(count):
        b = chess.Board()
        for _ in range(rng.randint(6, 40)):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(rng.choice(moves))
        boards.append(b)
    t = time.process_time()
    listed = 0
    for _ in range(20):
        for b in boards:
            listed += len(list(b.legal_moves))
    return listed / (time.process_time() - t)


def tactics(name: str, limit: int | None, movetime: float) -> tuple[int, int, float]:
    game_name, options = SETS.get(name, (name, {}))
    game = get_game(game_name, **options)
    lines = (TACTICS / f"{name}.txt").read_text(encoding="utf-8").splitlines()[:limit]
    solved, times = 0, []
    engine = Engine(game, level=10)
    for line in lines:
        text, mating = line.split("\t")
        pos = game.parse_position(text)
        t = time.monotonic()
        move = engine.choose(pos, movetime=movetime).move
        times.append(time.monotonic() - t)
        solved += game.move_text(pos, move) in mating.split()
    return solved, len(lines), max(times)


def board_loop(thinker: str, seconds: float) -> list[float]:
    """Seconds per poll of the board loop while ``thinker`` (none, builtin, stockfish)
    thinks for Black and White lifts and replaces a piece (chess, after 1. e4)."""
    import shutil
    import tempfile

    from controller.config import Config
    from controller.service import BoardService

    config = Config()
    config.journal.path = tempfile.mkdtemp(prefix="fairyboard-bench-engine-")
    config.board.layout, config.board.game = "square8", "chess"
    config.board.simulated_hand_moves = False
    if thinker != "none":
        config.board.computer, config.board.computer_level = ["Black"], 10
    if thinker == "stockfish":
        config.engine.uci_engine = shutil.which("stockfish") or "/usr/games/stockfish"
    svc = BoardService(config)
    samples: list[float] = []
    try:
        svc.sim_action({"action": "arrange"})
        svc.step(0.1)
        for action in ({"action": "lift", "spot": "e2"}, {"action": "place", "spot": "e4"}):
            svc.sim_action(action)
            svc.step(0.05)
        svc.step(0.3)
        period = svc.sensing.period
        ends = time.monotonic() + seconds
        spots = ["a2", "h2", "b1", "g1"]
        i = 0
        while time.monotonic() < ends:
            if thinker != "none" and not svc.opponent.thinking and samples:
                break  # the answer came: the computer no longer thinks
            spot = spots[i % len(spots)]
            i += 1
            for action in ({"action": "lift", "spot": spot}, {"action": "place", "spot": spot}):
                svc.sim_action(action)
                for _ in range(8):  # past the debounce: the frame is decided
                    svc.sim.advance(period)
                    t = time.perf_counter()
                    svc.tick()
                    samples.append(time.perf_counter() - t)
            time.sleep(0.001)  # the live loop sleeps between scans too
    finally:
        svc.close()
    return samples


def board_report(seconds: float) -> None:
    import shutil
    import statistics

    print("| while | polls | p50 (ms) | p99 (ms) | max (ms) |")
    print("|---|---|---|---|---|")
    thinkers = ["none", "builtin"] + (["stockfish"] if shutil.which("stockfish")
                                      or shutil.which("/usr/games/stockfish") else [])
    words = {"none": "nobody thinks", "builtin": "built-in search thinks (worker process)",
             "stockfish": "Stockfish thinks (UCI process)"}
    for thinker in thinkers:
        samples = sorted(board_loop(thinker, seconds))
        p99 = samples[min(len(samples) - 1, int(0.99 * len(samples)))]
        print(f"| {words[thinker]} | {len(samples)} | {statistics.median(samples) * 1e3:.2f} "
              f"| {p99 * 1e3:.2f} | {samples[-1] * 1e3:.2f} |", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--speed", action="store_true",
                        help="only the search speed table (nodes per CPU second)")
    parser.add_argument("--board", action="store_true",
                        help="only the board loop while the computer thinks")
    parser.add_argument("--profile", metavar="GAME",
                        help="only a profile of GAME's speed searches (cProfile)")
    parser.add_argument("--chess-depth", type=int, metavar="N",
                        help="only chess: nodes and CPU time to search five positions to N")
    args = parser.parse_args(argv)
    if args.chess_depth:
        nodes, cpu = chess_depth(args.chess_depth)
        print(f"chess, depth {args.chess_depth}, {len(CHESS_POSITIONS)} positions: "
              f"{nodes:,} nodes, {cpu:.2f} s CPU, {nodes / cpu:,.0f} nodes/s")
        return 0
    if args.profile:
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.runcall(search_speed, args.profile, 3 if args.quick else 8)
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)
        return 0
    if args.board:
        board_report(1.5 if args.quick else 3.5)
        return 0
    count = 3 if args.quick else 8
    print("| game | nodes/s (CPU) | nodes | python-chess moves listed/s |")
    print("|---|---|---|---|")
    yard = chess_yardstick(count * 4)
    for name in GAMES:
        rate, nodes = search_speed(name, count)
        print(f"| {name} | {rate:,.0f} | {nodes:,} | {yard:,.0f} |", flush=True)
    if args.speed:
        return 0
    print()
    print("| tactics set | solved | of | slowest answer (s) |")
    print("|---|---|---|---|")
    for path in sorted(TACTICS.glob("*.txt")):
        solved, total, slowest = tactics(path.stem, 10 if args.quick else None, 2.0)
        print(f"| {path.stem} | {solved} | {total} | {slowest:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
