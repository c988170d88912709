"""Netlists a PCB tool can use (issue 31, Found 8 and the risks): every part in every KiCad
netlist (the board's and its sensor strip's) has a footprint; every chip and every LED has
its decoupling capacitor; the matrix's sensed lines have 4.7–10 kΩ pull-ups; the long clock
and latch lines of a 74HC165 chain have a series resistor; the supply check still passes;
the BOM orders what the netlist holds."""

from __future__ import annotations

import csv
import io
import re

import pytest

from controller.boardprint import (
    bill_of_materials,
    bom_markdown,
    power_budget,
    rails,
    regulator_lines,
    wiring_csv,
    wiring_markdown,
)
from controller.layout import load_layout
from controller.parts import parts_catalogue, powered_parts, rail_loads
from controller.schematic import (
    PICO_GP_PIN,
    board_netlist,
    kicad_netlist,
    schematic_svg,
    strip_netlist,
    strip_spots,
)
from controller.sensing.fwconfig import firmware_settings
from controller.sensing.sim.supply import supply_faults

BOARDS = ("square8", "square9", "lotus39", "kaleido89")
CHIPS = ("74HC165", "CD74HC4067", "74AHCT125", "LM1117-3.3")


def _parse(text: str) -> list:
    tokens = re.findall(r'\(|\)|"(?:\\.|[^"\\])*"|[^\s()]+', text)
    stack: list[list] = [[]]
    for tok in tokens:
        if tok == "(":
            stack.append([])
        elif tok == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok.strip('"') if tok.startswith('"') else tok)
    assert len(stack) == 1
    return stack[0][0]


def _field(sexpr: list, key: str) -> list:
    return next(x for x in sexpr if isinstance(x, list) and x and x[0] == key)


def _read(text: str) -> tuple[dict[str, dict[str, str]], dict[str, list[tuple[str, str]]]]:
    """(ref → {value, footprint}, net name → [(ref, pin)]) from KiCad netlist text."""
    export = _parse(text)
    comps = {}
    for comp in _field(export, "components")[1:]:
        comps[_field(comp, "ref")[1]] = {"value": _field(comp, "value")[1],
                                         "footprint": _field(comp, "footprint")[1]}
    nets = {}
    for net in _field(export, "nets")[1:]:
        nets[_field(net, "name")[1]] = [(_field(n, "ref")[1], _field(n, "pin")[1])
                                        for n in net if isinstance(n, list) and n[0] == "node"]
    return comps, nets


@pytest.mark.parametrize("name", BOARDS)
def test_every_part_of_both_netlists_has_a_footprint(name: str) -> None:
    layout = load_layout(name)
    for netlist in (board_netlist(layout), strip_netlist(layout)):
        comps, nets = _read(kicad_netlist(netlist))
        assert comps
        bare = [ref for ref, comp in comps.items() if not comp["footprint"]]
        assert not bare, f"{netlist.layout}: no footprint on {bare[:5]}"
        assert all(":" in comp["footprint"] for comp in comps.values())  # Library:Name
        assert all(ref in comps for nodes in nets.values() for ref, _ in nodes)


@pytest.mark.parametrize("name", BOARDS)
def test_every_chip_and_every_led_has_its_decoupling_capacitor(name: str) -> None:
    net = board_netlist(load_layout(name))
    caps: dict[str, set[str]] = {}
    for ref, comp in net.components.items():
        if comp.value in ("100nF", "10uF"):
            caps.setdefault(net.net_of(ref, 1), set()).add(ref)
    for ref, comp in net.components.items():
        if comp.value in CHIPS or comp.value.startswith("DRV5"):
            supply = next(net.net_of(ref, p) for p, n in comp.pins.items()
                          if n in ("VCC", "VIN"))
            assert caps.get(supply), f"{ref} {comp.value}: no capacitor on {supply}"
            decoupling = [c for c in caps[supply] if ref in net.components[c].description]
            assert decoupling, f"{ref} has no capacitor of its own"
    leds = [ref for ref, comp in net.components.items() if comp.value == "WS2812B"]
    for ref in leds:
        assert f"C_{ref}" in net.components and net.net_of(f"C_{ref}", 1) == net.net_of(ref, 1)


@pytest.mark.parametrize("name", ["square8", "kaleido89"])
def test_the_matrix_sense_lines_have_strong_pull_ups(name: str) -> None:
    layout = load_layout(name)
    net = board_netlist(layout)
    fw = firmware_settings(layout)
    sensed = fw["MATRIX_ROWS"] if fw.get("DIODE_ANODES", "rows") == "rows" else \
        fw["MATRIX_COLUMNS"]
    for k, gp in enumerate(sensed):
        line = net.net_of("U1", PICO_GP_PIN[int(gp.removeprefix("GP"))])
        pullups = [ref for ref, _ in net.nets[line] if ref.startswith("RN")]
        assert len(pullups) == 1, f"line {k} ({line}) has no pull-up network"
        value = net.components[pullups[0]].value  # "8x4k7"
        ohms = float(value.split("x")[1].replace("k", ".")) * 1000
        assert 4700 <= ohms <= 10000
        assert net.net_of(pullups[0], 1) == net.net_of("U1", 36)  # the Pico's 3V3


def test_the_long_clock_and_latch_lines_have_series_resistors() -> None:
    layout = load_layout("square9")
    net = board_netlist(layout)
    fw = firmware_settings(layout)
    for key, line in (("SHIFT_CLOCK", "SR_CLK"), ("SHIFT_LATCH", "SR_PL")):
        at_pico = net.net_of("U1", PICO_GP_PIN[int(fw[key].removeprefix("GP"))])
        assert at_pico != line
        (resistor,) = [ref for ref, _ in net.nets[at_pico] if ref.startswith("R")]
        assert net.components[resistor].value == "33"
        assert {net.net_of(resistor, 1), net.net_of(resistor, 2)} == {at_pico, line}
        chips = {ref for ref, _ in net.nets[line]} - {resistor}
        assert len(chips) == 11 and all(net.components[c].value == "74HC165" for c in chips)


@pytest.mark.parametrize("name", BOARDS)
def test_the_strip_is_a_board_of_its_own_joined_by_its_header(name: str) -> None:
    layout = load_layout(name)
    full = board_netlist(layout)
    strip = strip_netlist(layout)
    spots = set(strip_spots(layout))
    assert 4 <= len(spots) <= 9
    assert {c.spot for ref, c in strip.components.items() if ref != "J1"} == spots
    header = strip.components["J1"]
    for net_name, nodes in strip.nets.items():
        refs = {ref for ref, _ in nodes}
        leaves = any(ref not in strip.components for ref, _ in full.nets[net_name])
        assert ("J1" in refs) == leaves, net_name  # the header carries exactly what leaves
        assert set(nodes) - {n for n in nodes if n[0] == "J1"} <= set(full.nets[net_name])
    assert len(header.pins) == len([n for n in strip.nets if "J1" in
                                    {r for r, _ in strip.nets[n]}])


@pytest.mark.parametrize("name", BOARDS)
def test_the_supply_check_passes_and_the_bom_orders_what_the_netlist_holds(name: str) -> None:
    layout = load_layout(name)
    net = board_netlist(layout)
    assert supply_faults(net) == []
    bom = {line.mpn: line for line in bill_of_materials(layout)}
    values = [comp.value for comp in net.components.values()]
    assert bom["WS2812B-V5"].quantity == values.count("WS2812B")
    if "LM1117T-3.3/NOPB" in bom:
        assert bom["LM1117T-3.3/NOPB"].quantity == values.count("LM1117-3.3")
        assert bom["T350B106K016AT"].quantity == values.count("10uF")
    networks = sum(1 for v in values if v.startswith("8x"))
    assert networks == sum(line.quantity for line in bom.values()
                           if line.mpn.startswith("4609X"))
    ceramic = sum(line.quantity for line in bill_of_materials(layout)
                  if line.mpn == "C320C104K5R5TA")
    assert ceramic == values.count("100nF")
    if layout.sensing == "shift-register":
        assert values.count("33") == 2
        assert sum(line.quantity for line in bill_of_materials(layout)
                   if "33 Ω" in line.item) == 2


def test_the_lm1117_budget_fits_and_the_sot223_would_not() -> None:
    """Found 8: an LM1117 in SOT-223 on perfboard dissipated 0.5–0.8 W.  The TO-220 part's
    junction stays within 80 % of what its datasheet allows at 40 °C, split over two
    regulators on lotus39."""
    for name, count in (("square9", 1), ("lotus39", 2)):
        layout = load_layout(name)
        lines = regulator_lines(layout)
        used = int(re.search(r"(\d+)% of it used", lines[0]).group(1))
        assert used <= 80, lines[0]
        sot = float(re.search(r"would rise (\d+) °C", lines[1]).group(1))
        assert 40 + sot > 125, lines[1]
        regs = [r for r in rails(layout) if r.name.startswith("3.3 V sensor regulator")]
        assert len(regs) == 1 and (count == 1) == ("each of" not in regs[0].name)
        assert sum(1 for c in board_netlist(layout).components.values()
                   if c.value == "LM1117-3.3") == count


@pytest.mark.parametrize("name", BOARDS)
def test_the_wiring_table_names_the_regulator_the_netlist_feeds_each_sensor_from(
        name: str) -> None:
    """lotus39's two regulators each feed "half the sensors": the wiring table a builder
    follows names the regulator of every sensor (column *sensor VCC*), and it is the one
    whose output the netlist joins to that sensor's VCC."""
    layout = load_layout(name)
    net = board_netlist(layout)
    rows = list(csv.DictReader(io.StringIO(wiring_csv(layout))))
    md = wiring_markdown(layout)
    if layout.sensor_kind == "reed":
        assert all(row["sensor_vcc"] == "" for row in rows) and "sensor VCC" not in md
        return
    regulators = {ref: net.net_of(ref, 2) for ref, comp in net.components.items()
                  if comp.value == "LM1117-3.3"}  # pin 2: VOUT
    assert len(set(regulators.values())) == len(regulators)  # outputs never joined
    for row in rows:
        assert net.net_of(f"H_{row['name']}", 1) == regulators[row["sensor_vcc"]], row["name"]
    head, _, *table = md.split("## Every spot")[1].strip().splitlines()
    assert head.rstrip(" |").endswith("sensor VCC")
    for row, line in zip(rows, table, strict=True):
        assert line.rstrip(" |").endswith(row["sensor_vcc"]), line
    loads = {ref: sum(1 for row in rows if row["sensor_vcc"] == ref) for ref in regulators}
    assert max(loads.values()) - min(loads.values()) <= 1  # an even split of the heat
    svg = schematic_svg(net, name)  # the schematic's row of each spot says it too
    for row in rows:
        assert f"H_{row['name']}: VCC→{regulators[row['sensor_vcc']]}," in svg, row["name"]


@pytest.mark.parametrize("name", BOARDS)
def test_the_power_budget_sums_the_parts_catalogue(name: str) -> None:
    """One home per fact: the supply is sized from the same currents (boards/parts.toml)
    as every rail and the host's LED budget; the budget once took the Pico and the sensors
    only (60 mA on square8 beside 76.24 mA two lines further down)."""
    layout = load_layout(name)
    budget = power_budget(layout)
    catalogue = parts_catalogue()["parts"]
    from_parts = sum(qty * each for _, qty, each, _ in powered_parts(layout))
    assert from_parts == pytest.approx(sum(rail_loads(layout).values()))
    assert budget.electronics_a * 1000 == pytest.approx(from_parts)
    assert from_parts >= float(catalogue["controller"]["supply_ma"]) + len(layout.spots) * \
        float(catalogue[layout.sensor_kind].get("supply_ma", 0.0))
    md = bom_markdown(layout)
    figures = set(re.findall(r"- electronics \(every powered part[^\n]*= ([\d.]+) mA", md))
    figures |= set(re.findall(r"electronics \(([\d.]+) mA\)", md))
    figures |= set(re.findall(r"\+ electronics ([\d.]+) mA", md))
    assert figures == {f"{from_parts:.6g}"}, figures  # one figure, wherever it is said
    if rail_loads(layout)["sensor-3v3"] == 0:
        assert "The hall sensors and their chips run from" not in md


@pytest.mark.parametrize("name", BOARDS)
def test_no_read_input_of_a_chip_is_left_open(name: str) -> None:
    """Every 74HC165 input has its pull-up (a spare bit reads high), every CD74HC4067
    input carries a sensor or is tied to GND (lotus39's spare channel 47 was open in the
    netlist while the guide said to ground it: the firmware scans all 48), and every GND
    pin of the Pico is on GND."""
    net = board_netlist(load_layout(name))
    for ref, comp in net.components.items():
        inputs = [p for p, n in comp.pins.items()
                  if (comp.value == "74HC165" and n in "ABCDEFGH" and len(n) == 1)
                  or (comp.value == "CD74HC4067" and re.fullmatch(r"I\d+", n))]
        for pin in inputs:
            line = net.net_of(ref, pin)
            assert line is not None, f"{ref} {comp.pins[pin]} is open"
            others = {r for r, _ in net.nets[line]} - {ref}
            if comp.value == "74HC165":
                assert any(r.startswith("RN") for r in others), f"{ref} {comp.pins[pin]}"
            else:
                assert line == "GND" or any(r.startswith("H_") for r in others), line
    pico = net.components["U1"]
    assert all(net.net_of("U1", p) == "GND" for p, n in pico.pins.items() if n == "GND")


@pytest.mark.parametrize("name", BOARDS)
def test_the_committed_kicad_netlists_hold_the_decoupling_and_the_pull_ups(name: str) -> None:
    """What a PCB tool reads is the file (hardware/figures/<board>/<board>-netlist.net):
    parsed, every powered part (chip, regulator, sensor, LED) has a capacitor of its own
    between its supply net and GND, and every sensed line (a matrix row or column that is
    read, a 74HC165 input) has a resistor-network pull-up."""
    from pathlib import Path

    figures = Path(__file__).resolve().parent.parent / "hardware" / "figures" / name
    layout = load_layout(name)
    comps, nets = _read((figures / f"{name}-netlist.net").read_text(encoding="utf-8"))
    net_of = {node: net for net, nodes in nets.items() for node in nodes}
    supply_pin = {"74HC165": "16", "CD74HC4067": "24", "74AHCT125": "14", "LM1117-3.3": "3",
                  "DRV5033": "1", "DRV5055A4": "1", "WS2812B": "1"}
    powered: dict[str, int] = {}
    for ref, comp in comps.items():
        if comp["value"] in supply_pin:
            supply = net_of[(ref, supply_pin[comp["value"]])]
            powered[supply] = powered.get(supply, 0) + 1
    caps: dict[str, int] = {}
    for ref, comp in comps.items():
        if comp["value"] in ("100nF", "10uF"):
            ends = {net_of[(ref, "1")], net_of[(ref, "2")]}
            assert "GND" in ends, ref
            (supply,) = ends - {"GND"}
            caps[supply] = caps.get(supply, 0) + 1
    for supply, count in powered.items():
        assert caps.get(supply, 0) >= count, f"{name}: {count} parts on {supply}, " \
            f"{caps.get(supply, 0)} capacitors"
    fw = firmware_settings(layout)
    if layout.sensing == "matrix":
        sensed = "ROW" if fw.get("DIODE_ANODES", "rows") == "rows" else "COL"
        lines = [n for n in nets if re.fullmatch(sensed + r"\d+", n)]
        assert len(lines) == (layout.matrix_rows if sensed == "ROW" else layout.matrix_columns)
    else:  # the chain's inputs (an analog board has none: its sensors drive their outputs)
        lines = [n for n in nets if re.fullmatch(r"BIT\d+", n)]
        assert len(lines) == (layout.chain_length if layout.sensing == "shift-register" else 0)
    for line in lines:
        assert any(ref.startswith("RN") for ref, _ in nets[line]), f"{name}: {line}"
