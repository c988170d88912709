"""Electrical emulation of the sensing circuits, at the level of pins and nets.

A :class:`PinBank` is the controller's side (a Pi's GPIO header or a microcontroller's
pins): each pin is an input (with pull-up, pull-down or floating) or an output driving a
level.  Devices attached to the bank decide what an input reads:

* :class:`SwitchMatrix` — switches at row/column crossings, each with a series diode or
  none.  Without diodes closed switches join nets, so three closed switches on the
  corners of a rectangle connect the fourth crossing: the ghost is reproduced, not
  simulated by a rule.  Two outputs driving different levels into one net raise
  :class:`ShortCircuit`.
* :class:`ShiftRegisterChain` — 74HC165 chips in a chain: PL low loads the inputs, each
  rising CLK with PL high shifts one bit toward QH of the first chip.
* :class:`MuxBank` + :class:`HallSensors` — linear hall sensors (quiescent voltage,
  gain, saturation, noise, per-sensor spread) behind CD74HC4067 multiplexers whose select
  lines are bank pins; :class:`Ads1115` converts like the TI part (registers over I²C).

Dimensions are plain numbers; nothing here knows about layouts or games.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

Pin = Hashable


class ShortCircuit(RuntimeError):
    """Two outputs drive one net to different levels (the scanner wired it wrong)."""


class PinBank:
    """Pin modes and levels of a controller, resolved through the attached devices."""

    def __init__(self, seed: int = 0) -> None:
        self.mode: dict[Pin, str] = {}      # "in" | "out"
        self.level: dict[Pin, bool] = {}    # output latch
        self.pull: dict[Pin, str | None] = {}
        self.devices: list = []
        self._edge_hooks: list[Callable[[Pin, bool], None]] = []  # devices' ``on_edge``
        self.rng = random.Random(seed)
        self.reads = 0
        self.writes = 0
        #: bumped on every change of a mode, pull or output level (what devices cache by)
        self.version = 0

    def attach(self, device) -> None:
        self.devices.append(device)
        hook = getattr(device, "on_edge", None)
        if hook is not None:
            self._edge_hooks.append(hook)

    def set_input(self, pin: Pin, pull: str | None) -> None:
        self.mode[pin] = "in"
        self.pull[pin] = pull
        self.version += 1

    def set_output(self, pin: Pin, level: bool) -> None:
        was_out = self.mode.get(pin) == "out"
        old = self.level.get(pin, False)
        self.mode[pin] = "out"
        self.level[pin] = bool(level)
        self.version += 1
        if not was_out or old != bool(level):
            self._edge(pin, bool(level))

    def write(self, pin: Pin, level: bool) -> None:
        if self.mode.get(pin) != "out":
            raise RuntimeError(f"pin {pin} is not an output")
        self.writes += 1
        level = bool(level)
        if self.level.get(pin, False) != level:
            self.level[pin] = level
            self.version += 1
            self._edge(pin, level)

    def _edge(self, pin: Pin, level: bool) -> None:
        for hook in self._edge_hooks:
            hook(pin, level)

    def driven(self, pin: Pin) -> bool | None:
        """The level an output drives, or None for an input."""
        return self.level.get(pin, False) if self.mode.get(pin) == "out" else None

    def read(self, pin: Pin) -> bool:
        """The logic level at a pin: its own output, a device's drive, or its pull."""
        self.reads += 1
        if self.mode.get(pin) == "out":
            return self.level[pin]
        for d in self.devices:
            v = d.level(pin)
            if v is not None:
                return v
        pull = self.pull.get(pin)
        if pull == "up":
            return True
        if pull == "down":
            return False
        return self.rng.random() < 0.5  # a floating input reads noise

    def voltage(self, pin: Pin) -> float:
        """The analog voltage at a pin (ADC input), from the devices."""
        for d in self.devices:
            f = getattr(d, "voltage", None)
            if f is not None:
                v = f(pin)
                if v is not None:
                    return v
        return self.rng.uniform(0.0, 3.3)  # floating ADC input


class SwitchMatrix:
    """Switches at the crossings of ``rows`` × ``columns`` pins.

    ``closed(r, c)`` says whether the switch is closed now.  ``diodes`` is ``"row"`` (each
    switch in series with a diode whose anode is on the row), ``"column"`` or ``None``."""

    def __init__(self, bank: PinBank, rows: Sequence[Pin], columns: Sequence[Pin],
                 closed: Callable[[], Sequence[Sequence[bool]]], diodes: str | None,
                 version: Callable[[], Hashable] | None = None) -> None:
        if diodes not in ("row", "column", None):
            raise ValueError(f"diodes must be 'row', 'column' or None, got {diodes!r}")
        self.bank = bank
        self.rows = list(rows)
        self.columns = list(columns)
        self.row_of = {p: i for i, p in enumerate(self.rows)}
        self.col_of = {p: i for i, p in enumerate(self.columns)}
        self.closed = closed
        self.diodes = diodes
        self.version = version
        #: wiring faults a builder could make (:class:`MatrixFaults`); None: as designed
        self.faults: MatrixFaults | None = None
        self._cache_key: Hashable = object()
        self._state: Sequence[Sequence[bool]] = ()
        self._adj: list[list[int]] = []
        self._serial = 0  # bumped whenever the switch state is read again
        #: with faults, per switch state: each node's pins and the nodes one closed
        #: switch away in each direction (:meth:`_fault_paths`)
        self._paths: tuple[list[list[Pin]], dict[bool, list[list[int]]]] | None = None
        self._paths_serial = -1
        self._across: dict[Pin, list[Pin]] = {}  # see :meth:`_closed_across`
        self._across_serial = -1
        #: every node's level with faults, per bank version and switch state
        self._levels: list[bool | None] = []
        self._levels_key: tuple[int, int] | None = None
        bank.attach(self)

    def inject(self, faults: MatrixFaults | None) -> None:
        """Wire the matrix with ``faults`` from now on (None: repaired)."""
        self.faults = faults
        if not hasattr(self, "_pins"):
            self._pins = (list(self.rows), list(self.columns))
        rows, columns = list(self._pins[0]), list(self._pins[1])
        for lines, pairs in ((rows, faults.swapped_rows if faults else ()),
                             (columns, faults.swapped_columns if faults else ())):
            for a, b in pairs:  # the two wires land on each other's pins
                lines[a], lines[b] = lines[b], lines[a]
        self.rows, self.columns = rows, columns
        self.row_of = {p: i for i, p in enumerate(self.rows)}
        self.col_of = {p: i for i, p in enumerate(self.columns)}
        self._cache_key = object()

    def _switches(self) -> Sequence[Sequence[bool]]:
        key = self.version() if self.version else object()
        if key != self._cache_key:
            self._cache_key = key
            self._serial += 1
            self._state = self.closed()
            if self.faults is not None:
                self._state = self.faults.conducting(self._state)
            nr, nc = len(self.rows), len(self.columns)
            adj: list[list[int]] = [[] for _ in range(nr + nc)]
            for r in range(nr):
                for c in range(nc):
                    if self._state[r][c]:
                        adj[r].append(nr + c)
                        adj[nr + c].append(r)
            self._adj = adj
        return self._state

    def level(self, pin: Pin) -> bool | None:
        r, c = self.row_of.get(pin), self.col_of.get(pin)
        if r is None and c is None:
            return None
        self._switches()
        if self.faults is not None:
            return self._faulty_level(r, c)
        if self.diodes is None:
            return self._net_level(r if r is not None else len(self.rows) + c)
        # with diodes a node is only pulled through one switch, in the forward direction
        anode_side = (r is not None) == (self.diodes == "row")
        driven = self.bank.driven
        for other in self._closed_across()[pin]:
            d = driven(other)
            if anode_side and d is False:
                return False  # anode follows a cathode driven low (forward biased)
            if not anode_side and d is True:
                return True  # cathode follows an anode driven high
        return None

    def _closed_across(self) -> dict[Pin, list[Pin]]:
        """For the switch state now, each line's pin: the pins of the lines across its
        closed switches.  Built once per switch state: a scan reads every line of it."""
        if self._across_serial != self._serial:
            state = self._state
            across: dict[Pin, list[Pin]] = {}
            for r, row_pin in enumerate(self.rows):
                across[row_pin] = [p for k, p in enumerate(self.columns) if state[r][k]]
            for k, column_pin in enumerate(self.columns):
                across[column_pin] = [p for r, p in enumerate(self.rows) if state[r][k]]
            self._across, self._across_serial = across, self._serial
        return self._across

    def _fault_paths(self) -> tuple[list[list[Pin]], dict[bool, list[list[int]]]]:
        """With :attr:`faults`, for the switch state now: each node's controller pins (a
        line and any line shorted to it), and the nodes current can reach from each node
        through one closed switch, flowing toward a low line (``True``) or from a high
        one (``False``), each in the direction its diode lets it.  Built once per switch
        state: a scan reads every line of it."""
        if self._paths is not None and self._paths_serial == self._serial:
            return self._paths
        faults = self.faults
        assert faults is not None
        nr, nc = len(self.rows), len(self.columns)
        state, diodes = self._state, self.diodes
        pins = ([[self.rows[k] for k in faults.net(n, "row", nr)] for n in range(nr)]
                + [[self.columns[k] for k in faults.net(n, "column", nc)] for n in range(nc)])
        reach: dict[bool, list[list[int]]] = {}
        for toward_low in (True, False):
            table: list[list[int]] = []
            for node in range(nr):
                table.append([nr + col for row in faults.net(node, "row", nr)
                              for col in range(nc)
                              if state[row][col] and faults.conducts(
                                  row, col, diodes, from_row=toward_low)])
            for node in range(nc):
                table.append([row for col in faults.net(node, "column", nc)
                              for row in range(nr)
                              if state[row][col] and faults.conducts(
                                  row, col, diodes, from_row=not toward_low)])
            reach[toward_low] = table
        self._paths, self._paths_serial = (pins, reach), self._serial
        return self._paths

    def _faulty_level(self, r: int | None, c: int | None) -> bool | None:
        """The level of a line when :attr:`faults` are injected: current may flow over
        several switches (a ghost path), each in the direction its diode lets it."""
        key = (self.bank.version, self._serial)
        if key != self._levels_key:
            self._levels_key, self._levels = key, self._fault_levels()
        return self._levels[r if r is not None else len(self.rows) + c]

    def _fault_levels(self) -> list[bool | None]:
        """Every node's level with :attr:`faults`, for the pins and switches now: its own
        drive (two outputs fighting: low wins); else low when current can flow from it
        to a line driven low through undriven nodes; else high when it can flow to it
        from a line driven high; else None (floating).  Found backwards from the driven
        lines, once for all the lines a scan reads before a pin changes."""
        pins, reach = self._fault_paths()
        bank = self.bank
        drives: list[bool | None] = []
        for node_pins in pins:
            levels = {bank.driven(p) for p in node_pins} - {None}
            drives.append((False not in levels) if levels else None)
        out = list(drives)
        for toward_low, level in ((True, False), (False, True)):
            before: list[list[int]] = [[] for _ in drives]  # the reach, reversed
            for node, nexts in enumerate(reach[toward_low]):
                for nxt in nexts:
                    before[nxt].append(node)
            todo = [n for n, d in enumerate(drives) if d is level]
            seen = set(todo)
            while todo:
                for prev in before[todo.pop()]:
                    if prev in seen or drives[prev] is not None:
                        continue
                    seen.add(prev)
                    if out[prev] is None:
                        out[prev] = level
                    todo.append(prev)
        return out

    def _net_level(self, node: int) -> bool | None:
        """Level of the net containing ``node`` when switches join nets directly."""
        self._switches()
        nr = len(self.rows)
        seen = {node}
        todo = [node]
        while todo:
            n = todo.pop()
            for m in self._adj[n]:
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        levels = set()
        pulls = set()
        for n in seen:
            pin = self.rows[n] if n < nr else self.columns[n - nr]
            d = self.bank.driven(pin)
            if d is not None:
                levels.add(d)
            elif self.bank.pull.get(pin):
                pulls.add(self.bank.pull[pin] == "up")
        if len(levels) > 1:
            raise ShortCircuit("two outputs drive one matrix net high and low through "
                               "closed switches (no diodes): idle lines must be inputs")
        if levels:
            return levels.pop()
        if len(pulls) == 1:
            return pulls.pop()
        return None


@dataclass
class MatrixFaults:
    """Wiring faults of a :class:`SwitchMatrix`, as a builder makes them: a row or
    column wire that never reaches its pin (open), two wires touching (shorted), a diode
    soldered the wrong way round (``"reversed"``), left out and bridged (``"bridged"``)
    or not connected (``"open"``).  Rows and columns by index in the matrix."""

    open_rows: set[int] = field(default_factory=set)
    open_columns: set[int] = field(default_factory=set)
    shorted_rows: list[tuple[int, int]] = field(default_factory=list)
    shorted_columns: list[tuple[int, int]] = field(default_factory=list)
    diodes: dict[tuple[int, int], str] = field(default_factory=dict)
    #: two row (column) wires each soldered to the other's controller pin
    swapped_rows: list[tuple[int, int]] = field(default_factory=list)
    swapped_columns: list[tuple[int, int]] = field(default_factory=list)

    DIODE_FAULTS = ("reversed", "bridged", "open")

    def __post_init__(self) -> None:
        for cell, fault in self.diodes.items():
            if fault not in self.DIODE_FAULTS:
                raise ValueError(f"diode fault at {cell} must be one of "
                                 f"{', '.join(self.DIODE_FAULTS)}, got {fault!r}")

    def conducting(self, closed: Sequence[Sequence[bool]]) -> list[list[bool]]:
        """The switches that connect their row and column wires (open wires and open
        diodes left out)."""
        return [[bool(x) and r not in self.open_rows and c not in self.open_columns
                 and self.diodes.get((r, c)) != "open" for c, x in enumerate(row)]
                for r, row in enumerate(closed)]

    def net(self, line: int, kind: str, count: int) -> list[int]:
        """The lines joined to ``line`` (itself first) by shorts."""
        pairs = self.shorted_rows if kind == "row" else self.shorted_columns
        joined = [line]
        for a, b in pairs:
            for x, y in ((a, b), (b, a)):
                if x in joined and y not in joined and 0 <= y < count:
                    joined.append(y)
        return joined

    def conducts(self, row: int, col: int, diodes: str | None, from_row: bool) -> bool:
        """Whether the closed switch at (row, col) lets current flow row → column
        (``from_row``) or column → row."""
        fault = self.diodes.get((row, col))
        if diodes is None or fault == "bridged":
            return True
        forward = from_row == (diodes == "row")  # current flows anode → cathode
        return forward != (fault == "reversed")


class ShiftRegisterChain:
    """74HC165 parallel-in/serial-out chips chained QH → DS, ``bits`` = 8 × chips.

    ``inputs()`` gives the electrical level of every input in chain-bit order: bit 0 is
    input H of the chip nearest the controller (the first bit out), bit 7 its input A,
    bit 8 input H of the next chip.  The last chip's DS is tied low."""

    def __init__(self, bank: PinBank, load: Pin, clock: Pin, data: Pin, bits: int,
                 inputs: Callable[[], Sequence[bool]]) -> None:
        if bits % 8:
            raise ValueError(f"a 74HC165 chain has 8 bits per chip, got {bits}")
        self.bank = bank
        self.load_pin, self.clock_pin, self.data_pin = load, clock, data
        self.bits = bits
        self.inputs = inputs
        self.loaded: list[bool] = [False] * bits
        #: how far the loaded bits have shifted toward QH (past the end: DS's low)
        self.shifted = 0
        self.shifts = 0
        bank.attach(self)

    def _loading(self) -> bool:
        return self.bank.driven(self.load_pin) is False

    def on_edge(self, pin: Pin, level: bool) -> None:
        if pin == self.load_pin and level:
            self.loaded = list(self.inputs())  # PL rising: the loaded value is kept
            self.shifted = 0
        elif pin == self.clock_pin and level and not self._loading():
            self.shifted += 1  # every bit one place toward QH, DS's low shifting in
            self.shifts += 1

    def level(self, pin: Pin) -> bool | None:
        if pin != self.data_pin:
            return None
        if self._loading():
            return bool(self.inputs()[0])
        return self.loaded[self.shifted] if self.shifted < self.bits else False


@dataclass(frozen=True)
class HallModel:
    """A linear hall sensor (DRV5055/SS49E-like) at 3.3 V, in volts."""

    quiescent_v: float = 1.65
    quiescent_sigma_v: float = 0.02  # sensor-to-sensor offset spread
    gain_v: float = 0.5              # volts per unit field (one centred magnet)
    gain_sigma: float = 0.05         # relative sensor-to-sensor gain spread
    saturation_v: float = 1.2        # output swing limit around quiescent (soft, tanh)
    noise_v: float = 0.003           # per-reading noise (sigma)


DEFAULT_HALL = HallModel()


class HallSensors:
    """One linear hall sensor per spot, each with its own offset and gain."""

    def __init__(self, field: Callable[[int], float], count: int,
                 model: HallModel = HallModel(), seed: int = 0) -> None:
        rng = random.Random(seed * 7919 + 17)
        self.field = field
        self.model = model
        self.offset = [model.quiescent_v + rng.gauss(0, model.quiescent_sigma_v)
                       for _ in range(count)]
        self.gain = [model.gain_v * (1 + rng.gauss(0, model.gain_sigma)) for _ in range(count)]
        self.noise = random.Random(seed * 104729 + 3)

    def voltage(self, spot: int) -> float:
        m = self.model
        raw = self.gain[spot] * self.field(spot)
        v = self.offset[spot] + m.saturation_v * math.tanh(raw / m.saturation_v)
        return v + self.noise.gauss(0, m.noise_v)


class MuxBank:
    """CD74HC4067 16-way multiplexers sharing four select pins (S0 = bit 0).

    ``source(channel)`` is the voltage on input ``channel % 16`` of multiplexer
    ``channel // 16`` (None: nothing connected).  ``signal_pins[m]`` is the controller
    pin multiplexer m's common output goes to (an ADC pin), or None when it feeds an
    external ADC (see :meth:`output`).  ``enable_pins`` (active low) are optional."""

    def __init__(self, bank: PinBank, select_pins: Sequence[Pin], count: int,
                 source: Callable[[int], float | None],
                 signal_pins: Sequence[Pin | None] | None = None,
                 enable_pins: Sequence[Pin] = ()) -> None:
        if len(select_pins) != 4:
            raise ValueError("a CD74HC4067 has four select lines S0..S3")
        self.bank = bank
        self.select_pins = list(select_pins)
        self.count = count
        self.source = source
        self.signal_pins = list(signal_pins or [None] * count)
        self.enable_pins = list(enable_pins)
        bank.attach(self)

    def selected(self) -> int:
        sel = 0
        for b, p in enumerate(self.select_pins):
            if self.bank.driven(p):
                sel |= 1 << b
        return sel

    def output(self, mux: int) -> float | None:
        """Voltage at multiplexer ``mux``'s common pin (None when disabled)."""
        if self.enable_pins and self.bank.driven(self.enable_pins[mux]) is not False:
            return None
        return self.source(mux * 16 + self.selected())

    def level(self, pin: Pin) -> bool | None:
        return None

    def voltage(self, pin: Pin) -> float | None:
        enabled = [m for m, p in enumerate(self.signal_pins) if p == pin]
        for m in enabled:
            v = self.output(m)
            if v is not None:
                return v
        return None


class Ads1115:
    """The register interface of a TI ADS1115 (single-shot, single-ended inputs).

    ``analog(input)`` gives the voltage on AIN0..3 (None: floating).  A conversion
    started by writing the config register with OS=1 completes after
    ``busy_polls`` reads of the config register."""

    PGA_FSR = (6.144, 4.096, 2.048, 1.024, 0.512, 0.256, 0.256, 0.256)

    def __init__(self, analog: Callable[[int], float | None], busy_polls: int = 1,
                 seed: int = 0) -> None:
        self.analog = analog
        self.busy_polls = busy_polls
        self.config = 0x8583  # power-on default
        self.conversion = 0
        self._busy = 0
        self.rng = random.Random(seed)
        self.conversions = 0

    def write_register(self, reg: int, value: int) -> None:
        if reg == 0x01:
            self.config = value & 0x7FFF
            if value & 0x8000:
                self._convert()
        elif reg in (0x02, 0x03):
            pass  # comparator thresholds: unused
        elif reg != 0x00:
            raise OSError(5, f"ADS1115 has no register {reg}")

    def _convert(self) -> None:
        mux = (self.config >> 12) & 0x7
        if mux < 4:
            raise ValueError("the emulation models single-ended inputs only (MUX >= 4)")
        fsr = self.PGA_FSR[(self.config >> 9) & 0x7]
        v = self.analog(mux - 4)
        if v is None:
            v = self.rng.uniform(0, 3.3)
        code = int(round(v / fsr * 32768))
        self.conversion = max(-32768, min(32767, code)) & 0xFFFF
        self._busy = self.busy_polls
        self.conversions += 1

    def read_register(self, reg: int) -> int:
        if reg == 0x01:
            if self._busy:
                self._busy -= 1
                return self.config  # OS = 0: converting
            return self.config | 0x8000
        if reg == 0x00:
            return self.conversion
        raise OSError(5, f"ADS1115 has no readable register {reg}")
