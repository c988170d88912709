"""A small loop helper: the current scene, re-evaluated as time passes, sent to a driver.

A program that only shows interactions calls :meth:`Lights.update` with every new
:class:`Interaction` and :meth:`Lights.tick` from its loop; ``tick`` returns when it next
has something to do (the next blink edge or the end of the rate limit), so the loop can
sleep until then.  The service does not use it: its loop renders and throttles in
``BoardService._light`` (it also feeds the web page's LED picture).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from controller.interaction import Interaction
from controller.leds.drivers import ThrottledLeds
from controller.leds.scene import LedFrame, SceneRenderer


class Lights:
    """Renders on change, blinks on time, writes through a :class:`ThrottledLeds`."""

    def __init__(self, renderer: SceneRenderer, output: ThrottledLeds,
                 clock: Callable[[], float] = time.monotonic):
        if output.led_count != renderer.layout.led_count:
            raise ValueError(f"LED driver has {output.led_count} LEDs, layout "
                             f"{renderer.layout.name} has {renderer.layout.led_count}")
        self.renderer = renderer
        self.output = output
        self.clock = clock
        self.interaction = Interaction(phase="paused")
        self.frame = LedFrame.dark(renderer.layout.led_count)

    def update(self, interaction: Interaction) -> LedFrame:
        """Show a new interaction now (as far as the rate limit allows)."""
        self.interaction = interaction
        self.frame = self.renderer.render(interaction, self.clock())
        self.output.show(self.frame)
        return self.frame

    def tick(self) -> float | None:
        """Advance blinking and flush a held frame; returns the clock time of the next
        change to show (None: nothing changes until the next :meth:`update`)."""
        now = self.clock()
        self.frame = self.frame.at(now)
        self.output.show(self.frame)
        self.output.poll()
        times = [t for t in (self.frame.next_change(now), self.output.next_due())
                 if t is not None]
        return min(times) if times else None

    def close(self) -> None:
        self.output.close()
