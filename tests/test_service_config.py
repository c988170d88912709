"""``fairyboard run`` with a bad configuration fails at start: one line, exit status 2."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from controller.cli import main as cli_main
from controller.config import Config, load_config

CASES = [
    ("[board]\nlayout = 'square8'\ngame = 'luotuoqi'\ncolour = 'red'\n",
     "unknown setting board.colour"),
    ("[boards]\nlayout = 'square8'\n", "unknown section [boards]"),
    ("[leds]\nbrightness = 3\n", "leds.brightness"),
    ("[web]\nport = 'eighty'\n", "web.port: expected a whole number"),
    ("[sensing]\nbackend = 'telepathy'\n", "sensing.backend: expected one of"),
    ("[sensing]\nbackend = 'gpio-matrix'\n", "sensing.row_pins and sensing.column_pins"),
    ("[board]\nlayout = 'chessboard'\n", "no board layout 'chessboard'"),
    ("[board]\ngame = 'checkers'\n", "unknown game 'checkers'"),
    ("[board]\nlayout = 'square8'\ngame = 'kaleidochess'\n",
     "layout square8 is not made for kaleidochess"),
    ("[board]\noptions = { castling = 'chess480' }\n", "no option 'castling'"),
    ("[leds.palette]\ntarget = [0, 0, 999]\n", "leds.palette.target"),
    ("[log]\nlevel = 'chatty'\n", "log.level: expected one of"),
    ("[leds]\ndriver = 'serial'\n", "needs sensing.backend = \"serial\""),
    ("[sensing]\nbackend = 'gpio-shift-register'\n", "wired as matrix"),
    ("this is = = not toml\n", "not valid TOML"),
    ("[sensing]\ncalibration = '{0}'\n", "sensing.calibration: '{0}' may use only {layout}"),
    ("[board]\nlayout = 'kaleido89'\ngame = 'kaleidochess'\noptions = {players = [3]}\n",
     "players must be one of 2, 3, 4, got [3]"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_bad_configuration_is_one_line_and_exit_2(tmp_path, capsys, text, expected):
    path = tmp_path / "config.toml"
    path.write_text(f"[journal]\npath = '{tmp_path / 'journal'}'\n" + text
                    if not text.startswith("[journal]") else text)
    status = cli_main(["run", "--config", str(path)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("fairyboard: error: "), err
    assert expected in err, err


def test_missing_configuration_file(tmp_path, capsys):
    assert cli_main(["run", "--config", str(tmp_path / "nope.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "configuration file not found" in err


def test_command_line_overrides_are_checked_too(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text(f"[journal]\npath = '{tmp_path / 'journal'}'\n")
    assert cli_main(["run", "--config", str(path), "--layout", "lotus39"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "layout lotus39 is not made for luotuoqi" in err
    assert cli_main(["run", "--config", str(path), "--web-port", "70000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "web.port" in err


def test_unwritable_journal_folder(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    path = tmp_path / "config.toml"
    path.write_text(f"[journal]\npath = '{blocker / 'games'}'\n")
    assert cli_main(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "games" in err


DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def test_example_configuration_documents_every_setting_with_its_default():
    text = (DEPLOY / "config.toml").read_text()
    assert load_config(DEPLOY / "config.toml") == Config()
    tables = {line.strip() for line in text.splitlines() if line.startswith("[")}
    for section in dataclasses.fields(Config):
        assert f"[{section.name}]" in tables
        for setting in dataclasses.fields(section.type if isinstance(section.type, type)
                                          else getattr(Config(), section.name)):
            if setting.name == "palette":
                assert "[leds.palette]" in tables
                continue
            assert re.search(rf"^{setting.name} = ", text, re.M), setting.name


def test_systemd_unit():
    unit = (DEPLOY / "fairyboard.service").read_text()
    settings = dict(line.split("=", 1) for line in unit.splitlines()
                    if "=" in line and not line.startswith("#"))
    assert settings["User"] == "fairyboard"
    assert set(settings["SupplementaryGroups"].split()) == {"gpio", "spi", "i2c", "dialout"}
    assert settings["Restart"] == "on-failure"
    assert settings["RestartPreventExitStatus"] == "2"  # a bad configuration: no loop
    assert settings["StandardError"] == "journal"
    assert settings["KillSignal"] == "SIGTERM"
    assert settings["ExecStart"].endswith("fairyboard run --config /etc/fairyboard/config.toml")


def test_busy_web_port_is_a_start_up_error(tmp_path, capsys):
    import socket

    path = tmp_path / "config.toml"
    path.write_text(f"[journal]\npath = '{tmp_path / 'journal'}'\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert cli_main(["run", "--config", str(path), "--web-port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err == f"fairyboard: error: web: cannot listen on 127.0.0.1:{port}: " \
                  "Address already in use\n"
