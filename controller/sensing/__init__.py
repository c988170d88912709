"""Sensing: from sensors under the board to timestamped, debounced frames.

Back ends (each produces :class:`Frame` objects for all spots of a layout):
:class:`~controller.sensing.gpio.MatrixScanner`,
:class:`~controller.sensing.gpio.ShiftRegisterScanner`,
:class:`~controller.sensing.analog.AnalogScanner` (Raspberry Pi GPIO) and
:class:`~controller.sensing.serial_link.SerialLink` (a microcontroller running
``firmware/``), chosen by name in :mod:`controller.sensing.backends` (``open_sensing``);
what differs between a matrix, a chain and linear halls is one object per sensing kind
(:mod:`controller.sensing.kinds`).  :class:`~controller.sensing.debounce.SensingPipeline`
adds per-spot debouncing and the settle gate.  The simulated hardware lives in
``controller.sensing.sim``.  See docs/sensing.md.
"""

from controller.sensing.debounce import (
    PASSTHROUGH,
    DebounceConfig,
    Debouncer,
    SensingPipeline,
    SettleGate,
)
from controller.sensing.frame import Clock, Frame, SensingError, digital_frame

__all__ = ["PASSTHROUGH", "Clock", "DebounceConfig", "Debouncer", "Frame", "SensingError",
           "SensingPipeline", "SettleGate", "digital_frame"]
