"""Power cuts at every journal fsync of a scripted game, every way the disk may keep it.

For each fsync point of the game of ``tests/test_journal_powercut.py`` (two moves, the Cube
handed over, a move, a takeback, a resignation and a new game from the page, a move) and
each variant — the bytes written since the file's last fsync lost, torn at 1/4, 1/2, 3/4, or
all kept; a game file whose folder entry was never synced vanishing or staying — the
service is cut off, the disk left as described, the service restarted, and the resumed game
compared with what the page showed.  Prints runs, lost shown moves and quarantined files.

Run: ``python -m benchmarks.powercut`` (the helpers are the test's own;
``tests`` is not a package yet).
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from pathlib import Path

from tests.support.killpoints import FSYNCS
from tests.support.powercut import STATES, check, cut_and_resume


def main() -> int:
    logging.disable(logging.WARNING)
    started = time.process_time()
    runs = lost = quarantined = 0
    for cut_at in range(1, FSYNCS + 2):  # the last one: no cut at all
        for torn in (0.0, 0.25, 0.5, 0.75, 1.0):
            for vanish in (False, True):
                with tempfile.TemporaryDirectory() as tmp:
                    shown, resumed, again = cut_and_resume(Path(tmp), cut_at, torn, vanish)
                    quarantined += len(again.journal_problems)
                    again.close()
                runs += 1
                try:
                    check(shown, resumed)
                    if cut_at > FSYNCS:
                        assert resumed == STATES[-1]
                except AssertionError as exc:
                    lost += 1
                    print(f"cut at fsync {cut_at}, torn {torn}, vanish {vanish}: {exc}")
    print(f"{runs} power cuts ({FSYNCS} fsync points x 10 disk variants + uncut), "
          f"{lost} lost a shown move, {quarantined} files quarantined on restart, "
          f"{time.process_time() - started:.1f} s CPU")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
