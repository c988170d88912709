"""The simulator's emulated circuits, by name: beside the back ends they emulate
(``controller/sensing/backends.py`` re-exports them; ``controller/sensing/sim/rig.py`` wires
each from its data).  A module of its own so that neither the configuration, the back ends
nor the simulator imports another to learn them (no import circle)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from controller.sensing.frame import SensingError
from controller.sensing.kinds import ANALOG, MATRIX, SHIFT_REGISTER

if TYPE_CHECKING:
    from controller.layout import Layout
    from controller.sensing.settings import SensingSettings


@dataclass(frozen=True)
class SimulatedCircuit:
    """An emulated circuit: the configured back end it runs, the sensing it reads, (for
    the ``simulated`` back end) the settings that choose it, and how the simulator wires
    it (``controller/sensing/sim/rig.py`` asks these, never the circuit's name)."""

    backend: str
    sensing: str
    chosen: Callable[[SensingSettings], bool] | None = None
    #: a switch matrix's diodes ("row", or None: a matrix without diodes)
    diodes: str | None = "row"
    #: a shift-register chain read over SPI (else bit-banged)
    spi: bool = False


#: the simulator's names (``SimulatedSensing(board, name)``), in one place with the rest
SIMULATED_CIRCUITS: dict[str, SimulatedCircuit] = {
    "gpio-matrix": SimulatedCircuit("gpio-matrix", MATRIX.name,
                                    lambda s: not s.simulated_link and s.simulate_diodes),
    "gpio-matrix-no-diodes": SimulatedCircuit(
        "gpio-matrix", MATRIX.name, lambda s: not s.simulated_link and not s.simulate_diodes,
        diodes=None),
    "gpio-shift-bitbang": SimulatedCircuit("gpio-shift-register", SHIFT_REGISTER.name,
                                           lambda s: not s.simulated_link and not s.use_spi),
    "gpio-shift-spi": SimulatedCircuit("gpio-shift-register", SHIFT_REGISTER.name,
                                       lambda s: not s.simulated_link and s.use_spi,
                                       spi=True),
    "gpio-analog": SimulatedCircuit("gpio-analog", ANALOG.name,
                                    lambda s: not s.simulated_link),
    "mcu-matrix": SimulatedCircuit("serial", MATRIX.name, lambda s: s.simulated_link),
    "mcu-shift": SimulatedCircuit("serial", SHIFT_REGISTER.name, lambda s: s.simulated_link),
    "mcu-analog": SimulatedCircuit("serial", ANALOG.name, lambda s: s.simulated_link),
}


def simulated_circuit(settings: SensingSettings, layout: Layout) -> str:
    """The emulated circuit ``backend = "simulated"`` runs for the layout's own sensing."""
    for name, circuit in SIMULATED_CIRCUITS.items():
        if circuit.sensing == layout.sensing and circuit.chosen and circuit.chosen(settings):
            return name
    raise SensingError(f"no simulated circuit for {layout.sensing} sensing")
