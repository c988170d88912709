"""Golden LED scenes of KaleidoChess on the round board (``kaleido89``).

Each scene is the Interaction the real state machine publishes for a real position (the
board driven through the simulated board), rendered at full brightness with the game's
player palette; the expected pixels are written out from the documented colour language
(docs/leds.md) and the layout's LED chain — not from whatever the code produces.
"""

from __future__ import annotations

from controller.layout import load_layout
from controller.leds import LedFrame, LedSettings, Palette, render_scene
from controller.leds.scene import BREATHE, SLOW
from controller.rules.kaleidochess import KaleidoChess
from tests.support.kaleidochess import KNOCKOUT, KRig, setup_text

LAYOUT = load_layout("kaleido89")
G = LAYOUT.geometry
N = LAYOUT.led_count  # 96: 89 fields, the die pad, six option pads
FULL = LedSettings(brightness=1.0, budget_ma=None)

OFF = (0, 0, 0)
TARGET = (0, 90, 255)
ORIGIN = (255, 170, 0)
LAST = (110, 80, 40)
REMOVE = (255, 0, 190)
ACTIVE = (0, 255, 60)
ACTIVE_LOW = (0, 64, 15)  # 25 % between breaths
OPTION = [(0, 220, 170), (255, 170, 0), (255, 0, 190), (255, 0, 0), (0, 90, 255),
          (255, 255, 255)]
# the players' colours at 20 % (owner_level): White, Red, Black, Green
WHITE, RED, BLACK, GREEN = (51, 40, 26), (51, 4, 0), (22, 0, 51), (0, 46, 8)

# LED chain of kaleido89 (boards/layouts/kaleido89.toml): 00 first, then ring by ring
# outward in field order — the LED of a field is its index —, then the die pad (89) and
# the option pads 3, 2, 1 (90–92) and 4, 5, 6 (93–95).
DIE_LED = 89
OPTION_LED = {1: 92, 2: 91, 3: 90, 4: 93, 5: 94, 6: 95}


def led(field: str) -> int:
    """LED index of a field by the chain rule: 00, then ring 1 (1A…8A), ring 2 (1B 1C 2B …)."""
    if field == "00":
        return 0
    s, letter = int(field[:-1]) - 1, field[-1]
    per = {"A": 1, "B": 2, "C": 2, "D": 2, "E": 2, "F": 3, "G": 3, "H": 3, "I": 3, "J": 3,
           "K": 3}[letter]
    first = {"A": 1, "B": 9, "C": 9, "D": 25, "E": 25, "F": 41, "G": 41, "H": 41, "I": 65,
             "J": 65, "K": 65}[letter]
    offset = {"A": 0, "B": 0, "C": 1, "D": 0, "E": 1, "F": 0, "G": 1, "H": 2, "I": 0, "J": 1,
              "K": 2}[letter]
    return first + s * per + offset


def expect(fields: dict[str, tuple[int, int, int]],
           pads: dict[int, tuple[int, int, int]] | None = None) -> tuple:
    out = [OFF] * N
    for names, colour in fields.items():
        for name in names.split():
            out[led(name)] = colour
    for i, colour in (pads or {}).items():
        out[i] = colour
    return tuple(out)


def render(rig: KRig, t: float = 0.1) -> LedFrame:
    palette = Palette().for_players(rig.game.player_names)
    return render_scene(LAYOUT, rig.interaction, t, palette, FULL)


def test_chain_rule_matches_the_layout():
    assert [led(n) for n in ("00", "1A", "8A", "1B", "1C", "2B", "8C", "1D", "1F", "1J",
                             "8K")] == [0, 1, 8, 9, 10, 11, 24, 25, 41, 66, 88]
    assert all(LAYOUT.spot(n).led == led(n) for n in G.cells)
    assert LAYOUT.spot("die").led == DIE_LED
    assert all(LAYOUT.spot(f"option-{k}").led == v for k, v in OPTION_LED.items())


# --- the scenes ---------------------------------------------------------------------

WHITE_HOUSE = "1F 1G 1H 1I 1J 1K 2F 2I 8H 8K"  # the 10-piece army around castle 1J


def test_golden_player_colours_with_four_players():
    rig = KRig(game=KaleidoChess(players=4))
    frame = render(rig)
    assert frame.pixels == expect({
        WHITE_HOUSE: WHITE,
        "3F 3G 3H 3I 3J 3K 4F 4I 2H 2K": RED,
        "5F 5G 5H 5I 5J 5K 6F 6I 4H 4K": BLACK,
        "7F 7G 7H 7I 7J 7K 8F 8I 6H 6K": GREEN,
    })
    assert all(b is None for b in frame.blinks) and set(frame.roles) == {"", "owner"}


def test_golden_two_player_colours_and_a_lifted_dragons_destinations():
    rig = KRig(game=KaleidoChess())
    rig.lift("1G")
    frame = render(rig)
    # kaleidochess.md §9.2: a dragon on a ring-4 field reaches 19 fields on an empty
    # board; from 1G at the start the same 19 (flyers pass over pieces), own pieces too
    targets = "1D 1E 1I 1J 1K 2D 2E 2H 2I 2J 2K 3D 7E 8D 8E 8F 8I 8J 8K"
    assert len(targets.split()) == 19
    assert frame.pixels == expect({
        "1F 1H 2F 2G 8G 8H": WHITE,  # White's pieces that are not targets
        "4F 4G 4H 4I 4J 4K 5F 5G 5H 5I 5J 5K 6F 6G 6H 6I 6J 6K": BLACK,
        targets: TARGET,
        "1G": ORIGIN,
    })
    assert all(b is None for b in frame.blinks)


def test_golden_die_pads_then_the_pieces_the_roll_allows():
    rig = KRig(game=KaleidoChess(dice=True))
    army = ("1F 1G 1H 1I 1J 1K 2F 2G 2H 2I 2J 2K 8F 8G 8H 8I 8J 8K",
            "4F 4G 4H 4I 4J 4K 5F 5G 5H 5I 5J 5K 6F 6G 6H 6I 6J 6K")
    # a roll is due: faces 1–6 on the option pads, the die pad breathes
    frame = render(rig, 0.5)
    assert frame.pixels == expect({army[0]: WHITE, army[1]: BLACK},
                                  {DIE_LED: ACTIVE,
                                   **{OPTION_LED[k]: OPTION[k - 1] for k in range(1, 7)}})
    assert frame.blinks[DIE_LED] is BREATHE and frame.at(1.5).pixels[DIE_LED] == ACTIVE_LOW
    rig.tap("option-3")  # a tiger or a roc
    frame = render(rig)
    allowed = "1I 1K 2H 8F"
    assert frame.pixels == expect({army[0]: WHITE, army[1]: BLACK, allowed: ORIGIN})
    assert frame.roles[DIE_LED] == "" and frame.roles[OPTION_LED[3]] == ""


def test_golden_knocked_out_player_pieces_blink_to_be_taken_off():
    game = KaleidoChess(players=3)
    rig = KRig(setup_text(game, KNOCKOUT), game=game)
    rig.remove("3J")
    rig.move("3G", "3J")  # White's raven takes Red's last castle: Red is out
    frame = render(rig)
    # the raven's origin, its seven destinations (it stands on one of them now), and
    # Red's last two pieces blinking magenta; White's wizard, Black's wizard dim
    assert frame.pixels == expect({
        "1J": WHITE, "5J": BLACK, "3G": ORIGIN,
        "3D 3E 3F 3H 3I 3J 3K": TARGET,
        "3A 2A": REMOVE,
    })
    assert frame.blinks[led("3A")] is SLOW and frame.at(0.6).pixels[led("2A")] == OFF
    assert rig.interaction.message == "Red is out: take the marked pieces off the board"


def test_golden_blocked_player_is_out_at_once():
    game = KaleidoChess(players=3)
    rig = KRig(setup_text(game, "1J=wW 3J=rH 3G=wP 3I=bP 3K=bP 5J=bW", turn="r"), game=game)
    frame = render(rig)
    assert frame.pixels == expect({"1J 3G": WHITE, "3I 3K 5J": BLACK, "3J": REMOVE})
    assert frame.blinks[led("3J")] is SLOW


def test_golden_game_over_shows_the_winner():
    game = KaleidoChess()
    rig = KRig(setup_text(game, "1J=wW 5G=wV 5J=bW 4K=bP"), game=game)
    rig.remove("5J")
    rig.move("5G", "5J")
    assert rig.state == "game_over"
    frame = render(rig)
    # the last move's fields, the winner's pieces in his colour, the loser's dark
    assert frame.pixels == expect({"1J": WHITE, "5G 5J": LAST})
