"""fairyboard selftest / calibrate on the simulated board, and the settings they read."""

from __future__ import annotations

import json

import pytest

from controller.bringup import run_calibration, run_self_test
from controller.cli import main
from controller.config import Config, ConfigError, config_from_dict


def test_selftest_on_the_simulated_board_finds_no_fault():
    lines: list[str] = []
    report = run_self_test(Config(), say=lines.append)
    assert report.ok, report.text()
    assert report.leds_walked == 82 and report.checked == 82
    assert lines[0].startswith("Self-test of square8") and lines[-1].endswith("all good")


def test_selftest_reports_ghosting_on_a_matrix_without_diodes():
    config = Config()
    config.sensing.simulate_diodes = False
    report = run_self_test(config, say=lambda text: None)
    assert not report.ok and report.ghosting


def test_selftest_cli_exit_status(capsys):
    assert main(["selftest"]) == 0
    assert "all good" in capsys.readouterr().out


def test_calibration_of_the_lotus_board(tmp_path):
    config = Config()
    config.board.layout, config.board.game = "lotus39", "lotus39"
    config.sensing.calibration = str(tmp_path / "cal-{layout}.json")
    calibration, path = run_calibration(config, say=lambda text: None)
    assert path == tmp_path / "cal-lotus39.json"
    data = json.loads(path.read_text())
    assert data["layout"] == "lotus39" and len(calibration.spots) == 39 + 8


def test_calibrate_refuses_a_digital_board(capsys):
    assert main(["calibrate", "--layout", "square8"]) == 2
    assert "only linear hall boards are calibrated" in capsys.readouterr().err


@pytest.mark.parametrize("data,message", [
    ({"sensing": {"backend": "gpio-analog"}}, "sensing.select_pins needs the four"),
    ({"sensing": {"adc_addresses": [0x50]}}, "0x50 is not an ADS1115 address"),
    ({"board": {"answer_on": "voice"}}, "board.answer_on: expected one of auto"),
    ({"board": {"takeback_delay_s": -1}}, "board.takeback_delay_s"),
])
def test_new_settings_are_validated(data, message):
    with pytest.raises(ConfigError, match=message):
        config_from_dict(data, "board.toml")
