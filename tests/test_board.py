"""The board state machine, driven by scripted human actions on the simulated board
(``controller.sensing.sim``) through the real debouncer and settle gate — one test per
situation of design/interaction.md for Lùotuoqí, plus the generic machinery (set-up,
correction, takeback, executing a move, commands, pause, game over) and a look at the
other games' situations (Gnu Qi's Pawn→Wazir exchange, KaleidoChess' die)."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest

from controller.board import (
    ACCEPT_DRAW,
    NEW_GAME,
    NEXT_GAME,
    OFFER_DRAW,
    RESIGN,
    TRANSITIONS,
    Board,
    BoardOptions,
    diagram,
)
from controller.interaction import PHASES
from controller.layout import load_layout
from controller.rules import get_game
from controller.rules.core import IllegalMoveError, Piece
from tests.support.rig import GAME, Human, Rig, objects_for

ROOT = Path(__file__).resolve().parent.parent
ROOKS = "4k3/8/8/r7/8/8/8/R3K3 w - - 0 1"
TOWERS = "4k3/8/8/8/8/8/8/K1T31T33 w - - 0 1"
TALL = "4k3/8/8/8/8/8/8/3T8K3 w - - 0 1"
BYPASS = "k7/8/8/3e4/2e1e3/3e4/1D6/K7 w - - 0 1"
FLANK = "4k3/8/8/5d2/1E3MEM/7D/8/4K3 w - - 0 1"
CASTLE = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq b 0 1"
MATE = "k7/8/1K6/8/8/8/8/7R w - - 0 1"


def texts(rig: Rig, moves, start: str | None = None) -> list[str]:
    """Notation of a committed sequence, replayed from ``start``."""
    pos = GAME.parse_position(start) if start else GAME.start()
    out = []
    for m in moves:
        out.append(GAME.move_text(pos, m))
        pos.push(m)
    return out


def option_labels(rig: Rig) -> list[str]:
    return [o.label for o in rig.interaction.options]


# -- the table and its diagram -------------------------------------------------------------


def test_diagram_in_docs_is_generated_from_the_table():
    text = (ROOT / "docs" / "board.md").read_text(encoding="utf-8")
    block = re.search(r"```mermaid\n(.*?)```", text, re.S)
    assert block and block.group(1) == diagram("mermaid")
    states = {d for _, _, d, _ in TRANSITIONS}
    assert states <= set(PHASES) and set(PHASES) - states == set()
    assert "setup -> turn" in diagram("dot")


def test_options_are_validated():
    with pytest.raises(ValueError, match="answer_on"):
        BoardOptions(answer_on="screen")
    with pytest.raises(ValueError, match="negative"):
        BoardOptions(guide_delay=-1)


# -- set-up verification -------------------------------------------------------------------


def test_game_starts_only_when_the_board_matches_the_starting_position():
    rig = Rig(set_up=False)
    rig.wait(0.05)
    assert rig.state == "setup"
    it = rig.interaction
    assert len(it.missing) == 33 and rig.spot("black-cube") in it.missing
    pos = GAME.start()
    for c, p in enumerate(pos.board):
        if p is not None and c != GAME.geometry.cell("d1"):
            rig.sim.put(c, objects_for(p))
    rig.sim.put("black-cube", "cube")
    rig.sim.put("e4", "white-eaglet")  # one piece too many, one missing
    rig.wait(0.05)
    assert rig.state == "setup"
    assert rig.interaction.missing == rig.spots("d1")
    assert rig.interaction.extra == rig.spots("e4")
    rig.wait(3.1)  # guidance one piece at a time: the extra piece first
    assert rig.interaction.guide == rig.spot("e4")
    assert "e4" in rig.interaction.message
    rig.remove("e4")
    assert rig.interaction.guide == rig.spot("d1")
    assert "White Tower ×8 on d1" in rig.interaction.message
    rig.sim.put("d1", objects_for(Piece(0, "T", 8)))
    rig.wait(0.05)
    assert rig.state == "turn" and rig.interaction.mover == 0


def test_linear_halls_check_stack_heights_at_set_up():
    rig = Rig(TALL, set_up=False, analog=True)
    rig.sim.put("e8", "black-king")
    rig.sim.put("e1", "white-king")
    rig.sim.put("d1", ["white-stone"] * 2)  # a T2 where a T8 belongs
    rig.wait(0.05)
    assert rig.state == "setup"
    rig.sim.put("d1", ["white-stone"] * 6)
    rig.wait(0.05)
    assert rig.state == "turn"


def test_saved_game_resumes_when_the_board_matches_it():
    rig = Rig()
    saved = GAME.start()
    for text in ("Mb1-c3", "Eb7-a6"):
        saved.push(GAME.parse_move(saved, text))
    rig.board.load(saved)
    assert rig.state == "setup"
    rig.move("b1", "c3")
    rig.move("b7", "a6")
    assert rig.state == "turn" and rig.position.moves == saved.moves
    rig.move("a6", "b7", wait=2.0)  # and the history allows takebacks
    assert rig.takebacks and len(rig.position.moves) == 1


# -- moves, captures, slides ---------------------------------------------------------------


def test_lifted_piece_shows_targets_and_put_back_is_nothing():
    rig = Rig()
    rig.lift("b1")
    it = rig.interaction
    assert it.phase == "lifted" and it.origins == rig.spots("b1")
    assert it.targets == rig.spots("a3", "c3")
    rig.place("b1")
    assert rig.state == "turn" and not rig.moves


@pytest.mark.parametrize("victim_first", [False, True])
def test_capture_with_either_piece_lifted_first(victim_first):
    rig = Rig(ROOKS)
    if victim_first:
        rig.remove("a5")
        assert rig.state == "lifted"
        rig.lift("a1")
    else:
        rig.lift("a1")
        assert rig.interaction.targets >= rig.spots("a5")
        rig.remove("a5")
    assert not rig.moves
    rig.place("a5")
    assert texts(rig, rig.moves, ROOKS) == ["Ra1xa5"]


def test_piece_held_over_a_capturable_piece_is_not_a_capture():
    rig = Rig(ROOKS)
    rig.lift("a1")
    rig.wait(1.0)
    assert rig.state == "lifted" and not rig.moves  # same picture as "Ra1xa5" done


def test_slide_counts_only_where_it_ends():
    rig = Rig(ROOKS)
    rig.sim.slide(["a1", "a2", "a3", "a4"], dwell_s=0.05)
    rig.wait(0.3)
    assert texts(rig, rig.moves, ROOKS) == ["Ra1-a4"]
    assert any(it.phase == "settling" for it in rig.seen)


def test_slide_waits_the_settle_time_and_a_step_commits_at_once():
    rig = Rig(ROOKS)
    rig.lift("a1")
    rig.sim.place("a3")
    rig.wait(0.1)
    assert not rig.moves and rig.state == "settling"  # the Rook might still go on
    rig.wait(0.15)
    assert len(rig.moves) == 1
    rig.lift("e8")
    rig.sim.place("d8")
    rig.wait(0.02)
    assert len(rig.moves) == 2  # a King step cannot be extended


def test_fast_player_gets_both_moves():
    rig = Rig(ROOKS)
    rig.lift("a1")
    rig.sim.place("a3")
    rig.wait(0.03)  # held by the settle gate …
    rig.sim.lift("e8")  # … when the opponent already lifts his King
    rig.wait(0.05)
    rig.place("d7")
    assert texts(rig, rig.moves, ROOKS) == ["Ra1-a3", "Ke8-d7"]


# -- Towers --------------------------------------------------------------------------------


def test_split_sizes_are_chosen_on_the_option_pads_with_paging():
    rig = Rig(TALL)
    rig.lift("d1", 3)
    rig.place("d2", None, 0.3)  # a split that might go on settles first
    it = rig.interaction
    assert it.phase == "choice" and len(it.options) == 6
    assert option_labels(rig)[-1] == "more…"
    assert option_labels(rig)[:5] == [f"T{k}d1-d2" for k in range(1, 6)]
    assert [o.spot for o in it.options] == [rig.spot(f"option-{k}") for k in range(1, 7)]
    wanted = GAME.parse_move(rig.position, "T7d1-d2")
    rig.answer(wanted)  # pages on, then touches the right pad
    assert rig.moves == [wanted] and rig.state == "turn"


def test_linear_halls_narrow_the_split_size():
    rig = Rig(TALL, analog=True)
    rig.lift("d1", 2)
    rig.place("d2", None, 0.3)
    assert texts(rig, rig.moves, TALL) == ["T2d1-d2"]


def test_split_from_two_towers_asks_which():
    rig = Rig(TOWERS)
    rig.lift("c1", 1)
    rig.place("d2", None, 0.3)
    assert rig.state == "choice"
    assert sorted(option_labels(rig)) == ["T1c1-d2", "T1e1-d2", "T2c1-d2", "T2e1-d2"]
    rig.board.answer_choice(option_labels(rig).index("T1c1-d2"))  # from the web page
    assert texts(rig, rig.moves, TOWERS) == ["T1c1-d2"]


def test_merge_counts_once_the_target_tower_was_lifted():
    rig = Rig(TOWERS)
    rig.lift("c1")
    rig.place("e1")  # stacked on top: the picture of a Tower still in the hand
    rig.wait(0.5)
    assert rig.state == "lifted" and not rig.moves
    assert rig.interaction.targets >= rig.spots("e1")
    rig.tap("e1")
    assert texts(rig, rig.moves, TOWERS) == ["T3c1-e1=T6"]


def test_split_merge_is_confirmed_after_tapping_the_target():
    rig = Rig(TOWERS)
    rig.lift("c1", 2)
    rig.place("e1")
    assert rig.state == "turn" and not rig.moves  # nothing visible happened
    rig.tap("e1")
    assert rig.state == "choice"
    assert option_labels(rig) == ["T2c1-e1=T5"]
    rig.answer(GAME.parse_move(rig.position, "T2c1-e1=T5"))
    assert rig.position.board[GAME.geometry.cell("e1")] == Piece(0, "T", 5)


def test_whole_tower_lifted_and_remainder_put_back_is_a_split():
    rig = Rig(TOWERS)
    rig.lift("c1")
    rig.sim.place("c2", 1)  # one stone forward …
    rig.wait(0.4)  # … committed as the whole Tower? not yet: the rest is in the hand
    rig.place("c1")  # the remainder back
    if rig.state == "choice":
        rig.answer(GAME.parse_move(GAME.parse_position(TOWERS), "T1c1-c2"))
    assert texts(rig, rig.position.moves, TOWERS) == ["T1c1-c2"]


# -- bypass captures -----------------------------------------------------------------------


def test_bypass_victims_removed_after_the_move():
    rig = Rig(BYPASS)
    rig.lift("b2")
    rig.place("f6")
    it = rig.interaction
    assert it.phase == "lifted" and it.to_remove == rig.spots("c4", "d3", "d5", "e4")
    for name in ("d5", "c4", "e4"):
        rig.remove(name)
        assert not rig.moves
    assert rig.interaction.to_remove == rig.spots("d3")
    rig.remove("d3", 0.3)  # the Bypasser could still go on to g7: it settles first
    assert texts(rig, rig.moves, BYPASS) == ["Db2-f6xd3xc4xe4xd5"]


def test_bypass_victims_removed_before_and_after():
    rig = Rig(BYPASS)
    rig.remove("e4")
    rig.remove("d3")
    assert rig.state == "lifted" and not rig.moves
    rig.sim.slide(["b2", "c3", "d4", "e5", "f6"], dwell_s=0.04)
    rig.wait(0.3)
    assert not rig.moves and rig.interaction.to_remove == rig.spots("c4", "d5")
    rig.remove("c4")
    rig.remove("d5", 0.3)
    assert texts(rig, rig.moves, BYPASS) == ["Db2-f6xd3xc4xe4xd5"]


# -- flank promotion -----------------------------------------------------------------------


def test_flank_promotion_gesture_then_a_choice_of_type():
    rig = Rig(FLANK)
    rig.remove("g4")
    rig.sim.take("white-mule")
    rig.place("g4")
    assert rig.state == "choice" and sorted(option_labels(rig)) == ["Eg4=D", "Eg4=M"]
    rig.answer(GAME.parse_move(rig.position, "Eg4=M"))
    assert rig.position.board[GAME.geometry.cell("g4")] == Piece(0, "M")


def test_lifting_an_eaglet_that_cannot_promote_is_nothing():
    rig = Rig(FLANK)
    rig.tap("b4")
    assert rig.state == "turn" and not rig.moves


def test_promotion_choice_is_dropped_when_the_player_moves_on():
    rig = Rig(FLANK)
    rig.tap("g4")
    assert rig.state == "choice"
    rig.move("b4", "a5")
    assert texts(rig, rig.moves, FLANK) == ["Eb4-a5"]


# -- the Cube ------------------------------------------------------------------------------


def test_cube_handed_over_after_the_move_makes_it_a_cube_move():
    rig = Rig()
    rig.move("b1", "c3")
    assert rig.interaction.active_pads == rig.spots("black-cube")
    rig.move("b7", "a6")
    assert texts(rig, rig.moves) == ["Mb1-c3", "Eb7-a6"]  # committed at once …
    rig.wait(0.5)
    rig.move("black-cube", "white-cube")  # … and amended: same move, with the Cube
    assert texts(rig, rig.position.moves) == ["Mb1-c3", "Eb7-a6+cube"]
    assert rig.takebacks == [[rig.moves[1]]]  # the journal sees the replacement
    assert rig.interaction.mover == 1  # Black moves again
    rig.move("g8", "f6")
    assert texts(rig, rig.position.moves) == ["Mb1-c3", "Eb7-a6+cube", "Mg8-f6"]


def test_cube_handed_over_first():
    rig = Rig()
    rig.move("b1", "c3")
    rig.move("black-cube", "white-cube")
    assert rig.state == "lifted" and not rig.takebacks
    rig.move("b7", "a6")
    assert texts(rig, rig.position.moves) == ["Mb1-c3", "Eb7-a6+cube"]


# -- castling ------------------------------------------------------------------------------


def test_castling_king_first():
    rig = Rig(CASTLE)
    rig.move("e1", "g1")
    assert rig.state == "lifted"
    rig.move("h1", "f1")
    assert texts(rig, rig.position.moves, CASTLE) == ["O-O"] and not rig.takebacks


def test_castling_rook_first():
    rig = Rig(CASTLE)
    rig.move("a1", "d1")
    assert texts(rig, rig.moves, CASTLE) == ["Ra1-d1"]  # a legal Rook move on its own
    rig.move("e1", "c1")
    assert texts(rig, rig.position.moves, CASTLE) == ["O-O-O"]


# -- takebacks -----------------------------------------------------------------------------


def test_takeback_when_allowed():
    rig = Rig()
    rig.move("b1", "c3")
    rig.move("g8", "f6")
    rig.move("f6", "g8", wait=0.3)  # (the settle gate holds it a moment: it may go on)
    assert rig.state == "takeback" and "taking back 1 move" in rig.interaction.message
    rig.wait(1.5)  # held long enough: not a piece knocked off and put back
    assert len(rig.position.moves) == 1
    rig.move("c3", "b1", wait=2.0)
    assert rig.position.moves == [] and len(rig.takebacks) == 2
    assert [m.origin for t in rig.takebacks for m in t] == [GAME.geometry.cell("g8"),
                                                            GAME.geometry.cell("b1")]
    assert rig.state == "turn"


def test_two_moves_taken_back_at_once():
    rig = Rig()
    rig.move("b1", "c3")
    rig.move("g8", "f6")
    rig.lift("f6")
    rig.lift("c3")
    rig.place("b1", 1)
    rig.place("g8", 1, wait=2.0)
    assert rig.position.moves == [] and rig.takebacks == [[*reversed(rig.moves)]]


def test_piece_knocked_off_and_put_back_at_once_takes_nothing_back():
    start = "4k3/8/8/8/8/8/8/K1T25 w - - 0 1"
    rig = Rig(start)
    rig.lift("c1", 1)
    rig.place("c2")
    assert texts(rig, rig.moves, start) == ["T1c1-c2"]
    rig.sim.knock_over("c2")
    rig.wait(0.5)
    assert rig.state == "takeback"  # the picture of the position before the split …
    rig.sim.put("c2", "white-stone")
    rig.wait(0.1)
    assert rig.state == "turn" and len(rig.position.moves) == 1  # … but not for long


def test_takeback_refused_by_the_setting():
    rig = Rig(options=BoardOptions(takeback=False))
    rig.move("b1", "c3")
    rig.move("c3", "b1")
    assert rig.state == "takeback" and len(rig.position.moves) == 1
    assert rig.interaction.missing == rig.spots("c3")
    rig.move("b1", "c3")
    assert rig.state == "turn" and not rig.takebacks


# -- correction ----------------------------------------------------------------------------


def test_mismatch_shown_at_once_and_guided_after_a_few_seconds():
    rig = Rig()
    rig.sim.knock_over("e2")  # rolls off the board
    rig.sim.knock_over("d7", "d6")  # lies on d6
    rig.wait(0.1)
    it = rig.interaction
    assert it.phase == "correction" and it.guide is None
    assert it.missing == rig.spots("e2", "d7") and it.extra == rig.spots("d6")
    rig.wait(3.0)
    assert rig.interaction.guide == rig.spot("d6")
    rig.lift("d6")
    rig.place("d7")
    # only e2 is missing now: that is White's Eaglet lifted, not a mistake
    assert rig.state == "lifted" and rig.interaction.origins == rig.spots("e2")
    rig.sim.put("e2", "white-eaglet")
    rig.wait(0.05)
    assert rig.state == "turn" and not rig.moves


# -- executing someone else's move ---------------------------------------------------------


def test_execute_the_opponents_move_and_refuse_another():
    rig = Rig()
    rig.move("b1", "c3")
    wanted = GAME.parse_move(rig.position, "Eb7-a6")
    rig.board.execute(wanted)
    it = rig.interaction
    assert it.phase == "execute"
    assert it.execute_from == rig.spots("b7") and it.execute_to == rig.spots("a6")
    rig.move("b7", "c6")  # a different legal move: not accepted
    assert rig.state == "execute" and len(rig.moves) == 1
    assert "not the move" in rig.interaction.message
    rig.move("c6", "a6")
    assert texts(rig, rig.moves) == ["Mb1-c3", "Eb7-a6"] and rig.state == "turn"
    with pytest.raises(IllegalMoveError):
        rig.board.execute(wanted)


def test_execute_a_promotion_needs_the_swap():
    rig = Rig(FLANK)
    rig.board.execute(GAME.parse_move(rig.position, "Eg4=D"))
    assert rig.state == "execute"
    rig.remove("g4")
    rig.sim.take("white-bypasser")
    rig.place("g4")
    assert texts(rig, rig.moves, FLANK) == ["Eg4=D"]


# -- game over, commands, pause ------------------------------------------------------------


def test_checkmate_ends_the_game_and_a_pad_starts_a_new_one():
    rig = Rig(MATE)
    rig.move("h1", "h8")
    assert rig.state == "game_over" and rig.outcomes[0].reason == "checkmate"
    assert "1-0" in rig.interaction.message
    rig.tap("option-1")
    assert rig.state == "choice" and option_labels(rig) == [NEW_GAME, NEXT_GAME]
    rig.tap("option-1")
    assert rig.state == "setup" and rig.position.moves == []
    assert (NEW_GAME, None) in rig.commands


def test_resign_from_the_option_pads():
    rig = Rig()
    rig.tap("option-3")
    assert option_labels(rig) == [OFFER_DRAW, RESIGN, NEW_GAME]
    rig.tap("option-2")
    assert rig.state == "game_over" and rig.outcomes[-1].winners == (1,)
    assert (RESIGN, 0) in rig.commands


def test_draw_offered_and_accepted():
    rig = Rig()
    rig.tap("option-1")
    rig.tap("option-1")  # White offers a draw …
    assert rig.state == "turn" and "draw" in rig.interaction.message
    rig.move("b1", "c3")
    rig.tap("option-1")
    assert option_labels(rig)[0] == ACCEPT_DRAW  # … Black accepts on his turn
    rig.tap("option-1")
    assert rig.state == "game_over" and rig.outcomes[-1].reason == "agreement"


def test_menu_is_dropped_when_play_goes_on():
    rig = Rig()
    rig.tap("option-4")
    assert rig.state == "choice"
    rig.move("b1", "c3")
    assert texts(rig, rig.moves) == ["Mb1-c3"]


def test_choose_the_next_game_during_set_up():
    rig = Rig(set_up=False)
    board = Board(GAME, rig.layout, games=["luotuoqi", "laotzu"])
    rig.board = board
    rig.gate.is_extendable = board.is_extendable
    rig.tap("option-1")
    assert [o.label for o in board.interaction.options] == [NEXT_GAME]
    rig.tap("option-1")
    assert board.game.name == "laotzu" and board.state == "setup"


def test_pause_and_resume():
    rig = Rig()
    rig.board.pause()
    assert rig.state == "paused" and rig.interaction.message == "paused"
    rig.move("b1", "c3")
    assert not rig.moves
    rig.board.resume()
    assert texts(rig, rig.moves) == ["Mb1-c3"] and rig.state == "turn"


# -- boards without option pads ------------------------------------------------------------


CELLS = BoardOptions(answer_on="cells")


def test_choice_answered_by_tapping_a_cell():
    rig = Rig(TOWERS, options=CELLS)
    rig.lift("c1", 1)
    rig.place("d2", None, 0.3)
    it = rig.interaction
    assert it.phase == "choice"
    by_label = {o.label: o.spot for o in it.options}
    # options lie on the occupied cells counted from White's left corner: a1, c1, d2, e1
    assert sorted(by_label.values()) == sorted(rig.spots("a1", "c1", "d2", "e1"))
    rig.tap(by_label["T1c1-d2"])
    assert texts(rig, rig.moves, TOWERS) == ["T1c1-d2"]


def test_command_menu_by_lifting_both_kings():
    rig = Rig(options=CELLS)
    rig.lift("e1")
    rig.lift("e8")
    rig.wait(1.1)
    assert rig.state == "choice" and option_labels(rig) == [OFFER_DRAW, RESIGN, NEW_GAME]
    rig.place("e8", 1)
    rig.place("e1")
    assert rig.state == "choice"
    spot = {o.label: o.spot for o in rig.interaction.options}[RESIGN]
    rig.tap(spot)
    assert rig.state == "game_over" and rig.outcomes[-1].reason == "resignation"


def test_pads_required_for_answers_on_pads():
    layout = load_layout("square8")
    bare = dataclasses.replace(layout, spots=layout.spots[:64 + 12])
    with pytest.raises(ValueError, match="option pads"):
        Board(GAME, bare, options=BoardOptions(answer_on="pads"))
    assert Board(GAME, bare).answer_on == "cells"


# -- what the LEDs are told ----------------------------------------------------------------


def test_interaction_shows_last_move_check_and_tower_height():
    rig = Rig("4k3/8/8/8/8/8/4T43/R3K3 w - - 0 1")
    rig.lift("e2")
    assert rig.interaction.height_display == (rig.spot("e2"), 4)
    rig.place("e6", None, 0.3)
    it = rig.interaction
    assert it.last_move == rig.spots("e2", "e6")
    assert it.check == rig.spots("e8") and it.mover == 1


# -- situations of the other games ---------------------------------------------------------


def test_gnu_qi_pawn_exchanged_for_a_wazir_is_expected():
    game = get_game("gnuqi")
    start = "4k4/9/9/4P4/9/9/9/9/4K4 w - - 0 1"
    rig = Rig(start, game=game, layout="square9")
    rig.move("e6", "e7")
    assert len(rig.moves) == 1 and rig.moves[0].piece.kind == "W"
    rig.remove("e7")  # the Pawn goes, a Wazir comes
    assert rig.state == "turn" and "exchange" in rig.interaction.message
    rig.wait(3.5)
    assert rig.interaction.guide is None
    rig.sim.take("white-wazir")
    rig.place("e7")
    assert rig.state == "turn" and len(rig.moves) == 1


def test_kaleidochess_die_roll_is_asked_on_the_option_pads():
    game = get_game("kaleidochess", dice=True)
    rig = Rig(game=game, layout="kaleido89")
    assert rig.state == "choice"
    assert [o.label for o in rig.interaction.options] == [
        game.move_text(rig.position, m) for m in game.legal_moves(rig.position)]
    rig.tap("option-4")
    assert rig.moves and rig.moves[0].token == "die:4"
    # the LEDs show which pieces may move for that face
    movable = {m.origin for m in game.legal_moves(rig.position)}
    assert rig.state == "turn" and rig.interaction.origins == movable


def test_web_page_commands_need_a_game_in_progress():
    rig = Rig(set_up=False)
    with pytest.raises(ValueError, match="no game in progress"):
        rig.board.resign()
    rig.board.pause()
    rig.board.new_game()  # allowed while paused: set-up starts again
    assert rig.state == "setup"


# -- a short game with a clumsy player -----------------------------------------------------


def test_short_game_with_mishaps_is_recorded_exactly():
    rig = Rig()
    human = Human(rig, random.Random(7), mishaps=True, slow=0.3)
    played = []
    for text in ("Ec2-d3", "Mb8-c6", "Mb1-c3", "Eb7-a6+cube", "Mg8-f6", "Ed2-e3"):
        move = GAME.parse_move(rig.position, text)
        played.append(move)
        human.play(move)
    assert rig.position.moves == played


@pytest.mark.parametrize("backend", ["gpio-matrix", "mcu-matrix"])
def test_end_to_end_through_the_emulated_electronics(backend):
    """The production back end (Pi GPIO matrix; firmware + serial link over a
    pseudo-terminal) scanning the emulated circuit, its debouncer and settle gate."""
    rig = Rig(backend=backend)
    try:
        rig.wait(0.3)
        assert rig.state == "turn"
        rig.move("b1", "c3")
        rig.move("b7", "a6")
        rig.move("black-cube", "white-cube")  # the Cube after the move: amended
        rig.move("g8", "f6")  # Black's second move
        rig.move("c3", "d5")
        rig.remove("d5")  # victim first …
        rig.move("f6", "d5", wait=0.3)  # … then the Mule: a capture
        assert texts(rig, rig.position.moves) == [
            "Mb1-c3", "Eb7-a6+cube", "Mg8-f6", "Mc3-d5", "Mf6xd5"]
    finally:
        rig.close()

