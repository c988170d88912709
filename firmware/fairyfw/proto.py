"""The link protocol, firmware side: COBS framing, CRC-16/CCITT-FALSE, message packing.

Pure Python that runs on CircuitPython and CPython alike (``struct`` only; no typing,
no dataclasses).  docs/protocol.md describes every byte.  A packet is::

    type (u8) | seq (u16 LE) | payload | CRC-16/CCITT-FALSE of the above (u16 LE)

COBS-encoded and terminated by one 0x00 byte.
"""

import struct

PROTOCOL_VERSION = 2
MAX_PACKET = 1024  # decoded bytes; longer frames are dropped as framing errors

# MCU -> host
HELLO = 0x01
SNAPSHOT = 0x02
CHANGE = 0x03
PONG = 0x04
ERROR = 0x05
# host -> MCU
HELLO_REQUEST = 0x81
SNAPSHOT_REQUEST = 0x82
LED_FRAME = 0x83
PING = 0x84

# SNAPSHOT formats
FORMAT_BITS = 0
FORMAT_READINGS = 1

# SNAPSHOT_REQUEST flags
RESEND_CHANGES = 0x01

# sensing / sensor kind codes used in HELLO
SENSINGS = ("", "matrix", "shift-register", "analog")
SENSOR_KINDS = ("", "reed", "digital-hall", "linear-hall")

# ERROR codes
ERR_BAD_CRC = 1
ERR_UNKNOWN_TYPE = 2
ERR_BAD_PAYLOAD = 3
ERR_OVERFLOW = 4
ERR_HISTORY_LOST = 5
ERR_LED_RANGE = 6
ERR_CRASH = 7  # the main loop raised: the message names the exception; a restart follows

SEQ_MASK = 0xFFFF
TICKS_PERIOD = 1 << 29  # supervisor.ticks_ms() wraps here


def _crc_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor)."""
    table = _CRC_TABLE
    for b in data:  # crc stays within 16 bits: (crc >> 8) ^ b is a byte
        crc = ((crc & 0xFF) << 8) ^ table[(crc >> 8) ^ b]
    return crc


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the result holds no 0x00 byte."""
    out = bytearray()
    code_at = 0
    out.append(0)
    code = 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    """Inverse of :func:`cobs_encode`; ``ValueError`` on a malformed block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise ValueError("COBS block runs past the frame")
        out.extend(data[i + 1:end])
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode_packet(kind, seq, payload=b"", session=0):
    """One frame on the wire: COBS(type, session, seq, payload, crc) + 0x00.  ``session``
    is the firmware's boot session in every frame it sends, so the host never applies a
    frame from before a restart."""
    body = bytearray(struct.pack("<BHH", kind, session & 0xFFFF, seq & SEQ_MASK))
    body.extend(payload)
    body.extend(struct.pack("<H", crc16(body)))
    return cobs_encode(body) + b"\x00"


class Decoder:
    """Splits a byte stream at 0x00, undoes COBS, checks the CRC.

    ``feed`` returns ``(type, seq, payload)`` tuples of the good packets; bad ones only
    bump ``crc_errors`` / ``framing_errors`` (the protocol recovers by sequence numbers
    and snapshots, never by guessing)."""

    def __init__(self, max_packet=MAX_PACKET):
        self.buf = bytearray()
        self.max_encoded = max_packet + max_packet // 254 + 2
        self.overlong = False
        self.crc_errors = 0
        self.framing_errors = 0
        self.packets = 0

    def feed(self, data):
        """Good packets in ``data`` (bytes), completing a frame begun by an earlier call.

        Frames are cut at each 0x00 with ``find`` and slices: no Python work per byte
        besides the CRC, so an LED frame never holds the loop up for long."""
        out = []
        data = bytes(data)
        start = 0
        n = len(data)
        while start < n:
            end = data.find(b"\x00", start)
            if end < 0:
                self._keep(data[start:])
                break
            self._keep(data[start:end])
            start = end + 1
            packet = self._frame_end()
            if packet is not None:
                out.append(packet)
        return out

    def _keep(self, chunk):
        room = self.max_encoded - len(self.buf)
        if len(chunk) > room:
            chunk = chunk[:max(room, 0)]
            self.overlong = True
        self.buf.extend(chunk)

    def _frame_end(self):
        frame = self.buf
        self.buf = bytearray()
        if self.overlong:
            self.overlong = False
            self.framing_errors += 1
            return None
        if not frame:
            return None  # a bare delimiter: used to flush the line
        try:
            body = cobs_decode(frame)
        except ValueError:
            self.framing_errors += 1
            return None
        if len(body) < 7:
            self.framing_errors += 1
            return None
        if crc16(body[:-2]) != struct.unpack("<H", body[-2:])[0]:
            self.crc_errors += 1
            return None
        kind, _session, seq = struct.unpack("<BHH", body[:5])
        self.packets += 1
        return (kind, seq, body[5:-2])


# --- payloads (little-endian) ----------------------------------------------------


def pack_text(text):
    raw = text.encode("utf-8")[:255]
    return bytes((len(raw),)) + raw


def unpack_text(payload, offset):
    n = payload[offset]
    end = offset + 1 + n
    if end > len(payload):
        raise ValueError("text runs past the payload")
    return bytes(payload[offset + 1:end]).decode("utf-8"), end


def pack_hello(session, sensing, sensor_kind, key_count, rows, columns, led_count,
               ticks, firmware_version, layout):
    return (struct.pack("<BHBBHBBHI", PROTOCOL_VERSION, session, SENSINGS.index(sensing),
                        SENSOR_KINDS.index(sensor_kind), key_count, rows, columns,
                        led_count, ticks)
            + pack_text(firmware_version) + pack_text(layout))


def pack_bits_snapshot(ticks, states):
    n = len(states)
    bits = bytearray((n + 7) // 8)
    for k in range(n):
        if states[k]:
            bits[k >> 3] |= 1 << (k & 7)
    return struct.pack("<IBH", ticks, FORMAT_BITS, n) + bytes(bits)


def pack_readings_snapshot(ticks, readings):
    n = len(readings)
    return struct.pack("<IBH", ticks, FORMAT_READINGS, n) + struct.pack(f"<{n}H", *readings)


def pack_change(ticks, entries):
    """``entries``: (key, pressed) pairs that changed in one scan."""
    out = bytearray(struct.pack("<IB", ticks, len(entries)))
    for key, pressed in entries:
        out.extend(struct.pack("<HB", key, 1 if pressed else 0))
    return bytes(out)


def pack_pong(token, ticks):
    return struct.pack("<HI", token, ticks)


def pack_error(code, message):
    return bytes((code,)) + pack_text(message)


def unpack_snapshot_request(payload):
    if len(payload) != 3:
        raise ValueError("SNAPSHOT_REQUEST needs 3 bytes")
    return struct.unpack("<BH", payload)


def unpack_led_frame(payload):
    """(first, brightness, colours) where colours is a list of 3- or 4-byte tuples."""
    first, brightness, count, bpp = unpack_led_header(payload)
    colours = []
    for i in range(count):
        j = 5 + bpp * i
        colours.append(tuple(payload[j:j + bpp]))
    return first, brightness, colours


def unpack_led_header(payload):
    """(first, brightness, count, bytes per LED) of an LED_FRAME whose length matches its
    count: 3 bytes per LED, or 4 for RGBW chips.  The bytes at ``payload[5:]`` are already
    in the order the chips take them (the host orders them): the pixels get them as they
    are."""
    if len(payload) < 5:
        raise ValueError("LED_FRAME header needs 5 bytes")
    first, brightness, count = struct.unpack("<HBH", payload[:5])
    bpp = (len(payload) - 5) // count if count else 3
    if bpp not in (3, 4) or len(payload) != 5 + bpp * count:
        raise ValueError("LED_FRAME length does not match its count")
    return first, brightness, count, bpp


def unpack_hello_request(payload):
    """The host's nonce for the handshake (the frames' session from now on), or None
    from a host that sends none."""
    if not payload:
        return None
    if len(payload) != 2:
        raise ValueError("HELLO_REQUEST has 0 or 2 bytes")
    return struct.unpack("<H", payload)[0]


def unpack_ping(payload):
    if len(payload) != 2:
        raise ValueError("PING needs 2 bytes")
    return struct.unpack("<H", payload)[0]


def ticks_diff(a, b):
    """``a - b`` in supervisor ticks, correct across the 2**29 wrap."""
    return ((a - b + (TICKS_PERIOD >> 1)) % TICKS_PERIOD) - (TICKS_PERIOD >> 1)
