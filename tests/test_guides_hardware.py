"""The build guides agree with the parts data and the layouts (issue 31): datasheet figures
at the 3.3 V actually used, the one-cell actuation test first, magnets sorted for the stack
classes, kaleido89's Pi pin map and reed leads, the Pi 5's first LED, lotus39's loop budget
and its regulators."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from controller.boardprint import bill_of_materials
from controller.layout import load_layout, reed_lead_clearance
from controller.parts import parts_catalogue

ROOT = Path(__file__).resolve().parent.parent
HW = ROOT / "hardware"
BOARDS = ("square8", "square9", "lotus39", "kaleido89")


def _guide(name: str) -> str:
    return (HW / f"{name}.md").read_text(encoding="utf-8")


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_hall_figures_are_the_datasheets_at_3v3() -> None:
    parts = parts_catalogue()["parts"]
    linear, digital = parts["linear-hall"], parts["digital-hall"]
    # the datasheet's 3.3 V row: 60 % of the 5 V figure (12.5 mV/mT for the A4)
    assert linear["supply_v"] == 3.3
    assert linear["sensitivity_mv_per_mt"] == pytest.approx(0.6 * 12.5)
    assert f"{linear['sensitivity_mv_per_mt']:g} mV/mT at 3.3 V" in linear["grade"]
    assert f"operate ±{digital['bop_mt']:g} mT" in digital["grade"]
    assert digital["bop_mt"] == 3.5 and "FA" in digital["mpn"]
    readme = _flat((HW / "README.md").read_text(encoding="utf-8"))
    assert f"{linear['sensitivity_mv_per_mt']:g} mV/mT" in readme
    assert f"about {digital['bop_mt']:g} mT" in readme
    texts = [readme, *(_flat(_guide(n)) for n in BOARDS)]
    texts += [_flat(p.read_text(encoding="utf-8")) for p in (HW / "figures").rglob("*.md")]
    for text in texts:
        assert "12.5 mV/mT at 3.3 V" not in text and "6.8 mT" not in text


@pytest.mark.parametrize("name", BOARDS)
def test_the_one_cell_test_comes_first(name: str) -> None:
    guide = _guide(name)
    first = guide.index("## First: one cell, one magnet, through the plate")
    assert first < guide.index("## Materials") < guide.index("## Bring-up")
    readme = (HW / "README.md").read_text(encoding="utf-8")
    steps = readme[readme.index("### Construction, step by step"):]
    assert re.search(r"\n1\. \*\*One cell, one magnet, through the plate\*\*", steps)
    assert steps.index("1. **One cell") < steps.index("2. Print the surface")


def test_magnets_are_sorted_for_the_stack_classes() -> None:
    readme = _flat((HW / "README.md").read_text(encoding="utf-8"))
    assert "Sorting magnets for the stack classes (lotus39)" in readme
    assert "the stack classes" in _flat(_guide("lotus39"))


@pytest.mark.parametrize("name", BOARDS)
def test_no_read_line_of_a_pi_pin_map_is_on_gpio2_or_gpio3(name: str) -> None:
    """GPIO2/3 have 1.8 kΩ pull-ups on the Pi: fine on a driven column, not on a read row
    (the gpio-matrix back end reads the rows when the diodes' anodes are on them)."""
    guide = _guide(name)
    for block in re.findall(r"```toml\n(.*?)```", guide, re.S):
        data = tomllib.loads(block)
        rows = data.get("sensing", {}).get("row_pins")
        if rows is not None:
            assert not {2, 3} & set(rows), f"{name}: rows on {rows}"
            columns = data["sensing"]["column_pins"]
            assert len(set(rows) | set(columns)) == len(rows) + len(columns)
            layout = load_layout(name)
            assert (len(rows), len(columns)) == (layout.matrix_rows, layout.matrix_columns)


def test_the_kaleido89_guide_gives_the_reed_lead_distances_of_its_layout() -> None:
    layout = load_layout("kaleido89")
    guide = _flat(_guide("kaleido89"))
    near, reed, other = reed_lead_clearance(layout, 3)
    far, _, _ = reed_lead_clearance(layout, 8)
    assert near >= 10 > far  # bent at 3 mm: clear; left long: in reach of a neighbour
    assert f"nearest lead end is {near:.0f} mm from a neighbouring field's magnet" in guide
    assert f"({reed}'s right-hand lead and the magnet on {other})" in guide
    assert f"left 8 mm long it would be {far:.0f} mm" in guide


def test_the_pi5_first_led_glitch_is_noted_with_its_remedy() -> None:
    readme = _flat((HW / "README.md").read_text(encoding="utf-8"))
    note = readme[readme.index("Pi 5 and the first LED"):][:700]
    assert "LED 0" in note and 'leds.driver = "serial"' in note


def test_lotus39_guide_gives_its_loop_budget_from_the_benchmark() -> None:
    from benchmarks.bench_firmware import PERIOD_MS, lotus39_text

    guide = _guide("lotus39")
    section = guide.split("<!-- bench_firmware lotus39 -->")[1].split(
        "<!-- /bench_firmware lotus39 -->")[0]
    worst = float(re.search(r"\*\*([\d.]+) ms\*\* with an LED frame", section).group(1))
    share = int(re.search(r"(\d+)% of it at worst", section).group(1))
    assert share == round(100 * worst / PERIOD_MS)
    # the text is the benchmark's own: the same figures give the same words
    fake = {"scan": 50e-6, "frame": 80e-6, "settle": 0.0016, "channels": 48.0}
    assert lotus39_text(fake).count("**") == 4 and "9.6 ms" in lotus39_text(fake)
    assert "100 Hz" in section and "RP2040 estimate" in section


def test_lotus39_guide_counts_the_regulators_the_bom_orders() -> None:
    bom = [line for line in bill_of_materials(load_layout("lotus39"))
           if line.mpn.startswith("LM1117")]
    assert [line.quantity for line in bom] == [2]
    guide = _flat(_guide("lotus39"))
    assert "two LM1117-3.3 regulators in TO-220 (U3, U4)" in guide
    assert "SOT-223" not in bom[0].item


@pytest.mark.parametrize("name", BOARDS)
def test_the_committed_tables_and_netlists_are_what_the_generator_writes(name: str) -> None:
    """The guides link these files: a layout, part or schematic change without
    `hardware/make_figures.py` would leave the builder reading stale ones."""
    from controller.boardprint import bom_csv, bom_markdown, wiring_csv, wiring_markdown
    from controller.schematic import board_netlist, kicad_netlist, strip_netlist

    layout = load_layout(name)
    expected = {"wiring.md": wiring_markdown(layout), "wiring.csv": wiring_csv(layout),
                "bom.md": bom_markdown(layout), "bom.csv": bom_csv(layout),
                "netlist.net": kicad_netlist(board_netlist(layout)),
                "strip-netlist.net": kicad_netlist(strip_netlist(layout))}
    for kind, text in expected.items():
        committed = HW / "figures" / name / f"{name}-{kind}"
        assert committed.read_text(encoding="utf-8") == text, (
            f"{committed.name} is stale: run hardware/make_figures.py {name}")


def test_lotus39_guide_names_the_spots_each_regulator_feeds() -> None:
    """The guide once said "the first half of the spots" (47 of them): it now gives the
    spans of the netlist's split, which the wiring table's column *sensor VCC* lists."""
    from controller.schematic import sensor_supplies

    layout = load_layout("lotus39")
    supplies = sensor_supplies(layout)
    guide = _flat(_guide("lotus39"))
    refs = sorted({ref for ref, _ in supplies})
    assert len(refs) == 2
    for ref in refs:
        spots = [i for i, (r, _) in enumerate(supplies) if r == ref]
        first, last = spots[0], spots[-1]
        assert spots == list(range(first, last + 1))
        span = (f"spots {first}–{last}" + (" of the wiring table" if first == 0 else "")
                + f" ({layout.spots[first].name} … {layout.spots[last].name})")
        assert span in guide, span
    assert "first half" not in guide


def _texts() -> dict[str, str]:
    """Every guide and every committed bill of materials, as a builder reads them."""
    texts = {p.name: _flat(p.read_text(encoding="utf-8")) for p in HW.glob("*.md")}
    texts.update({p.name: _flat(p.read_text(encoding="utf-8"))
                  for p in (HW / "figures").rglob("*-bom.md")})
    return texts


def test_no_guide_asks_for_a_second_supply_or_reads_garbled() -> None:
    """One supply domain: the LEDs, the Pico and the sensors' regulator share one 5 V rail.
    The README once asked for "a separate 5 V supply for the LEDs", the BOMs to "join the
    grounds of the LED supply and the microcontroller"; edits had left "— —" and a
    sentence said twice in the guides, and the reed boards' BOMs spoke of hall sensors on a
    regulator they do not have."""
    for name, text in _texts().items():
        assert "separate 5 V supply" not in text, name
        assert "the LED supply and the microcontroller" not in text, name
        assert "— —" not in text, name
        doubled = re.search(r"\b(\w{3,}) \1\b", text)
        assert doubled is None, (name, doubled and doubled.group(0))
        assert text.count("**never from the Pico's 3V3 pin**") <= 1, name
    for name in ("square8", "kaleido89"):
        bom = _texts()[f"{name}-bom.md"]
        assert "hall sensors" not in bom and "regulator" not in bom.split("## Power")[1]


@pytest.mark.parametrize("name", BOARDS)
def test_the_pi_variants_say_what_changes_without_the_pico(name: str) -> None:
    """The schematic is the Pico's: without it the matrix's pull-ups need the Pi's 3.3 V,
    and a Pi driving chips on the board's own supply is a second supply domain."""
    guide = _flat(_guide(name))
    backends = {tomllib.loads(block).get("sensing", {}).get("backend")
                for block in re.findall(r"```toml\n(.*?)```", _guide(name), re.S)}
    if "gpio-matrix" in backends:
        assert "common pin on the Pi's 3.3 V (pin 1 or 17) instead of the Pico's pin 36" in guide
    if backends & {"gpio-shift-register", "gpio-analog"}:
        assert "two supply domains" in guide
        assert "stop the service before switching it off" in guide
    readme = _flat((HW / "README.md").read_text(encoding="utf-8"))
    assert "`sudo systemctl stop fairyboard`" in readme and "Two supply domains" in readme


def test_the_linear_hall_ranges_are_the_ones_at_3v3() -> None:
    """The ranges quoted for choosing the DRV5055 grade were the 5 V ones (±21/±42/±85/±169
    mT); at 3.3 V one output swing divided by each grade's sensitivity gives ±22/±44/±88/
    ±176 mT, the A2's ±44 mT being the one figure read (a datasheet summary)."""
    linear = parts_catalogue()["parts"]["linear-hall"]
    swing_mv = 30.0 * 44  # the A2 at 3.3 V: 30 mV/mT over ±44 mT
    assert linear["range_mt"] == round(swing_mv / linear["sensitivity_mv_per_mt"])
    assert f"about ±{linear['range_mt']:g} mT there" in linear["grade"]
    readme = _flat((HW / "README.md").read_text(encoding="utf-8"))
    grades = readme[readme.index("The grade matters"):][:600]
    for figure in (22, 44, 88, linear["range_mt"]):
        assert f"±{figure:g} mT" in grades, figure
    assert "the A4 (±169 mT)" not in readme and "A3 (±85 mT)" not in linear["note"]


@pytest.mark.parametrize("name", BOARDS)
def test_the_one_cell_test_keeps_the_nearest_neighbour_open(name: str) -> None:
    """The rig must leave the sensor open at the distance a neighbour's magnet really comes
    to it: kaleido89's guide said 32 mm ("ring 1, the tightest") where 1B's magnet comes
    18 mm from 1C's reed, lotus39's 45 mm (an edge) where cell centres are 35 mm apart,
    square8's 40 mm where b1's magnet is 27 mm from the end of a1's reed."""
    from controller.layout import nearest_neighbour_magnet

    mm, sensor, magnet = nearest_neighbour_magnet(load_layout(name))
    guide = _guide(name)
    first = _flat(guide[guide.index("## First: one cell"):guide.index("## Materials")])
    reed = load_layout(name).sensor_kind == "reed"
    where = "from the nearest" if reed else "from the sensor"
    assert f"{mm:.0f} mm {where}" in first, first
    assert f"({magnet}'s piece beside {sensor}'s {'reed' if reed else 'sensor'}" in first
