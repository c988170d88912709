"""Bringing up a built board: the self-test and the analog calibration.

``fairyboard selftest`` and ``fairyboard calibrate`` open the configured sensing back end
and LED chain (the same code ``fairyboard run`` uses) and run the routines of
:mod:`controller.sensing.selftest` and :mod:`controller.sensing.calibration`.  Both light
the spot to work on and notice the piece put there by themselves: the builder presses
Enter only to start a step (clear the board, take the White piece …).  On the simulated
board a scripted, perfect human does it, so the commands double as a demonstration.
"""

from __future__ import annotations

import select
import sys
import time
from collections.abc import Callable
from pathlib import Path

from controller.config import Config, calibration_path
from controller.layout import Layout, load_layout
from controller.leds.drivers import ThrottledLeds, open_leds
from controller.leds.palette import Palette
from controller.leds.scene import LedFrame
from controller.leds.simulated import SimulatedChain
from controller.sensing.backends import open_sensing
from controller.sensing.calibration import (
    HALL_PIECE_V,
    HALL_QUIESCENT_V,
    HALL_REST_LIMIT_V,
    STEP_TEXT,
    Calibration,
    CalibrationProgress,
    calibrate_guided,
    quality_line,
)
from controller.sensing.frame import Frame, SensingError
from controller.sensing.fwconfig import firmware_settings
from controller.sensing.kinds import sensing_kind
from controller.sensing.ledcheck import PadMenu, Question
from controller.sensing.selftest import SelfTestReport, self_test
from controller.sensing.sim.builder import EmulatedBuilder

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
        if self.leds is None:
            return 0.0
        if self.direct:  # the link sends one LED frame per interval, the newest wins
            return self.sensing.link.config.led_min_interval_s + 0.005
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

    def backwards(self) -> Callable[[], frozenset[int]] | None:
        """The matrix scanned backwards (the Pi's own pins, a matrix with diodes): the
        spots read through a diode that conducts the wrong way; None on other back ends
        (the Pico's keypad scans one way only)."""
        scanner = self.sensing.backend
        if self.sensing.link is not None or not hasattr(scanner, "scan_backwards"):
            return None
        if getattr(getattr(scanner, "pins", None), "diodes", None) is None:
            return None
        return lambda: scanner.scan_backwards() or frozenset()

    def led_pin(self) -> str:
        """The controller pin the LED chain's data wire leaves."""
        if self.sensing.link is not None:
            return str(firmware_settings(self.layout).get("NEOPIXEL_PIN", ""))
        if self.config.leds.driver == "neopixel-spi":
            return "GPIO10 (SPI MOSI)"
        return f"GPIO{self.config.leds.pin}"

    def pins(self) -> dict[str, str]:
        """Line name (the sensing kind's) → controller pin: the Pi's GPIO from the back
        end's pin settings, the Pico's from the ``config.py`` fwconfig prints."""
        rows, cols, _ = sensing_kind(self.layout).grid(self.layout)
        if self.sensing.link is not None:
            fw = firmware_settings(self.layout)
            lines = {"rows": fw.get("MATRIX_ROWS") or fw.get("MUX_SIGNALS"),
                     "columns": fw.get("MATRIX_COLUMNS"), "select": fw.get("MUX_SELECT")}
            prefix = ""
        else:
            pins = getattr(self.sensing.backend, "pins", None)
            lines = {"rows": getattr(pins, "rows", None),
                     "columns": getattr(pins, "columns", None),
                     "select": getattr(pins, "select", None)}
            prefix = "GPIO"
        out: dict[str, str] = {}
        if lines["select"] and len(lines["select"]) == 4:  # the multiplexers' S0..S3
            out.update({f"S{b}": f"{prefix}{p}" for b, p in enumerate(lines["select"])})
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


#: how long the option pads wait for an answer (simulated: the emulated builder's touch)
PAD_ANSWER_S = 120.0
PAD_ANSWER_SIM_S = 1.0


def _typed_line() -> str | None:
    """A line typed at the terminal, if one is waiting (the pads are read meanwhile)."""
    try:
        ready = select.select([sys.stdin], [], [], 0)[0]
    except (OSError, ValueError):
        return None
    if not ready:
        return None
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def run_self_test(config: Config, say: Say = print, ask: Ask = input, *,
                  pads: bool = True) -> SelfTestReport:
    """Walk the LEDs and check their colour order, walk every sensor (a piece is noticed
    as it is put down), check every diode of a matrix, group the faults by wire.  The
    LED walk's questions can be answered on the option pads too (``pads``)."""
    layout = load_layout(config.board.layout)
    kind = sensing_kind(layout)
    # a fresh linear-hall board: no calibration yet, so the walk reads raw voltages
    uncalibrated = not kind.switches and not calibration_path(config, layout.name).exists()
    bench = _Bench(config, calibrating=uncalibrated)
    board = bench.sim
    raw = RawHallFrames(bench.read_voltages, bench.sensing.clock) if uncalibrated else None

    # LEDs on the emulated Pico: the simulated builder looks at its chips
    mcu = getattr(getattr(bench.sensing, "rig", None), "mcu", None)
    looks = (bench.chain.seen_all if bench.chain is not None
             else (lambda: mcu.leds) if mcu is not None else None)
    builder = (EmulatedBuilder(board, layout, looks, bench.wait)
               if board is not None and looks is not None else None)

    def instruct(action: str, spots: tuple[int, ...]) -> None:
        if board is not None:  # the simulated builder does it at once
            (builder or board).follow(action, spots)
            return
        names = ", ".join(layout.spots[s].name for s in spots)
        if action == "clear":
            ask("Take every piece off the board and the pads, then press Enter ")
        elif action == "place" and len(spots) > 1:
            ask(f"Put pieces on {names}, then press Enter ")
        elif action == "lift" and len(spots) > 1:
            ask(f"Take the pieces off {names}, then press Enter ")
        # one piece at a time: the lit spot says where, the walk notices it

    simulated = board is not None
    read = bench.read if raw is None else raw.read
    menu = (PadMenu(layout, read, bench.show, bench.wait, Palette().options,
                    poll_s=0.02 if simulated else SELFTEST_POLL_S,
                    timeout_s=PAD_ANSWER_SIM_S if simulated else PAD_ANSWER_S)
            if pads and layout.pads("option") and bench.leds is not None else None)
    terminal = ask is input and sys.stdin.isatty()

    checked: list[bool] = []  # the pads' check, done before their first answer

    def pads_ready() -> bool:
        if menu is None:
            return False
        if not checked:
            checked.append(menu.check(builder.touch_pad, builder.release) if builder
                           else menu.check(tell=say) if terminal else False)
        return checked[0]

    def look(question: Question) -> str:
        if builder is not None and pads_ready():
            got = menu.choose(question, press=builder.press, released=builder.release)
            builder.release()
            return got if got is not None else builder.typed_answer(question)
        if builder is not None:
            return builder.answer(question)
        if terminal and pads_ready():
            say(question.text)
            got = menu.choose(question, typed=_typed_line, tell=say)
            if got is not None:
                return got
        return ask(question.text)

    order = config.leds.pixel_order if bench.chain is None else "RGB"
    try:
        bench.wait(0.1)
        heading = [f"Self-test of {layout.name} ({layout.sensing}, {layout.sensor_kind}), "
                   f"{layout.led_count} LEDs", f"sensing: {bench.sensing.name}; "
                   f"{kind.summary(layout)}; LEDs: {config.leds.driver}"]
        say(heading[0])
        walk = max(0.001 if simulated else LED_WALK_S, bench.led_step_s)
        settle = 0.05 if simulated else SELFTEST_SETTLE_S
        report = self_test(
            layout, read, bench.show if menu is None else menu.write, instruct,
            bench.wait, walk_s=walk,
            settle_s=settle, timeout_s=0.25 if simulated else SELFTEST_TIMEOUT_S,
            poll_s=0.02 if simulated else SELFTEST_POLL_S, diode_check=True,
            look=look if bench.leds is not None and (not simulated or builder) else None,
            pixel_order=order, tell=(lambda text: None) if simulated else say,
            pins=bench.pins(), led_pin=bench.led_pin(), backwards=bench.backwards())
        report.heading = heading
        if raw is not None:
            raw.judge(report, layout)
    finally:
        bench.close()
    say("--- summary (paste it into a help request) ---")
    say(report.text())
    return report


#: "show me what you see": the LED of every spot whose sensor reads
LIVE_COLOUR = (0, 60, 20)


def run_live(config: Config, say: Say = print, *, seconds: float | None = None,
             watch: Callable[[tuple[str, ...]], None] | None = None) -> int:
    """Show me what you see: with no game running, light the LED of every spot whose
    sensor reads (and print what reads when it changes), on whatever back end is
    configured, until Ctrl-C or ``seconds``.  ``watch`` is called with the spots read
    after each look (the tests' hands).  Returns how many changes were shown."""
    if seconds is not None and not seconds > 0:
        raise ValueError(f"--seconds: show for a positive number of seconds, got {seconds:g}")
    layout = load_layout(config.board.layout)
    kind = sensing_kind(layout)
    uncalibrated = not kind.switches and not calibration_path(config, layout.name).exists()
    bench = _Bench(config, calibrating=uncalibrated)
    raw = RawHallFrames(bench.read_voltages, bench.sensing.clock) if uncalibrated else None
    read = bench.read if raw is None else raw.read
    period = 0.02 if bench.sim is not None else SELFTEST_POLL_S
    names = [s.name for s in layout.spots]
    n = layout.led_count
    say(f"Showing what the sensors of {layout.name} read: the LED of every spot that reads "
        "lights" + (f" for {seconds:g} s" if seconds else "") + "; Ctrl-C ends.")
    if raw is not None:
        say("not calibrated yet: a spot lights while its reading differs from the one it "
            "had when this started (start on an empty board)")
    shown: frozenset[int] | None = None
    changes = 0
    try:
        bench.wait(0.1)
        start = bench.sensing.clock()
        while seconds is None or bench.sensing.clock() - start < seconds:
            try:
                occupied = frozenset(read().occupied_spots())
            except RuntimeError:  # no stable reading yet
                occupied = frozenset()
            if occupied != shown:
                colours = [(0, 0, 0)] * n
                for i in occupied:
                    colours[layout.spots[i].led] = LIVE_COLOUR
                bench.show(colours)
                say("reads: " + (", ".join(names[i] for i in sorted(occupied)) or "nothing"))
                shown, changes = occupied, changes + 1
            if watch is not None:
                watch(tuple(names[i] for i in sorted(occupied)))
            bench.wait(max(period, bench.led_step_s))
    except KeyboardInterrupt:
        say("stopped")
    finally:
        try:
            bench.show([(0, 0, 0)] * n)
            bench.wait(bench.led_step_s)
        finally:
            bench.close()
    return changes


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
            timeout_s=1.0 if simulated else CALIBRATION_TIMEOUT_S, pieces=pieces, say=say,
            pins=bench.pins())
    finally:
        bench.close()
    calibration.save(path)
    partial.unlink(missing_ok=True)
    say(f"calibration of {count} sensors saved to {path}")
    warning = quality_line(calibration, layout)
    if warning is not None:
        say(warning)
    return calibration, path
