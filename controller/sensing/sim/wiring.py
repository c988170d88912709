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
        return [(not sw[s] if active_low else sw[s]) if s >= 0 else active_low
                for s in table]

    return ShiftRegisterChain(bank, load, clock, data, layout.chain_length, inputs)


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
        # a builder's wiring fault: two sensors on each other's multiplexer inputs
        channel = getattr(board, "swapped_inputs", {}).get(channel, channel)
        if channel >= len(table) or table[channel] < 0:
            return None
        return halls.voltage(table[channel])

    if signals is not None and enables:
        signals = [signals[0]] * muxes
    mux = MuxBank(bank, select, muxes, source, signals, enables)
    return mux, halls
