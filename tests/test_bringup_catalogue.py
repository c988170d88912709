"""The fault catalogue's cases that are named in one place of the summary (issue #31):
each seeded into the board's emulation and the self-test run as ``fairyboard selftest``
runs it (benchmarks/bench_fault_catalogue.py runs every case on every board)."""

from __future__ import annotations

import pytest

from benchmarks.bench_fault_catalogue import FAULT_LINES, catalogue, run_calibrate, run_case
from controller.layout import load_layout


def _case(board: str, name: str):
    layout = load_layout(board)
    cases, _missing = catalogue(layout)
    return layout, next(c for c in cases if c.name == name)


@pytest.mark.parametrize("board, name", [
    ("square8", "one diode reversed"),           # on an anchor: read as nine shorted rows
    ("square8", "two columns shorted"),          # across the anchors: cascaded
    ("square8", "two LEDs swapped"),             # an anchor's LED: read as ghosts
    ("square9", "two chain inputs swapped"),
    ("square9", "a chip's QH→DS link open"),     # six chips each "reads nothing"
    ("square9", "the last chip's QH→DS link open"),  # "U20 reads nothing (chip, …)"
    ("square9", "two sensors' outputs shorted together"),  # "H and G shorted"
    ("square9", "the sensors' supply off"),
    ("lotus39", "the sensors' supply off"),      # raw voltages: all 0 V
    ("kaleido89", "LED chain wired from the far end"),
    ("square9", "LEDs on a 3.3 V supply"),
])
def test_the_fault_is_named_in_a_few_lines(board, name):
    layout, case = _case(board, name)
    verdict, text = run_case(layout, case)
    assert verdict == "named", text
    faults = [line for line in text.splitlines() if line.startswith(FAULT_LINES)
              and not line.endswith("right")]
    assert 1 <= len(faults) <= 3, text


def test_a_good_board_is_all_good():
    verdict, text = run_case(load_layout("square9"), None)
    assert verdict == "all good", text


def test_the_catalogue_counts_calibrate_on_the_analog_board():
    """``fairyboard calibrate`` is counted for the sensors' faults: a good lotus39 is
    calibrated, a stuck sensor is named at once on the empty board."""
    layout, case = _case("lotus39", "sensor always on")
    assert run_calibrate(layout, None)[0] == "all good"
    verdict, text = run_calibrate(layout, case)
    assert verdict == "named", text
