"""The firmware's main loop: scan, report, obey the host, drive the LEDs.

``Firmware(config, hw)`` takes a config module (upper-case names, see ``config.py``) and a
:class:`Hardware` holding the CircuitPython modules. ``main(config, hw)`` is what
``code.py`` runs: :meth:`Firmware.start` (production: autoreload off, watchdog on), then
:meth:`Firmware.run` forever. ``step()`` is one pass; ``guarded_step()`` is one pass of the
production loop, which reports an exception over the link and restarts the firmware
(the host-side simulator calls it under a simulated clock).
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


#: seconds between watchdog feeds before the board resets (the RP2040 allows up to 8)
WATCHDOG_S = 4
#: pause before restarting after an exception: a fault that recurs at once does not
#: flood the console and the link
RESTART_PAUSE_S = 1.0


def main(config, hw):
    """``code.py``'s whole job: set up, then loop until power-off (or a restart)."""
    firmware = Firmware(config, hw)
    firmware.start()
    firmware.run()


class Firmware:
    def __init__(self, config, hw):
        self.hw = hw
        self.layout = _cfg(config, "LAYOUT", "")
        self.sensing = _cfg(config, "SENSING", "matrix")
        self.sensor_kind = _cfg(config, "SENSOR_KIND", "reed")
        if self.sensing not in SCANNERS:
            raise ValueError("config.SENSING must be matrix, shift-register or analog")
        # DEVELOP = True in config.py: autoreload on, no watchdog, exceptions end the
        # program with their traceback on the console (firmware/README.md, Development)
        self.develop = bool(_cfg(config, "DEVELOP", False))
        self.watchdog_s = _cfg(config, "WATCHDOG_S", WATCHDOG_S)
        self.watchdog = None
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
        self.led_pin = getattr(hw.board, _cfg(config, "NEOPIXEL_PIN", "NEOPIXEL")) \
            if led_count else None
        self.led_count = led_count
        self.pixels = None
        self.bpp = 0
        if led_count:
            self._open_pixels(3)
        # the boot session (in HELLO) and the session on the wire: the host's nonce from
        # its latest HELLO_REQUEST, so frames of an older handshake can never be replayed
        # into a newer one; until the host chose one, the boot session
        self.session = int.from_bytes(hw.os.urandom(2), "little")
        self.wire_session = self.session
        self.seq = 0
        self.history = []
        self.decoder = proto.Decoder()
        self.connected = False
        now = self.ticks_ms()
        self.last_snapshot = now
        self.last_show = now
        self.leds_dirty = False
        self.sent_packets = 0
        self.cut_short = False  # the last frame was written in part
        # the scanner needs a few debounced scans before its state means anything:
        # until then no snapshot (it would show an empty board) and no changes
        self.ready = False
        self.ready_at = (now + self.scanner.warmup_ms) % proto.TICKS_PERIOD
        self.snapshot_wanted = False

    def _open_pixels(self, bpp):
        """The chain with ``bpp`` bytes per LED, dark.  The host sends each LED's bytes in
        the order its chips take them (``[leds] pixel_order``), so the buffer's order is
        the identity: RGB (or RGBW) passes the bytes through as they come."""
        if self.pixels is not None:
            self.pixels.deinit()
        self.pixels = self.hw.neopixel.NeoPixel(
            self.led_pin, self.led_count, bpp=bpp, brightness=1.0, auto_write=False,
            pixel_order="RGB" if bpp == 3 else "RGBW")
        self.bpp = bpp
        self.pixels.fill((0, 0, 0) if bpp == 3 else (0, 0, 0, 0))
        self.pixels.show()

    # --- production loop -----------------------------------------------------------
    def start(self):
        """Production: CIRCUITPY writes no longer restart the firmware mid-game, and a
        loop that stops feeding the watchdog for ``WATCHDOG_S`` resets the board."""
        self.hw.supervisor.runtime.autoreload = self.develop
        if self.develop:
            return
        watchdog = self.hw.microcontroller.watchdog
        watchdog.timeout = self.watchdog_s
        watchdog.mode = self.hw.watchdog.WatchDogMode.RESET
        self.watchdog = watchdog

    def run(self):
        while True:
            self.guarded_step()

    def guarded_step(self):
        """One pass; an exception is reported on the console and over the link, then the
        firmware restarts from ``code.py`` (a fresh session the host resynchronises to).
        With ``DEVELOP`` it propagates instead, traceback and all."""
        try:
            self.step()
        except Exception as exc:  # noqa: BLE001 - any fault: restart rather than die
            if self.develop:
                raise
            self.report_crash(exc)
            self.hw.time.sleep(RESTART_PAUSE_S)
            # a pending ReloadException (a BaseException) ends the program at the next
            # bytecode check; code.py runs again with the watchdog stopped until start()
            self.hw.supervisor.reload()

    def report_crash(self, exc):
        line = "restarting after " + type(exc).__name__ + ": " + str(exc)
        print("fairyfw:", line)
        try:  # noqa: SIM105 - CircuitPython has no contextlib
            self.send_error(proto.ERR_CRASH, line[:200])
        except Exception:  # noqa: BLE001 - the link may be what failed
            pass

    # --- output --------------------------------------------------------------------
    def _send(self, kind, payload, seq=None):
        if not self.connected:
            return
        frame = proto.encode_packet(kind, self.seq if seq is None else seq, payload,
                                    self.wire_session)
        if self.cut_short:
            # the last frame went out in part (a write timed out while the host was not
            # reading): a delimiter first, so its tail does not spoil this frame too
            frame = b"\x00" + frame
        written = self.serial.write(frame)
        self.cut_short = written is not None and written < len(frame)
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
        self.last_snapshot = self.ticks_ms()
        self._send(proto.SNAPSHOT, self.scanner.snapshot(self.ticks_ms))

    def send_error(self, code, message):
        self._send(proto.ERROR, proto.pack_error(code, message))

    # --- input ---------------------------------------------------------------------
    def _handle(self, kind, payload):
        try:
            if kind == proto.HELLO_REQUEST:
                nonce = proto.unpack_hello_request(payload)
                if nonce is not None:  # the host's nonce: the frames' session from now on
                    self.wire_session = nonce
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
                first, brightness, count, bpp = proto.unpack_led_header(payload)
                self._leds(first, brightness, count, bpp, payload[5:])
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

    def _leds(self, first, brightness, count, bpp, rgb):
        """``rgb``: ``bpp`` bytes per LED in the chips' order, sliced straight into the
        pixel buffer (the C code of ``neopixel`` takes a flat sequence); only a brightness
        below 255 costs a pass per byte here.  The first RGBW frame reopens the chain with
        4 bytes per LED."""
        if self.pixels is None or first + count > self.led_count:
            last = first + count - 1
            self.send_error(proto.ERR_LED_RANGE, f"LEDs {first}..{last} beyond {self.led_count}")
            return
        if bpp != self.bpp:
            self._open_pixels(bpp)
        scale = min(brightness, self.max_brightness)
        if scale < 255:
            rgb = bytes([v * scale // 255 for v in rgb])
        self.pixels[first:first + count] = rgb
        self.leds_dirty = True

    # --- loop ----------------------------------------------------------------------
    def step(self):
        """One pass: sensor changes go out before the host's requests and LED frames
        are handled, so an LED frame arriving never holds a change report back."""
        serial = self.serial
        connected = serial.connected  # the host holds the port open (DTR)
        if connected and not self.connected:
            self.connected = True
            self.decoder = proto.Decoder()
            self.send_hello()
            self.send_snapshot()
        self.connected = connected
        self._report()
        waiting = serial.in_waiting
        if waiting:
            data = serial.read(waiting)
            bad = self.decoder.crc_errors + self.decoder.framing_errors
            for kind, _seq, payload in self.decoder.feed(data):
                self._handle(kind, payload)
            if self.decoder.crc_errors + self.decoder.framing_errors > bad:
                self.send_error(proto.ERR_BAD_CRC, "corrupt frame from host")
        if self.leds_dirty and proto.ticks_diff(self.ticks_ms(), self.last_show) >= \
                self.led_min_interval:
            self.pixels.show()
            self.last_show = self.ticks_ms()
            self.leds_dirty = False
        if self.watchdog is not None:
            self.watchdog.feed()

    def _report(self):
        """Changes since the last pass, and the snapshot when one is due."""
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
