"""The serial link never applies a frame from before a firmware restart (issue 15 #9).

Replays the reported cases byte for byte against ``SerialLink`` through a scripted port:
the firmware's boot session is in every frame (protocol version 2), so

* a CHANGE still in flight from the old session after the firmware restarted is dropped;
* the new session's snapshots, whose numbers start again from 0, are adopted — not
  ignored as "older" — and its first real change is applied, not dropped as a duplicate;
* a frame of a new session whose HELLO was lost makes the host ask for HELLO again;
* a CHANGE numbered far ahead (beyond what the firmware keeps for resending) does not
  wait for ever: the board's state is taken from the next snapshot.
"""

from __future__ import annotations

import firmware.fairyfw.proto as FP
from controller.layout import load_layout
from controller.sensing import protocol as P
from controller.sensing.frame import address_count
from controller.sensing.serial_link import MAX_PENDING, SerialConfig, SerialLink

LAYOUT = load_layout("square8")
KEYS = address_count(LAYOUT)


class ScriptedPort:
    """A serial port whose incoming bytes the test writes; what the host sends is kept."""

    def __init__(self) -> None:
        self.incoming = bytearray()
        self.sent: list[tuple[int, int, bytes]] = []  # (type, seq, payload), as the firmware
        self._decoder = FP.Decoder()                  # reads them

    @property
    def in_waiting(self) -> int:
        return len(self.incoming)

    def read(self, n: int) -> bytes:
        data, self.incoming = bytes(self.incoming[:n]), self.incoming[n:]
        return data

    def write(self, data: bytes) -> int:
        self.sent.extend(self._decoder.feed(data))
        return len(data)

    def close(self) -> None:
        pass


class Firmware:
    """Frames as the firmware writes them, for one boot session."""

    def __init__(self, port: ScriptedPort, session: int) -> None:
        self.port, self.session, self.seq, self.ticks = port, session, 0, 1000
        self.wire = session  # the frames' session: the host's nonce once it asked
        self.seen = len(port.sent)  # what the host sent before this boot is not ours

    def send(self, kind: int, payload: bytes, seq: int | None = None) -> None:
        self.port.incoming += FP.encode_packet(kind, self.seq if seq is None else seq,
                                               payload, self.wire)

    def hello(self) -> None:
        """HELLO: the answer to the host's latest HELLO_REQUEST since this boot (its
        nonce becomes the frames' session), else the boot's greeting."""
        asked = [p for kind, _, p in self.port.sent[self.seen:] if kind == P.HELLO_REQUEST]
        if asked and FP.unpack_hello_request(asked[-1]) is not None:
            self.wire = FP.unpack_hello_request(asked[-1])
        self.send(FP.HELLO, FP.pack_hello(self.session, "matrix", "reed", KEYS,
                                          LAYOUT.matrix_rows, LAYOUT.matrix_columns,
                                          LAYOUT.led_count, self.ticks, "test", "square8"))

    def snapshot(self, occupied: set[int]) -> None:
        self.ticks += 5
        self.send(FP.SNAPSHOT, FP.pack_bits_snapshot(self.ticks, [k in occupied
                                                                  for k in range(KEYS)]))

    def change(self, key: int, on: bool, seq: int | None = None) -> None:
        self.ticks += 5
        if seq is None:
            self.seq += 1
        self.send(FP.CHANGE, FP.pack_change(self.ticks, [(key, on)]), seq)


def make_link() -> tuple[SerialLink, ScriptedPort, list[float]]:
    port = ScriptedPort()
    now = [0.0]
    link = SerialLink(LAYOUT, SerialConfig(port="/dev/fake"), clock=lambda: now[0],
                      opener=lambda path, config: port)
    return link, port, now


def step(link: SerialLink, now: list[float], seconds: float = 0.01) -> list:
    now[0] += seconds
    return link.update()


def occupied(frame) -> set[int]:
    return {k for k, on in enumerate(frame.occupied) if on}


def start(session: int = 1):
    link, port, now = make_link()
    fw = Firmware(port, session)  # booted before the host opens the port
    step(link, now)  # opens the port, asks for HELLO
    fw.hello()
    fw.snapshot({5})
    frames = step(link, now) + step(link, now)
    assert link.connected and link.session == session
    frames += step(link, now, 0.3)  # a while later (the host asks for HELLO at most 5/s)
    return link, port, now, fw, frames


def keys_of(frames) -> list[set[int]]:
    return [{k for k, on in enumerate(f.occupied) if on} for f in frames]


def test_frames_carry_the_session_and_older_packets_still_decode():
    data = FP.encode_packet(FP.CHANGE, 7, FP.pack_change(1, [(3, True)]), 0xBEEF)
    packet, = P.Decoder().feed(data)
    assert (packet.session, packet.seq) == (0xBEEF, 7)
    assert P.PROTOCOL_VERSION == FP.PROTOCOL_VERSION == 2
    assert FP.unpack_hello_request(P.hello_request(0xBEEF)) == 0xBEEF
    assert FP.unpack_hello_request(P.hello_request()) is None


def test_a_change_from_before_the_restart_is_never_applied():
    link, port, now, old, frames = start(session=1)
    old.change(5, False)  # the piece on input 5 lifted: applied
    frames = step(link, now)
    assert link.last_seq == 1 and not link.keys[5]
    # the firmware restarts (new session) and says hello; a CHANGE of the old session,
    # resent or held up on the way, arrives after that HELLO
    new = Firmware(port, session=2)
    new.hello()  # its greeting: the host answers with a new handshake (a new nonce)
    old.change(9, True)  # stale: input 9 was never occupied in the new session
    step(link, now)
    new.hello()  # the answer, in the new nonce
    new.snapshot({5})
    old.change(9, True)  # still stale
    frames = step(link, now) + step(link, now)
    assert link.session == 2 and link.stats["stale_session"] >= 1
    assert not link.keys[9], "a frame from before the restart was applied"
    assert link.keys[5]  # the new session's snapshot (number 0) adopted, not "older"
    # the first real change of the new session (number 1) is applied, not a "duplicate"
    new.change(5, False)
    frames = step(link, now)
    assert not link.keys[5] and keys_of(frames)[-1] == set()


def test_a_new_session_without_its_hello_makes_the_host_ask_for_it():
    link, port, now, old, _ = start(session=1)
    port.sent.clear()
    new = Firmware(port, session=7)  # restarted; its HELLO was lost on the way
    new.change(12, True)
    new.snapshot({5, 12})
    step(link, now)
    assert not link.keys[12]
    assert any(kind == P.HELLO_REQUEST for kind, _, _ in port.sent)
    new.hello()  # the answer to that request
    new.snapshot({5, 12})
    step(link, now)
    step(link, now)
    assert link.session == 7 and link.keys[12]


def test_an_old_handshake_replayed_after_a_restart_is_never_adopted():
    """Issue 37: the old session's HELLO + SNAPSHOT replayed after a firmware restart
    re-adopted the old picture (26 stale frames in 6 runs)."""
    link, port, now, old, _ = start(session=1)
    old.hello()
    old.snapshot({5, 33})  # the old picture: a piece on 33
    recorded = bytes(port.incoming)
    port.incoming.clear()
    new = Firmware(port, session=2)  # restarted: greets, the host asks anew
    new.hello()
    step(link, now)
    new.hello()
    new.snapshot({5})
    step(link, now)
    step(link, now)
    assert link.session == 2 and not link.keys[33]
    for _ in range(6):  # the replay, again and again
        port.incoming += recorded
        step(link, now)
        step(link, now)
        assert not link.keys[33], "the old session's picture was adopted"
    assert link.session == 2 and link.stats["unasked_hello"] >= 6


def test_a_change_far_ahead_does_not_wait_for_ever():
    link, port, now, fw, _ = start(session=3)
    port.sent.clear()
    fw.change(20, True, seq=MAX_PENDING + 10)  # numbers the firmware cannot resend
    step(link, now)
    assert not link.pending and link.stats["far_ahead"] == 1
    requests = [payload for kind, _, payload in port.sent if kind == P.SNAPSHOT_REQUEST]
    assert requests and requests[-1][0] & 1 == 0  # a plain snapshot, no resend
    fw.seq = MAX_PENDING + 10
    fw.snapshot({5, 20})
    frames = step(link, now)
    assert link.keys[20] and link.last_seq == MAX_PENDING + 10 and keys_of(frames)[-1] == {5, 20}
