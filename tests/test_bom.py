"""The bill of materials and the power rails of every board, from boards/parts.toml."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from controller import parts
from controller.boardprint import (
    bill_of_materials,
    bom_csv,
    bom_markdown,
    bom_total,
    led_budget_ma,
    power_budget,
    rails,
    supply_part,
)
from controller.layout import load_layout
from controller.parts import RAIL_LIMIT, parts_catalogue

BOARDS = ("square8", "square9", "lotus39", "kaleido89")


@pytest.mark.parametrize("name", BOARDS)
def test_every_rail_within_80_percent(name: str) -> None:
    layout = load_layout(name)
    named = {rail.name: rail for rail in rails(layout)}
    assert {"5 V supply", "5 V fuse", "Pico 3V3 pin (external load)"} <= set(named)
    for rail in named.values():
        assert rail.load_ma <= RAIL_LIMIT * rail.rating_ma, rail
    # the host's budget leaves the default 25 % brightness cap undimmed
    assert power_budget(layout).led_a * 1000 <= led_budget_ma(layout)
    assert supply_part(layout)["rating_a"] >= power_budget(layout).supply_a
    if layout.sensor_kind != "reed":  # hall sensors: their own 3.3 V regulator(s)
        (regulator,) = [r for n, r in named.items() if n.startswith("3.3 V sensor regulator")]
        count = parts.regulator_count(parts.rail_loads(layout)["sensor-3v3"])
        sensor = parts_catalogue()["parts"][layout.sensor_kind]
        sensors = len(layout.spots) * float(sensor["supply_ma"])
        assert count * regulator.rating_ma >= 1.25 * sensors


def test_hall_sensor_current_on_the_pico_pin_is_refused(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """Defect 3: the lotus39 sensors on the Pico's 3V3 pin are 470 mA against 300 mA."""
    catalogue = {**parts_catalogue(), "parts": {**parts_catalogue()["parts"]}}
    catalogue["parts"]["linear-hall"] = {**catalogue["parts"]["linear-hall"],
                                         "rail": "pico-3v3"}
    monkeypatch.setattr(parts, "parts_catalogue", lambda: catalogue)
    pico = next(r for r in rails(load_layout("lotus39")) if r.name.startswith("Pico"))
    assert pico.load_ma == pytest.approx(470.0)
    assert pico.load_ma > RAIL_LIMIT * pico.rating_ma


def test_parts_fit_the_3v3_design() -> None:
    text = "\n".join(f"{line.item} {line.mpn} {line.grade} {line.note}"
                     for name in BOARDS for line in bill_of_materials(load_layout(name)))
    lotus = {line.item: line for line in bill_of_materials(load_layout("lotus39"))}
    hall = next(line for item, line in lotus.items() if item.startswith("Linear hall"))
    assert hall.mpn == "DRV5055A4QLPG" and hall.quantity == 47
    square9 = {line.mpn: line for line in bill_of_materials(load_layout("square9"))}
    assert square9["DRV5033FAQLPG"].quantity == 87
    assert "A3144 also works" not in text
    assert square9["LM1117T-3.3/NOPB"].quantity == 1
    assert "LM1117T-3.3/NOPB" not in {line.mpn for line in
                                        bill_of_materials(load_layout("square8"))}
    for name in BOARDS:
        mpns = {line.mpn for line in bill_of_materials(load_layout(name))}
        assert {"SN74AHCT125N", "WS2812B-V5", "SC0915 (Pico)"} <= mpns
        assert any(m.startswith("0218") and m.endswith("MXP") for m in mpns)


def test_prices_spares_and_files() -> None:
    lines = bill_of_materials(load_layout("square8"))
    reeds = next(line for line in lines if line.item.startswith("Reed switch"))
    assert (reeds.quantity, reeds.spares, reeds.mpn) == (82, 9, "MDSR-7 15-20")  # 10 % up
    assert reeds.total_price == pytest.approx(91 * 0.60)
    assert bom_total(load_layout("square8")) == pytest.approx(
        sum(line.order_quantity * line.unit_price for line in lines))
    rows = list(csv.DictReader(io.StringIO(bom_csv(load_layout("lotus39")))))
    assert all(row["part number"] for row in rows if row["group"] in ("sensing", "LEDs"))
    md = bom_markdown(load_layout("lotus39"))
    assert "`leds.current_budget_ma = 1060`" in md
    assert "MAX_BRIGHTNESS` stays 255" in md
    assert "| 3.3 V sensor regulator (each of 2) | 235 mA | 800 mA | 29% |" in md
    assert "LM1117MPX" not in md and "SOT-223 on perfboard (136 °C/W) would rise 132 °C" in md


@pytest.mark.parametrize("name", BOARDS)
def test_guide_agrees_with_the_bom(name: str) -> None:
    """Each build guide: the BOM's LED budget, 3.3 V parts, SPI LEDs, bring-up at the end."""
    guide = (Path(__file__).resolve().parent.parent / "hardware" / f"{name}.md").read_text()
    budgets = {int(v) for v in re.findall(r"current_budget_ma = (\d+)", guide)}
    assert budgets == {led_budget_ma(load_layout(name))}
    assert "A3144 also works" not in guide and "SS49E" not in guide
    assert '"neopixel"' not in guide  # LEDs from a Pi on SPI (GPIO10): no root
    bringup = guide[guide.index("## Bring-up"):]
    assert "fairyboard selftest" in bringup and "## " not in bringup[3:]
    if name == "lotus39":
        assert "fairyboard calibrate" in bringup and "DRV5055A4" in guide
        assert "ADS1115" in guide and 'backend = "gpio-analog"' in guide
    assert "/work/" not in guide and "shared/" not in guide


@pytest.mark.parametrize("name", ["square8", "square9", "lotus39", "kaleido89"])
def test_power_inlet_parts_are_ordered_as_sold(name: str) -> None:
    """A Keystone 3517 is one clip: a fuse needs two.  The 5 V comes in on a polarised
    barrel jack with a reverse-polarity MOSFET, not on a cut plug in a screw terminal."""
    from controller.boardprint import bill_of_materials
    from controller.layout import load_layout

    lines = {line.mpn: line for line in bill_of_materials(load_layout(name))}
    clip = lines["3517"]
    assert clip.quantity == 2 and "single clip" in clip.grade and "pair" not in clip.grade
    assert "1935161" not in lines  # the screw terminal is gone
    for mpn in ("PJ-102AH", "STD36P4LLF6", "1N5819", "2N7000"):
        assert lines[mpn].quantity == 1
