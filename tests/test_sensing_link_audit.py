"""The link trusts the firmware's picture, not a sequence number alone (issue 37, Found 5).

A model of the firmware that answers the host as ``firmware/fairyfw/app.py`` does (HELLO,
a snapshot after resending the asked-for changes, PONG) over a scripted port, and a forger
who injects CRC-valid frames:

* one CHANGE numbered 1, 2 or 3 ahead made a piece that stayed as long as the board was
  idle (> 30 s), and the firmware's real change with that number was dropped later as a
  duplicate; now the idle link's audit snapshot undoes it within ``audit_s`` + a recovery,
  and the real change is applied;
* forged ticks gave frames times of −34,458 s and +99,707 s; now every frame's time is
  between ``max_event_age_s`` ago and now.
"""

from __future__ import annotations

import random
import struct

import pytest

import firmware.fairyfw.proto as FP
from controller.sensing import protocol as P
from controller.sensing.serial_link import SerialConfig, SerialLink
from tests.test_sensing_link_sessions import KEYS, LAYOUT, ScriptedPort

STEP = 0.01
#: the link's defaults (SerialConfig.audit_s, .max_event_age_s)
AUDIT_S, MAX_AGE_S = 2.0, 5.0


class AnsweringFirmware:
    """The firmware's side of the protocol for one session: its real state, its change
    history, answers to the host's requests."""

    def __init__(self, port: ScriptedPort, session: int, now: list[float]) -> None:
        self.port, self.session, self.now = port, session, now
        self.seq = 0
        self.wire = session  # the frames' session: the host's nonce once it sent one
        self.state = [False] * KEYS
        self.history: list[tuple[int, bytes]] = []
        self.read = 0

    @property
    def ticks(self) -> int:
        return int(self.now[0] * 1000) + 1000

    def _send(self, kind: int, payload: bytes, seq: int | None = None) -> None:
        self.port.incoming += FP.encode_packet(kind, self.seq if seq is None else seq,
                                               payload, self.wire)

    def hello(self) -> None:
        self._send(FP.HELLO, FP.pack_hello(self.session, "matrix", "reed", KEYS,
                                           LAYOUT.matrix_rows, LAYOUT.matrix_columns,
                                           LAYOUT.led_count, self.ticks, "test", "square8"))

    def snapshot(self) -> None:
        self._send(FP.SNAPSHOT, FP.pack_bits_snapshot(self.ticks, self.state))

    def change(self, key: int, on: bool) -> None:
        self.state[key] = on
        self.seq = (self.seq + 1) & 0xFFFF
        payload = FP.pack_change(self.ticks, [(key, on)])
        self.history = (self.history + [(self.seq, payload)])[-64:]
        self._send(FP.CHANGE, payload)

    def answer(self) -> None:
        """What the host sent since the last call, answered."""
        for kind, _, payload in self.port.sent[self.read:]:
            if kind == P.HELLO_REQUEST:
                nonce = FP.unpack_hello_request(payload)
                self.wire = self.wire if nonce is None else nonce
                self.hello()
                self.snapshot()
            elif kind == P.SNAPSHOT_REQUEST:
                flags, first = FP.unpack_snapshot_request(payload)
                if flags & FP.RESEND_CHANGES:
                    count = (self.seq - first + 1) & 0xFFFF
                    if count > len(self.history):
                        self._send(FP.ERROR, FP.pack_error(FP.ERR_HISTORY_LOST, "gone"))
                    elif count:
                        for seq, old in self.history[len(self.history) - count:]:
                            self._send(FP.CHANGE, old, seq)
                self.snapshot()
            elif kind == P.PING:
                (token,) = struct.unpack("<H", payload)
                self._send(FP.PONG, FP.pack_pong(token, self.ticks))
        self.read = len(self.port.sent)


def running(session: int = 1):
    port = ScriptedPort()
    now = [0.0]
    link = SerialLink(LAYOUT, SerialConfig(port="/dev/fake"), clock=lambda: now[0],
                      opener=lambda path, config: port)
    fw = AnsweringFirmware(port, session, now)
    fw.state[5] = True
    frames: list = []

    def run(seconds: float) -> list:
        out = []
        for _ in range(round(seconds / STEP)):
            now[0] += STEP
            out += link.update()
            fw.answer()
        frames.extend(out)
        return out

    run(0.3)
    assert link.connected and link.synced and link.keys == fw.state
    return link, fw, run, now, frames


@pytest.mark.parametrize("ahead", [1, 2, 3])
def test_a_forged_change_numbered_ahead_is_undone_by_the_idle_audit(ahead):
    link, fw, run, now, _ = running()
    forged = FP.pack_change(fw.ticks, [(20, True)])  # a piece on input 20: never there
    fw.port.incoming += FP.encode_packet(FP.CHANGE, fw.seq + ahead, forged, fw.wire)
    run(0.05)
    started = now[0]
    while link.keys[20] or link.pending:
        run(0.1)
        assert now[0] - started < AUDIT_S + 1.0, "the phantom stayed"
    assert link.keys == fw.state  # the firmware's picture
    for _ in range(ahead):  # the firmware's real changes with those numbers: applied
        fw.change(30, not fw.state[30])
        run(0.05)
        assert link.keys == fw.state, "a real change was dropped as a duplicate"
    run(AUDIT_S * 2)
    assert link.keys == fw.state


def test_forged_ticks_never_give_a_frame_a_time_outside_the_host_clock():
    link, fw, run, now, frames = running()
    rng = random.Random(37)
    for ticks in (fw.ticks - 34_458_000, fw.ticks + 99_707_000, 0, P.TICKS_PERIOD - 1,
                  fw.ticks + P.TICKS_PERIOD // 2 - 1, *[rng.randrange(P.TICKS_PERIOD)
                                                      for _ in range(20)]):
        ticks %= P.TICKS_PERIOD
        for kind, payload in ((FP.PONG, FP.pack_pong(1, ticks)),
                              (FP.SNAPSHOT, FP.pack_bits_snapshot(ticks, fw.state))):
            fw.port.incoming += FP.encode_packet(kind, fw.seq, payload, fw.wire)
        run(0.05)
        fw.change(40, not fw.state[40])  # a real change after the forged times
        got = run(0.05)
        assert got, "the real change made no frame"
        for frame in got:
            assert now[0] - MAX_AGE_S <= frame.time <= now[0] + 1e-6, \
                (ticks, frame.time, now[0])
    assert link.keys == fw.state


def test_the_defaults_the_tests_assume():
    assert (SerialConfig().audit_s, SerialConfig().max_event_age_s) == (AUDIT_S, MAX_AGE_S)
