"""The board's part in linked play, clocks and hints: players who move elsewhere, the
low-time signal, and a suggested move shown until the player starts one."""

from __future__ import annotations

import pytest

from controller.layout import load_layout
from controller.leds.palette import Palette
from controller.leds.scene import BREATHE, SLOW, SceneRenderer
from tests.support.rig import GAME, Rig


def test_a_move_of_a_player_who_moves_elsewhere_is_refused_and_executed_when_sent():
    rig = Rig()
    rig.board.set_away(frozenset({0}))
    rig.move("b1", "c3")
    assert rig.moves == [] and "White moves on the other board" in rig.interaction.message
    rig.move("c3", "b1")
    rig.wait(0.5)
    assert rig.state == "turn" and not rig.interaction.missing
    move = GAME.parse_move(rig.position, "Mb1-c3")
    rig.board.execute(move)  # the move arrives from the other board
    rig.move("b1", "c3")
    assert rig.moves == [move]


def test_the_movers_royal_pieces_breathe_when_time_is_short():
    rig = Rig()
    rig.board.set_low_time(True)
    king = rig.spot("e1")
    it = rig.interaction
    assert it.low_time == {king}
    frame = SceneRenderer(rig.layout).render(it)
    led = rig.layout.spots[king].led
    assert frame.blinks[led] == BREATHE and frame.roles[led] == "low_time"
    rig.board.set_low_time(False)
    assert rig.interaction.low_time == frozenset()


def test_a_hint_shows_origin_and_target_until_a_piece_is_lifted():
    rig = Rig()
    move = GAME.parse_move(rig.position, "Mb1-c3")
    rig.board.show_hint(move)
    it = rig.interaction
    assert it.hint_from == {rig.spot("b1")} and it.hint_to == {rig.spot("c3")}
    frame = SceneRenderer(rig.layout).render(it)
    for name in ("b1", "c3"):
        led = rig.layout.spots[rig.spot(name)].led
        assert frame.blinks[led] == SLOW and frame.pixels[led] != (0, 0, 0)
    rig.lift("g1")
    assert rig.interaction.hint_from == frozenset() == rig.interaction.hint_to
    with pytest.raises(ValueError, match="cannot show a hint while lifted"):
        rig.board.show_hint(move)


def test_the_hint_colour_is_told_apart_from_what_shows_with_it():
    from controller.leds.palette import colour_difference

    p = Palette()
    for other in ("last_move", "check", "enemy", "visible", "target", "execute"):
        for vision in ("normal", "protan", "deutan"):
            assert colour_difference(p.hint, getattr(p, other), vision) >= 30, (other, vision)
    # amber pieces that may move after a die roll look like lime to some: they are steady,
    # the hint blinks
    from controller.interaction import Interaction

    layout = load_layout("square8")
    frame = SceneRenderer(layout).render(Interaction(origins=frozenset({0}),
                                                     hint_from=frozenset({1})))
    assert colour_difference(p.hint, p.origin, "deutan") < 30  # the reason for this
    assert [frame.blinks[layout.spots[s].led] for s in (0, 1)] == [None, SLOW]
