"""Sensor scanning on the microcontroller: two scanners behind one interface.

* :class:`KeypadScanner` wraps a CircuitPython ``keypad`` scanner (``KeyMatrix`` or
  ``ShiftRegisterKeys``), which scans and debounces in the background, and turns its
  events into per-address states and one change list per scan.
* :class:`AnalogMuxScanner` reads linear hall sensors through CD74HC4067 multiplexers
  on ``analogio`` inputs; it has no changes, it streams its readings.

What the main loop (``app.py``) uses of either: ``key_count``, ``rows``/``columns`` (for
HELLO), ``warmup_ms``, ``snapshot_interval_ms`` (the periodic snapshot: a safety net for
switches, the stream itself for readings), ``overflows``, ``poll()`` (changes since the
last call), ``warm()`` (before the first report) and ``snapshot(ticks_ms)`` (a SNAPSHOT
payload stamped with ``ticks_ms()`` when its content was read).  :data:`SCANNERS`
builds one per ``config.SENSING``.

Sensor *addresses* are what the host's layout uses: ``row * columns + column`` for a
matrix, the chain bit for a shift-register chain, the channel for analog.
"""

from fairyfw import proto


class KeypadScanner:
    """Debounced digital sensors through a ``keypad`` scanner.

    ``address_of_key`` maps a keypad key number to a sensor address (the matrix may be
    wired transposed when the diode anodes sit on the layout's rows)."""

    def __init__(self, keys, event, address_of_key, address_count, ticks_ms, ticks_diff,
                 resync_ms, snapshot_interval_ms=1000, rows=0, columns=0):
        self.key_count = address_count
        self.rows = rows
        self.columns = columns
        # the first debounced scans must pass before the state means anything
        self.warmup_ms = resync_ms
        self.snapshot_interval_ms = snapshot_interval_ms
        self.keys = keys
        self.event = event  # a keypad.Event reused by get_into (no allocation per event)
        self.address_of_key = address_of_key
        self.state = [False] * address_count
        self.ticks_ms = ticks_ms
        self.ticks_diff = ticks_diff
        self.resync_ms = resync_ms
        self.resync_until = None
        self.shadow = None
        self.overflows = 0

    def poll(self):
        """New changes as ``[(ticks, [(address, pressed), ...]), ...]``, one entry per scan.

        When the event queue overflowed, events are gone: the scanner is reset (every
        pressed key reports again) and after ``resync_ms`` the rebuilt state is compared
        with the last reported one, so the host still gets one exact change list."""
        events = self.keys.events
        out = []
        if events.overflowed:
            self.overflows += 1
            events.clear()  # also clears ``overflowed``
            self.keys.reset()
            self.shadow = [False] * len(self.state)
            self.resync_until = self.ticks_ms() + self.resync_ms
        target = self.shadow if self.shadow is not None else self.state
        ev = self.event
        while events.get_into(ev):
            addr = self.address_of_key[ev.key_number]
            if addr < 0:
                continue
            pressed = ev.pressed
            if target[addr] == pressed:
                continue
            target[addr] = pressed
            if self.shadow is None:
                if out and out[-1][0] == ev.timestamp:
                    out[-1][1].append((addr, pressed))
                else:
                    out.append((ev.timestamp, [(addr, pressed)]))
        if self.shadow is not None and self.ticks_diff(self.ticks_ms(), self.resync_until) >= 0:
            now = self.ticks_ms()
            diff = [(a, self.shadow[a]) for a in range(len(self.state))
                    if self.shadow[a] != self.state[a]]
            self.state = self.shadow
            self.shadow = None
            if diff:
                out.append((now, diff))
        return out

    def states(self):
        return self.state

    def warm(self):
        """Before the first report: take in the initial state (the first snapshot's)."""
        self.poll()

    def snapshot(self, ticks_ms):
        return proto.pack_bits_snapshot(ticks_ms(), self.state)


class AnalogMuxScanner:
    """Linear halls behind CD74HC4067 multiplexers sharing four select lines.

    ``signals[m]`` is the ``AnalogIn`` of multiplexer ``m``; channel ``m * 16 + i`` is
    input ``i`` of multiplexer ``m``.  ``enables`` (active low, optional) let several
    multiplexers share one ADC input."""

    rows = columns = 0
    warmup_ms = 0
    overflows = 0  # no event queue

    def __init__(self, selects, signals, channel_count, settle_us, delay_us, enables=None,
                 stream_interval_ms=10, smps_mode=None):
        self.key_count = channel_count
        self.snapshot_interval_ms = stream_interval_ms
        self.selects = selects
        self.signals = signals
        self.enables = enables or []
        self.channel_count = channel_count
        # a busy wait of exactly this many microseconds after each switch of the
        # multiplexers (time.sleep counts whole 1/1024 s ticks: 0.1 ms would be nothing)
        self.settle_us = settle_us
        self.delay_us = delay_us
        self.smps_mode = smps_mode  # held high: the Pico's regulator in PWM mode, less ripple
        self.readings = [0] * channel_count

    def scan(self):
        readings = self.readings
        n = self.channel_count
        shared = bool(self.enables)
        settle = self.settle_us
        for i in range(16):
            for b in range(4):
                self.selects[b].value = bool(i >> b & 1)
            if not shared and settle:
                self.delay_us(settle)
            for m in range(len(self.signals) if not shared else len(self.enables)):
                ch = m * 16 + i
                if ch >= n:
                    continue
                if shared:
                    for k in range(len(self.enables)):
                        self.enables[k].value = k != m
                    if settle:
                        self.delay_us(settle)
                    readings[ch] = self.signals[0].value
                else:
                    readings[ch] = self.signals[m].value
        return readings

    def poll(self):
        """Readings have no changes: they are streamed as snapshots."""
        return []

    def warm(self):
        pass

    def snapshot(self, ticks_ms):
        """The readings, scanned now: never the zeros before the first scan; stamped
        when the scan ends (the settle waits make it last), so no reading postdates
        its stamp."""
        readings = self.scan()
        return proto.pack_readings_snapshot(ticks_ms(), readings)


def _start_released(keys):
    """Take every key as released, so keys already pressed report a press after the
    debounce.  keypad starts its integrating debounce counters at zero, from where a
    key held at power-up never reports a press (only its release later); ``reset()``
    sets them to "released" (CircuitPython 9.2.1 and later)."""
    keys.reset()


def _pins(hw, names):
    return [getattr(hw.board, n) for n in names]


def _cfg(config, name, default):
    return getattr(config, name, default)


def _keypad_options(config):
    interval = _cfg(config, "SCAN_INTERVAL_S", 0.005)
    debounce = _cfg(config, "DEBOUNCE_SCANS", 3)
    extra = {"debounce_threshold": debounce} if debounce > 1 else {}
    resync_ms = int(interval * 1000 * (debounce + 2)) + 1
    return interval, extra, resync_ms


def build_matrix(config, hw, ticks_ms):
    """Switches at matrix crossings through ``keypad.KeyMatrix``."""
    kp = hw.keypad
    interval, extra, resync_ms = _keypad_options(config)
    rows = _pins(hw, config.MATRIX_ROWS)
    cols = _pins(hw, config.MATRIX_COLUMNS)
    nr, nc = len(rows), len(cols)
    # room for every key to report twice: after a reset (overflow recovery) all
    # pressed keys report at once, and that burst must never overflow again
    max_events = max(_cfg(config, "MAX_EVENTS", 0), 2 * nr * nc)
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
    _start_released(keys)
    return KeypadScanner(keys, kp.Event(), amap, nr * nc, ticks_ms, proto.ticks_diff,
                         resync_ms, _cfg(config, "SNAPSHOT_INTERVAL_MS", 1000), nr, nc)


def build_shift_register(config, hw, ticks_ms):
    """Switches on a 74HC165 chain through ``keypad.ShiftRegisterKeys``."""
    kp = hw.keypad
    interval, extra, resync_ms = _keypad_options(config)
    n = config.CHAIN_LENGTH
    max_events = max(_cfg(config, "MAX_EVENTS", 0), 2 * n)
    keys = kp.ShiftRegisterKeys(
        clock=getattr(hw.board, config.SHIFT_CLOCK),
        data=getattr(hw.board, config.SHIFT_DATA),
        latch=getattr(hw.board, config.SHIFT_LATCH), value_to_latch=True,
        key_count=n, value_when_pressed=_cfg(config, "VALUE_WHEN_PRESSED", False),
        interval=interval, max_events=max_events, **extra)
    _start_released(keys)
    return KeypadScanner(keys, kp.Event(), list(range(n)), n, ticks_ms, proto.ticks_diff,
                         resync_ms, _cfg(config, "SNAPSHOT_INTERVAL_MS", 1000))


def build_analog(config, hw, ticks_ms):
    """Linear halls on multiplexers in front of ``analogio`` inputs."""
    dio = hw.digitalio
    selects = []
    for pin in _pins(hw, config.MUX_SELECT):
        io = dio.DigitalInOut(pin)
        io.switch_to_output(value=False)
        selects.append(io)
    enables = []
    for pin in _pins(hw, _cfg(config, "MUX_ENABLE", ())):
        io = dio.DigitalInOut(pin)
        io.switch_to_output(value=True)
        enables.append(io)
    signals = [hw.analogio.AnalogIn(p) for p in _pins(hw, config.MUX_SIGNALS)]
    # the Pico's SMPS_MODE (GPIO23) high: the 3.3 V regulator leaves power-save mode,
    # its ripple no longer reaches the ADC; boards without the pin skip it
    smps = None
    smps_name = _cfg(config, "SMPS_MODE_PIN", "SMPS_MODE")
    if smps_name and hasattr(hw.board, smps_name):
        smps = dio.DigitalInOut(getattr(hw.board, smps_name))
        smps.switch_to_output(value=True)
    settle_us = int(_cfg(config, "ANALOG_SETTLE_S", 0.0001) * 1000000 + 0.5)
    return AnalogMuxScanner(selects, signals, config.CHANNELS, settle_us,
                            hw.microcontroller.delay_us, enables,
                            _cfg(config, "STREAM_INTERVAL_MS", 10), smps)


#: a scanner builder per ``config.SENSING`` (the host's sensing kinds)
SCANNERS = {"matrix": build_matrix, "shift-register": build_shift_register,
            "analog": build_analog}
