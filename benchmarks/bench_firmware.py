"""The firmware's own loop on the host: what an LED frame costs a pass (printed, never
asserted), and the estimate for the RP2040 that firmware/README.md records.

A pass of ``Firmware.step()`` runs under CPython with the CircuitPython shims on a square8
board; an 82-LED frame (the whole chain, as the host sends it) arrives before each pass.
The pixels are a stand-in whose slice assignment is one C-level copy, as
``neopixel``/``adafruit_pixelbuf`` does in C on the board, so the figure is the
firmware's Python work: cutting the frame (``find``), COBS, CRC-16, the LED header.

lotus39's loop (issue 31): a pass that scans the 48 analog channels through the three
emulated multiplexers and sends the readings snapshot (every 10 ms: the board's 100 Hz),
with and without a 47-LED frame in the same pass.  After the warm-up on the emulated
electronics, the select pins and ADC inputs become plain attributes (on the board they are
C properties), so the figure is the firmware's own Python; the settle busy-waits
(16 × ``ANALOG_SETTLE_S``) are added whole, as the RP2040 spends them.  The figures go into
hardware/lotus39.md.

Run: ``python -m benchmarks.bench_firmware`` (``--write`` puts lotus39's figures in its
guide)
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

from benchmarks.benchtools import per_call, write_section
from controller.layout import load_layout
from controller.sensing import protocol as P
from controller.sensing.fwconfig import firmware_settings
from controller.sensing.sim import SimulatedBoard
from controller.sensing.sim.circuitpython import CircuitPythonShims
from controller.sensing.sim.electrical import PinBank
from controller.sensing.sim.mcu import PIN_NAMES, load_firmware
from controller.sensing.sim.wiring import wire_analog, wire_matrix

GUIDE = Path(__file__).resolve().parent.parent / "hardware" / "lotus39.md"
#: the board's stream period: a readings snapshot every 10 ms is 100 Hz
PERIOD_MS = 10.0

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


def lotus39_firmware() -> tuple[object, NullSerial, dict]:
    """The firmware on lotus39's emulated multiplexers, past its warm-up."""
    layout = load_layout("lotus39")
    board = SimulatedBoard(layout)
    s = firmware_settings(layout)
    s.update(LED_MIN_INTERVAL_MS=0)
    bank = PinBank()
    wire_analog(bank, board, layout, s["MUX_SELECT"], s["MUX_SIGNALS"])
    serial = NullSerial()
    shims = CircuitPythonShims(bank, lambda: board.clock.us, serial, PIN_NAMES)
    app = load_firmware()
    fw = app.Firmware(SimpleNamespace(**s), app.Hardware(**shims.modules()))
    fw.pixels = PixelBytes(layout.led_count)
    board.clock.us += 1_000_000
    fw.step()
    fw.connected = True
    # the select pins and ADC inputs as plain attributes, like the C properties on the
    # board: what is left is the firmware's own Python
    scanner = fw.scanner
    scanner.selects = [SimpleNamespace(value=False) for _ in scanner.selects]
    scanner.signals = [SimpleNamespace(value=32768 + 97 * m) for m in range(len(scanner.signals))]
    scanner.delay_us = lambda us: None  # taken whole below: 16 × ANALOG_SETTLE_S
    return fw, serial, s


def lotus39_figures() -> dict[str, float]:
    """Seconds per pass on the host: a pass with the snapshot scan, with an LED frame too."""
    fw, serial, s = lotus39_firmware()
    frame = P.encode_packet(P.LED_FRAME, 0, P.led_frame(
        [(k, 255 - 5 * k, (7 * k) & 255) for k in range(47)]))

    def snapshot_pass() -> None:
        fw.last_snapshot -= 1000  # a snapshot due every pass: the worst pass
        fw.step()

    def snapshot_and_frame() -> None:
        serial.pending = frame
        snapshot_pass()
    return {"scan": per_call(snapshot_pass), "frame": per_call(snapshot_and_frame),
            "settle": 16 * float(s.get("ANALOG_SETTLE_S", 0.0001)),
            "channels": float(s["CHANNELS"])}


def lotus39_text(f: dict[str, float]) -> str:
    k = FACTOR_RP2040
    scan, frame, settle = f["scan"] * k * 1e3, f["frame"] * k * 1e3, f["settle"] * 1e3
    worst = frame + settle
    return "\n".join([
        f"Measured on the emulated firmware (`python -m benchmarks.bench_firmware`): a pass "
        f"that scans the {f['channels']:.0f} channels and sends the readings snapshot takes "
        f"{f['scan'] * 1e6:.0f} µs of host CPU, {f['frame'] * 1e6:.0f} µs with a 47-LED frame "
        "in the same pass (select pins and ADC inputs as plain attributes, as the C properties "
        "are on the board).",
        f"RP2040 estimate (× {k}, see firmware/README.md) plus the settle waits (16 × "
        f"{f['settle'] / 16 * 1e3:g} ms = {settle:.1f} ms): **{scan + settle:.1f} ms** a "
        f"pass, **{worst:.1f} ms** with an LED frame, against the {PERIOD_MS:g} ms of the "
        f"100 Hz stream — {worst / PERIOD_MS:.0%} of it at worst"
        + ("." if worst <= PERIOD_MS else ": over budget, the stream slows below 100 Hz."),
    ])


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
    text = lotus39_text(lotus39_figures())
    print("lotus39:\n" + text)
    if "--write" in sys.argv[1:]:
        write_section(GUIDE, "bench_firmware lotus39", text)


if __name__ == "__main__":
    main()
