"""lotus39's guide order on a fresh build: ``selftest`` before ``calibrate`` works, reads
raw voltages, and names the faults a builder makes before calibrating (it refused with
"run 'fairyboard calibrate' first"; calibration then blamed swapped inputs on a dead
sensor and a face-down sensor on the magnet)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import controller.bringup as bringup
from controller.bringup import run_self_test
from controller.config import Config
from controller.sensing.sim.faults import swap_mux_inputs


def fresh_lotus(tmp_path: Path) -> Config:
    """The simulated board through the emulated Pico, no calibration file."""
    config = Config()
    config.board.layout = config.board.game = "lotus39"
    config.journal.path = str(tmp_path / "journal")
    config.sensing.calibration = str(tmp_path / "calibration-{layout}.json")
    config.sensing.backend = "simulated"
    config.sensing.simulated_link = True
    config.sensing.settle_ms, config.sensing.debounce_ms, config.sensing.scan_hz = 50.0, 5.0, 50.0
    config.leds.driver = "serial"
    return config


def selftest_with(monkeypatch, tmp_path: Path, fault: Callable | None):
    opened = bringup._Bench.__init__

    def bench(self, *args, **kw):
        opened(self, *args, **kw)
        if fault is not None:
            fault(self.sim, self.layout)
    monkeypatch.setattr(bringup._Bench, "__init__", bench)
    return run_self_test(fresh_lotus(tmp_path), say=lambda text: None)


def test_selftest_before_calibrate_walks_every_spot(monkeypatch, tmp_path):
    report = selftest_with(monkeypatch, tmp_path, None)
    assert report.ok, report.text()
    assert report.checked == 47 and report.leds_walked == 47
    assert "fairyboard calibrate" in report.text()


@pytest.mark.parametrize("fault, named", [
    (lambda board, layout: swap_mux_inputs(board, layout, "c6", "e6"),
     "the sensors of c6 and e6 are on each other's inputs: swap the wires at U10 I5 and "
     "U10 I6"),
    (lambda board, layout: board.break_sensor("e4", "face-down"),
     "face down (a White piece reads as Black: turn the sensor over, marked face up toward "
     "the piece): e4"),
    (lambda board, layout: board.break_sensor("e4", "dead"), "dead (no reading with a piece "
     "on it): e4"),
])
def test_selftest_before_calibrate_names_the_fault(monkeypatch, tmp_path, fault, named):
    report = selftest_with(monkeypatch, tmp_path, fault)
    text = report.text()
    assert not report.ok and named in text, text
    assert "dead" not in text or "dead (no reading" in named  # swapped/face-down: not dead
