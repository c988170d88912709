"""Attach a real sensing back end to a :class:`SimulatedBoard` through emulated hardware.

``SimulatedSensing(board, "gpio-matrix")`` builds the emulated circuit, the back end
(the production class, with the emulated ``RPi.GPIO`` / ``spidev`` / ``smbus2`` /
microcontroller injected), the debounce + settle pipeline, and schedules scans on the
board's clock.  Committed frames come out of :meth:`SimulatedSensing.frames`.

Back ends (:data:`BACKENDS`):

=========================  ==========================================================
``gpio-matrix``            Pi GPIO, switch matrix with a diode per switch
``gpio-matrix-no-diodes``  same without diodes: ghosts appear, suspects are reported
``gpio-shift-bitbang``     Pi GPIO, 74HC165 chain clocked bit by bit
``gpio-shift-spi``         Pi, 74HC165 chain through SPI (spidev)
``gpio-analog``            Pi GPIO + ADS1115 (I²C) behind CD74HC4067 multiplexers
``mcu-matrix``             firmware + keypad.KeyMatrix, over a pseudo-terminal
``mcu-shift``              firmware + keypad.ShiftRegisterKeys, over a pseudo-terminal
``mcu-analog``             firmware + analogio behind multiplexers, over a pseudo-terminal
=========================  ==========================================================

A back end whose sensing differs from the layout's runs on the layout re-wired for it
(:func:`~controller.sensing.sim.wiring.as_sensing`): same spots, other sensor addresses.
"""

from __future__ import annotations

import select
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from controller.sensing.analog import AnalogPins, AnalogScanner
from controller.sensing.calibration import Calibration, calibrate
from controller.sensing.circuits import SIMULATED_CIRCUITS
from controller.sensing.debounce import DebounceConfig, SensingPipeline
from controller.sensing.frame import Frame
from controller.sensing.gpio import (
    MatrixPins,
    MatrixScanner,
    ShiftRegisterPins,
    ShiftRegisterScanner,
)
from controller.sensing.kinds import MATRIX, SHIFT_REGISTER, sensing_kind
from controller.sensing.serial_link import SerialConfig, SerialLink
from controller.sensing.sim.board import SimulatedBoard
from controller.sensing.sim.electrical import (
    DEFAULT_HALL,
    Ads1115,
    HallModel,
    PinBank,
    SwitchMatrix,
)
from controller.sensing.sim.emulated_gpio import EmulatedGPIO, EmulatedSMBus, EmulatedSpiDev
from controller.sensing.sim.mcu import LinkFaults, SimulatedMCU
from controller.sensing.sim.wiring import as_sensing, wire_analog, wire_chain, wire_matrix

#: the simulator's circuit names (one vocabulary with the configured back ends:
#: ``controller.sensing.circuits.SIMULATED_CIRCUITS``)
BACKENDS = tuple(SIMULATED_CIRCUITS)

#: BCM pins free on a Pi header for a matrix (SPI0 and I²C1 left alone)
PI_MATRIX_PINS = (4, 5, 6, 12, 13, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 14, 15,
                  0, 1, 7, 8)
SPI_SCLK, SPI_MISO = 11, 9


def gpio_matrix_pins(layout, diodes: str | None = "row") -> MatrixPins:
    need = layout.matrix_rows + layout.matrix_columns
    if need > len(PI_MATRIX_PINS):
        raise ValueError(f"a {layout.matrix_rows}×{layout.matrix_columns} matrix needs {need} "
                         f"GPIO pins; the Pi has {len(PI_MATRIX_PINS)} free")
    pins = PI_MATRIX_PINS
    return MatrixPins(tuple(pins[:layout.matrix_rows]),
                      tuple(pins[layout.matrix_rows:need]), diodes)


class SimulatedSensing:
    """One back end watching a simulated board; see the module docstring."""

    def __init__(self, board: SimulatedBoard, backend: str, *,
                 debounce: DebounceConfig | None = None, settle_s: float = 0.2,
                 is_extendable: Callable[[Frame], bool] | None = None,
                 calibration: Calibration | None = None, period_s: float | None = None,
                 faults: LinkFaults | None = None, link_dir: Path | str | None = None,
                 serial: SerialConfig | None = None, seed: int = 0,
                 hall: HallModel = DEFAULT_HALL, **mcu_settings: Any) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown back end {backend!r} (one of {', '.join(BACKENDS)})")
        self.board = board
        self.backend_name = backend
        self.layout = as_sensing(board.layout, SIMULATED_CIRCUITS[backend].sensing)
        self.mcu: SimulatedMCU | None = None
        #: the emulated switch matrix (``gpio-matrix*``), where wiring faults are injected
        self.matrix: SwitchMatrix | None = None
        self.link: SerialLink | None = None
        self._tmp: tempfile.TemporaryDirectory | None = None
        clock = board.clock
        circuit = SIMULATED_CIRCUITS[backend]
        if circuit.backend == "serial":
            if link_dir is None:
                self._tmp = tempfile.TemporaryDirectory(prefix="fairyboard-by-id-")
                link_dir = self._tmp.name
            self.mcu = SimulatedMCU(board, self.layout, link_dir, faults=faults, seed=seed,
                                    hall=hall, **mcu_settings)
            config = serial or SerialConfig(by_id_dir=str(link_dir))
            self.link = SerialLink(self.layout, config, calibration=calibration, clock=clock)
            self.backend: Any = self.link
            period = period_s or 0.001
        else:
            bank = PinBank(seed=seed)
            self.bank = bank
            gpio = EmulatedGPIO(bank)
            self.gpio = gpio
            if circuit.sensing == MATRIX.name:
                diodes = circuit.diodes
                pins = gpio_matrix_pins(self.layout, diodes)
                self.matrix = wire_matrix(bank, board, self.layout, pins.rows, pins.columns,
                                          diodes)
                self.backend = MatrixScanner(self.layout, pins, gpio=gpio, clock=clock)
                period = period_s or 0.001
            elif circuit.sensing == SHIFT_REGISTER.name:
                if circuit.spi:
                    pins = ShiftRegisterPins(load=25, spi_bus=0)
                    spi = EmulatedSpiDev(bank, SPI_SCLK, SPI_MISO)
                    wire_chain(bank, board, self.layout, 25, SPI_SCLK, SPI_MISO)
                else:
                    pins = ShiftRegisterPins(load=25, clock=23, data=24)
                    spi = None
                    wire_chain(bank, board, self.layout, 25, 23, 24)
                self.backend = ShiftRegisterScanner(self.layout, pins, gpio=gpio, spi=spi,
                                                    clock=clock)
                period = period_s or 0.001
            else:
                muxes = (self.layout.channel_count + 15) // 16
                adcs = (muxes + 3) // 4
                apins = AnalogPins(select=(5, 6, 13, 19),
                                   adc_addresses=tuple(0x48 + k for k in range(adcs)))
                mux, _halls = wire_analog(bank, board, self.layout, apins.select, None, (),
                                          hall, seed)
                devices = {0x48 + k: Ads1115(lambda ain, k=k: mux.output(4 * k + ain)
                                             if 4 * k + ain < muxes else None, seed=seed + k)
                           for k in range(adcs)}
                self.smbus = EmulatedSMBus(devices)
                self.backend = AnalogScanner(self.layout, apins, calibration, gpio=gpio,
                                             bus=self.smbus, clock=clock, sleep=lambda s: None)
                period = period_s or 0.01
        self.period_s = period
        if not sensing_kind(self.layout).switches and calibration is None:
            calibration = self.calibrate()
        self.calibration = calibration
        if debounce is None and not sensing_kind(self.layout).switches:
            debounce = DebounceConfig(scans=3, stable_s=0.0)
        self.pipeline = SensingPipeline(self.backend, clock, debounce=debounce,
                                        is_extendable=is_extendable, settle_s=settle_s)
        self._ticker = board.every(period, self._scan)

    # --- running ------------------------------------------------------------------------
    def _scan(self) -> None:
        self._pump(self.pipeline.update)

    def _pump(self, update: Callable[[], object]) -> None:
        """Read once; for the link, keep reading while the pseudo-terminal has bytes."""
        update()
        link = self.link
        while link is not None and link.port is not None:
            if not select.select([link.port.fileno()], [], [], 0)[0]:
                break
            before = link.bytes_received
            update()
            if link.bytes_received == before:
                break

    def frames(self) -> Iterator[Frame]:
        """Committed frames (debounced, through the settle gate) as of now."""
        return self.pipeline.frames()

    def committed(self) -> list[Frame]:
        return list(self.frames())

    @property
    def stable(self) -> Frame | None:
        """The latest debounced frame (before the settle gate)."""
        return self.pipeline.stable

    def close(self) -> None:
        self._ticker.cancel()
        if self.link is not None:
            self.link.close()
        if self.mcu is not None:
            self.mcu.close()
        else:
            self.backend.close()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> SimulatedSensing:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- analog calibration -------------------------------------------------------------
    def calibrate(self, samples: int = 8) -> Calibration:
        """Run the calibration routine with a simulated human, then restore the board."""
        board = self.board
        saved_piles = [list(p) for p in board.piles]
        saved_hand = list(board.hand)
        saved_leaning = dict(board.leaning)

        def prompt(step: str, _text: str) -> None:
            board.lay_calibration_step(step)

        if self.link is not None:
            link = self.link

            def sample() -> list[float]:
                before = link.stats["packets"]
                for _ in range(200):
                    board.advance(0.002)
                    self._pump(link.update)
                    if link.readings is not None and link.stats["packets"] > before:
                        break
                if link.readings is None:
                    raise RuntimeError("the simulated microcontroller sent no readings")
                return list(link.readings)

            for _ in range(1000):
                if link.connected and link.readings is not None:
                    break
                board.advance(0.001)
                self._pump(link.update)
        else:
            def sample() -> list[float]:
                return self.backend.read_voltages()

        try:
            cal = calibrate(self.layout, sample, prompt, samples=samples)
        finally:
            board.piles = saved_piles
            board.hand = saved_hand
            board.leaning = saved_leaning
            board._changed("calibration done: board restored")
        self.backend.calibration = cal
        return cal
