"""The builders' and players' guides against the data they describe, so they cannot drift:
the command that starts a real board, the Pi's pin map (one home: the board's guide), the
LED colours the guides name, where the gestures are described, a kit's magnet count."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from controller.config import config_from_dict
from controller.layout import load_layout
from controller.leds.palette import Palette
from controller.rules import get_game
from controller.sensing.gpio import MatrixPins

ROOT = Path(__file__).resolve().parent.parent
BOARDS = ("square8", "square9", "kaleido89", "lotus39")
GUIDES = [ROOT / "README.md", *sorted((ROOT / "hardware").glob("*.md")),
          *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "rules").glob("*.md"))]


def toml_blocks(path: Path) -> list[dict]:
    return [tomllib.loads(b) for b in re.findall(r"```toml\n(.*?)```", path.read_text(), re.S)]


def simulated_config(path: Path) -> bool:
    config = config_from_dict(tomllib.loads(path.read_text()), str(path))
    return config.sensing.backend == "simulated"


@pytest.mark.parametrize("board", BOARDS)
def test_the_last_bring_up_step_runs_the_board_with_its_configuration(board):
    text = (ROOT / "hardware" / f"{board}.md").read_text()
    bring_up = text.split("## Bring-up", 1)[1].split("\n## ", 1)[0]
    run = re.findall(r"`(fairyboard run[^`]*)`", bring_up)
    assert run and "--config" in run[-1], run


def test_every_real_board_command_names_a_configuration_that_is_not_the_simulator():
    lines = [(p, line) for p in GUIDES for line in p.read_text().splitlines()
             if "fairyboard run --" in line and "real board" in line]
    assert lines
    for path, line in lines:
        found = re.search(r"fairyboard run --config (\S+)", line)
        assert found, (path.name, line)
        named = ROOT / found.group(1)
        assert not (named.is_file() and simulated_config(named)), (path.name, line)
    for board in ("README.md",):
        text = (ROOT / "hardware" / board).read_text()
        step = re.findall(r"`(fairyboard run [^`]*)`", text)
        assert step and all("--config" in command for command in step), step


def test_the_pi_pin_map_has_one_home_the_boards_guide_and_fits_the_board():
    """docs/service.md once gave square8 another pin map than hardware/square8.md."""
    homes = [p for p in GUIDES if re.search(r"^(row|column|select)_pins = \[", p.read_text(), re.M)]
    assert homes and all(p.parent.name == "hardware" and p.stem in BOARDS for p in homes), homes
    for path in homes:
        layout = load_layout(path.stem)
        for block in toml_blocks(path):
            s = block.get("sensing", {})
            if s.get("backend") != "gpio-matrix":
                continue
            pins = MatrixPins.from_table({"rows": s["row_pins"], "columns": s["column_pins"]},
                                         layout)
            assert len(pins.rows) == layout.matrix_rows
            assert len(pins.columns) == layout.matrix_columns
            used = set(pins.rows + pins.columns)
            assert used <= set(range(2, 28)), used
            if block.get("leds", {}).get("driver") == "neopixel-spi":
                assert not used & {7, 8, 9, 10, 11}, "the SPI0 pins drive the LEDs"


def _colour_word(role: str) -> str:
    """The palette's own name for a role's colour (its field comment: "— magenta, …")."""
    source = (ROOT / "controller" / "leds" / "palette.py").read_text()
    found = re.search(rf"^\s+{role}: RGB = .*#:.*— (\w+)", source, re.M)
    assert found, role
    return found.group(1)


def test_the_guides_name_the_extra_piece_colour_the_leds_show():
    assert Palette().extra == (255, 0, 190)  # (the word below is this colour's)
    extra, missing = _colour_word("extra"), _colour_word("missing")
    assert (extra, missing) == ("magenta", "red")
    said = 0
    for path in GUIDES:
        for part in re.split(r"\n\s*\n|\n\|", path.read_text()):
            sentence = part.replace("\n", " ")
            if re.search(r"\bred\b.*missing", sentence) and re.search(r"extra|too many",
                                                                          sentence):
                words = re.findall(r"\b(blue|magenta|green|amber|teal|purple|violet)\b", sentence)
                said += 1
                assert words and set(words) == {extra}, (path.name, sentence)
    assert said >= 2


def test_the_guides_point_at_the_gestures_where_they_are():
    for path in GUIDES:
        text = path.read_text()
        assert "project's README" not in text, path.name
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (path.parent / target).exists(), (path.name, target)
    assert "## Every gesture" in (ROOT / "docs" / "board.md").read_text()


def test_the_kaleido89_kit_has_a_magnet_for_every_piece_of_every_set_up():
    """Two players have 18 pieces each, three or four players 10 each: the kit needs 18
    White and Black, 10 Red and Green, the die, and the spares."""
    most: dict[str, int] = {}
    for players in (2, 3, 4):
        game = get_game("kaleidochess", players=players)
        placed = re.findall(r"=(\w)", game.position_text(game.start()).split()[0])
        for colour in set(placed):
            most[colour] = max(most.get(colour, 0), placed.count(colour))
    pieces = sum(most.values())
    assert most == {"w": 18, "b": 18, "r": 10, "g": 10}
    magnets = load_layout("kaleido89").kit["magnets"]
    assert pieces + 1 <= magnets <= pieces + 8  # the die; a few spares, not a player's set
    guide = (ROOT / "hardware" / "kaleido89.md").read_text().replace("\n", " ")
    assert f"{magnets} magnets" in guide and f"{pieces} pieces" in guide


def test_adding_a_game_says_how_its_words_reach_every_language():
    """A product game's title and names are catalogue messages: the recipe says to extract
    and translate them (the suite fails until every catalogue has them)."""
    from controller.i18n.messages import game_texts
    from controller.rules import GAME_CLASSES

    recipe = (ROOT / "docs" / "adding-a-game.md").read_text()
    assert "scripts/i18n extract" in recipe and "scripts/i18n check" in recipe
    assert {cls.title for cls in GAME_CLASSES if cls.__module__.startswith("controller.")} \
        <= game_texts()
