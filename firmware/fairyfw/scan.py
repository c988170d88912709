"""Sensor scanning on the microcontroller.

* :class:`KeypadScanner` wraps a CircuitPython ``keypad`` scanner (``KeyMatrix`` or
  ``ShiftRegisterKeys``), which scans and debounces in the background, and turns its
  events into per-address states and one change list per scan.
* :class:`AnalogMuxScanner` reads linear hall sensors through CD74HC4067 multiplexers
  on ``analogio`` inputs.

Sensor *addresses* are what the host's layout uses: ``row * columns + column`` for a
matrix, the chain bit for a shift-register chain, the channel for analog.
"""


class KeypadScanner:
    """Debounced digital sensors through a ``keypad`` scanner.

    ``address_of_key`` maps a keypad key number to a sensor address (the matrix may be
    wired transposed when the diode anodes sit on the layout's rows)."""

    def __init__(self, keys, event, address_of_key, address_count, ticks_ms, ticks_diff,
                 resync_ms):
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


class AnalogMuxScanner:
    """Linear halls behind CD74HC4067 multiplexers sharing four select lines.

    ``signals[m]`` is the ``AnalogIn`` of multiplexer ``m``; channel ``m * 16 + i`` is
    input ``i`` of multiplexer ``m``.  ``enables`` (active low, optional) let several
    multiplexers share one ADC input."""

    def __init__(self, selects, signals, channel_count, settle_s, sleep, enables=None):
        self.selects = selects
        self.signals = signals
        self.enables = enables or []
        self.channel_count = channel_count
        self.settle_s = settle_s
        self.sleep = sleep
        self.readings = [0] * channel_count

    def scan(self):
        readings = self.readings
        n = self.channel_count
        shared = bool(self.enables)
        for i in range(16):
            for b in range(4):
                self.selects[b].value = bool(i >> b & 1)
            if not shared and self.settle_s:
                self.sleep(self.settle_s)
            for m in range(len(self.signals) if not shared else len(self.enables)):
                ch = m * 16 + i
                if ch >= n:
                    continue
                if shared:
                    for k in range(len(self.enables)):
                        self.enables[k].value = k != m
                    if self.settle_s:
                        self.sleep(self.settle_s)
                    readings[ch] = self.signals[0].value
                else:
                    readings[ch] = self.signals[m].value
        return readings
