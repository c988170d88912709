"""The firmware's logic on the host: CircuitPython shims, emulated electronics, an in-memory
USB serial; every byte it sends is decoded with the host's protocol module."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import pytest

from controller.layout import load_layout
from controller.sensing import protocol as P
from controller.sensing.fwconfig import firmware_settings, render_config
from controller.sensing.sim import SimulatedBoard, as_sensing
from controller.sensing.sim.circuitpython import CircuitPythonShims
from controller.sensing.sim.electrical import PinBank
from controller.sensing.sim.mcu import FIRMWARE_DIR, PIN_NAMES, load_firmware
from controller.sensing.sim.wiring import wire_analog, wire_chain, wire_matrix

app = load_firmware()
SQUARE8 = load_layout("square8")


class MemSerial:
    """``usb_cdc.data`` backed by two byte buffers."""

    def __init__(self):
        self.connected = True
        self.to_mcu = bytearray()
        self.from_mcu = bytearray()

    @property
    def in_waiting(self):
        return len(self.to_mcu)

    def read(self, n):
        out = bytes(self.to_mcu[:n])
        del self.to_mcu[:n]
        return out

    def write(self, data):
        self.from_mcu += data
        return len(data)


class Harness:
    def __init__(self, layout=SQUARE8, diodes="rows", **settings):
        self.board = SimulatedBoard(layout, seed=2)
        self.layout = layout
        s = firmware_settings(layout, diodes=diodes)
        s.update(settings)
        bank = PinBank()
        if layout.sensing == "matrix":
            wire_matrix(bank, self.board, layout, s["MATRIX_ROWS"], s["MATRIX_COLUMNS"],
                        {"rows": "row", "columns": "column", "none": None}[diodes])
        elif layout.sensing == "shift-register":
            wire_chain(bank, self.board, layout, s["SHIFT_LATCH"], s["SHIFT_CLOCK"],
                       s["SHIFT_DATA"])
        else:
            wire_analog(bank, self.board, layout, s["MUX_SELECT"], s["MUX_SIGNALS"],
                        s.get("MUX_ENABLE", ()))
        self.serial = MemSerial()
        self.shims = CircuitPythonShims(bank, lambda: self.board.clock.us, self.serial,
                                        PIN_NAMES, seed=1)
        self.fw = app.Firmware(SimpleNamespace(**s),
                               app.Hardware(**self.shims.modules()))
        self.board.every(0.001, self.tick)
        self.decoder = P.Decoder()
        self.packets = []
        self.stalled = False

    def tick(self):
        self.shims.service()  # keypad scans in the background even when the loop stalls
        if not self.stalled:
            self.fw.step()

    def send(self, kind, payload):
        self.serial.to_mcu += P.encode_packet(kind, 0, payload)

    def run(self, seconds):
        self.board.advance(seconds)
        self.packets += self.decoder.feed(bytes(self.serial.from_mcu))
        self.serial.from_mcu.clear()
        return self.packets

    def take(self, kind=None):
        out = [p for p in self.packets if kind is None or p.kind == kind]
        self.packets = [p for p in self.packets if p not in out]
        return out


def address(layout, name):
    w = layout.spot(name).sensor
    return w.row * layout.matrix_columns + w.column


def test_hello_then_snapshot_after_warm_up():
    h = Harness()
    h.board.put("e4", "white-king")
    h.run(0.005)
    hello = h.take(P.HELLO)
    assert len(hello) == 1
    m = hello[0].message
    assert (m.layout, m.sensing, m.sensor_kind, m.key_count, m.rows, m.columns,
            m.led_count, m.firmware_version) == ("square8", "matrix", "reed", 88, 11, 8, 82,
                                                 "1.0.0")
    assert h.take(P.SNAPSHOT) == []  # keypad has not settled: no empty-board snapshot
    h.run(0.03)
    snaps = h.take(P.SNAPSHOT)
    assert len(snaps) == 1
    states = snaps[0].message.states
    assert [k for k, v in enumerate(states) if v] == [address(SQUARE8, "e4")]


def test_change_events_carry_sequence_numbers_timestamps_and_a_snapshot():
    h = Harness()
    h.run(0.1)
    h.take()
    h.board.put("a1", "white-rook")
    h.run(0.05)
    changes = h.take(P.CHANGE)
    assert [c.message.entries for c in changes] == [((address(SQUARE8, "a1"), True),)]
    assert changes[0].seq == 1
    # keypad scans every 5 ms, 3 equal scans: the event is 10..15 ms after the placement
    assert 110 <= changes[0].message.ticks <= 115
    snaps = h.take(P.SNAPSHOT)
    assert snaps[0].seq == 1 and snaps[0].message.states[address(SQUARE8, "a1")]
    h.board.lift("a1")
    h.board.put("h8", "black-rook")  # same scan: one CHANGE with two entries
    h.run(0.05)
    c = h.take(P.CHANGE)
    assert len(c) == 1 and c[0].seq == 2
    assert set(c[0].message.entries) == {(address(SQUARE8, "a1"), False),
                                         (address(SQUARE8, "h8"), True)}


def test_bounce_is_debounced_by_keypad():
    h = Harness()
    h.run(0.1)
    h.take()
    h.board.bounce("d4", duration_s=0.004, toggles=3)
    h.run(0.1)
    assert h.take(P.CHANGE) == []


def test_periodic_snapshot_ping_and_pong():
    h = Harness()
    h.run(0.1)
    h.take()
    h.run(1.0)
    assert len(h.take(P.SNAPSHOT)) == 1
    h.send(P.PING, P.ping(0x55AA))
    h.run(0.002)
    pongs = h.take(P.PONG)
    assert pongs[0].message.token == 0x55AA


def test_resend_from_history_and_history_lost():
    h = Harness(HISTORY=4)
    h.run(0.1)
    for cell in ["a1", "b1", "c1", "d1", "e1", "f1"]:
        h.board.put(cell, "white-pawn")
        h.run(0.05)
    h.take()
    h.send(P.SNAPSHOT_REQUEST, P.snapshot_request(4))
    h.run(0.002)
    got = h.take()
    assert [p.kind for p in got] == [P.CHANGE, P.CHANGE, P.CHANGE, P.SNAPSHOT]
    assert [p.seq for p in got] == [4, 5, 6, 6]
    assert got[0].message.entries == ((address(SQUARE8, "d1"), True),)
    h.send(P.SNAPSHOT_REQUEST, P.snapshot_request(1))  # seq 1 and 2 are gone
    h.run(0.002)
    got = h.take()
    assert [p.kind for p in got] == [P.ERROR, P.SNAPSHOT]
    assert got[0].message.code == P.ERR_HISTORY_LOST


def test_corrupt_and_unknown_requests_are_reported():
    h = Harness()
    h.run(0.1)
    h.take()
    bad = bytearray(P.encode_packet(P.PING, 0, P.ping(1)))
    bad[2] ^= 0x10
    h.serial.to_mcu += bad
    h.send(0x99, b"")
    h.send(P.PING, b"\x01")  # too short
    h.run(0.002)
    errors = [p.message.code for p in h.take(P.ERROR)]
    assert sorted(errors) == [P.ERR_BAD_CRC, P.ERR_UNKNOWN_TYPE, P.ERR_BAD_PAYLOAD]


def test_led_frames_drive_the_neopixels_with_a_brightness_cap():
    h = Harness(MAX_BRIGHTNESS=51)
    h.run(0.05)
    # the host sends each LED's bytes in the chips' order: GRB for the emulated WS2812B
    h.send(P.LED_FRAME, P.led_frame([(0, 255, 100), (20, 10, 30)], first=80, brightness=255))
    h.run(0.03)
    pixels = h.shims.pixels[-1].shown
    assert pixels[80] == (51, 0, 20) and pixels[81] == (2, 4, 6)
    assert pixels[0] == (0, 0, 0)
    h.take()
    h.send(P.LED_FRAME, P.led_frame([(1, 1, 1)] * 3, first=81))
    h.run(0.002)
    assert [p.message.code for p in h.take(P.ERROR)] == [P.ERR_LED_RANGE]


def test_event_queue_overflow_resynchronises_with_one_exact_change():
    h = Harness()
    h.run(0.1)
    h.take()
    cells = ["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8", "a8"]
    h.stalled = True  # the main loop hangs while pieces come and go: > 176 events
    for _ in range(12):
        for c in cells:
            h.board.put(c, "white-pawn")
        h.run(0.03)
        h.board.clear()
        h.run(0.03)
    for c in cells:
        h.board.put(c, "white-pawn")
    h.run(0.03)
    assert h.fw.scanner.keys.events.overflowed
    h.stalled = False
    h.run(0.1)
    got = h.take()
    assert P.ERR_OVERFLOW in [p.message.code for p in got if p.kind == P.ERROR]
    assert len([p for p in got if p.kind == P.CHANGE]) == 1
    pressed = set()
    for p in got:
        if p.kind == P.CHANGE:
            pressed |= {k for k, v in p.message.entries if v}
    assert pressed == {address(SQUARE8, c) for c in cells}
    last = [p for p in got if p.kind == P.SNAPSHOT][-1].message.states
    assert {k for k, v in enumerate(last) if v} == pressed


def test_columns_as_anodes_and_no_diodes_wirings():
    for diodes in ("columns", "none"):
        h = Harness(diodes=diodes)
        h.board.put("g3", "white-pawn")
        h.run(0.1)
        snap = h.take(P.SNAPSHOT)[-1].message.states
        assert [k for k, v in enumerate(snap) if v] == [address(SQUARE8, "g3")]


def test_no_diodes_ghost_reaches_the_firmware_too():
    h = Harness(diodes="none")
    for c in ("b2", "f2", "b6"):
        h.board.put(c, "white-pawn")
    h.run(0.1)
    snap = h.take(P.SNAPSHOT)[-1].message.states
    assert {k for k, v in enumerate(snap) if v} == {address(SQUARE8, c)
                                                    for c in ("b2", "f2", "b6", "f6")}


def test_shift_register_firmware_on_square9():
    lay = load_layout("square9")
    h = Harness(lay)
    h.board.put("i9", "white-pawn")
    h.board.put("option-6", "cube")
    h.run(0.1)
    snap = h.take(P.SNAPSHOT)[-1].message.states
    assert [k for k, v in enumerate(snap) if v] == [80, 86]


@pytest.mark.parametrize("layout", [load_layout("lotus39"), as_sensing(SQUARE8, "analog")])
def test_analog_firmware_streams_readings(layout):
    h = Harness(layout)
    h.board.put(0, "white-pawn")
    h.board.put(1, ["black-stone"] * 2)
    h.run(0.05)
    snaps = h.take(P.SNAPSHOT)
    assert len(snaps) >= 4  # one every 10 ms
    r = snaps[-1].message.readings
    assert len(r) == layout.channel_count
    mid = 1.65 / 3.3 * 65535
    ch0, ch1 = layout.spots[0].sensor.channel, layout.spots[1].sensor.channel
    assert r[ch0] > mid + 5000 and r[ch1] < mid - 5000
    assert abs(r[layout.spots[5].sensor.channel] - mid) < 2500


def test_usb_data_channel_must_be_enabled():
    h = Harness()
    h.shims.usb_cdc.data = None
    with pytest.raises(RuntimeError, match="boot.py"):
        app.Firmware(SimpleNamespace(**firmware_settings(SQUARE8)),
                     app.Hardware(**h.shims.modules()))


def test_firmware_sources_stay_circuitpython_compatible():
    banned = {"dataclasses", "typing", "enum", "abc", "asyncio", "pathlib", "collections"}
    for path in sorted(Path(FIRMWARE_DIR).rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [
                    node.module or ""]
                for m in mods:
                    assert m.split(".")[0] not in banned, f"{path.name} imports {m}"
            assert not isinstance(node, ast.AnnAssign), f"{path.name}: annotations"
            if isinstance(node, ast.FunctionDef):
                assert node.returns is None, f"{path.name}:{node.name} annotated"


def test_generated_config_is_valid_python_for_every_layout():
    for name in ("square8", "square9", "lotus39", "kaleido89"):
        text = render_config(load_layout(name))
        values = {}
        exec(compile(text, name, "exec"), {}, values)
        assert values["LAYOUT"] == name
        pins = [p for k, v in values.items() if k.startswith(("MATRIX", "MUX", "SHIFT"))
                and k != "MUX_SIGNALS" for p in ([v] if isinstance(v, str) else v)]
        pins += [values["NEOPIXEL_PIN"]]
        assert len(pins) == len(set(pins)), name
