"""Sensing back ends chosen by name: the one vocabulary of ``[sensing] backend``.

:data:`SENSING_BACKENDS` maps each name the configuration accepts to a
:class:`SensingBackend` that checks its settings and opens it; :func:`open_sensing` is
what ``fairyboard run``, ``selftest`` and ``calibrate`` call.  The simulated board runs
the production back ends on emulated circuits named in :data:`SIMULATED_CIRCUITS` (the
simulator's vocabulary, ``controller.sensing.sim``), each tied to the configured back end
it emulates.  Adding a back end is one opener and one entry here (docs/architecture.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.sensing.circuits import SIMULATED_CIRCUITS, simulated_circuit
from controller.sensing.debounce import DebounceConfig, SensingPipeline
from controller.sensing.frame import Frame, SensingError
from controller.sensing.kinds import sensing_kind
from controller.sensing.settings import ConfigError, SensingSettings, calibration_path

if TYPE_CHECKING:
    from controller.config import Config
    from controller.layout import Layout

#: the simulated board catches up with real time in steps of at most this much
MAX_CATCH_UP_S = 0.5
#: a simulated board untouched this long rests (no emulated scans, slow polling)
QUIET_S = 2.0

IsExtendable = Callable[[Frame], bool]


class Sensing:
    """A sensing back end with its pipeline, as the service sees it.

    ``pipeline`` yields committed frames; ``clock`` is the time they are stamped with (the
    simulator's clock for the simulated board, ``time.monotonic`` otherwise);
    ``catch_up()`` lets simulated time follow real time in the live loop."""

    def __init__(self, name: str, pipeline: SensingPipeline, clock: Callable[[], float],
                 period: float, *, sim: Any = None, rig: Any = None, link: Any = None,
                 backend: Any = None) -> None:
        self.name = name
        self.pipeline = pipeline
        self.clock = clock
        self.period = period
        self.sim = sim
        self.rig = rig
        self.link = link
        self.backend = backend if backend is not None else pipeline.backend
        self._real = time.monotonic()
        #: simulated board at rest: nothing was done to it and its sensed picture did not
        #: change for QUIET_S of *scanned* simulated time, so its emulated scans are skipped
        #: (their readings would repeat) and the loop polls slowly
        self.resting = False
        self._revision = -1
        self._changed_at = clock()  # simulated time of the last change seen
        self._stable: Frame | None = None  # the pipeline's stable frame last seen

    def catch_up(self) -> None:
        """Simulated board: advance its clock by the real time since the last call (the
        emulated scanner runs meanwhile).  Hardware: read the back end once."""
        if self.sim is None:
            self.pipeline.update()
            return
        now = time.monotonic()
        step = min(MAX_CATCH_UP_S, max(0.0, now - self._real))
        self._real = now
        # quiet is counted in simulated time, which runs only while the board is scanned:
        # a loop starved of the processor for QUIET_S (a loaded machine) must still scan a
        # change before resting, else the change is never sensed and whoever waits for it
        # waits forever
        sim_now = self.clock()
        if self.sim.revision != self._revision:
            self._revision, self._changed_at = self.sim.revision, sim_now
        stable = self.pipeline.stable
        if stable is not self._stable:
            # a picture that still changes has not settled: resting would freeze whatever
            # the last scan saw (a pile of 3 near the 2|3 threshold flickers with the
            # sensor noise, and a frozen dip looked like part of the pile lifted for good)
            if self._stable is not None:
                self._changed_at = sim_now
            self._stable = stable
        # an emulated microcontroller keeps its own time-outs: never skip its beat
        self.resting = self.link is None and sim_now - self._changed_at > QUIET_S
        if self.resting:
            self.sim.skip(step)
        else:
            self.sim.advance(step)

    def problem(self) -> str:
        """Empty when the back end works; otherwise what is wrong (shown by /health)."""
        if self.link is not None and not self.link.connected:
            return f"microcontroller link {self.link.state}" + (
                f": {self.link.problem}" if self.link.problem else "")
        return ""

    def send_led_frame(self, payload: bytes) -> None:
        """LED frames to the microcontroller (``leds.driver = "serial"``)."""
        from controller.leds.palette import LedError

        if self.link is None:
            raise LedError('leds.driver = "serial" needs sensing.backend = "serial"')
        from controller.leds.drivers import decode_led_frame

        first, brightness, colours = decode_led_frame(payload)
        self.link.send_leds(colours, first, brightness)

    def close(self) -> None:
        if self.rig is not None:
            self.rig.close()
        else:
            self.pipeline.close()


@dataclass(frozen=True)
class Opening:
    """What every opener gets: the configuration, the layout, the settle gate's question,
    the simulator's seed, and whether the board is opened to be calibrated (then linear
    halls go without a calibration: only their voltages are read)."""

    config: Config
    layout: Layout
    is_extendable: IsExtendable
    seed: int = 0
    calibrating: bool = False

    @property
    def settings(self) -> SensingSettings:
        return self.config.sensing

    @property
    def settle_s(self) -> float:
        return self.settings.settle_ms / 1000.0

    @property
    def period(self) -> float:
        return 1.0 / self.settings.scan_hz

    def debounce(self) -> DebounceConfig:
        return DebounceConfig(scans=2, stable_s=self.settings.debounce_ms / 1000.0)

    def pipeline(self, backend: Any, clock: Callable[[], float],
                 debounce: DebounceConfig | None = None) -> SensingPipeline:
        return SensingPipeline(backend, clock, debounce=debounce or self.debounce(),
                               is_extendable=self.is_extendable, settle_s=self.settle_s)

    def calibration(self) -> Any:
        """The layout's stored calibration when its sensors need one (linear halls) and
        it is not being calibrated; a one-line error when the file is missing."""
        from controller.sensing.calibration import load_calibration

        if sensing_kind(self.layout).switches or self.calibrating:
            return None
        path = calibration_path(self.config, self.layout.name)
        if not path.exists():
            raise ConfigError(f"sensing.calibration: {path} not found: run "
                              "'fairyboard calibrate' first")
        return load_calibration(path, self.layout)


@dataclass(frozen=True)
class SensingBackend:
    """One ``[sensing] backend``: how it is opened and what it needs configured
    (``check`` returns a problem or ``""``).  The back end itself refuses a layout of a
    sensing kind it cannot read."""

    name: str
    help: str
    open: Callable[[Opening], Sensing]
    check: Callable[[SensingSettings], str] = lambda settings: ""


# --- each back end's settings (its class beside the back end, in ``[sensing]``) ----------


def matrix_pins(s: SensingSettings, layout: Layout | None = None) -> Any:
    """``MatrixPins`` of the ``gpio-matrix`` back end (``MatrixSettings``)."""
    return s.matrix_pins(layout)


def shift_register_pins(s: SensingSettings) -> Any:
    """``ShiftRegisterPins`` of the ``gpio-shift-register`` back end."""
    return s.shift_register_pins()


def check_pin_tables(s: SensingSettings) -> str:
    """The first problem of a ``[sensing.*]`` table that is given, or ``""``."""
    builders = {"matrix": s.matrix_pins, "shift_register": s.shift_register_pins,
                "analog": s.analog_pins, "serial": s.serial_config}
    for name, build in builders.items():
        if not getattr(s, name):
            continue
        try:
            build()
        except (ValueError, TypeError) as exc:
            return f"sensing.{name}: {exc}"
    return ""


# --- openers -------------------------------------------------------------------------


def _open_simulated(o: Opening) -> Sensing:
    from controller.sensing.sim import SimulatedBoard, SimulatedSensing

    name = simulated_circuit(o.settings, o.layout)
    over_link = SIMULATED_CIRCUITS[name].backend == "serial"
    # the emulated Pico stands for the real one: linear halls use the stored calibration
    # (``fairyboard calibrate``); the emulated Pi circuits calibrate with a simulated human
    calibration = o.calibration() if over_link else None
    sim = SimulatedBoard(o.layout, seed=o.seed)
    rig = SimulatedSensing(sim, name, debounce=None if over_link else o.debounce(),
                           settle_s=o.settle_s, is_extendable=o.is_extendable,
                           period_s=o.period, seed=o.seed, calibration=calibration)
    return Sensing(f"simulated ({name})", rig.pipeline, sim.clock, o.period, sim=sim, rig=rig,
                   link=rig.link)


def _open_gpio_matrix(o: Opening) -> Sensing:
    from controller.sensing.gpio import MatrixScanner

    clock = time.monotonic
    backend = MatrixScanner(o.layout, o.settings.matrix_pins(o.layout), clock=clock)
    return Sensing("gpio-matrix", o.pipeline(backend, clock), clock, o.period)


def _open_gpio_shift_register(o: Opening) -> Sensing:
    from controller.sensing.gpio import ShiftRegisterScanner

    clock = time.monotonic
    backend = ShiftRegisterScanner(o.layout, o.settings.shift_register_pins(), clock=clock)
    return Sensing("gpio-shift-register", o.pipeline(backend, clock), clock, o.period)


def _open_gpio_analog(o: Opening) -> Sensing:
    from controller.sensing.analog import AnalogScanner

    clock = time.monotonic
    calibration = o.calibration()
    backend = AnalogScanner(o.layout, o.settings.analog_pins(), calibration, clock=clock)
    return Sensing("gpio-analog", o.pipeline(backend, clock), clock, o.period)


def _open_serial(o: Opening) -> Sensing:
    """The microcontroller scans and debounces; frames arrive already stable."""
    from controller.sensing.serial_link import SerialLink

    clock = time.monotonic
    link = SerialLink(o.layout, o.settings.serial_config(), calibration=o.calibration(),
                      clock=clock)
    pipeline = SensingPipeline(link, clock, is_extendable=o.is_extendable,
                               settle_s=o.settle_s)
    return Sensing("serial", pipeline, clock, min(o.period, 0.005), link=link)


#: every ``[sensing] backend`` by name; the first is the default
SENSING_BACKENDS: dict[str, SensingBackend] = {b.name: b for b in (
    SensingBackend("simulated", "a simulated board in the browser (any layout)",
                   _open_simulated),
    SensingBackend("gpio-matrix", "Raspberry Pi GPIO scanning a diode matrix",
                   _open_gpio_matrix, SensingSettings.matrix_problem),
    SensingBackend("gpio-shift-register", "Raspberry Pi reading a 74HC165 chain",
                   _open_gpio_shift_register),
    SensingBackend("gpio-analog", "Raspberry Pi, CD74HC4067 multiplexers and ADS1115s",
                   _open_gpio_analog, SensingSettings.analog_problem),
    SensingBackend("serial", "a microcontroller running firmware/ over USB", _open_serial),
)}


def sensing_backend(name: str) -> SensingBackend:
    try:
        return SENSING_BACKENDS[name]
    except KeyError:
        raise SensingError(f"sensing.backend: unknown back end {name!r} "
                           f"(one of {', '.join(SENSING_BACKENDS)})") from None


def open_sensing(config: Config, layout: Layout, is_extendable: IsExtendable,
                 seed: int = 0, *, calibrating: bool = False) -> Sensing:
    """The configured back end (``[sensing]``) behind a debounce + settle pipeline;
    ``calibrating``: opened by ``fairyboard calibrate``, without a calibration."""
    backend = sensing_backend(config.sensing.backend)
    return backend.open(Opening(config, layout, is_extendable, seed, calibrating))
