"""The emulated CircuitPython modules behave like the real ones where it changes what the
firmware does (issue #16, defect 11): keypad's integrating debounce and its start-up
counters, ``time.sleep`` taking emulated time in whole 1/1024 s ticks,
``usb_cdc.data.connected`` as DTR (the host holds the port open), writes that block when
the host does not read."""

from __future__ import annotations

import os
import select

import pytest

from controller.layout import load_layout
from controller.sensing import protocol as P
from controller.sensing.sim import SimulatedBoard, SimulatedMCU
from controller.sensing.sim.circuitpython import CircuitPythonShims
from controller.sensing.sim.electrical import PinBank, ShiftRegisterChain
from controller.sensing.sim.mcu import PIN_NAMES, TX_FIFO_BYTES

SQUARE8 = load_layout("square8")


class Clock:
    def __init__(self) -> None:
        self.us = 0

    def advance(self, us: int) -> None:
        self.us += us


class Contacts:
    """Eight switches on a 74HC165 read through ``keypad.ShiftRegisterKeys``."""

    def __init__(self, closed: bool = False, threshold: int = 3) -> None:
        self.clock = Clock()
        self.closed = [closed] + [False] * 7
        bank = PinBank()
        ShiftRegisterChain(bank, "GP3", "GP1", "GP2", 8, lambda: self.closed)
        self.shims = CircuitPythonShims(bank, lambda: self.clock.us, None, PIN_NAMES,
                                        advance_us=self.clock.advance)
        b = self.shims.board
        self.keys = self.shims.keypad.ShiftRegisterKeys(
            clock=b.GP1, data=b.GP2, latch=b.GP3, key_count=8, value_when_pressed=True,
            interval=0.005, debounce_threshold=threshold)

    def scan(self, closed: bool) -> None:
        """The contact of key 0 reads ``closed`` at the next scan."""
        self.closed[0] = closed
        self.clock.advance(5000)
        self.shims.service()

    def events(self) -> list[tuple[int, bool]]:
        out = []
        ev = self.shims.keypad.Event()
        while self.keys.events.get_into(ev):
            out.append((ev.key_number, ev.pressed))
        return out


def test_keypad_debounce_integrates_rather_than_counting_equal_scans():
    c = Contacts()
    c.keys.reset()
    # a flickering contact closed two scans in three: the integrating counter climbs
    # (+1 +1 -1 per three scans) and reports the press; equal-scan counting never would
    for closed in (True, False, True, True, False, True, True):
        c.scan(closed)
    assert c.events() == [(0, True)]


def test_keypad_reports_no_press_for_a_key_held_at_construction_until_reset():
    c = Contacts(closed=True)
    for _ in range(6):
        c.scan(True)
    assert c.events() == []  # counters start at zero: held keys stay silent
    c.keys.reset()  # every key "released": the held one reports after three scans
    for _ in range(3):
        c.scan(True)
    assert c.events() == [(0, True)]


def test_time_sleep_takes_whole_ticks_of_emulated_time():
    clock = Clock()
    shims = CircuitPythonShims(PinBank(), lambda: clock.us, None, PIN_NAMES,
                               advance_us=clock.advance)
    shims.time.sleep(0.0004)  # rounds to 0 ms
    assert clock.us == 0
    shims.time.sleep(0.0005)  # 1 ms = one 1/1024 s tick, counted from the current one
    assert clock.us == 977
    clock.us = 1900  # late in tick 1: the next tick starts at 1954 µs
    shims.time.sleep(0.0005)
    assert clock.us == 1954
    shims.time.sleep(0.010)  # ten ticks from tick 2: tick 12 starts at 11719 µs
    assert clock.us == 11719
    shims.microcontroller.delay_us(500)  # a busy wait: exact
    assert clock.us == 11719 + 500


@pytest.fixture
def mcu(tmp_path):
    board = SimulatedBoard(SQUARE8)
    m = SimulatedMCU(board, SQUARE8, tmp_path)
    yield board, m
    m.close()


def read_all(fd: int) -> bytes:
    out = b""
    while select.select([fd], [], [], 0)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        out += chunk
    return out


def test_data_channel_is_connected_only_while_the_host_holds_the_port_open(mcu):
    board, m = mcu
    board.advance(0.2)
    assert not m.serial.connected and not m.fw.connected  # cable in, port closed: no DTR
    assert m.bytes_offered == 0
    fd = os.open(m.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        board.advance(0.05)
        assert m.fw.connected
        kinds = [p.kind for p in P.Decoder().feed(read_all(fd))]
        assert kinds[:2] == [P.HELLO, P.SNAPSHOT]  # DTR rising: the firmware says hello
    finally:
        os.close(fd)
    board.advance(0.01)
    assert not m.serial.connected and not m.fw.connected


def test_writes_block_for_the_write_timeout_when_the_host_does_not_read(mcu):
    board, m = mcu
    fd = os.open(m.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        board.advance(0.05)
        before = board.clock.us
        placed = m.serial.write(b"\x01" * 100_000)  # far more than the host takes in
        assert placed < 100_000
        assert m.serial.out_waiting == TX_FIFO_BYTES
        assert board.clock.us - before == 50_000  # blocked for write_timeout (50 ms)
        assert m.bytes_lost == 100_000 - placed
        read_all(fd)  # the host reads: the FIFO empties, writes go through at once
        board.advance(0.002)
        assert m.serial.out_waiting == 0
        before = board.clock.us
        assert m.serial.write(b"\x01" * 1000) == 1000
        assert board.clock.us == before
    finally:
        os.close(fd)
