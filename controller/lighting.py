"""The board's LEDs as the service drives them: the scene rendered from the state
machine's interaction, sent to the LED driver, and the glow the page draws.

:class:`Lighting` owns the palette of the game being played, the scene renderer, the
LED driver and the last frame; it renders only when the interaction changed or a blink
edge is due, and otherwise lets the throttled driver send a held frame.
"""

from __future__ import annotations

from typing import Any

from controller.config import Config
from controller.interaction import Interaction
from controller.layout import Layout
from controller.leds.drivers import ThrottledLeds, open_leds
from controller.leds.palette import LedSettings, Palette
from controller.leds.scene import LedFrame, SceneRenderer
from controller.rules import Game


def led_settings(config: Config) -> LedSettings:
    """The renderer's settings from the ``[leds]`` section."""
    c = config.leds
    return LedSettings(brightness=c.brightness, budget_ma=c.current_budget_ma,
                       max_fps=c.max_fps, dark_level=c.dark_level,
                       dark_square_level=c.dark_square_level)


class Lighting:
    """The LEDs of one board (``leds`` None: no driver, the page still glows)."""

    def __init__(self, config: Config, layout: Layout) -> None:
        self.layout = layout
        self.base_palette = Palette.from_config(config.leds.palette)
        self.settings = led_settings(config)
        self.settings.check_chain(layout.led_count)
        self.leds: ThrottledLeds | None = None
        self.palette = self.base_palette
        self.renderer: SceneRenderer | None = None
        self.frame: LedFrame | None = None
        self.version = 0  # bumped when the LED colours change
        self._lit: tuple[Any, Any, float | None] = (None, None, None)
        self.glow: list[list[Any]] = [["#000000", 0.0]] * len(layout.spots)
        self._spot_at_led = layout.led_spots()
        #: (LED colour, gain) -> the page's [colour, opacity] for it (a scene has a handful)
        self._glow_of: dict[tuple[Any, float], list[Any]] = {}

    def open(self, config: Config, send_frame: Any, clock: Any) -> None:
        self.leds = open_leds(config.leds, self.layout, send_frame=send_frame, clock=clock)

    def for_game(self, game: Game) -> None:
        """The game's player colours."""
        self.palette = self.base_palette.for_players(game.player_names)
        self.renderer = SceneRenderer(self.layout, self.palette, self.settings)

    def light(self, it: Interaction, now: float) -> bool:
        """Render the LED scene when the interaction changed or a blink edge is due;
        otherwise only let the throttled driver send a held frame.  True when the
        page's glow changed."""
        assert self.renderer is not None
        if (it is self._lit[0] and self.renderer is self._lit[1]
                and (self._lit[2] is None or now < self._lit[2])):
            if self.leds is not None:
                self.leds.poll()
            return False
        frame = self.renderer.render(it, now)
        self._lit = (it, self.renderer, frame.next_change(now))
        self.frame = frame
        if self.leds is not None:
            self.leds.show(frame)
            self.leds.poll()
        from controller.leds.simulated import glow
        spot_at_led = self._spot_at_led
        colours: list[list[Any]] = [["#000000", 0.0]] * len(self.layout.spots)
        gain = 1.0 / max(self.settings.brightness, 0.05) ** 0.5  # show dim LEDs legibly
        known = self._glow_of
        if len(known) > 4096:  # the current cap dims by any factor: keep the memo small
            known.clear()
        for led, rgb in enumerate(frame.pixels):
            shown = known.get((rgb, gain))
            if shown is None:
                hue, opacity = glow(rgb, gain)
                shown = known[(rgb, gain)] = [f"#{hue[0]:02x}{hue[1]:02x}{hue[2]:02x}",
                                              round(opacity, 3)]
            colours[spot_at_led[led]] = shown
        if colours == self.glow:
            return False
        self.glow = colours
        self.version += 1
        return True

    def close(self) -> None:
        if self.leds is not None:
            self.leds.close()


__all__ = ["Lighting", "led_settings"]
