"""Back ends chosen by name and configured as documented (issue #14 item 4, #16 defects 8
and 12): the registries' vocabulary is the configuration's, the ``[sensing.*]`` tables of
docs/sensing.md are read, ``fairyboard selftest`` without its microcontroller says so in
one line, and rpi-lgpio started in a folder it cannot write is moved to one it can."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.cli import main
from controller.config import CHOICES, Config, ConfigError, config_from_dict, load_config
from controller.layout import load_layout
from controller.leds.drivers import LED_DRIVER_NAMES
from controller.sensing.backends import (
    SENSING_BACKENDS,
    SIMULATED_CIRCUITS,
    matrix_pins,
    open_sensing,
    shift_register_pins,
    simulated_circuit,
)
from controller.sensing.frame import SensingError
from controller.sensing.gpio import load_rpi_gpio
from controller.sensing.kinds import SENSING_KINDS, sensing_kind
from controller.sensing.sim import BACKENDS, SimulatedBoard, SimulatedMCU

SQUARE8 = load_layout("square8")


def test_one_vocabulary_of_back_end_names():
    assert CHOICES["sensing.backend"] == tuple(SENSING_BACKENDS)
    assert CHOICES["leds.driver"] == LED_DRIVER_NAMES
    assert tuple(SIMULATED_CIRCUITS) == BACKENDS
    for name, circuit in SIMULATED_CIRCUITS.items():
        assert circuit.backend in SENSING_BACKENDS, name
        assert circuit.sensing in SENSING_KINDS, name
    settings = Config().sensing
    chosen = {kind: simulated_circuit(settings, type("L", (), {"sensing": kind})())
              for kind in SENSING_KINDS}
    assert chosen == {"matrix": "gpio-matrix", "shift-register": "gpio-shift-spi",
                      "analog": "gpio-analog"}
    settings.simulated_link = True
    assert simulated_circuit(settings, SQUARE8) == "mcu-matrix"


def test_each_sensing_kind_addresses_every_spot_of_its_layouts():
    for name in ("square8", "square9", "lotus39"):
        layout = load_layout(name)
        kind = sensing_kind(layout)
        addresses = [kind.address(layout, s.sensor) for s in layout.spots]
        assert len(set(addresses)) == len(addresses)
        assert all(0 <= a < kind.address_count(layout) for a in addresses)
    with pytest.raises(ValueError, match="unknown sensing 'optical'"):
        sensing_kind("optical")


def test_sensing_tables_of_the_docs_are_read(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        '[sensing]\nbackend = "gpio-matrix"\n\n'
        "[sensing.matrix]\n"
        "rows = [4, 5, 6, 12, 13, 16, 17, 18, 19, 20, 21]\n"
        "columns = [22, 23, 24, 25, 26, 27, 14, 15]\n"
        'diodes = "column"\nsettle_us = 5.0\n\n'
        "[sensing.serial]\n"
        'port = "/dev/serial/by-id/usb-Raspberry_Pi_Pico_E6614103E7441D2B-if02"\n')
    config = load_config(path)
    pins = matrix_pins(config.sensing, SQUARE8)
    assert pins.rows[0] == 4 and pins.columns[-1] == 15
    assert (pins.diodes, pins.settle_us) == ("column", 5.0)
    shift = shift_register_pins(config_from_dict(
        {"sensing": {"shift_register": {"load": 8, "clock": 7, "data": 6}}}).sensing)
    assert (shift.load, shift.clock, shift.data, shift.spi_bus) == (8, 7, 6, None)


@pytest.mark.parametrize("table, message", [
    ({"matrix": {"diodes": "sideways"}}, "sensing.matrix: diodes must be"),
    ({"serial": {"speed": 9600}}, "sensing.serial: serial: unknown keys"),
    ({"analog": {"select": [1, 2, 3, 4], "gain": 2}}, "sensing.analog"),
])
def test_bad_sensing_tables_are_refused_in_one_line(table, message):
    with pytest.raises(ConfigError, match=message):
        config_from_dict({"sensing": table}, "config.toml")


def test_the_serial_port_of_its_table_is_used(tmp_path):
    board = SimulatedBoard(SQUARE8, seed=1)
    mcu = SimulatedMCU(board, SQUARE8, tmp_path / "by-id")
    config = config_from_dict({"sensing": {"backend": "serial", "port": "/nowhere",
                                           "serial": {"port": mcu.path}}})
    sensing = open_sensing(config, SQUARE8, lambda frame: False)
    try:
        for _ in range(200):
            board.advance(0.002)
            sensing.pipeline.update()
            if sensing.link.connected:
                break
        assert sensing.link.connected and sensing.link.path == mcu.path
    finally:
        sensing.close()
        mcu.close()


def test_selftest_without_the_microcontroller_says_so_in_one_line(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text(f'[sensing]\nbackend = "serial"\nport = "{tmp_path / "no-pico"}"\n')

    assert main(["selftest", "--config", str(path)]) != 0
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and "no microcontroller found" in lines[0], out.err
    # (asking the builder anything would have read the captured stdin: another error)
    assert "Traceback" not in out.err and "Take every piece off" not in out.out


def test_lgpio_in_a_folder_it_cannot_write_is_moved_to_one_it_can(tmp_path, monkeypatch):
    read_only = tmp_path / "root"
    read_only.mkdir()
    monkeypatch.chdir(read_only)
    gpio = object()

    def importer(name: str):
        assert name == "RPi.GPIO"
        if Path.cwd() == read_only:  # lgpio's notification pipe in the working directory
            raise FileNotFoundError(2, "No such file or directory", ".lgd-nfy0")
        return gpio

    assert load_rpi_gpio(importer) is gpio
    assert Path.cwd() != read_only and os.access(Path.cwd(), os.W_OK)


def test_lgpio_that_cannot_start_anywhere_gives_one_line(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)

    def importer(name: str):
        raise FileNotFoundError(2, "No such file or directory", ".lgd-nfy0")

    with pytest.raises(SensingError, match="needs a writable working directory") as error:
        load_rpi_gpio(importer)
    assert "\n" not in str(error.value)


def test_the_sensing_kinds_are_named_in_one_place() -> None:
    """The layout's kinds are the sensing kinds' own names; the link protocol numbers the
    same names (its order is the wire's)."""
    from controller import layout
    from controller.sensing import protocol
    from controller.sensing.kinds import SENSING_KINDS

    assert tuple(SENSING_KINDS) == layout.SENSINGS
    assert set(protocol.SENSINGS) - {""} == set(SENSING_KINDS)
