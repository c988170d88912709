"""Simulated hardware: the physical board, emulated electronics, a simulated
microcontroller running the real firmware, and rigs that connect them to the real back
ends.  See docs/sensing.md."""

from controller.sensing.sim.board import MagnetModel, SimClock, SimulatedBoard
from controller.sensing.sim.mcu import LinkFaults, SimulatedMCU
from controller.sensing.sim.rig import BACKENDS, SimulatedSensing
from controller.sensing.sim.wiring import as_sensing

__all__ = ["BACKENDS", "LinkFaults", "MagnetModel", "SimClock", "SimulatedBoard",
           "SimulatedMCU", "SimulatedSensing", "as_sensing"]
