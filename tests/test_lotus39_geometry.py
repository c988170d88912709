# ruff: noqa: E501  (the rules-file tables below are quoted verbatim, long header rows included)
"""The compiled Lotus-39 shape checked against every table of ``lotus39.md`` §1–3.

The tables are quoted verbatim from the rules file (DECISIONS: "geometry, lines, lotus
circles and pawn tables exactly as in lotus39.md"), so a slip in
``boards/shapes/lotus39.toml`` shows up as a named cell and column.  Where the shared
rules folder is present, the quotes themselves are checked against it.  Independent of
the tables, the drawing data (centres, outlines) must reproduce the same contacts, and
each line step must point in its family's direction.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

import pytest

from controller.geometry import load_shape

G = load_shape("lotus39")
RULES_FILE = Path(__file__).resolve().parent / "data" / "rules" / "lotus39.md"

RANKS_1_2 = """
| rank | cells (left to right) | count |
|---|---|---|
| 7 | c7 d7 e7 f7 g7 | 5 |
| 6 | c6 e6 g6 | 3 |
| 5 | a5 b5 c5 d5 e5 f5 g5 h5 i5 | 9 |
| 4 | a4 c4 e4 g4 i4 | 5 |
| 3 | a3 b3 c3 d3 e3 f3 g3 h3 i3 | 9 |
| 2 | c2 e2 g2 | 3 |
| 1 | c1 d1 e1 f1 g1 | 5 |
"""

SHAPES_1_2 = """
* **Hexagons (4):** c4, g4, e2, e6.
* **Triangles (16).** Apex toward Black / rank 7 ("up"): c7, g7, a5, e5, i5, c3, g3, e1.
  Apex toward White / rank 1 ("down"): e7, c5, g5, a3, e3, i3, c1, g1.
* **Squares (19)** come in two kinds (the distinction drives several pieces):
  * **rank squares** (edges horizontal/vertical; they sit on an X rank *and* a Y file):
    c6, g6, a4, e4, i4, c2, g2 — 7 cells;
  * **oblique squares** (tilted 30°; they sit on a Z line *and* a V/W diagonal; the
    source calls their files "Z-files" b, d, f, h): d7, f7, b5, d5, f5, h5, b3, d3,
    f3, h3, d1, f1 — 12 cells.
"""

CELLS_1_4 = """
| cell | shape | apex points | rank | file | x | y | side-neighbours | corner-only neighbours |
|---|---|---|---|---|---|---|---|---|
| c7 | triangle | toward rank 7 | 7 | c | -1.366 | +3.155 | c6, d7 | e6 |
| d7 | square (oblique) | — | 7 | d | -0.683 | +3.549 | c7, e6, e7 | c6, f7 |
| e7 | triangle | toward rank 1 | 7 | e | +0.000 | +3.943 | d7, f7 | e6 |
| f7 | square (oblique) | — | 7 | f | +0.683 | +3.549 | e6, e7, g7 | d7, g6 |
| g7 | triangle | toward rank 7 | 7 | g | +1.366 | +3.155 | f7, g6 | e6 |
| c6 | square (rank) | — | 6 | c | -1.366 | +2.366 | c5, c7, e6 | b5, d5, d7 |
| e6 | hexagon | — | 6 | e | +0.000 | +2.366 | c6, d5, d7, f5, f7, g6 | c5, c7, e5, e7, g5, g7 |
| g6 | square (rank) | — | 6 | g | +1.366 | +2.366 | e6, g5, g7 | f5, f7, h5 |
| a5 | triangle | toward rank 7 | 5 | a | -2.732 | +0.789 | a4, b5 | c4 |
| b5 | square (oblique) | — | 5 | b | -2.049 | +1.183 | a5, c4, c5 | a4, c6, d5 |
| c5 | triangle | toward rank 1 | 5 | c | -1.366 | +1.577 | b5, c6, d5 | c4, e6 |
| d5 | square (oblique) | — | 5 | d | -0.683 | +1.183 | c4, c5, e5, e6 | b5, c6, e4, f5 |
| e5 | triangle | toward rank 7 | 5 | e | +0.000 | +0.789 | d5, e4, f5 | c4, e6, g4 |
| f5 | square (oblique) | — | 5 | f | +0.683 | +1.183 | e5, e6, g4, g5 | d5, e4, g6, h5 |
| g5 | triangle | toward rank 1 | 5 | g | +1.366 | +1.577 | f5, g6, h5 | e6, g4 |
| h5 | square (oblique) | — | 5 | h | +2.049 | +1.183 | g4, g5, i5 | f5, g6, i4 |
| i5 | triangle | toward rank 7 | 5 | i | +2.732 | +0.789 | h5, i4 | g4 |
| a4 | square (rank) | — | 4 | a | -2.732 | +0.000 | a3, a5, c4 | b3, b5 |
| c4 | hexagon | — | 4 | c | -1.366 | +0.000 | a4, b3, b5, d3, d5, e4 | a3, a5, c3, c5, e3, e5 |
| e4 | square (rank) | — | 4 | e | +0.000 | +0.000 | c4, e3, e5, g4 | d3, d5, f3, f5 |
| g4 | hexagon | — | 4 | g | +1.366 | +0.000 | e4, f3, f5, h3, h5, i4 | e3, e5, g3, g5, i3, i5 |
| i4 | square (rank) | — | 4 | i | +2.732 | +0.000 | g4, i3, i5 | h3, h5 |
| a3 | triangle | toward rank 1 | 3 | a | -2.732 | -0.789 | a4, b3 | c4 |
| b3 | square (oblique) | — | 3 | b | -2.049 | -1.183 | a3, c3, c4 | a4, c2, d3 |
| c3 | triangle | toward rank 7 | 3 | c | -1.366 | -1.577 | b3, c2, d3 | c4, e2 |
| d3 | square (oblique) | — | 3 | d | -0.683 | -1.183 | c3, c4, e2, e3 | b3, c2, e4, f3 |
| e3 | triangle | toward rank 1 | 3 | e | +0.000 | -0.789 | d3, e4, f3 | c4, e2, g4 |
| f3 | square (oblique) | — | 3 | f | +0.683 | -1.183 | e2, e3, g3, g4 | d3, e4, g2, h3 |
| g3 | triangle | toward rank 7 | 3 | g | +1.366 | -1.577 | f3, g2, h3 | e2, g4 |
| h3 | square (oblique) | — | 3 | h | +2.049 | -1.183 | g3, g4, i3 | f3, g2, i4 |
| i3 | triangle | toward rank 1 | 3 | i | +2.732 | -0.789 | h3, i4 | g4 |
| c2 | square (rank) | — | 2 | c | -1.366 | -2.366 | c1, c3, e2 | b3, d1, d3 |
| e2 | hexagon | — | 2 | e | +0.000 | -2.366 | c2, d1, d3, f1, f3, g2 | c1, c3, e1, e3, g1, g3 |
| g2 | square (rank) | — | 2 | g | +1.366 | -2.366 | e2, g1, g3 | f1, f3, h3 |
| c1 | triangle | toward rank 1 | 1 | c | -1.366 | -3.155 | c2, d1 | e2 |
| d1 | square (oblique) | — | 1 | d | -0.683 | -3.549 | c1, e1, e2 | c2, f1 |
| e1 | triangle | toward rank 7 | 1 | e | +0.000 | -3.943 | d1, f1 | e2 |
| f1 | square (oblique) | — | 1 | f | +0.683 | -3.549 | e1, e2, g1 | d1, g2 |
| g1 | triangle | toward rank 1 | 1 | g | +1.366 | -3.155 | f1, g2 | e2 |
"""

RECIPE_1_4 = """
| hexagon | square on edge 0° / 60° / 120° / 180° / 240° / 300° | triangle at corner 30° / 90° / 150° / 210° / 270° / 330° |
|---|---|---|
| c4 | e4 / d5 / b5 / a4 / b3 / d3 | e5 / c5 / a5 / a3 / c3 / e3 |
| g4 | i4 / h5 / f5 / e4 / f3 / h3 | i5 / g5 / e5 / e3 / g3 / i3 |
| e6 | g6 / f7 / d7 / c6 / d5 / f5 | g7 / e7 / c7 / c5 / e5 / g5 |
| e2 | g2 / f3 / d3 / c2 / d1 / f1 | g3 / e3 / c3 / c1 / e1 / g1 |
"""

LINES_2_3 = """
**X (ranks):** `a4 c4 e4 g4 i4` · `c2 e2 g2` · `c6 e6 g6`

**Z 60° (rising to the right):** `b3 c4 d5 e6 f7` · `d1 e2 f3 g4 h5`

**Z 120° (rising to the left):** `f1 e2 d3 c4 b5` · `h3 g4 f5 e6 d7`

**Y (files):** `c1 c2 c3 c4 c5 c6 c7` · `e1 e2 e3 e4 e5 e6 e7` ·
`g1 g2 g3 g4 g5 g6 g7` · `a3 a4 a5` · `i3 i4 i5`

**V 30°:** `a3 c4 e5 f5 g5` · `a5 b5 c5 e6 g7` · `c1 e2 g3 h3 i3` ·
`c3 d3 e3 g4 i5` · `c7 d7 e7` · `e1 f1 g1`

**W 150°:** `g1 e2 c3 b3 a3` · `g3 f3 e3 c4 a5` · `i3 g4 e5 d5 c5` ·
`i5 h5 g5 e6 c7` · `e1 d1 c1` · `g7 f7 e7`
"""

NEXT_CELL_2_4 = """
| cell | X+ | X− | Z60+ | Z60− | Z120+ | Z120− | Y+ | Y− | V+ | V− | W+ | W− |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
| c7 | · | · | · | · | · | · | · | c6 | d7 | · | · | e6 |
| d7 | · | · | · | · | · | e6 | · | · | e7 | c7 | · | · |
| e7 | · | · | · | · | · | · | · | e6 | · | d7 | · | f7 |
| f7 | · | · | · | e6 | · | · | · | · | · | · | e7 | g7 |
| g7 | · | · | · | · | · | · | · | g6 | · | e6 | f7 | · |
| c6 | e6 | · | · | · | · | · | c7 | c5 | · | · | · | · |
| e6 | g6 | c6 | f7 | d5 | d7 | f5 | e7 | e5 | g7 | c5 | c7 | g5 |
| g6 | · | e6 | · | · | · | · | g7 | g5 | · | · | · | · |
| a5 | · | · | · | · | · | · | · | a4 | b5 | · | · | c4 |
| b5 | · | · | · | · | · | c4 | · | · | c5 | a5 | · | · |
| c5 | · | · | · | · | · | · | c6 | c4 | e6 | b5 | · | d5 |
| d5 | · | · | e6 | c4 | · | · | · | · | · | · | c5 | e5 |
| e5 | · | · | · | · | · | · | e6 | e4 | f5 | c4 | d5 | g4 |
| f5 | · | · | · | · | e6 | g4 | · | · | g5 | e5 | · | · |
| g5 | · | · | · | · | · | · | g6 | g4 | · | f5 | e6 | h5 |
| h5 | · | · | · | g4 | · | · | · | · | · | · | g5 | i5 |
| i5 | · | · | · | · | · | · | · | i4 | · | g4 | h5 | · |
| a4 | c4 | · | · | · | · | · | a5 | a3 | · | · | · | · |
| c4 | e4 | a4 | d5 | b3 | b5 | d3 | c5 | c3 | e5 | a3 | a5 | e3 |
| e4 | g4 | c4 | · | · | · | · | e5 | e3 | · | · | · | · |
| g4 | i4 | e4 | h5 | f3 | f5 | h3 | g5 | g3 | i5 | e3 | e5 | i3 |
| i4 | · | g4 | · | · | · | · | i5 | i3 | · | · | · | · |
| a3 | · | · | · | · | · | · | a4 | · | c4 | · | · | b3 |
| b3 | · | · | c4 | · | · | · | · | · | · | · | a3 | c3 |
| c3 | · | · | · | · | · | · | c4 | c2 | d3 | · | b3 | e2 |
| d3 | · | · | · | · | c4 | e2 | · | · | e3 | c3 | · | · |
| e3 | · | · | · | · | · | · | e4 | e2 | g4 | d3 | c4 | f3 |
| f3 | · | · | g4 | e2 | · | · | · | · | · | · | e3 | g3 |
| g3 | · | · | · | · | · | · | g4 | g2 | h3 | e2 | f3 | · |
| h3 | · | · | · | · | g4 | · | · | · | i3 | g3 | · | · |
| i3 | · | · | · | · | · | · | i4 | · | · | h3 | g4 | · |
| c2 | e2 | · | · | · | · | · | c3 | c1 | · | · | · | · |
| e2 | g2 | c2 | f3 | d1 | d3 | f1 | e3 | e1 | g3 | c1 | c3 | g1 |
| g2 | · | e2 | · | · | · | · | g3 | g1 | · | · | · | · |
| c1 | · | · | · | · | · | · | c2 | · | e2 | · | · | d1 |
| d1 | · | · | e2 | · | · | · | · | · | · | · | c1 | e1 |
| e1 | · | · | · | · | · | · | e2 | · | f1 | · | d1 | · |
| f1 | · | · | · | · | e2 | · | · | · | g1 | e1 | · | · |
| g1 | · | · | · | · | · | · | g2 | · | · | f1 | e2 | · |
"""

LOTUS_GRAPH_3_1 = """
| cell | lotus neighbours | cell | lotus neighbours | cell | lotus neighbours |
|---|---|---|---|---|---|
| c7 | c6, d7 | a5 | a4, b5 | a3 | a4, b3 |
| d7 | c7, e7 | b5 | a5, c5 | b3 | a3, c3 |
| e7 | d7, f7 | c5 | b5, c6, d5 | c3 | b3, c2, d3 |
| f7 | e7, g7 | d5 | c5, e5 | d3 | c3, e3 |
| g7 | f7, g6 | e5 | d5, e4, f5 | e3 | d3, e4, f3 |
| c6 | c5, c7 | f5 | e5, g5 | f3 | e3, g3 |
| g6 | g5, g7 | g5 | f5, g6, h5 | g3 | f3, g2, h3 |
| a4 | a3, a5 | h5 | g5, i5 | h3 | g3, i3 |
| e4 | e3, e5 | i5 | h5, i4 | i3 | h3, i4 |
| i4 | i3, i5 | c2 | c1, c3 | g2 | g1, g3 |
| c1 | c2, d1 | d1 | c1, e1 | e1 | d1, f1 |
| f1 | e1, g1 | g1 | f1, g2 | | |

"""

CIRCLES_3_2 = """

* around **c4**: e4 e5 d5 c5 b5 a5 a4 a3 b3 c3 d3 e3
* around **g4**: i4 i5 h5 g5 f5 e5 e4 e3 f3 g3 h3 i3
* around **e6**: g6 g7 f7 e7 d7 c7 c6 c5 d5 e5 f5 g5
* around **e2**: g2 g3 f3 e3 d3 c3 c2 c1 d1 e1 f1 g1

Consecutive ring cells share an edge; the ring is the hexagon's King neighbourhood.
Overlaps: c4∩g4 = {e3, e4, e5}; c4∩e6 = {c5, d5, e5}; g4∩e6 = {e5, f5, g5};
"""


# -- helpers -------------------------------------------------------------------------


def table_rows(block: str) -> list[list[str]]:
    """Cells of a markdown table, header and ``---`` row dropped."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in block.strip().splitlines()]
    return rows[2:]


def names(cells) -> set[str]:
    return {G.cells[c] for c in cells}


def cell_list(text: str) -> list[str]:
    return re.findall(r"\b[a-i][1-7]\b", text)


def angle(a: int, b: int) -> float:
    """Direction from the centre of ``a`` to that of ``b``, degrees in [0, 360)."""
    (xa, ya), (xb, yb) = G.centres[a], G.centres[b]
    return math.degrees(math.atan2(yb - ya, xb - xa)) % 360


def same_angle(a: float, b: float, tol: float = 0.5) -> bool:
    return abs((a - b + 180) % 360 - 180) < tol


FAMILY_ANGLE = {"X": 0, "Z60": 60, "Z120": 120, "Y": 90, "V": 30, "W": 150}
DIRECTIONS = [f"{f}{s}" for f in FAMILY_ANGLE for s in "+-"]
HEX, TRI = G.tags["hexagon"], G.tags["triangle"]
SQUARE, RANK_SQ, OBL_SQ = G.tags["square"], G.tags["rank_square"], G.tags["oblique_square"]


# -- the quotes are the rules file's text ------------------------------------------


@pytest.mark.parametrize("block", [RANKS_1_2, SHAPES_1_2, CELLS_1_4, RECIPE_1_4, LINES_2_3,
                                   NEXT_CELL_2_4, LOTUS_GRAPH_3_1, CIRCLES_3_2])
def test_quoted_tables_are_verbatim(block: str) -> None:
    assert block.strip() in RULES_FILE.read_text(encoding="utf-8")


# -- §1.2 names and shapes -----------------------------------------------------------


def test_cell_names_by_rank() -> None:
    seen = []
    for rank, row, count in table_rows(RANKS_1_2):
        cells = row.split()
        assert len(cells) == int(count)
        on_rank = [G.cells[c] for c in range(len(G)) if G.attributes["rank"][c] == int(rank)]
        assert sorted(on_rank, key=lambda n: n[0]) == cells, f"rank {rank}"
        seen += cells
    assert sorted(seen) == sorted(G.cells) and len(G) == 39


def test_shapes_and_tags() -> None:
    text = " ".join(SHAPES_1_2.split())
    hexagons = cell_list(text.split("**Hexagons (4):**")[1].split("*")[0])
    up = cell_list(text.split('("up"):')[1].split("Apex toward White")[0])
    down = cell_list(text.split('("down"):')[1].split("*")[0])
    rank_sq = cell_list(text.split("sit on an X rank")[1].split("— 7 cells")[0])
    oblique = cell_list(text.split('"Z-files" b, d, f, h):')[1].split("— 12 cells")[0])
    assert (len(hexagons), len(up), len(down), len(rank_sq), len(oblique)) == (4, 8, 8, 7, 12)
    assert names(HEX) == set(hexagons)
    assert names(TRI) == set(up) | set(down)
    assert names(G.tags["apex_up"]) == set(up)
    assert names(G.tags["apex_down"]) == set(down)
    assert names(RANK_SQ) == set(rank_sq)
    assert names(OBL_SQ) == set(oblique)
    assert names(SQUARE) == set(rank_sq) | set(oblique)


# -- §1.4 cell table -----------------------------------------------------------------


@pytest.mark.parametrize("row", table_rows(CELLS_1_4), ids=lambda r: r[0])
def test_cell_table_row(row: list[str]) -> None:
    name, shape, apex, rank, file, x, y, side, corner = row
    c = G.cell(name)
    assert G.shapes[c] == shape.split()[0]
    if "rank" in shape:
        assert c in RANK_SQ
    if "oblique" in shape:
        assert c in OBL_SQ
    if apex != "—":
        assert c in G.tags["apex_up" if apex.endswith("7") else "apex_down"]
    assert G.attributes["rank"][c] == int(rank)
    assert G.attributes["file"][c] == file
    assert G.centres[c] == pytest.approx((float(x), float(y)), abs=6e-4)
    assert names(G.side[c]) == set(side.split(", ")), "side-neighbours"
    assert names(G.corner[c]) == set(corner.split(", ")), "corner-only neighbours"
    assert len(G.side[c]) == len(set(G.side[c])) and len(G.corner[c]) == len(set(G.corner[c]))


def test_outlines_reproduce_the_contacts() -> None:
    """Drawn outlines: sharing two vertices = side, exactly one = corner (§1.4 definitions)."""
    def key(p: tuple[float, float]) -> tuple[int, int]:
        return round(p[0] * 100), round(p[1] * 100)

    vertices = [{key(p) for p in G.outlines[c]} for c in range(len(G))]
    for a in range(len(G)):
        for b in range(len(G)):
            if a == b:
                continue
            shared = len(vertices[a] & vertices[b])
            assert (shared == 2) == (b in G.side[a]), (G.cells[a], G.cells[b])
            assert (shared == 1) == (b in G.corner[a]), (G.cells[a], G.cells[b])


def test_contact_rules_1_3() -> None:
    for c in range(len(G)):
        side_shapes = Counter(G.shapes[n] for n in G.side[c])
        corner_shapes = Counter(G.shapes[n] for n in G.corner[c])
        if c in HEX:
            assert side_shapes == {"square": 6} and corner_shapes == {"triangle": 6}
        elif c in TRI:
            assert set(side_shapes) == {"square"} and 2 <= len(G.side[c]) <= 3
            assert set(corner_shapes) == {"hexagon"} and 1 <= len(G.corner[c]) <= 3
        else:
            assert side_shapes["hexagon"] <= 2 and side_shapes["triangle"] <= 2
            assert set(side_shapes) <= {"hexagon", "triangle"}
            assert set(corner_shapes) == {"square"} and 2 <= len(G.corner[c]) <= 4
    # every interior vertex: one triangle, two squares, one hexagon
    at_vertex: dict[tuple[int, int], list[int]] = {}
    for c in range(len(G)):
        for p in G.outlines[c]:
            at_vertex.setdefault((round(p[0] * 100), round(p[1] * 100)), []).append(c)
    interior = [cs for cs in at_vertex.values() if len(cs) == 4]
    assert interior
    for cs in at_vertex.values():
        assert len(cs) <= 4
        if len(cs) == 4:
            assert sorted(G.shapes[c] for c in cs) == ["hexagon", "square", "square", "triangle"]


def test_construction_recipe() -> None:
    for hexagon, squares, triangles in table_rows(RECIPE_1_4):
        h = G.cell(hexagon)
        for k, name in enumerate(squares.split(" / ")):
            s = G.cell(name)
            assert s in G.side[h] and same_angle(angle(h, s), 60 * k), (hexagon, name)
        for k, name in enumerate(triangles.split(" / ")):
            t = G.cell(name)
            assert t in G.corner[h] and same_angle(angle(h, t), 30 + 60 * k), (hexagon, name)


def test_mirror_symmetry() -> None:
    def flip_lr(n: str) -> str:
        return "abcdefghi"[8 - "abcdefghi".index(n[0])] + n[1]

    def flip_tb(n: str) -> str:
        return n[0] + str(8 - int(n[1]))

    for flip in (flip_lr, flip_tb):
        for c in range(len(G)):
            m = G.cell(flip(G.cells[c]))
            assert G.shapes[m] == G.shapes[c]
            assert {flip(n) for n in names(G.side[c])} == names(G.side[m])
            assert {flip(n) for n in names(G.corner[c])} == names(G.corner[m])


# -- §2 lines ------------------------------------------------------------------------


def test_lines_2_3() -> None:
    quoted = {}
    for label, family in (("X (ranks)", "X"), ("Z 60°", "Z60"), ("Z 120°", "Z120"),
                          ("Y (files)", "Y"), ("V 30°", "V"), ("W 150°", "W")):
        part = LINES_2_3.split(f"**{label}")[1].split("**")[1]
        quoted[family] = {tuple(line.split()) for line in re.findall(r"`([^`]+)`", part)}
    assert set(G.lines) == set(quoted)
    for family, lines in quoted.items():
        assert {tuple(G.cells[c] for c in line) for line in G.lines[family]} == lines, family


def test_next_cell_table_2_4() -> None:
    rows = table_rows(NEXT_CELL_2_4)
    header = [h.replace("−", "-") for h in NEXT_CELL_2_4.strip().splitlines()[0].strip("|").split("|")]
    header = [h.strip() for h in header][1:]
    assert header == DIRECTIONS and sorted(G.steps) == sorted(DIRECTIONS)
    assert sorted(r[0] for r in rows) == sorted(G.cells)
    for row in rows:
        c = G.cell(row[0])
        for d, want in zip(header, row[1:], strict=True):
            got = G.steps[d][c]
            assert (G.cells[got] if got >= 0 else "·") == want, (row[0], d)
            ray = G.rays[d][c]
            assert ray[:1] == ((got,) if got >= 0 else ())


def test_steps_are_line_steps_2_1() -> None:
    """Direction angles, step kinds, and: every line-step contact is in exactly one family."""
    step_pairs = set()
    for d in DIRECTIONS:
        base = FAMILY_ANGLE[d[:-1]] + (0 if d.endswith("+") else 180)
        for a, b in enumerate(G.steps[d]):
            if b < 0:
                continue
            assert G.steps[d[:-1] + ("-" if d.endswith("+") else "+")][b] == a
            assert same_angle(angle(a, b), base), (G.cells[a], d)
            kinds = {G.shapes[a], G.shapes[b]}
            if d[0] in "XZ":
                assert kinds == {"hexagon", "square"} and b in G.side[a]
            elif kinds == {"triangle", "square"}:
                assert b in G.side[a]
            else:
                assert kinds == {"triangle", "hexagon"} and b in G.corner[a]
            step_pairs.add((a, b))
    for a in range(len(G)):
        for b in (*G.side[a], *G.corner[a]):
            kinds = {G.shapes[a], G.shapes[b]}
            is_step = (kinds in ({"hexagon", "square"}, {"triangle", "square"}) and b in G.side[a]
                       or kinds == {"triangle", "hexagon"})
            assert is_step == ((a, b) in step_pairs), (G.cells[a], G.cells[b])


def test_directions_per_shape() -> None:
    for c in range(len(G)):
        families = {d[:-1] for d in DIRECTIONS if G.steps[d][c] >= 0}
        if c in HEX:
            assert all(G.steps[d][c] >= 0 for d in DIRECTIONS)
        elif c in RANK_SQ:
            assert families <= {"X", "Y"}
        elif c in OBL_SQ:
            assert len(families & {"Z60", "Z120"}) == 1 and len(families & {"V", "W"}) == 1
            assert families <= {"Z60", "Z120", "V", "W"}
        else:
            assert families and families <= {"Y", "V", "W"}


def test_axis_cell_kinds_2_2() -> None:
    on = {f: {c for line in G.lines[f] for c in line} for f in G.lines}
    assert on["X"] == HEX | RANK_SQ
    assert on["Z60"] | on["Z120"] == HEX | OBL_SQ
    assert on["Y"] == TRI | RANK_SQ | HEX  # every triangle is on a Y file
    assert on["V"] | on["W"] == TRI | OBL_SQ | HEX


# -- §3 lotus graph and circles --------------------------------------------------------


def test_lotus_graph_3_1() -> None:
    quoted: dict[str, set[str]] = {}
    for row in table_rows(LOTUS_GRAPH_3_1):
        for k in range(0, len(row), 2):
            if row[k]:
                quoted[row[k]] = set(row[k + 1].split(", "))
    assert len(quoted) == 35
    graph = {G.cells[c]: {G.cells[n] for n in G.side[c] if n not in HEX}
             for c in range(len(G)) if c not in HEX}
    assert graph == quoted
    assert sum(len(v) for v in graph.values()) == 2 * 38
    for n, nbrs in graph.items():
        c = G.cell(n)
        if c in SQUARE:
            assert len(nbrs) == 2
        elif n in ("c5", "e5", "g5", "c3", "e3", "g3"):
            assert len(nbrs) == 3
        else:
            assert len(nbrs) == 2


def test_lotus_circles_3_2() -> None:
    quoted = {m.group(1): m.group(2).split()
              for m in re.finditer(r"around \*\*(\w\d)\*\*: ([a-i1-7 ]+)", CIRCLES_3_2)}
    assert set(quoted) == set(G.circles) == names(HEX)
    for hexagon, ring in quoted.items():
        h = G.cell(hexagon)
        assert [G.cells[c] for c in G.circles[hexagon]] == ring
        assert set(ring) == names(G.side[h] + G.corner[h]), "King neighbourhood"
        cells = G.circles[hexagon]
        for a, b in zip(cells, cells[1:] + cells[:1], strict=True):
            assert b in G.side[a], (G.cells[a], G.cells[b])
        turns = [(angle(h, b) - angle(h, a)) % 360 for a, b in zip(cells, cells[1:] + cells[:1],
                                                                    strict=True)]
        assert all(0 < t < 180 for t in turns), "counter-clockwise"
    text = " ".join(CIRCLES_3_2.split())
    for a, b, members in re.findall(r"(\w\d)∩(\w\d) = (\{[^}]*\}|∅)", text):
        want = set(cell_list(members))
        assert names(set(G.circles[a]) & set(G.circles[b])) == want, (a, b)
