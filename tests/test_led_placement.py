"""No LED lies under a standing piece (issue 31, Found 7): on lotus39 and kaleido89 the LED
sat 8–10 mm from the centre, under the piece, so "remove this piece" and capture signals
were covered.  The piece base is the kit's (``[kit] piece_base_mm``, printed in the BOM);
the check here is geometry of its own: the LED's 5 mm body against the base's disc, on the
layout, on the printed template and in the wiring table."""

from __future__ import annotations

import csv
import io
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from controller.boardprint import bill_of_materials, board_svg, wiring_csv
from controller.geometry import read_toml
from controller.layout import (
    LED_FOOTPRINT_MM,
    SENSOR_BODY_MM,
    LayoutError,
    load_layout,
    parse_layout,
)

BOARDS = ("square8", "square9", "lotus39", "kaleido89")
ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"


def _square_to_disc(led: tuple[float, float], centre: tuple[float, float]) -> float:
    """Nearest distance from a disc's centre to an axis-aligned LED square."""
    half = LED_FOOTPRINT_MM / 2
    dx = max(abs(led[0] - centre[0]) - half, 0.0)
    dy = max(abs(led[1] - centre[1]) - half, 0.0)
    return math.hypot(dx, dy)


@pytest.mark.parametrize("name", BOARDS)
def test_no_led_lies_under_a_standing_piece(name: str) -> None:
    layout = load_layout(name)
    base = layout.kit["piece_base_mm"]
    covered = [s.name for s in layout.spots
               if _square_to_disc(s.led_mm, s.centre_mm) < base / 2]
    assert not covered, f"{name}: LEDs under a Ø{base} mm piece on {covered}"
    # nor under a piece standing on a neighbouring spot
    under_neighbour = [(s.name, o.name) for s in layout.spots for o in layout.spots
                       if o is not s and _square_to_disc(s.led_mm, o.centre_mm) < base / 2]
    assert not under_neighbour, under_neighbour[:5]
    # and each LED stays clear of its own sensor's body
    bw, bh = SENSOR_BODY_MM[layout.sensor_kind]
    half = LED_FOOTPRINT_MM / 2
    for s in layout.spots:
        apart_x = abs(s.led_mm[0] - s.sensor_mm[0]) >= bw / 2 + half
        apart_y = abs(s.led_mm[1] - s.sensor_mm[1]) >= bh / 2 + half
        assert apart_x or apart_y, f"{name} {s.name}: LED on the sensor's body"


@pytest.mark.parametrize("name", BOARDS)
def test_the_template_and_the_wiring_table_place_the_led_where_the_layout_does(
        name: str) -> None:
    layout = load_layout(name)
    root = ET.fromstring(board_svg(layout, marks=True))
    height = layout.size_mm[1]
    by_led = {s.led: s for s in layout.spots}
    marks = [g for g in root.iter(SVG + "g") if g.get("class") == "led-mark"]
    assert len(marks) == layout.led_count
    base = layout.kit["piece_base_mm"]
    for g in marks:
        spot = by_led[int(g.get("data-led"))]
        rect = g.find(SVG + "rect")
        x = float(rect.get("x")) + LED_FOOTPRINT_MM / 2
        y = height - (float(rect.get("y")) + LED_FOOTPRINT_MM / 2)
        assert _square_to_disc((x, y), spot.centre_mm) >= base / 2 - 0.01, spot.name
    for row in csv.DictReader(io.StringIO(wiring_csv(layout))):
        spot = layout.spot(row["name"])
        led = (float(row["led_x_mm"]), float(row["led_y_mm"]))
        assert _square_to_disc(led, spot.centre_mm) >= base / 2 - 0.01, spot.name


@pytest.mark.parametrize("name", BOARDS)
def test_the_bom_and_the_guide_give_the_piece_base(name: str) -> None:
    layout = load_layout(name)
    base = layout.kit["piece_base_mm"]
    pieces = [line for line in bill_of_materials(layout) if line.item.startswith("Pieces")]
    assert len(pieces) == 1 and f"base Ø{base:g} mm at most" in pieces[0].item
    guide = (ROOT / "hardware" / f"{name}.md").read_text(encoding="utf-8")
    leds = next(line for line in guide.splitlines() if line.startswith("| LEDs |"))
    assert f"Ø{base:g} mm" in leds, leds


def _data(name: str) -> dict:
    return read_toml(ROOT / "boards" / "layouts" / f"{name}.toml", LayoutError)


def test_the_old_lotus39_offset_is_refused_as_under_the_piece() -> None:
    data = _data("lotus39")
    data["leds"] = {k: v for k, v in data["leds"].items() if k != "beside_piece"}
    with pytest.raises(LayoutError, match=r"lies under a Ø24 mm piece"):
        parse_layout(data, Path("lotus39.toml"))


def test_a_piece_too_wide_for_its_cells_leaves_no_room_for_the_led() -> None:
    data = _data("kaleido89")
    data["kit"] = {**data["kit"], "piece_base_mm": 34}
    with pytest.raises(LayoutError, match=re.escape("no room for a 5 mm LED beside a Ø34 mm")):
        parse_layout(data, Path("kaleido89.toml"))


def test_beside_piece_needs_the_piece_base() -> None:
    data = _data("lotus39")
    data["kit"] = {k: v for k, v in data["kit"].items() if k != "piece_base_mm"}
    with pytest.raises(LayoutError, match="needs kit.piece_base_mm"):
        parse_layout(data, Path("lotus39.toml"))
