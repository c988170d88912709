"""The firmware's main loop: scan, report, obey the host, drive the LEDs.

``Firmware(config, hw)`` takes a config module (upper-case names, see ``config.py``) and a
:class:`Hardware` holding the CircuitPython modules; ``run()`` loops forever, ``step()``
is one pass (the host-side simulator calls it under a simulated clock).
"""

from fairyfw import VERSION, proto
from fairyfw.scan import SCANNERS


class Hardware:
    """The CircuitPython modules the firmware uses, passed in by ``code.py``."""

    def __init__(self, **modules):
        for name in modules:
            setattr(self, name, modules[name])


def _cfg(config, name, default):
    return getattr(config, name, default)


class Firmware:
    def __init__(self, config, hw):
        self.hw = hw
        self.layout = _cfg(config, "LAYOUT", "")
        self.sensing = _cfg(config, "SENSING", "matrix")
        self.sensor_kind = _cfg(config, "SENSOR_KIND", "reed")
        if self.sensing not in SCANNERS:
            raise ValueError("config.SENSING must be matrix, shift-register or analog")
        self.led_min_interval = _cfg(config, "LED_MIN_INTERVAL_MS", 20)
        self.max_brightness = _cfg(config, "MAX_BRIGHTNESS", 255)
        self.history_size = _cfg(config, "HISTORY", 64)
        self.serial = hw.usb_cdc.data
        if self.serial is None:
            raise RuntimeError("usb_cdc data channel is off: copy boot.py to CIRCUITPY "
                               "and reset the board")
        self.ticks_ms = hw.supervisor.ticks_ms
        self.scanner = SCANNERS[self.sensing](config, hw, self.ticks_ms)
        self.key_count = self.scanner.key_count
        led_count = _cfg(config, "LED_COUNT", 0)
        self.pixels = None
        if led_count:
            pin = getattr(hw.board, _cfg(config, "NEOPIXEL_PIN", "NEOPIXEL"))
            self.pixels = hw.neopixel.NeoPixel(pin, led_count, brightness=1.0,
                                               auto_write=False)
            self.pixels.fill((0, 0, 0))
            self.pixels.show()
        self.led_count = led_count
        self.session = int.from_bytes(hw.os.urandom(2), "little")
        self.seq = 0
        self.history = []
        self.decoder = proto.Decoder()
        self.connected = False
        now = self.ticks_ms()
        self.last_snapshot = now
        self.last_show = now
        self.leds_dirty = False
        self.sent_packets = 0
        # the scanner needs a few debounced scans before its state means anything:
        # until then no snapshot (it would show an empty board) and no changes
        self.ready = False
        self.ready_at = (now + self.scanner.warmup_ms) % proto.TICKS_PERIOD
        self.snapshot_wanted = False

    # --- output --------------------------------------------------------------------
    def _send(self, kind, payload, seq=None):
        if not self.connected:
            return
        self.serial.write(proto.encode_packet(kind, self.seq if seq is None else seq, payload,
                                              self.session))
        self.sent_packets += 1

    def send_hello(self):
        self._send(proto.HELLO, proto.pack_hello(
            self.session, self.sensing, self.sensor_kind, self.key_count, self.scanner.rows,
            self.scanner.columns, self.led_count, self.ticks_ms(), VERSION, self.layout))

    def send_snapshot(self):
        """The scanner's state (switches) or readings (scanned now)."""
        if not self.ready:
            self.snapshot_wanted = True
            return
        now = self.ticks_ms()
        self.last_snapshot = now
        self._send(proto.SNAPSHOT, self.scanner.snapshot(now))

    def send_error(self, code, message):
        self._send(proto.ERROR, proto.pack_error(code, message))

    # --- input ---------------------------------------------------------------------
    def _handle(self, kind, payload):
        try:
            if kind == proto.HELLO_REQUEST:
                self.send_hello()
                self.send_snapshot()
            elif kind == proto.PING:
                self._send(proto.PONG, proto.pack_pong(proto.unpack_ping(payload),
                                                       self.ticks_ms()))
            elif kind == proto.SNAPSHOT_REQUEST:
                flags, first = proto.unpack_snapshot_request(payload)
                if flags & proto.RESEND_CHANGES:
                    self._resend(first)  # none kept by a readings stream: nothing resent
                self.send_snapshot()
            elif kind == proto.LED_FRAME:
                self._leds(*proto.unpack_led_frame(payload))
            else:
                self.send_error(proto.ERR_UNKNOWN_TYPE, f"unknown message type {kind}")
        except ValueError as exc:
            self.send_error(proto.ERR_BAD_PAYLOAD, str(exc))

    def _resend(self, first):
        count = (self.seq - first + 1) & proto.SEQ_MASK
        if count == 0:
            return
        if count > len(self.history):
            self.send_error(proto.ERR_HISTORY_LOST, f"changes from {first} are gone")
            return
        for seq, payload in self.history[len(self.history) - count:]:
            self._send(proto.CHANGE, payload, seq)

    def _leds(self, first, brightness, colours):
        if self.pixels is None or first + len(colours) > self.led_count:
            last = first + len(colours) - 1
            self.send_error(proto.ERR_LED_RANGE, f"LEDs {first}..{last} beyond {self.led_count}")
            return
        scale = min(brightness, self.max_brightness)
        for i, (r, g, b) in enumerate(colours):
            self.pixels[first + i] = (r * scale // 255, g * scale // 255, b * scale // 255)
        self.leds_dirty = True

    # --- loop ----------------------------------------------------------------------
    def step(self):
        serial = self.serial
        connected = serial.connected
        if connected and not self.connected:
            self.connected = True
            self.decoder = proto.Decoder()
            self.send_hello()
            self.send_snapshot()
        self.connected = connected
        waiting = serial.in_waiting
        if waiting:
            data = serial.read(waiting)
            bad = self.decoder.crc_errors + self.decoder.framing_errors
            for kind, _seq, payload in self.decoder.feed(data):
                self._handle(kind, payload)
            if self.decoder.crc_errors + self.decoder.framing_errors > bad:
                self.send_error(proto.ERR_BAD_CRC, "corrupt frame from host")
        now = self.ticks_ms()
        diff = proto.ticks_diff
        if not self.ready:
            self.scanner.warm()
            if diff(now, self.ready_at) < 0:
                return
            self.ready = True
            if self.snapshot_wanted:
                self.send_snapshot()
            return
        overflows = self.scanner.overflows
        changes = self.scanner.poll()
        if self.scanner.overflows != overflows:
            self.send_error(proto.ERR_OVERFLOW, "event queue overflowed; resynchronised")
        for ticks, entries in changes:
            while entries:
                part, entries = entries[:40], entries[40:]
                self.seq = (self.seq + 1) & proto.SEQ_MASK
                payload = proto.pack_change(ticks, part)
                self.history.append((self.seq, payload))
                if len(self.history) > self.history_size:
                    self.history.pop(0)
                self._send(proto.CHANGE, payload)
        if changes or diff(now, self.last_snapshot) >= self.scanner.snapshot_interval_ms:
            self.send_snapshot()
        if self.leds_dirty and diff(now, self.last_show) >= self.led_min_interval:
            self.pixels.show()
            self.last_show = now
            self.leds_dirty = False

    def run(self):
        while True:
            self.step()
