"""What the Pi install gives and what its errors say (issue #16 defects 5 and 9)."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest

from controller.config import Config
from controller.leds.drivers import _require
from controller.leds.palette import LedError

ROOT = Path(__file__).resolve().parent.parent


def test_a_module_missing_under_blinka_is_named_with_its_package(monkeypatch):
    """`import board` failing on gpiod used to say "install fairyboard[pi]" — which the
    owner had done.  The message names gpiod."""
    real = importlib.import_module

    def fake(name, *args):
        if name == "board":
            raise ModuleNotFoundError("No module named 'gpiod'", name="gpiod")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", fake)
    with pytest.raises(LedError, match="module 'board' needs the Python module 'gpiod'.*"
                                       "pip install gpiod") as info:
        _require("board", "adafruit-blinka", "neopixel")
    assert "\n" not in str(info.value)


def test_the_module_itself_missing_names_the_extra(monkeypatch):
    def fake(name, *args):
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr(importlib, "import_module", fake)
    with pytest.raises(LedError, match="needs the Python module 'neopixel'.*fairyboard\\[pi\\]"):
        _require("neopixel", "adafruit-circuitpython-neopixel", "neopixel")


def test_the_pi_extras_bring_what_blinka_loads_underneath():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    names = {e: {r.split(">")[0].split(";")[0].strip() for r in reqs}
             for e, reqs in extras.items()}
    assert {"gpiod", "rpi-ws281x"} <= names["pi"]
    assert "gpiod" in names["pi5"] and "rpi-ws281x" not in names["pi5"]  # no ws281x on a Pi 5


def test_the_default_led_pin_works_as_the_service_user():
    """GPIO18 (PWM) needs root; the service runs as a plain user: SPI MOSI, GPIO10."""
    assert Config().leds.pin == 10


def test_the_pi_guide_installs_what_tests_install_checks():
    """The guide's install lines build and install a plain (non-editable) wheel from the
    source folder with a declared extra — what tests/test_install.py builds, installs
    outside the checkout and plays the computer with; an editable install would hide a
    data file missing from the wheel."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    lines = [line.strip() for line in (ROOT / "docs" / "service.md").read_text().splitlines()
             if "/bin/pip install" in line]
    assert lines
    for line in lines:
        assert " -e " not in line and "--editable" not in line, line
        target = line.split("pip install", 1)[1].split("#")[0].strip().strip('"')
        assert target.startswith("/opt/fairyboard/src["), line
        assert target.removeprefix("/opt/fairyboard/src[").rstrip("]") in extras, line
