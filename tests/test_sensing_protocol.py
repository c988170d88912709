"""The link protocol: host (cobs/crc packages) against the firmware's own implementation."""

from __future__ import annotations

import random

import pytest
from cobs import cobs
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.sensing import protocol as P
from controller.sensing.sim.mcu import load_firmware

fw = load_firmware()
FP = __import__("fairyfw.proto", fromlist=["proto"])


def test_crc_is_ccitt_false_in_both_implementations():
    assert P.crc16(b"123456789") == 0x29B1
    assert FP.crc16(b"123456789") == 0x29B1
    assert FP.crc16(b"") == P.crc16(b"") == 0xFFFF


@given(st.binary(max_size=600))
@settings(max_examples=200, deadline=None)
def test_crc_and_cobs_agree(data):
    assert FP.crc16(data) == P.crc16(data)
    enc = FP.cobs_encode(data)
    assert enc == cobs.encode(data)
    assert 0 not in enc
    assert FP.cobs_decode(enc) == data == cobs.decode(enc)


@given(st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=300))
@settings(max_examples=100, deadline=None)
def test_packets_are_byte_identical(kind, seq, payload):
    assert FP.encode_packet(kind, seq, payload) == P.encode_packet(kind, seq, payload)


def _one(decoder, data):
    packets = decoder.feed(data)
    assert len(packets) == 1
    return packets[0]


def test_host_decodes_every_firmware_message():
    d = P.Decoder()
    h = _one(d, FP.encode_packet(FP.HELLO, 7, FP.pack_hello(
        0xBEEF, "matrix", "reed", 88, 11, 8, 82, 123456, "1.0.0", "square8")))
    assert h.kind == P.HELLO and h.seq == 7
    assert h.message == P.Hello(0xBEEF, "matrix", "reed", 88, 11, 8, 82, 123456, "1.0.0",
                                "square8")
    states = [bool(i % 3 == 0) for i in range(88)]
    s = _one(d, FP.encode_packet(FP.SNAPSHOT, 9, FP.pack_bits_snapshot(5000, states)))
    assert s.message == P.Snapshot(5000, states=tuple(states))
    readings = [random.Random(1).randrange(65536) for _ in range(48)]
    r = _one(d, FP.encode_packet(FP.SNAPSHOT, 0, FP.pack_readings_snapshot(77, readings)))
    assert r.message == P.Snapshot(77, readings=tuple(readings))
    c = _one(d, FP.encode_packet(FP.CHANGE, 10, FP.pack_change(5001, [(3, True), (70, False)])))
    assert c.message == P.Change(5001, ((3, True), (70, False)))
    p = _one(d, FP.encode_packet(FP.PONG, 10, FP.pack_pong(0x1234, 9)))
    assert p.message == P.Pong(0x1234, 9)
    e = _one(d, FP.encode_packet(FP.ERROR, 10, FP.pack_error(FP.ERR_BAD_CRC, "bad frame")))
    assert e.message == P.Error(P.ERR_BAD_CRC, "bad frame")
    assert d.crc_errors == d.framing_errors == d.malformed == 0


def test_firmware_decodes_every_host_message():
    d = FP.Decoder()
    colours = [(1, 2, 3), (255, 0, 128)]
    data = (P.encode_packet(P.PING, 1, P.ping(0xABCD))
            + P.encode_packet(P.SNAPSHOT_REQUEST, 2, P.snapshot_request(41))
            + P.encode_packet(P.SNAPSHOT_REQUEST, 3, P.snapshot_request(None))
            + P.encode_packet(P.LED_FRAME, 4, P.led_frame(colours, first=80, brightness=99))
            + P.encode_packet(P.HELLO_REQUEST, 5, P.hello_request()))
    got = d.feed(data)
    assert [k for k, _s, _p in got] == [P.PING, P.SNAPSHOT_REQUEST, P.SNAPSHOT_REQUEST,
                                        P.LED_FRAME, P.HELLO_REQUEST]
    assert FP.unpack_ping(got[0][2]) == 0xABCD
    assert FP.unpack_snapshot_request(got[1][2]) == (FP.RESEND_CHANGES, 41)
    assert FP.unpack_snapshot_request(got[2][2]) == (0, 0)
    assert FP.unpack_led_frame(got[3][2]) == (80, 99, colours)


def test_every_single_bit_flip_is_rejected():
    packet = FP.encode_packet(FP.CHANGE, 300, FP.pack_change(99, [(5, True), (6, False)]))
    for pos in range(len(packet) - 1):  # the delimiter stays
        for bit in range(8):
            bad = bytearray(packet)
            bad[pos] ^= 1 << bit
            for decoder in (P.Decoder(), FP.Decoder()):
                assert decoder.feed(bytes(bad) + b"\x00") == [], (pos, bit)


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 0xFFFF)), min_size=1, max_size=8),
       st.integers(0, 2**32 - 1))
@settings(max_examples=150, deadline=None)
def test_corruption_never_yields_a_wrong_packet(changes, seed):
    rng = random.Random(seed)
    packets = [FP.encode_packet(FP.CHANGE, seq, FP.pack_change(seq * 3, [(key, seq % 2 == 0)]))
               for key, seq in changes]
    stream = bytearray(b"".join(packets))
    for _ in range(rng.randrange(1, 6)):  # flip, drop or insert bytes
        pos = rng.randrange(len(stream))
        what = rng.randrange(3)
        if what == 0:
            stream[pos] ^= 1 << rng.randrange(8)
        elif what == 1:
            del stream[pos]
        else:
            stream.insert(pos, rng.randrange(256))
    good = {(P.CHANGE, seq, P.Change(seq * 3, ((key, seq % 2 == 0),))) for key, seq in changes}
    for p in P.Decoder().feed(bytes(stream)):
        assert (p.kind, p.seq, p.message) in good


def test_decoder_recovers_after_garbage_and_split_reads():
    d = P.Decoder()
    packet = P.encode_packet(P.PONG, 1, FP.pack_pong(7, 8))
    assert d.feed(b"\x13\x99garbage" + b"\x00") == []
    assert d.framing_errors + d.crc_errors == 1
    out = []
    for b in packet:  # one byte at a time
        out += d.feed(bytes([b]))
    assert [p.message for p in out] == [P.Pong(7, 8)]


def test_overlong_frame_is_dropped_then_next_one_decodes():
    d = P.Decoder(max_packet=64)
    assert d.feed(b"\x01" * 500 + b"\x00") == []
    assert d.framing_errors == 1
    assert d.feed(P.encode_packet(P.PONG, 2, FP.pack_pong(1, 2)))[0].message == P.Pong(1, 2)


def test_well_framed_but_malformed_payload_is_counted_not_returned():
    d = P.Decoder()
    assert d.feed(P.encode_packet(P.CHANGE, 1, b"\x00\x00\x00\x00\x05\x01")) == []
    assert d.malformed == 1
    assert d.feed(P.encode_packet(0x42, 1, b"")) == []
    assert d.malformed == 2


def test_led_frame_checks_colours():
    with pytest.raises(ValueError, match="brightness"):
        P.led_frame([(1, 2, 3)], brightness=300)
    with pytest.raises(ValueError, match="LED_FRAME length"):
        FP.unpack_led_frame(P.led_frame([(1, 2, 3)])[:-1])


def test_sequence_and_tick_arithmetic_wraps():
    assert P.seq_after(2, 0xFFFF) == 3
    assert P.seq_after(0xFFFF, 2) == -3
    assert P.seq_after(5, 5) == 0
    top = FP.TICKS_PERIOD - 10
    assert FP.ticks_diff(5, top) == 15
    assert FP.ticks_diff(top, 5) == -15
