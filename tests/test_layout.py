"""Printed board layouts: every shipped layout compiles and is consistent; broken layouts
fail with a message naming the file, the entry and the problem."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path

import pytest

from controller.geometry import load_shape
from controller.layout import (
    LAYOUTS_DIR,
    MIN_OPTION_PADS,
    Layout,
    LayoutError,
    SensorWiring,
    load_layout,
    load_layout_file,
    parse_layout,
)
from controller.rules import GAMES

DATA = Path(__file__).parent / "data" / "layouts"
SHIPPED = ("square8", "square9", "kaleido89", "lotus39")


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_layout_is_consistent(name: str) -> None:
    layout = load_layout(name)
    g = layout.geometry
    assert g is load_shape(layout.shape)
    # cells first, in geometry order: spot index == cell index
    assert [s.name for s in layout.spots[: len(g)]] == list(g.cells)
    assert all(s.kind == "cell" for s in layout.spots[: len(g)])
    assert all(s.kind == "pad" for s in layout.pad_spots)
    # every LED index 0..n-1 exactly once
    assert sorted(s.led for s in layout.spots) == list(range(layout.led_count))
    assert layout.led_count == len(layout.spots)
    # every spot on its own sensor input, inside the declared limits
    addresses = [s.sensor.address() for s in layout.spots]
    assert len(set(addresses)) == len(addresses)
    for s in layout.spots:
        w = s.sensor
        if layout.sensing == "matrix":
            assert 0 <= w.row < layout.matrix_rows and 0 <= w.column < layout.matrix_columns
        elif layout.sensing == "shift-register":
            assert 0 <= w.chain < layout.chain_length
        else:
            assert 0 <= w.channel < layout.channel_count
    # every pad each served game needs
    for game in layout.games:
        for role, owner, piece in GAMES[game].pads:
            assert layout.pad(role, owner, piece).role == role
        assert len(layout.pads("option")) >= MIN_OPTION_PADS
    # the millimetre picture is the shape scaled and shifted
    for c in range(len(g)):
        x, y = g.centres[c]
        cx, cy = layout.cell_spot(c).centre_mm
        assert cx == pytest.approx(layout.origin_mm[0] + x * layout.scale_mm, abs=1e-3)
        assert cy == pytest.approx(layout.origin_mm[1] + y * layout.scale_mm, abs=1e-3)
    w, h = layout.size_mm
    for s in layout.spots:
        assert all(0 <= px <= w and 0 <= py <= h for px, py in s.outline_mm)


def test_load_layout_is_cached() -> None:
    assert load_layout("square8") is load_layout("square8")


def test_square8_wiring_and_pads() -> None:
    layout = load_layout("square8")
    assert (layout.sensing, layout.sensor_kind) == ("matrix", "reed")
    assert (layout.matrix_rows, layout.matrix_columns) == (11, 8)
    assert layout.games == ("luotuoqi", "laotzu", "chess")
    g = layout.geometry
    # matrix-by-rank: row = rank, column = file
    assert layout.spot("a1").sensor == SensorWiring(row=0, column=0)
    assert layout.spot("e4").sensor == SensorWiring(row=3, column=4)
    assert layout.spot("h8").sensor == SensorWiring(row=7, column=7)
    # serpentine: a1..h1 = 0..7, then h2 = 8 back to a2 = 15, a8 ends the squares
    assert [layout.spot(n).led for n in ("a1", "h1", "h2", "a2", "a3", "a8")] == \
        [0, 7, 8, 15, 16, 63]
    assert layout.cell_spot(g.cell("d5")).name == "d5"
    assert layout.spot("a1").centre_mm == (45.0, 80.0)
    assert layout.spot("a1").outline_mm[0] == (25.0, 60.0)
    # pads: Cube per player, hand P N B R Q per player, six options
    assert [p.name for p in layout.pads("token")] == ["white-cube", "black-cube"]
    assert [p.piece for p in layout.pads("hand", 0)] == list("PNBRQ")
    assert [p.piece for p in layout.pads("hand", 1)] == list("PNBRQ")
    assert len(layout.pads("option")) == 6
    assert layout.pad("hand", 1, "Q").sensor == SensorWiring(row=9, column=5)
    assert layout.spot_index("white-cube") == 64
    # the matrix table inverts the wiring
    table = layout.matrix_table()
    for i, s in enumerate(layout.spots):
        assert table[s.sensor.row][s.sensor.column] == i
    assert sum(v >= 0 for row in table for v in row) == 82
    # LED chain inverse
    led_spots = layout.led_spots()
    assert all(layout.spots[led_spots[k]].led == k for k in range(layout.led_count))


def test_square9_chain() -> None:
    layout = load_layout("square9")
    assert (layout.sensing, layout.sensor_kind, layout.chain_length) == \
        ("shift-register", "digital-hall", 88)
    assert layout.spot("a1").sensor.chain == 0
    assert layout.spot("i9").sensor.chain == 80
    chain = layout.chain_table()
    assert chain[87] == -1 and chain[layout.spot("option-1").sensor.chain] == \
        layout.spot_index("option-1")
    assert layout.geometry.rivers == (3, 6)


def test_kaleido89_matrix_follows_slice_and_letter() -> None:
    layout = load_layout("kaleido89")
    assert (layout.matrix_rows, layout.matrix_columns) == (12, 8)
    assert layout.spot("1A").sensor == SensorWiring(row=0, column=0)
    assert layout.spot("8K").sensor == SensorWiring(row=10, column=7)
    assert layout.spot("3J").sensor == SensorWiring(row=9, column=2)
    assert layout.spot("00").sensor == SensorWiring(row=11, column=0)
    assert layout.pad("die").sensor == SensorWiring(row=11, column=7)
    # all 96 matrix positions used
    assert all(v >= 0 for row in layout.matrix_table() for v in row)
    # in-order LEDs: centre first, then ring by ring
    assert layout.spot("00").led == 0 and layout.spot("1A").led == 1


def test_lotus39_analog_and_reserve_pads() -> None:
    layout = load_layout("lotus39")
    assert (layout.sensing, layout.sensor_kind, layout.channel_count) == \
        ("analog", "linear-hall", 48)
    assert layout.spot("c7").sensor.channel == 0
    assert layout.pad("reserve", 0, "N").sensor.channel == 39
    assert layout.pad("reserve", 1, "N").owner == 1
    # serpentine by rank from rank 1: c1 d1 e1 f1 g1, then g2 e2 c2
    assert [layout.spot(n).led for n in ("c1", "g1", "g2", "e2", "c2")] == [0, 4, 5, 6, 7]
    assert layout.spot("e4").centre_mm == (190.0, 220.0)
    assert layout.games == ("lotus39", "lotus39-modern")


def test_lookup_errors_name_the_problem() -> None:
    layout = load_layout("square8")
    with pytest.raises(KeyError, match="no spot 'z9'"):
        layout.spot("z9")
    with pytest.raises(KeyError, match="no die pad"):
        layout.pad("die")
    with pytest.raises(IndexError):
        layout.cell_spot(64)
    with pytest.raises(LayoutError, match="no board layout 'nope'.*square8"):
        load_layout("nope")


@pytest.mark.parametrize(("file", "message"), [
    ("duplicate_led.toml", r"duplicate_led.toml: pads.option-1.led: LED 5 is already used by f1"),
    ("unwired_cell.toml", r"unwired_cell.toml: sensing.cell.c1: cell is not wired"),
    ("missing_pad.toml", r"missing_pad.toml: pads: luotuoqi needs a cube of player 1 pad"),
    ("bad_scale.toml", r"bad_scale.toml: scale_mm: must be a positive number"),
    ("off_board.toml", r"off_board.toml: cell g1: reaches \(320.0, 40.0\) mm, off the "
                       r"300×400 mm board"),
    ("unknown_shape.toml", r"unknown_shape.toml: shape: no board shape 'hex91'"),
    ("matrix_out_of_range.toml",
     r"matrix_out_of_range.toml: pads.option-1: matrix row 8 out of range 0..7"),
    ("malformed.toml", r"malformed.toml: not valid TOML"),
])
def test_broken_layout_files(file: str, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        load_layout_file(DATA / file)


def _square8() -> dict:
    return tomllib.loads((LAYOUTS_DIR / "square8.toml").read_text(encoding="utf-8"))


def _pad(data: dict, name: str) -> dict:
    return next(p for p in data["pads"] if p["name"] == name)


def _fails(data: dict, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        parse_layout(data, LAYOUTS_DIR / "square8.toml")


def test_edited_square8_still_loads() -> None:
    assert isinstance(parse_layout(_square8(), LAYOUTS_DIR / "square8.toml"), Layout)


def test_skipped_led_index() -> None:
    data = _square8()
    _pad(data, "white-cube")["led"] = 82
    _fails(data, r"square8.toml: leds: LED index 81 is skipped")


def test_negative_led_index() -> None:
    data = _square8()
    _pad(data, "white-cube")["led"] = -1
    _fails(data, r"pads.white-cube.led: LED index must be 0 or more")


def test_two_spots_on_one_sensor() -> None:
    data = _square8()
    _pad(data, "option-6")["column"] = 4
    _fails(data, r"pads.option-6: row 10 / column 4 is already wired to option-5")


def test_matrix_column_out_of_range() -> None:
    data = _square8()
    _pad(data, "option-6")["column"] = 8
    _fails(data, r"pads.option-6: matrix column 8 out of range 0..7")


def test_cell_wired_twice() -> None:
    data = _square8()
    data["sensing"]["cell"] = {"e4": [10, 7]}
    _fails(data, r"sensing.cell.e4: wired twice: the rule 'matrix-by-rank' already puts it "
                 r"on row 3 / column 4")


def test_missing_hand_pad() -> None:
    data = _square8()
    data["pads"] = [p for p in data["pads"] if p["name"] != "black-hand-N"]
    for p in data["pads"]:  # keep the LED chain gap-free
        if p["led"] > 67:
            p["led"] -= 1
    _fails(data, r"pads: laotzu needs a hand of player 1 for N pad")


def test_too_few_option_pads() -> None:
    data = _square8()
    data["pads"] = [p for p in data["pads"] if p["name"] not in ("option-1", "option-2",
                                                                  "option-3")]
    for p in data["pads"]:
        if p["led"] > 72:
            p["led"] -= 3
    _fails(data, r"pads: luotuoqi needs at least 4 option pads, found 3")


def test_overlapping_pad() -> None:
    data = _square8()
    _pad(data, "option-3")["centre_mm"] = [340, 200]
    _fails(data, r"pads.option-3: overlaps cell h4")
    data = _square8()
    _pad(data, "option-3")["centre_mm"] = [380, 170]
    _fails(data, r"pads.option-2: overlaps pad option-3")


def test_led_outside_its_spot() -> None:
    data = _square8()
    data["leds"]["offset_mm"] = [-25, 0]
    _fails(data, r"cell a1: its LED at \(20.0, 80.0\) mm does not fit inside it")
    data["leds"]["offset_mm"] = [-18, 0]  # centre inside, footprint across the edge
    _fails(data, r"cell a1: its LED at \(27.0, 80.0\) mm does not fit inside it \(5 mm")
    data = _square8()
    data["sensing"]["offset_mm"] = [21, 0]
    _fails(data, r"cell a1: its sensor at \(66.0, 80.0\) mm lies outside it")


def test_bad_numbers() -> None:
    data = _square8()
    data["size_mm"] = [410, -1]
    _fails(data, r"size_mm: must be positive")
    data = _square8()
    data["origin_mm"] = ["left", 3]
    _fails(data, r"origin_mm: expected two numbers")
    data = _square8()
    data["sensing"]["rows"] = 0
    _fails(data, r"sensing.rows: must be 1 or more, got 0")
    data = _square8()
    _pad(data, "white-hand-P")["size_mm"] = [0, 34]
    _fails(data, r"pads.white-hand-P.size_mm: must be positive")
    data = _square8()
    _pad(data, "white-hand-P")["led"] = "five"
    _fails(data, r"pads.white-hand-P.led: expected int")


def test_wrong_shape_and_kinds() -> None:
    data = _square8()
    data["games"] = ["gnuqi"]
    _fails(data, r"games: gnuqi is played on square9, not square8")
    data = _square8()
    data["games"] = ["shogi"]
    _fails(data, r"games: unknown game 'shogi'")
    data = _square8()
    data["sensor_kind"] = "optical"
    _fails(data, r"sensor_kind: unknown sensor kind 'optical'")
    data = _square8()
    data["sensor_kind"] = "linear-hall"
    _fails(data, r"sensing.kind: linear hall sensors give a voltage: use analog")
    data = _square8()
    data["sensing"]["cells"] = "matrix-by-slice"
    _fails(data, r"sensing.cells: matrix-by-slice needs a ring shape, square8 is grid")
    data = _square8()
    data["leds"]["cells"] = "spiral"
    _fails(data, r"leds.cells: unknown rule 'spiral'")
    data = _square8()
    _pad(data, "white-cube")["role"] = "cup"
    _fails(data, r"pads.white-cube.role: unknown role 'cup'")
    data = _square8()
    del _pad(data, "white-cube")["owner"]
    _fails(data, r"pads.white-cube.owner: a cube pad needs the owning player")
    data = _square8()
    del _pad(data, "white-hand-B")["piece"]
    _fails(data, r"pads.white-hand-B.piece: a hand pad needs the piece kind")


def test_explicit_led_order_list() -> None:
    data = _square8()
    g = load_shape("square8")
    names = list(reversed(g.cells))
    data["leds"]["cells"] = names
    layout = parse_layout(copy.deepcopy(data), LAYOUTS_DIR / "square8.toml")
    assert layout.spot("h8").led == 0 and layout.spot("a1").led == 63
    data["leds"]["cells"] = names[:-1]
    _fails(data, r"leds.cells: cell a1 has no LED")
    data["leds"]["cells"] = [*names[:-1], "h8"]
    _fails(data, r"leds.cells\[63\]: h8 already has LED 0")


def test_shift_register_chain_must_be_whole_chips() -> None:
    data = tomllib.loads((LAYOUTS_DIR / "square9.toml").read_text(encoding="utf-8"))
    data["sensing"]["chain_length"] = 90
    with pytest.raises(LayoutError, match=r"sensing.chain_length: a 74HC165 chain has 8 bits"):
        parse_layout(data, LAYOUTS_DIR / "square9.toml")


def test_misspelt_entries_are_not_ignored() -> None:
    data = _square8()
    data["scale"] = 40
    _fails(data, r"square8.toml: scale: unknown entry \(known: name, shape")
    data = _square8()
    data["leds"]["offset"] = [0, 0]
    _fails(data, r"leds.offset: unknown entry")
    data = _square8()
    data["sensing"]["row"] = 11
    _fails(data, r"sensing.row: unknown entry")
    data = _square8()
    _pad(data, "option-2")["colour"] = "red"
    _fails(data, r"pads.option-2.colour: unknown entry")
    data = _square8()
    data["kit"]["screws"] = 4
    _fails(data, r"kit.screws: unknown entry")


def test_sensor_rules_for_every_sensing() -> None:
    data = _square8()
    data["sensing"] = {"kind": "matrix", "rows": 11, "columns": 8, "cells": "matrix-in-order"}
    layout = parse_layout(data, LAYOUTS_DIR / "square8.toml")
    assert layout.spot("a2").sensor == SensorWiring(row=1, column=0)  # cell 8 of 8 per row
    data = _square8()
    data["sensing"] = {"kind": "analog", "channels": 96, "cells": "channels-in-order"}
    data["sensor_kind"] = "linear-hall"
    for k, pad in enumerate(data["pads"]):
        del pad["row"], pad["column"]
        pad["channel"] = 64 + k
    layout = parse_layout(data, LAYOUTS_DIR / "square8.toml")
    assert layout.spot("h8").sensor == SensorWiring(channel=63)
    assert layout.channel_table()[64] == layout.spot_index("white-cube")
    data["sensing"]["channels"] = 80
    _fails(data, r"pads.option-5: analog channel 80 out of range 0..79")



def test_printed_labels_are_layout_data_and_name_real_cells() -> None:
    assert dict(load_layout("lotus39").labels) == {"e2": "White's home", "e6": "Black's home"}
    assert dict(load_layout("square8").labels) == {}
    data = _square8()
    data["labels"] = {"e9": "nowhere"}
    _fails(data, r"square8.toml: labels.e9: no cell 'e9' on square8")
    data["labels"] = {"e4": 4}
    _fails(data, r"square8.toml: labels.e4: expected str, got 4")
