"""The firmware's own loop on the host: what an LED frame costs a pass (printed, never
asserted), and the estimate for the RP2040 that firmware/README.md records.

A pass of ``Firmware.step()`` runs under CPython with the CircuitPython shims on a square8
board; an 82-LED frame (the whole chain, as the host sends it) arrives before each pass.
The pixels are a stand-in whose slice assignment is one C-level copy, as
``neopixel``/``adafruit_pixelbuf`` does in C on the board, so the figure is the
firmware's Python work: cutting the frame (``find``), COBS, CRC-16, the LED header.

Run: ``python -m benchmarks.bench_firmware``
"""

from __future__ import annotations

from types import SimpleNamespace

from benchmarks.benchtools import per_call
from controller.layout import load_layout
from controller.sensing import protocol as P
from controller.sensing.fwconfig import firmware_settings
from controller.sensing.sim import SimulatedBoard
from controller.sensing.sim.circuitpython import CircuitPythonShims
from controller.sensing.sim.electrical import PinBank
from controller.sensing.sim.mcu import PIN_NAMES, load_firmware
from controller.sensing.sim.wiring import wire_matrix

#: CPython on a desktop core against CircuitPython on the RP2040 at 125 MHz, for this kind
#: of code (a bytecode loop over bytes with table look-ups): ~25× the clock, ~4× the
#: work per clock (superscalar core, caches, against a Cortex-M0+ running the VM from
#: flash through a 16 KB XIP cache), and a VM doing about the same work per bytecode
FACTOR_RP2040 = 100


class PixelBytes:
    """r g b bytes per LED: slice assignment is one copy, like the C pixel buffer."""

    def __init__(self, n: int) -> None:
        self.buf = bytearray(3 * n)

    def __setitem__(self, index: slice, value: bytes) -> None:
        self.buf[3 * index.start:3 * index.stop] = value

    def show(self) -> None:
        pass


class NullSerial:
    connected = True

    def __init__(self) -> None:
        self.pending = b""

    @property
    def in_waiting(self) -> int:
        return len(self.pending)

    def read(self, n: int) -> bytes:
        out, self.pending = self.pending, b""
        return out

    def write(self, data: bytes) -> int:
        return len(data)


def firmware(max_brightness: int = 255) -> tuple[object, NullSerial]:
    layout = load_layout("square8")
    board = SimulatedBoard(layout)
    s = firmware_settings(layout, diodes="rows")
    s.update(MAX_BRIGHTNESS=max_brightness, LED_MIN_INTERVAL_MS=0)
    bank = PinBank()
    wire_matrix(bank, board, layout, s["MATRIX_ROWS"], s["MATRIX_COLUMNS"], "row")
    serial = NullSerial()
    shims = CircuitPythonShims(bank, lambda: board.clock.us, serial, PIN_NAMES)
    app = load_firmware()
    fw = app.Firmware(SimpleNamespace(**s), app.Hardware(**shims.modules()))
    fw.pixels = PixelBytes(layout.led_count)
    board.clock.us += 100_000  # past the warm-up
    fw.step()
    return fw, serial


def main() -> None:
    frame = P.encode_packet(P.LED_FRAME, 0, P.led_frame(
        [(k, 255 - k, (7 * k) & 255) for k in range(82)]))
    fw, serial = firmware()
    idle = per_call(fw.step)

    def with_frame() -> None:
        serial.pending = frame
        fw.step()
    led = per_call(with_frame) - idle
    dimmed_fw, dimmed_serial = firmware(max_brightness=64)

    def with_dimmed_frame() -> None:
        dimmed_serial.pending = frame
        dimmed_fw.step()
    dimmed = per_call(with_dimmed_frame) - idle
    app = load_firmware()
    crc = per_call(lambda: app.proto.crc16(frame[:-2]))
    print(f"firmware loop on the host, square8, one 82-LED frame ({len(frame)} bytes) per pass:")
    print(f"  pass without input              {idle * 1e6:8.1f} µs")
    print(f"  an LED frame adds               {led * 1e6:8.1f} µs   of which CRC-16 "
          f"{crc * 1e6:.1f} µs")
    print(f"  ... with MAX_BRIGHTNESS = 64    {dimmed * 1e6:8.1f} µs")
    k = FACTOR_RP2040 * 1e3
    print(f"RP2040 estimate (× {FACTOR_RP2040}): an LED frame {led * k:.1f} ms, "
          f"dimmed {dimmed * k:.1f} ms, a pass {idle * k:.2f} ms")


if __name__ == "__main__":
    main()
