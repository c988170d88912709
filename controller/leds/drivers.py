"""LED drivers: one small interface, ``show(frame)``, in front of every way to light a chain.

* :class:`NeoPixelLeds` — Raspberry Pi ≤ 4, ``adafruit-circuitpython-neopixel``
  (rpi_ws281x underneath) on GPIO18 (PWM, needs root) or GPIO10 (SPI);
* :class:`NeoPixelSpiLeds` — ``adafruit-circuitpython-neopixel-spi`` on the SPI bus (the
  way for a Raspberry Pi 5, works on any Pi);
* :class:`LinkLeds` — frames to the microcontroller through a ``send_frame(bytes)``
  callable (the LED_FRAME payload of docs/protocol.md), so it never depends on the link;
* :class:`~controller.leds.simulated.SimulatedChain` — records frames, draws SVG/PNG.

:class:`ThrottledLeds` wraps any of them: it sends only frames whose pixels changed and
at most ``max_fps`` writes a second, never losing the newest frame.  Drivers are chosen
by name from :data:`LED_DRIVERS` (the configuration's ``[leds] driver``):
:func:`make_driver` builds one already wrapped, :func:`open_leds` the configured one.
Hardware modules (``board``, ``busio``, ``neopixel``, ``neopixel_spi``) are imported
inside the driver that needs them.
"""

from __future__ import annotations

import importlib
import itertools
import struct
import time
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from controller.leds.chain import ChainDriver, LedDriver
from controller.leds.palette import RGB, LedError, LedSettings
from controller.leds.scene import LedFrame
from controller.leds.simulated import SimulatedChain

PI_EXTRA = "pip install fairyboard[pi]"
#: channel orders of 3-channel chips (WS2812B is GRB), then of RGBW chips (SK6812 RGBW is
#: GRBW): the order in which a chip takes its bytes off the data line
PIXEL_ORDERS3 = tuple("".join(p) for p in itertools.permutations("RGB"))
PIXEL_ORDERS = (*PIXEL_ORDERS3, *(order + "W" for order in PIXEL_ORDERS3))


def wire_bytes(colour: Sequence[int], order: str) -> tuple[int, ...]:
    """One LED's levels in the order its chip takes them: ``(r, g, b)`` or ``(r, g, b, w)``
    → e.g. ``(g, r, b)`` for ``"GRB"``; an RGB colour on an RGBW chip leaves white off."""
    levels = dict(zip("RGBW", (*colour, 0) if len(colour) == 3 else colour, strict=True))
    return tuple(levels[channel] for channel in order)
#: GPIOs rpi_ws281x can drive: PWM0 (12, 18), PCM (21), SPI0 MOSI (10)
NEOPIXEL_PINS = ("D18", "D12", "D21", "D10")


#: pip packages of the modules Blinka loads underneath (installed by fairyboard[pi])
PIP_PACKAGES = {"gpiod": "gpiod", "rpi_ws281x": "rpi-ws281x", "spidev": "spidev",
                "RPi": "RPi.GPIO", "lgpio": "rpi-lgpio", "board": "adafruit-blinka",
                "neopixel": "adafruit-circuitpython-neopixel",
                "neopixel_spi": "adafruit-circuitpython-neopixel-spi"}


def _require(module: str, package: str, driver: str) -> ModuleType:
    """Import a hardware module lazily; a missing one is named — the module itself, or
    the one it needs underneath (Blinka's ``board`` needs ``gpiod``, and ``rpi_ws281x``
    on a Pi ≤ 4), with the package that provides it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        missing = (exc.name or module).split(".")[0]
        if missing != module.split(".")[0]:
            raise LedError(
                f"the {driver} LED driver's module {module!r} needs the Python module "
                f"{missing!r}, which is not installed: pip install "
                f"{PIP_PACKAGES.get(missing, missing)} (fairyboard[pi] includes it)") from None
        raise LedError(f"the {driver} LED driver needs the Python module {module!r} "
                       f"(package {package}), which is not installed; on the Pi: "
                       f"{PI_EXTRA}") from None
    except (NotImplementedError, RuntimeError) as exc:  # Blinka on a board it cannot drive
        raise LedError(f"the {driver} LED driver cannot use {module!r} on this machine: "
                       f"{exc}") from None


def _pixel_order(order: str, driver: str) -> str:
    order = str(order).upper()
    if order not in PIXEL_ORDERS:
        raise LedError(f"{driver} LED driver: pixel_order must be one of "
                       f"{', '.join(PIXEL_ORDERS)} (WS2812B: GRB; SK6812 RGBW: GRBW), "
                       f"got {order!r}")
    return order


class NeoPixelLeds(ChainDriver):
    """Raspberry Pi ≤ 4 through ``adafruit-circuitpython-neopixel`` (rpi_ws281x).

    GPIO18 (``D18``, PWM) needs root; GPIO10 (``D10``, SPI) works for a member of the
    ``spi`` and ``gpio`` groups once the core clock is pinned (docs/leds.md).  Brightness
    is applied by the renderer, so the library's own brightness stays at 1.0, and
    ``auto_write`` is off so a frame is one transfer, not one per LED."""

    name = "neopixel"

    def __init__(self, led_count: int, pin: str = "D18", pixel_order: str = "GRB"):
        super().__init__(led_count)
        pin = str(pin).upper()
        if pin not in NEOPIXEL_PINS:
            raise LedError(f"neopixel LED driver: pin must be one of {', '.join(NEOPIXEL_PINS)} "
                           f"(GPIO18 PWM or GPIO10 SPI recommended), got {pin!r}")
        self.pin = pin
        self.pixel_order = _pixel_order(pixel_order, self.name)
        board = _require("board", "Adafruit-Blinka", self.name)
        neopixel = _require("neopixel", "adafruit-circuitpython-neopixel", self.name)
        try:
            self.pixels = neopixel.NeoPixel(getattr(board, pin), led_count, brightness=1.0,
                                            auto_write=False, pixel_order=self.pixel_order)
        except (RuntimeError, OSError, ValueError) as exc:
            hint = (" (GPIO18 needs root: run as root, or use pin D10 as a member of the "
                    "spi/gpio groups, or let the microcontroller drive the LEDs)"
                    if pin != "D10" else "")
            raise LedError(f"neopixel LED driver: cannot open {pin}: {exc}{hint}") from None

    def write(self, pixels: tuple[RGB, ...]) -> None:
        self.pixels[:] = list(pixels)
        self.pixels.show()

    def close(self) -> None:
        if not self.closed:
            super().close()
            deinit = getattr(self.pixels, "deinit", None)
            if deinit is not None:
                deinit()


class NeoPixelSpiLeds(ChainDriver):
    """Any Raspberry Pi (the way for a Pi 5) through ``adafruit-circuitpython-neopixel-spi``:
    the data line is SPI0 MOSI (GPIO10); each data bit becomes one SPI byte."""

    name = "neopixel-spi"

    def __init__(self, led_count: int, pixel_order: str = "GRB", frequency: int = 6_400_000):
        super().__init__(led_count)
        self.pixel_order = _pixel_order(pixel_order, self.name)
        if not (isinstance(frequency, int) and 1_000_000 <= frequency <= 20_000_000):
            raise LedError(f"neopixel-spi LED driver: frequency must be an SPI clock in Hz "
                           f"(6400000 for 800 kHz LEDs), got {frequency!r}")
        board = _require("board", "Adafruit-Blinka", self.name)
        busio = _require("busio", "Adafruit-Blinka", self.name)
        neopixel_spi = _require("neopixel_spi", "adafruit-circuitpython-neopixel-spi", self.name)
        try:
            self.spi = busio.SPI(board.SCK, MOSI=board.MOSI)
            self.pixels = neopixel_spi.NeoPixel_SPI(
                self.spi, led_count, brightness=1.0, auto_write=False,
                pixel_order=self.pixel_order, frequency=frequency)
        except (RuntimeError, OSError, ValueError) as exc:
            raise LedError(f"neopixel-spi LED driver: cannot open the SPI bus: {exc} (enable "
                           "SPI with dtparam=spi=on; the user needs the spi group)") from None

    def write(self, pixels: tuple[RGB, ...]) -> None:
        self.pixels[:] = list(pixels)
        self.pixels.show()

    def close(self) -> None:
        if not self.closed:
            super().close()
            deinit = getattr(self.spi, "deinit", None)
            if deinit is not None:
                deinit()


# --- the microcontroller link ------------------------------------------------------

#: LED_FRAME payload header: first LED (u16), brightness (u8), count (u16), little-endian
LED_FRAME_HEADER = struct.Struct("<HBH")
#: LEDs per LED_FRAME packet: keeps a packet under the link's 1024-byte limit
LINK_CHUNK = 300


def encode_led_frame(colours: Sequence[Sequence[int]], first: int = 0,
                     brightness: int = 255) -> bytes:
    """The LED_FRAME payload: header, then 3 or 4 bytes per LED from ``first`` on, in the
    order the chips take them off the wire (:func:`wire_bytes`: the host orders them, the
    firmware passes them through; the payload's length tells 3 from 4 bytes per LED).

    ``brightness`` 255 = the firmware shows the levels as sent (the host already dimmed
    and capped them)."""
    if not 0 <= first <= 0xFFFF or not 0 <= brightness <= 255 or len(colours) > 0xFFFF:
        raise LedError(f"LED_FRAME out of range: first {first}, brightness {brightness}, "
                       f"{len(colours)} colours")
    sizes = {len(c) for c in colours}
    if sizes - {3, 4} or len(sizes) > 1:
        raise LedError("LED_FRAME colours are all 3 or all 4 bytes long")
    out = bytearray(LED_FRAME_HEADER.pack(first, brightness, len(colours)))
    for colour in colours:
        out += bytes(colour)
    return bytes(out)


def decode_led_frame(payload: bytes) -> tuple[int, int, list[tuple[int, ...]]]:
    """Inverse of :func:`encode_led_frame`: ``(first, brightness, colours)``."""
    if len(payload) < LED_FRAME_HEADER.size:
        raise LedError("LED_FRAME payload shorter than its 5-byte header")
    first, brightness, count = LED_FRAME_HEADER.unpack_from(payload)
    body = payload[LED_FRAME_HEADER.size:]
    bpp = len(body) // count if count else 3
    if bpp not in (3, 4) or len(body) != bpp * count:
        raise LedError(f"LED_FRAME payload of {len(payload)} bytes does not hold {count} colours")
    return first, brightness, [tuple(body[i:i + bpp]) for i in range(0, bpp * count, bpp)]


class LinkLeds(ChainDriver):
    """LED frames to the microcontroller, which drives the chain with exact timing.

    ``send_frame`` takes one LED_FRAME payload (the link adds type, sequence number, CRC
    and framing).  Long chains go as several payloads, each with its first LED index."""

    name = "link"

    def __init__(self, send_frame: Callable[[bytes], Any], led_count: int,
                 chunk: int = LINK_CHUNK, pixel_order: str = "GRB"):
        super().__init__(led_count)
        self.pixel_order = _pixel_order(pixel_order, self.name)
        if not callable(send_frame):
            raise LedError("link LED driver: send_frame must be a callable taking bytes")
        if not 1 <= chunk <= LINK_CHUNK:
            raise LedError(f"link LED driver: chunk must be 1..{LINK_CHUNK}, got {chunk}")
        self.send_frame = send_frame
        self.chunk = chunk

    def write(self, pixels: tuple[RGB, ...]) -> None:
        wire = [wire_bytes(p, self.pixel_order) for p in pixels]
        for first in range(0, len(wire), self.chunk):
            self.send_frame(encode_led_frame(wire[first:first + self.chunk], first))


# --- rate limit and change detection -----------------------------------------------


class ThrottledLeds:
    """Sends a frame only when its pixels differ from the last one sent, and at most
    ``max_fps`` times a second.  A frame that arrives too early is held and sent by the
    next :meth:`show` or :meth:`poll` once the interval has passed; a newer frame
    replaces a held one (the newest always wins, nothing older is sent late)."""

    def __init__(self, driver: LedDriver, max_fps: float = 30.0,
                 clock: Callable[[], float] = time.monotonic):
        if not (max_fps > 0):
            raise LedError(f"max_fps must be positive, got {max_fps!r}")
        self.driver = driver
        self.led_count = driver.led_count
        self.interval = 1.0 / max_fps
        self.clock = clock
        self._sent: tuple[RGB, ...] | None = None
        self._last: float | None = None
        self._pending: LedFrame | None = None
        self.offered = self.written = self.unchanged = self.superseded = 0

    def _due(self, now: float) -> bool:
        return self._last is None or now - self._last >= self.interval - 1e-9

    def _write(self, frame: LedFrame, now: float) -> None:
        self.driver.show(frame)
        self._sent = frame.pixels
        self._last = now
        self._pending = None
        self.written += 1

    def show(self, frame: LedFrame) -> bool:
        """Offer a frame; True if it went to the chain now."""
        now = self.clock()
        self.offered += 1
        if frame.pixels == self._sent:
            self.unchanged += 1
            if self._pending is not None:  # the chain already shows the newest frame
                self._pending = None
                self.superseded += 1
            return False
        if self._due(now):
            self._write(frame, now)
            return True
        if self._pending is not None:
            self.superseded += 1
        self._pending = frame
        return False

    def poll(self) -> bool:
        """Send a held frame if its time has come; True if one was sent."""
        if self._pending is None:
            return False
        now = self.clock()
        if self._due(now):
            self._write(self._pending, now)
            return True
        return False

    def next_due(self) -> float | None:
        """Clock time at which a held frame may be sent (None: nothing held)."""
        if self._pending is None:
            return None
        return self.clock() if self._last is None else self._last + self.interval

    @property
    def pending(self) -> LedFrame | None:
        return self._pending

    def close(self) -> None:
        """Drop any held frame and turn the chain dark."""
        self._pending = None
        self.driver.close()


# --- configuration: drivers by name ---------------------------------------------------


def _open_simulated(config: Mapping[str, Any], led_count: int, layout: Any,
                    send_frame: Callable[[bytes], Any] | None) -> LedDriver:
    if layout is None:
        raise LedError("the simulated LED chain needs the layout")
    return SimulatedChain(layout)


def _open_neopixel(config: Mapping[str, Any], led_count: int, layout: Any,
                   send_frame: Callable[[bytes], Any] | None) -> LedDriver:
    return NeoPixelLeds(led_count, pin=config.get("pin", "D18"),
                        pixel_order=config.get("pixel_order", "GRB"))


def _open_neopixel_spi(config: Mapping[str, Any], led_count: int, layout: Any,
                       send_frame: Callable[[bytes], Any] | None) -> LedDriver:
    return NeoPixelSpiLeds(led_count, pixel_order=config.get("pixel_order", "GRB"),
                           frequency=config.get("spi_frequency", 6_400_000))


def _open_serial(config: Mapping[str, Any], led_count: int, layout: Any,
                 send_frame: Callable[[bytes], Any] | None) -> LedDriver:
    if send_frame is None:
        raise LedError("the link LED driver needs the microcontroller link (send_frame)")
    return LinkLeds(send_frame, led_count, pixel_order=config.get("pixel_order", "GRB"))


OpenDriver = Callable[[Mapping[str, Any], int, Any, "Callable[[bytes], Any] | None"], LedDriver]

#: every ``[leds] driver`` by name (``none``: no LEDs, handled by :func:`open_leds`);
#: ``serial`` sends the frames over the microcontroller link (:class:`LinkLeds`)
LED_DRIVERS: dict[str, OpenDriver] = {
    "simulated": _open_simulated,
    "neopixel": _open_neopixel,
    "neopixel-spi": _open_neopixel_spi,
    "serial": _open_serial,
}
#: the configuration's names: every driver, or none
LED_DRIVER_NAMES = (*LED_DRIVERS, "none")
#: ``link`` is the name :func:`make_driver` knew the serial driver by
_ALIASES = {"link": "serial"}
DRIVERS = (*LED_DRIVERS, *_ALIASES)


def make_driver(config: Mapping[str, Any] | None, led_count: int, *,
                layout: Any = None, send_frame: Callable[[bytes], Any] | None = None,
                clock: Callable[[], float] = time.monotonic) -> ThrottledLeds:
    """The driver named by the ``[leds]`` table (``driver = "neopixel"`` …), throttled.

    Keys: ``driver``, ``pin`` (neopixel), ``pixel_order``, ``spi_frequency``
    (neopixel-spi), ``max_fps``.  ``serial`` (``link``) needs ``send_frame``;
    ``simulated`` uses ``layout`` for its pictures."""
    config = dict(config or {})
    kind = config.get("driver", "simulated")
    settings = LedSettings.from_config(config)
    opener = LED_DRIVERS.get(_ALIASES.get(kind, kind))
    if opener is None:
        raise LedError(f"leds.driver: unknown driver {kind!r} (one of {', '.join(DRIVERS)})")
    return ThrottledLeds(opener(config, led_count, layout, send_frame), settings.max_fps, clock)


def led_driver_table(leds: Any) -> dict[str, Any]:
    """The ``[leds]`` section (``controller.config.LedSettings``) as :func:`make_driver`
    reads it."""
    return {"driver": leds.driver, "pin": f"D{leds.pin}", "max_fps": leds.max_fps,
            "brightness": leds.brightness, "pixel_order": leds.pixel_order,
            "spi_frequency": leds.spi_frequency}


def open_leds(leds: Any, layout: Any, *, send_frame: Callable[[bytes], Any] | None = None,
              clock: Callable[[], float] = time.monotonic) -> ThrottledLeds | None:
    """The configured chain (``[leds]`` section), throttled; None for ``driver = "none"``."""
    if leds.driver == "none":
        return None
    return make_driver(led_driver_table(leds), layout.led_count, layout=layout,
                       send_frame=send_frame, clock=clock)
