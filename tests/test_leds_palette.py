"""The palette and settings: TOML configuration, validation, the power model and the
colour-vision claims of the default colour language."""

from __future__ import annotations

import itertools
import tomllib

import pytest

from controller.leds import LedError, LedSettings, Palette, colour_difference, current_ma
from controller.leds.palette import parse_colour
from controller.leds.scene import FAST, SLOW, SceneRenderer

CONFIG = """
[leds]
driver = "neopixel"
pin = "D18"
brightness = 0.4
dark_square_level = 0.8
dark_level = 0.05
budget_ma = 1500
max_fps = 25

[leds.palette]
target = [0, 120, 255]
origin = "#FFA000"
options = [[1, 2, 3], "#040506"]
owner_level = 0.1

[leds.palette.players]
Black = [0, 0, 255]
"""


def test_from_toml():
    data = tomllib.loads(CONFIG)["leds"]
    s = LedSettings.from_config(data)
    assert (s.brightness, s.dark_square_level, s.dark_level, s.budget_ma, s.max_fps) == \
        (0.4, 0.8, 0.05, 1500, 25)
    p = Palette.from_config(data["palette"])
    assert p.target == (0, 120, 255) and p.origin == (255, 160, 0)
    assert p.options == ((1, 2, 3), (4, 5, 6)) and p.owner_level == 0.1
    assert p.player(1) == (0, 0, 255) and p.player(0) == (255, 200, 130)
    assert Palette.from_config(None) == Palette()
    assert LedSettings.from_config({"budget_ma": "off"}).budget_ma is None


def test_flat_palette_names():
    """A plain name = [r, g, b] table (the service's form) reaches every colour."""
    p = Palette.from_config({"option2": [1, 1, 1], "option7": [2, 2, 2],
                             "player_black": [3, 3, 3], "player_blue": "#000004"})
    assert p.options[1] == (1, 1, 1) and p.options[6] == (2, 2, 2) and len(p.options) == 7
    assert p.player(1) == (3, 3, 3)
    assert p.for_players(("White", "Blue")).player(1) == (0, 0, 4)
    with pytest.raises(LedError, match="options are numbered 1..7"):
        Palette.from_config({"option9": [0, 0, 0]})


@pytest.mark.parametrize("value,message", [
    ([0, 0], "expected \\[r, g, b\\]"), ([0, 0, 256], "0..255"), ("#12345", "expected"),
    ("#gg0000", "expected"), ([True, 0, 0], "expected"), (None, "expected"),
])
def test_bad_colours_are_named(value, message):
    with pytest.raises(LedError, match=message):
        parse_colour(value, "leds.palette.target")
    with pytest.raises(LedError, match="leds.palette.target"):
        Palette.from_config({"target": value})


def test_bad_palette_and_settings():
    with pytest.raises(LedError, match="unknown name 'targte'"):
        Palette.from_config({"targte": [0, 0, 0]})
    with pytest.raises(LedError, match="non-empty list"):
        Palette.from_config({"options": []})
    with pytest.raises(LedError, match="owner_level must be between 0 and 1"):
        Palette(owner_level=2)
    with pytest.raises(LedError, match="brightness must be between 0 and 1"):
        LedSettings(brightness=1.5)
    with pytest.raises(LedError, match="budget_ma must be a positive number"):
        LedSettings(budget_ma=-1)
    with pytest.raises(LedError, match="max_fps"):
        LedSettings(max_fps=0)


def test_power_model():
    s = LedSettings()
    # 20 mA per channel at 255, 1 mA idle per LED
    assert current_ma([(255, 255, 255)], s) == pytest.approx(61)
    assert current_ma([(0, 0, 0)] * 64, s) == pytest.approx(64)
    assert current_ma([(255, 0, 0), (0, 51, 0)], s) == pytest.approx(20 + 4 + 2)
    assert s.idle_current(82) == 82


def test_swatches_cover_every_role():
    names = [n for n, _ in Palette().swatches()]
    assert names[:3] == ["target", "origin", "last_move"]
    assert "option 6" in names and "player Green" in names


# --- colour vision -------------------------------------------------------------------

COMMON = ("normal", "protan", "deutan")  # about 8 % of men have a protan/deutan defect
#: colours that appear together and are told apart by colour alone (same blink pattern)
SAME_PATTERN_PAIRS = [
    ("origin", "target"), ("target", "last_move"), ("origin", "last_move"),
    ("execute", "last_move"), ("execute", "target"), ("missing", "origin"),
    ("missing", "target"), ("enemy", "target"), ("enemy", "origin"), ("visible", "target"),
    ("check", "target"), ("check", "origin"), ("active", "origin"),
]


@pytest.mark.parametrize("a,b", SAME_PATTERN_PAIRS)
def test_default_colours_differ_for_common_colour_blindness(a, b):
    p = Palette()
    for vision in COMMON:
        assert colour_difference(getattr(p, a), getattr(p, b), vision) >= 30, (a, b, vision)


def test_pairs_that_colour_cannot_separate_differ_by_pattern():
    """Magenta (take off) and blue (target) look alike to protanopes and deuteranopes:
    take-off markers blink, targets never do."""
    from controller.interaction import Interaction
    from controller.layout import load_layout

    p = Palette()
    assert colour_difference(p.extra, p.target, "deutan") < 30  # the reason for this test
    layout = load_layout("square8")
    frame = SceneRenderer(layout).render(Interaction(
        extra=frozenset({0}), to_remove=frozenset({1}), targets=frozenset({2, 3}),
        missing=frozenset({4})))
    led = [layout.spots[s].led for s in range(5)]
    assert [frame.blinks[i] for i in led] == [SLOW, SLOW, None, None, None]
    guided = SceneRenderer(layout).render(Interaction(extra=frozenset({0}), guide=0))
    assert guided.blinks[led[0]] == FAST


def test_first_option_slots_are_distinct():
    p = Palette()
    for i, j in itertools.combinations(range(4), 2):
        for vision in COMMON:
            assert colour_difference(p.options[i], p.options[j], vision) >= 30, (i, j, vision)


def test_colour_difference_basics():
    assert colour_difference((10, 20, 30), (10, 20, 30), "deutan") == 0
    # red and green, the classic confusion, collapse for deuteranopes
    assert colour_difference((255, 0, 0), (0, 160, 0), "normal") > 80
    assert colour_difference((255, 0, 0), (0, 160, 0), "deutan") < 40
    with pytest.raises(LedError, match="unknown vision"):
        colour_difference((0, 0, 0), (1, 1, 1), "mono")


def test_renderer_checks_the_budget_at_start():
    from controller.layout import load_layout

    with pytest.raises(LedError, match="below the idle draw"):
        SceneRenderer(load_layout("lotus39"), settings=LedSettings(budget_ma=40))
