"""Gnu Qi rules: every worked example of gnuqi.md §9, the River notes of §5, promotion,
castling, game end, position text, notation, make/undo and the CLI."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli import main as cli_main
from controller.rules import IllegalMoveError, PositionError, get_game
from controller.rules.core import Move, Outcome, Piece
from controller.rules.gnuqi import START_FEN, GnuQi

GAME = get_game("gnuqi")
GEO = GAME.geometry


def sq(name: str) -> int:
    return GEO.cell(name)


def fen(pieces: dict[str, str], turn: str = "w", castling: str = "-") -> str:
    """FEN for a board holding ``pieces`` (cell -> letter, upper case White)."""
    rows = []
    for rank in range(9, 0, -1):
        row, empty = "", 0
        for file in "abcdefghi":
            letter = pieces.get(f"{file}{rank}")
            if letter is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + letter
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {turn} {castling} - 0 1"


def position(pieces: dict[str, str], turn: str = "w", castling: str = "-"):
    return GAME.parse_position(fen(pieces, turn, castling))


def destinations(pos, origin: str) -> list[str]:
    return sorted(GEO.cells[m.target] for m in GAME.generate_moves(pos)
                  if m.origin == sq(origin))


def long_moves(pos) -> set[str]:
    return {GAME.long_move_text(pos, m) for m in GAME.generate_moves(pos)}


# -- registry and set-up -------------------------------------------------------------


def test_registered_on_the_nine_by_nine_board_with_rivers():
    assert isinstance(GAME, GnuQi)
    assert GAME.name == "gnuqi" and GAME.shape == "square9"
    assert GEO.rivers == (3, 6)
    assert {GEO.cells[c] for c in GEO.tags["bank6"]} >= {"a6", "a7", "i6", "i7"}
    assert "provisional" in GAME.provisional and "reconstruction" in GAME.provisional
    assert "DECISIONS" not in GAME.provisional  # nothing a user sees points outside the product


def test_start_position_is_the_provisional_array():
    pos = GAME.start()
    assert GAME.position_text(pos) == START_FEN
    board = pos.board
    assert board[sq("b2")] == Piece(0, "Q") and board[sq("h2")] == Piece(0, "G")
    assert board[sq("h8")] == Piece(1, "Q") and board[sq("b8")] == Piece(1, "G")
    # Black is White's array turned through 180°.
    for c, p in enumerate(board):
        f, r = GEO.coords(c)
        q = board[GEO.at(8 - f, 8 - r)]
        assert (p is None and q is None) or (p.kind == q.kind and p.owner != q.owner)
    assert sum(p is not None for p in board) == 40


# -- T1, T2: River-restricted pieces on central squares --------------------------------

T1 = [
    ("B", "e4", "a8 b1 c2 c6 d3 d5 f3 f5 g2 g6 h1 i8"),
    ("B", "e5", "a1 a9 b2 b8 c3 d4 d6 f4 f6 g3 h2 h8 i1 i9"),
    ("B", "e6", "a2 b3 c4 d5 f5 g4 h3 i2"),
    ("B", "e8", "a4 b5 d7 d9 f7 f9 h5 i4"),
    ("C", "e4", "b3 b5 d1 f1 h3 h5"),
    ("C", "e5", "b4 b6 d2 d8 f2 f8 h4 h6"),
    ("C", "e6", "b5 d3 f3 h5"),
    ("C", "e8", "b7 b9 d5 f5 h7 h9"),
    ("Q", "e5", "a1 a5 b2 b5 c3 c5 d4 d5 d6 e1 e2 e3 e4 e6 f4 f5 f6 g3 g5 h2 h5 i1 i5"),
    ("Q", "e6", "a2 a6 b3 b6 c4 c6 d5 d6 e1 e2 e3 e4 e5 f5 f6 g4 g6 h3 h6 i2 i6"),
    ("G", "e4", "b3 b5 c3 c5 d1 d2 d6 f1 f2 f6 g3 g5 h3 h5"),
    ("G", "e5", "b4 b6 c4 c6 d2 d3 f2 f3 g4 g6 h4 h6"),
    ("G", "e6", "b5 c5 d3 d4 f3 f4 g5 h5"),
]


@pytest.mark.parametrize(("letter", "cell", "expected"), T1)
def test_t1_white_pieces(letter, cell, expected):
    pos = position({"a3": "K", "a7": "k", cell: letter})
    assert destinations(pos, cell) == expected.split()


def test_t1_white_king_on_its_far_bank():
    pos = position({"e6": "K", "a7": "k"})
    assert destinations(pos, "e6") == ["d5", "d6", "e5", "f5", "f6"]


T2 = [
    ("b", "e4", "a8 b7 c6 d5 f5 g6 h7 i8"),
    ("b", "e6", "a2 b9 c4 c8 d5 d7 f5 f7 g4 g8 h9 i2"),
    ("b", "e2", "a6 b5 d1 d3 f1 f3 h5 i6"),
    ("c", "e4", "b5 d7 f7 h5"),
    ("c", "e2", "b1 b3 d5 f5 h1 h3"),
    ("q", "e4", "a4 a8 b4 b7 c4 c6 d4 d5 e5 e6 e7 e8 e9 f4 f5 g4 g6 h4 h7 i4 i8"),
    ("g", "e4", "b5 c5 d6 d7 f6 f7 g5 h5"),
]


@pytest.mark.parametrize(("letter", "cell", "expected"), T2)
def test_t2_black_pieces(letter, cell, expected):
    pos = position({"a3": "K", "a7": "k", cell: letter}, turn="b")
    assert destinations(pos, cell) == expected.split()


# -- §5 notes ----------------------------------------------------------------------------


def test_bishop_passes_over_bank_squares_only_when_they_are_empty():
    pos = position({"a3": "K", "a7": "k", "e5": "B"})
    assert {"h8", "i9"} <= set(destinations(pos, "e5")) and "g7" not in destinations(pos, "e5")
    blocked = position({"a3": "K", "a7": "k", "e5": "B", "g7": "p"})
    # g7 blocks the run; capturing it would end on a bank.
    assert not {"g7", "h8", "i9"} & set(destinations(blocked, "e5"))
    assert "f6" in destinations(blocked, "e5")


def test_bank_rule_applies_to_backward_crossings():
    pos = position({"a3": "K", "a7": "k", "g8": "B"})
    # g8-e6 ends on a bank, g8-d5 jumps the River cleanly, g8-f7 does not cross.
    assert {"f7", "d5", "c4"} <= set(destinations(pos, "g8"))
    assert "e6" not in destinations(pos, "g8")


def test_camel_crosses_its_far_river_only_between_ranks_5_and_8():
    for cell in ("b5", "e5", "e8", "h8"):
        pos = position({"a1": "K", "i9": "k", cell: "C"})
        rank = int(cell[1])
        crossing = [t for t in destinations(pos, cell) if (rank <= 6) != (int(t[1]) <= 6)]
        assert all({rank, int(t[1])} == {5, 8} for t in crossing)
        assert crossing  # each of these cells has at least one clean jump


def test_gnu_on_rank_5_or_6_reaches_nothing_beyond_its_far_river():
    for cell in ("e5", "e6", "a5", "i6"):
        pos = position({"a1": "K", "i9": "k", cell: "G"})
        assert all(int(t[1]) <= 6 for t in destinations(pos, cell))


def test_queen_check_is_one_way_across_the_river():
    black_queen = position({"a1": "K", "i9": "k", "e7": "q"}, turn="b")
    white_queen = position({"a1": "K", "i9": "k", "e6": "Q"})
    assert all(GAME.attacked(black_queen, sq(c), 1) for c in ("e6", "e5", "e4", "d6", "c5"))
    assert not any(GAME.attacked(white_queen, sq(c), 0) for c in ("e7", "d7", "f7", "e8"))
    # So a Black King may stand next to a White Queen on the far bank, never the reverse.
    assert GAME.parse_position(fen({"e6": "Q", "e7": "k", "a1": "K"}, turn="w"))
    with pytest.raises(PositionError, match="White is in check"):
        GAME.parse_position(fen({"e7": "q", "e6": "K", "i9": "k"}, turn="b"))


def test_rook_and_knight_are_unrestricted():
    rook = position({"a3": "K", "a7": "k", "e5": "R"})
    assert {"e7", "e8", "e9"} <= set(destinations(rook, "e5"))
    knight = position({"a3": "K", "a7": "k", "e6": "N"})
    assert destinations(knight, "e6") == sorted("c5 c7 d4 d8 f4 f8 g5 g7".split())


def test_pins_only_by_pieces_that_may_reach_the_king():
    # A Black Queen on e5 may not cross to e1, so the Rook on e2 is free; a Rook pins it.
    free = position({"e1": "K", "e2": "R", "e5": "q", "a9": "k"})
    assert "a2" in destinations(free, "e2")
    pinned = position({"e1": "K", "e2": "R", "e5": "r", "a9": "k"})
    assert destinations(pinned, "e2") == ["e3", "e4", "e5"]
    # A Black Bishop on e5 reaches a1 cleanly (5→1) and pins the Knight on c3;
    # from d4 (a bank) it could not, so the Knight moves.
    assert destinations(position({"a1": "K", "c3": "N", "e5": "b", "i9": "k"}), "c3") == []
    assert destinations(position({"a1": "K", "c3": "N", "d4": "b", "i9": "k"}), "c3")


def test_only_check_evasions_when_in_check():
    # The Black Rook on e5 checks along the e-file: block, capture it, or step aside.
    pos = position({"e1": "K", "b5": "R", "c3": "N", "e5": "r", "a9": "k"})
    assert long_moves(pos) == {"c3e2", "c3e4", "b5e5", "e1d1", "e1d2", "e1f1", "e1f2"}
    double = position({"e1": "K", "b5": "R", "c3": "N", "e5": "r", "f3": "n", "a9": "k"})
    assert long_moves(double) == {"e1d1", "e1f1", "e1f2"}  # double check: King moves only


# -- T3: one-way check between Kings --------------------------------------------------


def test_t3_one_way_check():
    pos = position({"e6": "K", "e7": "k"})
    assert GAME.in_check(pos, 0) and not GAME.in_check(pos, 1)
    assert GAME.in_check(pos)
    # The Black King may step next to the White King and give check.
    before = position({"e6": "K", "d8": "k"}, turn="b")  # bare Kings: a rules study
    (move,) = [m for m in GAME.generate_moves(before) if GAME.long_move_text(before, m) == "d8e7"]
    assert GAME.move_text(before, move) == "Ke7+"
    before.push(move)
    assert GAME.in_check(before) and not GAME.in_check(before, 1)
    white_to_move = position({"e6": "K", "d8": "k"})
    assert destinations(white_to_move, "e6") == ["d5", "d6", "e5", "f5", "f6"]


def test_white_king_may_not_step_next_to_a_black_king_on_the_far_bank():
    pos = position({"d5": "K", "e7": "k"})
    assert destinations(pos, "d5") == sorted("c4 c5 c6 d4 e4 e5".split())


# -- T4: Pawns become Wazirs -------------------------------------------------------------


def test_t4_pawn_becomes_wazir_on_crossing_the_far_river():
    pos = position({"a1": "K", "i9": "k", "e6": "P", "d7": "n"})
    moves = {GAME.long_move_text(pos, m): m for m in GAME.legal_moves(pos)
             if m.origin == sq("e6")}
    assert set(moves) == {"e6e7", "e6d7"}
    for text, m in moves.items():
        assert m.promotion == "W" and m.piece == Piece(0, "W")
        pos.push(m)
        assert pos.board[sq(text[2:])] == Piece(0, "W")
        pos.pop()
    assert GAME.move_text(pos, moves["e6e7"]) == "e7=W"
    assert GAME.move_text(pos, moves["e6d7"]) == "exd7=W"


def test_black_pawn_becomes_wazir_crossing_rank_4_to_3():
    pos = position({"a1": "K", "i9": "k", "e4": "p", "f3": "N"}, turn="b")
    moves = [m for m in GAME.legal_moves(pos) if m.origin == sq("e4")]
    assert {GEO.cells[m.target] for m in moves} == {"e3", "f3"}
    assert all(m.piece == Piece(1, "W") and m.promotion == "W" for m in moves)


def test_pawns_have_no_double_step_and_do_not_promote_before_the_far_river():
    pos = GAME.start()
    assert destinations(pos, "e3") == ["e4"]
    mid = position({"a1": "K", "i9": "k", "e5": "P"})
    (move,) = [m for m in GAME.legal_moves(mid) if m.origin == sq("e5")]
    assert move.promotion == "" and move.piece == Piece(0, "P")


def test_wazir_steps_back_across_either_river_and_stays_a_wazir():
    pos = position({"a1": "K", "i9": "k", "e7": "W"})
    assert destinations(pos, "e7") == ["d7", "e6", "e8", "f7"]
    pos.push(GAME.parse_move(pos, "We6"))
    pos.push(GAME.parse_move(pos, "Kh9"))
    pos.push(GAME.parse_move(pos, "We5"))
    pos.push(GAME.parse_move(pos, "Kg9"))
    pos.push(GAME.parse_move(pos, "We4"))
    pos.push(GAME.parse_move(pos, "Kh9"))
    pos.push(GAME.parse_move(pos, "We3"))
    assert pos.board[sq("e3")] == Piece(0, "W")


# -- T5: castling -------------------------------------------------------------------------


def castling_position(extra: dict[str, str] | None = None):
    return position({"e1": "K", "a1": "R", "i1": "R", "e9": "k", **(extra or {})},
                    castling="KQ")


def castles(pos) -> set[str]:
    return {GAME.move_text(pos, m) for m in GAME.legal_moves(pos) if m.kind == "castle"}


def test_t5_castling_on_both_wings():
    pos = castling_position()
    assert castles(pos) == {"O-O", "O-O-O"}
    moves = {m.target: m for m in GAME.legal_moves(pos) if m.kind == "castle"}
    assert moves[sq("c1")].also == ((sq("a1"), sq("d1")),)
    assert moves[sq("g1")].also == ((sq("i1"), sq("f1")),)
    assert {GAME.long_move_text(pos, m) for m in moves.values()} == {"e1c1", "e1g1"}
    assert castles(castling_position({"d5": "r"})) == {"O-O"}
    assert castles(castling_position({"b5": "r"})) == {"O-O", "O-O-O"}
    assert castles(castling_position({"h5": "r"})) == {"O-O", "O-O-O"}


def test_castling_moves_king_and_rook():
    pos = castling_position()
    assert GAME.parse_move(pos, "0-0-0") == GAME.parse_move(pos, "e1c1")
    assert GAME.parse_move(pos, "0-0") == GAME.parse_move(pos, "O-O")
    pos.push(GAME.parse_move(pos, "O-O-O"))
    assert pos.board[sq("c1")] == Piece(0, "K") and pos.board[sq("d1")] == Piece(0, "R")
    assert pos.board[sq("a1")] is None and pos.board[sq("e1")] is None
    assert GAME.position_text(pos).split()[2] == "-"


def test_black_castles_on_both_wings():
    pos = position({"e9": "k", "a9": "r", "i9": "r", "e1": "K"}, turn="b", castling="kq")
    assert castles(pos) == {"O-O", "O-O-O"}
    pos.push(GAME.parse_move(pos, "O-O"))
    assert pos.board[sq("g9")] == Piece(1, "K") and pos.board[sq("f9")] == Piece(1, "R")


def test_no_castling_in_check_through_attack_or_over_pieces():
    assert castles(castling_position({"e5": "r"})) == set()  # in check
    assert castles(castling_position({"f5": "r"})) == {"O-O-O"}  # f1 attacked
    assert castles(castling_position({"g5": "r"})) == {"O-O-O"}  # g1 attacked
    assert castles(castling_position({"c5": "r"})) == {"O-O"}  # c1 attacked
    assert castles(castling_position({"b1": "N"})) == {"O-O"}  # b1 occupied
    assert castles(castling_position({"h1": "n"})) == {"O-O-O"}  # h1 occupied


def test_castling_respects_the_river_filter_for_attacks():
    # Each Black piece below would attack a castling square without the River filter.
    assert castles(castling_position({"d4": "q"})) == {"O-O", "O-O-O"}  # d4-d1 crosses
    assert castles(castling_position({"f4": "g"})) == {"O-O", "O-O-O"}  # f4-g1 crosses
    assert castles(castling_position({"b4": "c"})) == {"O-O", "O-O-O"}  # b4-c1 starts on a bank
    assert castles(castling_position({"g4": "b"})) == {"O-O", "O-O-O"}  # g4-d1 starts on a bank
    # h5-d1 crosses from rank 5 to rank 1, touching no bank at either end: d1 is attacked.
    assert castles(castling_position({"h5": "b"})) == {"O-O"}


def test_castling_rights_are_lost_by_king_or_rook_moves_and_rook_capture():
    pos = castling_position()
    pos.push(GAME.parse_move(pos, "Ra2"))
    assert pos.state["castling"] == "K"
    pos.pop()
    pos.push(GAME.parse_move(pos, "Kd2"))
    assert "castling" not in pos.state
    pos.pop()
    captured = position({"e1": "K", "a1": "R", "i1": "R", "e9": "k", "i5": "r"},
                        turn="b", castling="KQ")
    captured.push(GAME.parse_move(captured, "Rxi1"))
    assert captured.state["castling"] == "Q"


# -- T6: the start position ----------------------------------------------------------


def test_t6_first_moves():
    pos = GAME.start()
    expected = {
        "a3a4", "b3b4", "c3c4", "d3d4", "e3e4", "f3f4", "g3g4", "h3h4", "i3i4",
        "f1c2", "f1e4", "f1g4", "f1i2", "g1d2", "g1f4", "g1h4",
        "b2a2", "b2c2", "b2d2", "b2e2", "b2f2", "b2g2",
        "h2g4", "h2i4", "h2g5", "h2i5",
        "c1d2", "d1c2", "d1e2",
        "e1d2", "e1e2", "e1f2",
        "b1d2", "h1f2",
        "a1a2", "i1i2",
    }
    assert long_moves(pos) == expected and len(expected) == 36


@pytest.mark.parametrize(("depth", "nodes"), [(1, 36), (2, 1296), (3, 45829)])
def test_t6_perft(depth, nodes):
    assert GAME.perft(GAME.start(), depth) == nodes


def test_t6_mirrored_black_array_perft():
    # gnuqi.md §9: with Black mirrored instead of rotated, perft(2) = 1296, perft(3) = 45815.
    mirrored = GAME.parse_position(
        "rnbbkccnr/1q5g1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCNR w KQkq - 0 1")
    assert GAME.perft(mirrored, 2) == 1296
    assert GAME.perft(mirrored, 3) == 45815


def test_t6_swapping_queen_and_gnu_keeps_perft_1():
    swapped = GAME.parse_position(
        "rncckbbnr/1q5g1/ppppppppp/9/9/9/PPPPPPPPP/1G5Q1/RNBBKCCNR w KQkq - 0 1")
    assert GAME.perft(swapped, 1) == 36


# -- game end -----------------------------------------------------------------------------


def test_checkmate():
    pos = position({"e9": "k", "d8": "p", "e8": "p", "f8": "p", "a1": "R", "e1": "K"})
    move = GAME.parse_move(pos, "Ra9")
    assert GAME.move_text(pos, move) == "Ra9#"
    pos.push(move)
    assert GAME.outcome(pos) == Outcome((0,), "checkmate")
    assert GAME.outcome(pos).result == "1-0"


def test_stalemate():
    pos = GAME.parse_position("k8/9/W8/9/9/9/9/9/1R2K4 b - - 0 1")
    assert GAME.legal_moves(pos) == [] and not GAME.in_check(pos)
    assert GAME.outcome(pos) == Outcome((), "stalemate")


def test_bare_kings_draw():
    pos = position({"e1": "K", "c4": "N", "d6": "n", "e8": "k"})
    for text in ("Nxd6+", "Kd7", "Ke2"):
        assert GAME.outcome(pos) is None  # a Knight is still on the board
        pos.push(GAME.parse_move(pos, text))
    pos.push(GAME.parse_move(pos, "Kxd6"))
    assert GAME.outcome(pos) == Outcome((), "bare kings")


def test_fifty_move_rule_and_its_reset():
    pos = GAME.parse_position("4k4/3ppp3/9/9/9/9/9/9/R3K4 w - - 99 80")
    assert GAME.outcome(pos) is None
    pos.push(GAME.parse_move(pos, "Ra2"))
    assert pos.halfmove == 100 and GAME.outcome(pos) == Outcome((), "fifty-move")
    pos.pop()
    pos.push(GAME.parse_move(pos, "Ra9#"))
    assert GAME.outcome(pos) == Outcome((0,), "checkmate")  # mate on the 50th move stands
    capture = GAME.parse_position("4k4/3ppp3/9/9/9/p8/9/9/R3K4 w - - 99 80")
    capture.push(GAME.parse_move(capture, "Rxa4"))
    assert capture.halfmove == 0 and GAME.outcome(capture) is None
    pawn = GAME.parse_position("4k4/3ppp3/9/9/9/9/P8/9/R3K4 w - - 42 80")
    pawn.push(GAME.parse_move(pawn, "a4"))
    assert pawn.halfmove == 0


def test_threefold_repetition():
    pos = GAME.start()
    for _ in range(2):
        for text in ("Nd2", "Nf8", "Nb1", "Nh9"):
            assert GAME.outcome(pos) is None
            pos.push(GAME.parse_move(pos, text))
    assert GAME.outcome(pos) == Outcome((), "repetition")
    assert pos.fullmove == 5


# -- notation --------------------------------------------------------------------------------


def test_san_examples():
    pos = position({"a1": "K", "i9": "k", "f1": "C", "d5": "n", "b3": "B", "e6": "P"})
    texts = {GAME.move_text(pos, m) for m in GAME.legal_moves(pos)}
    assert {"Ce4", "Bxd5", "e7=W", "Kb2"} <= texts


def test_disambiguation():
    pos = position({"a1": "K", "i8": "k", "b1": "N", "f1": "N", "b5": "R", "b9": "R"})
    texts = {GAME.move_text(pos, m) for m in GAME.legal_moves(pos)}
    assert {"Nbd2", "Nfd2", "R5b7", "R9b7", "Nh2"} <= texts
    camels = position({"a1": "K", "i9": "k", "c3": "C", "c5": "C", "i3": "C"})
    texts = {GAME.move_text(camels, m) for m in GAME.legal_moves(camels)}
    # Three Camels reach f4: c3 shares its file with c5 and its rank with i3.
    assert {"Cc3f4", "C5f4", "Cif4"} <= texts


def test_parse_move_accepts_san_check_marks_and_long_forms():
    pos = position({"a1": "K", "i9": "k", "e6": "P", "d7": "n"})
    m = GAME.parse_move(pos, "e7=W")
    assert GAME.parse_move(pos, "e6e7") == m == GAME.parse_move(pos, "e6e7w")
    assert GAME.parse_move(pos, " exd7=W+ ").target == sq("d7")
    with pytest.raises(IllegalMoveError, match="illegal move 'e8'"):
        GAME.parse_move(pos, "e8")


def test_move_json_names_cells():
    pos = GAME.start()
    m = GAME.parse_move(pos, "Ce4")
    assert GAME.move_json(pos, m) == {"from": "f1", "to": "e4", "captured": [], "kind": "move",
                                      "promotion": None, "notation": "Ce4"}
    pos = GAME.parse_position("4k4/9/9/4P4/9/9/9/9/K8 w - - 0 1")
    wazir = GAME.parse_move(pos, "e7=W")
    assert GAME.move_json(pos, wazir)["promotion"] == "W"


# -- position text ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "problem"), [
    ("rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1 w - - 0 1", "expected 9 ranks"),
    ("rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCNRR w - - 0 1", "more than 9"),
    ("rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCN w - - 0 1", "8 files"),
    ("rncckbbnr/1g5x1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCNR w - - 0 1", "unknown piece"),
    ("rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCNR x - - 0 1", "side to move"),
    ("rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCNR w KX - 0 1", "castling"),
    ("rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCNR w KK - 0 1", "castling"),
    ("rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCNR w - e3 0 1", "en passant"),
    ("rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCNR w - - x 1", "integers"),
    ("rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCNR w - - 0 0", ">= 1"),
    ("rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCNR w - - 0 1 9", "6 space"),
    ("rncc1bbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCNR w - - 0 1", "Black must have"),
    ("rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCN1 w KQkq - 0 1", "Rook on i1"),
    ("rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBB1KCNR w KQkq - 0 1", "King on e1"),
    ("4k4/4P4/9/9/9/9/9/9/4K4 w - - 0 1", "Pawn on e8 stands beyond its far River"),
    ("4k4/9/4Q4/9/9/9/9/9/4K4 w - - 0 1", "Queen on e7 stands beyond"),
    ("4k4/9/9/9/9/9/4g4/9/4K4 w - - 0 1", "Gnu on e3 stands beyond"),
    ("4k4/9/9/9/9/9/9/9/r3K4 b - - 0 1", "White is in check but it is Black's move"),
])
def test_bad_position_text_is_refused_with_the_problem_named(text, problem):
    with pytest.raises(PositionError, match=problem):
        GAME.parse_position(text)


def test_short_fen_gets_defaults_and_castling_letters_are_normalised():
    pos = GAME.parse_position("4k4/9/9/9/9/9/9/9/R3K3R w")
    assert GAME.position_text(pos) == "4k4/9/9/9/9/9/9/9/R3K3R w - - 0 1"
    pos = GAME.parse_position("r3k3r/9/9/9/9/9/9/9/R3K3R b qkQK - 3 7")
    assert GAME.position_text(pos) == "r3k3r/9/9/9/9/9/9/9/R3K3R b KQkq - 3 7"


def random_play(seed: int, plies: int):
    rng = random.Random(seed)
    pos = GAME.start()
    for _ in range(plies):
        moves = GAME.legal_moves(pos)
        if not moves:
            break
        pos.push(rng.choice(moves))
    return pos


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 120))
def test_position_text_round_trips(seed, plies):
    pos = random_play(seed, plies)
    text = GAME.position_text(pos)
    again = GAME.parse_position(text)
    assert GAME.position_text(again) == text
    assert again.snapshot() == pos.snapshot()


PLACEABLE = "QRBNCGWPqrbncgwp"


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.integers(0, 80), st.sampled_from(PLACEABLE), max_size=30),
       st.integers(0, 80), st.integers(0, 80), st.booleans(),
       st.integers(0, 200), st.integers(1, 300))
def test_position_text_round_trips_for_placed_positions(pieces, wk, bk, black, half, full):
    names = {GEO.cells[c]: letter for c, letter in pieces.items()}
    names[GEO.cells[wk]] = "K"
    names[GEO.cells[bk]] = "k"
    text = fen(names, "b" if black else "w").replace(" 0 1", f" {half} {full}")
    try:
        pos = GAME.parse_position(text)
    except PositionError:
        return  # an impossible placement (King count, Pawn beyond its River, check…)
    assert GAME.position_text(pos) == text


# -- make / undo --------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 80))
def test_push_then_pop_restores_the_snapshot(seed, plies):
    rng = random.Random(seed)
    pos = GAME.start()
    for _ in range(plies):
        moves = GAME.legal_moves(pos)
        if not moves:
            break
        before = pos.snapshot()
        mover = pos.turn
        for m in moves:
            pos.push(m)
            assert not GAME.in_check(pos, mover)  # no legal move leaves its King attacked
            assert pos.turn != mover
            assert pos.pop() == m
            assert pos.snapshot() == before
        pos.push(rng.choice(moves))


# -- CLI ------------------------------------------------------------------------------------------


def test_cli_moves_perft_and_show(capsys):
    assert cli_main(["moves", "--game", "gnuqi"]) == 0
    listed = capsys.readouterr().out.split()
    assert len(listed) == 36 and "Ce4" in listed
    assert cli_main(["perft", "--game", "gnuqi", "--depth", "2"]) == 0
    assert capsys.readouterr().out.strip() == "1296"
    assert cli_main(["perft", "--game", "gnuqi", "--depth", "2", "--divide"]) == 0
    lines = capsys.readouterr().out.split("\n")
    assert "Ce4: 36" in lines and "1296" in lines
    assert cli_main(["show", "--game", "gnuqi", "--moves", "e4", "e6", "Qe2"]) == 0
    shown = capsys.readouterr().out
    label = "[provisional set-up: the inventor's array is lost, this one is a reconstruction]"
    assert label in shown and "~~~" in shown
    assert "Black to move" in shown
    assert cli_main(["moves", "--game", "gnuqi", "--position", "4k4/9/9/9/9/9/9/9/4K4 w"]) == 0
    assert len(capsys.readouterr().out.split()) == 5


def test_cli_reports_bad_input(capsys):
    assert cli_main(["moves", "--game", "gnuqi", "--moves", "e5"]) == 2
    assert "illegal move 'e5'" in capsys.readouterr().err
    assert cli_main(["show", "--game", "gnuqi", "--position", "9/9 w"]) == 2
    assert "expected 9 ranks" in capsys.readouterr().err


def test_moves_are_plain_values():
    m = GAME.parse_move(GAME.start(), "Ce4")
    assert m == Move("move", sq("f1"), sq("e4"), Piece(0, "C"))
