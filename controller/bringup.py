"""Bringing up a built board: the self-test and the analog calibration.

``fairyboard selftest`` and ``fairyboard calibrate`` open the configured sensing back end
and LED chain (the same code ``fairyboard run`` uses) and run the routines of
:mod:`controller.sensing.selftest` and :mod:`controller.sensing.calibration`.  On real
hardware the builder does what the terminal asks and presses Enter; on the simulated
board a scripted, perfect human does it, so the commands double as a demonstration.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from controller.config import Config, calibration_path
from controller.layout import Layout, load_layout
from controller.leds.drivers import open_leds
from controller.leds.scene import LedFrame
from controller.sensing.backends import open_sensing
from controller.sensing.calibration import Calibration, calibrate
from controller.sensing.frame import Frame, SensingError
from controller.sensing.kinds import sensing_kind
from controller.sensing.selftest import SelfTestReport, self_test

#: after the builder pressed Enter: pieces stop wobbling, and readings made before (still
#: on their way from a microcontroller) are read and dropped, never averaged in
CALIBRATION_SETTLE_S = 0.3

#: how long past the firmware's HELLO time-out a microcontroller may take to answer
LINK_WAIT_S = 1.5

Say = Callable[[str], None]
Ask = Callable[[str], str]


class _Bench:
    """The configured back end and LEDs, opened without a game."""

    def __init__(self, config: Config, calibrating: bool = False):
        self.config = config
        self.calibrating = calibrating
        self.layout: Layout = load_layout(config.board.layout)
        self.sensing = open_sensing(config, self.layout, lambda frame: False,
                                    calibrating=calibrating)
        self.sim = self.sensing.sim
        try:
            self._wait_for_link()
        except SensingError:
            self.sensing.close()
            raise
        self._leds = self._open_leds()

    def _wait_for_link(self) -> None:
        """A microcontroller must answer before the builder is asked to do anything."""
        link = self.sensing.link
        if link is None:
            return
        limit = link.config.hello_timeout_s + LINK_WAIT_S
        waited = 0.0
        while not link.connected and waited < limit:
            self.wait(0.05)
            waited += 0.05
        if not link.connected:
            problem = link.problem or f"link {link.state}"
            if not problem.startswith("no microcontroller found"):
                problem = f"no microcontroller found: {problem}"
            raise SensingError(f"{problem}; plug in the board running firmware/ (or set "
                               "[sensing] port)")

    def _open_leds(self) -> Callable[[list[tuple[int, int, int]]], None]:
        """The configured chain; frames to a microcontroller go straight to the link,
        which paces them itself."""
        n = self.layout.led_count
        leds = open_leds(self.config.leds, self.layout,
                         send_frame=self.sensing.send_led_frame)
        if leds is None:
            return lambda colours: None
        driver = leds.driver if self.sensing.link is not None else leds

        def show(colours: list[tuple[int, int, int]]) -> None:
            driver.show(LedFrame(tuple(colours), tuple(colours), (None,) * n, ("",) * n))

        return show

    def read(self) -> Frame:
        if self.sim is None:
            self.sensing.pipeline.update()
            stable = self.sensing.pipeline.stable
        else:
            stable = self.sensing.rig.stable
        if stable is None:
            raise RuntimeError("the sensors have not produced a stable reading yet")
        return stable

    def read_voltages(self) -> list[float]:
        """One reading per spot in volts (linear halls), from the Pi's ADCs or from the
        readings the microcontroller streams."""
        link = self.sensing.link
        if link is None:
            return self.sensing.backend.read_voltages()
        return link.read_voltages(wait=self.sim.advance if self.sim is not None else None)

    def wait(self, seconds: float) -> None:
        if self.sim is not None:
            self.sim.advance(seconds)
            return
        end = time.monotonic() + seconds
        while time.monotonic() < end:  # keep scanning while waiting
            self._poll()
            time.sleep(min(self.sensing.period, max(0.0, end - time.monotonic())))

    def _poll(self) -> None:
        """Read the back end once.  While calibrating there is no calibration to make
        frames with: only a microcontroller link is read (its readings kept current)."""
        if not self.calibrating:
            self.sensing.pipeline.update()
        elif self.sensing.link is not None:
            self.sensing.link.update()

    def close(self) -> None:
        self.sensing.close()


def run_self_test(config: Config, say: Say = print, ask: Ask = input) -> SelfTestReport:
    """Walk the LEDs, check every sensor for stuck/dead/crosstalk and a matrix for ghosting."""
    bench = _Bench(config)
    board = bench.sim
    layout = bench.layout

    def instruct(action: str, spots: list[int]) -> None:
        names = ", ".join(layout.spots[s].name for s in spots)
        if board is not None:  # the simulated builder does it at once
            if action == "clear":
                board.clear()
            elif action == "place":
                for s in spots:
                    board.put(s, "white-pawn")
            else:
                for s in spots:
                    board.clear(s)
            return
        text = {"clear": "Take every piece off the board and the pads",
                "place": f"Put a piece on {names}",
                "lift": f"Take the piece(s) off {names}"}[action]
        ask(f"{text}, then press Enter ")

    try:
        bench.wait(0.1)
        say(f"Self-test of {layout.name} ({layout.sensing}, {layout.sensor_kind}), "
            f"{layout.led_count} LEDs")
        walk = 0.001 if board is not None else 0.03
        report = self_test(layout, bench.read, bench._leds, instruct, bench.wait,
                           walk_s=walk, settle_s=0.05 if board is not None else 0.3)
    finally:
        bench.close()
    say(report.text())
    return report


def default_calibration_path(config: Config, layout: Layout) -> Path:
    return calibration_path(config, layout.name)


def run_calibration(config: Config, out: str | None = None, say: Say = print,
                    ask: Ask = input) -> tuple[Calibration, Path]:
    """Measure baseline and thresholds of every linear hall sensor and store them."""
    layout = load_layout(config.board.layout)
    if sensing_kind(layout).switches:
        raise ValueError(f"layout {layout.name} has {layout.sensor_kind} sensors on a "
                         f"{layout.sensing}: only linear hall boards are calibrated")
    bench = _Bench(config, calibrating=True)
    board = bench.sim
    count = len(layout.spots)

    def prompt(step: str, instruction: str) -> None:
        if board is None:
            ask(f"{instruction} — press Enter when done ")
            bench.wait(CALIBRATION_SETTLE_S)  # hands off, readings taken before are gone
            return
        board.clear()
        if step != "empty":
            colour, _, height = step.partition("-")
            for spot in range(count):
                board.put(spot, [f"{colour}-stone"] * int(height or 1))
        bench.wait(0.05)

    try:
        calibration = calibrate(layout, bench.read_voltages, prompt)
    finally:
        bench.close()
    path = Path(out).expanduser() if out else default_calibration_path(config, layout)
    path.parent.mkdir(parents=True, exist_ok=True)
    calibration.save(path)
    say(f"calibration of {count} sensors saved to {path}")
    return calibration, path
