"""Messages that never leave a player stuck (issue 17 #4): a move that is not legal says
which move was seen, why, and what to do; a Lao Tzu capture says that the captured piece
goes onto the hand pad."""

from __future__ import annotations

from controller.interaction import NOT_A_MOVE
from tests.support.laotzu import LaoRig, hand_pad
from tests.support.rig import Rig


def test_a_move_that_is_not_legal_names_itself_and_the_way_back():
    rig = Rig()
    try:
        rig.move("b1", "b3")  # a Mule does not go two squares straight
        rig.wait(0.5)
        it = rig.interaction
        assert it.phase == "correction"
        assert it.message == ("White Mule b1–b3 is not a legal move: put it back on b1 and "
                              "lift it to see where it may go")
        rig.move("b3", "b1")
        rig.move("e7", "d6")  # Black's piece while White is to move
        rig.wait(0.5)
        assert rig.interaction.message == ("Black Eaglet e7–d6 is not a legal move: it is "
                                           "White's move; put it back on e7")
    finally:
        rig.close()


def test_a_lao_tzu_capture_asks_for_the_piece_on_the_hand_pad():
    rig = LaoRig("4k3/8/8/3p4/4P3/8/8/4K3[] w - - 0 1")
    try:
        rig.remove("d5")        # the victim into the box
        rig.move("e4", "d5")    # the Pawn takes
        rig.wait(0.5)
        it = rig.interaction
        assert it.phase in ("lifted", "settling")
        assert it.message == ("put a White Pawn from the box on White's Pawn hand pad "
                              "(a captured piece changes colour)")
    finally:
        rig.close()


def test_a_piece_with_no_legal_move_says_so_and_guidance_names_pieces():
    """Issue 30: lifting a Rook boxed in at the start said nothing, then "put Black r on
    a8" in FEN letters."""
    rig = Rig(game="chess", layout="square8")
    try:
        rig.lift("a1")
        rig.wait(0.3)
        it = rig.interaction
        assert it.phase == "correction"
        assert it.message == "the White Rook on a1 has no legal move now: put it back on a1"
        rig.wait(3.5)  # guidance, one piece at a time, in the game's piece names
        assert rig.interaction.message == "put the White Rook on a1"
        rig.place("a1")
        rig.wait(0.5)
        rig.lift("b8")  # the other side's Knight while White is to move
        rig.wait(0.3)
        assert rig.interaction.message == "it is White's move: put the Black Knight back on b8"
        rig.wait(3.5)
        assert rig.interaction.message == "put the Black Knight on b8"
    finally:
        rig.close()


def test_every_illegal_try_gets_words_a_drop_on_a_fogged_cell_too():
    """Issue 30: a try that is not one piece from a cell to a cell had an empty message."""
    rig = LaoRig("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1")
    try:
        rig.move(hand_pad(0, "N"), "a6")  # a6 is out of White's sight
        rig.wait(0.5)
        it = rig.interaction
        assert it.phase == "correction" and it.message == NOT_A_MOVE
    finally:
        rig.close()


def test_taking_back_is_said_while_it_happens_not_after():
    """Issue 30: "taking back 1 move" stayed on the page after the takeback."""
    rig = Rig(game="chess", layout="square8")
    try:
        rig.move("e2", "e4")
        rig.wait(0.5)
        assert len(rig.moves) == 1
        rig.move("e4", "e2")  # the earlier position, held still
        rig.wait(0.3)
        assert rig.interaction.message == "taking back 1 move"
        rig.wait(2.5)
        assert len(rig.takebacks) == 1 and rig.state == "turn"
        assert rig.interaction.message == ""
    finally:
        rig.close()


def test_a_try_with_the_cube_handed_over_gets_words_too():
    """Issue 30: a Mule moved after the Cube was handed over: an empty message."""
    rig = Rig()
    try:
        rig.move("black-cube", "white-cube")
        rig.move("b1", "b3")
        rig.wait(0.5)
        it = rig.interaction
        assert it.phase == "correction" and len(it.missing) == 2
        assert it.message == NOT_A_MOVE
    finally:
        rig.close()
