"""The firmware's main loop: scan, report, obey the host, drive the LEDs.

``Firmware(config, hw)`` takes a config module (upper-case names, see ``config.py``) and a
:class:`Hardware` holding the CircuitPython modules; ``run()`` loops forever, ``step()``
is one pass (the host-side simulator calls it under a simulated clock).
"""

from fairyfw import VERSION, proto


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
        if self.sensing not in proto.SENSINGS[1:]:
            raise ValueError("config.SENSING must be matrix, shift-register or analog")
        self.snapshot_interval = _cfg(config, "SNAPSHOT_INTERVAL_MS", 1000)
        self.stream_interval = _cfg(config, "STREAM_INTERVAL_MS", 10)
        self.led_min_interval = _cfg(config, "LED_MIN_INTERVAL_MS", 20)
        self.max_brightness = _cfg(config, "MAX_BRIGHTNESS", 255)
        self.history_size = _cfg(config, "HISTORY", 64)
        self.serial = hw.usb_cdc.data
        if self.serial is None:
            raise RuntimeError("usb_cdc data channel is off: copy boot.py to CIRCUITPY "
                               "and reset the board")
        self.ticks_ms = hw.supervisor.ticks_ms
        self.rows = self.columns = 0
        self._build_scanner(config)
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
        self.last_stream = now
        self.last_show = now
        self.leds_dirty = False
        self.sent_packets = 0
        # the scanner needs a few debounced scans before its state means anything:
        # until then no snapshot (it would show an empty board) and no changes
        self.ready = False
        self.ready_at = (now + self.warmup_ms) % proto.TICKS_PERIOD
        self.snapshot_wanted = False

    # --- set-up ------------------------------------------------------------------
    def _pins(self, names):
        return [getattr(self.hw.board, n) for n in names]

    def _build_scanner(self, config):
        hw = self.hw
        interval = _cfg(config, "SCAN_INTERVAL_S", 0.005)
        debounce = _cfg(config, "DEBOUNCE_SCANS", 3)
        # room for every key to report twice: after a reset (overflow recovery) all
        # pressed keys report at once, and that burst must never overflow again
        max_events = _cfg(config, "MAX_EVENTS", 0)
        extra = {"debounce_threshold": debounce} if debounce > 1 else {}
        if self.sensing == "analog":
            self.warmup_ms = 0
            dio = hw.digitalio
            selects = []
            for pin in self._pins(config.MUX_SELECT):
                io = dio.DigitalInOut(pin)
                io.switch_to_output(value=False)
                selects.append(io)
            enables = []
            for pin in self._pins(_cfg(config, "MUX_ENABLE", ())):
                io = dio.DigitalInOut(pin)
                io.switch_to_output(value=True)
                enables.append(io)
            signals = [hw.analogio.AnalogIn(p) for p in self._pins(config.MUX_SIGNALS)]
            from fairyfw.scan import AnalogMuxScanner
            self.key_count = config.CHANNELS
            self.scanner = AnalogMuxScanner(selects, signals, config.CHANNELS,
                                            _cfg(config, "ANALOG_SETTLE_S", 0.0005),
                                            hw.time.sleep, enables)
            return
        from fairyfw.scan import KeypadScanner
        kp = hw.keypad
        if self.sensing == "matrix":
            rows = self._pins(config.MATRIX_ROWS)
            cols = self._pins(config.MATRIX_COLUMNS)
            nr, nc = len(rows), len(cols)
            self.rows, self.columns = nr, nc
            self.key_count = nr * nc
            max_events = max(max_events, 2 * self.key_count)
            if _cfg(config, "DIODE_ANODES", "columns") == "rows":
                # keypad strobes its rows low and reads its columns pulled up, so the
                # anode side must be keypad's columns: hand it the matrix transposed
                keys = kp.KeyMatrix(row_pins=cols, column_pins=rows, columns_to_anodes=True,
                                    interval=interval, max_events=max_events, **extra)
                amap = [(k % nr) * nc + (k // nr) for k in range(nr * nc)]
            else:
                keys = kp.KeyMatrix(row_pins=rows, column_pins=cols, columns_to_anodes=True,
                                    interval=interval, max_events=max_events, **extra)
                amap = list(range(nr * nc))
        else:
            n = config.CHAIN_LENGTH
            self.key_count = n
            max_events = max(max_events, 2 * n)
            keys = kp.ShiftRegisterKeys(
                clock=getattr(hw.board, config.SHIFT_CLOCK),
                data=getattr(hw.board, config.SHIFT_DATA),
                latch=getattr(hw.board, config.SHIFT_LATCH), value_to_latch=True,
                key_count=n, value_when_pressed=_cfg(config, "VALUE_WHEN_PRESSED", False),
                interval=interval, max_events=max_events, **extra)
            amap = list(range(n))
        resync_ms = int(interval * 1000 * (debounce + 2)) + 1
        self.warmup_ms = resync_ms
        self.scanner = KeypadScanner(keys, kp.Event(), amap, self.key_count, self.ticks_ms,
                                     proto.ticks_diff, resync_ms)

    # --- output --------------------------------------------------------------------
    def _send(self, kind, payload, seq=None):
        if not self.connected:
            return
        self.serial.write(proto.encode_packet(kind, self.seq if seq is None else seq, payload,
                                              self.session))
        self.sent_packets += 1

    def send_hello(self):
        self._send(proto.HELLO, proto.pack_hello(
            self.session, self.sensing, self.sensor_kind, self.key_count, self.rows,
            self.columns, self.led_count, self.ticks_ms(), VERSION, self.layout))

    def send_snapshot(self, readings=None):
        if not self.ready:
            self.snapshot_wanted = True
            return
        now = self.ticks_ms()
        self.last_snapshot = now
        if self.sensing == "analog":
            self._send(proto.SNAPSHOT, proto.pack_readings_snapshot(
                now, readings if readings is not None else self.scanner.readings))
        else:
            self._send(proto.SNAPSHOT, proto.pack_bits_snapshot(now, self.scanner.state))

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
                if flags & proto.RESEND_CHANGES and self.sensing != "analog":
                    self._resend(first)
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
            if self.sensing != "analog":
                self.scanner.poll()  # the initial state, reported by the first snapshot
            if diff(now, self.ready_at) < 0:
                return
            self.ready = True
            if self.snapshot_wanted:
                self.send_snapshot()
            return
        if self.sensing == "analog":
            if diff(now, self.last_stream) >= self.stream_interval:
                self.last_stream = now
                self.send_snapshot(self.scanner.scan())
        else:
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
            if changes or diff(now, self.last_snapshot) >= self.snapshot_interval:
                self.send_snapshot()
        if self.leds_dirty and diff(now, self.last_show) >= self.led_min_interval:
            self.pixels.show()
            self.last_show = now
            self.leds_dirty = False

    def run(self):
        while True:
            self.step()
