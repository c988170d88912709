"""Bringing up a built board: the self-test and the analog calibration.

``fairyboard selftest`` and ``fairyboard calibrate`` open the configured sensing back end
and LED chain (the same code ``fairyboard run`` uses) and run the routines of
:mod:`controller.sensing.selftest` and :mod:`controller.sensing.calibration`.  Both light
the spot to work on and notice the piece put there by themselves: the builder presses
Enter only to start a step (clear the board, take the White piece …).  On the simulated
board a scripted, perfect human does it, so the commands double as a demonstration.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from controller.config import Config, calibration_path
from controller.layout import Layout, load_layout
from controller.leds.drivers import ThrottledLeds, open_leds
from controller.leds.scene import LedFrame
from controller.leds.simulated import SimulatedChain
from controller.sensing.backends import open_sensing
from controller.sensing.calibration import (
    STEP_TEXT,
    Calibration,
    CalibrationProgress,
    calibrate_guided,
    quality_line,
)
from controller.sensing.frame import Frame, SensingError
from controller.sensing.fwconfig import firmware_settings
from controller.sensing.kinds import sensing_kind
from controller.sensing.selftest import SelfTestReport, self_test

#: after the builder pressed Enter: pieces stop wobbling, and readings made before (still
#: on their way from a microcontroller) are read and dropped, never averaged in
CALIBRATION_SETTLE_S = 0.3

#: how long past the firmware's HELLO time-out a microcontroller may take to answer
LINK_WAIT_S = 1.5

#: the self-test on real hardware: a piece must read this long to count, a spot that
#: reads nothing this long is dead, and the sensors are looked at this often
SELFTEST_SETTLE_S = 0.3
SELFTEST_TIMEOUT_S = 6.0
SELFTEST_POLL_S = 0.05
#: per LED of the walk at least (a chain's driver may show frames slower still)
LED_WALK_S = 0.03

#: the calibration on real hardware: a spot that reads no magnet this long is skipped
CALIBRATION_TIMEOUT_S = 60.0

#: the LEDs the calibration lights: the spot to put the piece (or pile) on
CALIBRATION_COLOURS = {"white": (60, 60, 60), "black": (0, 0, 70), "white-2": (60, 40, 0),
                       "white-3": (70, 20, 0)}

#: what pyserial says when another program holds the port (it opens it exclusively)
PORT_BUSY = ("exclusively lock", "Resource temporarily unavailable", "Device or resource busy")
#: the service's unit (deploy/fairyboard.service)
SERVICE_STOP = "sudo systemctl stop fairyboard"
SERVICE_START = "sudo systemctl start fairyboard"

Say = Callable[[str], None]
Ask = Callable[[str], str]
Colour = tuple[int, int, int]


class _Bench:
    """The configured back end and LEDs, opened without a game."""

    def __init__(self, config: Config, calibrating: bool = False):
        self.config = config
        self.calibrating = calibrating
        self.layout: Layout = load_layout(config.board.layout)
        self.sensing = open_sensing(config, self.layout, lambda frame: False,
                                    calibrating=calibrating)
        self.sim = self.sensing.sim
        self.leds: ThrottledLeds | None = None
        self.direct = False
        try:
            self._wait_for_link()
        except SensingError:
            self.sensing.close()
            raise
        self._open_leds()

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
            if any(sign in problem for sign in PORT_BUSY):
                raise SensingError(
                    f"the microcontroller is there but its port {link.path} is in use by "
                    "another program — the fairyboard service holds it while it runs: stop "
                    f"it with '{SERVICE_STOP}', run this again, then '{SERVICE_START}'")
            if not problem.startswith("no microcontroller found"):
                problem = f"no microcontroller found: {problem}"
            raise SensingError(f"{problem}; plug in the board running firmware/ (or set "
                               "[sensing] port); with USB alone the Pico stays off: switch "
                               "the board's 5 V supply on")

    def _open_leds(self) -> None:
        """The configured chain, throttled on the sensing clock (simulated time on the
        simulated board); frames to a microcontroller go straight to the link, which
        paces them itself."""
        self.leds = open_leds(self.config.leds, self.layout,
                              send_frame=self.sensing.send_led_frame,
                              clock=self.sensing.clock)
        self.direct = self.leds is not None and self.sensing.link is not None

    @property
    def led_step_s(self) -> float:
        """The shortest time one LED frame is shown: the throttle's interval (and a
        millisecond, so a clock counting in microseconds finds it passed)."""
        if self.leds is None or self.direct:
            return 0.0
        return self.leds.interval + 0.001

    def show(self, colours: list[Colour]) -> None:
        if self.leds is None:
            return
        n = self.layout.led_count
        frame = LedFrame(tuple(colours), tuple(colours), (None,) * n, ("",) * n)
        if self.direct:
            self.leds.driver.show(frame)
        else:
            self.leds.show(frame)

    @property
    def chain(self) -> SimulatedChain | None:
        """The simulated LED chain, which the simulated builder can look at."""
        driver = self.leds.driver if self.leds is not None else None
        return driver if isinstance(driver, SimulatedChain) else None

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
        """Let time pass: the sensors keep being read, held LED frames go out."""
        if self.sim is not None:
            self.sim.advance(seconds)
            self._flush()
            return
        end = time.monotonic() + seconds
        while True:  # keep scanning while waiting
            self._poll()
            self._flush()
            left = end - time.monotonic()
            if left <= 0:
                break
            time.sleep(min(self.sensing.period, left))

    def _flush(self) -> None:
        if self.leds is not None and not self.direct:
            self.leds.poll()

    def _poll(self) -> None:
        """Read the back end once.  While calibrating there is no calibration to make
        frames with: only a microcontroller link is read (its readings kept current)."""
        if not self.calibrating:
            self.sensing.pipeline.update()
        elif self.sensing.link is not None:
            self.sensing.link.update()

    def pins(self) -> dict[str, str]:
        """Line name (the sensing kind's) → controller pin: the Pi's GPIO from the back
        end's pin settings, the Pico's from the ``config.py`` fwconfig prints."""
        rows, cols, _ = sensing_kind(self.layout).grid(self.layout)
        if self.sensing.link is not None:
            fw = firmware_settings(self.layout)
            lines = {"rows": fw.get("MATRIX_ROWS") or fw.get("MUX_SIGNALS"),
                     "columns": fw.get("MATRIX_COLUMNS")}
            prefix = ""
        else:
            pins = getattr(self.sensing.backend, "pins", None)
            lines = {"rows": getattr(pins, "rows", None),
                     "columns": getattr(pins, "columns", None)}
            prefix = "GPIO"
        out: dict[str, str] = {}
        for labels, attr in ((rows, "rows"), (cols, "columns")):
            numbers = lines[attr]
            if numbers and len(numbers) == len(labels):
                out.update({label: f"{prefix}{p}" for label, p in zip(labels, numbers,
                                                                      strict=True)})
        return out

    def close(self) -> None:
        if self.leds is not None and not self.direct:
            self.leds.poll()
        self.sensing.close()


#: DRV5055 output with no field: VCC/2 (ratiometric), on the 3.3 V sensors' rail
HALL_QUIESCENT_V = 3.3 / 2
#: a rest reading this far from VCC/2 is a sensor stuck, shorted or in a magnet's field
HALL_REST_LIMIT_V = 0.35
#: a piece changes its own sensor by about 0.5 V on lotus39 and its neighbours by < 10 mV
HALL_PIECE_V = 0.15


class RawHallFrames:
    """Frames from raw hall voltages for a board not calibrated yet: a spot reads occupied
    while its voltage is ``HALL_PIECE_V`` away from its rest reading (the first reading,
    taken on the cleared board; a rest reading far from VCC/2 counts as occupied from the
    start, so the self-test names it stuck).  The test piece is White, so a spot that
    reads it with the Black sign has its sensor face down."""

    def __init__(self, voltages: Callable[[], list[float]], clock: Callable[[], float]):
        self.voltages, self.clock = voltages, clock
        self.rest: list[float] | None = None
        self.reversed: set[int] = set()
        self.forward: set[int] = set()

    def read(self) -> Frame:
        volts = self.voltages()
        if self.rest is None:
            self.rest = [v if abs(v - HALL_QUIESCENT_V) <= HALL_REST_LIMIT_V
                         else HALL_QUIESCENT_V for v in volts]
        delta = [v - r for v, r in zip(volts, self.rest, strict=True)]
        occupied = tuple(abs(d) > HALL_PIECE_V for d in delta)
        polarity = tuple((1 if d > 0 else -1) if o else 0
                         for d, o in zip(delta, occupied, strict=True))
        for i, p in enumerate(polarity):
            if p < 0:
                self.reversed.add(i)
            elif p > 0:
                self.forward.add(i)
        return Frame(self.clock(), occupied, (None,) * len(occupied), polarity)

    def judge(self, report: SelfTestReport, layout: Layout) -> None:
        """Face-down sensors, and what to run next."""
        walked = {layout.spot_index(n) for n in report.walked} - {
            layout.spot_index(n) for n in report.dead}
        down = sorted(walked & (self.reversed - self.forward))
        if down and len(down) == len(walked):
            report.note = ("every sensor read the test piece as Black: its magnet is upside "
                           "down (White pieces have the south pole down); turn it over")
        else:
            report.face_down = [layout.spots[i].name for i in down]
        if not report.note:
            report.note = ("not calibrated yet: the walk read raw voltages. Next: "
                           "'fairyboard calibrate', then 'fairyboard selftest' again to "
                           "check the calibrated board")


def _colour_word(colour: Colour) -> str:
    if max(colour) == 0:
        return "none"
    return ("red", "green", "blue")[colour.index(max(colour))]


def run_self_test(config: Config, say: Say = print, ask: Ask = input) -> SelfTestReport:
    """Walk the LEDs and check their colour order, walk every sensor (a piece is noticed
    as it is put down), check every diode of a matrix, group the faults by wire."""
    layout = load_layout(config.board.layout)
    kind = sensing_kind(layout)
    # a fresh linear-hall board: no calibration yet, so the walk reads raw voltages
    uncalibrated = not kind.switches and not calibration_path(config, layout.name).exists()
    bench = _Bench(config, calibrating=uncalibrated)
    board = bench.sim
    raw = RawHallFrames(bench.read_voltages, bench.sensing.clock) if uncalibrated else None

    def instruct(action: str, spots: tuple[int, ...]) -> None:
        if board is not None:  # the simulated builder does it at once
            board.follow(action, spots)
            return
        names = ", ".join(layout.spots[s].name for s in spots)
        if action == "clear":
            ask("Take every piece off the board and the pads, then press Enter ")
        elif action == "place" and len(spots) > 1:
            ask(f"Put pieces on {names}, then press Enter ")
        elif action == "lift" and len(spots) > 1:
            ask(f"Take the pieces off {names}, then press Enter ")
        # one piece at a time: the lit spot says where, the walk notices it

    # LEDs on the emulated Pico: the simulated builder looks at its chips
    mcu = getattr(getattr(bench.sensing, "rig", None), "mcu", None)

    def see(question: str) -> str:
        chain = bench.chain
        if board is not None:  # the simulated builder looks at the simulated chain
            if chain is not None:
                return " ".join(_colour_word(chain.seen(k)) for k in range(3))
            if mcu is None:
                return ""
            bench.wait(0.1)  # the frame on its way over the link and out of the Pico
            shown = mcu.leds
            return " ".join(_colour_word(tuple(px[:3])) for px in shown[:3])
        return ask(question)

    order = config.leds.pixel_order if bench.chain is None else "RGB"
    simulated = board is not None
    try:
        bench.wait(0.1)
        heading = [f"Self-test of {layout.name} ({layout.sensing}, {layout.sensor_kind}), "
                   f"{layout.led_count} LEDs", f"sensing: {bench.sensing.name}; "
                   f"{kind.summary(layout)}; LEDs: {config.leds.driver}"]
        say(heading[0])
        walk = max(0.001 if simulated else LED_WALK_S, bench.led_step_s)
        settle = 0.05 if simulated else SELFTEST_SETTLE_S
        report = self_test(
            layout, bench.read if raw is None else raw.read, bench.show, instruct,
            bench.wait, walk_s=walk,
            settle_s=settle, timeout_s=0.25 if simulated else SELFTEST_TIMEOUT_S,
            poll_s=0.02 if simulated else SELFTEST_POLL_S, diode_check=True,
            see=see if (bench.leds is not None and (not simulated or bench.chain or mcu))
            else None,
            pixel_order=order, tell=(lambda text: None) if simulated else say,
            pins=bench.pins())
        report.heading = heading
        if raw is not None:
            raw.judge(report, layout)
    finally:
        bench.close()
    say("--- summary (paste it into a help request) ---")
    say(report.text())
    return report


def default_calibration_path(config: Config, layout: Layout) -> Path:
    return calibration_path(config, layout.name)


def progress_path(path: Path) -> Path:
    """Where a guided calibration keeps what it measured so far."""
    return path.with_name(path.name + ".partial")


def run_calibration(config: Config, out: str | None = None, say: Say = print,
                    ask: Ask = input, *, pieces: int = 1) -> tuple[Calibration, Path]:
    """Measure baseline and magnet readings of every linear hall sensor, spot by spot
    (``pieces`` lit at a time), and store them; an interrupted calibration continues
    where it stopped.  Spots that cannot tell two classes apart reliably (piles of 2
    and 3, mostly) are named in one line, with what to do."""
    layout = load_layout(config.board.layout)
    if sensing_kind(layout).switches:
        raise ValueError(f"layout {layout.name} has {layout.sensor_kind} sensors on a "
                         f"{layout.sensing}: only linear hall boards are calibrated")
    if pieces < 1:
        raise ValueError(f"--pieces: light at least one spot at a time, got {pieces}")
    path = Path(out).expanduser() if out else default_calibration_path(config, layout)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = progress_path(path)
    progress = CalibrationProgress.load(partial, layout)
    if progress is not None:
        say(f"continuing the calibration saved in {partial}: "
            f"{'the empty board and ' if progress.baseline else ''}{progress.readings()} "
            "spot readings are done")
    else:
        progress = CalibrationProgress.start(layout)
    bench = _Bench(config, calibrating=True)
    board = bench.sim
    count = len(layout.spots)
    lit: tuple[int, ...] = ()

    def guide(step: str, spots: tuple[int, ...]) -> None:
        nonlocal lit
        if board is not None:  # the simulated builder moves his pieces to the lit spots
            if not spots:
                board.clear()
            else:
                for s in lit:
                    board.clear(s)
                for s in spots:
                    board.put(s, board.calibration_pile(step))
            lit = spots
            bench.wait(0.01)
            return
        colours = [(0, 0, 0)] * layout.led_count
        for s in spots:
            colours[layout.spots[s].led] = CALIBRATION_COLOURS.get(step, (40, 40, 40))
        bench.show(colours)
        if spots or step == "done":
            return
        if step == "empty":
            ask(f"{STEP_TEXT['empty']} — press Enter when done ")
        else:
            ask(f"{STEP_TEXT[step]}: it is read as soon as it lies there and the next spot "
                "lights (no key to press). Press Enter to start ")
        bench.wait(CALIBRATION_SETTLE_S)  # hands off, readings taken before are gone

    simulated = board is not None
    try:
        calibration = calibrate_guided(
            layout, bench.read_voltages, guide, bench.wait, progress,
            save=lambda p: p.save(partial), samples=8 if simulated else 16,
            poll_s=0.005 if simulated else 0.02,
            timeout_s=1.0 if simulated else CALIBRATION_TIMEOUT_S, pieces=pieces, say=say)
    finally:
        bench.close()
    calibration.save(path)
    partial.unlink(missing_ok=True)
    say(f"calibration of {count} sensors saved to {path}")
    warning = quality_line(calibration, layout)
    if warning is not None:
        say(warning)
    return calibration, path
