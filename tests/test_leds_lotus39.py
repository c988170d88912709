"""Golden LED scenes of Lotus-39 on its board (boards/layouts/lotus39.toml).

Each scene is what the running pipeline publishes — the simulated board read through the
layout's linear halls (``gpio-analog``), the reconciler and the state machine — rendered
by the scene renderer and compared LED by LED with the documented colour language
(docs/leds.md), written out here on purpose: a Pawn lifted from the home-hexagon stack and
its targets, the reserve pad breathing when the Knight may be placed (and the Knight
lifted from it), and the promotion menu on the option pads (paged on a board with fewer
pads)."""

from __future__ import annotations

from controller.board import MORE
from controller.interaction import Interaction
from controller.layout import load_layout
from controller.leds import LedFrame, LedSettings, render_scene
from controller.leds.scene import BREATHE, count_blink
from tests.support.lotus39 import MODERN, RESERVE, LotusRig, four_pad_layout

LAYOUT = load_layout("lotus39")
N = LAYOUT.led_count  # 47: 39 cells + 2 reserve pads + 6 option pads

OFF = (0, 0, 0)
TARGET = (0, 90, 255)
ORIGIN = (255, 170, 0)
LAST = (110, 80, 40)
ACTIVE = (0, 255, 60)
ACTIVE_LOW = (0, 64, 15)  # 25 % between breaths
HEIGHT = (255, 255, 255)
OPTION = [(0, 220, 170), (255, 170, 0), (255, 0, 190), (255, 0, 0), (0, 90, 255),
          (255, 255, 255)]
FULL = LedSettings(brightness=1.0, budget_ma=None)

# The LED chain of the lotus39 board: serpentine by rank from rank 1 (c1→g1, g2→c2, a3→i3,
# i4→a4, a5→i5, g6→c6, c7→g7 = 38), then Black's reserve pad (39), the option pads from
# 6 down to 1 (40–45) and White's reserve pad (46).
RANKS = ["c1 d1 e1 f1 g1", "c2 e2 g2", "a3 b3 c3 d3 e3 f3 g3 h3 i3", "a4 c4 e4 g4 i4",
         "a5 b5 c5 d5 e5 f5 g5 h5 i5", "c6 e6 g6", "c7 d7 e7 f7 g7"]
BLACK_RESERVE_LED, WHITE_RESERVE_LED = 39, 46
OPTION_LED = {k: 46 - k for k in range(1, 7)}


def chain(name: str) -> int:
    """LED index of a cell by the serpentine rule of the lotus39 layout."""
    led = 0
    for r, rank in enumerate(RANKS):
        cells = rank.split()
        if name in cells:
            order = cells if r % 2 == 0 else cells[::-1]
            return led + order.index(name)
        led += len(cells)
    raise KeyError(name)


def expect(cells: dict[str, tuple[int, int, int]],
           pads: dict[int, tuple[int, int, int]] | None = None, n: int = N) -> tuple:
    out = [OFF] * n
    for names, colour in cells.items():
        for name in names.split():
            out[chain(name)] = colour
    for led, colour in (pads or {}).items():
        out[led] = colour
    return tuple(out)


def render(it: Interaction, t: float = 0.1, layout=LAYOUT) -> LedFrame:
    return render_scene(layout, it, t, None, FULL)


def scene(rig: LotusRig) -> Interaction:
    it = rig.interaction
    rig.close()
    return it


def test_chain_rule_matches_the_layout():
    assert [chain(n) for n in ("c1", "g1", "g2", "c2", "a3", "i4", "a4", "g7")] == \
        [0, 4, 5, 7, 8, 17, 21, 38]
    assert all(LAYOUT.spot(n).led == chain(n) for n in LAYOUT.geometry.cells)
    assert LAYOUT.spot("black-reserve-N").led == BLACK_RESERVE_LED
    assert LAYOUT.spot("white-reserve-N").led == WHITE_RESERVE_LED
    assert all(LAYOUT.spot(f"option-{k}").led == v for k, v in OPTION_LED.items())


def test_golden_pawn_lifted_from_the_stack_and_its_targets():
    rig = LotusRig()
    rig.lift("e2", 1, wait=0.1)  # one Pawn of three: e2 still reads occupied, class 2
    it = scene(rig)
    # the stack's height flashes on e2 (three flashes, then a pause); its Pawn's targets
    # are blue: d3 and f3 (e3 holds a White Pawn)
    on, off = render(it, 0.1), render(it, 0.3)
    assert on.pixels == expect({"e2": HEIGHT, "d3 f3": TARGET})
    assert off.pixels == expect({"d3 f3": TARGET})
    blink = on.blinks[chain("e2")]
    assert blink == count_blink(3) and blink.on_count() == 3
    assert on.blinks[chain("d3")] is None


def test_golden_reserve_pad_breathes_when_the_knight_may_be_placed():
    start = LotusRig()
    assert render(scene(start)).pixels == expect({})  # e2 and e6 full: the pads are dark
    rig = LotusRig(RESERVE)  # e2 empty, White's Knight waiting
    it = rig.interaction
    assert render(it, 0.5).pixels == expect({}, {WHITE_RESERVE_LED: ACTIVE})
    assert render(it, 1.5).pixels == expect({}, {WHITE_RESERVE_LED: ACTIVE_LOW})
    assert render(it).blinks[WHITE_RESERVE_LED] == BREATHE
    # the Knight lifted from its pad: the pad is its origin, e2 its only target
    rig.lift("white-reserve-N", 1, wait=0.1)
    lifted = scene(rig)
    assert render(lifted).pixels == expect({"e2": TARGET}, {WHITE_RESERVE_LED: ORIGIN})


def test_golden_promotion_menu_on_the_option_pads():
    for game in (None, MODERN):
        rig = LotusRig(RESERVE, **({"game": game} if game else {}))
        rig.move("c6", "c7", wait=0.1)
        it = scene(rig)
        assert len(it.options) == 5  # R A L F N, or C Y U L N: one pad each
        menu = {OPTION_LED[k + 1]: OPTION[k] for k in range(5)}
        assert render(it, 0.5).pixels == expect({"c7": TARGET},
                                                 {**menu, WHITE_RESERVE_LED: ACTIVE})
        assert render(it, 1.5).pixels == expect({"c7": TARGET},
                                                 {**menu, WHITE_RESERVE_LED: ACTIVE_LOW})


def test_golden_promotion_menu_pages_on_four_pads():
    layout = four_pad_layout()  # LEDs: 39 Black's pad, 40–43 option pads 4..1, 44 White's
    rig = LotusRig(RESERVE, layout_obj=layout)
    rig.move("c6", "c7", wait=0.1)
    first = rig.interaction
    rig.tap(first.options[-1].spot, wait=0.1)
    second = scene(rig)
    assert [o.label for o in first.options] == ["c7=R", "c7=A", "c7=L", MORE]
    assert [o.label for o in second.options] == ["c7=F", "c7=N", MORE]
    pad = {k: 44 - k for k in range(1, 5)}
    assert render(first, 0.5, layout).pixels == expect(
        {"c7": TARGET}, {pad[1]: OPTION[0], pad[2]: OPTION[1], pad[3]: OPTION[2],
                         pad[4]: OPTION[3], 44: ACTIVE}, n=45)
    assert render(second, 0.5, layout).pixels == expect(
        {"c7": TARGET}, {pad[1]: OPTION[0], pad[2]: OPTION[1], pad[3]: OPTION[2], 44: ACTIVE},
        n=45)
