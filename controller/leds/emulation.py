"""Emulated Raspberry Pi LED hardware: stand-ins for ``board``, ``busio``, ``neopixel`` and
``neopixel_spi`` that behave like Adafruit's libraries and record what would reach the
wire, so the real drivers run unchanged in tests (the idea of gpiozero's mock pins).

The pixel buffer follows ``adafruit_pixelbuf``: colours set by index or slice (tuples or
``0xRRGGBB``), ``fill``, ``brightness`` applied as ``int(level × brightness)`` with the
undimmed values kept, ``auto_write`` writing after every change, bytes stored in the
chip's channel order.  ``neopixel.NeoPixel`` hands its buffer to ``neopixel_write`` (one
transmission on a GPIO); ``neopixel_spi.NeoPixel_SPI`` expands every data bit into one
SPI byte (``0b11110000`` for 1, ``0b11000000`` for 0) framed by reset bytes and writes it
through a locked, configured ``busio.SPI``.

Use :func:`emulated_hardware` as a context manager (it installs the modules in
``sys.modules`` and removes them afterwards) and read the :class:`Wire`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

RPI_PINS = {"D10": 10, "D12": 12, "D18": 18, "D21": 21, "SCK": 11, "MOSI": 10, "MISO": 9}
WS281X_PINS = (10, 12, 18, 21)
BIT0, BIT1 = 0b11000000, 0b11110000


@dataclass
class Wire:
    """Everything that reached the (emulated) data line."""

    #: GPIO transmissions: (gpio number, bytes in the chip's channel order)
    gpio: list[tuple[int, bytes]] = field(default_factory=list)
    #: SPI writes: (baud rate, raw SPI bytes including reset padding)
    spi: list[tuple[int, bytes]] = field(default_factory=list)

    def clear(self) -> None:
        self.gpio.clear()
        self.spi.clear()


def colours_from_bytes(data: bytes, order: str) -> list[tuple[int, int, int]]:
    """Chip-order bytes -> RGB tuples (``order`` like ``"GRB"``)."""
    bpp = len(order)
    out = []
    for i in range(0, len(data) - bpp + 1, bpp):
        px = data[i:i + bpp]
        out.append((px[order.index("R")], px[order.index("G")], px[order.index("B")]))
    return out


def bytes_from_spi(data: bytes) -> bytes:
    """Undo the SPI bit expansion: strip reset zeros, read 8 SPI bytes per data byte."""
    body = data.strip(b"\x00")  # a bit pattern is never 0x00
    if len(body) % 8:
        raise ValueError(f"{len(body)} SPI bytes between the resets: not whole data bytes")
    out = bytearray()
    for i in range(0, len(body), 8):
        byte = 0
        for pattern in body[i:i + 8]:
            if pattern not in (BIT0, BIT1):
                raise ValueError(f"not a NeoPixel bit pattern on SPI: {pattern:#010b}")
            byte = (byte << 1) | (pattern == BIT1)
        out.append(byte)
    return bytes(out)


class Pin:
    def __init__(self, name: str, gpio: int):
        self.name, self.id = name, gpio

    def __repr__(self) -> str:
        return f"board.{self.name}"


class PixelBuf:
    """The behaviour of ``adafruit_pixelbuf.PixelBuf`` for 3- and 4-channel chips."""

    def __init__(self, n: int, *, byteorder: str = "GRB", brightness: float = 1.0,
                 auto_write: bool = False):
        if byteorder.strip("RGBW") != "" or not all(c in byteorder for c in "RGB"):
            raise ValueError("Invalid Byteorder string")
        self._n = n
        self._order = byteorder
        self._bpp = len(byteorder)
        self._pre = bytearray(n * self._bpp)
        self._post = bytearray(n * self._bpp)
        self._brightness = 1.0
        self.auto_write = False
        self.brightness = brightness
        self.auto_write = auto_write

    @property
    def byteorder(self) -> str:
        return self._order

    @property
    def bpp(self) -> int:
        return self._bpp

    def __len__(self) -> int:
        return self._n

    @property
    def brightness(self) -> float:
        return self._brightness

    @brightness.setter
    def brightness(self, value: float) -> None:
        value = min(max(value, 0.0), 1.0)
        if -0.001 < value - self._brightness < 0.001:
            return
        self._brightness = value
        for i in range(len(self._pre)):
            self._post[i] = int(self._pre[i] * value)
        if self.auto_write:
            self.show()

    def _parse(self, value: Any) -> tuple[int, int, int, int]:
        if isinstance(value, int):
            return value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF, 0
        if len(value) not in (3, 4):
            raise ValueError(f"Expected tuple of length {self._bpp}, got {len(value)}")
        for c in value:
            if not 0 <= c <= 255:
                raise ValueError(f"colour channel out of range: {value!r}")
        r, g, b = value[0], value[1], value[2]
        w = value[3] if len(value) == 4 else 0
        return r, g, b, w

    def _set(self, index: int, colour: Any) -> None:
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError(index)
        r, g, b, w = self._parse(colour)
        off = index * self._bpp
        for ch, v in zip("RGBW", (r, g, b, w), strict=True):
            if ch in self._order:
                k = off + self._order.index(ch)
                self._pre[k] = v
                self._post[k] = int(v * self._brightness)

    def __setitem__(self, index: int | slice, value: Any) -> None:
        if isinstance(index, slice):
            for k, i in enumerate(range(*index.indices(self._n))):
                self._set(i, value[k])
        else:
            self._set(index, value)
        if self.auto_write:
            self.show()

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._n))]
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError(index)
        off = index * self._bpp
        return [self._pre[off + self._order.index(ch)] for ch in "RGBW" if ch in self._order]

    def fill(self, colour: Any) -> None:
        for i in range(self._n):
            self._set(i, colour)
        if self.auto_write:
            self.show()

    def show(self) -> None:
        self._transmit(bytes(self._post))

    def _transmit(self, buffer: bytes) -> None:  # pragma: no cover - subclassed
        raise NotImplementedError


def make_modules(wire: Wire) -> dict[str, ModuleType]:
    """Fresh ``board``, ``busio``, ``neopixel`` and ``neopixel_spi`` modules writing to ``wire``."""
    board = ModuleType("board")
    for name, gpio in RPI_PINS.items():
        setattr(board, name, Pin(name, gpio))

    busio = ModuleType("busio")

    class SPI:
        """``busio.SPI``: must be locked and configured before a write."""

        def __init__(self, clock: Pin, MOSI: Pin | None = None, MISO: Pin | None = None):  # noqa: N803
            if not isinstance(clock, Pin) or clock.id != 11:
                raise ValueError(f"{clock!r} is not an SPI clock pin")
            if MOSI is None or MOSI.id != 10:
                raise ValueError("SPI0 needs MOSI on GPIO10")
            self._locked = False
            self._baudrate = 100_000
            self.deinited = False

        def try_lock(self) -> bool:
            if self._locked:
                return False
            self._locked = True
            return True

        def unlock(self) -> None:
            self._locked = False

        def configure(self, *, baudrate: int = 100_000, polarity: int = 0, phase: int = 0,
                      bits: int = 8) -> None:
            if not self._locked:
                raise RuntimeError("SPI bus must be locked before configure")
            self._baudrate = baudrate

        @property
        def frequency(self) -> int:
            return self._baudrate

        def write(self, buf: bytes, start: int = 0, end: int | None = None) -> None:
            if not self._locked:
                raise RuntimeError("SPI bus must be locked before write")
            if self.deinited:
                raise RuntimeError("SPI bus was deinitialised")
            wire.spi.append((self._baudrate, bytes(buf[start:end])))

        def deinit(self) -> None:
            self.deinited = True

    busio.SPI = SPI  # type: ignore[attr-defined]
    board.SPI = lambda: SPI(board.SCK, MOSI=board.MOSI, MISO=board.MISO)  # type: ignore[attr-defined]

    neopixel = ModuleType("neopixel")
    neopixel.RGB, neopixel.GRB = "RGB", "GRB"  # type: ignore[attr-defined]
    neopixel.RGBW, neopixel.GRBW = "RGBW", "GRBW"  # type: ignore[attr-defined]

    class NeoPixel(PixelBuf):
        """``neopixel.NeoPixel`` on a Pi: rpi_ws281x sends the buffer on the pin."""

        def __init__(self, pin: Pin, n: int, *, bpp: int = 3, brightness: float = 1.0,
                     auto_write: bool = True, pixel_order: str | None = None):
            if not isinstance(pin, Pin) or pin.id not in WS281X_PINS:
                raise ValueError(f"{pin!r} cannot drive NeoPixels (use GPIO 10, 12, 18 or 21)")
            order = pixel_order or ("GRB" if bpp == 3 else "GRBW")
            super().__init__(n, byteorder=order, brightness=brightness, auto_write=auto_write)
            self.pin = pin
            self.deinited = False

        def _transmit(self, buffer: bytes) -> None:
            if self.deinited:
                raise RuntimeError("NeoPixel was deinitialised")
            wire.gpio.append((self.pin.id, buffer))

        def deinit(self) -> None:
            self.fill(0)
            self.show()
            self.deinited = True

        @property
        def n(self) -> int:
            return len(self)

    neopixel.NeoPixel = NeoPixel  # type: ignore[attr-defined]

    neopixel_spi = ModuleType("neopixel_spi")
    neopixel_spi.RGB, neopixel_spi.GRB = "RGB", "GRB"  # type: ignore[attr-defined]
    neopixel_spi.RGBW, neopixel_spi.GRBW = "RGBW", "GRBW"  # type: ignore[attr-defined]

    class NeoPixel_SPI(PixelBuf):  # noqa: N801 - the library's name
        """``neopixel_spi.NeoPixel_SPI``: each data bit is one SPI byte, reset-padded."""

        def __init__(self, spi: SPI, n: int, *, bpp: int = 3, brightness: float = 1.0,
                     auto_write: bool = True, pixel_order: str | None = None,
                     frequency: int = 6_400_000, reset_time: float = 80e-6,
                     bit0: int = BIT0, bit1: int = BIT1):
            if not isinstance(spi, SPI):
                raise TypeError("NeoPixel_SPI needs a busio.SPI bus")
            order = pixel_order or ("GRB" if bpp == 3 else "GRBW")
            self._spi, self._frequency = spi, frequency
            self._bit0, self._bit1 = bit0, bit1
            self._reset = bytes(round(frequency * reset_time / 8))
            super().__init__(n, byteorder=order, brightness=brightness, auto_write=auto_write)

        def _transmit(self, buffer: bytes) -> None:
            bits = bytearray()
            for byte in buffer:
                for i in range(7, -1, -1):
                    bits.append(self._bit1 if byte >> i & 1 else self._bit0)
            while not self._spi.try_lock():  # adafruit_bus_device.SPIDevice
                pass
            try:
                self._spi.configure(baudrate=self._frequency, polarity=0, phase=0)
                self._spi.write(self._reset + bytes(bits) + self._reset)
            finally:
                self._spi.unlock()

        def deinit(self) -> None:
            self.fill(0)
            self.show()

        @property
        def n(self) -> int:
            return len(self)

    neopixel_spi.NeoPixel_SPI = NeoPixel_SPI  # type: ignore[attr-defined]
    return {"board": board, "busio": busio, "neopixel": neopixel, "neopixel_spi": neopixel_spi}


@contextmanager
def emulated_hardware() -> Iterator[Wire]:
    """Install the emulated modules in ``sys.modules`` for the duration of the block."""
    wire = Wire()
    modules = make_modules(wire)
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    try:
        yield wire
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old
