"""Colour order end to end: ``[leds] pixel_order`` reaches the chips on every path.

The emulated chains take their bytes in a chip order of their own, as real WS2812B (GRB),
RGB or BGR chips and SK6812 RGBW (GRBW) chips do: if the host driver, the link or the
firmware ignored the setting, the colours would come out permuted here."""

from __future__ import annotations

import pytest

from controller.layout import load_layout
from controller.leds import LedFrame
from controller.leds.drivers import LinkLeds, NeoPixelLeds, NeoPixelSpiLeds, decode_led_frame
from controller.leds.emulation import bytes_from_spi, colours_from_bytes, emulated_hardware
from controller.sensing.sim.board import SimulatedBoard
from controller.sensing.sim.rig import SimulatedSensing

SQUARE8 = load_layout("square8")
#: one colour per channel, and mixtures: any permutation of the channels changes them
COLOURS = [(200, 0, 0), (0, 150, 0), (0, 0, 100), (10, 20, 30)]


def _lit(shown: tuple[tuple[int, ...], ...]) -> list[tuple[int, ...]]:
    return [tuple(px[:3]) for px in shown[:len(COLOURS)]]


@pytest.mark.parametrize("order", ["GRB", "RGB", "BGR", "GRBW", "RGBW"])
def test_the_pico_path_honours_pixel_order(order: str) -> None:
    """Host driver → link → firmware → emulated chips of that order show the colours."""
    board = SimulatedBoard(SQUARE8)
    rig = SimulatedSensing(board, "mcu-matrix", MAX_BRIGHTNESS=255, led_chip_order=order)
    try:
        board.advance(0.1)
        leds = LinkLeds(lambda payload: rig.link.send_leds(*_args(payload)),
                        SQUARE8.led_count, pixel_order=order)
        pixels = COLOURS + [(0, 0, 0)] * (SQUARE8.led_count - len(COLOURS))
        leds.show(LedFrame.steady(pixels))
        board.advance(0.1)
        shown = rig.mcu.leds
        assert len(shown) == SQUARE8.led_count
        assert _lit(shown) == COLOURS
        if order.endswith("W"):
            assert all(len(px) == 4 and px[3] == 0 for px in shown)  # white stays off
    finally:
        rig.close()


def _args(payload: bytes) -> tuple:
    first, brightness, colours = decode_led_frame(payload)
    return colours, first, brightness


def test_a_wrong_pixel_order_shows_wrong_colours() -> None:
    """The emulated chips really reorder: GRB bytes into RGB chips swap red and green."""
    board = SimulatedBoard(SQUARE8)
    rig = SimulatedSensing(board, "mcu-matrix", MAX_BRIGHTNESS=255, led_chip_order="RGB")
    try:
        board.advance(0.1)
        leds = LinkLeds(lambda payload: rig.link.send_leds(*_args(payload)),
                        SQUARE8.led_count, pixel_order="GRB")
        leds.show(LedFrame.steady(COLOURS + [(0, 0, 0)] * (SQUARE8.led_count - 4)))
        board.advance(0.1)
        assert _lit(rig.mcu.leds) == [(0, 200, 0), (150, 0, 0), (0, 0, 100), (20, 10, 30)]
    finally:
        rig.close()


def test_link_orders_differ_on_the_wire() -> None:
    """GRB, RGB and BGR send different bytes (they were identical before)."""
    payloads = {}
    for order in ("GRB", "RGB", "BGR", "GRBW"):
        sent: list[bytes] = []
        LinkLeds(sent.append, 4, pixel_order=order).show(LedFrame.steady(COLOURS))
        payloads[order] = sent[0]
    assert len(set(payloads.values())) == 4
    assert decode_led_frame(payloads["GRBW"])[2][3] == (20, 10, 30, 0)


@pytest.mark.parametrize("order", ["GRB", "BGR", "GRBW"])
def test_pi_drivers_honour_pixel_order(order: str) -> None:
    with emulated_hardware() as wire:
        leds = NeoPixelLeds(4, pixel_order=order)
        leds.show(LedFrame.steady(COLOURS))
        assert colours_from_bytes(wire.gpio[-1][1], order) == COLOURS
        assert len(wire.gpio[-1][1]) == 4 * len(order)
        spi = NeoPixelSpiLeds(4, pixel_order=order)
        spi.show(LedFrame.steady(COLOURS))
        assert colours_from_bytes(bytes_from_spi(wire.spi[-1][1]), order) == COLOURS


@pytest.mark.parametrize("chips", ["RGB", "BGR", "GRBW"])
def test_the_selftests_advice_fixes_the_colours_on_the_pico_path(chips: str) -> None:
    """Configured GRB on other chips: the colours seen for red, green, blue give the
    ``pixel_order`` the self-test advises, and that order shows them right."""
    from controller.sensing.selftest import pixel_order_fix

    board = SimulatedBoard(SQUARE8)
    rig = SimulatedSensing(board, "mcu-matrix", MAX_BRIGHTNESS=255, led_chip_order=chips)
    names = {(255, 0, 0): "R", (0, 255, 0): "G", (0, 0, 255): "B"}
    try:
        board.advance(0.1)
        configured = "RGBW" if chips.endswith("W") else "GRB"
        seen = ""
        rgb = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
        rest = [(0, 0, 0)] * (SQUARE8.led_count - 3)
        for order in (configured, None):
            if order is None:  # the builder follows the advice
                order = pixel_order_fix(configured, seen)
                assert order and order != configured
            leds = LinkLeds(lambda payload: rig.link.send_leds(*_args(payload)),
                            SQUARE8.led_count, pixel_order=order)
            leds.show(LedFrame.steady(rgb + rest))
            board.advance(0.1)
            seen = "".join(names[tuple(px[:3])] for px in rig.mcu.leds[:3])
        assert seen == "RGB"
    finally:
        rig.close()
