"""How long a builder places pieces to bring up square8 (issue #16: under 5 minutes).

Runs the self-test with the timings ``fairyboard selftest`` uses on hardware
(``controller.bringup``: settle, poll, time-out) on the emulated Pi matrix, with a
simulated builder who needs ``--move`` seconds to put a piece where the board lights it
and to answer a question (the LED walk asks three on a good board).  The simulated time
the walk took is the estimate.

    python -m benchmarks.bench_bringup [--layout square8] [--move 1.5]
"""

from __future__ import annotations

import argparse
import time

from controller import bringup
from controller.layout import load_layout
from controller.sensing.ledcheck import Question
from controller.sensing.selftest import self_test
from controller.sensing.sim import SimulatedBoard, SimulatedSensing

GOAL_S = 300.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", default="square8")
    parser.add_argument("--move", type=float, default=1.5,
                        help="seconds the builder needs per piece or answer")
    args = parser.parse_args(argv)
    layout = load_layout(args.layout)
    board = SimulatedBoard(layout)
    with SimulatedSensing(board, "gpio-matrix" if layout.sensing == "matrix"
                          else "gpio-shift-bitbang", period_s=0.01) as rig:
        board.advance(0.1)
        start_s = board.now

        def instruct(action: str, spots: tuple[int, ...]) -> None:
            # the builder's hands: lifting one piece is part of moving it to the next spot
            if action != "lift" or len(spots) > 1:
                board.advance(args.move * max(1, len(spots)))
            board.follow(action, spots)

        def look(question: Question) -> str:
            board.advance(args.move)  # the builder looks and answers (Enter: as built)
            return question.expected

        wall = time.perf_counter()
        report = self_test(layout, lambda: rig.stable, lambda colours: None, instruct,
                           board.advance, walk_s=bringup.LED_WALK_S + 0.004,
                           settle_s=bringup.SELFTEST_SETTLE_S,
                           timeout_s=bringup.SELFTEST_TIMEOUT_S,
                           poll_s=bringup.SELFTEST_POLL_S, diode_check=True, look=look)
        took = board.now - start_s
    print(f"{layout.name}: self-test of {report.checked} spots and {report.leds_walked} LEDs "
          f"takes {took:.0f} s ({took / 60:.1f} min) with {args.move:g} s a move "
          f"(goal {GOAL_S / 60:.0f} min): {'ok' if took <= GOAL_S else 'TOO SLOW'}; "
          f"simulated in {time.perf_counter() - wall:.1f} s; {report.text().splitlines()[-1]}")
    return 0 if took <= GOAL_S and report.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
