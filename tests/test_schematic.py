"""The generated schematic agrees with every layout's wiring and the firmware's pins."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.cli import main
from controller.layout import load_layout
from controller.schematic import (
    HC165_INPUT_PIN,
    HC4067_INPUT_PIN,
    PICO_GP_PIN,
    PICO_POWER_PINS,
    V3S,
    board_netlist,
    chip_ref,
    kicad_netlist,
    sensor_rails,
)
from controller.sensing.fwconfig import firmware_settings

BOARDS = ("square8", "square9", "lotus39", "kaleido89")


def _pico(gp: str) -> tuple[str, str]:
    return ("U1", str(PICO_GP_PIN[int(gp.removeprefix("GP"))]))


@pytest.mark.parametrize("name", BOARDS)
def test_nets_follow_the_layout(name: str) -> None:
    layout = load_layout(name)
    fw = firmware_settings(layout)
    net = board_netlist(layout)
    for net_name, nodes in net.nets.items():
        assert len(nodes) >= 2, f"{net_name} has one pin"
        assert len(set(nodes)) == len(nodes), net_name
    for spot in layout.spots:
        w = spot.sensor
        if layout.sensing == "matrix":
            row = net.net_of(f"D_{spot.name}", 2)  # anode
            assert row == f"ROW{w.row}"
            assert _pico(fw["MATRIX_ROWS"][w.row]) in net.nets[row]
            column = net.net_of(f"SW_{spot.name}", 2)
            assert _pico(fw["MATRIX_COLUMNS"][w.column]) in net.nets[column]
            assert net.net_of(f"SW_{spot.name}", 1) == net.net_of(f"D_{spot.name}", 1)
        elif layout.sensing == "shift-register":
            out = net.nets[net.net_of(f"H_{spot.name}", 3)]
            chip = chip_ref(w.chain // 8)
            assert (chip, str(HC165_INPUT_PIN["HGFEDCBA"[w.chain % 8]])) in out
            assert any(ref.startswith("RN") for ref, _ in out)  # pulled up
        else:
            out = net.nets[net.net_of(f"H_{spot.name}", 3)]
            assert (chip_ref(w.channel // 16), str(HC4067_INPUT_PIN[w.channel % 16])) in out
        if layout.sensor_kind != "reed":
            assert net.net_of(f"H_{spot.name}", 1) in sensor_rails(layout)
    # the LED chain in index order, fed from the firmware's pin through the level shifter
    by_led = {spot.led: spot.name for spot in layout.spots}
    assert sorted(by_led) == list(range(layout.led_count))
    for k in range(layout.led_count):
        assert by_led[k] in net.components[f"LED{k}"].description
        if k:
            assert net.net_of(f"LED{k}", 4) == net.net_of(f"LED{k - 1}", 2)
    assert net.net_of("LED0", 4) == net.net_of("R2", 2)
    assert net.net_of("R2", 1) == net.net_of("U2", 3)  # 1Y
    data = net.nets[net.net_of("U2", 2)]
    assert _pico(fw["NEOPIXEL_PIN"]) in data and ("R1", "1") in data  # with its pull-down
    assert net.net_of("R1", 2) == "GND" and net.net_of("U2", 14) == "+5V"
    # power: the Pico's 3V3 pin feeds only the matrix pull-ups; sensors from the regulators
    pico_3v3 = net.net_of("U1", PICO_POWER_PINS["3V3"])
    if layout.sensing == "matrix":
        assert {ref for ref, _ in net.nets[pico_3v3]} - {"U1"} == {
            ref for ref in net.components if ref.startswith("RN")}
    else:
        assert pico_3v3 is None
    # the inlet: jack → fuse → reverse-polarity MOSFET (drain in, source out) → +5V
    assert net.net_of("J1", 1) == net.net_of("F1", 1) and net.net_of("J1", 2) == "GND"
    assert net.net_of("F1", 2) == net.net_of("Q1", 2) and net.net_of("Q1", 3) == "+5V"
    assert net.net_of("Q1", 1) == net.net_of("R3", 1) and net.net_of("R3", 2) == "GND"
    # the Pico in the same domain: VSYS from +5V through D2, 3V3_EN held by Q2
    assert net.net_of("D2", 2) == "+5V" and net.net_of("D2", 1) == net.net_of(
        "U1", PICO_POWER_PINS["VSYS"])
    assert net.net_of("Q2", 3) == net.net_of("U1", PICO_POWER_PINS["3V3_EN"])
    if layout.sensor_kind != "reed":
        for k, rail in enumerate(sensor_rails(layout)):
            assert net.net_of(f"U{3 + k}", 2) == rail and net.net_of(f"U{3 + k}", 3) == "+5V"
        assert sensor_rails(layout)[0] == V3S
    assert net.net_of("U1", PICO_POWER_PINS["ADC_VREF"]) is None  # the Pico's own filter


def _parse(text: str) -> list:
    """A minimal S-expression reader: enough to prove the netlist is well formed."""
    tokens = re.findall(r'\(|\)|"(?:\\.|[^"\\])*"|[^\s()]+', text)
    stack: list[list] = [[]]
    for tok in tokens:
        if tok == "(":
            stack.append([])
        elif tok == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    assert len(stack) == 1
    return stack[0]


def test_kicad_netlist_is_well_formed() -> None:
    net = board_netlist(load_layout("square9"))
    (export,) = _parse(kicad_netlist(net))
    assert export[0] == "export" and export[1] == ["version", '"E"']
    comps = next(x for x in export if isinstance(x, list) and x[0] == "components")[1:]
    nets = next(x for x in export if isinstance(x, list) and x[0] == "nets")[1:]
    assert len(comps) == len(net.components) and len(nets) == len(net.nets)
    gnd = next(n for n in nets if n[2] == ["name", '"GND"'])
    assert all(node[0] == "node" for node in gnd[3:]) and len(gnd) - 3 == len(net.nets["GND"])


def test_board_print_schematic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "print", "lotus39", "--out", str(tmp_path), "--schematic"]) == 0
    lines = capsys.readouterr().out.split()
    names = {Path(p).name for p in lines}
    assert {"lotus39-schematic.svg", "lotus39-schematic.pdf", "lotus39-netlist.net",
            "lotus39-strip-netlist.net"} <= names
    assert (tmp_path / "lotus39-schematic.pdf").read_bytes().startswith(b"%PDF")
    assert "DRV5055A4" in (tmp_path / "lotus39-netlist.net").read_text()


GUIDES = Path(__file__).resolve().parent.parent / "hardware"


@pytest.mark.parametrize("name", ["square9", "lotus39"])
def test_guides_name_the_chips_as_the_schematic_does(name: str) -> None:
    """Every U-number in a guide is a part of that board's schematic with the value the
    guide gives it, and the wiring table's chip inputs use the same references."""
    from controller.boardprint import wiring_markdown

    layout = load_layout(name)
    net = board_netlist(layout)
    text = (GUIDES / f"{name}.md").read_text(encoding="utf-8")
    refs = set(re.findall(r"\bU(\d+)\b", text))
    assert refs, "the guide names its chips"
    chip = "74HC165" if layout.sensing == "shift-register" else "CD74HC4067"
    for number in refs:
        assert f"U{number}" in net.components, f"U{number} is not in the schematic"
        if int(number) >= 10:
            assert net.components[f"U{number}"].value == chip
    chips = [ref for ref, comp in net.components.items() if comp.value == chip]
    assert chips[0] == chip_ref(0) and chip_ref(0).removeprefix("U") in refs
    if layout.sensing == "shift-register":
        assert f"SER of {chips[-1]} to GND" in text
    table = wiring_markdown(layout)
    assert f"| {chip_ref(0)} " in table and all(
        f"{c} " in table for c in chips)
