"""Connect a :class:`SimulatedBoard`'s sensors to emulated circuits on a pin bank, and
re-wire a layout for another sensing (to run every back end on every board)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from controller.sensing.sim.board import SimulatedBoard
from controller.sensing.sim.electrical import (
    DEFAULT_HALL,
    HallModel,
    HallSensors,
    MuxBank,
    Pin,
    PinBank,
    ShiftRegisterChain,
    SwitchMatrix,
)


def as_sensing(layout, sensing: str):
    """``layout`` as if built with another sensing: same spots, names and LEDs; spot
    ``i`` on matrix crossing ``(i // 8, i % 8)``, chain bit ``i`` or channel ``i``.
    Returns the layout itself when it already uses ``sensing``."""
    if layout.sensing == sensing:
        return layout
    from controller.sensing.kinds import sensing_kind

    kind = sensing_kind(sensing)
    wiring, extra = kind.rewired(len(layout.spots))
    sensor_kind = kind.sensor_kind_for(layout.sensor_kind)
    spots = tuple(dataclasses.replace(s, sensor=w) for s, w in zip(layout.spots, wiring,
                                                                    strict=True))
    return dataclasses.replace(layout, spots=spots, sensing=sensing, sensor_kind=sensor_kind,
                               sensor_rule="simulated", **extra)


def matrix_switches(board: SimulatedBoard, layout):
    """``closed()`` for a :class:`SwitchMatrix`: the switch state at every crossing."""
    table = layout.matrix_table()

    def closed() -> list[list[bool]]:
        sw = board.switches()
        return [[sw[s] if s >= 0 else False for s in row] for row in table]

    return closed


def wire_matrix(bank: PinBank, board: SimulatedBoard, layout, rows: Sequence[Pin],
                columns: Sequence[Pin], diodes: str | None) -> SwitchMatrix:
    return SwitchMatrix(bank, rows, columns, matrix_switches(board, layout), diodes,
                        version=lambda: (board.revision, board.clock.us))


def wire_chain(bank: PinBank, board: SimulatedBoard, layout, load: Pin, clock: Pin,
               data: Pin, active_low: bool = True) -> ShiftRegisterChain:
    """74HC165 chain; each reed pulls its input low when closed (pull-up resistors), an
    unused input is pulled high."""
    table = layout.chain_table()

    def inputs() -> list[bool]:
        sw = board.switches()
        # a builder's wiring fault: two sensors on each other's chain inputs
        swapped = getattr(board, "swapped_bits", {})
        spots = [table[swapped.get(bit, bit)] for bit in range(len(table))]
        if getattr(board, "sensor_supply_off", False):  # open-drain outputs, pulled up
            return [active_low] * len(spots)
        closed = [sw[s] if s >= 0 else False for s in spots]
        # a builder's wiring fault: two sensors' outputs joined (a solder bridge): open
        # drain, so either one pulling low pulls both inputs low
        for a, b in getattr(board, "shorted_bits", ()):
            closed[a] = closed[b] = closed[a] or closed[b]
        # a builder's wiring fault: QH of chip k + 1 does not reach DS of chip k, so the
        # bits of every chip past k shift in as DS's idle level (read as "no magnet")
        cut = getattr(board, "chain_open_after", None)
        if cut is not None:
            spots = [s if bit < 8 * (cut + 1) else -1 for bit, s in enumerate(spots)]
        return [(not closed[bit] if active_low else closed[bit]) if s >= 0 else active_low
                for bit, s in enumerate(spots)]

    return ShiftRegisterChain(bank, load, clock, data, layout.chain_length, inputs)


def select_wiring(board: SimulatedBoard, selected: int) -> int:
    """The input the multiplexers put through when the controller selects ``selected``:
    ``board.swapped_selects`` (a, b): the wires of S_a and S_b on each other's pins;
    ``board.open_selects`` {line: level}: S_line not connected, its input held at a
    level (a floating CMOS input settles to one, here the one given)."""
    swapped = getattr(board, "swapped_selects", None)
    if swapped is not None:
        a, b = swapped
        if (selected >> a & 1) != (selected >> b & 1):
            selected ^= (1 << a) | (1 << b)
    for line, level in getattr(board, "open_selects", {}).items():
        selected = selected | (1 << line) if level else selected & ~(1 << line)
    return selected


def wire_analog(bank: PinBank, board: SimulatedBoard, layout, select: Sequence[Pin],
                signals: Sequence[Pin | None] | None = None, enables: Sequence[Pin] = (),
                model: HallModel = DEFAULT_HALL, seed: int = 0) -> tuple[MuxBank, HallSensors]:
    """Hall sensors under every spot, on CD74HC4067 multiplexers by analog channel.

    ``signals[m]``: the pin multiplexer m's output reaches (None for an external ADC; a
    single pin shared by all when ``enables`` are given)."""
    table = layout.channel_table()
    halls = HallSensors(board.field, len(layout.spots), model, seed)
    muxes = (layout.channel_count + 15) // 16

    def source(channel: int) -> float | None:
        # a builder's wiring fault: a select line open or two on each other's pins, so
        # the multiplexers put another input through than the controller selected
        mux, selected = divmod(channel, 16)
        channel = mux * 16 + select_wiring(board, selected)
        # a builder's wiring fault: two sensors on each other's multiplexer inputs
        channel = getattr(board, "swapped_inputs", {}).get(channel, channel)
        if channel >= len(table) or table[channel] < 0:
            return None
        if getattr(board, "sensor_supply_off", False):
            return 0.0  # an unpowered DRV5055's output
        return halls.voltage(table[channel])

    if signals is not None and enables:
        signals = [signals[0]] * muxes
    mux = MuxBank(bank, select, muxes, source, signals, enables)
    return mux, halls
