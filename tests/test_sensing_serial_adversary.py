"""The serial adversary over a real pseudo-terminal, short (issue 37, Found 5): drop, dup,
reorder, flip, truncate, replay, forged near and far numbers, a previous boot's frames,
floods, and firmware restarts — 0 fabricated frames, every quiet period ending with the
host's picture the board's, phantoms of CRC-valid forgeries at most 5 s.  The long run is
``python -m benchmarks.serial_adversary``."""

from __future__ import annotations

from tests.support.serial_adversary import KINDS, run_adversary


def test_the_serial_adversary_fabricates_nothing_and_phantoms_end_within_5_s():
    run = run_adversary(80, seed=2, rate=0.3)
    assert all(run.attacks[kind] > 0 for kind in KINDS), run.attacks
    assert run.fabricated == 0, run
    assert run.quiet_wrong == 0, run
    assert run.worst_phantom_s <= 5.0, run.phantoms
    assert run.quiet_periods >= 10 and run.restarts >= 1, run
