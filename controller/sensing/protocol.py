"""The link protocol, host side (docs/protocol.md): messages as dataclasses, framing with
the ``cobs`` package and CRC-16/CCITT-FALSE from the ``crc`` package.

The firmware has its own pure-Python implementation (``firmware/fairyfw/proto.py``);
the tests cross-check the two byte for byte.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from cobs import cobs
from crc import Calculator, Crc16

PROTOCOL_VERSION = 2
MAX_PACKET = 1024

HELLO, SNAPSHOT, CHANGE, PONG, ERROR = 0x01, 0x02, 0x03, 0x04, 0x05
HELLO_REQUEST, SNAPSHOT_REQUEST, LED_FRAME, PING = 0x81, 0x82, 0x83, 0x84
FORMAT_BITS, FORMAT_READINGS = 0, 1
RESEND_CHANGES = 0x01
SENSINGS = ("", "matrix", "shift-register", "analog")
SENSOR_KINDS = ("", "reed", "digital-hall", "linear-hall")
ERR_BAD_CRC, ERR_UNKNOWN_TYPE, ERR_BAD_PAYLOAD = 1, 2, 3
ERR_OVERFLOW, ERR_HISTORY_LOST, ERR_LED_RANGE = 4, 5, 6
SEQ_MASK = 0xFFFF
TICKS_PERIOD = 1 << 29

#: CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, not reflected, no final xor
#: (``crc`` calls it IBM_3740); check value of b"123456789" is 0x29B1.
_CRC = Calculator(Crc16.IBM_3740, optimized=True)


class ProtocolError(ValueError):
    """A packet passed its CRC but its content is malformed."""


def crc16(data: bytes) -> int:
    return _CRC.checksum(data)


# --- messages ------------------------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    session: int
    sensing: str
    sensor_kind: str
    key_count: int
    rows: int
    columns: int
    led_count: int
    ticks: int
    firmware_version: str
    layout: str
    protocol: int = PROTOCOL_VERSION


@dataclass(frozen=True)
class Snapshot:
    ticks: int
    states: tuple[bool, ...] | None = None  # FORMAT_BITS
    readings: tuple[int, ...] | None = None  # FORMAT_READINGS


@dataclass(frozen=True)
class Change:
    ticks: int
    entries: tuple[tuple[int, bool], ...]  # (sensor address, pressed)


@dataclass(frozen=True)
class Pong:
    token: int
    ticks: int


@dataclass(frozen=True)
class Error:
    code: int
    message: str


@dataclass(frozen=True)
class Packet:
    """A received packet: its type, sequence number and decoded message."""

    kind: int
    seq: int
    message: object
    session: int = 0  #: the sender's boot session (the firmware's; 0 from the host)


def encode_packet(kind: int, seq: int, payload: bytes = b"", session: int = 0) -> bytes:
    body = struct.pack("<BHH", kind, session & 0xFFFF, seq & SEQ_MASK) + payload
    return cobs.encode(body + struct.pack("<H", crc16(body))) + b"\x00"


def _text(payload: bytes, offset: int) -> tuple[str, int]:
    if offset >= len(payload):
        raise ProtocolError("text length byte missing")
    n = payload[offset]
    end = offset + 1 + n
    if end > len(payload):
        raise ProtocolError("text runs past the payload")
    try:
        return payload[offset + 1:end].decode("utf-8"), end
    except UnicodeDecodeError:
        raise ProtocolError("text is not UTF-8") from None


def _pack_text(text: str) -> bytes:
    raw = text.encode("utf-8")[:255]
    return bytes((len(raw),)) + raw


def decode_message(kind: int, payload: bytes) -> object:
    """The message object of an MCU→host packet; ``ProtocolError`` when malformed."""
    try:
        if kind == HELLO:
            head = struct.calcsize("<BHBBHBBHI")
            (proto, session, sensing, sensor_kind, keys, rows, cols, leds,
             ticks) = struct.unpack("<BHBBHBBHI", payload[:head])
            version, off = _text(payload, head)
            layout, off = _text(payload, off)
            if off != len(payload):
                raise ProtocolError("HELLO has trailing bytes")
            if not (0 < sensing < len(SENSINGS) and 0 < sensor_kind < len(SENSOR_KINDS)):
                raise ProtocolError("HELLO names an unknown sensing or sensor kind")
            return Hello(session, SENSINGS[sensing], SENSOR_KINDS[sensor_kind], keys, rows,
                         cols, leds, ticks, version, layout, proto)
        if kind == SNAPSHOT:
            ticks, fmt, n = struct.unpack("<IBH", payload[:7])
            data = payload[7:]
            if fmt == FORMAT_BITS:
                if len(data) != (n + 7) // 8:
                    raise ProtocolError("SNAPSHOT bitmap length does not match its count")
                return Snapshot(ticks, states=tuple(bool(data[k >> 3] >> (k & 7) & 1)
                                                    for k in range(n)))
            if fmt == FORMAT_READINGS:
                if len(data) != 2 * n:
                    raise ProtocolError("SNAPSHOT readings length does not match its count")
                return Snapshot(ticks, readings=struct.unpack(f"<{n}H", data))
            raise ProtocolError(f"SNAPSHOT format {fmt} unknown")
        if kind == CHANGE:
            ticks, n = struct.unpack("<IB", payload[:5])
            if len(payload) != 5 + 3 * n:
                raise ProtocolError("CHANGE length does not match its count")
            entries = tuple((struct.unpack("<H", payload[5 + 3 * i:7 + 3 * i])[0],
                             bool(payload[7 + 3 * i])) for i in range(n))
            return Change(ticks, entries)
        if kind == PONG:
            if len(payload) != 6:
                raise ProtocolError("PONG needs 6 bytes")
            return Pong(*struct.unpack("<HI", payload))
        if kind == ERROR:
            if not payload:
                raise ProtocolError("ERROR needs a code")
            message, off = _text(payload, 1)
            return Error(payload[0], message)
    except struct.error as exc:
        raise ProtocolError(f"message type {kind:#04x}: {exc}") from None
    raise ProtocolError(f"unknown message type {kind:#04x}")


# host → MCU payloads


def hello_request(nonce: int | None = None) -> bytes:
    """HELLO_REQUEST with the host's nonce: the firmware puts it in every frame's session
    field from then on, so frames of an older handshake (a replay) are never taken."""
    return b"" if nonce is None else struct.pack("<H", nonce & 0xFFFF)


def snapshot_request(resend_from: int | None = None) -> bytes:
    if resend_from is None:
        return struct.pack("<BH", 0, 0)
    return struct.pack("<BH", RESEND_CHANGES, resend_from & SEQ_MASK)


def led_frame(colours, first: int = 0, brightness: int = 255) -> bytes:
    colours = list(colours)
    if not 0 <= brightness <= 255:
        raise ValueError(f"brightness must be 0..255, got {brightness}")
    out = bytearray(struct.pack("<HBH", first, brightness, len(colours)))
    for c in colours:  # 3 or 4 bytes per LED, in the chips' order (controller.leds.drivers)
        if len(c) not in (3, 4):
            raise ValueError(f"an LED takes 3 or 4 bytes, got {c!r}")
        out += bytes(c)
    return bytes(out)


def ping(token: int) -> bytes:
    return struct.pack("<H", token & 0xFFFF)


class Decoder:
    """Byte stream → :class:`Packet` list.  Corrupt frames are counted, never returned."""

    def __init__(self, max_packet: int = MAX_PACKET) -> None:
        self.buf = bytearray()
        self.max_encoded = max_packet + max_packet // 254 + 2
        self.overlong = False
        self.crc_errors = 0
        self.framing_errors = 0
        self.malformed = 0
        self.packets = 0

    def feed(self, data: bytes) -> list[Packet]:
        out: list[Packet] = []
        while data:
            cut = data.find(0)
            if cut < 0:
                self._append(data)
                break
            self._append(data[:cut])
            data = data[cut + 1:]
            frame, self.buf = bytes(self.buf), bytearray()
            if self.overlong:
                self.overlong = False
                self.framing_errors += 1
                continue
            if not frame:
                continue
            try:
                body = cobs.decode(frame)
            except cobs.DecodeError:
                self.framing_errors += 1
                continue
            if len(body) < 7:
                self.framing_errors += 1
                continue
            if crc16(body[:-2]) != struct.unpack("<H", body[-2:])[0]:
                self.crc_errors += 1
                continue
            kind, session, seq = struct.unpack("<BHH", body[:5])
            try:
                message = decode_message(kind, body[5:-2])
            except ProtocolError:
                self.malformed += 1
                continue
            self.packets += 1
            out.append(Packet(kind, seq, message, session))
        return out

    def _append(self, data: bytes) -> None:
        if len(self.buf) + len(data) > self.max_encoded:
            self.overlong = True
            self.buf = bytearray()
        elif not self.overlong:
            self.buf += data


def seq_after(a: int, b: int) -> int:
    """How far sequence number ``a`` is ahead of ``b`` (negative: behind), mod 2**16."""
    d = (a - b) & SEQ_MASK
    return d - 0x10000 if d >= 0x8000 else d
