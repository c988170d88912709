"""A multiplexer select line open, or two select lines on each other's pins (issue #31):
emulated on lotus39's CD74HC4067s and named by the self-test in one line, as the builder
fixes it, through the emulated Pico on a fresh (uncalibrated) build."""

from __future__ import annotations

from pathlib import Path

import pytest

import controller.bringup as bringup
from controller.bringup import run_self_test
from controller.config import Config
from controller.layout import load_layout
from controller.sensing.muxfaults import (
    CANDIDATES,
    SelectFault,
    describe,
    find_select_fault,
    predicted,
)
from controller.sensing.sim import SimulatedBoard
from controller.sensing.sim.faults import open_mux_select, swap_mux_selects
from controller.sensing.sim.wiring import select_wiring

LOTUS = load_layout("lotus39")
WALKED = range(len(LOTUS.spots))


def test_the_emulated_select_lines_put_another_input_through():
    board = SimulatedBoard(LOTUS)
    assert [select_wiring(board, s) for s in (0, 1, 2, 3)] == [0, 1, 2, 3]
    swap_mux_selects(board, 0, 1)
    assert [select_wiring(board, s) for s in (0, 1, 2, 3)] == [0, 2, 1, 3]
    board = SimulatedBoard(LOTUS)
    open_mux_select(board, 2)
    assert select_wiring(board, 0b0110) == 0b0010 and select_wiring(board, 0b0001) == 1
    with pytest.raises(ValueError):
        swap_mux_selects(board, 1, 1)


@pytest.mark.parametrize("fault", CANDIDATES, ids=str)
def test_each_select_fault_is_told_from_the_walk_it_makes(fault):
    reads = predicted(LOTUS, fault)
    found = find_select_fault(LOTUS, {s: reads(s) for s in WALKED})
    assert found is not None and found[0] == fault


def test_a_board_as_built_and_two_swapped_inputs_are_no_select_fault():
    plain = predicted(LOTUS, None)
    observed = {s: plain(s) for s in WALKED}
    assert find_select_fault(LOTUS, observed) is None
    observed[0], observed[1] = frozenset({1}), frozenset({0})
    assert find_select_fault(LOTUS, observed) is None


def test_the_lines_name_the_pins_and_the_chips():
    pins = {"S0": "GP2", "S1": "GP3", "S2": "GP4", "S3": "GP5"}
    assert describe(LOTUS, SelectFault((0, 1)), pins) == \
        "select lines S0 and S1 swapped at the Pico: swap GP2 and GP3"
    assert describe(LOTUS, SelectFault((2, 3)), {"S2": "GPIO13", "S3": "GPIO19"}) == \
        "select lines S2 and S3 swapped at the Pi: swap GPIO13 and GPIO19"
    assert describe(LOTUS, SelectFault((3,)), pins) == (
        "multiplexer select line S3 open (the inputs with S3 high are never read): connect "
        "the wire from GP5 to S3 (pin 13) of U10, U11, U12")


def _config(tmp: Path) -> Config:
    config = Config()
    config.board.layout = config.board.game = "lotus39"
    config.journal.path = str(tmp / "journal")
    config.sensing.calibration = str(tmp / "calibration-{layout}.json")
    config.sensing.backend = "simulated"
    config.sensing.simulated_link = True
    config.sensing.settle_ms, config.sensing.debounce_ms = 50.0, 5.0
    config.sensing.scan_hz = 50.0
    config.leds.driver = "serial"
    return config


@pytest.mark.parametrize("seed, line", [
    (lambda board: swap_mux_selects(board, 0, 1),
     "wiring: select lines S0 and S1 swapped at the Pico: swap GP2 and GP3"),
    (lambda board: open_mux_select(board, 1),
     "wiring: multiplexer select line S1 open (the inputs with S1 high are never read): "
     "connect the wire from GP3 to S1 (pin 11) of U10, U11, U12"),
])
def test_selftest_names_the_select_fault_in_one_line(tmp_path, monkeypatch, seed, line):
    opened = bringup._Bench.__init__

    def bench(self, *args, **kw):
        opened(self, *args, **kw)
        seed(self.sim)

    monkeypatch.setattr(bringup._Bench, "__init__", bench)
    report = run_self_test(_config(tmp_path), say=lambda t: None, ask=lambda t: "")
    faults = [f for f in report.text().splitlines()
              if f.startswith(("wiring", "dead", "crosstalk", "LEDs:", "LED colour order:"))]
    assert faults == ["LED colour order: right", line], report.text()
