"""Board shapes: compiled tables match the rules files; malformed files fail clearly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.geometry import GeometryError, load_shape, load_shape_file, parse_shape

RULES = Path(__file__).resolve().parent / "data" / "rules"


def names(g, cells):
    return {g.cells[c] for c in cells}


def test_square8_tables():
    g = load_shape("square8")
    assert len(g) == 64 and g.cells[0] == "a1" and g.cells[63] == "h8"
    e4 = g.cell("e4")
    assert names(g, g.side[e4]) == {"e5", "e3", "d4", "f4"}
    assert names(g, g.corner[e4]) == {"d3", "d5", "f3", "f5"}
    assert [g.cells[c] for c in g.rays["NE"][g.cell("b2")]] == ["c3", "d4", "e5", "f6", "g7", "h8"]
    assert g.steps["N"][g.cell("a8")] == -1
    assert g.at(4, 3) == e4 and g.coords(e4) == (4, 3)
    assert names(g, g.leap_table(((1, 2),))[g.cell("g1")]) == {"h3"}
    assert sum(map(len, g.side)) == 2 * 112 and sum(map(len, g.corner)) == 2 * 98


def test_square9_rivers_and_banks():
    g = load_shape("square9")
    assert len(g) == 81 and g.rivers == (3, 6)
    assert names(g, g.tags["bank6"]) == {f"{f}{r}" for f in "abcdefghi" for r in (6, 7)}
    assert names(g, g.tags["bank3"]) == {f"{f}{r}" for f in "abcdefghi" for r in (3, 4)}


def _kaleido_table():
    text = (RULES / "kaleidochess.md").read_text(encoding="utf-8")
    section = text.split("### 1.7")[1].split("## 2. Pieces")[0]
    row = r"^\| (\w\w) \| (\d) \| [^|]+\| [^|]+\| [^|]+\| (\w+|·) \| ([^|]*) \| ([^|]*) \|$"
    rows = re.findall(row, section, re.M)
    assert len(rows) == 89
    return rows


def test_round_board_matches_the_field_table():
    g = load_shape("kaleido89")
    assert len(g) == 89
    assert sum(map(len, g.side)) == 2 * 184 and sum(map(len, g.corner)) == 2 * 112
    for field, ring, flag, side, corner in _kaleido_table():
        c = g.cell(field)
        assert g.attributes["ring"][c] == int(ring)
        assert names(g, g.side[c]) == {x.strip() for x in side.split(",") if x.strip()}, field
        expected_corner = {x.strip() for x in corner.split(",") if x.strip() not in ("", "—")}
        assert names(g, g.corner[c]) == expected_corner, field
        got = "castle" if c in g.tags["castle"] else "town" if c in g.tags["town"] else "·"
        assert got == flag, field
    assert len(g.tags["town"]) == 28


def test_lotus_board_matches_the_cell_table_and_next_cell_table():
    g = load_shape("lotus39")
    text = (RULES / "lotus39.md").read_text(encoding="utf-8")
    assert len(g) == 39
    assert len(g.tags["hexagon"]) == 4 and len(g.tags["triangle"]) == 16
    assert len(g.tags["square"]) == 19
    cell_table = text.split("### 1.4 Cell table")[1].split("Construction recipe")[0]
    for m in re.finditer(r"^\| (\w\d) \| (\w+)[^|]*\|[^|]*\|[^|]*\|[^|]*\| ([-+.\d]+) \| "
                         r"([-+.\d]+) \| ([^|]*) \| ([^|]*) \|$", cell_table, re.M):
        c = g.cell(m[1])
        assert g.shapes[c] == m[2]
        assert g.centres[c] == (float(m[3]), float(m[4]))
        assert names(g, g.side[c]) == {x.strip() for x in m[5].split(",")}
        assert names(g, g.corner[c]) == {x.strip() for x in m[6].split(",")}
    next_table = text.split("### 2.4 Next-cell table")[1].split("## 3.")[0]
    header = ["X+", "X-", "Z60+", "Z60-", "Z120+", "Z120-", "Y+", "Y-", "V+", "V-", "W+", "W-"]
    rows = 0
    for line in next_table.splitlines():
        cols = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(cols) != 13 or not re.fullmatch(r"[a-i]\d", cols[0]):
            continue
        rows += 1
        c = g.cell(cols[0])
        for d, want in zip(header, cols[1:], strict=True):
            got = g.steps[d][c]
            assert (g.cells[got] if got >= 0 else "·") == want, (cols[0], d)
    assert rows == 39
    assert [g.cells[c] for c in g.circles["c4"]][:3] == ["e4", "e5", "d5"]


def _write(tmp_path, text):
    path = tmp_path / "broken.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text,message", [
    ('name = "x"\nkind = "grid"\nfiles = 8\n', "broken.toml: ranks: missing"),
    ('name = "x"\nkind = "grid"\nfiles = "8"\nranks = 8\n', "broken.toml: files: expected int"),
    ('name = "x"\nkind = "hex"\n', "broken.toml: kind: unknown shape kind 'hex'"),
    ('name = "x"\nkind = "grid"\nfiles = 8\nranks = 8\nrivers = [8]\n', "broken.toml: rivers"),
    ('name = "x"\nkind = "grid"\nfiles = 8\nranks = [', "broken.toml: not valid TOML"),
    ('name = "x"\nkind = "cells"\n[[cells]]\nname = "a"\nshape = "square"\nx = 0\ny = 0\n'
     'side = ["b"]\ncorner = []\n', "broken.toml: cells.a.side: unknown cell 'b'"),
    ('name = "x"\nkind = "cells"\n[[cells]]\nname = "a"\nshape = "circle"\nx = 0\ny = 0\n'
     'side = []\ncorner = []\n', "broken.toml: cells.a.shape: unknown shape 'circle'"),
    ('name = "x"\nkind = "cells"\n[[cells]]\nname = "a"\nshape = "square"\nx = 0\ny = 0\n'
     'side = ["b"]\ncorner = []\n[[cells]]\nname = "b"\nshape = "square"\nx = 1\ny = 0\n'
     'side = []\ncorner = []\n', "cells.a.side: b is listed but does not list a back"),
    ('name = "x"\nkind = "rings"\nslices = 8\nunits = 48\ncentre = "00"\n'
     'ring_fields = [8, 15]\nletters = ["A", "BC"]\n', "ring_fields[1]"),
    ('name = "x"\nkind = "rings"\nslices = 8\nunits = 48\ncentre = "00"\n'
     'ring_fields = [8]\nletters = ["A"]\ncastles = ["9Z"]\n', "castles: unknown field '9Z'"),
])
def test_malformed_shape_files_name_file_and_entry(tmp_path, text, message):
    with pytest.raises(GeometryError) as err:
        load_shape_file(_write(tmp_path, text))
    assert message in str(err.value)


def test_unknown_shape_lists_the_known_ones():
    with pytest.raises(GeometryError, match="no board shape 'hex7'.*square8"):
        load_shape("hex7")


def test_parse_shape_accepts_data_directly():
    g = parse_shape({"name": "tiny", "kind": "grid", "files": 3, "ranks": 2}, Path("tiny"))
    assert g.cells == ("a1", "b1", "c1", "a2", "b2", "c2")
