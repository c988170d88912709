"""A power cut at a journal fsync, simulated: what was written since the file's last fsync
is lost — all of it, a torn part of it, or none — and a game file whose folder entry was
never synced may vanish.  The restarted service must resume every move the page showed.

The game is the one of ``test_journal_kill_points.py`` (a Cube hand-over, a takeback, a
resignation, a new game), played in process on the simulated board.  These tests cut at a
few telling points; ``benchmarks/powercut.py`` sweeps every fsync with every variant.
"""

from __future__ import annotations

import pytest

from tests.support.powercut import (
    check,
    cut_and_resume,
)


@pytest.mark.parametrize("cut_at,torn,vanish", [
    (1, 0.0, True),    # the first game's file made, its folder entry not synced
    (5, 0.5, False),   # the Cube hand-over (one amend record) torn
    (9, 0.0, True),    # the new game's file vanishes: the resigned game stays finished
    (10, 0.0, False),  # the new game's start record lost: an empty file, quarantined
])
def test_a_power_cut_loses_no_shown_move(tmp_path, cut_at, torn, vanish):
    shown, resumed, again = cut_and_resume(tmp_path, cut_at, torn, vanish)
    try:
        check(shown, resumed)
        if (cut_at, vanish) == (10, False):
            assert any("empty journal file" in p for p in again.journal_problems)
    finally:
        again.close()
