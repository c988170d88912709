"""The LED scene: golden scenes of Lùotuoqí, the colour language, blinking, the height
count, fog of war (no hidden information reaches an LED) and the current budget."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.interaction import ChoiceOption, Interaction
from controller.layout import load_layout
from controller.leds import (
    LedError,
    LedFrame,
    LedSettings,
    Palette,
    SceneRenderer,
    count_blink,
    current_ma,
    render_scene,
)
from controller.leds.scene import FAST, HEARTBEAT, SLOW, allowed_spots, dark_cells
from controller.rules import Piece, get_game

LAYOUT = load_layout("square8")
GAME = get_game("luotuoqi")
CELL = LAYOUT.geometry.cell
N = LAYOUT.led_count  # 82: 64 cells + 18 pads

# The colour language at brightness 1 (docs/leds.md), written out on purpose: these are
# the documented defaults, not whatever the code happens to produce.
OFF = (0, 0, 0)
TARGET = (0, 90, 255)
ORIGIN = (255, 170, 0)
LAST = (110, 80, 40)
CHECK = (255, 0, 0)
MISSING = (255, 0, 0)
EXTRA = (255, 0, 190)
REMOVE = (255, 0, 190)
EXECUTE = (255, 255, 255)
VISIBLE = (40, 40, 40)
ENEMY = (0, 220, 170)
ACTIVE = (0, 255, 60)
ACTIVE_LOW = (0, 64, 15)  # 25 % between breaths
HEIGHT = (255, 255, 255)
OPTION = [(0, 220, 170), (255, 170, 0), (255, 0, 190), (255, 0, 0)]
BLACK_OWNER = (22, 0, 51)  # Black's violet (110, 0, 255) at 20 %

FULL = LedSettings(brightness=1.0, budget_ma=None)

# LED chain of the square8 board (boards/layouts/square8.toml): serpentine from a1 (a1→h1,
# h2→a2, …), then Black's pads 64..69 (hand Q … Cube), option pads 6..1 = 70..75, White's
# pads 76..81 (hand Q … Cube).
BLACK_CUBE_LED, WHITE_CUBE_LED = 69, 81
OPTION_LED = {1: 75, 2: 74, 3: 73, 4: 72, 5: 71, 6: 70}


def chain(name: str) -> int:
    """LED index of a cell by the serpentine rule of the square8 layout."""
    f, r = "abcdefgh".index(name[0]), int(name[1]) - 1
    return r * 8 + (f if r % 2 == 0 else 7 - f)


def expect(cells: dict[str, tuple[int, int, int]],
           pads: dict[int, tuple[int, int, int]] | None = None) -> tuple:
    out = [OFF] * N
    for names, colour in cells.items():
        for name in names.split():
            out[chain(name)] = colour
    for led, colour in (pads or {}).items():
        out[led] = colour
    return tuple(out)


def cells(names: str) -> frozenset[int]:
    return frozenset(CELL(n) for n in names.split())


def render(it: Interaction, t: float = 0.1, s: LedSettings = FULL,
           palette: Palette | None = None) -> LedFrame:
    return render_scene(LAYOUT, it, t, palette, s)


def test_chain_rule_matches_the_layout():
    assert [chain(n) for n in ("a1", "h1", "h2", "a2", "b7", "a8", "h8")] == \
        [0, 7, 8, 15, 49, 63, 56]
    assert all(LAYOUT.spot(n).led == chain(n) for n in LAYOUT.geometry.cells)
    assert LAYOUT.spot("black-cube").led == BLACK_CUBE_LED
    assert all(LAYOUT.spot(f"option-{k}").led == v for k, v in OPTION_LED.items())


# --- golden scenes of Lùotuoqí -------------------------------------------------------

TOWER_POS = "7k/1T41T21e2/8/8/1e2d3/8/7K/8 w - b 0 1"  # luotuoqi.md §8.1 (+ Kings)


def test_golden_lifted_tower_lights_its_targets():
    pos = GAME.parse_position(TOWER_POS)
    b7 = CELL("b7")
    targets = frozenset(m.target for m in GAME.legal_moves(pos) if m.origin == b7)
    # §8.1: whole Tower, splits and merges of T4 b7 reach exactly these 13 cells
    assert targets == cells("a8 b8 c8 a7 c7 d7 a6 b6 c6 b5 d5 b4 e4")
    frame = render(Interaction(phase="lifted", mover=0, origins=frozenset({b7}),
                               targets=targets))
    assert frame.pixels == expect({"b7": ORIGIN,
                                   "a8 b8 c8 a7 c7 d7 a6 b6 c6 b5 d5 b4 e4": TARGET})
    assert frame.pixels[49] == ORIGIN and frame.pixels[63] == TARGET
    assert all(b is None for b in frame.blinks)  # nothing blinks while choosing a target


def test_golden_bypasser_victims_to_remove_blink():
    pos = GAME.parse_position("k7/8/8/8/8/8/8/K7 w - b 0 1")
    for c in range(64):
        if pos.board[c] is None:
            pos.board[c] = Piece(1, "E")
    for n in ("c3", "d4", "e5", "f6", "g7", "h8"):
        pos.board[CELL(n)] = None
    pos.board[CELL("b2")] = Piece(0, "D")
    move = next(m for m in GAME.legal_moves(pos) if m.origin == CELL("b2")
                and m.target == CELL("h8"))
    victims = "c4 d3 d5 e4 e6 f5 f7 g6"  # luotuoqi.md §8.2
    assert frozenset(move.captures) == cells(victims)
    it = Interaction(phase="settling", mover=0, origins=frozenset({move.origin}),
                     targets=frozenset({move.target}), to_remove=frozenset(move.captures))
    on = render(it, 0.25)   # SLOW: on 0–0.5 s
    off = render(it, 0.75)  # off 0.5–1 s
    assert on.pixels == expect({"b2": ORIGIN, "h8": TARGET, victims: REMOVE})
    assert off.pixels == expect({"b2": ORIGIN, "h8": TARGET})
    assert {on.blinks[chain(n)] for n in victims.split()} == {SLOW}


def test_golden_split_choice_on_option_pads():
    pos = GAME.parse_position(TOWER_POS)
    b7, a8 = CELL("b7"), CELL("a8")
    # stones put on a8 while the Tower still stands on b7: a split, but of which size?
    splits = sorted((m for m in GAME.legal_moves(pos) if m.origin == b7 and m.target == a8
                     and m.kind == "split"), key=lambda m: m.piece.height)
    assert [m.piece.height for m in splits] == [1, 2, 3]
    options = tuple(ChoiceOption(f"T{m.piece.height}", m,
                                 LAYOUT.spot_index(f"option-{k + 1}"), k)
                    for k, m in enumerate(splits))
    frame = render(Interaction(phase="choice", mover=0, origins=frozenset({b7}),
                               targets=frozenset({a8}), options=options))
    assert frame.pixels == expect({"b7": ORIGIN, "a8": TARGET},
                                  {OPTION_LED[1]: OPTION[0], OPTION_LED[2]: OPTION[1],
                                   OPTION_LED[3]: OPTION[2]})


def test_golden_correction_with_guidance():
    pos = GAME.start()
    # an Eaglet pushed straight forward is no move of Lùotuoqí: the board must be corrected
    assert not any(m.origin == CELL("e2") and m.target == CELL("e3")
                   for m in GAME.legal_moves(pos))
    it = Interaction(phase="correction", mover=0, missing=cells("e2"), extra=cells("e3"),
                     guide=CELL("e3"))
    assert render(it, 0.05).pixels == expect({"e2": MISSING, "e3": EXTRA})
    assert render(it, 0.20).pixels == expect({"e2": MISSING})  # FAST: off 0.15–0.3 s
    frame = render(it)
    assert frame.blinks[chain("e3")] == FAST and frame.blinks[chain("e2")] is None
    # once e3 is fixed the guide moves to e2, which then blinks fast too
    it2 = Interaction(phase="correction", mover=0, missing=cells("e2"), guide=CELL("e2"))
    assert render(it2, 0.20).pixels == expect({})
    assert render(it2, 0.05).pixels == expect({"e2": MISSING})


def test_golden_move_to_execute():
    pos = GAME.start()
    first = GAME.parse_move(pos, "Mb1-c3")
    pos.push(first)
    reply = GAME.parse_move(pos, "Mg8-f6")  # the computer's answer, to be executed
    it = Interaction(phase="execute", mover=1, execute_from=frozenset({reply.origin}),
                     execute_to=frozenset({reply.target}),
                     last_move=frozenset({first.origin, first.target}))
    assert render(it, 0.25).pixels == expect({"g8 f6": EXECUTE, "b1 c3": LAST})
    assert render(it, 0.75).pixels == expect({"g8": EXECUTE, "b1 c3": LAST})


def test_golden_check_heartbeat():
    pos = GAME.parse_position("8/8/8/3k1m2/8/8/1D6/K7 b - b 0 1")  # §8.2, check by bypass
    assert GAME.in_check(pos)
    it = Interaction(phase="turn", mover=1, check=cells("d5"))
    # HEARTBEAT: on 0–0.12, off 0.12–0.24, on 0.24–0.36, off 0.36–1.0
    seen = [render(it, t).pixels for t in (0.05, 0.18, 0.30, 0.70)]
    assert seen == [expect({"d5": CHECK}), expect({}), expect({"d5": CHECK}), expect({})]


def test_golden_last_move():
    pos = GAME.start()
    move = GAME.parse_move(pos, "Mg1-f3")
    frame = render(Interaction(phase="turn", mover=1,
                               last_move=frozenset({move.origin, move.target})))
    assert frame.pixels == expect({"g1 f3": LAST})


def test_golden_cube_pad_when_the_cube_may_be_used():
    pos = GAME.start()
    # White to move does not hold the Cube: no Cube move, pads dark
    assert not any(m.token == "cube" for m in GAME.legal_moves(pos))
    pos.push(GAME.parse_move(pos, "Eb2-c3"))
    # Black holds the Cube and may use it now
    assert any(m.token == "cube" for m in GAME.legal_moves(pos))
    black_cube = LAYOUT.spot_index("black-cube")
    it = Interaction(phase="turn", mover=1, active_pads=frozenset({black_cube}),
                     owners={black_cube: 1})
    assert render(it, 0.5).pixels == expect({}, {BLACK_CUBE_LED: ACTIVE})  # BREATHE: 1 s on
    assert render(it, 1.5).pixels == expect({}, {BLACK_CUBE_LED: ACTIVE_LOW})
    # after use (the Cube passed to White) Black's pad shows only its holder colour
    holder = Interaction(phase="turn", mover=1, owners={black_cube: 1})
    assert render(holder).pixels == expect({}, {BLACK_CUBE_LED: BLACK_OWNER})


def test_golden_default_brightness():
    """At the default brightness 0.25 each level is the palette level × 0.25, rounded."""
    it = Interaction(phase="lifted", origins=cells("b7"), targets=cells("a8"),
                     last_move=cells("h1"))
    frame = render(it, s=LedSettings())
    assert frame.pixels == expect({"b7": (64, 43, 0), "a8": (0, 23, 64), "h1": (28, 20, 10)})


def test_dark_squares_dimmer():
    it = Interaction(targets=cells("a1 b1"))  # a1 dark, b1 light
    frame = render(it, s=LedSettings(brightness=1.0, dark_square_level=0.5, budget_ma=None))
    assert frame.pixels[chain("a1")] == (0, 45, 128)
    assert frame.pixels[chain("b1")] == TARGET
    assert CELL("a1") in dark_cells(LAYOUT) and CELL("h1") not in dark_cells(LAYOUT)
    assert dark_cells(load_layout("lotus39")) == frozenset()


def test_dark_level_lights_idle_cells_only():
    s = LedSettings(brightness=1.0, dark_level=0.1, budget_ma=None)
    it = Interaction(targets=cells("a8"), active_pads=frozenset({LAYOUT.spot_index("black-cube")}))
    frame = render(it, 0.5, s)
    idle = {n: (26, 26, 26) for n in LAYOUT.geometry.cells if n != "a8"}
    assert frame.pixels == expect({"a8": TARGET, **idle}, {BLACK_CUBE_LED: ACTIVE})
    assert frame.roles[chain("b8")] == "ambient"
    # in fog of war a dark cell means "hidden": no ambient glow there
    fog = Interaction(viewer=0, visible=cells("a1"))
    assert render(fog, 0.5, s).pixels == expect({"a1": VISIBLE})


# --- precedence, height, blinking ----------------------------------------------------

def test_layers_precedence():
    it = Interaction(last_move=cells("a1 b1 c1 d1 e1"), targets=cells("b1 c1 d1 e1"),
                     origins=cells("c1 d1 e1"), missing=cells("d1 e1"), guide=CELL("e1"))
    frame = render(it, 0.05)
    assert frame.pixels == expect({"a1": LAST, "b1": TARGET, "c1": ORIGIN, "d1 e1": MISSING})
    assert frame.blinks[chain("e1")] == FAST
    assert frame.roles[chain("e1")] == "guide_missing" and frame.roles[chain("b1")] == "target"


def test_guide_on_a_plain_spot_keeps_its_colour_and_blinks():
    frame = render(Interaction(origins=cells("c2"), guide=CELL("c2")), 0.05)
    assert frame.pixels == expect({"c2": ORIGIN}) and frame.blinks[chain("c2")] == FAST
    frame = render(Interaction(guide=CELL("c2")), 0.05)
    assert frame.pixels == expect({"c2": MISSING})


@pytest.mark.parametrize("height", [1, 2, 5, 8])
def test_height_display_counts_flashes(height):
    it = Interaction(phase="turn", height_display=(CELL("d1"), height), targets=cells("d1"))
    frame = render(it)
    blink = frame.blinks[chain("d1")]
    assert blink == count_blink(height)
    # sample one period every 10 ms: exactly `height` flashes, then a pause of 1 s+
    led = chain("d1")
    samples = [frame.at(k * 0.01).pixels[led] for k in range(round(blink.period * 100))]
    flashes = sum(1 for a, b in zip([OFF, *samples], samples, strict=False)
                  if a == OFF and b == HEIGHT)
    assert flashes == height
    assert set(samples) == {OFF, HEIGHT}
    pause = 0
    for p in reversed(samples):
        if p != OFF:
            break
        pause += 1
    assert pause >= 100 + 20
    assert blink.period == pytest.approx(height * 0.45 + 1.0)


def test_height_display_needs_a_height():
    with pytest.raises(LedError, match="height must be 1 or more"):
        render(Interaction(height_display=(CELL("d1"), 0)))


def test_target_on_a_visible_enemy_alternates():
    it = Interaction(viewer=0, visible=cells("e4 d5 e5"), enemy_visible=cells("d5"),
                     origins=cells("e4"), targets=cells("d5 e5"))
    assert render(it, 0.25).pixels == expect({"e4": ORIGIN, "d5 e5": TARGET})
    assert render(it, 0.75).pixels == expect({"e4": ORIGIN, "d5": ENEMY, "e5": TARGET})


def test_fog_visible_cells_glow_and_the_rest_is_dark():
    it = Interaction(viewer=1, visible=cells("a1 b2"), enemy_visible=cells("b2"),
                     targets=cells("c3"), check=cells("h8"))
    assert render(it).pixels == expect({"a1": VISIBLE, "b2": ENEMY})


def test_frame_at_and_next_change():
    frame = render(Interaction(check=cells("a1"), extra=cells("b1")), 0.0)
    assert frame.next_change(0.0) == pytest.approx(0.12)
    assert frame.next_change(0.13) == pytest.approx(0.24)
    assert frame.next_change(0.40) == pytest.approx(0.5)
    assert frame.at(0.13).pixels[chain("a1")] == OFF
    assert render(Interaction(origins=cells("a1"))).next_change(0.0) is None
    assert HEARTBEAT.on_count() == 2 and SLOW.on_count() == 1


def test_bad_spots_are_named():
    with pytest.raises(LedError, match=r"interaction.targets: spot 82 is not on layout square8"):
        render(Interaction(targets=frozenset({82})))
    with pytest.raises(LedError, match="interaction.options"):
        render(Interaction(options=(ChoiceOption("x", None, -1, 0),)))
    with pytest.raises(LedError, match="no player 2"):
        render(Interaction(owners={0: 2}))


def test_player_colours_follow_the_game_order():
    kaleido = get_game("kaleidochess", players=3)
    palette = Palette().for_players(kaleido.player_names)  # White, Red, Black
    frame = render(Interaction(owners={0: 0, 1: 1, 2: 2}), palette=palette)
    assert frame.pixels[:3] == ((51, 40, 26), (51, 4, 0), (22, 0, 51))
    with pytest.raises(LedError, match="no colour for player 'Blue'"):
        Palette(player_names=("White", "Blue"))


def test_option_slots_wrap_around():
    p = Palette()
    assert p.option(len(p.options)) == p.option(0)
    with pytest.raises(LedError):
        p.option(-1)


def test_every_layout_renders():
    for name in ("square8", "square9", "kaleido89", "lotus39"):
        layout = load_layout(name)
        it = Interaction(targets=frozenset(range(0, layout.cell_count, 3)),
                         active_pads=frozenset({len(layout.spots) - 1}))
        frame = render_scene(layout, it, 0.1)
        assert len(frame.pixels) == layout.led_count
        lit = {i for i, p in enumerate(frame.pixels) if p != OFF}
        assert lit == {layout.spots[s].led for s in (*range(0, layout.cell_count, 3),
                                                      len(layout.spots) - 1)}


# --- hidden information --------------------------------------------------------------

SPOTS = st.integers(0, N - 1)
SETS = st.frozensets(SPOTS, max_size=12)


@st.composite
def interactions(draw, fog: bool = True):
    viewer = draw(st.sampled_from([0, 1])) if fog else draw(st.sampled_from([None, 0, 1]))
    options = tuple(ChoiceOption(f"o{k}", None, s, draw(st.integers(0, 7)))
                    for k, s in enumerate(draw(st.lists(SPOTS, max_size=4))))
    height = draw(st.one_of(st.none(), st.tuples(st.integers(0, 63), st.integers(1, 8))))
    return Interaction(
        phase=draw(st.sampled_from(["turn", "lifted", "correction", "execute", "choice"])),
        viewer=viewer, origins=draw(SETS), targets=draw(SETS), missing=draw(SETS),
        extra=draw(SETS), to_remove=draw(SETS), guide=draw(st.one_of(st.none(), SPOTS)),
        options=options, execute_from=draw(SETS), execute_to=draw(SETS),
        last_move=draw(SETS), check=draw(SETS),
        visible=draw(st.frozensets(st.integers(0, 63), max_size=40)) if fog or draw(
            st.booleans()) else None,
        enemy_visible=draw(SETS), active_pads=draw(SETS), height_display=height,
        owners=draw(st.dictionaries(SPOTS, st.sampled_from([0, 1]), max_size=16)),
    )


def _hide(draw, it: Interaction, allowed: frozenset[int]) -> Interaction:
    """The same interaction with everything outside ``allowed`` redrawn at random —
    i.e. a different hidden position — but the viewer's own extra pieces kept."""
    hidden = [c for c in range(LAYOUT.cell_count) if c not in allowed]

    def swap(s: frozenset[int]) -> frozenset[int]:
        if not hidden:
            return s
        return (s & allowed) | draw(st.frozensets(st.sampled_from(hidden), max_size=6))

    def spot(s: int | None) -> int | None:
        if s is None or s in allowed or s in it.extra or not hidden:
            return s
        return draw(st.sampled_from(hidden))

    options = tuple(o if o.spot in allowed else ChoiceOption(o.label, None, spot(o.spot),
                                                             draw(st.integers(0, 7)))
                    for o in it.options)
    height = it.height_display
    if height is not None and height[0] not in allowed and hidden:
        height = (draw(st.sampled_from(hidden)), draw(st.integers(1, 8)))
    owners = {s: p for s, p in it.owners.items() if s in allowed}
    for s in draw(st.frozensets(st.sampled_from(hidden), max_size=6)) if hidden else ():
        owners.setdefault(s, 1 - it.viewer)  # enemy pieces in the fog
    guide = it.guide
    quiet = [c for c in hidden if c not in it.extra]  # a guide on an own stray piece shows
    if guide is not None and guide not in allowed and guide not in it.extra and quiet:
        guide = draw(st.sampled_from(quiet))
    return Interaction(
        phase=it.phase, viewer=it.viewer, origins=swap(it.origins), targets=swap(it.targets),
        missing=swap(it.missing), extra=it.extra, to_remove=swap(it.to_remove), guide=guide,
        options=options, execute_from=swap(it.execute_from), execute_to=swap(it.execute_to),
        last_move=swap(it.last_move), check=swap(it.check), visible=it.visible,
        enemy_visible=swap(it.enemy_visible), active_pads=swap(it.active_pads),
        height_display=height, owners=owners)


@settings(max_examples=150, deadline=None)
@given(interactions(), st.floats(0, 20), st.data())
def test_fog_never_reveals_a_hidden_piece(it, t, data):
    s = LedSettings(brightness=data.draw(st.floats(0.05, 1.0)),
                    budget_ma=data.draw(st.floats(100, 4000)))
    frame = render_scene(LAYOUT, it, t, None, s)
    allowed = allowed_spots(LAYOUT, it)
    assert allowed is not None
    for c in range(LAYOUT.cell_count):
        if c in allowed:
            continue
        led = LAYOUT.spots[c].led
        if c in it.extra:  # the viewer's own stray piece: shown as extra, nothing else
            assert frame.roles[led] == "extra"
        else:
            assert frame.base[led] == frame.alt[led] == OFF and frame.roles[led] == ""
    # non-interference: another hidden position gives the very same frame
    other = _hide(data.draw, it, allowed)
    for u in (t, t + 0.37, t + 1.13):
        assert render_scene(LAYOUT, other, u, None, s).pixels == \
            render_scene(LAYOUT, it, u, None, s).pixels


def test_fog_masks_before_the_current_cap():
    """The cap scales every LED by one factor; if hidden LEDs counted, the brightness of
    the visible ones would betray how much is lit in the fog."""
    s = LedSettings(brightness=1.0, budget_ma=300)
    base = Interaction(viewer=0, visible=cells("a1 b1"), targets=cells("a1 b1"))
    loud = Interaction(viewer=0, visible=cells("a1 b1"), targets=cells("a1 b1"),
                       execute_to=frozenset(range(2, 64)))  # 62 hidden white LEDs
    assert render_scene(LAYOUT, loud, 0.2, None, s).pixels == \
        render_scene(LAYOUT, base, 0.2, None, s).pixels


def test_no_fog_without_viewer_or_visible():
    assert allowed_spots(LAYOUT, Interaction(viewer=None, visible=cells("a1"))) is None
    assert allowed_spots(LAYOUT, Interaction(viewer=0, visible=None)) is None
    frame = render(Interaction(viewer=0, targets=cells("h8")))
    assert frame.pixels == expect({"h8": TARGET})


# --- current budget ------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(interactions(fog=False), st.floats(0, 1), st.floats(0, 1),
       st.floats(0, 6000), st.floats(0, 30), st.floats(0, 2), st.floats(0, 1))
def test_budget_is_never_exceeded(it, brightness, dark, room, t, idle, ambient):
    budget = idle * N + room + 1e-6  # any budget the dark chain can meet
    s = LedSettings(brightness=brightness, dark_square_level=dark, budget_ma=budget,
                    idle_ma=idle, dark_level=ambient)
    frame = render_scene(LAYOUT, it, t, None, s)
    assert current_ma(frame.pixels, s) <= budget
    assert current_ma(frame.peak(), s) <= budget  # every blink phase, not just this one
    uncapped = render_scene(LAYOUT, it, t, None, LedSettings(
        brightness=brightness, dark_square_level=dark, budget_ma=None, idle_ma=idle,
        dark_level=ambient))
    if current_ma(uncapped.peak(), s) <= budget:
        assert frame.pixels == uncapped.pixels  # the cap only dims when it must


def test_budget_caps_a_full_white_board_close_to_the_limit():
    s = LedSettings(brightness=1.0, budget_ma=2000)
    it = Interaction(execute_from=frozenset(range(N)))
    raw = render_scene(LAYOUT, it, 0, None, LedSettings(brightness=1.0, budget_ma=None))
    assert current_ma(raw.pixels, s) == pytest.approx(N * 61)  # 5002 mA uncapped
    frame = render_scene(LAYOUT, it, 0, None, s)
    assert 1950 <= current_ma(frame.pixels, s) <= 2000
    assert len(set(frame.pixels)) == 1  # one factor for all: colours keep their balance


def test_budget_below_idle_is_refused():
    with pytest.raises(LedError, match="below the idle draw of 82 LEDs"):
        SceneRenderer(LAYOUT, settings=LedSettings(budget_ma=50))


def test_rendering_the_same_interaction_again_only_moves_the_clock():
    renderer = SceneRenderer(LAYOUT, settings=FULL)
    it = Interaction(check=cells("e1"), targets=cells("a1"))
    first = renderer.render(it, 0.05)
    again = renderer.render(Interaction(check=cells("e1"), targets=cells("a1")), 0.18)
    assert again == first.at(0.18) and again.pixels != first.pixels
    changed = renderer.render(Interaction(check=cells("e1"), targets=cells("b1")), 0.18)
    assert changed.pixels[chain("b1")] == TARGET and changed.pixels[chain("a1")] == OFF
