"""``fairyboard selftest --live`` ("show me what you see", issue #31): with no game running
the LED of every spot whose sensor reads lights, on every back end; Ctrl-C or the
deadline ends it with the LEDs dark."""

from __future__ import annotations

from pathlib import Path

import pytest

import controller.bringup as bringup
from controller.bringup import LIVE_COLOUR, run_live
from controller.cli import main
from controller.config import Config


def _config(tmp_path: Path, layout: str, pico: bool) -> Config:
    config = Config()
    config.board.layout = config.board.game = layout
    config.journal.path = str(tmp_path / "journal")
    config.sensing.calibration = str(tmp_path / "calibration-{layout}.json")
    if pico:  # the emulated Pico over a pseudo-terminal, the LEDs through it
        config.sensing.simulated_link = True
        config.sensing.debounce_ms, config.sensing.scan_hz = 5.0, 50.0
        config.leds.driver = "serial"
    return config


class Hands:
    """Puts two pieces down, lifts one, then presses Ctrl-C; looks at the LEDs as they
    really light (the Pi's simulated chain or the Pico's)."""

    def __init__(self, spots: tuple[str, str]) -> None:
        self.spots = spots
        self.bench = None
        self.lit: list[tuple[tuple[str, ...], set[str]]] = []  # (spots read, spots lit)
        self.step = 0

    def seen(self) -> set[str]:
        bench = self.bench
        mcu = getattr(bench.sensing.rig, "mcu", None)
        shown = bench.chain.seen_all() if mcu is None else [px[:3] for px in mcu.leds]
        return {s.name for s in bench.layout.spots if tuple(shown[s.led]) == LIVE_COLOUR}

    def __call__(self, reads: tuple[str, ...]) -> None:
        board = self.bench.sim
        a, b = self.spots
        if self.step == 0:
            board.put(a, "white-pawn")
            board.put(b, "white-pawn")
            self.step = 1
        elif self.step == 1 and set(reads) == {a, b}:
            self.bench.wait(0.1)  # the frame on its way out
            self.lit.append((reads, self.seen()))
            board.clear(a)
            self.step = 2
        elif self.step == 2 and reads == (b,):
            self.bench.wait(0.1)
            self.lit.append((reads, self.seen()))
            raise KeyboardInterrupt


@pytest.mark.parametrize("layout, pico, spots", [
    ("square8", False, ("e4", "d5")),    # the Pi's GPIO matrix (emulated)
    ("square9", False, ("e5", "a1")),    # the Pi's 74HC165 chain
    ("lotus39", False, ("c6", "e6")),    # the Pi's multiplexers and ADC, not calibrated
    ("kaleido89", True, ("1A", "2B")),   # the Pico's matrix over the serial link
    ("lotus39", True, ("c6", "e6")),     # the Pico's multiplexers
])
def test_live_lights_what_the_sensors_read_and_ends_on_ctrl_c(monkeypatch, tmp_path, layout,
                                                             pico, spots):
    hands = Hands(spots)
    opened = bringup._Bench.__init__

    def bench(self, *args, **kw):
        opened(self, *args, **kw)
        hands.bench = self
    monkeypatch.setattr(bringup._Bench, "__init__", bench)
    lines: list[str] = []
    changes = run_live(_config(tmp_path, layout, pico), say=lines.append, seconds=20,
                       watch=hands)
    a, b = spots
    assert hands.lit == [(tuple(sorted((a, b), key=hands.bench.layout.spot_index)), {a, b}),
                         ((b,), {b})]
    assert lines[-1] == "stopped" and f"reads: {b}" in lines and changes >= 3
    assert hands.seen() == set()  # dark again when it ends


def test_live_ends_at_its_deadline(capsys):
    assert main(["selftest", "--live", "--seconds", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "Showing what the sensors of square8 read" in out and "reads: nothing" in out


def test_live_refuses_a_deadline_that_is_not_positive(capsys):
    assert main(["selftest", "--live", "--seconds", "-1"]) == 2
    assert "--seconds: show for a positive number of seconds" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["selftest", "calibrate"])
def test_ctrl_d_or_ctrl_c_at_a_question_is_one_line(monkeypatch, capsys, command):
    def stopped(*args, **kwargs):
        raise EOFError if command == "selftest" else KeyboardInterrupt
    monkeypatch.setattr(bringup, "run_self_test", stopped)
    monkeypatch.setattr(bringup, "run_calibration", stopped)
    assert main([command, "--layout", "lotus39"]) == 130
    err = capsys.readouterr().err.strip()
    assert err.startswith("fairyboard: ") and "stopped" in err and len(err.splitlines()) == 1
