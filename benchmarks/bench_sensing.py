"""Sensing speed figures (printed, never asserted).

* full-board scan rate of the Python GPIO back ends against the electrical emulation
  (the real Pi is slower per GPIO call than the emulation is fast: see docs/sensing.md);
* frames per second through the serial link: firmware-encoded CHANGE packets written to a
  pseudo-terminal, decoded and turned into frames by the real host link;
* simulated time per wall second of the whole simulated rig (board + firmware + link).

Run: ``python -m benchmarks.bench_sensing``
"""

from __future__ import annotations

import os
import select
import tempfile
import time
import tty
from pathlib import Path

from controller.layout import load_layout
from controller.sensing.serial_link import SerialConfig, SerialLink
from controller.sensing.sim import SimulatedBoard, SimulatedSensing
from controller.sensing.sim.mcu import load_firmware


def scan_rate(layout_name: str, backend: str, seconds: float = 1.0) -> float:
    board = SimulatedBoard(load_layout(layout_name), seed=1)
    for i in range(0, len(board.layout.spots), 3):
        board.put(i, "white-pawn")
    rig = SimulatedSensing(board, backend)
    scanner = rig.backend
    scanner.read()
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        scanner.read()
        n += 1
    rate = n / (time.perf_counter() - t0)
    rig.close()
    return rate


def link_frames_per_second(count: int = 20000) -> float:
    proto = __import__("fairyfw.proto", fromlist=["proto"]) if load_firmware() else None
    layout = load_layout("square8")
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    with tempfile.TemporaryDirectory() as d:
        link_path = Path(d) / "usb-bench-if02"
        os.symlink(os.ttyname(slave), link_path)
        clock = time.monotonic
        link = SerialLink(layout, SerialConfig(by_id_dir=d), clock=clock)
        link.update()  # opens the port, sends HELLO_REQUEST with the host's nonce
        (_kind, _seq, payload), = proto.Decoder().feed(os.read(master, 100))
        session = proto.unpack_hello_request(payload)  # in the HELLO and in every frame
        os.write(master, proto.encode_packet(proto.HELLO, 0, proto.pack_hello(
            session, "matrix", "reed", 88, 11, 8, 82, 0, "bench", "square8"), session))
        for _ in range(20):  # the snapshot request, once the link has taken the HELLO in
            link.update(0.05)
            if select.select([master], [], [], 0.05)[0]:
                os.read(master, 100)
                break
        else:
            raise RuntimeError("the link never asked for the snapshot after the HELLO")
        os.write(master, proto.encode_packet(proto.SNAPSHOT, 0,
                                             proto.pack_bits_snapshot(0, [False] * 88), session))
        link.update(0.05)
        packets = [proto.encode_packet(proto.CHANGE, seq, proto.pack_change(
            seq & 0xFFFFF, [(seq % 64, seq % 128 < 64)]), session)
            for seq in range(1, count + 1)]
        frames = 0
        t0 = time.perf_counter()
        for k in range(0, count, 50):
            os.write(master, b"".join(packets[k:k + 50]))
            while True:
                got = link.update()
                frames += len(got)
                if not got:
                    break
        elapsed = time.perf_counter() - t0
        link.close()
    os.close(master)
    os.close(slave)
    return frames / elapsed


def rig_speed(backend: str, sim_seconds: float = 2.0) -> float:
    board = SimulatedBoard(load_layout("square8"), seed=1)
    rig = SimulatedSensing(board, backend)
    t0 = time.perf_counter()
    steps = int(sim_seconds / 0.05)
    for k in range(steps):
        cell = k % 64
        if board.objects(cell):
            board.clear(cell)
        else:
            board.put(cell, "white-pawn")
        board.advance(0.05)
    elapsed = time.perf_counter() - t0
    frames = len(rig.committed())
    rig.close()
    print(f"  {backend:24s} {sim_seconds / elapsed:6.1f}× real time, {frames} frames")
    return sim_seconds / elapsed


def main() -> None:
    print("GPIO back ends, one full-board scan per read (Python code vs the emulation):")
    for layout, backend, what in (
            ("square8", "gpio-matrix", "11×8 matrix with diodes, 88 crossings"),
            ("square8", "gpio-matrix-no-diodes", "11×8 matrix, no diodes"),
            ("square9", "gpio-shift-bitbang", "74HC165 chain, 88 bits bit-banged"),
            ("square9", "gpio-shift-spi", "74HC165 chain, 88 bits through SPI"),
            ("lotus39", "gpio-analog", "47 channels: CD74HC4067 + ADS1115")):
        rate = scan_rate(layout, backend)
        print(f"  {what:42s} {rate:8.0f} scans/s  ({1000 / rate:.3f} ms per scan)")
    print("Serial link (pseudo-terminal, firmware-encoded CHANGE packets):")
    print(f"  host link decode + frames                  {link_frames_per_second():8.0f} "
          "frames/s")
    print("Whole simulated rig (board physics + emulation/firmware + link + pipeline):")
    for backend in ("gpio-matrix", "gpio-shift-spi", "mcu-matrix", "mcu-analog"):
        rig_speed(backend)


if __name__ == "__main__":
    main()
