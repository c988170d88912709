"""Lao Tzu Chess rules: worked examples V1–V3 and D1–D2 of laotzu.md, castling, drops,
check and game end, position text, notation, views and hints."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli import main
from controller.rules import IllegalMoveError, PositionError, RulesError, get_game
from controller.rules.core import OFF_BOARD, Piece
from controller.rules.laotzu import (
    SQUARE_NAMES,
    LaoTzu,
    PlayerView,
    chess960_array,
    hint_drop_targets,
    hint_targets,
    view,
    view_text,
)

GAME = get_game("laotzu")


def sq(name: str) -> int:
    return SQUARE_NAMES.index(name)


def names(cells) -> list[str]:
    return sorted(SQUARE_NAMES[c] for c in cells)


def drops(game, pos, kind: str | None = None) -> list[str]:
    return names(m.target for m in game.legal_moves(pos)
                 if m.kind == "drop" and (kind is None or m.piece.kind == kind))


def play(game, pos, *moves: str) -> None:
    for text in moves:
        pos.push(game.parse_move(pos, text))


def random_game(seed: int, plies: int, castling: str = "chess960"):
    """A game from a random pair of arrays, played by seeded random moves."""
    rng = random.Random(seed)
    game = LaoTzu(white_array=rng.randrange(960), black_array=rng.randrange(960),
                  castling=castling)
    pos = game.start()
    for _ in range(plies):
        moves = game.legal_moves(pos)
        if not moves or game.outcome(pos):
            break
        pos.push(rng.choice(moves))
    return game, pos


# -- set-up and options ----------------------------------------------------------------


def test_default_is_two_orthodox_arrays():
    assert GAME.position_text(GAME.start()) == (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w HAha - 0 1")
    assert GAME.options == {"white_array": 518, "black_array": 518, "castling": "chess960"}
    assert len(GAME.legal_moves(GAME.start())) == 20


def test_independent_arrays_and_castling_letters():
    game = get_game("laotzu", white_array=0, black_array=959)
    assert chess960_array(0) == "BBQNNRKR"
    assert chess960_array(959) == "RKRNNQBB"
    assert game.position_text(game.start()) == (
        "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR[] w HFca - 0 1")


def test_seeded_draw_is_recorded_and_reproducible():
    a, b = get_game("laotzu", seed=7), get_game("laotzu", seed=7)
    assert (a.white_array, a.black_array) == (b.white_array, b.black_array)
    assert a.options["seed"] == 7
    replay = get_game("laotzu", white_array=a.options["white_array"],
                      black_array=a.options["black_array"])
    assert replay.position_text(replay.start()) == a.position_text(a.start())
    draws = {(get_game("laotzu", seed=s).white_array, get_game("laotzu", seed=s).black_array)
             for s in range(20)}
    assert len(draws) > 15  # the seed really drives the draw


@pytest.mark.parametrize("options, words", [
    ({"white_array": 960}, "0..959"),
    ({"black_array": -1}, "0..959"),
    ({"white_array": True}, "0..959"),
    ({"seed": 1, "white_array": 5}, "either seed"),
    ({"castling": "chess961"}, "castling must be"),
    ({"colour": "red"}, "unknown options"),
])
def test_bad_options_are_named(options, words):
    with pytest.raises(RulesError, match=words):
        get_game("laotzu", **options)


# -- worked views V1–V3 (laotzu.md §9) ---------------------------------------------------


V1 = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNNBBKQR[] w - - 0 1"
V2 = "4k3/7p/8/4p3/2P5/1P4N1/P1BPPPPP/BNR1QKR1[N] w - - 0 1"
V3 = "1q2kr2/3N4/1pB1p3/1P6/1NP5/2P5/P1Q2nPP/1K2R3[] w - - 0 1"


@pytest.mark.parametrize("text, expected", [
    (V1, "????????/????????/????????/????????/8/8/PPPPPPPP/RNNBBKQR"),
    (V2, "????????/???????p/??????1?/??1?p1?1/2P3?1/1P4N1/P1BPPPPP/BNR1QKR1"),
    (V3, "1q???r??/?1?N???1/1pB?p2?/?P4??/1NP?1?2/2P5/P1Q2nPP/1K2R3"),
])
def test_worked_views(text, expected):
    assert view(GAME.parse_position(text), 0).board_text() == expected


def test_v2_details_and_knight_drops():
    v = view(GAME.parse_position(V2), 0)
    assert sq("b5") not in v.visible and sq("d5") not in v.visible  # c4 Pawn: no empty diagonals
    assert sq("g4") not in v.visible  # g2 Pawn blocked by the own Knight
    assert {sq("h7"), sq("e5")} <= v.visible
    assert dict(v.enemies) == {sq("h7"): Piece(1, "P"), sq("e5"): Piece(1, "P")}
    expected = "a3 c3 d3 e3 f3 h3 a4 b4 d4 e4 f4 h4 c5 f5 h5 g6 d1 h1 b2".split()
    assert drops(GAME, GAME.parse_position(V2)) == sorted(expected)


def test_v3_details():
    v = view(GAME.parse_position(V3), 0)
    seen = {SQUARE_NAMES[c]: p.kind for c, p in v.enemies}
    assert seen == {"b8": "Q", "f8": "R", "b6": "P", "e6": "P", "f2": "N"}
    assert sq("e8") not in v.visible  # the Black King stays hidden


def test_v1_black_sees_only_his_own_side():
    v = view(GAME.parse_position(V1), 1)
    assert v.board_text() == "rnbqkbnr/pppppppp/8/8/????????/????????/????????/????????"
    assert v.enemies == ()


# -- drops: D1 and more ----------------------------------------------------------------------


def test_d1_drops_only_on_empty_visible_cells():
    pos = GAME.parse_position(V1.replace("[]", "[NP]"))
    rank34 = sorted(f + r for r in "34" for f in "abcdefgh")
    assert drops(GAME, pos, "N") == rank34
    assert drops(GAME, pos, "P") == rank34
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(pos, "N@e5")  # hidden
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(pos, "N@e2")  # occupied


def test_d1_no_pawn_drop_on_first_or_last_rank():
    # The Rook on a7 sees a8–h8 partly and the Rook on h2 sees h1: visible, empty.
    pos = GAME.parse_position("4k3/R7/8/8/8/8/7R/4K3[NP] w - - 0 1")
    for cell in ("a8", "h1", "h8"):
        assert cell in drops(GAME, pos, "N")
        assert cell not in drops(GAME, pos, "P")
    assert "d7" in drops(GAME, pos, "P")


def test_drop_may_block_check_only_on_a_visible_cell():
    pos = GAME.parse_position("4k3/8/8/8/8/8/8/K3R3[n] b - - 0 1")
    assert GAME.in_check(pos)
    assert drops(GAME, pos) == ["e7"]  # e2–e6 would block too, but Black cannot see them


def test_no_drop_in_double_check():
    pos = GAME.parse_position("4k3/8/5N2/8/8/8/8/K3R3[n] b - - 0 1")
    moves = GAME.legal_moves(pos)
    assert moves and all(m.piece.kind == "K" for m in moves)


def test_pawn_drop_mate_is_legal():
    pos = GAME.parse_position("6nk/7p/8/8/8/8/8/K5Q1[P] w - - 0 1")
    move = GAME.parse_move(pos, "P@g7")
    assert GAME.move_text(pos, move) == "P@g7#"
    assert GAME.parse_move(pos, "@g7") == move == GAME.parse_move(pos, "P@g7#")
    pos.push(move)
    assert GAME.outcome(pos).reason == "checkmate" and GAME.outcome(pos).winners == (0,)
    assert pos.hands[0] == {}


def test_dropped_pawn_on_second_rank_may_double_step():
    pos = GAME.parse_position("4k3/8/8/8/8/8/8/1R2K3[P] w - - 0 1")
    play(GAME, pos, "P@b2", "Kd7")
    assert "b2b4" in [GAME.long_move_text(pos, m) for m in GAME.legal_moves(pos)]


# -- captures, hands and reversion (D2) ---------------------------------------------------


def test_d2_captured_promoted_queen_returns_as_pawn():
    pos = GAME.parse_position("7r/P3k3/8/8/8/8/8/4K3[] w - - 0 1")
    play(GAME, pos, "a8=Q")
    assert GAME.position_text(pos).startswith("Q~6r/")
    play(GAME, pos, "Rxa8")
    assert pos.hands[1] == {"P": 1}
    assert GAME.position_text(pos) == "r7/4k3/8/8/8/8/8/4K3[p] w - - 0 2"


def test_captured_piece_changes_side():
    pos = GAME.start()
    play(GAME, pos, "e4", "d5", "exd5")
    assert pos.hands == [{"P": 1}, {}]
    play(GAME, pos, "Qxd5")
    assert pos.hands == [{"P": 1}, {"P": 1}]
    assert "P@e4" not in [GAME.move_text(pos, m) for m in GAME.legal_moves(pos)]  # e2 empty
    assert "P@e2" in [GAME.move_text(pos, m) for m in GAME.legal_moves(pos)]


# -- en passant and visibility -------------------------------------------------------------


def test_en_passant_target_visible_to_the_capturer_and_droppable():
    pos = GAME.parse_position("4k3/8/8/8/3p4/8/4P3/4K3[n] w - - 0 1")
    play(GAME, pos, "e4")
    assert GAME.position_text(pos).split()[3] == "e3"
    black = view(pos, 1)
    assert {sq("e3"), sq("e4")} <= black.visible and black.en_passant == sq("e3")
    assert "e3" in drops(GAME, pos)
    assert "dxe3" in [GAME.move_text(pos, m) for m in GAME.legal_moves(pos)]
    white = view(pos, 0)
    assert white.en_passant is None and sq("d4") not in white.visible


def test_en_passant_square_only_recorded_when_a_pawn_can_take():
    pos = GAME.parse_position("4k3/8/8/8/8/8/4P3/4K3[] w - - 0 1")
    play(GAME, pos, "e4")
    assert GAME.position_text(pos).split()[3] == "-"


def test_en_passant_exposing_the_king_is_illegal():
    pos = GAME.parse_position("8/8/8/8/k2p3R/8/4P3/4K3[] w - - 0 1")
    play(GAME, pos, "e4")
    assert "dxe3" not in [GAME.move_text(pos, m) for m in GAME.legal_moves(pos)]
    assert sq("e3") in view(pos, 1).visible  # pseudo-legal: still visible (pins ignored)


def test_pinned_piece_still_sees_its_moves():
    pos = GAME.parse_position("4r1k1/8/8/8/8/8/4N3/4K3[] w - - 0 1")
    assert not [m for m in GAME.legal_moves(pos) if m.origin == sq("e2")]
    assert {sq("c3"), sq("g1"), sq("d4")} <= view(pos, 0).visible


# -- castling -------------------------------------------------------------------------------


def castles(game, pos) -> dict[str, tuple]:
    return {game.move_text(pos, m): (SQUARE_NAMES[m.origin], SQUARE_NAMES[m.target],
                                     [(SQUARE_NAMES[a], SQUARE_NAMES[b]) for a, b in m.also])
            for m in game.legal_moves(pos) if m.kind == "castle"}


def test_chess960_castling_king_already_on_g1():
    pos = GAME.parse_position("4k3/8/8/8/8/8/8/1R4KR[] w HB - 0 1")
    assert castles(GAME, pos) == {
        "O-O": ("g1", "g1", [("h1", "f1")]),
        "O-O-O": ("g1", "c1", [("b1", "d1")]),
    }
    play(GAME, pos, "O-O")
    assert GAME.position_text(pos) == "4k3/8/8/8/8/8/8/1R3RK1[] b - - 1 1"
    pos.pop()
    assert GAME.parse_move(pos, "g1h1").also == ((sq("h1"), sq("f1")),)


def test_chess960_castling_rook_stays():
    pos = GAME.parse_position("4k3/8/8/8/8/8/8/4KR2[] w F - 0 1")
    assert castles(GAME, pos) == {"O-O": ("e1", "g1", [])}
    play(GAME, pos, "e1f1")
    assert GAME.position_text(pos) == "4k3/8/8/8/8/8/8/5RK1[] b - - 1 1"


def test_chess960_castling_blocked_and_attacked():
    blocked = GAME.parse_position("4k3/8/8/8/8/8/8/RN2K3[] w A - 0 1")
    assert castles(GAME, blocked) == {}
    attacked = GAME.parse_position("3rk3/8/8/8/8/8/8/R3K3[] w A - 0 1")
    assert castles(GAME, attacked) == {}  # d1 crossed under attack
    fine = GAME.parse_position("1r2k3/8/8/8/8/8/8/R3K3[] w A - 0 1")
    assert list(castles(GAME, fine)) == ["O-O-O"]  # only the Rook's path is attacked


CHESS480 = LaoTzu(castling="chess480")


@pytest.mark.parametrize("text, expected", [
    # King two cells toward the Rook, Rook to the crossed cell (orthodox case)
    ("4k3/8/8/8/8/8/8/R3K2R[] w HA - 0 1",
     {"O-O": ("e1", "g1", [("h1", "f1")]), "O-O-O": ("e1", "c1", [("a1", "d1")])}),
    # Rook two cells away: the King lands on the Rook's cell
    ("4k3/8/8/8/8/8/8/5K1R[] w H - 0 1", {"O-O": ("f1", "h1", [("h1", "g1")])}),
    # side by side, not in the corner: the King jumps over the Rook, which stays
    ("4k3/8/8/8/8/8/8/1RK5[] w B - 0 1", {"O-O-O": ("c1", "a1", [])}),
    # side by side in the corner: King and Rook swap
    ("4k3/8/8/8/8/8/8/6KR[] w H - 0 1", {"O-O": ("g1", "h1", [("h1", "g1")])}),
    ("4k3/8/8/8/8/8/8/RK6[] w A - 0 1", {"O-O-O": ("b1", "a1", [("a1", "b1")])}),
    # far Rook: King still moves only two cells
    ("4k3/8/8/8/8/8/8/1K4R1[] w G - 0 1", {"O-O": ("b1", "d1", [("g1", "c1")])}),
])
def test_chess480_castling(text, expected):
    pos = CHESS480.parse_position(text)
    assert castles(CHESS480, pos) == expected


def test_chess480_castling_conditions():
    # the King may not jump onto an occupied cell, nor cross an attacked one
    assert castles(CHESS480, CHESS480.parse_position("4k3/8/8/8/8/8/8/NRK5[] w B - 0 1")) == {}
    assert castles(CHESS480, CHESS480.parse_position("4k3/7b/8/8/8/8/8/1RK5[] w B - 0 1")) == {}
    assert castles(CHESS480, CHESS480.parse_position(
        "4kr2/8/8/8/8/8/8/4K2R[] w H - 0 1")) == {}
    pos = CHESS480.parse_position("4k3/8/8/8/8/8/8/1RK5[] w B - 0 1")
    play(CHESS480, pos, "O-O-O")
    assert CHESS480.position_text(pos) == "4k3/8/8/8/8/8/8/KR6[] b - - 1 1"
    assert CHESS480.long_move_text(pos, pos.moves[-1]) == "c1b1"


def test_castling_rights_lost_by_king_rook_and_capture():
    pos = GAME.parse_position("r3k2r/8/8/8/8/8/8/R3K2R[] w HAha - 0 1")
    play(GAME, pos, "Rxa8+")
    assert GAME.position_text(pos).split()[2] == "Hh"
    play(GAME, pos, "Ke7", "Kd1")
    assert GAME.position_text(pos).split()[2] == "-"


# -- check and game end -------------------------------------------------------------------


def test_stalemate_but_not_with_something_to_drop():
    assert GAME.outcome(GAME.parse_position("k7/2Q5/8/8/8/8/8/K7[] b - - 0 1")).reason == (
        "stalemate")
    with_hand = GAME.parse_position("k7/2Q5/8/8/8/8/8/K7[n] b - - 0 1")
    assert GAME.outcome(with_hand) is None
    assert drops(GAME, with_hand) == ["a7", "b7", "b8"]


def test_fifty_move_rule():
    pos = GAME.parse_position("7k/6pp/8/8/8/8/8/R3K3[] w - - 99 60")
    play(GAME, pos, "Ra2")
    assert GAME.outcome(pos).reason == "fifty-move"
    pos.pop()
    play(GAME, pos, "Ra8#")
    assert GAME.outcome(pos).reason == "checkmate"  # mate wins over the 50-move rule


def test_drop_resets_fifty_move_counter():
    pos = GAME.parse_position("4k3/8/8/8/8/8/8/R3K3[N] w - - 40 60")
    play(GAME, pos, "N@d2")
    assert pos.halfmove == 0


def test_threefold_repetition():
    pos = GAME.start()
    for _ in range(2):
        play(GAME, pos, "Nf3", "Nf6", "Ng1", "Ng8")
    assert GAME.outcome(pos).reason == "repetition"
    pos.pop()
    assert GAME.outcome(pos) is None


def test_insufficient_material_only_for_composed_positions():
    for text in ("4k3/8/8/8/8/8/8/4K3[] w - - 0 1", "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1",
                 "4k3/8/8/8/8/8/8/4KB2[] w - - 0 1"):
        assert GAME.outcome(GAME.parse_position(text)).reason == "insufficient-material"
    for text in ("4k3/8/8/8/8/8/8/4K3[P] w - - 0 1", "4k3/8/8/8/8/8/8/4KB2[n] w - - 0 1"):
        assert GAME.outcome(GAME.parse_position(text)) is None


def test_in_check_is_public_but_not_the_checker():
    pos = GAME.parse_position("4k3/8/8/8/8/8/8/K3R3[] b - - 0 1")
    assert view(pos, 0).in_check and view(pos, 1).in_check
    assert sq("e1") not in view(pos, 1).visible  # the checking Rook stays hidden


# -- notation --------------------------------------------------------------------------------


def test_san_and_long_forms():
    pos = GAME.parse_position("4k3/1P6/8/3p4/4P3/8/8/R3K1NR[N] w HA - 0 1")
    assert "N@e3" not in [GAME.move_text(pos, m) for m in GAME.legal_moves(pos)]  # hidden
    texts = {GAME.move_text(pos, m): GAME.long_move_text(pos, m) for m in GAME.legal_moves(pos)}
    assert texts["Nf3"] == "g1f3"
    assert texts["exd5"] == "e4d5"
    assert texts["b8=Q+"] == "b7b8q"
    assert texts["b8=N"] == "b7b8n"
    assert texts["O-O-O"] == "e1a1"
    assert texts["N@e2"] == "N@e2"
    for text in ("Nf3", "g1f3", "exd5", "b8=Q", "b8=Q+", "0-0-0", "O-O-O", "N@e2"):
        GAME.parse_move(pos, text)


def test_disambiguation():
    pos = GAME.parse_position("4k3/8/8/8/8/8/4K3/R6R[] w - - 0 1")
    assert "Rad1" in [GAME.move_text(pos, m) for m in GAME.legal_moves(pos)]
    pos = GAME.parse_position("7k/R7/8/8/8/8/8/R3K3[] w - - 0 1")
    assert "R1a4" in [GAME.move_text(pos, m) for m in GAME.legal_moves(pos)]


def test_illegal_move_error_does_not_reveal_the_position():
    pos = GAME.start()
    with pytest.raises(IllegalMoveError) as err:
        GAME.parse_move(pos, "Ke2")
    assert str(err.value) == "illegal move 'Ke2'"


def test_moves_spell_out_their_effects():
    pos = GAME.parse_position("4k3/8/8/8/8/8/8/4K2R[N] w H - 0 1")
    castle = GAME.parse_move(pos, "O-O")
    assert castle.kind == "castle" and castle.also == ((sq("h1"), sq("f1")),)
    drop = GAME.parse_move(pos, "N@f2")
    assert (drop.kind, drop.origin, drop.piece) == ("drop", OFF_BOARD, Piece(0, "N"))


# -- position text --------------------------------------------------------------------------


@pytest.mark.parametrize("text, words", [
    ("8/8/8/8/8/8/8/8[] w - - 0 1", "exactly one King"),
    ("4k3/8/8/8/8/8/8/3PK3[] w - - 0 1", "rank 1 or 8"),
    ("4k3/8/8/8/8/8/8/4K~3[] w - - 0 1", "cannot be promoted"),
    ("4k3/8/8/8/8/8/8/4K3[K] w - - 0 1", "cannot be in a hand"),
    ("4k3/8/8/8/8/8/8/4K3[] x - - 0 1", "side to move"),
    ("4k3/8/8/8/8/8/8/4K3[] w A - 0 1", "castling right"),
    ("4k3/8/8/8/8/8/8/4K3[] w - e3 0 1", "en passant"),
    ("4k3/8/8/8/8/8/8/4K3[] w - - x 1", "counters"),
    ("4k2R/8/8/8/8/8/8/4K3[] w - - 0 1", "side not to move is in check"),
    ("4k3/8/8/8/8/8/4K3[] w - - 0 1", "8 ranks"),
    ("4k3/8/8/8/8/8/8/4K4[] w - - 0 1", "files"),
    ("4k3/8/8/8/8/8/8/4K3 w", "expected"),
])
def test_bad_position_text_is_named(text, words):
    with pytest.raises(PositionError, match=words):
        GAME.parse_position(text)


def test_xfen_castling_letters_accepted():
    pos = GAME.parse_position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert GAME.position_text(pos) == GAME.position_text(GAME.start())


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10**9), st.integers(0, 140), st.sampled_from(["chess960", "chess480"]))
def test_position_text_round_trips(seed, plies, castling):
    game, pos = random_game(seed, plies, castling)
    text = game.position_text(pos)
    again = game.parse_position(text)
    assert game.position_text(again) == text
    assert again.snapshot() == pos.snapshot()


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10**9), st.integers(0, 120), st.sampled_from(["chess960", "chess480"]))
def test_push_pop_restores_snapshot(seed, plies, castling):
    game, pos = random_game(seed, plies, castling)
    rng = random.Random(seed ^ 0x5EED)
    start = pos.snapshot()
    history = []
    for _ in range(8):
        moves = game.legal_moves(pos)
        if not moves:
            break
        for move in moves[:: max(1, len(moves) // 6)]:
            before = pos.snapshot()
            pos.push(move)
            pos.pop()
            assert pos.snapshot() == before
        history.append(pos.snapshot())
        pos.push(rng.choice(moves))
    while history:
        pos.pop()
        assert pos.snapshot() == history.pop()
    assert pos.snapshot() == start


# -- views and hints -------------------------------------------------------------------------


def test_view_is_frozen_and_text_shows_only_the_view():
    pos = GAME.parse_position(V2)
    v = view(pos, 0)
    assert isinstance(v, PlayerView)
    with pytest.raises(AttributeError):
        v.in_check = True  # type: ignore[misc]
    text = view_text(pos, 0)
    assert "????????/???????p/??????1?/??1?p1?1/2P3?1/1P4N1/P1BPPPPP/BNR1QKR1" in text
    diagram = [line[2:] for line in text.splitlines()[1:9]]
    assert "k" not in "".join(diagram) and "?" in "".join(diagram)
    # A different hidden part gives the same text.
    other = GAME.parse_position(V2.replace("4k3/7p", "r3k2r/q6p"))
    assert view_text(other, 0) == text


def test_opponent_array_is_hidden_at_the_start():
    a = get_game("laotzu", white_array=100, black_array=5)
    b = get_game("laotzu", white_array=100, black_array=700)
    assert view_text(a.start(), 0) == view_text(b.start(), 0)
    assert view_text(a.start(), 1) != view_text(b.start(), 1)


def test_hint_targets_from_the_view():
    pos = GAME.parse_position(V2)
    v = view(pos, 0)
    assert names(hint_targets(v, sq("c2"))) == ["d1", "d3", "e4", "f5", "g6", "h7"]
    assert names(hint_targets(v, sq("c4"))) == ["c5"]
    with pytest.raises(RulesError, match="no piece"):
        hint_targets(v, sq("h7"))


def test_hint_excludes_visible_attacks_only():
    hidden = GAME.parse_position("3rk3/8/8/8/8/8/8/4K3[] w - - 0 1")
    v = view(hidden, 0)
    assert names(hint_targets(v, sq("e1"))) == ["d1", "d2", "e2", "f1", "f2"]
    legal = names(m.target for m in GAME.legal_moves(hidden))
    assert legal == ["e2", "f1", "f2"]  # the hidden Rook makes d1/d2 illegal: referee says so
    seen = GAME.parse_position("4k3/8/8/8/8/3r4/8/1B2K3[] w - - 0 1")
    assert names(hint_targets(view(seen, 0), sq("e1"))) == ["e2", "f1", "f2"]


def test_hint_drop_targets_in_check():
    pos = GAME.parse_position("4k3/8/8/8/8/8/8/K3R3[n] b - - 0 1")
    v = view(pos, 1)
    # the checker is hidden: every empty visible cell may block as far as Black knows
    assert names(hint_drop_targets(v, "N")) == ["d7", "d8", "e7", "f7", "f8"]
    assert hint_drop_targets(v, "Q") == frozenset()
    # the Rook on e1 is seen, but hidden cells between could hide a blocker: still unknown
    unsure = GAME.parse_position("4k3/8/8/8/8/8/8/r3R2K[n] b - - 0 1")
    assert sq("e1") in view(unsure, 1).visible and drops(GAME, unsure) == ["e7"]
    assert "e7" in names(hint_drop_targets(view(unsure, 1), "N"))
    # a checker seen along a fully visible line: only the blocking cell
    seen = GAME.parse_position("2b1k3/8/4R3/8/8/8/8/K7[n] b - - 0 1")
    assert names(hint_drop_targets(view(seen, 1), "N")) == ["e7"] == drops(GAME, seen)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**9), st.integers(0, 150))
def test_hints_never_omit_a_legal_move(seed, plies):
    game, pos = random_game(seed, plies)
    v = view(pos, pos.turn)
    legal = game.legal_moves(pos)
    for cell, _ in v.own:
        targets = {m.target for m in legal if m.origin == cell}
        assert targets <= hint_targets(v, cell)
    for kind, _ in v.hands[pos.turn]:
        targets = {m.target for m in legal if m.kind == "drop" and m.piece.kind == kind}
        assert targets <= hint_drop_targets(v, kind)


# -- command line --------------------------------------------------------------------------


def test_cli_view_and_moves(capsys):
    assert main(["view", "--game", "laotzu", "--player", "black", "--moves", "e4"]) == 0
    out = capsys.readouterr().out
    assert "rnbqkbnr/pppppppp/8/8/????????/????????/????????/????????" in out
    assert main(["moves", "--game", "laotzu", "--set", "castling=chess480",
                 "--set", "seed=3"]) == 0
    game = get_game("laotzu", castling="chess480", seed=3)
    assert len(capsys.readouterr().out.split()) == len(game.legal_moves(game.start()))
