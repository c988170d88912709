"""Seed the wiring faults a builder makes into the emulated electronics, by name.

The self-test must name them (issue #16), so tests put them on a running rig:

* :func:`seed_matrix_faults` — an open row or column wire, two shorted wires, a diode
  reversed, bridged or open at a spot, on the emulated
  :class:`~controller.sensing.sim.electrical.SwitchMatrix` of a ``gpio-matrix`` rig;
* :func:`swap_led_colours` — LED chips that take the driver's bytes in another order
  (a chain wired for another ``pixel_order``), on a
  :class:`~controller.leds.simulated.SimulatedChain`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from controller.sensing.sim.electrical import MatrixFaults, SwitchMatrix


def matrix_cell(layout: Any, spot: str) -> tuple[int, int]:
    """(row, column) of the matrix crossing a spot's sensor sits on."""
    wiring = layout.spots[layout.spot_index(spot)].sensor
    return wiring.row, wiring.column


def _matrix_of(rig: Any) -> SwitchMatrix | None:
    """The emulated matrix of a rig: its own (Pi GPIO) or its microcontroller's (until
    the emulated microcontroller restarts and wires a fresh one)."""
    if rig.matrix is not None:
        return rig.matrix
    bank = getattr(rig.mcu, "bank", None)
    found = [d for d in getattr(bank, "devices", ()) if isinstance(d, SwitchMatrix)]
    return found[0] if found else None


def seed_matrix_faults(target: Any, *, open_rows: Iterable[int] = (),
                       open_columns: Iterable[int] = (),
                       shorted_rows: Iterable[tuple[int, int]] = (),
                       shorted_columns: Iterable[tuple[int, int]] = (),
                       diodes: Mapping[str, str] | None = None,
                       swapped_rows: Iterable[tuple[int, int]] = (),
                       swapped_columns: Iterable[tuple[int, int]] = ()) -> MatrixFaults:
    """Wire the matrix of ``target`` (a :class:`SimulatedSensing` or the
    :class:`SwitchMatrix` itself) with these faults; ``diodes`` maps a spot name to
    ``"reversed"``, ``"bridged"`` or ``"open"``."""
    matrix = target if isinstance(target, SwitchMatrix) else _matrix_of(target)
    if matrix is None:
        raise ValueError("wiring faults are emulated on the matrix circuits only")
    layout = target.layout if not isinstance(target, SwitchMatrix) else None
    cells: dict[tuple[int, int], str] = {}
    for spot, fault in (diodes or {}).items():
        if layout is None:
            raise ValueError("name diodes by spot on a rig (it knows the layout)")
        cells[matrix_cell(layout, spot)] = fault
    faults = MatrixFaults(set(open_rows), set(open_columns), list(shorted_rows),
                          list(shorted_columns), cells, list(swapped_rows),
                          list(swapped_columns))
    matrix.inject(faults)
    return faults


def swap_led_colours(chain: Any, chip_order: str = "GRB") -> None:
    """Make the simulated chain's chips take the bytes in ``chip_order``."""
    if sorted(chip_order) != ["B", "G", "R"]:
        raise ValueError(f"chip order must be a permutation of RGB, got {chip_order!r}")
    chain.chip_order = chip_order


def swap_mux_inputs(board: Any, layout: Any, a: str, b: str) -> None:
    """Wire the sensors of spots ``a`` and ``b`` to each other's multiplexer inputs."""
    ca, cb = (layout.spots[layout.spot_index(s)].sensor.channel for s in (a, b))
    swapped = dict(getattr(board, "swapped_inputs", {}))
    swapped.update({ca: cb, cb: ca})
    board.swapped_inputs = swapped


def set_led_chips(mcu: Any, chip_order: str) -> None:
    """Give the emulated Pico's LED chain chips that take their bytes in ``chip_order``."""
    mcu.led_chip_order = chip_order
    for pixels in getattr(mcu.shims, "pixels", ()):
        pixels.chip_order = chip_order
