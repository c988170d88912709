"""Lotus-39 and Modern Lotus-39 on their board (boards/layouts/lotus39.toml): every
situation of design/interaction.md for the Lotus games, driven by scripted or simulated
human actions on the simulated board and read through the layout's own sensing — linear
hall sensors behind CD74HC4067 multiplexers and an ADS1115, the production
``AnalogScanner`` on emulated electronics (``gpio-analog``), calibrated like a real board.
A few tests use presence-only readings to show that nothing *relies* on the halls.

Situations: the Pawn stack on the home hexagon (a Pawn leaving it keeps the cell
occupied; the halls show the class going down and light that Pawn's targets; the last
Pawn empties the cell; a capture on the stack removes all of it; a stack Pawn's capture
changes no occupancy and is confirmed), the reserve Knight placed from its pad, promotion
chosen on the option pads (paged on a board with fewer pads), set-up verification of the
stacks by their class, takebacks — and whole games of both variants, start to finish,
played by a seeded driver through a simulated human on the running board service, with
every move recorded exactly in the journal.
"""

from __future__ import annotations

import random

import pytest

from controller.board import MORE, BoardOptions
from controller.journal import Journal
from controller.rules.core import Piece
from controller.web.state import position_objects
from tests.support.lotus39 import (
    ANALOG,
    LOTUS,
    MODERN,
    RESERVE,
    STACK_CAPTURES,
    STACK_VICTIM,
    LotusHuman,
    LotusRig,
    ServiceRig,
    choose,
    features,
    four_pad_layout,
    legal,
    legal_in,
    lotus_service,
    played,
    spots,
)

# -- set-up verification ----------------------------------------------------------------------


def test_start_is_recognised_with_both_stacks_and_reserve_knights():
    rig = LotusRig()
    try:
        assert rig.state == "turn" and not rig.interaction.missing
        frame = rig.frame()
        e2, e6 = rig.spot("e2"), rig.spot("e6")
        assert (frame.stack[e2], frame.polarity[e2]) == (3, 1)
        assert (frame.stack[e6], frame.polarity[e6]) == (3, -1)
        for owner in (0, 1):
            pad = rig.spot(rig.layout.pad("reserve", owner, "N").name)
            assert frame.occupied[pad] and frame.polarity[pad] == (1, -1)[owner]
        # the Knights wait: e2 and e6 are full, so no reserve pad is lit
        assert rig.interaction.active_pads == frozenset()
    finally:
        rig.close()


def test_linear_halls_count_the_stack_at_set_up():
    rig = LotusRig(set_up=False, options=BoardOptions(guide_delay=1.0))
    try:
        start = rig.position
        objects = position_objects(LOTUS, start, rig.layout)
        e2 = rig.spot("e2")
        for spot, names in objects.items():
            rig.sim.put(spot, names[:2] if spot == e2 else names)  # a Pawn short on e2
        rig.wait(0.2)
        it = rig.interaction
        assert rig.state == "setup" and it.missing == {e2} and not it.extra
        assert it.message == "set up the position"
        rig.wait(1.1)  # guidance names what the stack lacks
        assert rig.interaction.guide == e2
        assert rig.interaction.message == "put the White Pawn ×3 on e2"
        rig.sim.clear(e2)  # three Black Pawns on White's home hexagon: the wrong colour
        rig.sim.put(e2, ["black-P"] * 3)
        rig.wait(0.2)
        assert rig.state == "setup" and rig.interaction.extra == {e2}
        assert not rig.interaction.missing
        rig.lift("e2")
        rig.sim.set_aside()
        rig.sim.take(["white-P"] * 3)
        rig.place("e2", wait=0.2)
        assert rig.state == "turn" and rig.position.board[e2] == Piece(0, "P", 3)
    finally:
        rig.close()


def test_presence_sensors_cannot_count_a_stack():
    """Without linear halls the stack is tracked in software only (lotus39.md §5.5)."""
    rig = LotusRig(set_up=False, backend=None)
    objects = position_objects(LOTUS, rig.position, rig.layout)
    for spot, names in objects.items():
        rig.sim.put(spot, names[:1])  # one Pawn where three belong: presence only
    rig.wait(0.1)
    assert rig.state == "turn"


# -- a Pawn leaving the stack ---------------------------------------------------------------


@pytest.mark.parametrize("backend", [ANALOG, "mcu-analog"])
def test_pawn_lifted_from_the_stack_lights_its_targets_and_leaves_the_cell_occupied(backend):
    """Through the Pi's analog scanner, and through the firmware's (RP2040 + serial link)."""
    rig = LotusRig(backend=backend)
    try:
        rig.lift("e2", 1, wait=0.1)
        it = rig.interaction
        assert it.phase == "lifted" and it.origins == spots(rig, "e2")
        assert it.targets == spots(rig, "d3", "f3")  # e3 holds a White Pawn
        assert it.height_display == (rig.spot("e2"), 3)
        rig.place("e2", wait=0.1)  # put back on the stack: nothing happened
        assert rig.state == "turn" and not rig.moves
        rig.lift("e2", 1, wait=0.1)
        rig.place("d3", wait=0.1)
        assert played(LOTUS, None, rig.moves) == ["d3"]
        assert rig.moves[0].left == Piece(0, "P", 2)
        assert rig.position.board[rig.spot("e2")] == Piece(0, "P", 2)
        frame = rig.frame()
        assert frame.occupied[rig.spot("e2")] and frame.stack[rig.spot("e2")] == 2
        # Black's stack: the Pawn goes to d5
        rig.lift("e6", 1, wait=0.1)
        assert rig.interaction.origins == spots(rig, "e6")
        assert rig.interaction.targets == spots(rig, "d5", "f5")
        rig.place("d5", wait=0.1)
        assert played(LOTUS, None, rig.moves) == ["d3", "d5"]
        assert rig.state == "turn" and not rig.interaction.missing
    finally:
        rig.close()


@pytest.mark.parametrize("rest_first", [True, False])
def test_whole_stack_lifted_and_the_rest_put_back(rest_first):
    rig = LotusRig()
    try:
        rig.lift("e2", wait=0.1)  # all three Pawns in the hand
        assert rig.state == "lifted" and rig.interaction.origins == spots(rig, "e2")
        if rest_first:
            rig.place("e2", 2, wait=0.1)
            assert rig.state == "lifted" and rig.interaction.targets == spots(rig, "d3", "f3")
            rig.place("f3", 1, wait=0.1)
        else:
            rig.sim.place(rig.spot("f3"), 1)
            rig.wait(0.3)
            assert not rig.moves  # e2 empty and f3 full is no legal move: waiting
            rig.place("e2", 2, wait=0.1)
        assert played(LOTUS, None, rig.moves) == ["f3"] and rig.state == "turn"
        assert rig.position.board[rig.spot("e2")] == Piece(0, "P", 2)
    finally:
        rig.close()


def test_stack_departures_without_linear_halls():
    """Presence only: the lifted Pawn is invisible until it lands; the move commits then."""
    rig = LotusRig(backend=None)
    rig.lift("e2", 1)
    assert rig.state == "turn"  # nothing to see: the cell is still occupied
    rig.place("d3")
    assert played(LOTUS, None, rig.moves) == ["d3"]


#: both stacks emptied Pawn by Pawn; then both home hexagons are free for the Knights
EMPTYING = ["d3", "d5", "f3", "f5", "dc4", "e4", "d3", "e5"]


def test_last_pawns_leave_the_home_hexagons_and_the_reserve_knights_enter():
    rig = LotusRig()
    try:
        human = LotusHuman(rig, random.Random(5))
        for text in EMPTYING[:6]:
            human.play(legal(rig, text))
        e2, e6 = rig.spot("e2"), rig.spot("e6")
        assert rig.position.board[e2] == Piece(0, "P", 1)
        assert rig.interaction.active_pads == frozenset()  # e2 is not empty yet
        rig.lift("e2", wait=0.1)  # the last Pawn: now the cell reads empty
        assert rig.interaction.origins == {e2} and rig.interaction.targets == spots(rig, "d3")
        rig.place("d3", wait=0.1)
        assert rig.position.board[e2] is None and not rig.frame().occupied[e2]
        human.play(legal(rig, "e5"))
        assert rig.position.board[e6] is None
        # White's reserve pad breathes: the Knight may be placed on e2
        white_pad = rig.spot("white-reserve-N")
        black_pad = rig.spot("black-reserve-N")
        assert rig.interaction.active_pads == {white_pad}
        rig.lift(white_pad, wait=0.1)
        it = rig.interaction
        assert it.phase == "lifted" and it.origins == {white_pad} and it.targets == {e2}
        rig.place("e2", wait=0.1)
        assert played(LOTUS, None, rig.moves)[-1] == "N@e2"
        assert rig.position.reserves[0] == {} and rig.position.board[e2] == Piece(0, "N")
        assert rig.interaction.active_pads == {black_pad}
        # Black puts his Knight on the wrong cell: no legal move, shown as a mismatch
        rig.lift(black_pad)
        rig.place("h5", wait=0.2)
        assert rig.state == "correction" and rig.interaction.extra == spots(rig, "h5")
        assert rig.interaction.missing == {black_pad}
        rig.move("h5", "e6", wait=0.2)
        assert played(LOTUS, None, rig.moves)[-1] == "N@e6" and rig.state == "turn"
        assert rig.interaction.active_pads == frozenset()
        assert played(LOTUS, None, rig.position.moves) == [*EMPTYING, "N@e2", "N@e6"]
    finally:
        rig.close()


# -- captures on and from the stack ---------------------------------------------------------


@pytest.mark.parametrize("victims_first", [True, False])
def test_capture_on_the_stack_removes_every_pawn(victims_first):
    rig = LotusRig(STACK_VICTIM)
    try:
        e2 = rig.spot("e2")
        if victims_first:
            for k in range(3):  # the Pawns go to the box one by one
                rig.lift("e2", 1)
                rig.sim.set_aside(1)
                rig.wait(0.1)
                assert rig.state == ("turn" if k < 2 else "lifted")
            rig.move("c4", "e2", wait=0.1)
        else:
            rig.lift("c4", wait=0.1)
            assert rig.interaction.targets >= {e2}
            rig.place("e2", wait=0.3)  # on top of the stack: the Knight is still "in hand"
            assert not rig.moves and rig.state == "lifted"
            rig.lift("e2", wait=0.1)  # the whole pile, Knight on top, into the hand
            knight = rig.sim.hand.pop()
            rig.sim.set_aside(3)  # the three Pawns to the box
            rig.sim.hand.append(knight)
            rig.place("e2", wait=0.1)
        assert played(LOTUS, STACK_VICTIM, rig.moves) == ["Nxe2"]
        assert rig.position.board[e2] == Piece(1, "N")
        frame = rig.frame()
        assert (frame.stack[e2], frame.polarity[e2]) == (1, -1)
    finally:
        rig.close()


@pytest.mark.parametrize("victim_first", [True, False])
def test_capture_by_a_pawn_of_the_stack_is_confirmed(victim_first):
    """exd3 from the stack changes no occupancy (e2 stays full, d3 stays full): like every
    silent move it is offered for confirmation once its target was lifted, never committed
    unasked.  The halls light the stack Pawn's targets meanwhile."""
    rig = LotusRig(STACK_CAPTURES)
    try:
        e2, d3 = rig.spot("e2"), rig.spot("d3")
        if victim_first:
            rig.remove("d3", wait=0.1)
            rig.lift("e2", 1, wait=0.1)
            it = rig.interaction
            assert it.phase == "lifted" and it.origins == {e2} and it.targets == {d3}
        else:
            rig.lift("e2", 1, wait=0.1)
            it = rig.interaction
            assert it.origins == {e2} and it.targets == spots(rig, "d3", "e3", "f3")
            rig.remove("d3", wait=0.1)
            assert rig.interaction.origins == {e2} and rig.interaction.targets == {d3}
        rig.place("d3", wait=0.2)
        it = rig.interaction
        assert it.phase == "choice" and [o.label for o in it.options] == ["exd3"]
        assert it.options[0].spot == rig.spot("option-1")
        rig.answer(it.options[0].move)
        assert played(LOTUS, STACK_CAPTURES, rig.moves) == ["exd3"]
        assert rig.position.board[e2] == Piece(0, "P", 2)
        assert rig.position.board[d3] == Piece(0, "P")
    finally:
        rig.close()


def test_enemy_piece_lifted_and_put_back_is_nothing_to_the_halls():
    """The same gesture without the stack Pawn: the halls see the stack whole and the
    enemy Pawn back, so no confirmation opens (presence alone cannot tell: it asks)."""
    rig = LotusRig(STACK_CAPTURES)
    try:
        rig.tap("d3", wait=0.1)
        rig.wait(0.2)
        assert rig.state == "turn" and not rig.moves
    finally:
        rig.close()
    plain = LotusRig(STACK_CAPTURES, backend=None)
    plain.tap("d3")
    plain.wait(0.2)
    assert plain.state == "choice" and [o.label for o in plain.interaction.options] == ["exd3"]
    plain.move("c1", "d1", wait=0.2)  # playing on dismisses it
    assert plain.state == "turn" and played(LOTUS, STACK_CAPTURES, plain.moves) == ["Kd1"]


def test_stack_pawn_capture_without_linear_halls():
    rig = LotusRig(STACK_CAPTURES, backend=None)
    rig.lift("e2", 1)
    rig.remove("d3")
    rig.place("d3", wait=0.2)
    assert rig.state == "choice"
    rig.answer(rig.interaction.options[0].move)
    assert played(LOTUS, STACK_CAPTURES, rig.moves) == ["exd3"]


def test_stack_departure_is_taken_back_by_restoring_the_stack():
    rig = LotusRig()
    try:
        rig.move("e2", "d3", 1, wait=0.1)
        assert len(rig.position.moves) == 1
        rig.move("d3", "e2", wait=2.0)  # the Pawn back on its stack, left there
        assert rig.takebacks and played(LOTUS, None, rig.takebacks[-1]) == ["d3"]
        assert rig.position.moves == [] and rig.state == "turn"
        assert rig.position.board[rig.spot("e2")] == Piece(0, "P", 3)
    finally:
        rig.close()


# -- promotion ------------------------------------------------------------------------------


@pytest.mark.parametrize("game, kinds", [(LOTUS, "RALFN"), (MODERN, "CYULN")])
def test_promotion_is_chosen_on_the_option_pads(game, kinds):
    rig = LotusRig(RESERVE, game=game)
    try:
        rig.move("c6", "c7", wait=0.1)
        it = rig.interaction
        assert it.phase == "choice"
        assert [o.label for o in it.options] == [f"c7={k}" for k in kinds]
        assert [o.spot for o in it.options] == [rig.spot(f"option-{k}") for k in range(1, 6)]
        chosen = next(o for o in it.options if o.label == "c7=L")
        rig.tap(chosen.spot, wait=0.1)  # a spare magnet touched to option pad 4
        assert played(game, RESERVE, rig.moves) == ["c7=L"]
        c7 = rig.spot("c7")
        assert rig.position.board[c7] == Piece(0, "L")
        # the Pawn is swapped for a Lotussa: that lift is expected, not a takeback
        assert "exchange the piece" in rig.interaction.message
        rig.remove("c7", wait=0.1)
        assert rig.state == "turn" and "exchange the piece" in rig.interaction.message
        rig.sim.take("white-L")
        rig.place("c7", wait=0.2)
        assert rig.state == "turn" and not rig.takebacks and len(rig.moves) == 1
        assert not rig.interaction.missing and not rig.interaction.extra
    finally:
        rig.close()




def test_promotion_pages_when_the_board_has_fewer_option_pads():
    layout = four_pad_layout()
    assert len(layout.pads("option")) == 4
    rig = LotusRig(RESERVE, layout_obj=layout)
    try:
        rig.move("c6", "c7", wait=0.1)
        labels = [o.label for o in rig.interaction.options]
        assert labels == ["c7=R", "c7=A", "c7=L", MORE]
        assert "page 1/2" in rig.interaction.message
        rig.tap(rig.interaction.options[-1].spot, wait=0.1)  # "more…"
        assert [o.label for o in rig.interaction.options] == ["c7=F", "c7=N", MORE]
        rig.answer(legal_in(RESERVE, "c7=N"))
        assert played(LOTUS, RESERVE, rig.moves) == ["c7=N"]
    finally:
        rig.close()




# -- whole games on the running board service -----------------------------------------------










LOTUS_SITUATIONS = {"stack departure", "last Pawn", "reserve Knight", "promotion",
                    "capture from the stack", "capture on the stack"}
#: seeds whose driven games end soon and show the Lotus situations (found by trying the
#: first seeds with the driver above): the traditional game ends in mate after 86 plies
#: with everything but a capture on a stack; the Modern one after 107 plies with all
WHOLE_GAMES = [("lotus39", 6, LOTUS_SITUATIONS - {"capture on the stack"}),
               ("lotus39-modern", 3, LOTUS_SITUATIONS)]


@pytest.mark.parametrize("name, seed, situations", WHOLE_GAMES)
def test_whole_game_on_the_board_service_is_recorded_exactly(tmp_path, name, seed,
                                                             situations):
    svc = lotus_service(tmp_path, name)
    rig = ServiceRig(svc)
    try:
        game = svc.game
        svc.sim_action({"action": "arrange"})
        svc.step(0.2)
        assert svc.interaction.phase == "turn"
        human = LotusHuman(rig, random.Random(seed), mishaps=True, slow=0.2)
        driver = random.Random(seed)
        intended = []
        while svc.outcome is None:
            move = choose(game, svc.position, driver)
            intended.append(move)
            human.play(move)
            assert len(intended) < 300
        assert svc.position.moves == intended
        assert features(svc.position) == situations
        texts = played(game, None, intended)
        record = Journal(tmp_path / "journal").find(svc.game_id)
        assert record.moves == texts
        assert (record.result, record.reason) == (svc.outcome.result, svc.outcome.reason)
        _, replayed = record.replay()
        assert replayed.snapshot() == svc.position.snapshot()
        assert svc.interaction.phase == "game_over"
    finally:
        rig.close()
