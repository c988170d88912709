"""How a board's sensors are wired: one object per sensing kind.

A board is read through a switch matrix, a 74HC165 shift-register chain, or linear hall
sensors on analog multiplexers.  What differs between them lives on its
:class:`SensingKind` — the back end's address of a spot, how many addresses there are, the
wiring text and pin table printed for the builder, the parts it is built from, the default
microcontroller pins and the re-wiring the simulator uses — so the rest of the code asks
the kind (``sensing_kind(layout)``) and never compares its name.

A kind also owns its part of the layout file's syntax — the sizes in ``[sensing]``, its
cell wiring rules, a pad's address keys, an explicit cell's address and the address
ranges — so ``controller/layout.py`` reads a file without knowing a kind's name, and the
three names live here alone.  Adding a sensing kind is one subclass here and one line in
:data:`SENSING_KINDS` (docs/architecture.md, "Back ends chosen by name").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: (row labels, column labels, spot index or -1 per input) of a sensor input table
Grid = tuple[list[str], list[str], list[list[int]]]
#: the first reference number of the shift registers / multiplexers (U1 is the Pico, U2 the
#: level shifter, U3 the regulator): the one home of the chips' names in the schematic, the
#: wiring tables and the guides
CHIP_REF_BASE = 10


def chip_ref(k: int) -> str:
    """The reference of the ``k``-th read-out chip (0 = nearest the Pico), as the
    schematic, the wiring sheet and the pin tables name it."""
    return f"U{CHIP_REF_BASE + k}"


@dataclass(frozen=True)
class SensorWiring:
    """Where a spot's sensor is read: a matrix row/column, a shift-register chain bit
    (0 = first bit shifted in) or an analog channel; the fields of other sensings are None."""

    row: int | None = None
    column: int | None = None
    chain: int | None = None
    channel: int | None = None

    def address(self) -> tuple[str, int, int] | tuple[str, int]:
        """A hashable address used to find two spots on one sensor input."""
        if self.row is not None and self.column is not None:
            return ("matrix", self.row, self.column)
        if self.chain is not None:
            return ("chain", self.chain)
        if self.channel is not None:
            return ("channel", self.channel)
        raise ValueError("sensor wiring without an address")

    def text(self) -> str:
        if self.row is not None:
            return f"row {self.row} / column {self.column}"
        if self.chain is not None:
            return f"chain bit {self.chain}"
        return f"channel {self.channel}"


class SensingKind:
    """The part of a board that differs with how its sensors are wired."""

    #: the layout's ``[sensing] kind``
    name = ""
    #: the layout's ``[sensing]`` size keys and the layout fields they fill
    size_keys: Mapping[str, str] = {}
    #: rules that wire the cells (``[sensing] cells``), besides explicit entries
    rules: tuple[str, ...] = ()
    #: a pad's address keys in the layout file, in the order :meth:`wiring` takes them
    pad_keys: tuple[str, ...] = ()

    def sizes_problem(self, sizes: Mapping[str, int]) -> str:
        """What is wrong with the ``[sensing]`` sizes read (by :attr:`size_keys`)."""
        return ""

    def wiring(self, values: Sequence[int]) -> SensorWiring:
        """A sensor wiring from a pad's address values (:attr:`pad_keys`)."""
        raise NotImplementedError

    def explicit_wiring(self, value: Any) -> SensorWiring:
        """An explicit cell entry's wiring (``[sensing.cell] e4 = …``); ValueError names
        what is expected."""
        if isinstance(value, int) and not isinstance(value, bool) and len(self.pad_keys) == 1:
            return self.wiring([value])
        raise ValueError(f"expected a {self.address_words} number, got {value!r}")

    #: an address in words, for messages
    address_words = ""

    def range_problem(self, layout: Any, wiring: SensorWiring) -> str:
        """An address outside the layout's circuit, in words, or ``""``."""
        (value,), count = self._numbers(wiring), self.address_count(layout)
        if not 0 <= value < count:
            return f"{self.address_words} {value} out of range 0..{count - 1}"
        return ""

    def _numbers(self, wiring: SensorWiring) -> tuple[int, ...]:
        raise NotImplementedError
    #: presence-only switches (reed, digital hall), debounced by the microcontroller's
    #: ``keypad``; False: voltages that need a per-spot calibration (linear halls)
    switches = True
    #: a diode-less matrix can read a spot that is not there (the self-test probes for it)
    can_ghost = False

    def address(self, layout: Any, wiring: Any) -> int:
        """The back end's number for one sensor input (the protocol's sensor address)."""
        raise NotImplementedError

    def address_count(self, layout: Any) -> int:
        """How many sensor inputs the back end reads."""
        raise NotImplementedError

    def rewired(self, count: int) -> tuple[list[Any], dict[str, int]]:
        """``count`` spots wired in order (spot i on address i): the wiring per spot and
        the layout's counts (the simulator runs every back end on every board)."""
        raise NotImplementedError

    def sensor_kind_for(self, sensor_kind: str) -> str:
        """The sensor a re-wired board uses, given the one it was designed with."""
        return "reed" if sensor_kind == "linear-hall" else sensor_kind

    def sensor_text(self, wiring: Any) -> str:
        """Short sensor address as printed on the wiring diagram."""
        raise NotImplementedError

    def grid(self, layout: Any) -> Grid:
        """The sensor inputs as a table for the wiring sheet."""
        raise NotImplementedError

    def summary(self, layout: Any) -> str:
        """One line naming the circuit (wiring sheet heading)."""
        raise NotImplementedError

    def gpio_needed(self, layout: Any) -> tuple[int, int]:
        """(GPIO pins, of which ADC inputs) the microcontroller needs, LED data included."""
        raise NotImplementedError

    def parts(self, layout: Any) -> list[tuple[str, int]]:
        """(part key in boards/parts.toml, quantity) of the circuit around the sensors."""
        raise NotImplementedError

    def firmware_pins(self, layout: Any, free: Sequence[str], adc: Sequence[str],
                      diodes: str) -> dict[str, Any]:
        """The firmware's pin settings (upper-case names) on a Pico with ``free`` pins."""
        raise NotImplementedError

    def pin_rows(self, fw: Mapping[str, Any]) -> tuple[list[str], str]:
        """Markdown rows of the Pico pin table and a note, from the firmware settings."""
        raise NotImplementedError

    def hello_problems(self, layout: Any, hello: Any) -> list[str]:
        """What in the firmware's HELLO contradicts the layout beyond the input count."""
        return []


class MatrixSensing(SensingKind):
    """Switches at row/column crossings, one diode each (docs/sensing.md)."""

    name = "matrix"
    can_ghost = True
    size_keys = {"rows": "matrix_rows", "columns": "matrix_columns"}
    rules = ("matrix-by-rank", "matrix-by-slice", "matrix-in-order")
    pad_keys = ("row", "column")

    def wiring(self, values: Sequence[int]) -> SensorWiring:
        return SensorWiring(row=values[0], column=values[1])

    def explicit_wiring(self, value: Any) -> SensorWiring:
        if not (isinstance(value, list) and len(value) == 2 and all(
                isinstance(v, int) and not isinstance(v, bool) for v in value)):
            raise ValueError(f"expected [row, column], got {value!r}")
        return self.wiring(value)

    def range_problem(self, layout: Any, wiring: SensorWiring) -> str:
        if not 0 <= wiring.row < layout.matrix_rows:  # type: ignore[operator]
            return f"matrix row {wiring.row} out of range 0..{layout.matrix_rows - 1}"
        if not 0 <= wiring.column < layout.matrix_columns:  # type: ignore[operator]
            return (f"matrix column {wiring.column} out of range "
                    f"0..{layout.matrix_columns - 1}")
        return ""

    def address(self, layout: Any, wiring: Any) -> int:
        return wiring.row * layout.matrix_columns + wiring.column

    def address_count(self, layout: Any) -> int:
        return layout.matrix_rows * layout.matrix_columns

    def rewired(self, count: int) -> tuple[list[Any], dict[str, int]]:
        return ([SensorWiring(row=i // 8, column=i % 8) for i in range(count)],
                {"matrix_rows": (count + 7) // 8, "matrix_columns": 8, "chain_length": 0,
                 "channel_count": 0})

    def sensor_text(self, wiring: Any) -> str:
        return f"R{wiring.row} C{wiring.column}"

    def grid(self, layout: Any) -> Grid:
        return ([f"row {r}" for r in range(layout.matrix_rows)],
                [f"col {c}" for c in range(layout.matrix_columns)],
                [list(r) for r in layout.matrix_table()])

    def summary(self, layout: Any) -> str:
        return (f"diode matrix of {layout.matrix_rows} rows × {layout.matrix_columns} columns "
                f"({layout.matrix_rows * layout.matrix_columns} positions, "
                f"{len(layout.spots)} used)")

    def gpio_needed(self, layout: Any) -> tuple[int, int]:
        return layout.matrix_rows + layout.matrix_columns + 1, 0

    def parts(self, layout: Any) -> list[tuple[str, int]]:
        return [("diode", len(layout.spots)), ("matrix-pullups", -(-layout.matrix_rows // 8))]

    def firmware_pins(self, layout: Any, free: Sequence[str], adc: Sequence[str],
                      diodes: str) -> dict[str, Any]:
        need = layout.matrix_rows + layout.matrix_columns
        if need > len(free):
            raise ValueError(f"a {layout.matrix_rows}×{layout.matrix_columns} matrix needs "
                             f"{need} pins; a Pico has {len(free)} free: use a shift-register "
                             "chain")
        return {"MATRIX_ROWS": tuple(free[:layout.matrix_rows]),
                "MATRIX_COLUMNS": tuple(free[layout.matrix_rows:need]),
                "DIODE_ANODES": diodes}

    def pin_rows(self, fw: Mapping[str, Any]) -> tuple[list[str], str]:
        anodes = fw.get("DIODE_ANODES", "rows")
        rows = [f"| matrix row {k} | {pin} |" for k, pin in enumerate(fw["MATRIX_ROWS"])]
        rows += [f"| matrix column {k} | {pin} |" for k, pin in enumerate(fw["MATRIX_COLUMNS"])]
        note = (f"Diodes: anode (plain end) toward the {anodes[:-1]} line, cathode (ringed end) "
                "toward the switch; set DIODE_ANODES in config.py if you wire them the other "
                f"way. Every {anodes[:-1]} line also gets a 4.7 kΩ pull-up to the Pico's 3V3 "
                "(pin 36): bussed networks RN1, RN2, … with their common pin on 3V3, one "
                "resistor pin per line in order.")
        return rows, note

    def hello_problems(self, layout: Any, hello: Any) -> list[str]:
        if (hello.rows, hello.columns) != (layout.matrix_rows, layout.matrix_columns):
            return [f"a {hello.rows}×{hello.columns} matrix, layout has "
                    f"{layout.matrix_rows}×{layout.matrix_columns}"]
        return []


class ShiftRegisterSensing(SensingKind):
    """Switches on the parallel inputs of a 74HC165 chain."""

    name = "shift-register"
    size_keys = {"chain_length": "chain_length"}
    rules = ("chain-in-order",)
    pad_keys = ("bit",)
    address_words = "chain bit"

    def sizes_problem(self, sizes: Mapping[str, int]) -> str:
        n = sizes["chain_length"]
        return f"a 74HC165 chain has 8 bits per chip, {n} is not a multiple" if n % 8 else ""

    def wiring(self, values: Sequence[int]) -> SensorWiring:
        return SensorWiring(chain=values[0])

    def _numbers(self, wiring: SensorWiring) -> tuple[int, ...]:
        return (wiring.chain,)  # type: ignore[return-value]

    def address(self, layout: Any, wiring: Any) -> int:
        return wiring.chain

    def address_count(self, layout: Any) -> int:
        return layout.chain_length

    def rewired(self, count: int) -> tuple[list[Any], dict[str, int]]:
        return ([SensorWiring(chain=i) for i in range(count)],
                {"matrix_rows": 0, "matrix_columns": 0, "chain_length": (count + 7) // 8 * 8,
                 "channel_count": 0})

    def sensor_text(self, wiring: Any) -> str:
        return f"bit {wiring.chain}"

    def grid(self, layout: Any) -> Grid:
        table = layout.chain_table()
        chips = layout.chain_length // 8
        return ([f"{chip_ref(k)} (bits {8 * k}–{8 * k + 7})" for k in range(chips)],
                list("HGFEDCBA"), [list(table[8 * k: 8 * k + 8]) for k in range(chips)])

    def summary(self, layout: Any) -> str:
        return (f"chain of {layout.chain_length // 8} × 74HC165 ({layout.chain_length} bits, "
                f"{len(layout.spots)} used)")

    def gpio_needed(self, layout: Any) -> tuple[int, int]:
        return 3 + 1, 0  # clock, latch (PL), data (QH) + LED data

    def parts(self, layout: Any) -> list[tuple[str, int]]:
        chips = layout.chain_length // 8
        parts = [("shift-register", chips), ("bypass-chip", chips), ("clock-resistor", 2)]
        if layout.sensor_kind == "digital-hall":
            parts.append(("pullup-network", chips))
        return parts

    def firmware_pins(self, layout: Any, free: Sequence[str], adc: Sequence[str],
                      diodes: str) -> dict[str, Any]:
        return {"SHIFT_CLOCK": "GP2", "SHIFT_LATCH": "GP3", "SHIFT_DATA": "GP4",
                "CHAIN_LENGTH": layout.chain_length}

    def pin_rows(self, fw: Mapping[str, Any]) -> tuple[list[str], str]:
        rows = [f"| 74HC165 CLK (pin 2, all chips), through 33 Ω (R5) at the Pico | "
                f"{fw['SHIFT_CLOCK']} |",
                f"| 74HC165 PL (pin 1, all chips), through 33 Ω (R6) at the Pico | "
                f"{fw['SHIFT_LATCH']} |",
                f"| QH (pin 9) of {chip_ref(0)}, the chip nearest the Pico | "
                f"{fw['SHIFT_DATA']} |"]
        note = ("Chain: QH of U(k+1) → SER (pin 10) of U(k); SER of the last chip to GND; "
                "CLK INH (pin 15) to GND.")
        return rows, note


class AnalogSensing(SensingKind):
    """Linear hall sensors on CD74HC4067 multiplexers in front of ADC inputs."""

    name = "analog"
    switches = False
    size_keys = {"channels": "channel_count"}
    rules = ("channels-in-order",)
    pad_keys = ("channel",)
    address_words = "channel"

    def wiring(self, values: Sequence[int]) -> SensorWiring:
        return SensorWiring(channel=values[0])

    def range_problem(self, layout: Any, wiring: SensorWiring) -> str:
        problem = super().range_problem(layout, wiring)
        return f"analog {problem}" if problem else ""

    def _numbers(self, wiring: SensorWiring) -> tuple[int, ...]:
        return (wiring.channel,)  # type: ignore[return-value]

    def address(self, layout: Any, wiring: Any) -> int:
        return wiring.channel

    def address_count(self, layout: Any) -> int:
        return layout.channel_count

    def rewired(self, count: int) -> tuple[list[Any], dict[str, int]]:
        return ([SensorWiring(channel=i) for i in range(count)],
                {"matrix_rows": 0, "matrix_columns": 0, "chain_length": 0,
                 "channel_count": count})

    def sensor_kind_for(self, sensor_kind: str) -> str:
        return "linear-hall"

    def sensor_text(self, wiring: Any) -> str:
        return f"ch {wiring.channel}"

    @staticmethod
    def muxes(layout: Any) -> int:
        return math.ceil(layout.channel_count / 16)

    def grid(self, layout: Any) -> Grid:
        table = layout.channel_table()
        muxes = self.muxes(layout)
        grid = [list(table[16 * k: 16 * k + 16]) for k in range(muxes)]
        for row in grid:
            row.extend([-1] * (16 - len(row)))
        return ([f"{chip_ref(k)} (ch {16 * k}–{16 * k + 15})" for k in range(muxes)],
                [f"I{k}" for k in range(16)], grid)

    def summary(self, layout: Any) -> str:
        return (f"{self.muxes(layout)} × CD74HC4067 analog multiplexers "
                f"({layout.channel_count} channels, {len(layout.spots)} used)")

    def gpio_needed(self, layout: Any) -> tuple[int, int]:
        muxes = self.muxes(layout)
        return 4 + muxes + 1, muxes  # 4 select lines, one ADC input per multiplexer, LED data

    def parts(self, layout: Any) -> list[tuple[str, int]]:
        muxes = self.muxes(layout)
        return [("mux", muxes), ("bypass-chip", muxes)]

    def firmware_pins(self, layout: Any, free: Sequence[str], adc: Sequence[str],
                      diodes: str) -> dict[str, Any]:
        channels = self.address_count(layout)
        muxes = (channels + 15) // 16
        s: dict[str, Any] = {"MUX_SELECT": ("GP2", "GP3", "GP4", "GP5"), "CHANNELS": channels,
                             "ANALOG_SETTLE_S": 0.0001}  # firmware/README.md
        if muxes <= len(adc):
            s["MUX_SIGNALS"] = tuple(adc[:muxes])
        else:  # more multiplexers than ADC pins: enables, one shared ADC input
            s["MUX_SIGNALS"] = tuple(adc[:1])
            spare = [p for p in free if p not in s["MUX_SELECT"]]
            s["MUX_ENABLE"] = tuple(spare[:muxes])
        return s

    def pin_rows(self, fw: Mapping[str, Any]) -> tuple[list[str], str]:
        rows = [f"| CD74HC4067 S{k} (all multiplexers) | {pin} |"
                for k, pin in enumerate(fw["MUX_SELECT"])]
        rows += [f"| {chip_ref(k)} SIG (common) | {pin} (ADC) |"
                 for k, pin in enumerate(fw["MUX_SIGNALS"])]
        return rows, "EN (pin 15) of every multiplexer to GND."


MATRIX = MatrixSensing()
SHIFT_REGISTER = ShiftRegisterSensing()
ANALOG = AnalogSensing()

#: every sensing kind by its layout name
SENSING_KINDS: dict[str, SensingKind] = {k.name: k for k in (MATRIX, SHIFT_REGISTER, ANALOG)}


def sensing_kind(layout_or_name: Any) -> SensingKind:
    """The :class:`SensingKind` of a layout (or of a sensing name)."""
    name = layout_or_name if isinstance(layout_or_name, str) else layout_or_name.sensing
    try:
        return SENSING_KINDS[name]
    except KeyError:
        raise ValueError(f"unknown sensing {name!r} ({', '.join(SENSING_KINDS)})") from None
