# ruff: noqa: E501  (rules-file tables are quoted verbatim)
"""Lotus-39 rules: every worked example of lotus39.md and DECISIONS.md as a test.

The §5.4 pawn table, the §8 reachable-cell totals and the §9 diagram table are quoted
verbatim from the rules file (checked against the copy in tests/data/rules) and
parsed here, so each row is one test.  Legal-move generation (which avoids make/undo) is
checked against a brute-force reference on random positions, and make/undo, position
text and notation are property-tested with hypothesis.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from controller.cli import main as cli_main
from controller.rules import get_game
from controller.rules.core import (
    OFF_BOARD,
    IllegalMoveError,
    Move,
    Piece,
    Position,
    PositionError,
)
from controller.rules.lotus39 import PIECE_TYPES, PIECES, Lotus39, ModernLotus39, mirror_cell

GAME = get_game("lotus39")
MODERN = get_game("lotus39-modern")
G = GAME.geometry
RULES_FILE = Path(__file__).resolve().parent / "data" / "rules" / "lotus39.md"
NAME_TO_LETTER = {p.name: p.letter for p in PIECE_TYPES}

REACH_8 = """
All of these match the seed: Alfil 16, Alfilrider 16, Archbishop 20, Bishop 39,
Colonel 20, Counselor/King 39, Crook 39, Dabbaba 11 (hexagons + rank squares),
Ferz 19, General 23, Haxxaba 16 (hexagons + oblique squares), Knight 4, Lotusrider 35,
Lotussa 35, Orthodonter 27 (the Y-file cells), Ouroboros 35, Queen 39, Rook 23,
Squeen 39, Squirrel 39, Wazir 23, Wyvern 32.
"""

DIAGRAMS_9 = """
| diagram | piece | from | other pieces | # | expected destinations | verdict |
|---|---|---|---|---|---|---|
| A1-1 | Alfil | e3 | — | 6 | a5 c3 e1 e5 g3 i5 | match |
| A1-1 | Alfil | g7 | — | 3 | c5 e7 g5 | match; text says "f7", diagram shows g7 (an Alfil must stand on a triangle) |
| A2-1 | Alfilrider | c3 | — | 7 | a3 c1 c5 c7 e3 g1 i5 | match |
| A3-1 | Archbishop | e3 | — | 11 | a5 c3 c4 e1 e2 e5 e6 e7 g3 g4 i5 | match |
| B1-1 | Bishop | e3 | — | 14 | a5 c3 c4 d3 e1 e2 e4 e5 e6 e7 f3 g3 g4 i5 | count matches; one mark is drawn inside b5 beside a5's apex — read as a5 |
| C1-1 | Colonel | g4 | — | 6 | e3 e5 g3 g5 i3 i5 | match |
| C1-1 | Colonel | c3 | — | 2 | c4 e2 | match |
| C3-1 | Crook | g4 | — | 18 | a4 c4 d1 d7 e2 e4 e6 f3 f5 g1 g2 g3 g5 g6 g7 h3 h5 i4 | match |
| D1-1 | Dabbaba | (all) | — | 11 | a4 c2 c4 c6 e2 e4 e6 g2 g4 g6 i4 | match |
| D1-2 | Dabbaba | e4 | — | 4 | a4 e2 e6 i4 | match |
| D1-2 | Dabbaba | g4 | — | 5 | c4 e2 e6 g2 g6 | match |
| F1-1 | Ferz | f5 | — | 4 | d5 e4 g6 h5 | match |
| F1-1 | Ferz | f1 | — | 2 | d1 g2 | match |
| G1-1 | General | c4 | — | 6 | a4 b3 b5 d3 d5 e4 | match |
| G1-1 | General | f5 | — | 6 | d5 e4 e6 g4 g6 h5 | match |
| H1-1 | Haxxaba | (all) | — | 16 | b3 b5 c4 d1 d3 d5 d7 e2 e6 f1 f3 f5 f7 g4 h3 h5 | match |
| H1-2 | Haxxaba | g4 | — | 4 | d3 d5 e2 e6 | **mismatch**: seed shows 5, adding c4 (an X-axis leap the Haxxaba's own definition excludes) |
| H1-2 | Haxxaba | f3 | — | 3 | c4 d1 h5 | match |
| K1-1 | King | e4 | — | 8 | c4 d3 d5 e3 e5 f3 f5 g4 | match |
| K1-2 | King | f3 | — | 8 | d3 e2 e3 e4 g2 g3 g4 h3 | match |
| K1-2 | King | d7 | — | 5 | c6 c7 e6 e7 f7 | match |
| text | King | c4 / g4 / e6 / e2 | — | 12 | its lotus circle (3.2) | match |
| K2-1 | Knight | e2 | — | 2 | c4 g4 (not e6) | match |
| L1-1 | Lotusrider | e7 | own Pawns g6, d5; enemy Pawns c2, f3; enemy Wyvern i5 | 22 | a3 a4 a5 b3 b5 c2× c3 c5 c6 c7 d3 d7 e3 e4 e5 f3× f5 f7 g5 g7 h5 i5× (× = capture) | match; the seed's prose says the enemy pawn is on d3, its diagram has it on f3 (d3 is an empty path cell) |
| L1-1 (2nd) | Lotussa | e3 | — | 12 | b3 c2 c3 d3 d5 e4 e5 f3 f5 g2 g3 h3 | match |
| text | Lotussa | e3 | any piece on c3 | 9 | d3 d5 e4 e5 f3 f5 g2 g3 h3 (+ c3 if enemy) | matches the prose (b3, c2 cut off) |
| text | Lotussa | e3 | any piece on d3 | 8 | d5 e4 e5 f3 f5 g2 g3 h3 (+ d3 if enemy) | matches the prose (b3, c3, c2 cut off) |
| O1-1 | Orthodonter | (all) | — | 27 | every cell of files a, c, e, g, i | match |
| O1-2 | Orthodonter | e4 | — | 4 | c4 e3 e5 g4 | match |
| O1-2 | Orthodonter | e7 | — | 1 | e6 | match |
| O1-2 | Orthodonter | a5 | — | 1 | a4 (marked "$") | match |
| O2-1 | Ouroboros | i3 | — | 11 | e3 e4 e5 f3 f5 g3 g5 h3 h5 i4 i5 | match |
| text | Ouroboros | e4 | — | 20 | a3 a4 a5 b3 b5 c3 c5 d3 d5 e3 e5 f3 f5 g3 g5 h3 h5 i3 i4 i5 | **mismatch** with the prose claim "all 35" (see 11.5) |
| Q1-1 | Queen | g4 | — | 26 | a4 c3 c4 c5 d1 d3 d5 d7 e2 e3 e4 e5 e6 f3 f5 g1 g2 g3 g5 g6 g7 h3 h5 i3 i4 i5 | match |
| R2-1 | Rook | g4 | — | 12 | a4 c4 d1 d7 e2 e4 e6 f3 f5 h3 h5 i4 | match (marked "*") |
| S1-1 | Squeen | g4 | — | 22 | a4 c3 c4 c5 d1 d7 e2 e3 e4 e5 e6 f3 f5 g1 g3 g5 g7 h3 h5 i3 i4 i5 | match |
| S2-1 | Squirrel | e4 | — | 20 | a3 a4 a5 b3 b5 c2 c3 c5 c6 e2 e6 g2 g3 g5 g6 h3 h5 i3 i4 i5 | count matches; the diagram forgot to mark i4 (mirror of the marked a4) |
| W1-1 | Wazir | c4 | — | 6 | a4 b3 b5 d3 d5 e4 | match |
| W1-1 | Wazir | f7 | — | 1 | e6 | match |
| W2-1 | Wyvern | c4 | — | 8 | a3 a5 e3 e5 f3 f5 g3 g5 | match |
"""

PAWN_TABLE_5_4 = """
| cell | White move | White capture | Black move | Black capture |
|---|---|---|---|---|
| c7 | — | — | c6 | e6 |
| d7 | — | — | e6 | c6, f7 |
| e7 | — | — | e6 | d7, f7 |
| f7 | — | — | e6 | d7, g6 |
| g7 | — | — | g6 | e6 |
| c6 | c7 | d7 | c5 | b5, d5 |
| e6 | d7, e7, f7 | c7, d7, f7, g7 | d5, e5, f5 | c5, d5, f5, g5 |
| g6 | g7 | f7 | g5 | f5, h5 |
| a5 | b5 (dead end) | b5 | a4 | c4 |
| b5 | c5 (dead end) | c6 | c4 | a4, d5 |
| c5 | c6 | e6 | c4 | b5, d5 |
| d5 | e6 | c6, f5 | c4 | b5, e4 |
| e5 | e6 | d5, f5 | e4 | c4, g4 |
| f5 | e6 | d5, g6 | g4 | e4, h5 |
| g5 | g6 | e6 | g4 | f5, h5 |
| h5 | g5 (dead end) | g6 | g4 | f5, i4 |
| i5 | h5 (dead end) | h5 | i4 | g4 |
| a4 | a5 | b5 | a3 | b3 |
| c4 | b5, c5, d5 | a5, b5, d5, e5 | b3, c3, d3 | a3, b3, d3, e3 |
| e4 | e5 | d5, f5 | e3 | d3, f3 |
| g4 | f5, g5, h5 | e5, f5, h5, i5 | f3, g3, h3 | e3, f3, h3, i3 |
| i4 | i5 | h5 | i3 | h3 |
| a3 | a4 | c4 | b3 (dead end) | b3 |
| b3 | c4 | a4, d3 | c3 (dead end) | c2 |
| c3 | c4 | b3, d3 | c2 | e2 |
| d3 | c4 | b3, e4 | e2 | c2, f3 |
| e3 | e4 | c4, g4 | e2 | d3, f3 |
| f3 | g4 | e4, h3 | e2 | d3, g2 |
| g3 | g4 | f3, h3 | g2 | e2 |
| h3 | g4 | f3, i4 | g3 (dead end) | g2 |
| i3 | i4 | g4 | h3 (dead end) | h3 |
| c2 | c3 | b3, d3 | c1 | d1 |
| e2 | d3, e3, f3 | c3, d3, f3, g3 | d1, e1, f1 | c1, d1, f1, g1 |
| g2 | g3 | f3, h3 | g1 | f1 |
| c1 | c2 | e2 | — | — |
| d1 | e2 | c2, f1 | — | — |
| e1 | e2 | d1, f1 | — | — |
| f1 | e2 | d1, g2 | — | — |
| g1 | g2 | e2 | — | — |
"""


# -- helpers -------------------------------------------------------------------------


def table_rows(block: str) -> list[list[str]]:
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in block.strip().splitlines()]
    return rows[2:]


def cells_in(text: str) -> list[str]:
    return re.findall(r"\b[a-i][1-7]\b", text)


def pos_from(pieces: dict[str, str], side: str = "w", reserves: str = "-",
             game: Lotus39 = GAME, half: int = 0, full: int = 1) -> Position:
    """A position from {cell: symbol}, listed in board order as position_text writes it."""
    order = sorted(pieces, key=G.cell)
    board = ",".join(f"{c}={pieces[c]}" for c in order) or "-"
    return game.parse_position(f"{board} {side} {reserves} {half} {full}")


def destinations(letter: str, cell: str, others: dict[str, str] | None = None) -> dict[str, bool]:
    """Target -> is-capture for a White piece alone with ``others`` (no Kings)."""
    pos = pos_from({cell: letter, **(others or {})})
    c = G.cell(cell)
    return {G.cells[m.target]: bool(m.captures) for m in GAME.legal_moves(pos) if m.origin == c}


def closure(letter: str, start: str) -> set[str]:
    """Every cell a lone piece can move to from ``start`` in one or more moves."""
    seen, todo = set(), [start]
    while todo:
        for t in destinations(letter, todo.pop()):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def texts(pos: Position) -> list[str]:
    return [GAME.move_text(pos, m) for m in GAME.legal_moves(pos)]


# -- the quotes are the rules file's text ------------------------------------------


@pytest.mark.parametrize("block", [REACH_8, DIAGRAMS_9, PAWN_TABLE_5_4])
def test_quoted_tables_are_verbatim(block: str) -> None:
    assert block.strip() in RULES_FILE.read_text(encoding="utf-8")


# -- pieces --------------------------------------------------------------------------


def test_the_26_pieces_of_the_seed() -> None:
    names = {"King", "Counselor", "Rook", "Crook", "Wyvern", "Knight", "Lotussa", "Pawn",
             "Alfil", "Ferz", "Queen", "Squeen", "Bishop", "Alfilrider", "Archbishop", "Wazir",
             "General", "Colonel", "Orthodonter", "Dabbaba", "Haxxaba", "Hexrider", "Squirrel",
             "Lotusrider", "Ouroboros", "Retreatable Pawn"}
    assert {p.name for p in PIECE_TYPES} == names
    assert len(PIECES) == 26 and all(len(k) == 1 and k.isupper() for k in PIECES)
    assert [p.letter for p in PIECE_TYPES if p.royal] == ["K"]


def _diagram_cases() -> list:
    cases = []
    for diagram, piece, start, other, count, expected, _verdict in table_rows(DIAGRAMS_9):
        if start in ("(all)",) or "/" in start:
            continue
        letter = NAME_TO_LETTER[piece]
        listed = expected.split("(")[0]  # "(not e6)", "(+ c3 if enemy)" are notes
        dests = {c: c + "×" in listed for c in cells_in(listed)}
        assert len(dests) == int(count), (diagram, piece, start)
        if other.startswith("any piece on"):
            blocker = cells_in(other)[0]
            extra = cells_in(expected.split("(+")[1])
            assert extra == [blocker]
            cases.append((f"{diagram}-{start}-own-{blocker}", letter, start,
                          {blocker: "P"}, dests))
            cases.append((f"{diagram}-{start}-enemy-{blocker}", letter, start,
                          {blocker: "p"}, {**dests, blocker: True}))
            continue
        others: dict[str, str] = {}
        if other != "—":
            for part in other.split(";"):
                side, name, *rest = part.split()
                sym = NAME_TO_LETTER[name.rstrip("s") if name.rstrip("s") in NAME_TO_LETTER
                                     else name]
                for c in cells_in(" ".join(rest)):
                    others[c] = sym if side == "own" else sym.lower()
        cases.append((f"{diagram}-{piece}-{start}", letter, start, others, dests))
    return cases


@pytest.mark.parametrize("case", _diagram_cases(), ids=lambda c: c[0])
def test_diagram_9(case) -> None:
    _, letter, start, others, want = case
    assert destinations(letter, start, others) == want


def test_diagram_table_is_fully_used() -> None:
    rows = table_rows(DIAGRAMS_9)
    singles = [r for r in rows if r[2] != "(all)" and "/" not in r[2]]
    assert (len(rows), len(singles)) == (40, 36)
    assert len(_diagram_cases()) == len(singles) + 2  # the two "any piece on" rows count twice


@pytest.mark.parametrize("row", [r for r in table_rows(DIAGRAMS_9) if r[2] == "(all)"],
                         ids=lambda r: r[0])
def test_diagram_9_whole_reach(row: list[str]) -> None:
    """The "(all)" diagrams: every cell the piece can ever reach from a cell of the set."""
    letter, want = NAME_TO_LETTER[row[1]], set(cells_in(row[5]))
    if row[5].startswith("every cell of files"):
        files = re.findall(r"\b([a-i])\b", row[5])
        want = {n for n in G.cells if n[0] in files}
    assert len(want) == int(row[4])
    for start in want:
        assert closure(letter, start) == want


def test_king_on_a_hexagon_reaches_its_lotus_circle() -> None:
    (row,) = [r for r in table_rows(DIAGRAMS_9) if "/" in r[2]]
    for hexagon in row[2].split(" / "):
        want = {G.cells[c] for c in G.circles[hexagon]}
        assert len(want) == int(row[4])
        for letter in ("K", "U"):
            assert set(destinations(letter, hexagon)) == want


def _reach_totals() -> list[tuple[str, int, str]]:
    text = " ".join(REACH_8.split()).split(":", 1)[1]
    out = []
    for m in re.finditer(r"([A-Z][a-z]+(?:/[A-Z][a-z]+)?) (\d+)(?: \(([^)]*)\))?", text):
        for name in m.group(1).split("/"):
            out.append((name, int(m.group(2)), m.group(3) or ""))
    return out


@pytest.mark.parametrize("name,total,note", _reach_totals(), ids=lambda x: str(x))
def test_reachable_totals_8(name: str, total: int, note: str) -> None:
    letter = NAME_TO_LETTER[name]
    assert max(len(closure(letter, c)) for c in G.cells) == total
    from_hexagon = closure(letter, "c4")
    if note == "hexagons + rank squares":
        assert from_hexagon == {G.cells[c] for c in G.tags["hexagon"] | G.tags["rank_square"]}
    elif note == "hexagons + oblique squares":
        assert from_hexagon == {G.cells[c] for c in G.tags["hexagon"] | G.tags["oblique_square"]}
    elif note == "the Y-file cells":
        assert from_hexagon == {n for n in G.cells if n[0] in "acegi"}
    else:
        assert not note


def test_reach_totals_cover_section_8() -> None:
    assert len(_reach_totals()) == 23


def test_piece_notes_of_4_1() -> None:
    triangles = {G.cells[c] for c in G.tags["triangle"]}
    rank_squares = {G.cells[c] for c in G.tags["rank_square"]}
    hexagons = {G.cells[c] for c in G.tags["hexagon"]}
    for c in G.cells:
        assert not set(destinations("R", c)) & triangles  # a Rook never stands on a triangle
        assert not set(destinations("Y", c)) & rank_squares  # a Wyvern never on a rank square
        assert set(destinations("N", c)) <= hexagons
        assert not set(destinations("L", c)) & hexagons  # a Lotussa never enters a hexagon
        assert set(destinations("H", c)) == set(destinations("N", c)) or c not in hexagons
    assert set(destinations("N", "e2")) == {"c4", "g4"}
    assert set(destinations("N", "e6")) == {"c4", "g4"}
    assert set(destinations("N", "c4")) == {"e2", "e6", "g4"}  # c4<->g4 per DECISIONS
    assert set(destinations("N", "g4")) == {"e2", "e6", "c4"}


def test_riders_stop_at_the_first_piece() -> None:
    assert destinations("R", "g4", {"e4": "p", "f5": "P"}) == {
        "e4": True, "h5": False, "f3": False, "e2": False, "d1": False, "h3": False,
        "i4": False}
    # an Alfilrider leaps squares and hexagons whatever stands on them; a triangle blocks
    assert destinations("I", "c3", {"c4": "p", "c5": "P", "e3": "p"}) == {
        "c1": False, "a3": False, "g1": False, "e3": True}
    # an Archbishop is blocked by hexagons too, and may capture there
    assert destinations("J", "c3", {"c4": "p"})["c4"] is True
    assert "c5" not in destinations("J", "c3", {"c4": "p"})
    # a Hexrider leaps squares: the Knight's leap, but blocked by a piece on a hexagon
    assert set(destinations("H", "a4")) == {"c4", "g4"}
    assert set(destinations("H", "a4", {"c4": "P"})) == set()


def test_ouroboros_keeps_to_one_circle() -> None:
    assert set(destinations("O", "i3")) == {G.cells[c] for c in G.circles["g4"]} - {"i3"}
    # blocked both ways round the g4 circle next to i3: nothing left
    assert destinations("O", "i3", {"h3": "P", "i4": "P"}) == {}


# -- pawns ---------------------------------------------------------------------------


def _quoted_pawn_table() -> dict[str, list[set[str]]]:
    return {row[0]: [set(cells_in(x)) for x in row[1:]] for row in table_rows(PAWN_TABLE_5_4)}


def test_pawn_table_data_is_section_5_4() -> None:
    quoted = _quoted_pawn_table()
    t = GAME.tables
    assert set(quoted) == set(G.cells)
    for name, (wm, wc, bm, bc) in quoted.items():
        c = G.cell(name)
        assert {G.cells[x] for x in t.pawn_moves[0][c]} == wm, name
        assert {G.cells[x] for x in t.pawn_captures[0][c]} == wc, name
        assert {G.cells[x] for x in t.pawn_moves[1][c]} == bm, name
        assert {G.cells[x] for x in t.pawn_captures[1][c]} == bc, name


def test_black_pawn_table_is_the_mirror() -> None:
    quoted = _quoted_pawn_table()
    for name, (wm, wc, _, _) in quoted.items():
        _, _, bm, bc = quoted[mirror_cell(name)]
        assert bm == {mirror_cell(x) for x in wm} and bc == {mirror_cell(x) for x in wc}, name


def _derived_white_pawn(name: str) -> tuple[set[str], set[str]]:
    """White's targets from the written rules §5.1 and §5.2 and the board geometry alone."""
    c = G.cell(name)
    if G.attributes["rank"][c] == 7:
        return set(), set()
    step = {d: G.steps[d][c] for d in G.steps}
    shape_tags = {t for t in ("hexagon", "triangle", "rank_square", "oblique_square",
                              "apex_up", "apex_down") if c in G.tags[t]}
    moves: set[int] = set()
    if "hexagon" in shape_tags:
        moves = {step["Y+"], step["Z60+"], step["Z120+"]}
    elif "oblique_square" in shape_tags:
        moves = {step["Z60+"], step["Z120+"]}
    else:
        moves = {step["Y+"]}
    moves.discard(-1)
    if not moves:  # dead end: one step along the slant toward the e file
        toward_e = [step[d] for d in ("V+", "W+") if step[d] >= 0
                    and abs(ord(G.cells[step[d]][0]) - ord("e")) < abs(ord(name[0]) - ord("e"))]
        moves = set(toward_e)
    caps: set[int] = set()
    if "rank_square" in shape_tags:
        front = step["Y+"]
        caps = {x for x in G.side[front] if x in G.tags["oblique_square"]}
    elif "apex_down" in shape_tags:
        caps = {x for x in G.corner[c] if G.attributes["rank"][x] == G.attributes["rank"][c] + 1}
    elif "apex_up" in shape_tags:
        caps = {x for x in G.side[c] if x in G.tags["square"]
                and G.attributes["rank"][x] == G.attributes["rank"][c]}
    elif "oblique_square" in shape_tags:
        family = "Z60" if step["Z60+"] >= 0 or step["Z60-"] >= 0 else "Z120"
        forward = {"Z60": 60, "Z120": 120}[family]
        ux, uy = math.cos(math.radians(forward)), math.sin(math.radians(forward))
        outline = G.outlines[c]
        edges = [(outline[k], outline[(k + 1) % 4]) for k in range(4)]
        front_edge = max(edges, key=lambda e: (e[0][0] + e[1][0]) * ux + (e[0][1] + e[1][1]) * uy)

        def touches(x: int, p: tuple[float, float]) -> bool:
            return any(abs(q[0] - p[0]) < 1e-2 and abs(q[1] - p[1]) < 1e-2 for q in G.outlines[x])

        caps = {x for x in G.tags["square"] if x != c
                and any(touches(x, p) for p in front_edge)}
    else:  # hexagon
        caps = {step["Z60+"], step["Z120+"], step["V+"], step["W+"]}
    caps.discard(-1)
    return {G.cells[x] for x in moves}, {G.cells[x] for x in caps}


@pytest.mark.parametrize("name", G.cells)
def test_pawn_table_follows_the_written_rules(name: str) -> None:
    wm, wc, _, _ = _quoted_pawn_table()[name]
    assert _derived_white_pawn(name) == (wm, wc)


def test_seed_pawn_examples() -> None:
    assert destinations("P", "b5", {"c6": "p"})["c6"] is True  # White b5 captures c6
    assert destinations("P", "d3", {"e4": "p"})["e4"] is True  # White d3 captures e4
    assert destinations("P", "a5") == {"b5": False}  # a5 may move to b5 ...
    assert destinations("P", "a5", {"b5": "p"}) == {"b5": True}  # ... and capture there
    assert destinations("P", "b5") == {"c5": False}  # b5 moves to c5 ...
    assert destinations("P", "b5", {"c5": "p"}) == {}  # ... but cannot capture there
    pos = pos_from({"h3": "p", "g2": "P"}, side="b")
    assert [(G.cells[m.target], m.captures != ()) for m in GAME.legal_moves(pos)] == [
        ("g3", False), ("g2", True)]  # Black h3 captures g2 (besides its dead-end step)


def test_dead_end_walk() -> None:
    pos = pos_from({"a5": "P", "i3": "k", "i5": "K"})
    walk = []
    for _ in range(2):
        (move,) = [m for m in GAME.legal_moves(pos) if G.cells[m.origin] in ("a5", "b5", "c5")]
        walk.append(GAME.long_move_text(pos, move))
        pos.push(move)
        pos.push(next(m for m in GAME.legal_moves(pos)))
    assert walk == ["a5-b5", "b5-c5"]


def test_pawn_needs_empty_target_and_enemy_for_capture() -> None:
    assert destinations("P", "e4") == {"e5": False}
    assert destinations("P", "e4", {"e5": "p", "d5": "P", "f5": "p"}) == {"f5": True}
    # a Pawn on a hexagon steps or captures on either forward oblique square (DECISIONS)
    assert destinations("P", "c4") == {"b5": False, "c5": False, "d5": False}
    assert destinations("P", "c4", {"b5": "p", "a5": "p", "e5": "p", "d5": "p"}) == {
        "b5": True, "a5": True, "e5": True, "d5": True, "c5": False}
    assert destinations("P", "e3") == {"e4": False}  # no double step


@pytest.mark.parametrize("game,kinds", [(GAME, ("R", "A", "L", "F", "N")),
                                        (MODERN, ("C", "Y", "U", "L", "N"))])
def test_compulsory_promotion_to_the_initial_army(game: Lotus39, kinds: tuple[str, ...]) -> None:
    assert game.promotion_kinds == kinds
    pos = pos_from({"e6": "P", "g7": "r", "a4": "K", "i4": "k"}, game=game)
    moves = [m for m in game.legal_moves(pos) if G.cells[m.origin] == "e6"]
    by_target: dict[str, list[str]] = {}
    for m in moves:
        assert m.promotion and m.piece == Piece(0, m.promotion)
        by_target.setdefault(G.cells[m.target], []).append(m.promotion)
    assert by_target == {t: list(kinds) for t in ("d7", "e7", "f7", "g7")}
    assert all(bool(m.captures) == (G.cells[m.target] == "g7") for m in moves)
    black = pos_from({"e2": "p", "c1": "R", "a4": "K", "i4": "k"}, side="b", game=game)
    moves = [m for m in game.legal_moves(black) if G.cells[m.origin] == "e2"]
    assert {(G.cells[m.target], m.promotion) for m in moves} == {
        (t, k) for t in ("d1", "e1", "f1", "c1") for k in kinds}
    assert all(m.piece.owner == 1 for m in moves)


def test_promotion_to_an_immobile_knight_is_allowed() -> None:
    pos = pos_from({"c6": "P"})
    move = GAME.parse_move(pos, "c7=N")
    pos.push(move)
    assert pos.board[G.cell("c7")] == Piece(0, "N")
    assert destinations("N", "c7") == {}


def test_pawn_on_its_promotion_rank_is_rejected() -> None:
    with pytest.raises(PositionError, match="should have promoted"):
        pos_from({"d7": "P"})
    with pytest.raises(PositionError, match="should have promoted"):
        pos_from({"f1": "p"})


# -- Retreatable Pawn ------------------------------------------------------------------


def test_retreatable_pawn() -> None:
    # forward as a Pawn, plus a step back along any move that leads here; never a capture back
    assert set(destinations("V", "e5")) == {"e6", "e4"}
    assert set(destinations("V", "e6")) == {"d7", "e7", "f7", "d5", "e5", "f5"}
    pos = pos_from({"e5": "V", "e4": "p", "d5": "p"})
    got = {(G.cells[m.target], bool(m.captures)) for m in GAME.legal_moves(pos)}
    assert got == {("e6", False), ("d5", True)}  # e4 is occupied: no retreat, no capture back
    assert GAME.tables.pawn_retreats[0][G.cell("c5")] == (G.cell("b5"), G.cell("c4"))
    assert not GAME.in_check(pos_from({"e5": "V", "e4": "k"}, side="b"))
    assert GAME.in_check(pos_from({"e5": "V", "f5": "k"}, side="b"))
    # arriving on the last rank it may stay a pawn or promote; later it may promote in place
    pos = pos_from({"c6": "V"})
    arrivals = sorted(m.promotion for m in GAME.legal_moves(pos) if G.cells[m.target] == "c7")
    assert arrivals == sorted(["", *GAME.promotion_kinds])
    pos.push(GAME.parse_move(pos, "Vc7"))
    assert pos.board[G.cell("c7")] == Piece(0, "V")
    pos = pos_from({"c7": "V"}, half=7)
    moves = GAME.legal_moves(pos)
    assert {GAME.long_move_text(pos, m) for m in moves} == {
        "Vc7-c6", *(f"Vc7={k}" for k in GAME.promotion_kinds)}
    promote = GAME.parse_move(pos, "Vc7=L")
    assert promote.kind == "promote" and promote.origin == promote.target == G.cell("c7")
    pos.push(promote)
    assert pos.board[G.cell("c7")] == Piece(0, "L") and pos.halfmove == 0


# -- the home-hexagon stack ------------------------------------------------------------


def test_stack_leaves_one_pawn_at_a_time() -> None:
    pos = GAME.start()
    e2 = G.cell("e2")
    assert pos.board[e2] == Piece(0, "P", 3)
    stack_moves = [m for m in GAME.legal_moves(pos) if m.origin == e2]
    assert [G.cells[m.target] for m in stack_moves] == ["d3", "f3"]  # one move per destination
    assert all(m.left == Piece(0, "P", 2) and m.piece == Piece(0, "P") for m in stack_moves)
    plays = [("e2-d3", Piece(0, "P", 2)), ("a5-a4", None), ("e2-f3", Piece(0, "P", 1)),
             ("i5-i4", None), ("d3-c4", None), ("Fg6-h5", None), ("e2-d3", None)]
    for text, left in plays:
        move = GAME.parse_move(pos, text)
        pos.push(move)
        if move.origin == e2:
            assert move.left == left and pos.board[e2] == left
            assert pos.board[move.target] == Piece(0, "P")
    assert pos.board[e2] is None
    pos.push(GAME.parse_move(pos, "Fh5-g6"))
    assert "N@e2" in texts(pos)


def test_capture_on_the_stack_removes_every_pawn() -> None:
    pos = pos_from({"e2": "P3", "e6": "c", "a4": "K", "i4": "k"}, side="b")
    move = GAME.parse_move(pos, "Cxe2")
    assert move.captures == (G.cell("e2"),) and move.piece == Piece(1, "C")
    pos.push(move)
    assert pos.board[G.cell("e2")] == Piece(1, "C")
    assert not any(p and p.kind == "P" for p in pos.board)


def test_nothing_joins_a_stack() -> None:
    pos = pos_from({"e2": "P2", "d3": "V"})
    assert G.cell("e2") not in {m.target for m in GAME.legal_moves(pos)}
    pos = pos_from({"e2": "P", "d3": "V"})
    assert G.cell("e2") not in {m.target for m in GAME.legal_moves(pos)}
    assert G.cell("e2") in {m.target for m in GAME.legal_moves(pos_from({"d3": "V"}))}


@pytest.mark.parametrize("text,problem", [
    ("e2=R2 w - 0 1", "only Pawns stack"),
    ("c4=P2 w - 0 1", "only on its home hexagon e2"),
    ("e6=P2 w - 0 1", "only on its home hexagon e2"),
    ("e2=P4 w - 0 1", "at most 3 Pawns"),
    ("e2=P1 w - 0 1", "without height"),
])
def test_bad_stacks_are_rejected(text: str, problem: str) -> None:
    with pytest.raises(PositionError, match=problem):
        GAME.parse_position(text)


# -- the reserve Knight --------------------------------------------------------------


def test_reserve_knight_enters_on_the_emptied_home_hexagon() -> None:
    pos = GAME.start()
    assert pos.reserves == [{"N": 1}, {"N": 1}]
    assert not [m for m in GAME.legal_moves(pos) if m.kind == "place"]
    pos = pos_from({"e1": "K", "e7": "k", "e3": "P"}, reserves="Nn")
    (place,) = [m for m in GAME.legal_moves(pos) if m.kind == "place"]
    assert place == Move("place", OFF_BOARD, G.cell("e2"), Piece(0, "N"))
    assert GAME.move_text(pos, place) == "N@e2" == GAME.long_move_text(pos, place)
    pos.push(place)
    assert pos.reserves == [{}, {"N": 1}] and pos.board[G.cell("e2")] == Piece(0, "N")
    (black,) = [m for m in GAME.legal_moves(pos) if m.kind == "place"]
    assert black.target == G.cell("e6") and black.piece == Piece(1, "N")
    pos.push(black)
    assert {GAME.long_move_text(pos, m) for m in GAME.legal_moves(pos)
            if m.origin == G.cell("e2")} == {"Ne2-c4", "Ne2-g4"}
    pos.pop()
    pos.pop()
    assert pos.reserves == [{"N": 1}, {"N": 1}] and pos.board[G.cell("e2")] is None


def test_knight_placement_and_check() -> None:
    # placing the Knight may block a check along the e file ...
    pos = pos_from({"e1": "K", "e6": "c", "a4": "k"}, reserves="N")
    assert GAME.in_check(pos)
    assert "N@e2" in texts(pos)
    # ... but is illegal when the King stays in check (a Lotussa's path does not cross e2)
    pos = pos_from({"e1": "K", "c1": "l", "a4": "k"}, reserves="N")
    assert GAME.in_check(pos)
    assert "N@e2" not in texts(pos)
    # a reserve Knight attacks nothing
    assert not GAME.in_check(pos_from({"d3": "k", "a4": "K"}, side="b", reserves="N"))


# -- check, mate, stalemate, draws ---------------------------------------------------


def test_checkmate() -> None:
    pos = pos_from({"c7": "k", "e4": "C", "g4": "R", "i3": "K"}, half=99)
    move = GAME.parse_move(pos, "Cc4")
    assert GAME.move_text(pos, move) == "Cc4#"
    pos.push(move)
    assert pos.halfmove == 100
    assert GAME.outcome(pos).reason == "checkmate" and GAME.outcome(pos).winners == (0,)


def test_stalemate_is_a_draw() -> None:
    pos = pos_from({"c7": "k", "g6": "R", "g4": "R", "i3": "K"}, side="b")
    assert not GAME.in_check(pos) and GAME.legal_moves(pos) == []
    assert GAME.outcome(pos).reason == "stalemate" and GAME.outcome(pos).winners == ()


def test_only_the_king_is_royal() -> None:
    pos = pos_from({"e4": "U", "e5": "r", "i3": "K", "a3": "k"})
    assert not GAME.in_check(pos)
    assert "Uxe5" in texts(pos)


def test_pinned_piece_and_king_safety() -> None:
    # a Lotussa on e4 pinned along the e file may only step to e3 or e5
    pos = pos_from({"e1": "K", "e4": "L", "e6": "c", "a4": "k"})
    assert set(destinations("L", "e4")) == {"e3", "e5", "d3", "f3", "c3", "g3", "d5", "f5", "c5", "g5"}
    moves = {GAME.long_move_text(pos, m) for m in GAME.legal_moves(pos)}
    assert {m for m in moves if m.startswith("L")} == {"Le4-e3", "Le4-e5"}
    # a Rook pinned by a Lotussa path (c1-d1-e1) may not leave d1
    pos = pos_from({"e1": "K", "d1": "R", "c1": "l", "a4": "k"})
    assert not [m for m in GAME.legal_moves(pos) if G.cells[m.origin] == "d1"]
    # an Ouroboros pins round its circle; an Alfilrider leaps the square between
    pos = pos_from({"e1": "K", "f1": "W", "g1": "o", "a4": "k"})
    assert not [m for m in GAME.legal_moves(pos) if G.cells[m.origin] == "f1"]
    pos = pos_from({"e1": "K", "e3": "G", "e5": "i", "a4": "k"})
    assert not [m for m in GAME.legal_moves(pos) if G.cells[m.origin] == "e3"]
    pos = pos_from({"e1": "K", "e2": "N", "e5": "i", "a4": "k"})  # e2 is leapt: check
    assert GAME.in_check(pos)
    assert not [m for m in GAME.legal_moves(pos) if G.cells[m.origin] == "e2"]
    # the King may not step onto an attacked cell, nor stay on the line it blocks
    assert "Ke1-e2" not in {GAME.long_move_text(pos, m) for m in GAME.legal_moves(
        pos_from({"e1": "K", "e6": "c", "a4": "k"}))}


def test_threefold_repetition() -> None:
    pos = pos_from({"a4": "K", "i4": "k", "c2": "R"})
    for k, text in enumerate(["Ka3", "Ki3", "Ka4", "Ki4"] * 2):
        assert GAME.outcome(pos) is None, k
        pos.push(GAME.parse_move(pos, text))
    assert GAME.outcome(pos) == ((), "repetition")


def test_fifty_move_rule_and_counters() -> None:
    pos = pos_from({"a4": "K", "i4": "k", "c2": "R", "c3": "P"}, half=99, full=60)
    pos.push(GAME.parse_move(pos, "Ka3"))
    assert pos.halfmove == 100 and pos.fullmove == 60 and pos.turn == 1
    assert GAME.outcome(pos).reason == "fifty-move"
    assert GAME.legal_moves(pos) == []  # the game has ended: the counters, played on
    (king,) = [m for m in GAME.generate_moves(pos) if GAME.long_move_text(pos, m) == "Ki4-i3"]
    pos.push(king)
    assert pos.halfmove == 101 and pos.fullmove == 61 and pos.turn == 0
    pos.pop()
    pos.pop()
    pos.push(GAME.parse_move(pos, "c4"))
    assert pos.halfmove == 0 and GAME.outcome(pos) is None
    capture = pos_from({"a4": "K", "i4": "k", "e4": "R", "g4": "p"}, half=30)
    capture.push(GAME.parse_move(capture, "Rxg4"))
    assert capture.halfmove == 0


# -- set-ups -----------------------------------------------------------------------


def test_traditional_and_modern_arrays_per_decisions() -> None:
    trad = "e1=K d1=R f1=R c1=A g1=A c2=L g2=F e2=P3 a3=P c3=P e3=P g3=P i3=P"
    modern = "e1=K d1=C f1=C c1=Y g1=Y c2=U g2=L e2=P3 a3=P c3=P e3=P g3=P i3=P"
    for game, white in ((GAME, trad), (MODERN, modern)):
        want = {}
        for item in white.split():
            cell, sym = item.split("=")
            want[cell] = sym
            want[mirror_cell(cell)] = sym.lower()
        assert game.start().snapshot() == pos_from(want, reserves="Nn", game=game).snapshot()
        assert game.provisional and "provisional" in game.provisional
    assert isinstance(MODERN, ModernLotus39) and MODERN.name == "lotus39-modern"
    assert GAME.position_text(GAME.start()) == (
        "c7=a,d7=r,e7=k,f7=r,g7=a,c6=l,e6=p3,g6=f,a5=p,c5=p,e5=p,g5=p,i5=p,"
        "a3=P,c3=P,e3=P,g3=P,i3=P,c2=L,e2=P3,g2=F,c1=A,d1=R,e1=K,f1=R,g1=A w Nn 0 1")


def test_start_moves_and_perft() -> None:
    assert texts(GAME.start()) == ["a4", "c4", "e4", "g4", "i4", "d3", "f3", "Ff3", "Fh3"]
    assert texts(MODERN.start()) == ["a4", "c4", "e4", "g4", "i4", "Ub3", "Ud3", "d3", "f3"]
    pos = GAME.start()
    # 9 × 9, less one Black pawn step after a3-a4, e3-e4, i3-i4 (blocked), plus two Black
    # pawn captures after c3-c4 and g3-g4 (a5xc4 and e5xc4; e5xg4 and i5xg4): 80
    assert [GAME.perft(pos, d) for d in range(3)] == [1, 9, 80]


def _reference_perft(pos: Position, depth: int) -> int:
    moves = _reference_legal(pos)
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        pos.push(m, record=False)
        total += _reference_perft(pos, depth - 1)
        pos.pop()
    return total


@pytest.mark.parametrize("game", [GAME, MODERN], ids=lambda g: g.name)
def test_perft_3_matches_brute_force(game: Lotus39) -> None:
    assert game.perft(game.start(), 3) == _reference_perft(game.start(), 3)


# -- notation ------------------------------------------------------------------------


def test_notation_examples() -> None:
    pos = GAME.start()
    assert [GAME.long_move_text(pos, m) for m in GAME.legal_moves(pos)] == [
        "a3-a4", "c3-c4", "e3-e4", "g3-g4", "i3-i4", "e2-d3", "e2-f3", "Fg2-f3", "Fg2-h3"]
    pos = pos_from({"d5": "P", "f5": "P", "a4": "R", "i4": "R", "d3": "W", "b3": "W",
                    "e3": "P", "c5": "p"})
    t = set(texts(pos))
    assert {"de6", "fe6", "Rae4", "Rie4", "Wbc4", "Wdc4", "e4"} <= t
    pos = pos_from({"d3": "W", "d5": "W"})
    assert {"W3c4", "W5c4"} <= set(texts(pos))
    pos = pos_from({"d3": "W", "d5": "W", "b3": "W"})
    assert {"Wd3c4", "W5c4", "Wbc4"} <= set(texts(pos))
    pos = pos_from({"e3": "P", "c4": "p", "g4": "p", "e4": "p"})
    assert set(texts(pos)) == {"exc4", "exg4"}
    pos = pos_from({"e6": "P", "d7": "r", "a4": "K", "h3": "k"})
    assert {"exd7=R+", "exd7=L", "e7=R", "f7=N"} <= set(texts(pos))
    assert GAME.parse_move(pos, "e6xd7=L").promotion == "L"
    assert GAME.parse_move(pos, "exd7=R") == GAME.parse_move(pos, "e6xd7=R+")
    assert GAME.parse_move(pos, "e6×d7=R").captures == (G.cell("d7"),)
    with pytest.raises(IllegalMoveError, match="illegal move 'e8'"):
        GAME.parse_move(pos, "e8")


# -- position text -----------------------------------------------------------------


@pytest.mark.parametrize("text,problem", [
    ("e2=P3 w Nn 0", "5 fields"),
    ("z9=K w - 0 1", "no cell 'z9'"),
    ("e4=K,e4=R w - 0 1", "given twice"),
    ("e4=? w - 0 1", "unknown piece"),
    ("e4K w - 0 1", "cell=piece"),
    ("e4=K x - 0 1", "side to move"),
    ("e4=K w R 0 1", "only Knights"),
    ("e4=K w - a 1", "integers"),
    ("e4=K w - 0 0", "bad move counters"),
    ("e4=K,c4=K w - 0 1", "more than one King"),
    ("e4=k,e6=C w - 0 1", "in check but it is not his move"),
])
def test_bad_position_text(text: str, problem: str) -> None:
    with pytest.raises(PositionError, match=re.escape(problem)):
        GAME.parse_position(text)


KINDS = sorted(PIECES)


@st.composite
def positions(draw, game: Lotus39 = GAME, kings_too: bool = False, size: int = 14) -> Position:
    """Random positions of any of the 26 pieces; ``kings_too`` always puts both Kings on."""
    cells = draw(st.lists(st.sampled_from(G.cells), unique=True, max_size=size))
    pieces: dict[str, str] = {}
    kings = [False, False]
    if kings_too:
        free = [c for c in G.cells if c not in cells]
        for owner, sym in ((0, "K"), (1, "k")):
            cell = draw(st.sampled_from(free))
            free.remove(cell)
            pieces[cell] = sym
            kings[owner] = True
    for cell in cells:
        owner = draw(st.integers(0, 1))
        kind = draw(st.sampled_from(KINDS))
        if kind == "K":
            if kings[owner]:
                continue
            kings[owner] = True
        rank = int(cell[1])
        if kind == "P" and rank == (7, 1)[owner]:
            kind = "V"
        sym = kind if owner == 0 else kind.lower()
        if kind == "P" and cell == ("e2", "e6")[owner]:
            height = draw(st.integers(1, 3))
            sym += str(height) if height > 1 else ""
        pieces[cell] = sym
    reserves = "N" * draw(st.integers(0, 2)) + "n" * draw(st.integers(0, 2)) or "-"
    side = draw(st.sampled_from("wb"))
    half, full = draw(st.integers(0, 120)), draw(st.integers(1, 300))
    try:
        return pos_from(pieces, side, reserves, game, half, full)
    except PositionError as exc:
        assume("in check" not in str(exc))
        raise


SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@SETTINGS
@given(positions())
def test_position_text_round_trips(pos: Position) -> None:
    text = GAME.position_text(pos)
    again = GAME.parse_position(text)
    assert again.snapshot() == pos.snapshot()
    assert GAME.position_text(again) == text


def _forward_attacked(pos: Position, cell: int, by: int) -> bool:
    """Reference attack test: generate the attacker's own moves (no reverse tables)."""
    saved = pos.turn
    pos.turn = by
    try:
        return any(m.target == cell and m.captures for m in GAME.pseudo_moves(pos))
    finally:
        pos.turn = saved


def _reference_legal(pos: Position) -> list[Move]:
    me = pos.turn
    out = []
    for m in GAME.pseudo_moves(pos):
        pos.push(m, record=False)
        king = next((c for c, p in enumerate(pos.board) if p == Piece(me, "K")), -1)
        if king < 0 or not _forward_attacked(pos, king, 1 - me):
            out.append(m)
        pos.pop()
    return out


@settings(SETTINGS, max_examples=150)
@given(st.one_of(positions(), positions(kings_too=True, size=22)))
def test_legal_moves_match_brute_force(pos: Position) -> None:
    assert GAME.generate_moves(pos) == _reference_legal(pos)
    assert GAME.legal_moves(pos) == ([] if GAME.rule_outcome(pos) else _reference_legal(pos))
    for player in (0, 1):
        king = next((c for c, p in enumerate(pos.board) if p == Piece(player, "K")), -1)
        assert GAME.in_check(pos, player) == (king >= 0 and _forward_attacked(pos, king, 1 - player))


@SETTINGS
@given(positions(), st.data())
def test_make_undo_restores_the_snapshot(pos: Position, data) -> None:
    history = []
    for _ in range(8):
        moves = GAME.legal_moves(pos)
        if not moves:
            break
        history.append(pos.snapshot())
        pos.push(data.draw(st.sampled_from(moves)))
    while history:
        pos.pop()
        assert pos.snapshot() == history.pop()


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from([GAME, MODERN]))
def test_random_games_from_the_start(rnd, game: Lotus39) -> None:
    pos = game.start()
    history = []
    for _ in range(40):
        moves = game.legal_moves(pos)
        if not moves or game.outcome(pos):
            break
        history.append(pos.snapshot())
        pos.push(rnd.choice(moves))
        assert game.parse_position(game.position_text(pos)).snapshot() == pos.snapshot()
    while history:
        pos.pop()
        assert pos.snapshot() == history.pop()


@SETTINGS
@given(positions())
def test_notation_round_trips(pos: Position) -> None:
    moves = GAME.legal_moves(pos)
    shorts = [GAME.move_text(pos, m) for m in moves]
    longs = [GAME.long_move_text(pos, m) for m in moves]
    assert len(set(shorts)) == len(moves) and len(set(longs)) == len(moves)
    for m, short, long in zip(moves, shorts, longs, strict=True):
        assert GAME.parse_move(pos, short) == m
        assert GAME.parse_move(pos, long) == m


# -- CLI and drawing -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["lotus39", "lotus39-modern"])
def test_cli(name: str, capsys) -> None:
    assert cli_main(["moves", "--game", name]) == 0
    assert len(capsys.readouterr().out.split()) == 9
    assert cli_main(["perft", "--game", name, "--depth", "2"]) == 0
    assert capsys.readouterr().out.strip() == "80"
    assert cli_main(["perft", "--game", name, "--depth", "2", "--divide"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "80"
    assert cli_main(["show", "--game", name, "--moves", "e4", "c4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("[provisional set-up") and "White to move" in out
    assert cli_main(["moves", "--game", name, "--json"]) == 0
    assert '"long": "e2-d3"' in capsys.readouterr().out
    assert cli_main(["show", "--game", name, "--position", "e4=K w - 0"]) == 2
    assert "5 fields" in capsys.readouterr().err


def test_render_text_draws_the_schematic() -> None:
    lines = GAME.render_text(GAME.start()).splitlines()
    assert lines[0].split() == list("abcdefghi")
    assert lines[1].split() == ["7", "/", "a", "\\", "<", "r", ">", "\\", "k", "/", "<", "r",
                                ">", "/", "a", "\\"]
    assert "( P3)" in lines[6] and lines[4].count("(   )") == 2
    assert lines[-1] == "  reserve: White N×1; Black N×1"
    # columns line up with the files
    assert lines[4].index("[   ]") + 2 == lines[0].index("a")
