"""Stand-ins for the Raspberry Pi hardware modules, wired to the electrical emulation.

Objects of these classes are injected where the GPIO back ends would import the real
module (the way gpiozero's mock pins work), so the back ends' own code runs unchanged:

* :class:`EmulatedGPIO` — the ``RPi.GPIO`` API (also what ``rpi-lgpio`` provides on a
  Pi 5), BCM numbering, on a :class:`~controller.sensing.sim.electrical.PinBank`;
* :class:`EmulatedSpiDev` — ``spidev.SpiDev``: ``xfer2`` clocks SCLK and samples MISO
  bit by bit on the same bank (mode 0, MSB first), so a 74HC165 chain sees real edges;
* :class:`EmulatedSMBus` — ``smbus2.SMBus`` block reads/writes to emulated I²C devices.
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.sensing.sim.electrical import Ads1115, PinBank


class EmulatedGPIO:
    """The subset of ``RPi.GPIO`` the back ends use, with its constants."""

    BCM, BOARD = 11, 10
    IN, OUT = 1, 0
    HIGH, LOW = 1, 0
    PUD_OFF, PUD_DOWN, PUD_UP = 20, 21, 22
    VERSION = "emulated"

    def __init__(self, bank: PinBank) -> None:
        self.bank = bank
        self.mode: int | None = None
        self.warnings = True
        self.setup_pins: set[int] = set()
        self.calls = 0

    def setmode(self, mode: int) -> None:
        if mode not in (self.BCM, self.BOARD):
            raise ValueError("An invalid mode was passed to setmode()")
        if self.mode is not None and mode != self.mode:
            raise ValueError("A different mode has already been set!")
        self.mode = mode

    def getmode(self) -> int | None:
        return self.mode

    def setwarnings(self, flag: bool) -> None:
        self.warnings = bool(flag)

    def _check(self, channel: int) -> None:
        if self.mode is None:
            raise RuntimeError("Please set pin numbering mode using GPIO.setmode(GPIO.BOARD) "
                               "or GPIO.setmode(GPIO.BCM)")
        if not isinstance(channel, int) or not 0 <= channel <= 27:
            raise ValueError(f"The channel sent is invalid on a Raspberry Pi: {channel!r}")

    def setup(self, channel: int | Iterable[int], direction: int,
              pull_up_down: int = PUD_OFF, initial: int | None = None) -> None:
        self.calls += 1
        channels = [channel] if isinstance(channel, int) else list(channel)
        for ch in channels:
            self._check(ch)
            if direction == self.OUT:
                if pull_up_down != self.PUD_OFF:
                    raise ValueError("pull_up_down parameter is not valid for outputs")
                self.bank.set_output(ch, bool(initial) if initial is not None else False)
            elif direction == self.IN:
                pull = {self.PUD_UP: "up", self.PUD_DOWN: "down", self.PUD_OFF: None}
                if pull_up_down not in pull:
                    raise ValueError("Invalid value for pull_up_down")
                self.bank.set_input(ch, pull[pull_up_down])
            else:
                raise ValueError("An invalid direction was passed to setup()")
            self.setup_pins.add(ch)

    def output(self, channel: int | Iterable[int], value: int | bool) -> None:
        self.calls += 1
        channels = [channel] if isinstance(channel, int) else list(channel)
        for ch in channels:
            if ch not in self.setup_pins or self.bank.mode.get(ch) != "out":
                raise RuntimeError("The GPIO channel has not been set up as an OUTPUT")
            self.bank.write(ch, bool(value))

    def input(self, channel: int) -> int:
        self.calls += 1
        if channel not in self.setup_pins:
            raise RuntimeError("You must setup() the GPIO channel first")
        return self.HIGH if self.bank.read(channel) else self.LOW

    def cleanup(self, channel: int | Iterable[int] | None = None) -> None:
        channels = (list(self.setup_pins) if channel is None
                    else [channel] if isinstance(channel, int) else list(channel))
        for ch in channels:
            self.bank.set_input(ch, None)
            self.setup_pins.discard(ch)
        if channel is None:
            self.mode = None


class EmulatedSpiDev:
    """``spidev.SpiDev`` on bank pins: SCLK, MISO (MOSI unused by a 74HC165 chain)."""

    def __init__(self, bank: PinBank, sclk: int, miso: int) -> None:
        self.bank = bank
        self.sclk, self.miso = sclk, miso
        self.max_speed_hz = 500000
        self.mode = 0
        self.bits_per_word = 8
        self.opened: tuple[int, int] | None = None
        self.transfers = 0

    def open(self, bus: int, device: int) -> None:
        self.opened = (bus, device)
        self.bank.set_output(self.sclk, False)
        self.bank.set_input(self.miso, None)

    def xfer2(self, data: list[int]) -> list[int]:
        if self.opened is None:
            raise OSError(9, "Bad file descriptor: SpiDev not opened")
        if self.mode != 0:
            raise ValueError("the emulation implements SPI mode 0 only")
        self.transfers += 1
        out = []
        for _ in data:
            byte = 0
            for _bit in range(8):
                byte = (byte << 1) | (1 if self.bank.read(self.miso) else 0)
                self.bank.write(self.sclk, True)  # rising edge: sample done, chain shifts
                self.bank.write(self.sclk, False)
            out.append(byte)
        return out

    def readbytes(self, n: int) -> list[int]:
        return self.xfer2([0] * n)

    def close(self) -> None:
        self.opened = None


class EmulatedSMBus:
    """``smbus2.SMBus`` with ADS1115s at their addresses (16-bit registers, MSB first)."""

    def __init__(self, devices: dict[int, Ads1115]) -> None:
        self.devices = devices
        self.transactions = 0

    def _device(self, address: int) -> Ads1115:
        if address not in self.devices:
            raise OSError(121, f"Remote I/O error: no device at I²C address {address:#04x}")
        return self.devices[address]

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        self.transactions += 1
        if len(data) != 2:
            raise OSError(5, "ADS1115 registers take two bytes")
        self._device(address).write_register(register, (data[0] << 8) | data[1])

    def read_i2c_block_data(self, address: int, register: int, length: int) -> list[int]:
        self.transactions += 1
        if length != 2:
            raise OSError(5, "ADS1115 registers are two bytes")
        v = self._device(address).read_register(register)
        return [v >> 8 & 0xFF, v & 0xFF]

    def close(self) -> None:
        pass
