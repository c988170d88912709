"""Small CircuitPython shims so the firmware in ``firmware/`` runs on the host.

:class:`CircuitPythonShims` gathers module-like objects — ``board``, ``digitalio``,
``analogio``, ``keypad``, ``neopixel``, ``usb_cdc``, ``supervisor``, ``time``, ``os``,
``microcontroller``, ``watchdog`` — bound to one simulated microcontroller: its pins are
a :class:`~controller.sensing.sim.electrical.PinBank` (so ``keypad`` scans the emulated
matrix or 74HC165 chain pin by pin, the way CircuitPython's C code does), its clock is
the simulated clock.  Only what the firmware uses is modelled, with CircuitPython 9.2's
names and semantics where they change behaviour: keypad's integrating debounce and its
1/1024 s ticks, ``time.sleep`` rounded to whole ticks, busy waits and blocking writes
that take emulated time (given ``advance_us``), the watchdog.  docs/sensing.md lists
what still differs.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from controller.sensing.sim.electrical import PinBank

TICKS_MASK = (1 << 29) - 1
#: CircuitPython's port ticks (``port_get_raw_ticks``): 1024 a second
RAW_TICKS_PER_S = 1024

#: board-module names that are another name of a GPIO on the Raspberry Pi Pico (and
#: Pico 2): ``board.SMPS_MODE`` is ``board.GP23``
PICO_PIN_ALIASES = {"SMPS_MODE": "GP23", "VBUS_SENSE": "GP24", "LED": "GP25",
                    "A0": "GP26", "A1": "GP27", "A2": "GP28", "A3": "GP29",
                    "VOLTAGE_MONITOR": "GP29"}


def raw_ticks(us: int) -> int:
    """CircuitPython's raw tick count at ``us`` microseconds."""
    return us * RAW_TICKS_PER_S // 1_000_000


def raw_tick_start_us(tick: int) -> int:
    """The first microsecond at which the raw tick count is ``tick``."""
    return -(-tick * 1_000_000 // RAW_TICKS_PER_S)


class ReloadException(BaseException):
    """``supervisor.reload()``: ends the program (``except Exception`` does not catch it);
    the simulated microcontroller runs the firmware again, USB stays connected.  Raised
    at the call; CircuitPython raises it at the next bytecode check, just after."""


class MicrocontrollerReset(BaseException):
    """``microcontroller.reset()`` or the watchdog: the chip resets, USB re-enumerates."""


class Pin:
    """A microcontroller pin (``board.GP0``); the bank knows it by name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"board.{self.name}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pin) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("pin", self.name))


class _Direction:
    INPUT = "input"
    OUTPUT = "output"


class _Pull:
    UP = "up"
    DOWN = "down"


class _DriveMode:
    PUSH_PULL = "push-pull"
    OPEN_DRAIN = "open-drain"


class _Claims:
    def __init__(self) -> None:
        self.used: set[str] = set()

    def claim(self, pin: Pin) -> None:
        if not isinstance(pin, Pin):
            raise TypeError(f"expected a board pin, got {pin!r}")
        if pin.name in self.used:
            raise ValueError(f"{pin.name} in use")
        self.used.add(pin.name)

    def release(self, pin: Pin) -> None:
        self.used.discard(pin.name)


class _Probe:
    """What a scope on the board would show: when an output last changed, and the
    shortest time between such a change and an ADC conversion (the settle time)."""

    def __init__(self, now_us: Callable[[], int]) -> None:
        self.now_us = now_us
        self.output_changed_us = 0
        self.adc_reads = 0
        self.adc_read_us = 0  # the latest conversion
        self.shortest_settle_us: int | None = None

    def output_changed(self) -> None:
        self.output_changed_us = self.now_us()

    def adc_read(self) -> None:
        self.adc_reads += 1
        self.adc_read_us = self.now_us()
        gap = self.adc_read_us - self.output_changed_us
        if self.shortest_settle_us is None or gap < self.shortest_settle_us:
            self.shortest_settle_us = gap


def _digitalio(bank: PinBank, claims: _Claims, probe: _Probe) -> SimpleNamespace:
    class DigitalInOut:
        def __init__(self, pin: Pin) -> None:
            claims.claim(pin)
            self._pin = pin
            self._direction = _Direction.INPUT
            self._pull: str | None = None
            bank.set_input(pin.name, None)

        def deinit(self) -> None:
            claims.release(self._pin)
            bank.set_input(self._pin.name, None)

        @property
        def direction(self) -> str:
            return self._direction

        @direction.setter
        def direction(self, value: str) -> None:
            if value == _Direction.OUTPUT:
                self.switch_to_output()
            else:
                self.switch_to_input()

        def switch_to_output(self, value: bool = False,
                             drive_mode: str = _DriveMode.PUSH_PULL) -> None:
            self._direction = _Direction.OUTPUT
            self._pull = None
            bank.set_output(self._pin.name, bool(value))
            probe.output_changed()

        def switch_to_input(self, pull: str | None = None) -> None:
            self._direction = _Direction.INPUT
            self._pull = pull
            bank.set_input(self._pin.name, pull)

        @property
        def value(self) -> bool:
            return bank.read(self._pin.name)

        @value.setter
        def value(self, v: bool) -> None:
            if self._direction != _Direction.OUTPUT:
                raise AttributeError("Cannot set value when direction is input.")
            bank.write(self._pin.name, bool(v))
            probe.output_changed()

        @property
        def pull(self) -> str | None:
            return self._pull

        @pull.setter
        def pull(self, p: str | None) -> None:
            if self._direction == _Direction.OUTPUT:
                raise AttributeError("Pull not used when direction is output.")
            self.switch_to_input(p)

    return SimpleNamespace(DigitalInOut=DigitalInOut, Direction=_Direction, Pull=_Pull,
                           DriveMode=_DriveMode)


def _analogio(bank: PinBank, claims: _Claims, probe: _Probe) -> SimpleNamespace:
    class AnalogIn:
        """RP2040/RP2350 ADC: 12 bits scaled to 0..65535 like CircuitPython."""

        reference_voltage = 3.3

        def __init__(self, pin: Pin) -> None:
            claims.claim(pin)
            self._pin = pin

        @property
        def value(self) -> int:
            probe.adc_read()
            v = bank.voltage(self._pin.name)
            raw = max(0, min(4095, int(v / self.reference_voltage * 4095 + 0.5)))
            return (raw << 4) | (raw >> 8)

        def deinit(self) -> None:
            claims.release(self._pin)

    return SimpleNamespace(AnalogIn=AnalogIn)


class _Event:
    def __init__(self, key_number: int = 0, pressed: bool = True,
                 timestamp: int | None = None) -> None:
        self.key_number = key_number
        self.pressed = pressed
        self.timestamp = timestamp

    @property
    def released(self) -> bool:
        return not self.pressed

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, _Event) and other.key_number == self.key_number
                and other.pressed == self.pressed)

    def __repr__(self) -> str:
        return (f"<Event: key_number {self.key_number} "
                f"{'pressed' if self.pressed else 'released'}>")


class _EventQueue:
    def __init__(self, max_events: int) -> None:
        self._q: deque[tuple[int, bool, int]] = deque()
        self._max = max_events
        self.overflowed = False

    def _record(self, key: int, pressed: bool, ts: int) -> None:
        if len(self._q) >= self._max:
            self.overflowed = True
            return
        self._q.append((key, pressed, ts))

    def get(self) -> _Event | None:
        if not self._q:
            return None
        return _Event(*self._q.popleft())

    def get_into(self, event: _Event) -> bool:
        if not self._q:
            return False
        event.key_number, event.pressed, event.timestamp = self._q.popleft()
        return True

    def clear(self) -> None:
        self._q.clear()
        self.overflowed = False

    def __len__(self) -> int:
        return len(self._q)

    def __bool__(self) -> bool:
        return bool(self._q)


class _Scanner:
    """Background scanning as CircuitPython 9.2's ``keypad`` does it: the simulated MCU
    calls :meth:`_service` every tick and the scanner scans when its interval (counted in
    1/1024 s ticks) has passed; one scan at construction and at :meth:`reset`.

    Debounce integrates: each key's counter moves one step toward the reading, within
    ±threshold, and the key changes state when the counter reaches zero (then jumps to
    ±threshold).  Counters start at zero, so a key held at construction reports no
    press (only its later release) unless ``reset()`` is called: reset sets every
    counter to -threshold ("released", CircuitPython 9.2.1 and later)."""

    def __init__(self, key_count: int, interval: float, max_events: int,
                 debounce_threshold: int, ticks_ms: Callable[[], int],
                 now_us: Callable[[], int]) -> None:
        if debounce_threshold < 1 or debounce_threshold > 127:
            raise ValueError("debounce_threshold must be 1..127")
        self.key_count = key_count
        self.events = _EventQueue(max_events)
        self._interval_ticks = int(interval * RAW_TICKS_PER_S)
        self._threshold = debounce_threshold
        self._ticks_ms = ticks_ms
        self._now_us = now_us
        self._next_tick = 0
        self._counter = [0] * key_count
        self.scans = 0
        self._alive = True

    def _scan_now(self) -> None:
        self._next_tick = raw_ticks(self._now_us()) + self._interval_ticks
        current = self._read_keys()
        ts = self._ticks_ms()
        self.scans += 1
        for k, pressed in enumerate(current):
            if self._debounce(k, pressed):
                self.events._record(k, pressed, ts)

    def _debounce(self, k: int, pressed: bool) -> bool:
        counter, limit = self._counter[k], self._threshold
        if pressed and counter < limit:
            counter += 1
            if counter == 0:
                self._counter[k] = limit
                return True
        elif not pressed and counter > -limit:
            counter -= 1
            if counter == 0:
                self._counter[k] = -limit
                return True
        self._counter[k] = counter
        return False

    def reset(self) -> None:
        """All keys are taken as released; pressed ones report again after the debounce."""
        self._counter = [-self._threshold] * self.key_count
        self._scan_now()

    def deinit(self) -> None:
        self._alive = False

    def _service(self) -> None:
        if self._alive and raw_ticks(self._now_us()) >= self._next_tick:
            self._scan_now()

    def _read_keys(self) -> list[bool]:
        raise NotImplementedError


def _keypad(dio: SimpleNamespace, ticks_ms: Callable[[], int], now_us: Callable[[], int],
            registry: list) -> SimpleNamespace:
    class KeyMatrix(_Scanner):
        def __init__(self, row_pins: Sequence[Pin], column_pins: Sequence[Pin],
                     columns_to_anodes: bool = True, interval: float = 0.02,
                     max_events: int = 64, debounce_threshold: int = 1) -> None:
            super().__init__(len(row_pins) * len(column_pins), interval, max_events,
                             debounce_threshold, ticks_ms, now_us)
            self._c2a = columns_to_anodes
            pull = _Pull.UP if columns_to_anodes else _Pull.DOWN
            self._rows = [dio.DigitalInOut(p) for p in row_pins]
            self._cols = [dio.DigitalInOut(p) for p in column_pins]
            for io in self._rows + self._cols:
                io.switch_to_input(pull=pull)
            self._pull = pull
            registry.append(self)
            self._scan_now()

        def key_number_to_row_column(self, key_number: int) -> tuple[int, int]:
            return divmod(key_number, len(self._cols))

        def row_column_to_key_number(self, row: int, column: int) -> int:
            return row * len(self._cols) + column

        def _read_keys(self) -> list[bool]:
            out = []
            for row in self._rows:
                row.switch_to_output(value=not self._c2a)
                out.extend(col.value != self._c2a for col in self._cols)
                row.switch_to_input(pull=self._pull)
            return out

    class ShiftRegisterKeys(_Scanner):
        def __init__(self, *, clock: Pin, data: Pin, latch: Pin, value_to_latch: bool = True,
                     key_count: int, value_when_pressed: bool, interval: float = 0.02,
                     max_events: int = 64, debounce_threshold: int = 1) -> None:
            super().__init__(key_count, interval, max_events, debounce_threshold, ticks_ms,
                             now_us)
            self._clock = dio.DigitalInOut(clock)
            self._clock.switch_to_output(value=False)
            self._data = dio.DigitalInOut(data)
            self._data.switch_to_input()
            self._latch = dio.DigitalInOut(latch)
            self._latch.switch_to_output(value=not value_to_latch)
            self._v2l = value_to_latch
            self._when = value_when_pressed
            registry.append(self)
            self._scan_now()

        def _read_keys(self) -> list[bool]:
            self._latch.value = self._v2l  # freeze the inputs
            out = []
            for _ in range(self.key_count):
                self._clock.value = False
                out.append(self._data.value == self._when)
                self._clock.value = True  # rising edge: next bit to QH
            self._latch.value = not self._v2l
            return out

    return SimpleNamespace(KeyMatrix=KeyMatrix, ShiftRegisterKeys=ShiftRegisterKeys,
                           Event=_Event, EventQueue=_EventQueue)


class _NeoPixel:
    """CircuitPython's ``neopixel.NeoPixel`` feeding an emulated chain of chips.

    Like ``adafruit_pixelbuf`` it keeps the colours as wire bytes in ``pixel_order`` (GRB,
    or GRBW with ``bpp=4``, when none is given; ``bpp`` follows the order's length), takes
    tuples of 3 or 4 levels or a flat sequence of ``bpp`` bytes per pixel, and on ``show``
    puts ``int(level × brightness)`` on the wire.  The chips then take those bytes in their
    own ``chip_order`` (a WS2812B: GRB): ``shown`` is what each LED lights, ``(r, g, b)``
    or ``(r, g, b, w)`` — so a host or firmware that orders the bytes wrongly shows the
    wrong colours here, as on a real chain."""

    def __init__(self, pin: Pin, n: int, *, bpp: int = 3, brightness: float = 1.0,
                 auto_write: bool = True, pixel_order: Any = None,
                 chip_order: str = "GRB") -> None:
        order = str(pixel_order) if pixel_order else ("GRB" if bpp == 3 else "GRBW")
        if sorted(order) not in (sorted("RGB"), sorted("RGBW")):
            raise ValueError("Invalid Byteorder string")
        self.pin = pin
        self.n = n
        self.order = order
        self.bpp = len(order)
        self.brightness = brightness
        self.auto_write = auto_write
        self.chip_order = chip_order
        #: how the built chain differs from the guide (``sim.ledchain.LedChainWiring``)
        self.wiring: Any = None
        self._wire = bytearray(self.bpp * n)
        self.wire = bytes(self._wire)
        self.shown: tuple[tuple[int, ...], ...] = self._lit(self.wire)
        self.shows = 0

    def __len__(self) -> int:
        return self.n

    def _put(self, i: int, value: Any) -> None:
        if isinstance(value, int):
            value = (value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF)
        if len(value) not in (3, 4) or not all(0 <= v <= 255 for v in value):
            raise ValueError(f"Expected tuple of length {self.bpp}, got {value!r}")
        levels = dict(zip("RGBW", (*value, 0) if len(value) == 3 else value, strict=True))
        self._wire[self.bpp * i:self.bpp * (i + 1)] = bytes(levels[c] for c in self.order)

    def __setitem__(self, index: int | slice, value: Any) -> None:
        if isinstance(index, slice):
            places = range(*index.indices(self.n))
            items = list(value)
            if len(items) == self.bpp * len(places) and len(items) != len(places):
                # a flat sequence, bpp bytes per pixel (the C pixelbuf takes both forms)
                items = [tuple(items[k:k + self.bpp]) for k in range(0, len(items), self.bpp)]
            if len(items) != len(places):
                raise ValueError(f"Unmatched number of items on RHS (expected "
                                 f"{len(places)}, got {len(items)}).")
            for i, v in zip(places, items, strict=True):
                self._put(i, v)
        else:
            if not -self.n <= index < self.n:
                raise IndexError("Index out of range")
            self._put(index % self.n, value)
        if self.auto_write:
            self.show()

    def __getitem__(self, index: int) -> tuple[int, ...]:
        px = self._wire[self.bpp * index:self.bpp * (index + 1)]
        return tuple(px[self.order.index(c)] for c in "RGBW" if c in self.order)

    def fill(self, colour: Any) -> None:
        for i in range(self.n):
            self._put(i, colour)
        if self.auto_write:
            self.show()

    def _lit(self, wire: bytes) -> tuple[tuple[int, ...], ...]:
        """What the chips light from these wire bytes: each takes len(chip_order) bytes."""
        k = len(self.chip_order)
        out = []
        for i in range(0, min(len(wire), k * self.n) - k + 1, k):
            px = wire[i:i + k]
            out.append(tuple(px[self.chip_order.index(c)] for c in "RGBW"
                             if c in self.chip_order))
        if self.wiring is not None:
            return tuple(self.wiring.seen(out))
        return tuple(out)

    def show(self) -> None:
        b = self.brightness
        self.wire = bytes(int(v * b) for v in self._wire)
        self.shown = self._lit(self.wire)
        self.shows += 1

    def deinit(self) -> None:
        pass


class _WatchDogMode:
    RAISE = "WatchDogMode.RAISE"
    RESET = "WatchDogMode.RESET"


class _WatchDogTimeout(Exception):
    pass


class _WatchDogTimer:
    """``microcontroller.watchdog`` on an RP2040/RP2350: RESET mode only (RAISE is not
    implemented there), timeout at most 8 s; setting the timeout or the mode feeds it."""

    def __init__(self, now_us: Callable[[], int]) -> None:
        self._now_us = now_us
        self._timeout = 0.0
        self._mode: str | None = None
        self.fed_us = 0
        self.feeds = 0

    @property
    def timeout(self) -> float:
        return self._timeout

    @timeout.setter
    def timeout(self, value: float) -> None:
        if int(value) > 8:
            raise ValueError("timeout must be <= 8")
        self._timeout = value
        self.feed()

    @property
    def mode(self) -> str | None:
        return self._mode

    @mode.setter
    def mode(self, value: str | None) -> None:
        if value == _WatchDogMode.RAISE:
            raise NotImplementedError
        if value is not None and value != _WatchDogMode.RESET:
            raise TypeError(f"mode must be a WatchDogMode or None, got {value!r}")
        self._mode = value
        if value is not None:
            self.feed()

    def feed(self) -> None:
        self.fed_us = self._now_us()
        self.feeds += 1

    def deinit(self) -> None:
        self.mode = None

    def expired(self) -> bool:
        """Whether the chip would reset now."""
        return (self.mode == _WatchDogMode.RESET
                and self._now_us() - self.fed_us > self._timeout * 1e6)


class CircuitPythonShims:
    """The module objects of one simulated microcontroller.

    ``serial`` is the object behind ``usb_cdc.data`` (the simulated MCU provides it);
    ``ticks_offset_ms`` starts ``supervisor.ticks_ms()`` elsewhere than 0, e.g. just
    before its 2**29 wrap.  ``advance_us(n)`` moves the emulated clock forward: given
    it, ``time.sleep``, ``microcontroller.delay_us`` and blocking writes take emulated
    time; without it (a bare harness stepping the firmware) they return at once."""

    def __init__(self, bank: PinBank, now_us: Callable[[], int], serial: Any,
                 pin_names: Sequence[str], *, seed: int = 0, ticks_offset_ms: int = 0,
                 advance_us: Callable[[int], None] | None = None,
                 pin_aliases: dict[str, str] | None = None,
                 led_chip_order: str = "GRB", led_wiring: Any = None) -> None:
        self.bank = bank
        self.now_us = now_us
        self.advance_us = advance_us
        claims = _Claims()
        self.claims = claims
        self.ticks_offset_ms = ticks_offset_ms
        self.scanners: list[_Scanner] = []
        self.probe = _Probe(now_us)
        pins = {n: Pin(n) for n in pin_names}
        aliases = PICO_PIN_ALIASES if pin_aliases is None else pin_aliases
        pins.update({alias: Pin(gpio) for alias, gpio in aliases.items()})
        self.board = SimpleNamespace(**pins)
        self.digitalio = _digitalio(bank, claims, self.probe)
        self.analogio = _analogio(bank, claims, self.probe)
        self.keypad = _keypad(self.digitalio, self.ticks_ms, now_us, self.scanners)
        pixels: list[_NeoPixel] = []
        self.pixels = pixels

        #: the channel order of the emulated chain's chips (WS2812B: GRB)
        self.led_chip_order = led_chip_order
        #: how the emulated chain is wired (``sim.ledchain.LedChainWiring``), or None
        self.led_wiring = led_wiring

        def make_pixels(*args: Any, **kw: Any) -> _NeoPixel:
            p = _NeoPixel(*args, chip_order=self.led_chip_order, **kw)
            p.wiring = self.led_wiring
            pixels.append(p)
            return p

        self.neopixel = SimpleNamespace(NeoPixel=make_pixels, GRB="GRB", RGB="RGB",
                                        RGBW="RGBW", GRBW="GRBW")
        self.usb_cdc = SimpleNamespace(data=serial, console=None)
        self.supervisor = SimpleNamespace(ticks_ms=self.ticks_ms, reload=self._reload,
                                          runtime=SimpleNamespace(autoreload=True))
        self.slept = 0.0
        rng = random.Random(seed)
        self.os = SimpleNamespace(urandom=lambda n: bytes(rng.getrandbits(8) for _ in range(n)))
        self.time = SimpleNamespace(monotonic=lambda: now_us() / 1e6,
                                    monotonic_ns=lambda: now_us() * 1000, sleep=self._sleep)
        self.watchdog_timer = _WatchDogTimer(now_us)
        self.microcontroller = SimpleNamespace(watchdog=self.watchdog_timer,
                                               delay_us=self._delay_us, reset=self._reset)
        self.watchdog = SimpleNamespace(WatchDogMode=_WatchDogMode,
                                        WatchDogTimeout=_WatchDogTimeout)

    # --- time -------------------------------------------------------------------------
    def wait_until_us(self, t_us: int) -> None:
        """Emulated time passes until ``t_us`` (the firmware is busy or idle meanwhile)."""
        now = self.now_us()
        if self.advance_us is not None and t_us > now:
            self.advance_us(t_us - now)

    def _sleep(self, seconds: float) -> None:
        """``time.sleep``: whole milliseconds (rounded), counted in 1/1024 s ticks from
        the current tick, so 0.5 ms lasts anywhere from 0 to 0.98 ms."""
        if seconds < 0:
            raise ValueError("seconds must be >= 0")
        self.slept += seconds
        ms = int(1000 * seconds + 0.5)
        ticks = ms * RAW_TICKS_PER_S // 1000
        if ticks:
            self.wait_until_us(raw_tick_start_us(raw_ticks(self.now_us()) + ticks))

    def _delay_us(self, us: int) -> None:
        """``microcontroller.delay_us``: a busy wait of exactly ``us`` microseconds."""
        self.wait_until_us(self.now_us() + int(us))

    def ticks_ms(self) -> int:
        return (self.now_us() // 1000 + self.ticks_offset_ms) & TICKS_MASK

    # --- restarts ---------------------------------------------------------------------
    def _reload(self) -> None:
        raise ReloadException("supervisor.reload()")

    def _reset(self) -> None:
        raise MicrocontrollerReset("microcontroller.reset()")

    def service(self) -> None:
        """The chip's background work: keypad scans that are due (CircuitPython's tick
        hook) and the watchdog, which resets the chip when it was not fed in time."""
        for s in self.scanners:
            s._service()
        if self.watchdog_timer.expired():
            raise MicrocontrollerReset("watchdog timer expired")

    def modules(self) -> dict[str, Any]:
        return {"board": self.board, "digitalio": self.digitalio, "analogio": self.analogio,
                "keypad": self.keypad, "neopixel": self.neopixel, "usb_cdc": self.usb_cdc,
                "supervisor": self.supervisor, "time": self.time, "os": self.os,
                "microcontroller": self.microcontroller, "watchdog": self.watchdog}
