"""The Raspberry Pi back ends, running their real code against the electrical emulation."""

from __future__ import annotations

import importlib.util

import pytest

from controller.layout import load_layout
from controller.sensing.analog import Ads1115Reader, AnalogPins, AnalogScanner
from controller.sensing.frame import SensingError
from controller.sensing.gpio import (
    MatrixPins,
    MatrixScanner,
    ShiftRegisterPins,
    ShiftRegisterScanner,
    ghost_candidates,
    load_rpi_gpio,
)
from controller.sensing.sim import SimulatedBoard, as_sensing
from controller.sensing.sim.electrical import Ads1115, PinBank, ShortCircuit, SwitchMatrix
from controller.sensing.sim.emulated_gpio import EmulatedGPIO, EmulatedSMBus, EmulatedSpiDev
from controller.sensing.sim.rig import SPI_MISO, SPI_SCLK, gpio_matrix_pins
from controller.sensing.sim.wiring import wire_analog, wire_chain, wire_matrix

SQUARE8 = load_layout("square8")
SQUARE9 = load_layout("square9")
LOTUS = load_layout("lotus39")


def matrix_rig(diodes, scanner_diodes=None, layout=SQUARE8):
    board = SimulatedBoard(layout)
    bank = PinBank()
    pins = gpio_matrix_pins(layout, diodes)
    wire_matrix(bank, board, layout, pins.rows, pins.columns, diodes)
    if scanner_diodes != diodes:
        pins = gpio_matrix_pins(layout, scanner_diodes)
    scanner = MatrixScanner(layout, pins, gpio=EmulatedGPIO(bank), clock=board.clock)
    return board, scanner


def names(layout, frame):
    return {layout.spots[i].name for i in frame.occupied_spots()}


@pytest.mark.parametrize("diodes", ["row", "column"])
def test_matrix_with_diodes_reads_exactly_what_lies_there(diodes):
    board, scanner = matrix_rig(diodes, diodes)
    for s in ("a1", "h1", "a2", "e4", "white-cube", "option-3"):
        board.put(s, "white-pawn")
    assert names(SQUARE8, scanner.scan()) == {"a1", "h1", "a2", "e4", "white-cube", "option-3"}
    assert scanner.ghost_suspects == ()


def test_three_corners_of_a_rectangle_fake_the_fourth_without_diodes():
    board, scanner = matrix_rig(None, None)
    for s in ("a1", "c1", "a3"):
        board.put(s, "white-pawn")
    frame = scanner.scan()
    assert names(SQUARE8, frame) == {"a1", "c1", "a3", "c3"}  # c3 is the ghost
    assert {SQUARE8.spots[i].name for i in scanner.ghost_suspects} == {"a1", "c1", "a3", "c3"}
    # with diodes the same three pieces are read exactly
    board2, scanner2 = matrix_rig("row", "row")
    for s in ("a1", "c1", "a3"):
        board2.put(s, "white-pawn")
    assert names(SQUARE8, scanner2.scan()) == {"a1", "c1", "a3"}


def test_two_corners_do_not_ghost():
    board, scanner = matrix_rig(None, None)
    for s in ("a1", "c3", "e5"):
        board.put(s, "black-pawn")
    assert names(SQUARE8, scanner.scan()) == {"a1", "c3", "e5"}
    assert scanner.ghost_suspects == ()


def test_missing_diodes_are_a_ghost_never_a_short_circuit():
    """Issue #16 defect 7: idle strobe lines driven high made every missing or shorted
    diode an output-to-output short (this test once expected ShortCircuit).  Idle as
    pulled-up inputs they short nothing, and the ghost they let through is suspected."""
    board, scanner = matrix_rig(None, "column")  # scanner believes in diodes
    for s in ("a1", "c1", "a3"):
        board.put(s, "white-pawn")
    frame = scanner.scan()  # no ShortCircuit
    assert names(SQUARE8, frame) == {"a1", "c1", "a3", "c3"}  # c3: the ghost
    suspects = {SQUARE8.spots[i].name for i in scanner.ghost_suspects}
    assert suspects == {"a1", "c1", "a3", "c3"}


def test_the_emulated_matrix_still_catches_two_outputs_fighting():
    """What the old scanner did, done by hand: two idle lines driven high and low meet
    through closed switches — the emulation refuses it (a real Pi would burn a pin)."""
    board, scanner = matrix_rig(None, None)
    board.put("a1", "white-pawn")
    board.put("a2", "white-pawn")
    g, rows, columns = scanner.gpio, scanner.pins.rows, scanner.pins.columns
    g.setup(rows[0], g.OUT, initial=g.HIGH)
    g.setup(rows[1], g.OUT, initial=g.LOW)
    with pytest.raises(ShortCircuit):
        g.input(columns[0])


def test_diodes_the_wrong_way_round_read_nothing():
    board, scanner = matrix_rig("row", "column")
    board.put("e4", "white-king")
    assert names(SQUARE8, scanner.scan()) == set()


def test_ghost_candidates_rule():
    closed = [[True, True, False], [True, False, False], [False, False, True]]
    assert ghost_candidates(closed) == []
    closed[1][1] = True
    assert ghost_candidates(closed) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_matrix_configuration_is_checked():
    with pytest.raises(SensingError, match="11×8"):
        MatrixScanner(SQUARE8, MatrixPins((1, 2), (3, 4)), gpio=EmulatedGPIO(PinBank()))
    with pytest.raises(ValueError, match="used twice"):
        MatrixPins((1, 2), (2, 4))
    with pytest.raises(ValueError, match="does not exist"):
        MatrixPins((1, 40), (3,))
    with pytest.raises(ValueError, match="needs 11 pins"):
        MatrixPins.from_table({"rows": [1, 2], "columns": [3]}, SQUARE8)
    pins = MatrixPins.from_table({"rows": list(range(4, 15)), "columns": list(range(15, 23)),
                                  "diodes": "none"}, SQUARE8)
    assert pins.diodes is None
    with pytest.raises(SensingError, match="not a matrix"):
        MatrixScanner(SQUARE9, pins, gpio=EmulatedGPIO(PinBank()))


@pytest.mark.skipif(importlib.util.find_spec("RPi") is not None, reason="RPi.GPIO installed")
def test_missing_rpi_gpio_gives_a_clear_error():
    with pytest.raises(SensingError, match="rpi-lgpio"):
        load_rpi_gpio()
    with pytest.raises(SensingError, match="rpi-lgpio"):
        MatrixScanner(SQUARE8, gpio_matrix_pins(SQUARE8))


def test_emulated_gpio_behaves_like_rpi_gpio():
    g = EmulatedGPIO(PinBank())
    with pytest.raises(RuntimeError, match="setmode"):
        g.setup(4, g.IN)
    g.setmode(g.BCM)
    with pytest.raises(RuntimeError, match="setup"):
        g.input(4)
    g.setup(4, g.IN, pull_up_down=g.PUD_UP)
    assert g.input(4) == g.HIGH
    with pytest.raises(RuntimeError, match="OUTPUT"):
        g.output(4, 0)
    g.setup(5, g.OUT, initial=g.HIGH)
    assert g.input(5) == g.HIGH


def chain_scanner(layout, spi: bool):
    board = SimulatedBoard(layout)
    bank = PinBank()
    g = EmulatedGPIO(bank)
    if spi:
        wire_chain(bank, board, layout, 25, SPI_SCLK, SPI_MISO)
        dev = EmulatedSpiDev(bank, SPI_SCLK, SPI_MISO)
        scanner = ShiftRegisterScanner(layout, ShiftRegisterPins(load=25, spi_bus=0), gpio=g,
                                       spi=dev, clock=board.clock)
    else:
        wire_chain(bank, board, layout, 25, 23, 24)
        scanner = ShiftRegisterScanner(layout, ShiftRegisterPins(load=25, clock=23, data=24),
                                       gpio=g, clock=board.clock)
    return board, scanner


@pytest.mark.parametrize("spi", [False, True])
def test_shift_register_chain_reads_every_bit_in_order(spi):
    board, scanner = chain_scanner(SQUARE9, spi)
    assert scanner.scan().occupied_spots() == ()
    for k in (0, 1, 7, 8, 40, 80, 86):  # a1, b1, h1, i1, e5, i9, option-6
        board.clear()
        board.put(k, "white-pawn")
        assert scanner.scan().occupied_spots() == (k,), k
    board.clear()
    everything = [0, 9, 18, 27, 36, 45, 54, 63, 72, 81]
    for k in everything:
        board.put(k, "black-pawn")
    assert scanner.scan().occupied_spots() == tuple(everything)


def test_shift_register_reads_a_layout_rewired_as_a_chain():
    layout = as_sensing(SQUARE8, "shift-register")
    board, scanner = chain_scanner(layout, True)
    board.put("black-hand-Q", "black-queen")
    board.put("h8", "black-rook")
    assert names(layout, scanner.scan()) == {"black-hand-Q", "h8"}


def test_shift_register_configuration_is_checked():
    with pytest.raises(ValueError, match="clock and data"):
        ShiftRegisterPins(load=25)
    with pytest.raises(ValueError, match="unknown keys"):
        ShiftRegisterPins.from_table({"load": 25, "clk": 3})
    assert ShiftRegisterPins.from_table({"load": 8, "spi_bus": 0}).spi_bus == 0
    with pytest.raises(SensingError, match="spidev"):
        ShiftRegisterScanner(SQUARE9, ShiftRegisterPins(load=25, spi_bus=0),
                             gpio=EmulatedGPIO(PinBank()))


def test_ads1115_register_interface_round_trip():
    dev = Ads1115(lambda ain: 0.5 + ain, busy_polls=3)
    bus = EmulatedSMBus({0x48: dev})
    reader = Ads1115Reader(bus, 0x48, 4.096, sleep=lambda s: None)
    for ain in range(4):
        assert reader.read(ain) == pytest.approx(0.5 + ain, abs=2e-4)
    assert Ads1115Reader(bus, 0x48, 2.048, sleep=lambda s: None).read(3) == pytest.approx(
        2.048, abs=1e-3)  # clipped at full scale
    with pytest.raises(OSError, match="no device"):
        Ads1115Reader(bus, 0x49).read(0)


def analog_rig(layout=LOTUS):
    board = SimulatedBoard(layout, seed=3)
    bank = PinBank()
    pins = AnalogPins(select=(5, 6, 13, 19))
    mux, halls = wire_analog(bank, board, layout, pins.select, None, (), seed=3)
    bus = EmulatedSMBus({0x48: Ads1115(lambda ain: mux.output(ain) if ain < 3 else None)})
    scanner = AnalogScanner(layout, pins, gpio=EmulatedGPIO(bank), bus=bus, clock=board.clock,
                            sleep=lambda s: None)
    return board, scanner, halls


def test_analog_scanner_reads_every_sensor_through_the_multiplexers():
    board, scanner, halls = analog_rig()
    board.put("e4", "white-pawn")
    board.put("c7", ["black-stone"] * 3)
    volts = scanner.read_voltages()
    for i in range(len(LOTUS.spots)):
        if not board.piles[i]:  # an empty spot reads its sensor's quiescent voltage
            assert volts[i] == pytest.approx(halls.offset[i], abs=0.02)
    assert volts[LOTUS.spot_index("e4")] > halls.offset[LOTUS.spot_index("e4")] + 0.3
    assert volts[LOTUS.spot_index("c7")] < halls.offset[LOTUS.spot_index("c7")] - 0.4
    with pytest.raises(SensingError, match="calibration"):
        scanner.scan()


def test_analog_configuration_is_checked():
    with pytest.raises(ValueError, match="S0..S3"):
        AnalogPins(select=(1, 2, 3))
    with pytest.raises(ValueError, match="ADS1115 address"):
        AnalogPins(select=(1, 2, 3, 4), adc_addresses=(0x50,))
    big = as_sensing(SQUARE8, "analog")  # 82 channels: 6 multiplexers, 2 converters
    with pytest.raises(SensingError, match="2 ADS1115s"):
        AnalogScanner(big, AnalogPins(select=(5, 6, 13, 19)), gpio=EmulatedGPIO(PinBank()),
                      bus=EmulatedSMBus({}))
    pins = AnalogPins.from_table({"select": [5, 6, 13, 19], "adc_addresses": [72, 73]})
    assert pins.adc_addresses == (0x48, 0x49)


def test_matrix_with_real_layout_wiring_sees_pads():
    board, scanner = matrix_rig("row", "row")
    board.put("black-hand-N", "black-knight")
    board.put("option-6", "cube")
    assert names(SQUARE8, scanner.scan()) == {"black-hand-N", "option-6"}


def test_switch_matrix_rejects_bad_diode_setting():
    with pytest.raises(ValueError, match="diodes"):
        SwitchMatrix(PinBank(), [1], [2], lambda: [[False]], "both")
