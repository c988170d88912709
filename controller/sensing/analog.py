"""Linear hall sensors read by a Raspberry Pi: CD74HC4067 multiplexers (select lines on
GPIO) in front of ADS1115 converters on I²C.

Multiplexer ``m`` (channels ``16m .. 16m+15``) feeds input ``m % 4`` of the ADS1115 at
``adc_addresses[m // 4]``.  Each conversion is single-shot at 860 samples/s, so a
48-channel board takes tens of milliseconds per scan (design/hardware.md); the readings
become presence, colour and stack class through the per-spot :class:`Calibration`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.sensing.calibration import Calibration, CalibrationError
from controller.sensing.frame import DEFAULT_CLOCK, Clock, Frame, SensingError, frame_from_states
from controller.sensing.gpio import _check_distinct, load_rpi_gpio
from controller.sensing.kinds import ANALOG, sensing_kind

PGA_BITS = {6.144: 0, 4.096: 1, 2.048: 2, 1.024: 3, 0.512: 4, 0.256: 5}


def load_smbus(bus: int) -> Any:
    try:
        from smbus2 import SMBus  # type: ignore[import-not-found]
    except ImportError as exc:
        raise SensingError("the ADS1115 back end needs 'smbus2' (pip install smbus2; enable "
                           "I2C with raspi-config)") from exc
    return SMBus(bus)


class Ads1115Reader:
    """Single-shot, single-ended conversions on one ADS1115 (datasheet register map)."""

    def __init__(self, bus: Any, address: int, fsr_v: float = 4.096,
                 sleep: Callable[[float], None] = time.sleep, max_polls: int = 50) -> None:
        if fsr_v not in PGA_BITS:
            raise ValueError(f"ADS1115 full-scale range must be one of {sorted(PGA_BITS)} V")
        self.bus = bus
        self.address = address
        self.fsr_v = fsr_v
        self.sleep = sleep
        self.max_polls = max_polls

    def read(self, ain: int) -> float:
        """Volts on AINx against GND."""
        if not 0 <= ain <= 3:
            raise ValueError(f"ADS1115 input must be 0..3, got {ain}")
        # OS=1 start | MUX=100+ain single-ended | PGA | MODE=1 single-shot |
        # DR=111 (860 SPS) | comparator disabled (COMP_QUE=11)
        config = (0x8000 | (0x4 + ain) << 12 | PGA_BITS[self.fsr_v] << 9 | 0x0100
                  | 0x7 << 5 | 0x3)
        self.bus.write_i2c_block_data(self.address, 0x01, [config >> 8, config & 0xFF])
        for _ in range(self.max_polls):
            hi, _lo = self.bus.read_i2c_block_data(self.address, 0x01, 2)
            if hi & 0x80:
                break
            self.sleep(0.0002)
        else:
            raise SensingError(f"ADS1115 at {self.address:#04x} never finished a conversion")
        hi, lo = self.bus.read_i2c_block_data(self.address, 0x00, 2)
        raw = (hi << 8) | lo
        if raw & 0x8000:
            raw -= 0x10000
        return raw * self.fsr_v / 32768


@dataclass(frozen=True)
class AnalogPins:
    """Select lines S0..S3 (BCM), optional active-low enables (one per multiplexer),
    the ADS1115 addresses (one per four multiplexers), the I²C bus, the full-scale range
    and the settle time after switching a multiplexer (~1 ms, design/hardware.md)."""

    select: tuple[int, int, int, int]
    adc_addresses: tuple[int, ...] = (0x48,)
    enable: tuple[int, ...] = ()
    i2c_bus: int = 1
    fsr_v: float = 4.096
    settle_s: float = 0.001

    def __post_init__(self) -> None:
        if len(self.select) != 4:
            raise ValueError("analog: 'select' needs the four pins S0..S3")
        _check_distinct(tuple(self.select) + tuple(self.enable), "analog pins")
        for a in self.adc_addresses:
            if a not in (0x48, 0x49, 0x4A, 0x4B):
                raise ValueError(f"analog: {a:#04x} is not an ADS1115 address (0x48..0x4B)")

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> AnalogPins:
        d = dict(table)
        for key in ("select", "adc_addresses", "enable"):
            if key in d:
                d[key] = tuple(d[key])
        return cls(**d)


@dataclass
class AnalogSettings:
    """The ``gpio-analog`` back end's settings: its table ``[sensing.analog]`` (select,
    adc_addresses, enable, i2c_bus, fsr_v, settle_s) over the flat ``[sensing]`` settings
    older files give."""

    #: linear halls (gpio-analog): CD74HC4067 select pins S0..S3, optional enable pins (one
    #: per multiplexer), ADS1115 I²C addresses (one per four multiplexers) and bus
    select_pins: list[int] = field(default_factory=list)
    enable_pins: list[int] = field(default_factory=list)
    adc_addresses: list[int] = field(default_factory=lambda: [0x48])
    i2c_bus: int = 1
    #: the table; its keys win over the flat settings above
    analog: dict[str, Any] = field(default_factory=dict)

    def analog_pins(self) -> AnalogPins:
        """``AnalogPins`` from the flat settings and the table."""
        table = {"select": self.select_pins, "enable": self.enable_pins,
                 "adc_addresses": self.adc_addresses, "i2c_bus": self.i2c_bus, **self.analog}
        try:
            return AnalogPins.from_table(table)
        except TypeError as exc:  # an unknown key
            raise ValueError(f"analog: {exc}") from None

    def analog_problem(self) -> str:
        """What the ``gpio-analog`` back end misses, or ``""``."""
        if len(self.analog.get("select", self.select_pins)) != 4:
            return ("sensing.select_pins needs the four multiplexer select pins S0..S3 for "
                    "the gpio-analog back end")
        return ""

    def address_problem(self) -> str:
        """A flat ADS1115 address that is none, or ``""`` (checked for every back end)."""
        for a in self.adc_addresses:
            if a not in (0x48, 0x49, 0x4A, 0x4B):
                return f"sensing.adc_addresses: {a:#04x} is not an ADS1115 address (0x48..0x4B)"
        return ""


class AnalogScanner:
    """Scans every channel once per :meth:`read`; frames need a :class:`Calibration`."""

    debounced = False

    def __init__(self, layout, pins: AnalogPins, calibration: Calibration | None = None, *,
                 gpio: Any = None, bus: Any = None, clock: Clock = DEFAULT_CLOCK,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if sensing_kind(layout) is not ANALOG:
            raise SensingError(f"layout {layout.name} is wired as {layout.sensing}, not analog")
        muxes = (layout.channel_count + 15) // 16
        if len(pins.adc_addresses) * 4 < muxes:
            raise SensingError(f"layout {layout.name} needs {muxes} multiplexers: that is "
                               f"{(muxes + 3) // 4} ADS1115s, {len(pins.adc_addresses)} given")
        if pins.enable and len(pins.enable) != muxes:
            raise SensingError(f"give one enable pin per multiplexer ({muxes}) or none")
        self.layout = layout
        self.pins = pins
        self.calibration = calibration
        self.gpio = gpio if gpio is not None else load_rpi_gpio()
        self.bus = bus if bus is not None else load_smbus(pins.i2c_bus)
        self.clock = clock
        self.sleep = sleep
        self.muxes = muxes
        self.adcs = [Ads1115Reader(self.bus, a, pins.fsr_v, sleep) for a in pins.adc_addresses]
        self.spot_of_channel = layout.channel_table()
        self.n = len(layout.spots)
        self.scans = 0
        g = self.gpio
        g.setwarnings(False)
        g.setmode(g.BCM)
        for p in pins.select:
            g.setup(p, g.OUT, initial=g.LOW)
        for p in pins.enable:
            g.setup(p, g.OUT, initial=g.HIGH)

    def read_voltages(self) -> list[float]:
        """One reading per spot, in volts."""
        g = self.gpio
        out = [0.0] * self.n
        table = self.spot_of_channel
        for sel in range(16):
            for b, p in enumerate(self.pins.select):
                g.output(p, g.HIGH if sel >> b & 1 else g.LOW)
            if not self.pins.enable:
                self.sleep(self.pins.settle_s)
            for m in range(self.muxes):
                ch = 16 * m + sel
                if ch >= len(table) or table[ch] < 0:
                    continue
                if self.pins.enable:
                    for k, p in enumerate(self.pins.enable):
                        g.output(p, g.LOW if k == m else g.HIGH)
                    self.sleep(self.pins.settle_s)
                out[table[ch]] = self.adcs[m // 4].read(m % 4)
        return out

    def scan(self) -> Frame:
        if self.calibration is None:
            raise CalibrationError(f"analog sensing on {self.layout.name} needs a calibration: "
                                   "run the calibration routine first")
        volts = self.read_voltages()
        t = self.clock()
        self.scans += 1
        return frame_from_states(t, self.calibration.classify(volts))

    def read(self) -> list[Frame]:
        return [self.scan()]

    def close(self) -> None:
        self.gpio.cleanup(list(self.pins.select) + list(self.pins.enable))
        self.bus.close()
