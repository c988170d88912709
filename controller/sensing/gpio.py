"""Direct GPIO back ends on a Raspberry Pi: a switch matrix scanned line by line and a
74HC165 shift-register chain (bit-banged or read through SPI).

Both speak the ``RPi.GPIO`` API, which ``rpi-lgpio`` provides on a Pi 5.  The module is
imported only when a back end is built without an injected ``gpio`` object, and a
missing package gives a :class:`SensingError` saying what to install.  Debouncing is
ours (``controller.sensing.debounce``), never ``bouncetime`` (rpi-lgpio's differs).
"""

from __future__ import annotations

import importlib
import os
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.sensing.frame import DEFAULT_CLOCK, Clock, Frame, SensingError, digital_frame
from controller.sensing.kinds import MATRIX, SHIFT_REGISTER, sensing_kind


def _writable_folder() -> str:
    """A folder the service user may write: its runtime folder, else the temp folder."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.access(runtime, os.W_OK):
        return runtime
    return tempfile.gettempdir()


def load_rpi_gpio(importer: Callable[[str], Any] = importlib.import_module) -> Any:
    """``RPi.GPIO``, or a clear error naming the package to install.

    On a Pi 5, rpi-lgpio's lgpio creates its notification pipes (``.lgd-nfy*``) in the
    working directory; a service started in a folder it cannot write (``/`` under
    systemd) fails there with ``FileNotFoundError``.  Then the import is retried once
    from a writable folder (the process's working directory moves there)."""
    try:
        try:
            return importer("RPi.GPIO")
        except (FileNotFoundError, PermissionError):
            os.chdir(_writable_folder())
            return importer("RPi.GPIO")
    except ImportError as exc:
        raise SensingError(
            "the GPIO back ends need the RPi.GPIO API: install 'rpi-lgpio' on a Raspberry "
            "Pi 5 or 'RPi.GPIO' on earlier models (pip install fairyboard[pi]); on a PC use "
            "the simulated board") from exc
    except RuntimeError as exc:  # RPi.GPIO refuses to load off a Pi
        raise SensingError(f"RPi.GPIO cannot run here: {exc}") from exc
    except OSError as exc:
        raise SensingError(
            f"RPi.GPIO (lgpio) could not start in {os.getcwd()}: {exc.strerror or exc}; it "
            "needs a writable working directory (WorkingDirectory= in the service unit)"
        ) from None


def load_spidev() -> Any:
    try:
        import spidev  # type: ignore[import-not-found]
    except ImportError as exc:
        raise SensingError("reading the shift-register chain through SPI needs 'spidev' "
                           "(pip install spidev; enable SPI with raspi-config), or configure "
                           "clock and data pins to bit-bang it") from exc
    return spidev


def _pins(table: Mapping[str, Any], key: str, count: int | None = None) -> tuple[int, ...]:
    value = table.get(key)
    if not isinstance(value, list | tuple) or not all(
            isinstance(p, int) and not isinstance(p, bool) for p in value):
        raise ValueError(f"{key}: expected a list of BCM pin numbers, got {value!r}")
    if count is not None and len(value) != count:
        raise ValueError(f"{key}: the layout needs {count} pins, got {len(value)}")
    return tuple(value)


def _check_distinct(pins: Sequence[int], what: str) -> None:
    for p in pins:
        if not 0 <= p <= 27:
            raise ValueError(f"{what}: BCM pin {p} does not exist (0..27)")
    seen = set()
    for p in pins:
        if p in seen:
            raise ValueError(f"{what}: BCM pin {p} is used twice")
        seen.add(p)


@dataclass(frozen=True)
class MatrixPins:
    """BCM pins of a switch matrix, in the layout's row and column order.

    ``diodes``: ``"row"`` when each switch's diode has its anode on the row (square8's
    notes), ``"column"`` for the other way round, ``None`` for a matrix without diodes
    (it ghosts; the scanner reports suspects).  ``settle_us`` waits after driving a line."""

    rows: tuple[int, ...]
    columns: tuple[int, ...]
    diodes: str | None = "row"
    settle_us: float = 0.0

    def __post_init__(self) -> None:
        if self.diodes not in ("row", "column", None):
            raise ValueError(f"diodes must be 'row', 'column' or none, got {self.diodes!r}")
        _check_distinct(self.rows + self.columns, "matrix pins")

    @classmethod
    def from_table(cls, table: Mapping[str, Any], layout=None) -> MatrixPins:
        """From a TOML table ``{rows = [...], columns = [...], diodes = "row"|"column"|"none"}``."""
        rows = _pins(table, "rows", layout.matrix_rows if layout else None)
        cols = _pins(table, "columns", layout.matrix_columns if layout else None)
        diodes = table.get("diodes", "row")
        return cls(rows, cols, None if diodes in ("none", None) else diodes,
                   float(table.get("settle_us", 0.0)))


@dataclass
class MatrixSettings:
    """The ``gpio-matrix`` back end's settings: its table ``[sensing.matrix]`` (rows,
    columns, diodes ``"row"`` | ``"column"`` | ``"none"``, settle_us) over the flat
    ``[sensing]`` pins older files give."""

    #: GPIO matrix: BCM pin numbers of the row drivers and column inputs
    row_pins: list[int] = field(default_factory=list)
    column_pins: list[int] = field(default_factory=list)
    #: the table; its keys win over the flat pins above
    matrix: dict[str, Any] = field(default_factory=dict)

    def matrix_pins(self, layout: Any = None) -> MatrixPins:
        """``MatrixPins`` from the flat pins and the table."""
        return MatrixPins.from_table({"rows": self.row_pins, "columns": self.column_pins,
                                      **self.matrix}, layout)

    def matrix_problem(self) -> str:
        """What the ``gpio-matrix`` back end misses, or ``""``."""
        if not self.matrix.get("rows", self.row_pins) or not self.matrix.get(
                "columns", self.column_pins):
            return ("sensing.row_pins and sensing.column_pins are needed for the gpio-matrix "
                    "back end")
        return ""


class MatrixScanner:
    """Scans a switch matrix line by line; one full scan per :meth:`read`.

    The sense lines are inputs with pull-ups.  Each strobe line is an output, driven
    low, only while it is read; idle it is an input with a pull-up — with or without
    diodes, since one missing or shorted diode would otherwise turn an idle line driven
    high into an output-to-output short through a ghost path.  Idle as inputs, such a
    diode shows up as a ghost instead (:attr:`ghost_suspects`, the self-test's probe)."""

    debounced = False

    def __init__(self, layout, pins: MatrixPins, *, gpio: Any = None,
                 clock: Clock = DEFAULT_CLOCK,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if sensing_kind(layout) is not MATRIX:
            raise SensingError(f"layout {layout.name} is wired as {layout.sensing}, not a matrix")
        if len(pins.rows) != layout.matrix_rows or len(pins.columns) != layout.matrix_columns:
            raise SensingError(
                f"layout {layout.name} has a {layout.matrix_rows}×{layout.matrix_columns} "
                f"matrix; the configuration gives {len(pins.rows)} row and "
                f"{len(pins.columns)} column pins")
        self.layout = layout
        self.pins = pins
        self.gpio = gpio if gpio is not None else load_rpi_gpio()
        self.clock = clock
        self.sleep = sleep
        self.n = len(layout.spots)
        self.table = layout.matrix_table()
        # strobe k / sense m -> spot (or -1)
        if pins.diodes == "row":  # anodes on rows: pull a column low, rows follow
            self.strobes, self.senses = pins.columns, pins.rows
            self.spot_at = [[self.table[m][k] for m in range(len(pins.rows))]
                            for k in range(len(pins.columns))]
        else:
            self.strobes, self.senses = pins.rows, pins.columns
            self.spot_at = [list(r) for r in self.table]
        self.ghost_suspects: tuple[int, ...] = ()
        self.scans = 0
        g = self.gpio
        g.setwarnings(False)
        g.setmode(g.BCM)
        for p in self.senses:
            g.setup(p, g.IN, pull_up_down=g.PUD_UP)
        for p in self.strobes:
            g.setup(p, g.IN, pull_up_down=g.PUD_UP)

    def scan_switches(self) -> list[list[bool]]:
        """``closed[strobe][sense]`` for one pass over the matrix."""
        g = self.gpio
        low = g.LOW
        settle = self.pins.settle_us / 1e6
        out = []
        for p in self.strobes:
            g.setup(p, g.OUT, initial=low)
            if settle:
                self.sleep(settle)
            out.append([g.input(q) == low for q in self.senses])
            g.setup(p, g.IN, pull_up_down=g.PUD_UP)
        return out

    def scan_backwards(self) -> frozenset[int] | None:
        """Spots whose switch is closed through a diode that conducts backwards (soldered
        the wrong way round, or bridged): each sense line driven low in turn, the strobe
        lines read through their pull-ups — a diode the right way round blocks that, so an
        open wire and a line of reversed diodes, alike in :meth:`scan`, differ here.
        None for a matrix without diodes."""
        if self.pins.diodes is None:
            return None
        g = self.gpio
        low = g.LOW
        settle = self.pins.settle_us / 1e6
        found: set[int] = set()
        for m, p in enumerate(self.senses):
            g.setup(p, g.OUT, initial=low)
            if settle:
                self.sleep(settle)
            for k, q in enumerate(self.strobes):
                if g.input(q) == low and self.spot_at[k][m] >= 0:
                    found.add(self.spot_at[k][m])
            g.setup(p, g.IN, pull_up_down=g.PUD_UP)
        return frozenset(found)

    def scan(self) -> Frame:
        closed = self.scan_switches()
        t = self.clock()
        occupied = [False] * self.n
        for k, row in enumerate(closed):
            for m, c in enumerate(row):
                spot = self.spot_at[k][m]
                if c and spot >= 0:
                    occupied[spot] = True
        self.scans += 1
        self.ghost_suspects = tuple(self.spot_at[k][m] for k, m in ghost_candidates(closed)
                                    if self.spot_at[k][m] >= 0)
        return digital_frame(t, occupied)

    def read(self) -> list[Frame]:
        return [self.scan()]

    def close(self) -> None:
        self.gpio.cleanup(list(self.strobes) + list(self.senses))


def ghost_candidates(closed: Sequence[Sequence[bool]]) -> list[tuple[int, int]]:
    """Crossings that read closed and could be ghosts in a diode-less matrix: the other
    three corners of some rectangle through them are closed too, so the fourth would read
    closed whatever its switch does."""
    nr = len(closed)
    nc = len(closed[0]) if nr else 0
    out = []
    for r in range(nr):
        for c in range(nc):
            if not closed[r][c]:
                continue
            found = False
            for r2 in range(nr):
                if r2 == r or not closed[r2][c]:
                    continue
                for c2 in range(nc):
                    if c2 != c and closed[r][c2] and closed[r2][c2]:
                        found = True
                        break
                if found:
                    break
            if found:
                out.append((r, c))
    return out


@dataclass(frozen=True)
class ShiftRegisterPins:
    """A 74HC165 chain: ``load`` is PL (BCM).  Either ``spi_bus``/``spi_device`` (QH on
    MISO, CLK on SCLK) or ``clock`` and ``data`` pins to bit-bang.  ``active_low``: a
    closed reed pulls its input low (pull-up resistors), the usual wiring."""

    load: int
    clock: int | None = None
    data: int | None = None
    spi_bus: int | None = None
    spi_device: int = 0
    spi_speed_hz: int = 1_000_000
    active_low: bool = True

    def __post_init__(self) -> None:
        if self.spi_bus is None and (self.clock is None or self.data is None):
            raise ValueError("shift register: give spi_bus, or both clock and data pins")
        pins = [self.load] + ([self.clock, self.data] if self.spi_bus is None else [])
        _check_distinct([p for p in pins if p is not None], "shift-register pins")

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> ShiftRegisterPins:
        known = {"load", "clock", "data", "spi_bus", "spi_device", "spi_speed_hz", "active_low"}
        unknown = set(table) - known
        if unknown:
            raise ValueError(f"shift register: unknown keys {sorted(unknown)} "
                             f"(known: {sorted(known)})")
        if "load" not in table:
            raise ValueError("shift register: 'load' (the PL pin) is missing")
        return cls(**dict(table))


@dataclass
class ShiftRegisterSettings:
    """The ``gpio-shift-register`` back end's settings: its table
    ``[sensing.shift_register]`` (load, clock, data, spi_bus, spi_device, spi_speed_hz,
    active_low) over the flat ``[sensing]`` pins older files give."""

    #: 74HC165 chain: load (PL), clock (CLK) and data (QH) pins, or use SPI bus 0
    load_pin: int = 25
    clock_pin: int = 11
    data_pin: int = 9
    use_spi: bool = True
    #: the table; its keys win over the flat pins above (its clock and data: bit-banged)
    shift_register: dict[str, Any] = field(default_factory=dict)

    @property
    def chain_over_spi(self) -> bool:
        """Whether the chain is read over SPI (else bit by bit on GPIO pins)."""
        return self.use_spi and not {"clock", "data"} & set(self.shift_register)

    def shift_register_pins(self) -> ShiftRegisterPins:
        """``ShiftRegisterPins`` from the flat pins and the table."""
        base: dict[str, Any] = {"load": self.load_pin}
        if self.chain_over_spi:
            base["spi_bus"] = 0
        else:
            base.update(clock=self.clock_pin, data=self.data_pin)
        return ShiftRegisterPins.from_table({**base, **self.shift_register})


class ShiftRegisterScanner:
    """Reads a 74HC165 chain: pulse PL low to load, then shift every bit out."""

    debounced = False

    def __init__(self, layout, pins: ShiftRegisterPins, *, gpio: Any = None, spi: Any = None,
                 clock: Clock = DEFAULT_CLOCK) -> None:
        if sensing_kind(layout) is not SHIFT_REGISTER:
            raise SensingError(f"layout {layout.name} is wired as {layout.sensing}, "
                               "not a shift-register chain")
        self.layout = layout
        self.pins = pins
        self.gpio = gpio if gpio is not None else load_rpi_gpio()
        self.clock = clock
        self.bits = layout.chain_length
        self.table = layout.chain_table()
        self.n = len(layout.spots)
        self.scans = 0
        g = self.gpio
        g.setwarnings(False)
        g.setmode(g.BCM)
        g.setup(pins.load, g.OUT, initial=g.HIGH)
        self.spi = None
        if pins.spi_bus is not None:
            if spi is None:
                spi = load_spidev().SpiDev()
            spi.open(pins.spi_bus, pins.spi_device)
            spi.max_speed_hz = pins.spi_speed_hz
            spi.mode = 0
            self.spi = spi
        else:
            g.setup(pins.clock, g.OUT, initial=g.LOW)
            g.setup(pins.data, g.IN, pull_up_down=g.PUD_OFF)

    def read_bits(self) -> list[bool]:
        """Electrical level of every chain input, chain-bit order."""
        g = self.gpio
        g.output(self.pins.load, g.LOW)
        g.output(self.pins.load, g.HIGH)
        if self.spi is not None:
            data = self.spi.xfer2([0] * (self.bits // 8))
            return [bool(byte >> (7 - b) & 1) for byte in data for b in range(8)]
        levels = []
        clk, dat, high, low = self.pins.clock, self.pins.data, g.HIGH, g.LOW
        for _ in range(self.bits):
            levels.append(g.input(dat) == high)
            g.output(clk, high)
            g.output(clk, low)
        return levels

    def scan(self) -> Frame:
        levels = self.read_bits()
        t = self.clock()
        occupied = [False] * self.n
        active = not self.pins.active_low
        for bit, spot in enumerate(self.table):
            if spot >= 0 and levels[bit] == active:
                occupied[spot] = True
        self.scans += 1
        return digital_frame(t, occupied)

    def read(self) -> list[Frame]:
        return [self.scan()]

    def close(self) -> None:
        if self.spi is not None:
            self.spi.close()
        pins = [self.pins.load] + ([self.pins.clock, self.pins.data] if self.spi is None else [])
        self.gpio.cleanup(pins)
