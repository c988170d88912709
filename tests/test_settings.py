"""The owner's settings saved to the configuration file (issue #30, deliver 7): the same
validation as the file, only the changed lines change (comments and the rest stay), the
file replaced atomically; a refused change leaves the file byte for byte."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import tomllib
from pathlib import Path

import pytest

from controller.config import ConfigError, config_from_dict, load_config
from controller.settings import OWNER_SETTINGS, SettingsError, describe, save_settings

ROOT = Path(__file__).resolve().parent.parent
FILE = """\
# the board in the living room
[board]
# which game the board starts with
game = "chess"   # the family's favourite
layout = "square8"

[leds]
driver = "simulated"
brightness = 0.5  # bright room

[players]
names = [
  "Ann",
  "Bo",
]

[board.options]
chess960 = false
"""


def _changed_lines(before: str, after: str) -> list[str]:
    return [line for line in difflib.ndiff(before.splitlines(), after.splitlines())
            if line[:1] in "+-"]


def test_a_change_edits_only_its_lines_and_keeps_every_comment(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(FILE)
    config = save_settings(path, {"leds.brightness": 0.2, "board.computer_level": 3,
                                  "board.computer": ["Black"], "board.clock": "5+3"})
    text = path.read_text()
    assert sorted(_changed_lines(FILE, text)) == sorted([
        "- brightness = 0.5  # bright room", "+ brightness = 0.2  # bright room",
        '+ computer_level = 3', '+ computer = ["Black"]', '+ clock = "5+3"'])
    assert "# the family's favourite" in text and "# which game" in text
    assert config.leds.brightness == 0.2 and config.board.computer == ["Black"]
    again = load_config(path)  # what the service reads at its next start
    assert (again.board.computer_level, again.board.clock, again.board.game) == (3, "5+3",
                                                                                "chess")


def test_a_value_over_several_lines_and_a_table_are_replaced(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(FILE)
    save_settings(path, {"players.names": ["Ann", "Carla"],
                         "board.options": {"chess960": True, "array": 7}})
    data = tomllib.loads(path.read_text())
    assert data["players"]["names"] == ["Ann", "Carla"]
    assert data["board"]["options"] == {"chess960": True, "array": 7}
    assert "[board.options]" not in path.read_text() and '"Bo"' not in path.read_text()
    assert data["leds"] == {"driver": "simulated", "brightness": 0.5}


def test_a_missing_file_is_made_and_a_missing_table_added(tmp_path):
    path = tmp_path / "new.toml"
    save_settings(path, {"leds.brightness": 0.1})
    assert tomllib.loads(path.read_text()) == {"leds": {"brightness": 0.1}}
    save_settings(path, {"board.coach": True, "players.names": ["Ann", "Bo"]})
    assert tomllib.loads(path.read_text()) == {"leds": {"brightness": 0.1},
                                               "board": {"coach": True},
                                               "players": {"names": ["Ann", "Bo"]}}


def test_the_shipped_configuration_keeps_all_its_comments(tmp_path):
    path = tmp_path / "config.toml"
    shutil.copy(ROOT / "deploy" / "config.toml", path)
    before = path.read_text()
    save_settings(path, {"leds.brightness": 0.25})
    changed = _changed_lines(before, path.read_text())
    assert len([c for c in changed if c.startswith("+")]) == 1, changed
    assert len([c for c in changed if c.startswith("-")]) <= 1, changed
    assert load_config(path).leds.brightness == 0.25


@pytest.mark.parametrize(("changes", "words"), [
    ({"leds.brightness": 1.5}, "leds.brightness: expected a number from 0 to 1, got 1.5"),
    ({"leds.brightness": "bright"}, "leds.brightness: expected a number"),
    ({"board.clock": "soon"}, "board.clock: time control 'soon'"),
    ({"board.computer_level": 11}, "board.computer_level: expected a number from 1 to 10"),
    ({"board.computer_level": True}, "board.computer_level: expected a whole number"),
    ({"board.on_flag": "cry"}, "board.on_flag: expected one of end, report"),
    ({"board.game": "checkers"}, "board.game: unknown game 'checkers'"),
    ({"board.options": {"chess960": "maybe"}}, "board.options:"),
    ({"board.computer": ["Purple"]}, "board.computer: 'Purple' is not a player"),
    ({"players.names": ["Solo"]}, "players.names: need at least two names"),
    ({"leds.driver": "neopixel"}, "'leds.driver' is not a setting the page may change"),
    ({"web.host": "0.0.0.0"}, "'web.host' is not a setting the page may change"),
    ({"leds.brightness": float("nan")}, "expected a finite number"),
    ({}, "expected {"),
])
def test_a_refused_change_is_one_line_and_the_file_stays(tmp_path, changes, words):
    path = tmp_path / "config.toml"
    path.write_text(FILE)
    os.utime(path, (1_000_000_000, 1_000_000_000))
    with pytest.raises(SettingsError) as info:
        save_settings(path, changes)
    assert words in str(info.value) and "\n" not in str(info.value)
    assert path.read_text() == FILE and path.stat().st_mtime == 1_000_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]


def test_the_validation_is_the_files(tmp_path):
    """The same words as the service gives for the same setting written in the file."""
    path = tmp_path / "config.toml"
    path.write_text(FILE)
    with pytest.raises(SettingsError) as saved:
        save_settings(path, {"leds.brightness": 2})
    with pytest.raises(ConfigError) as loaded:
        config_from_dict({"leds": {"brightness": 2}}, "config.toml")
    assert str(saved.value) == str(loaded.value)


def test_a_failing_rename_leaves_the_old_file_and_no_temporary_one(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    path.write_text(FILE)
    path.chmod(0o640)  # a configuration with a password in it stays private

    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(os, "replace", refuse)
        with pytest.raises(SettingsError, match="cannot save it .*the file is unchanged"):
            save_settings(path, {"leds.brightness": 0.2})
    assert path.read_text() == FILE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]
    save_settings(path, {"leds.brightness": 0.2})
    assert path.stat().st_mode & 0o777 == 0o640


def test_an_unreadable_file_is_one_line(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[board\ngame = 1\n")
    with pytest.raises(SettingsError, match="cannot read it to change it"):
        save_settings(path, {"leds.brightness": 0.2})
    assert path.read_text() == "[board\ngame = 1\n"


def test_the_description_is_json_for_a_page(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(FILE)
    described = describe(load_config(path))
    assert [d["key"] for d in described] == list(OWNER_SETTINGS)
    assert json.loads(json.dumps(described)) == described
    by_key = {d["key"]: d for d in described}
    assert by_key["leds.brightness"] | {} == {
        "key": "leds.brightness", "type": "number", "value": 0.5, "default": 0.3,
        "help": "global brightness 0..1", "min": 0.0, "max": 1.0}
    assert by_key["board.game"]["value"] == "chess" and "chess" in by_key["board.game"][
        "choices"]
    assert by_key["board.on_flag"]["choices"] == ["end", "report"]
    assert by_key["board.computer_level"]["min"] == 1 and by_key["board.computer_level"][
        "max"] == 10
    assert by_key["players.names"]["value"] == ["Ann", "Bo"]
    assert all(d["help"] for d in described if d["key"] != "board.coach_margin"
               and d["key"] != "players.names")
