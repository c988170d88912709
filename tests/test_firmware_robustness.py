"""The firmware as a product (issue #16, defect 10): a watchdog and a restart after an
exception, autoreload off in production, ``code.py`` wiring it up, SMPS_MODE high on the
analog boards, the analog settle as an exact busy wait, keys held at power-up seen, and
LED frames that never hold change reports back.  The firmware runs on the host under the
emulated CircuitPython modules (``controller.sensing.sim``)."""

from __future__ import annotations

import builtins
import logging
import os
from types import ModuleType, SimpleNamespace

import pytest

from controller.layout import load_layout
from controller.sensing import protocol as P
from controller.sensing.fwconfig import firmware_settings
from controller.sensing.sim import SimulatedBoard, SimulatedMCU, SimulatedSensing
from controller.sensing.sim.circuitpython import CircuitPythonShims, ReloadException
from controller.sensing.sim.electrical import DEFAULT_HALL, PinBank
from controller.sensing.sim.mcu import EMULATED_CIRCUITS, FIRMWARE_DIR, PIN_NAMES, load_firmware

app = load_firmware()
SQUARE8 = load_layout("square8")
LOTUS = load_layout("lotus39")


class MemSerial:
    """``usb_cdc.data`` on two byte buffers, with DTR up."""

    def __init__(self) -> None:
        self.connected = True
        self.to_mcu = bytearray()
        self.from_mcu = bytearray()
        self.fail_reads_after: int | None = None

    @property
    def in_waiting(self) -> int:
        if self.fail_reads_after is not None:
            self.fail_reads_after -= 1
            if self.fail_reads_after < 0:
                raise OSError("USB fault")
        return len(self.to_mcu)

    def read(self, n: int) -> bytes:
        out = bytes(self.to_mcu[:n])
        del self.to_mcu[:n]
        return out

    def write(self, data: bytes) -> int:
        self.from_mcu += data
        return len(data)


class Bench:
    """The firmware on a simulated board with its emulated circuit, clock taking the time
    the firmware spends (busy waits, sleeps), an in-memory USB channel."""

    def __init__(self, layout=SQUARE8, before_boot=(), boot=True, **settings) -> None:
        self.board = SimulatedBoard(layout, seed=2)
        for cell, piece in before_boot:
            self.board.put(cell, piece)
        s = firmware_settings(layout)
        s.update(settings)
        self.bank = PinBank()
        wiring = SimpleNamespace(board=self.board, layout=layout, diodes="rows",
                                 hall=DEFAULT_HALL, seed=0)
        EMULATED_CIRCUITS[layout.sensing](wiring, self.bank, s)
        self.serial = MemSerial()
        self.shims = CircuitPythonShims(self.bank, lambda: self.board.clock.us, self.serial,
                                        PIN_NAMES, seed=1, advance_us=self._advance)
        if not boot:  # code.py will
            return
        self.fw = app.Firmware(SimpleNamespace(**s), app.Hardware(**self.shims.modules()))
        self.board.every(0.001, self.tick)
        self.packets: list[P.Packet] = []
        self.decoder = P.Decoder()

    def _advance(self, us: int) -> None:
        self.board.clock.us += us

    def tick(self) -> None:
        self.shims.service()
        self.fw.step()

    def send(self, kind: int, payload: bytes) -> None:
        self.serial.to_mcu += P.encode_packet(kind, 0, payload)

    def run(self, seconds: float) -> list[P.Packet]:
        self.board.advance(seconds)
        self.packets += self.decoder.feed(bytes(self.serial.from_mcu))
        self.serial.from_mcu.clear()
        return self.packets

    def take(self) -> list[P.Packet]:
        out, self.packets = self.packets, []
        return out


def address(layout, name):
    w = layout.spot(name).sensor
    return w.row * layout.matrix_columns + w.column


# --- watchdog, restart, autoreload --------------------------------------------------------


def test_production_start_turns_autoreload_off_and_arms_the_watchdog():
    b = Bench()
    b.fw.start()
    assert b.shims.supervisor.runtime.autoreload is False
    wd = b.shims.watchdog_timer
    assert wd.mode == b.shims.watchdog.WatchDogMode.RESET and 0 < wd.timeout <= 8
    feeds = wd.feeds
    b.run(0.05)
    assert wd.feeds >= feeds + 40  # fed by every pass of the loop
    assert not wd.expired()


def test_develop_keeps_autoreload_no_watchdog_and_exceptions_propagate():
    b = Bench(DEVELOP=True)
    b.fw.start()
    assert b.shims.supervisor.runtime.autoreload is True
    assert b.shims.watchdog_timer.mode is None
    b.serial.fail_reads_after = 0
    with pytest.raises(OSError, match="USB fault"):
        b.fw.guarded_step()


def test_an_exception_is_reported_in_one_line_then_the_firmware_reloads():
    b = Bench()
    b.fw.start()
    b.run(0.1)
    b.take()
    b.serial.fail_reads_after = 0
    with pytest.raises(ReloadException):
        b.fw.guarded_step()
    errors = [p.message for p in P.Decoder().feed(bytes(b.serial.from_mcu))
              if p.kind == P.ERROR]
    assert [(e.code, e.message) for e in errors] == [
        (7, "restarting after OSError: USB fault")]


def test_a_hung_firmware_is_reset_by_the_watchdog_and_the_link_recovers():
    board = SimulatedBoard(SQUARE8, seed=1)
    rig = SimulatedSensing(board, "mcu-matrix")
    try:
        board.advance(0.3)
        assert rig.link.connected
        rig.mcu.hang()
        board.put("d4", "white-queen")  # while nobody scans
        board.advance(app.WATCHDOG_S + 0.5)
        assert rig.mcu.resets == 1 and not rig.mcu.hung
        board.advance(3.0)
        assert rig.link.connected and rig.link.stats["sessions"] == 2
        assert rig.committed()[-1].occupied_spots() == (SQUARE8.spot_index("d4"),)
    finally:
        rig.close()


def test_a_crash_on_the_emulated_pico_restarts_it_and_the_host_resynchronises(caplog):
    board = SimulatedBoard(SQUARE8, seed=1)
    rig = SimulatedSensing(board, "mcu-matrix")
    try:
        board.advance(0.3)
        boots = rig.mcu.boots

        def broken():
            raise RuntimeError("scanner fault")
        rig.mcu.fw.scanner.poll = broken
        board.put("c3", "white-knight")
        with caplog.at_level(logging.INFO, logger="controller.sensing.serial_link"):
            board.advance(3.0)
        assert rig.mcu.boots == boots + 1  # code.py ran again (supervisor.reload)
        assert "firmware error 7: restarting after RuntimeError: scanner fault" in caplog.text
        assert rig.link.connected and rig.link.stats["sessions"] == 2
        assert rig.committed()[-1].occupied_spots() == (SQUARE8.spot_index("c3"),)
    finally:
        rig.close()


def test_code_py_wires_the_modules_and_restarts_after_an_exception(capsys):
    b = Bench(boot=False)
    config = ModuleType("config")
    for name, value in firmware_settings(SQUARE8).items():
        setattr(config, name, value)
    modules = dict(b.shims.modules(), config=config)

    def circuitpython_import(name, *args, **kw):
        return modules[name] if name in modules else __import__(name, *args, **kw)
    path = FIRMWARE_DIR / "code.py"
    scope = {"__name__": "__main__",
             "__builtins__": dict(vars(builtins), __import__=circuitpython_import)}
    b.serial.fail_reads_after = 200  # the loop runs, then the USB channel fails
    with pytest.raises(ReloadException):
        exec(compile(path.read_text(), str(path), "exec"), scope)
    assert b.shims.supervisor.runtime.autoreload is False
    assert b.shims.watchdog_timer.mode == "WatchDogMode.RESET"
    assert b.shims.watchdog_timer.feeds > 100
    assert b.serial.write_timeout == 0.05 and b.serial.timeout == 0
    packets = P.Decoder().feed(bytes(b.serial.from_mcu))
    assert packets[0].kind == P.HELLO
    assert packets[-1].kind == P.ERROR and packets[-1].message.code == 7
    assert "restarting after OSError: USB fault" in capsys.readouterr().out


# --- scanning ----------------------------------------------------------------------------


def test_pieces_on_the_board_at_power_up_are_in_the_first_snapshot():
    b = Bench(before_boot=[("e4", "white-king"), ("a8", "black-rook")])
    b.run(0.05)
    snaps = [p for p in b.take() if p.kind == P.SNAPSHOT]
    assert snaps
    on = {k for k, v in enumerate(snaps[0].message.states) if v}
    assert on == {address(SQUARE8, "e4"), address(SQUARE8, "a8")}


def test_analog_boards_drive_smps_mode_high_and_let_the_multiplexers_settle():
    b = Bench(LOTUS)
    assert b.bank.driven("GP23") is True  # board.SMPS_MODE: the regulator in PWM mode
    b.run(0.1)
    probe = b.shims.probe
    assert probe.adc_reads > 400
    settle_us = round(firmware_settings(LOTUS)["ANALOG_SETTLE_S"] * 1e6)
    assert settle_us <= probe.shortest_settle_us < settle_us + 50
    assert len([p for p in b.take() if p.kind == P.SNAPSHOT]) >= 8  # still ~10 ms apart


def test_boards_without_smps_mode_skip_it():
    b = Bench(LOTUS, SMPS_MODE_PIN=None)
    assert b.bank.driven("GP23") is None


def test_a_change_goes_out_before_the_led_frame_that_arrived_with_it():
    b = Bench()
    b.run(0.1)
    b.take()
    b.board.put("a1", "white-rook")
    for _ in range(100):  # up to the pass that reports the change
        b.board.advance(0.001)
        if b.fw.seq:
            break
        b.serial.from_mcu.clear()
    # the same change again, this time with an LED frame (out of range: answered with
    # an ERROR) waiting in the same pass
    b.board.lift("a1")
    b.board.set_aside()
    seq = b.fw.seq
    b.serial.from_mcu.clear()
    for _ in range(100):
        b.send(P.LED_FRAME, P.led_frame([(1, 1, 1)] * 3, first=81))
        b.board.advance(0.001)
        if b.fw.seq != seq:
            break
        b.serial.from_mcu.clear()
    kinds = [p.kind for p in P.Decoder().feed(bytes(b.serial.from_mcu))]
    assert kinds.index(P.CHANGE) < kinds.index(P.ERROR)


def test_an_led_frame_is_one_slice_of_bytes_into_the_pixels():
    b = Bench(MAX_BRIGHTNESS=255)
    b.run(0.05)
    pixels = b.shims.pixels[0]
    writes = []
    real = type(pixels).__setitem__

    def spy(self, index, value):
        writes.append((index, type(value)))
        real(self, index, value)
    type(pixels).__setitem__ = spy
    try:
        b.send(P.LED_FRAME, P.led_frame([(k, 2 * k, 3 * k) for k in range(82)]))
        b.run(0.03)
    finally:
        type(pixels).__setitem__ = real
    assert writes == [(slice(0, 82), bytes)]
    assert pixels.wire[30:33] == bytes((10, 20, 30))  # passed through as the host sent them
    # … and a WS2812B takes the first byte of each LED as green
    assert pixels.shown[10] == (20, 10, 30) and pixels.shown[81] == (162, 81, 243)


def test_after_a_write_cut_short_by_a_host_that_does_not_read_the_next_frame_is_intact(
        tmp_path):
    board = SimulatedBoard(LOTUS, seed=2)
    mcu = SimulatedMCU(board, LOTUS, tmp_path)
    fd = os.open(mcu.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)

    def read_all() -> bytes:
        data = b""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return data
            data += chunk
    try:
        board.advance(2.5)  # the readings stream fills the port: writes time out
        assert mcu.serial.short_writes > 0
        data = read_all()  # the host reads again
        board.advance(0.1)
        data += read_all()
        packets = P.Decoder().feed(data)
    finally:
        os.close(fd)
        mcu.close()
    # every frame written whole arrives; only the frames cut short are lost
    assert len(packets) == mcu.fw.sent_packets - mcu.serial.short_writes


def test_a_readings_snapshot_is_stamped_when_its_scan_ends():
    b = Bench(LOTUS)
    stamps = []
    write = b.serial.write

    def spy(data):
        stamps.append(b.shims.probe.adc_read_us // 1000)  # the latest conversion's ms
        return write(data)
    b.serial.write = spy
    packets = b.run(0.1)
    snaps = [(p.message.ticks, stamp) for p, stamp in zip(packets, stamps, strict=True)
             if p.kind == P.SNAPSHOT]
    assert len(snaps) >= 8
    assert all(ticks == last_read_ms for ticks, last_read_ms in snaps)
