"""Seed the wiring faults a builder makes into the emulated electronics, by name.

The self-test must name them (issue #16), so tests put them on a running rig:

* :func:`seed_matrix_faults` — an open row or column wire, two shorted wires, a diode
  reversed, bridged or open at a spot, on the emulated
  :class:`~controller.sensing.sim.electrical.SwitchMatrix` of a ``gpio-matrix`` rig;
* :func:`swap_led_colours` — LED chips that take the driver's bytes in another order
  (a chain wired for another ``pixel_order``), on a
  :class:`~controller.leds.simulated.SimulatedChain`;
* :func:`short_inputs` — two sensors' outputs joined on a 74HC165 chain;
* :func:`open_mux_select`, :func:`swap_mux_selects` — a multiplexer select line open,
  two select lines on each other's pins (an analog board);
* :func:`wire_led_chain` — an LED chain fed from the far end, two LEDs in each other's
  places, a chain broken after one LED, a supply too low for the chips
  (:class:`~controller.sensing.sim.ledchain.LedChainWiring`), on the Pi's simulated
  chain or the emulated Pico's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from controller.sensing.sim.electrical import MatrixFaults, SwitchMatrix
from controller.sensing.sim.ledchain import LedChainWiring


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
    """Wire the sensors of spots ``a`` and ``b`` to each other's multiplexer inputs (on an
    analog board) or shift-register inputs (on a chain)."""
    wa, wb = (layout.spots[layout.spot_index(s)].sensor for s in (a, b))
    if wa.channel is not None:
        ka, kb, attr = wa.channel, wb.channel, "swapped_inputs"
    elif wa.chain is not None:
        ka, kb, attr = wa.chain, wb.chain, "swapped_bits"
    else:
        raise ValueError("two inputs are swapped on a multiplexer or a shift-register chain")
    swapped = dict(getattr(board, attr, {}))
    swapped.update({ka: kb, kb: ka})
    setattr(board, attr, swapped)


def short_inputs(board: Any, layout: Any, a: str, b: str) -> None:
    """The outputs of the sensors of spots ``a`` and ``b`` joined (a solder bridge between
    their wires) on a 74HC165 chain: open drain, so a magnet at either reads on both."""
    wa, wb = (layout.spots[layout.spot_index(s)].sensor for s in (a, b))
    if wa.chain is None or wb.chain is None:
        raise ValueError("two sensor outputs are shorted on a shift-register chain")
    board.shorted_bits = [*getattr(board, "shorted_bits", ()), (wa.chain, wb.chain)]


def open_mux_select(board: Any, line: int, level: bool = False) -> None:
    """Select line S``line`` of the multiplexers is open (its wire from the controller
    broken, or never soldered): the chips' input stays at ``level``."""
    if not 0 <= line <= 3:
        raise ValueError(f"a CD74HC4067 has select lines S0..S3, not S{line}")
    board.open_selects = {**getattr(board, "open_selects", {}), line: level}


def swap_mux_selects(board: Any, a: int, b: int) -> None:
    """The wires of select lines S``a`` and S``b`` sit on each other's controller pins."""
    if not (0 <= a <= 3 and 0 <= b <= 3 and a != b):
        raise ValueError(f"two different select lines S0..S3, not S{a} and S{b}")
    board.swapped_selects = (a, b)


def open_chain_link(board: Any, chip: int) -> None:
    """The link into DS of chip ``chip`` (counted from the controller, 0 first) from QH of
    the next chip is open: every chip past it reads nothing."""
    board.chain_open_after = chip


def unpower_sensors(board: Any) -> None:
    """The sensors' supply is off (a 5 V supply switched off or not wired to the sensor
    rail): digital halls' open-drain outputs stay pulled up, linear halls read 0 V."""
    board.sensor_supply_off = True


def set_led_chips(mcu: Any, chip_order: str) -> None:
    """Give the emulated Pico's LED chain chips that take their bytes in ``chip_order``."""
    mcu.led_chip_order = chip_order
    for pixels in getattr(mcu.shims, "pixels", ()):
        pixels.chip_order = chip_order


def wire_led_chain(target: Any, *, reversed: bool = False,
                   swapped: Iterable[tuple[int, int]] = (), broken_after: int | None = None,
                   supply_v: float = 5.0) -> LedChainWiring:
    """Wire the LED chain of ``target`` (a ``SimulatedChain`` or a ``SimulatedMCU``, whose
    chain keeps the wiring across restarts) with these faults; ``swapped`` pairs are LED
    places, ``broken_after`` the last chain LED that gets data (-1: none)."""
    wiring = LedChainWiring(target.layout.led_count, reversed, tuple(swapped), broken_after,
                            supply_v)
    if not hasattr(target, "led_wiring"):  # the Pi's simulated chain
        target.wiring = wiring
        return wiring
    target.led_wiring = wiring
    if target.shims is not None:  # the running firmware's chain, and the next one
        target.shims.led_wiring = wiring
        for pixels in target.shims.pixels:
            pixels.wiring = wiring
            pixels.show()
    return wiring
