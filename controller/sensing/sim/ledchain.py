"""How a built LED chain differs from the guide: the faults a builder wires into it.

A WS2812B passes the data on from its DOUT to the next chip's DIN, so the colour the
driver sends as LED ``k`` lights whichever chip is ``k``-th along the data wire, wherever
it sits.  :class:`LedChainWiring` turns the colours in chain order into the colours seen
at each LED *place* of the layout (``Spot.led``, the place the guide puts LED ``k``):

* ``reversed`` — the data wire enters at the far end: LED ``k`` lights at place
  ``n - 1 - k``;
* ``swapped`` — two chips sit in each other's places (the data wire takes them in the
  wrong order);
* ``broken_after`` — the data stops after chip ``k`` (its DOUT open, or chip ``k + 1``
  dead): every chip after it stays dark; ``-1`` is a chain that gets no data at all;
* ``supply_v`` — the chips' VDD: WS2812B need about 3.7 V for their green and blue
  diodes (forward voltage ≈ 3 V plus the driver's headroom); at 3.3 V only red lights,
  below ≈ 2.5 V nothing does.

The simulated chain of the Pi (:class:`~controller.leds.simulated.SimulatedChain`) and
the emulated Pico's NeoPixel chain (:mod:`controller.sensing.sim.circuitpython`) both
show their frames through it, so the self-test's emulated builder sees what a builder
would see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: the WS2812B's VDD below which green and blue stay dark, and below which nothing lights
GREEN_BLUE_MIN_V = 3.7
RED_MIN_V = 2.5


@dataclass
class LedChainWiring:
    count: int
    reversed: bool = False
    swapped: tuple[tuple[int, int], ...] = ()
    broken_after: int | None = None
    supply_v: float = 5.0

    def place_of(self, k: int) -> int:
        """The LED place (``Spot.led``) chain LED ``k`` sits at."""
        place = self.count - 1 - k if self.reversed else k
        for a, b in self.swapped:
            if place == a:
                return b
            if place == b:
                return a
        return place

    def seen(self, chain: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
        """The colours seen at each LED place, given the colours in chain order."""
        dark = (0,) * (len(chain[0]) if chain else 3)
        out: list[tuple[int, ...]] = [dark] * self.count
        for k, colour in enumerate(chain[:self.count]):
            if self.broken_after is not None and k > self.broken_after:
                continue
            out[self.place_of(k)] = self._powered(tuple(colour))
        return out

    def _powered(self, colour: tuple[int, ...]) -> tuple[int, ...]:
        if self.supply_v < RED_MIN_V:
            return (0,) * len(colour)
        if self.supply_v < GREEN_BLUE_MIN_V:
            return (colour[0],) + (0,) * (len(colour) - 1)
        return colour

    @property
    def as_designed(self) -> bool:
        return (not self.reversed and not self.swapped and self.broken_after is None
                and self.supply_v >= GREEN_BLUE_MIN_V)
