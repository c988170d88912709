"""Golden LED scenes of Gnu Qi on the square9 board: what every LED of the chain shows,
for interactions the board state machine published while a simulated human played on
the board (74HC165 chain sensing, as in ``test_board_gnuqi``).

* a Bishop or Camel lifted near its far River lights exactly its legal targets — the bank
  rule (rules/gnuqi.md §9, T1 and T2: every row is a scene);
* the Pawn → Wazir exchange: the cell blinks "take off" until the Pawn is lifted, then
  asks for the Wazir; a Wazir put down first marks the Pawn still to take off;
* castling King first (the Rook still to move) and Rook first (the King's square);
* the one-way check: only the King that is attacked beats; its escape squares.
"""

from __future__ import annotations

import pytest

from controller.interaction import Interaction
from controller.layout import load_layout
from controller.leds import LedFrame, LedSettings, render_scene
from controller.leds.scene import HEARTBEAT, SLOW
from tests.support.gnuqi import CASTLES, GAME, ONE_WAY, PUSH, chain_rig

LAYOUT = load_layout("square9")
FULL = LedSettings(brightness=1.0, budget_ma=None)
N = 87  # 81 cells + 6 option pads

# The documented colour language at brightness 1 (docs/leds.md), written out on purpose.
OFF = (0, 0, 0)
TARGET = (0, 90, 255)
ORIGIN = (255, 170, 0)
LAST = (110, 80, 40)
CHECK = (255, 0, 0)
MISSING = (255, 0, 0)
REMOVE = (255, 0, 190)


def chain(name: str) -> int:
    """LED index of a cell: serpentine by rank from a1 (a1→i1, i2→a2, …) on square9."""
    f, r = "abcdefghi".index(name[0]), int(name[1:]) - 1
    return r * 9 + (f if r % 2 == 0 else 8 - f)


def expect(cells: dict[str, tuple[int, int, int]]) -> tuple:
    out = [OFF] * N
    for names, colour in cells.items():
        for name in names.split():
            out[chain(name)] = colour
    return tuple(out)


def render(it: Interaction, t: float = 0.05) -> LedFrame:
    return render_scene(LAYOUT, it, t, None, FULL)


@pytest.fixture
def rig_at():
    rigs = []

    def make(position: str):
        rig = chain_rig(position)
        rigs.append(rig)
        return rig
    yield make
    for rig in rigs:
        rig.close()


def test_chain_rule_matches_the_layout():
    assert LAYOUT.led_count == N
    assert all(LAYOUT.spot(n).led == chain(n) for n in LAYOUT.geometry.cells)
    assert [chain(n) for n in ("a1", "i1", "i2", "a2", "a9", "i9")] == [0, 8, 9, 17, 72, 80]


# -- the bank rule ---------------------------------------------------------------------------

KINGS = {0: "a3", 1: "a7"}  # gnuqi.md §9: the only other pieces, out of the way

#: gnuqi.md §9 T1 (White) and T2 (Black): piece, cell, its legal destinations
BANK_RULE = [
    ("B", "e4", "a8 b1 c2 c6 d3 d5 f3 f5 g2 g6 h1 i8"),
    ("B", "e5", "a1 a9 b2 b8 c3 d4 d6 f4 f6 g3 h2 h8 i1 i9"),
    ("B", "e6", "a2 b3 c4 d5 f5 g4 h3 i2"),
    ("B", "e8", "a4 b5 d7 d9 f7 f9 h5 i4"),
    ("C", "e4", "b3 b5 d1 f1 h3 h5"),
    ("C", "e5", "b4 b6 d2 d8 f2 f8 h4 h6"),
    ("C", "e6", "b5 d3 f3 h5"),
    ("C", "e8", "b7 b9 d5 f5 h7 h9"),
    ("b", "e4", "a8 b7 c6 d5 f5 g6 h7 i8"),
    ("b", "e6", "a2 b9 c4 c8 d5 d7 f5 f7 g4 g8 h9 i2"),
    ("b", "e2", "a6 b5 d1 d3 f1 f3 h5 i6"),
    ("c", "e4", "b5 d7 f7 h5"),
    ("c", "e2", "b1 b3 d5 f5 h1 h3"),
]


def _position(piece: str, cell: str) -> str:
    board = {KINGS[0]: "K", KINGS[1]: "k", cell: piece}
    rows = []
    for rank in range(9, 0, -1):
        row, empty = "", 0
        for f in "abcdefghi":
            p = board.get(f"{f}{rank}")
            if p is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + p
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + (" w" if piece.isupper() else " b") + " - - 0 1"


@pytest.mark.parametrize(("piece", "cell", "targets"), BANK_RULE,
                         ids=[f"{p}{c}" for p, c, _ in BANK_RULE])
def test_golden_lifted_bishop_or_camel_near_a_river_shows_its_legal_targets(
        rig_at, piece, cell, targets):
    rig = rig_at(_position(piece, cell))
    rig.lift(cell)
    it = rig.interaction
    assert it.phase == "lifted"
    frame = render(it)
    assert frame.pixels == expect({cell: ORIGIN, targets: TARGET})
    assert all(b is None for b in frame.blinks)


# -- the Pawn → Wazir exchange -------------------------------------------------------------


def test_golden_exchange_prompt(rig_at):
    rig = rig_at(PUSH)
    rig.move("e6", "e7")
    it = rig.interaction
    assert it.phase == "turn" and it.message == "exchange the piece on e7 for a Wazir"
    on, off = render(it, 0.25), render(it, 0.75)  # the slow blink: on 0–0.5 s
    assert on.pixels == expect({"e6": LAST, "e7": REMOVE})
    assert off.pixels == expect({"e6": LAST})
    assert on.blinks[chain("e7")] is SLOW
    rig.lift("e7")  # the Pawn is off: a Wazir belongs here
    frame = render(rig.interaction, 0.75)
    assert frame.pixels == expect({"e6": LAST, "e7": MISSING})
    assert frame.blinks[chain("e7")] is None
    rig.sim.set_aside(1)
    rig.sim.take("white-w")
    rig.place("e7")
    assert render(rig.interaction, 0.25).pixels == expect({"e6 e7": LAST})


def test_golden_wazir_put_down_first_marks_the_pawn_to_take_off(rig_at):
    rig = rig_at(PUSH)
    rig.sim.take("white-w")
    rig.place("e7")
    assert render(rig.interaction).pixels == expect({"e6": ORIGIN})
    rig.remove("e6")
    assert render(rig.interaction).pixels == expect({"e6 e7": LAST})


# -- castling ------------------------------------------------------------------------------


def test_golden_castling_king_first(rig_at):
    rig = rig_at(CASTLES.format("w"))
    rig.lift("e1")
    # King steps, both castlings (c1, g1) and where their Rooks go (d1, f1: steps too)
    assert render(rig.interaction).pixels == expect({"e1": ORIGIN,
                                                     "c1 d1 d2 e2 f1 f2 g1": TARGET})
    rig.place("c1")
    # the King is down: the Rook a1 is still to move, to d1
    assert render(rig.interaction).pixels == expect({"e1 a1": ORIGIN, "d1": TARGET})
    rig.move("a1", "d1")
    assert [GAME.move_text(GAME.parse_position(CASTLES.format("w")), m)
            for m in rig.moves] == ["O-O-O"]
    assert render(rig.interaction).pixels == expect({"a1 c1 d1 e1": LAST})


def test_golden_castling_rook_first(rig_at):
    rig = rig_at(CASTLES.format("b"))
    rig.move("i9", "f9")  # a Rook move, committed …
    assert render(rig.interaction).pixels == expect({"i9 f9": LAST})
    rig.lift("e9")  # … the King lifted: the castling square
    assert render(rig.interaction).pixels == expect({"i9 f9": LAST, "e9": ORIGIN,
                                                     "g9": TARGET})
    rig.place("g9")
    assert render(rig.interaction).pixels == expect({"e9 f9 g9 i9": LAST})


# -- check ---------------------------------------------------------------------------------


def test_golden_one_way_check(rig_at):
    rig = rig_at(ONE_WAY)
    rig.move("d8", "e7")  # next to the White King e6: check for White only
    it = rig.interaction
    beat = render(it, 0.05)
    assert beat.pixels == expect({"d8 e7": LAST, "e6": CHECK})
    assert beat.blinks[chain("e6")] is HEARTBEAT
    assert render(it, 0.18).pixels == expect({"d8 e7": LAST})  # between the beats
    rig.lift("e6")  # where the King may go: not back across its far River
    assert render(rig.interaction).pixels == expect({"d8 e7": LAST, "e6": ORIGIN,
                                                     "d5 e5 f5": TARGET})
    rig.place("e5")
    assert render(rig.interaction).pixels == expect({"e6 e5": LAST})  # Black: no check
