"""Lùotuoqí: every worked example of luotuoqi.md §8 and every rule of DECISIONS.md."""

from __future__ import annotations

import pytest

from controller.rules import IllegalMoveError, Piece, PositionError, get_game
from controller.rules.luotuoqi import G, Luotuoqi

GAME = Luotuoqi()
W, B = 0, 1


def c(name: str) -> int:
    return G.cell(name)


def position(pieces: dict[str, str], turn: str = "w", castling: str = "-", cube: str = "b",
             game: Luotuoqi = GAME):
    """Build a position from {cell: symbol} (``T4`` = White Tower of 4, ``e`` = Black Eaglet)."""
    board = [[""] * 8 for _ in range(8)]
    for cell, sym in pieces.items():
        f, r = G.coords(c(cell))
        board[7 - r][f] = sym
    rows = []
    for row in board:
        text, empty = "", 0
        for sym in row:
            if not sym:
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            text += sym
        rows.append(text + (str(empty) if empty else ""))
    return game.parse_position(f"{'/'.join(rows)} {turn} {castling} {cube} 0 1")


def texts(pos, origin: str | None = None) -> set[str]:
    moves = GAME.legal_moves(pos)
    return {GAME.move_text(pos, m) for m in moves if origin is None or m.origin == c(origin)}


def targets(pos, origin: str) -> set[str]:
    return {G.cells[m.target] for m in GAME.legal_moves(pos) if m.origin == c(origin)}


# --- §8.1 Tower example ---------------------------------------------------------------

TOWER_EXAMPLE = {"b7": "T4", "d7": "T2", "h2": "K", "f7": "e", "b4": "e", "e4": "d", "h8": "k"}


def test_b7_tower_has_45_moves_with_the_recomputed_lists():
    pos = position(TOWER_EXAMPLE)
    moves = [m for m in GAME.legal_moves(pos) if m.origin == c("b7")]
    assert len(moves) == 45  # DECISIONS: 45, the page's 44 omits T4b7xb4
    by_height: dict[int, set[str]] = {}
    for m in moves:
        moving = m.piece.height - (pos.board[m.target].height if m.kind == "merge" else 0)
        by_height.setdefault(moving, set()).add(G.cells[m.target])
    assert by_height[4] == {"a8", "a7", "a6", "b8", "b6", "b5", "b4", "e4", "c8", "c7", "d7",
                            "c6", "d5"}
    assert by_height[1] == {"a8", "b8", "c8", "a7", "c7", "a6", "b6", "c6"}
    assert by_height[2] == {"a8", "b8", "c8", "a7", "c7", "d7", "a6", "b6", "b5", "c6", "d5"}
    assert by_height[3] == {"a8", "b8", "c8", "a7", "c7", "d7", "a6", "b6", "b5", "b4", "c6",
                            "d5", "e4"}
    notes = texts(pos, "b7")
    assert "T4b7xb4" in notes and "T4b7xe4" in notes and "T3b7xe4" in notes
    assert "T4b7-d7=T6" in notes  # whole-Tower merge
    assert "T3b7-d7=T5" in notes  # the page's "d7=T4" erratum: 3 + 2 = T5
    assert "T2b7-d7=T4" in notes


def test_d7_tower_has_21_moves():
    pos = position(TOWER_EXAMPLE)
    moves = [m for m in GAME.legal_moves(pos) if m.origin == c("d7")]
    assert len(moves) == 21
    whole = {G.cells[m.target] for m in moves if m.piece.height == 2 or m.kind == "merge"}
    assert whole == {"d8", "e8", "c8", "e7", "f7", "c7", "b7", "d6", "d5", "e6", "f5", "c6",
                     "b5"}
    split = {G.cells[m.target] for m in moves if m.kind == "split"}
    assert split == {"d8", "e8", "c8", "c7", "e7", "c6", "d6", "e6"}
    merge = next(m for m in moves if m.kind == "merge")
    assert merge.piece == Piece(W, "T", 6)  # the page's "makes a T4" is a slip: 2 + 4 = T6
    assert "T2d7xf7" in texts(pos, "d7")


# --- §8.2 Bypasser ---------------------------------------------------------------------

def _bypass_fill():
    pieces = {}
    for name in G.cells:
        pieces[name] = "e"
    for name in ("c3", "d4", "e5", "f6", "g7", "h8"):
        del pieces[name]
    pieces.update({"a1": "K", "a8": "k", "b2": "D"})
    return position(pieces)


def test_bypass_b2_h8_removes_exactly_eight():
    pos = _bypass_fill()
    move = next(m for m in GAME.legal_moves(pos) if m.origin == c("b2") and m.target == c("h8"))
    assert {G.cells[x] for x in move.captures} == {"c4", "d3", "d5", "e4", "e6", "f5", "f7",
                                                   "g6"}
    pos.push(move)
    for name in ("b3", "c2", "g8", "h7"):  # beside the start or the destination: untouched
        assert pos.board[c(name)] == Piece(B, "E")
    for name in ("c4", "d3", "d5", "e4", "e6", "f5", "f7", "g6"):
        assert pos.board[c(name)] is None


@pytest.mark.parametrize("dest,removed", [
    ("c3", set()), ("d4", set()), ("e5", {"c4", "d3"}), ("f6", {"c4", "d3", "d5", "e4"}),
    ("g7", {"c4", "d3", "d5", "e4", "e6", "f5"}),
])
def test_shorter_bypasses(dest, removed):
    pos = _bypass_fill()
    move = next(m for m in GAME.legal_moves(pos) if m.origin == c("b2") and m.target == c(dest))
    assert {G.cells[x] for x in move.captures} == removed


def test_bypass_spares_own_pieces():
    pos = position({"a1": "K", "b2": "D", "e4": "E", "d5": "m", "f5": "m", "a8": "k"})
    got = {G.cells[m.target]: {G.cells[x] for x in m.captures}
           for m in GAME.legal_moves(pos) if m.origin == c("b2")}
    assert got == {"c3": set(), "d4": set(), "e5": set(), "f6": {"d5"}, "g7": {"d5", "f5"},
                   "h8": {"d5", "f5"}, "a3": set(), "c1": set()}
    assert "Db2-g7xd5xf5" in texts(pos, "b2")


def test_check_by_bypassing():
    pos = position({"a1": "K", "b2": "D", "d5": "k", "f5": "m"}, turn="b")
    assert GAME.in_check(pos)
    blocked = position({"a1": "K", "b2": "D", "d5": "k", "f5": "m", "c3": "E"}, turn="b")
    assert not GAME.in_check(blocked)


def test_king_may_not_step_onto_a_bypass_square():
    pos = position({"a1": "K", "b2": "D", "d6": "k"}, turn="b")
    assert not GAME.in_check(pos)
    got = targets(pos, "d6")
    assert "d5" not in got and "e6" not in got  # D b2-f6 / b2-g7 would remove the King
    assert {"c5", "c6", "c7", "d7", "e5", "e7"} == got


# --- §8.3 Eaglets and flank promotion -------------------------------------------------

def test_eaglets_and_flank_promotion():
    pos = position({"b4": "E", "g4": "E", "f4": "M", "h4": "M", "h3": "D", "f5": "d",
                    "e1": "K", "e8": "k"})
    assert texts(pos, "b4") == {"Eb4-a5", "Eb4-c5", "Eb4-b3"}
    assert texts(pos, "g4") == {"Eg4-h5", "Eg4-g3", "Eg4xf5", "Eg4=M", "Eg4=D"}


def test_promotion_needs_equal_towers_and_never_gives_king_or_eaglet():
    pos = position({"d4": "E", "c4": "T3", "e4": "t3", "c5": "K", "e3": "k", "d5": "E",
                    "d3": "E", "h1": "k"[0:0] + "M", "h8": "m"}, turn="w")
    # d4 flanked by T3/T3 on the rank (either colour): promotion to a T3 only;
    # the King pair is not on one line through d4; the Eaglets on d5/d3 give nothing.
    promos = {m.piece for m in GAME.legal_moves(pos) if m.kind == "promote"}
    assert promos == {Piece(W, "T", 3)}
    uneven = position({"d4": "E", "c4": "T3", "e4": "t2", "a1": "K", "h8": "k"})
    assert not [m for m in GAME.legal_moves(uneven) if m.kind == "promote"]
    kings = position({"d4": "E", "c4": "K", "e4": "k"}, turn="w")
    assert not [m for m in GAME.legal_moves(kings) if m.kind == "promote"]


def test_stone_budget_limits_tower_promotion():
    limited = Luotuoqi(stone_budget=12)
    pieces = {"d4": "E", "c4": "T3", "e4": "T3", "a1": "K", "h8": "k", "a3": "T6"}
    pos = position(pieces, game=limited)  # 12 stones in use: none left for a T3
    assert not [m for m in limited.legal_moves(pos) if m.kind == "promote"]
    pos = position(pieces, game=Luotuoqi(stone_budget=15))
    assert [m for m in Luotuoqi(stone_budget=15).legal_moves(pos) if m.kind == "promote"]


def test_eaglet_on_last_rank_steps_back_and_no_double_step():
    pos = position({"c8": "E", "a1": "K", "h1": "k"})
    assert texts(pos, "c8") == {"Ec8-c7"}
    start = GAME.start()
    assert "a4" not in targets(start, "a2")


# --- §8.4 piece diagrams --------------------------------------------------------------

def _lone(piece: str, extra: dict[str, str] | None = None):
    pieces = {"d4": piece, "h8": "K", "a8": "k"} if piece != "K" else {"d4": "K", "h8": "k"}
    pieces.update(extra or {})
    return position(pieces)


def test_mule_diagram():
    assert targets(_lone("M"), "d4") == set(
        "b3 b5 c2 c4 c6 d3 d5 e2 e4 e6 f3 f5".split())


def test_rook_camel_diagram():
    full = set("a3 a4 a5 b4 c1 c4 c7 d1 d2 d3 d5 d6 d7 d8 e1 e4 e7 f4 g3 g4 g5 h4".split())
    assert targets(_lone("R"), "d4") == full
    blocked = targets(_lone("R", {"d6": "M"}), "d4")
    assert blocked == full - {"c7", "e7", "d6", "d7", "d8"} and len(blocked) == 17
    assert targets(_lone("R", {"c5": "M", "c6": "M"}), "d4") == full  # no diagonal-first route


def test_rook_camel_captures_on_camel_destination():
    pos = _lone("R", {"c7": "e"})
    assert "Rd4xc7" in texts(pos, "d4")


def test_king_diagram():
    assert targets(_lone("K"), "d4") == set("c3 c4 c5 d3 d5 e3 e4 e5".split())


# --- §8.5 initial position ------------------------------------------------------------

def test_initial_position_18_moves_and_black_cube_options():
    pos = GAME.start()
    moves = texts(pos)
    assert len(moves) == 18
    assert sum(1 for t in moves if t.startswith("E")) == 14
    assert sum(1 for t in moves if t.startswith("M")) == 4
    pos.push(GAME.parse_move(pos, "Ea2-b3"))
    black = GAME.legal_moves(pos)
    plain = [m for m in black if not m.token]
    assert len(plain) == 18 and len(black) == 36  # every quiet first move may use the Cube


# --- Towers ---------------------------------------------------------------------------

def test_merges_above_eight_are_illegal_and_towers_are_captured_whole():
    pos = position({"d4": "T5", "d5": "T4", "a1": "K", "h6": "k", "d6": "t7"})
    merge = [m for m in GAME.legal_moves(pos) if m.kind == "merge"]
    assert {(G.cells[m.origin], m.piece.height) for m in merge} == {
        ("d4", 5), ("d4", 6), ("d4", 7), ("d4", 8), ("d5", 6), ("d5", 7), ("d5", 8)}
    assert all(m.piece.height <= 8 for m in merge)
    capture = GAME.parse_move(pos, "T4d5xd6")
    pos.push(capture)
    assert pos.board[c("d6")] == Piece(W, "T", 4)
    assert pos.board[c("d5")] is None


def test_split_leaves_remnant_and_needs_enough_stones():
    pos = position({"d4": "T3", "a1": "K", "h8": "k"})
    split = GAME.parse_move(pos, "T1d4-d5")
    assert split.kind == "split" and split.left == Piece(W, "T", 2)
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(pos, "T1d4-d6")  # a T1 travels one square at most
    pos.push(split)
    assert pos.board[c("d4")] == Piece(W, "T", 2) and pos.board[c("d5")] == Piece(W, "T", 1)


def test_tower_attacks_as_far_as_the_whole_tower_reaches():
    near = position({"d1": "T3", "d4": "k", "a1": "K"}, turn="b")
    assert GAME.in_check(near)
    far = position({"d1": "T2", "d4": "k", "a1": "K"}, turn="b")
    assert not GAME.in_check(far)


# --- Cube -----------------------------------------------------------------------------

def test_cube_gives_a_double_move_and_changes_hands():
    pos = GAME.start()
    pos.push(GAME.parse_move(pos, "Ea2-b3"))
    first = GAME.parse_move(pos, "Mb8-c6+cube")
    pos.push(first)
    assert pos.turn == B and pos.tokens["cube"] == W
    assert GAME.position_text(pos).split()[3] == "w*"
    assert all(not m.token for m in GAME.legal_moves(pos))  # no second Cube in one turn
    pos.push(GAME.parse_move(pos, "Mg8-f6"))
    assert pos.turn == W and pos.fullmove == 2
    assert any(m.token == "cube" for m in GAME.legal_moves(pos))  # White may use it at once


def test_cube_first_move_may_not_capture_or_check():
    pos = position({"a1": "K", "h8": "k", "d4": "M", "e6": "e", "b7": "E"}, cube="w")
    cube = {GAME.move_text(pos, m) for m in GAME.legal_moves(pos) if m.token}
    assert "Md4xe6+cube" not in cube  # capture
    assert "Md4-f7+cube" not in cube  # would give check to h8
    assert "Md4-d5+cube" in cube
    # a discovered check disqualifies the first move as well
    disc = position({"a1": "K", "h8": "k", "h1": "R", "h4": "M"}, cube="w")
    cube_moves = {GAME.move_text(disc, m) for m in GAME.legal_moves(disc) if m.token}
    assert "Mh4-f5+cube" not in cube_moves and "Mh4-h5+cube" in cube_moves
    assert "Mh4-f5" in texts(disc)


def test_second_move_is_unrestricted_and_player_in_check_may_use_cube():
    pos = position({"e1": "K", "e8": "k", "e5": "r", "a2": "M", "h7": "e"}, cube="w")
    assert GAME.in_check(pos)
    pos.push(GAME.parse_move(pos, "Ke1-d1+cube"))
    second = texts(pos)
    assert "Ma2-b4" in second and not any(t.endswith("+cube") for t in second)


def test_cube_offered_only_with_a_legal_second_move():
    # White King h1 hemmed in: after the quiet first move Ka1-b1 nothing else can move.
    pos = position({"a1": "K", "h8": "k", "c3": "r", "a3": "t1"}, cube="w")
    # Ka1-b1 is quiet but then White has only King moves; make sure the rule is applied
    for m in GAME.legal_moves(pos):
        if m.token:
            pos.push(m, record=False)
            assert GAME._legal_plain(pos)
            pos.pop()


def test_mate_is_judged_after_the_whole_cube_turn():
    # White's first move alone leaves Black with no move, yet the Cube turn continues.
    pos = position({"a8": "k", "c6": "K", "h1": "M", "b1": "R"}, cube="w", turn="w")
    moves = {GAME.move_text(pos, m) for m in GAME.legal_moves(pos)}
    assert "Rb1-b2+cube" in moves or any(t.endswith("+cube") for t in moves)


# --- castling -------------------------------------------------------------------------

def test_castling_both_wings_and_conditions():
    base = {"e1": "K", "a1": "R", "h1": "R", "e8": "k"}
    pos = position(base, castling="KQ")
    assert {"O-O", "O-O-O"} <= texts(pos)
    pos.push(GAME.parse_move(pos, "O-O"))
    assert pos.board[c("g1")] == Piece(W, "K") and pos.board[c("f1")] == Piece(W, "R")
    # a split remnant on d1 blocks long castling
    pos = position({**base, "d1": "T1"}, castling="KQ")
    assert "O-O-O" not in texts(pos) and "O-O" in texts(pos)
    # an attacked transit square forbids it; an attacked b1 does not
    pos = position({**base, "f5": "r"}, castling="KQ")
    assert "O-O" not in texts(pos) and "O-O-O" in texts(pos)
    pos = position({**base, "b5": "r"}, castling="KQ")
    assert "O-O-O" in texts(pos)
    assert "O-O" not in texts(position({**base, "e5": "r"}, castling="KQ"))  # in check


def test_castling_rights_lost_by_moving_or_capture_on_home_squares():
    pos = position({"e1": "K", "a1": "R", "h1": "R", "e8": "k", "h5": "r"}, castling="KQ",
                   turn="b")
    pos.push(GAME.parse_move(pos, "Rh5xh1"))
    assert pos.state["castling"] == "Q"
    pos = position({"e1": "K", "a1": "R", "h1": "R", "e8": "k"}, castling="KQ")
    pos.push(GAME.parse_move(pos, "Ke1-e2"))
    assert "castling" not in pos.state


# --- end of game ----------------------------------------------------------------------

def test_checkmate_and_stalemate():
    mate = position({"h8": "k", "g6": "K", "a7": "R"}, turn="w", cube="-")
    mate.push(GAME.parse_move(mate, "Ra7-a8"))
    out = GAME.outcome(mate)
    assert out is not None and out.winners == (W,) and out.reason == "checkmate"
    stale = GAME.parse_position("k7/8/1KM5/8/8/8/8/8 b - - 0 1")
    out = GAME.outcome(stale)
    assert out is not None and out.winners == () and out.reason == "stalemate"


def test_threefold_repetition_and_fifty_moves():
    pos = position({"a1": "K", "h8": "k", "d4": "M", "e5": "m"}, cube="-")
    for _ in range(2):
        for t in ("Md4-d3", "Me5-e6", "Md3-d4", "Me6-e5"):
            pos.push(GAME.parse_move(pos, t))
    out = GAME.outcome(pos)
    assert out is not None and out.reason == "threefold repetition"
    assert GAME.legal_moves(pos) == []
    fifty = GAME.parse_position("7k/8/8/8/3M4/8/8/K7 w - - 99 80")
    fifty.push(GAME.parse_move(fifty, "Md4-d5"))
    assert GAME.outcome(fifty).reason == "fifty-move rule"


def test_halfmove_clock_resets_on_eaglet_moves_captures_promotions():
    pos = GAME.parse_position("7k/8/8/8/3M4/8/E7/K7 w - - 10 20")
    pos.push(GAME.parse_move(pos, "Ea2-b3"))
    assert pos.halfmove == 0


# --- position text and bad input ------------------------------------------------------

@pytest.mark.parametrize("text", [
    "",
    "rmdt8kdmr/eeeeeeee/8/8/8/8/EEEEEEEE/RMDT8KDMR w KQkq b 0",
    "rmdt9kdmr/eeeeeeee/8/8/8/8/EEEEEEEE/RMDT8KDMR w KQkq b 0 1",
    "rmdtkdmr/eeeeeeee/8/8/8/8/EEEEEEEE/RMDT8KDMR w KQkq b 0 1",
    "rmdt8kdmr/eeeeeeee/8/8/8/8/EEEEEEEE/RMDT8KDMRR w KQkq b 0 1",
    "rmdt8kdmr/eeeeeeee/8/8/8/8/EEEEEEEE w KQkq b 0 1",
    "rmdt8kdmr/eeeeeeee/8/8/8/8/EEEEEEEE/RMDT8KDMR x KQkq b 0 1",
    "rmdt8kdmr/eeeeeeee/8/8/8/8/EEEEEEEE/RMDT8KDMR w KQkqX b 0 1",
    "rmdt8kdmr/eeeeeeee/8/8/8/8/EEEEEEEE/RMDT8KDMR w KQkq z 0 1",
    "rmdt8qdmr/eeeeeeee/8/8/8/8/EEEEEEEE/RMDT8KDMR w KQkq b 0 1",
    "rmdt8kdmr/eeeeeeee/8/8/8/8/EEEEEEEE/RMDT8KDMR w KQkq b -1 1",
    "rmdt8kdmr/eeeeeeee/8/8/8/8/EEEEEEEE/RMDT8KDM1 w KQkq b 0 1",
    "4k3/8/8/8/8/8/4R3/4K3 w - b 0 1",  # the side not to move is in check
])
def test_malformed_positions_are_refused(text):
    with pytest.raises(PositionError):
        GAME.parse_position(text)


def test_registry_and_notation_round_trip():
    game = get_game("luotuoqi")
    pos = game.start()
    for m in game.legal_moves(pos):
        assert game.parse_move(pos, game.move_text(pos, m)) == m
    with pytest.raises(IllegalMoveError):
        game.parse_move(pos, "Ke1-e2")
