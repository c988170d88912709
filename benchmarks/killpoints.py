"""``fairyboard run`` killed at every journal fsync of the scripted game, many times over.

The sweep of ``tests/test_journal_kill_points.py`` (a real process ending itself like
SIGKILL at its N-th fsync; two moves, the Cube handed over, a move, a takeback, a
resignation and a new game from the page, a move), repeated ``--rounds`` times: the page's
timing differs from run to run, the kill points do not.  Prints kills, lost shown moves.

Run: ``python -m benchmarks.killpoints [--rounds 5]`` (the sweep's
helpers are the test's own; ``tests`` is not a package yet).
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

from tests.support.killpoints import FSYNCS, SCRIPT_STATES, _kill_and_resume


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    states = [(0, (), None), *SCRIPT_STATES]
    kills = lost = 0
    started = time.monotonic()
    for _ in range(args.rounds):
        for kill_at in range(1, FSYNCS + 1):
            with tempfile.TemporaryDirectory() as tmp:
                shown, resumed, _ = _kill_and_resume(Path(tmp) / "run", kill_at)
            kills += 1
            step = 0
            for seen in shown:
                if seen != states[step]:
                    step = states.index(seen, step + 1)
            if resumed not in states[step:step + 2]:
                lost += 1
                print(f"kill at fsync {kill_at}: showed {shown[-1:]}, resumed {resumed}")
    print(f"{kills} kills ({FSYNCS} fsync points x {args.rounds} rounds), {lost} lost a "
          f"shown move, {time.monotonic() - started:.0f} s")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
