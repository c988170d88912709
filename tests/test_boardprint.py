"""Printable board files: 1:1 SVGs with the right size and marks, tiled PDFs with the right
pages, wiring tables that match the layout, a bill of materials with its arithmetic, PNGs."""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image

from controller.boardprint import (
    CASTLE,
    OVERLAP_MM,
    PAGE_MARGIN_MM,
    PAPERS,
    bill_of_materials,
    gpio_needed,
    page_plan,
    page_svg,
    power_budget,
    print_board,
    sensor_grid,
)
from controller.cli import main
from controller.layout import load_layout

SVG = "{http://www.w3.org/2000/svg}"
SHIPPED = ("square8", "square9", "kaleido89", "lotus39")
MM_TO_PT = 72 / 25.4


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Path]]:
    """Every shipped layout printed once (A4) into a temporary folder."""
    out: dict[str, dict[str, Path]] = {}
    for name in SHIPPED:
        folder = tmp_path_factory.mktemp(name)
        paths = print_board(name, folder)
        assert all(p.parent == folder and p.exists() and p.stat().st_size > 0 for p in paths)
        out[name] = {p.name.removeprefix(f"{name}-"): p for p in paths}
    return out


def _svg(path: Path) -> ET.Element:
    return ET.parse(path).getroot()


def _class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(SVG + tag) if e.get("class") == cls]


def _pdf_pages(path: Path) -> list[tuple[float, float]]:
    data = path.read_bytes()
    assert data.startswith(b"%PDF-")
    pages = re.findall(rb"/Type\s*/Page\b(?!s)", data)
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    assert len(boxes) == len(pages)
    return [(float(w), float(h)) for w, h in boxes]


def test_all_files_written(printed: dict[str, dict[str, Path]]) -> None:
    for files in printed.values():
        assert sorted(files) == sorted([
            "surface.svg", "surface.pdf", "surface.png", "template.svg", "template.pdf",
            "template.png", "wiring.svg", "wiring.png", "wiring.csv", "wiring.md", "bom.md",
            "bom.csv"])


@pytest.mark.parametrize("name", SHIPPED)
def test_template_svg_is_one_to_one_with_every_mark(
        name: str, printed: dict[str, dict[str, Path]]) -> None:
    layout = load_layout(name)
    w, h = layout.size_mm
    root = _svg(printed[name]["template.svg"])
    assert root.get("width") == f"{w:g}mm" and root.get("height") == f"{h:g}mm"
    assert root.get("viewBox") == f"0 0 {w:g} {h:g}"
    assert len(_class(root, "path", "cell")) == layout.cell_count
    assert len(_class(root, "g", "pad")) == len(layout.pad_spots)
    sensors = _class(root, "g", "sensor-mark")
    leds = _class(root, "g", "led-mark")
    assert len(sensors) == len(layout.spots)
    assert sorted(int(e.get("data-led")) for e in leds) == list(range(layout.led_count))
    # every sensor mark is drawn where the layout puts the sensor (y flipped)
    for mark in sensors:
        spot = layout.spot(mark.get("data-spot"))
        body = mark.find(SVG + "rect")
        cx = float(body.get("x")) + float(body.get("width")) / 2
        cy = float(body.get("y")) + float(body.get("height")) / 2
        assert (cx, cy) == pytest.approx((spot.sensor_mm[0], h - spot.sensor_mm[1]), abs=0.01)
    for mark in leds:
        spot = layout.spots[layout.led_spots()[int(mark.get("data-led"))]]
        body = mark.find(SVG + "rect")
        cx = float(body.get("x")) + float(body.get("width")) / 2
        cy = float(body.get("y")) + float(body.get("height")) / 2
        assert (cx, cy) == pytest.approx((spot.led_mm[0], h - spot.led_mm[1]), abs=0.01)
    names = {e.text for e in _class(root, "text", "cell-name")}
    assert names == set(layout.geometry.cells)


@pytest.mark.parametrize("name", SHIPPED)
def test_surface_svg_has_no_marks(name: str, printed: dict[str, dict[str, Path]]) -> None:
    layout = load_layout(name)
    root = _svg(printed[name]["surface.svg"])
    assert len(_class(root, "path", "cell")) == layout.cell_count
    assert len(_class(root, "g", "pad")) == len(layout.pad_spots)
    assert not _class(root, "g", "sensor-mark") and not _class(root, "g", "led-mark")


def test_board_features_drawn(printed: dict[str, dict[str, Path]]) -> None:
    assert len(_class(_svg(printed["square9"]["surface.svg"]), "path", "river")) == 2
    assert not _class(_svg(printed["square8"]["surface.svg"]), "path", "river")
    cells = _class(_svg(printed["kaleido89"]["surface.svg"]), "path", "cell")
    castles = {e.get("id") for e in cells if e.get("fill") == CASTLE}
    assert castles == {"cell-00", "cell-1J", "cell-3J", "cell-5J", "cell-7J"}
    texts = [e.text for e in _svg(printed["lotus39"]["surface.svg"]).iter(SVG + "text")]
    assert "White's home" in texts and "Black's home" in texts
    lotus = {e.get("id"): len(e.get("d").split("L")) for e in
             _class(_svg(printed["lotus39"]["surface.svg"]), "path", "cell")}
    assert lotus["cell-e2"] == 6 and lotus["cell-c7"] == 3 and lotus["cell-d7"] == 4


@pytest.mark.parametrize("name", SHIPPED)
def test_tiled_pdf_pages(name: str, printed: dict[str, dict[str, Path]]) -> None:
    layout = load_layout(name)
    page, tiles = page_plan(layout.size_mm, "A4")
    pages = _pdf_pages(printed[name]["template.pdf"])
    assert len(pages) == len(tiles) > 1  # every shipped board is larger than A4
    assert _pdf_pages(printed[name]["surface.pdf"]) == pages
    w_pt, h_pt = page[0] * MM_TO_PT, page[1] * MM_TO_PT
    assert all(p == pytest.approx((w_pt, h_pt), abs=0.01) for p in pages)
    assert sorted((round(w_pt), round(h_pt))) == [595, 842]  # A4, either orientation


def test_square8_needs_six_a4_pages_and_letter_works(tmp_path: Path) -> None:
    layout = load_layout("square8")
    # 410 × 440 mm on 190 × 277 mm printable, 20 mm overlap: 3 × 2 either way
    page, tiles = page_plan(layout.size_mm, "A4")
    assert page == PAPERS["A4"] and len(tiles) == 6
    assert {(t.rows, t.columns) for t in tiles} == {(2, 3)}
    page, tiles = page_plan(layout.size_mm, "Letter")
    assert len(tiles) == 6
    printed = print_board("square8", tmp_path, paper="Letter")
    pdf = next(p for p in printed if p.name == "square8-template.pdf")
    pages = _pdf_pages(pdf)
    assert len(pages) == 6
    assert sorted(map(round, pages[0])) == [612, 792]  # 8.5 × 11 in


def test_small_board_fits_one_page() -> None:
    page, tiles = page_plan((150.0, 150.0), "A4")
    assert len(tiles) == 1 and page == PAPERS["A4"]
    # centred: the board's middle is the printable area's middle
    t = tiles[0]
    assert t.x == pytest.approx((150 - (page[0] - 2 * PAGE_MARGIN_MM)) / 2)
    # a wide board goes landscape when that takes fewer pages
    page, tiles = page_plan((270.0, 150.0), "A4")
    assert page == (297.0, 210.0) and len(tiles) == 1


@pytest.mark.parametrize("name", SHIPPED)
def test_tiles_cover_the_board_with_overlap(name: str) -> None:
    layout = load_layout(name)
    page, tiles = page_plan(layout.size_mm, "A4")
    uw, uh = page[0] - 2 * PAGE_MARGIN_MM, page[1] - 2 * PAGE_MARGIN_MM
    w, h = layout.size_mm
    for gx in range(0, int(w) + 1, 5):
        for gy in range(0, int(h) + 1, 5):
            assert any(t.x <= gx <= t.x + uw and t.y <= gy <= t.y + uh for t in tiles), \
                (gx, gy)
    by_place = {(t.row, t.column): t for t in tiles}
    for (r, c), t in by_place.items():
        if (r, c + 1) in by_place:
            assert t.x + uw - by_place[r, c + 1].x == pytest.approx(OVERLAP_MM)
        if (r + 1, c) in by_place:
            assert t.y + uh - by_place[r + 1, c].y == pytest.approx(OVERLAP_MM)


def test_registration_crosses_shared_by_neighbours() -> None:
    layout = load_layout("square8")
    page, tiles = page_plan(layout.size_mm, "A4")
    m = PAGE_MARGIN_MM

    def crosses(tile_index: int) -> set[tuple[float, float]]:
        """Cross centres in board SVG coordinates that fall inside the printable area."""
        tile = tiles[tile_index]
        root = ET.fromstring(page_svg(layout, tile, page, marks=True))
        assert root.get("width") == f"{page[0]:g}mm"
        out = set()
        for g in _class(root, "g", "registration"):
            c = g.find(SVG + "circle")
            x, y = float(c.get("cx")), float(c.get("cy"))
            if m <= x <= page[0] - m and m <= y <= page[1] - m:
                out.add((round(x - m + tile.x, 2), round(y - m + tile.y, 2)))
        return out

    a1, a2, b1 = crosses(0), crosses(1), crosses(3)
    # crosses on the cut lines in the middle of the overlap strips, seen on both pages
    cut_x = round(page[0] - 2 * m - OVERLAP_MM / 2, 2)
    cut_y = round(page[1] - 2 * m - OVERLAP_MM / 2, 2)
    assert len({(x, y) for x, y in a1 & a2 if x == cut_x}) >= 3
    assert len({(x, y) for x, y in a1 & b1 if y == cut_y}) >= 2
    # and none of a page's crosses is missing from the neighbour it must be matched with
    assert {(x, y) for x, y in a1 if x == cut_x} == {(x, y) for x, y in a2 if x == cut_x}


@pytest.mark.parametrize("name", SHIPPED)
def test_pngs_rendered(name: str, printed: dict[str, dict[str, Path]]) -> None:
    layout = load_layout(name)
    for kind in ("surface", "template"):
        with Image.open(printed[name][f"{kind}.png"]) as img:
            assert img.format == "PNG"
            assert img.size[0] == round(layout.size_mm[0] * 2)
            assert img.size[1] == pytest.approx(layout.size_mm[1] * 2, abs=2)
            # not blank: the cells are coloured
            assert len(img.convert("RGB").getcolors(1 << 20)) > 10
    with Image.open(printed[name]["wiring.png"]) as img:
        assert img.format == "PNG" and img.size[0] > layout.size_mm[0] * 2


@pytest.mark.parametrize("name", SHIPPED)
def test_wiring_csv_matches_layout(name: str, printed: dict[str, dict[str, Path]]) -> None:
    layout = load_layout(name)
    rows = list(csv.DictReader(io.StringIO(printed[name]["wiring.csv"].read_text())))
    assert len(rows) == len(layout.spots)
    assert sorted(int(r["led"]) for r in rows) == list(range(layout.led_count))
    for row, spot in zip(rows, layout.spots, strict=True):
        assert row["name"] == spot.name and int(row["led"]) == spot.led
        w = spot.sensor
        got = tuple(None if row[k] == "" else int(row[k])
                    for k in ("row", "column", "chain_bit", "channel"))
        assert got == (w.row, w.column, w.chain, w.channel)
    md = printed[name]["wiring.md"].read_text()
    assert md.count("\n| ") >= len(layout.spots)
    assert f"{layout.led_count} WS2812B" in md


@pytest.mark.parametrize("name", SHIPPED)
def test_wiring_svg(name: str, printed: dict[str, dict[str, Path]]) -> None:
    layout = load_layout(name)
    root = _svg(printed[name]["wiring.svg"])
    assert len(_class(root, "g", "spot-wiring")) == len(layout.spots)
    row_labels, col_labels, grid = sensor_grid(layout)
    assert len(_class(root, "rect", "sensor-input")) == len(row_labels) * len(col_labels)
    assert sum(i >= 0 for row in grid for i in row) == len(layout.spots)
    chain = _class(root, "polyline", "led-chain")
    assert len(chain) == 1 and len(chain[0].get("points").split()) == layout.led_count


def test_sensor_grids() -> None:
    rows, cols, grid = sensor_grid(load_layout("square9"))
    assert len(rows) == 11 and cols == list("HGFEDCBA")
    assert grid[0][0] == 0 and grid[10][7] == -1  # a1 on bit 0, bit 87 spare
    rows, cols, grid = sensor_grid(load_layout("lotus39"))
    assert len(rows) == 3 and len(cols) == 16 and grid[2][15] == -1


def test_power_budget_arithmetic(printed: dict[str, dict[str, Path]]) -> None:
    b = power_budget(load_layout("square8"))
    assert b.leds == 82
    assert b.full_white_a == pytest.approx(4.92)
    assert b.led_a == pytest.approx(1.23)
    # reeds draw nothing: the Pico 60 mA, two row pull-up networks 2 × 5.6 mA, the level
    # shifter 0.04 mA and the bleeder 5 mA (boards/parts.toml)
    assert b.electronics_a == pytest.approx(0.07624)
    assert b.load_a == pytest.approx(1.30624)
    assert b.supply_a == 2  # 1.306 A × 1.2 = 1.57 A
    md = printed["square8"]["bom.md"].read_text()
    assert "82 × 60 mA = 4920 mA" in md
    assert "4920 mA × 0.25 = 1230 mA" in md
    assert ("microcontroller 60 mA + 2 row pull-up networks × 5.6 mA + level shifter 0.04 mA "
            "+ bleeder 5 mA = 76.24 mA") in md
    assert ("load: 1230 mA + 76.24 mA = 1306.24 mA; × 1.2 headroom = 1567.49 mA → a 5 V 2 A "
            "supply") in md
    md9 = printed["square9"]["bom.md"].read_text()
    assert ("microcontroller 60 mA + 87 sensors × 3.5 mA + 11 shift registers × 0.08 mA + "
            "11 pull-up networks × 2.64 mA + level shifter 0.04 mA + bleeder 5 mA = "
            "399.46 mA") in md9
    assert "1305 mA + 399.46 mA = 1704.46 mA; × 1.2 headroom = 2045.35 mA → a 5 V 3 A" in md9
    lotus = power_budget(load_layout("lotus39"))
    # 47 LEDs: 2.82 A full, 0.705 A capped; 47 linear halls × 10 mA + 3 multiplexers ×
    # 0.16 mA + 60 mA + 0.04 mA + 5 mA = 0.53552 A
    assert lotus.electronics_a == pytest.approx(0.53552)
    assert lotus.load_a == pytest.approx(1.24052)
    assert lotus.supply_a == 2
    full = power_budget(load_layout("kaleido89"), cap=1.0)
    assert full.load_a == pytest.approx(96 * 0.06 + 0.07624)
    assert full.supply_a == 8  # 5.82 A × 1.2 = 6.98 A
    with pytest.raises(ValueError, match="brightness cap"):
        power_budget(load_layout("square8"), cap=0)


def test_bill_of_materials() -> None:
    items = {line.item: line.quantity for line in bill_of_materials(load_layout("square8"))}
    assert items["Signal diode 1N4148"] == 82
    assert items["Reed switch, normally open, glass body about 14 mm"] == 82
    assert items["WS2812B addressable RGB LED (5050), or cut from a strip"] == 82
    assert items["74AHCT125 level shifter (3.3 V data → 5 V)"] == 1
    assert any(k.startswith("Magnet: 10×1 mm") and v == 72 for k, v in items.items())
    s9 = {line.item: line.quantity for line in bill_of_materials(load_layout("square9"))}
    assert s9["74HC165 8-bit parallel-in shift register"] == 11
    assert s9["Resistor network 8 × 10 kΩ bussed (9-pin SIP)"] == 11
    assert not any("1N4148" in k for k in s9)
    lotus = {line.item: line.quantity for line in bill_of_materials(load_layout("lotus39"))}
    assert lotus["CD74HC4067 16-channel analog multiplexer"] == 3
    assert gpio_needed(load_layout("square8")) == (20, 0)
    assert gpio_needed(load_layout("kaleido89")) == (21, 0)
    assert gpio_needed(load_layout("square9")) == (4, 0)
    assert gpio_needed(load_layout("lotus39")) == (8, 3)


def test_bad_paper(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown paper 'A3'"):
        print_board("square8", tmp_path, paper="A3")


def test_cli_board_print(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "print", "lotus39", "--out", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.split()
    assert len(lines) == 12 and all(Path(p).exists() for p in lines)
    assert main(["board", "print", "hex91", "--out", str(tmp_path)]) == 2
    assert "no board layout 'hex91'" in capsys.readouterr().err
