"""Messages that never leave a player stuck (issue 17 #4): a move that is not legal says
which move was seen, why, and what to do; a Lao Tzu capture says that the captured piece
goes onto the hand pad."""

from __future__ import annotations

from tests.support.laotzu import LaoRig
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
