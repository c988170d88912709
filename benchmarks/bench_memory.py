"""Memory of a long session: the service's heap over many moves (issue 15 #11, issue 20).

Runs the board service in process on the simulated board and plays random legal moves
through the simulated hand (``move_actions``), starting a new game whenever one ends.
After a warm-up it reads the Python heap (``tracemalloc``) every ``--every`` moves and
reports the growth per move; goal: flat (a few bytes per move at most).

    python -m benchmarks.bench_memory [--moves 10000]
"""

from __future__ import annotations

import argparse
import gc
import random
import tempfile
import tracemalloc

from controller.config import Config
from controller.service import BoardService
from controller.web.simulator import move_actions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=10_000)
    parser.add_argument("--warm-up", type=int, default=1_000)
    parser.add_argument("--every", type=int, default=1_000)
    parser.add_argument("--game", default="gnuqi")
    parser.add_argument("--layout", default="square9")
    args = parser.parse_args(argv)
    config = Config()
    config.journal.path = tempfile.mkdtemp()
    config.board.layout, config.board.game = args.layout, args.game
    config.sensing.settle_ms, config.sensing.debounce_ms = 50.0, 5.0
    svc = BoardService(config, seed=1)
    rng = random.Random(1)
    tracemalloc.start()
    samples: list[tuple[int, int]] = []
    played = games = 0
    try:
        svc.sim_action({"action": "arrange"})
        svc.step(0.1)
        while played < args.moves:
            pos = svc.position
            moves = svc.game.legal_moves(pos)
            if not moves or svc.outcome is not None or len(pos.moves) > 150:
                svc.new_game(args.game)
                svc.sim_action({"action": "arrange"})
                svc.step(0.1)
                games += 1
                continue
            move = rng.choice(moves)
            for action in move_actions(svc.game, pos, move, svc.layout):
                svc.sim_action(action)
                svc.step(0.03)
            svc.step(0.25)
            if svc.interaction.phase == "choice":
                labels = svc.choice_labels()
                text = svc.game.move_text(pos, move) if False else None
                svc.answer_choice(0 if text is None else labels.index(text))
                svc.step(0.1)
            played += 1
            if played >= args.warm_up and played % args.every == 0:
                gc.collect()
                samples.append((played, tracemalloc.get_traced_memory()[0]))
                print(f"{played} moves, {games} new games: heap {samples[-1][1] / 1024:.0f} KiB",
                      flush=True)
    finally:
        svc.close()
    if len(samples) >= 2:
        (m0, b0), (m1, b1) = samples[0], samples[-1]
        print(f"| {args.game} | {m1} moves | heap {b0 / 1024:.0f} → {b1 / 1024:.0f} KiB | "
              f"{(b1 - b0) / (m1 - m0):.0f} bytes per move after {m0} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
