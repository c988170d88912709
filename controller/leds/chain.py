"""What every LED driver is: ``show(frame)`` on a chain of ``led_count`` LEDs.

Its own module so that the drivers (``drivers.py``) and the simulated chain
(``simulated.py``) share it without importing each other in a circle.
"""

from __future__ import annotations

from typing import Protocol

from controller.leds.palette import OFF, RGB, LedError
from controller.leds.scene import LedFrame


class LedDriver(Protocol):
    """Anything that can show a frame on a chain of ``led_count`` LEDs."""

    led_count: int

    def show(self, frame: LedFrame) -> None: ...

    def close(self) -> None: ...


class ChainDriver:
    """Common checks: a frame must have exactly one colour per LED of the chain."""

    name = "chain"

    def __init__(self, led_count: int):
        if not (isinstance(led_count, int) and led_count > 0):
            raise LedError(f"{self.name} LED driver: led_count must be a positive integer, "
                           f"got {led_count!r}")
        self.led_count = led_count
        self.closed = False

    def show(self, frame: LedFrame) -> None:
        if self.closed:
            raise LedError(f"{self.name} LED driver is closed")
        if len(frame.pixels) != self.led_count:
            raise LedError(f"{self.name} LED driver: frame has {len(frame.pixels)} colours, "
                           f"the chain has {self.led_count} LEDs")
        self.write(frame.pixels)

    def write(self, pixels: tuple[RGB, ...]) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        """Turn the chain dark and release it."""
        if not self.closed:
            self.write((OFF,) * self.led_count)
            self.closed = True
