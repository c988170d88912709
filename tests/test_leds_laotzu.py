"""Golden LED scenes of Lao Tzu Chess on one board: what the side to move sees (his
visible cells glow faintly, the enemy pieces he sees in teal), a lifted piece's targets as
far as he can know them, a hand piece's drop cells, the promotion choice on the option
pads, check (his King beats; never what gives check), an illegal attempt, and the hand-over
to the other player's view.  The scenes come from the real state machine driven by the
simulated board (``test_board_laotzu.LaoRig``); every colour is written out."""

from __future__ import annotations

from controller.leds import LedSettings, render_scene
from controller.leds.scene import FAST, HEARTBEAT, SLOW
from controller.rules.laotzu import hint_drop_targets, view
from tests.support.laotzu import LAYOUT, LaoRig, hand_pad, obj

OFF = (0, 0, 0)
TARGET = (0, 90, 255)
ORIGIN = (255, 170, 0)
CHECK = MISSING = (255, 0, 0)
EXTRA = (255, 0, 190)
VISIBLE = (40, 40, 40)
ENEMY = (0, 220, 170)
OPTION = [(0, 220, 170), (255, 170, 0), (255, 0, 190), (255, 0, 0)]
FULL = LedSettings(brightness=1.0, budget_ma=None)


def expect(spots: dict[str, tuple[int, int, int]]) -> tuple:
    """Colour per LED: the named spots (several names per key) lit, the rest dark."""
    out = [OFF] * LAYOUT.led_count
    for names, colour in spots.items():
        for name in names.split():
            out[LAYOUT.spot(name).led] = colour
    return tuple(out)


def pixels(rig: LaoRig, t: float = 0.1) -> tuple:
    return render_scene(LAYOUT, rig.interaction, t, None, FULL).pixels


def led(name: str) -> int:
    return LAYOUT.spot(name).led


def test_golden_start_white_sees_his_half_only():
    rig = LaoRig()
    ranks = " ".join(f"{f}{r}" for r in range(1, 5) for f in "abcdefgh")
    assert pixels(rig) == expect({ranks: VISIBLE})  # no enemy in sight, the rest dark


VISIBLE_ENEMY = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1"
WHITE_SEES = "d1 d2 e2 f2 f1 e1 e4 e5"  # King and Pawn cells and where they may go


def test_golden_visible_enemy_piece():
    rig = LaoRig(VISIBLE_ENEMY)
    assert pixels(rig) == expect({WHITE_SEES: VISIBLE, "d5": ENEMY})


def test_golden_lifted_pawn_targets_as_far_as_he_knows():
    rig = LaoRig(VISIBLE_ENEMY)
    rig.lift("e4")
    frame = render_scene(LAYOUT, rig.interaction, 0.1, None, FULL)
    # e5 a step, d5 a capture of a piece shown only by its LED: target and enemy alternate
    # (his Pawn pad lights too: a capture puts a white Pawn there)
    assert frame.pixels == expect({"d1 d2 e2 f2 f1 e1": VISIBLE, "e4": ORIGIN,
                                   "e5 d5": TARGET, hand_pad(0, "P"): TARGET})
    assert frame.at(0.7).pixels[led("d5")] == ENEMY and frame.blinks[led("d5")] is SLOW
    assert frame.at(0.7).pixels[led("e5")] == TARGET


def test_golden_hint_ignores_a_hidden_pin():
    # the b4 Bishop pins the Knight d2 from the fog: every Knight move lights up
    rig = LaoRig("4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1")
    rig.lift("d2")
    v = view(rig.position, 0)
    seen = " ".join(LAYOUT.spots[c].name for c in v.visible
                    if LAYOUT.spots[c].name not in ("d2", "b1", "b3", "c4", "e4", "f3", "f1"))
    assert pixels(rig) == expect({seen: VISIBLE, "d2": ORIGIN,
                                  "b1 b3 c4 e4 f3 f1": TARGET})
    assert pixels(rig)[led("b4")] == OFF


def test_golden_illegal_attempt_shows_only_what_to_put_back():
    rig = LaoRig("4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1")
    rig.move("d2", "f3")
    assert rig.interaction.message == "illegal move"
    frame = render_scene(LAYOUT, rig.interaction, 0.1, None, FULL)
    assert frame.pixels[led("d2")] == MISSING and frame.pixels[led("f3")] == EXTRA
    assert frame.blinks[led("f3")] is SLOW and frame.pixels[led("b4")] == OFF
    roles = {LAYOUT.led_spots()[k]: r for k, r in enumerate(frame.roles) if r}
    assert set(roles.values()) == {"visible", "missing", "extra"}


def test_golden_drop_targets_of_a_lifted_hand_piece():
    start = "4k3/8/8/8/8/8/4P3/4K3[N] w - - 0 1"
    rig = LaoRig(start)
    rig.lift(hand_pad(0, "N"))
    v = view(rig.position, 0)
    drops = " ".join(LAYOUT.spots[c].name for c in hint_drop_targets(v, "N"))
    assert sorted(drops.split()) == ["d1", "d2", "e3", "e4", "f1", "f2"]
    assert pixels(rig) == expect({"e1 e2": VISIBLE, drops: TARGET,
                                  hand_pad(0, "N"): ORIGIN})


def test_golden_promotion_choice_on_the_option_pads():
    rig = LaoRig("4k3/1P5p/8/8/8/8/7P/4K3 w - - 0 1")
    rig.lift("b7")
    rig.place("b8")
    it = rig.interaction
    assert it.phase == "choice"
    v = view(rig.position, 0)
    seen = " ".join(LAYOUT.spots[c].name for c in v.visible if LAYOUT.spots[c].name != "b8")
    assert pixels(rig) == expect({seen: VISIBLE, "b8": TARGET, "option-1": OPTION[0],
                                  "option-2": OPTION[1], "option-3": OPTION[2],
                                  "option-4": OPTION[3]})
    assert it.message == "choose: b8=Q, b8=R, b8=B, b8=N"


def test_golden_check_beats_on_his_king_only():
    # the Rook e8 gives check from the fog: "check", the King beats, e8 stays dark
    rig = LaoRig("4r1k1/8/8/8/8/8/8/R3K3 w - - 0 1")
    frame = render_scene(LAYOUT, rig.interaction, 0.05, None, FULL)
    v = view(rig.position, 0)
    seen = " ".join(LAYOUT.spots[c].name for c in v.visible if LAYOUT.spots[c].name != "e1")
    assert frame.pixels == expect({seen: VISIBLE, "e1": CHECK})
    assert frame.blinks[led("e1")] is HEARTBEAT and frame.at(0.15).pixels[led("e1")] == OFF
    assert rig.interaction.message == "check"
    # a checker he sees is an enemy piece like any other: nothing says it gives check
    rig = LaoRig("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1")
    frame = render_scene(LAYOUT, rig.interaction, 0.05, None, FULL)
    assert frame.pixels[led("d2")] == ENEMY and frame.pixels[led("e1")] == CHECK
    assert [r for r in frame.roles if r == "check"] == ["check"]


def test_golden_after_the_move_the_board_turns_to_black():
    rig = LaoRig(VISIBLE_ENEMY)
    rig.remove("d5")
    rig.move("e4", "d5")
    rig.sim.take(obj(0, "P"))
    rig.place(hand_pad(0, "P"))
    assert rig.interaction.viewer == 1 and rig.interaction.phase == "turn"
    # Black sees his King's cells; not where White's Pawn went, no last move, no hand LED
    assert pixels(rig) == expect({"e8 d8 f8 d7 e7 f7": VISIBLE})


def test_guidance_in_the_fog_names_the_cell_never_the_piece():
    # a hidden Black piece knocked off its cell: the spot to fix blinks only if it is
    # a stray piece; the message names the cell the player emptied, not what was there
    rig = LaoRig("4k3/8/8/3p4/4P3/4B3/4P3/4K3 w - - 0 1")
    rig.remove("e8")
    rig.wait(3.5)
    it = rig.interaction
    assert it.phase == "correction" and it.guide == LAYOUT.spot_index("e8")
    assert it.message == "put a piece on e8"
    frame = render_scene(LAYOUT, it, 0.1, None, FULL)
    assert frame.pixels[led("e8")] == OFF  # the LED in the fog stays dark
    rig.sim.take(obj(1, "K"))
    rig.place("e8")
    assert rig.state == "turn"
    rig.remove("e2")  # his own Pawn (blocked, so no move under way): named
    rig.wait(3.5)
    assert rig.interaction.message == "put the White Pawn on e2"
    frame = render_scene(LAYOUT, rig.interaction, 0.1, None, FULL)
    assert frame.pixels[led("e2")] == MISSING and frame.blinks[led("e2")] is FAST
