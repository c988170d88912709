"""LEDs: the scene renderer (pure) and the drivers, with a simulated chain.

``render_scene(layout, interaction, t, palette, settings) -> LedFrame`` turns what the
board state machine publishes into a colour per LED; a driver's ``show(frame)`` puts it
on the chain.  See docs/leds.md for the colour language and the Pi set-up.
"""

from controller.leds.drivers import (
    LED_DRIVERS,
    LedDriver,
    LinkLeds,
    NeoPixelLeds,
    NeoPixelSpiLeds,
    ThrottledLeds,
    decode_led_frame,
    encode_led_frame,
    make_driver,
    open_leds,
)
from controller.leds.lights import Lights
from controller.leds.palette import (
    OFF,
    RGB,
    LedError,
    LedSettings,
    Palette,
    colour_difference,
    current_ma,
)
from controller.leds.scene import Blink, LedFrame, SceneRenderer, count_blink, render_scene
from controller.leds.simulated import SimulatedChain, board_svg

__all__ = [
    "LED_DRIVERS", "OFF", "RGB", "Blink", "LedDriver", "LedError", "LedFrame", "LedSettings",
    "Lights", "LinkLeds", "NeoPixelLeds", "NeoPixelSpiLeds", "Palette", "SceneRenderer",
    "SimulatedChain", "ThrottledLeds", "board_svg", "colour_difference", "count_blink",
    "current_ma", "decode_led_frame", "encode_led_frame", "make_driver", "open_leds",
    "render_scene",
]
