"""Example scenes for the documentation, built from real Lùotuoqí and Lao Tzu positions.

``.venv/bin/python scripts/led_pictures.py [out_dir]`` writes the pictures of docs/leds.md
(default ``docs/images``).  Each scene is an :class:`Interaction` as the board state
machine would publish it, computed here from the rules (legal targets, bypass victims,
split sizes, Cube use).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from controller.interaction import ChoiceOption, Interaction
from controller.layout import Layout, load_layout
from controller.leds.palette import LedSettings, Palette
from controller.leds.scene import BREATHE, FAST, HEARTBEAT, SLOW, Blink, SceneRenderer, count_blink
from controller.leds.simulated import _hex, board_svg, glow, write_png
from controller.rules import Piece, get_game


@dataclass(frozen=True)
class Example:
    name: str
    caption: str
    interaction: Interaction
    time: float = 0.1  # inside the on phase of every pattern


def luotuoqi_examples(layout: Layout | None = None) -> list[Example]:
    """The situations of a Lùotuoqí game on the square8 board."""
    layout = layout or load_layout("square8")
    game = get_game("luotuoqi")
    cell = layout.geometry.cell
    out: list[Example] = []

    # A Tower lifted: its legal targets (luotuoqi.md §8.1).
    pos = game.parse_position("7k/1T41T21e2/8/8/1e2d3/8/7K/8 w - b 0 1")
    b7 = cell("b7")
    tower = [m for m in game.legal_moves(pos) if m.origin == b7]
    out.append(Example("luotuoqi-tower-lifted", "T4 b7 lifted: origin amber, 13 targets blue",
                       Interaction(phase="lifted", mover=0, origins=frozenset({b7}),
                                   targets=frozenset(m.target for m in tower))))

    # Split size choice: stones put on a8, the Tower still stands on b7.
    a8 = cell("a8")
    splits = sorted((m for m in tower if m.target == a8 and m.kind == "split"),
                    key=lambda m: m.piece.height)
    options = tuple(ChoiceOption(f"T{m.piece.height}", m, layout.spot_index(f"option-{k + 1}"), k)
                    for k, m in enumerate(splits))
    out.append(Example("luotuoqi-split-choice",
                       "split to a8: how many stones? options 1-3 on the pads",
                       Interaction(phase="choice", mover=0, origins=frozenset({b7}),
                                   targets=frozenset({a8}), options=options)))

    # Bypasser b2-h8 arrived; its victims still to take off (§8.2).
    pos = game.parse_position("k7/8/8/8/8/8/8/K7 w - b 0 1")
    for c in range(len(pos.board)):
        if pos.board[c] is None:
            pos.board[c] = Piece(1, "E")
    for name in ("c3", "d4", "e5", "f6", "g7", "h8"):
        pos.board[cell(name)] = None
    pos.board[cell("b2")] = Piece(0, "D")
    move = next(m for m in game.legal_moves(pos) if m.origin == cell("b2")
                and m.target == cell("h8"))
    out.append(Example("luotuoqi-bypass-remove",
                       "Bypasser b2-h8: eight victims to take off (blinking magenta)",
                       Interaction(phase="settling", mover=0, origins=frozenset({move.origin}),
                                   targets=frozenset({move.target}),
                                   to_remove=frozenset(move.captures))))

    # Correction: an Eaglet pushed straight forward (not a legal move), guided.
    out.append(Example("luotuoqi-correction",
                       "correction: e3 is extra (fast blink: fix first), e2 is missing",
                       Interaction(phase="correction", mover=0, missing=frozenset({cell("e2")}),
                                   extra=frozenset({cell("e3")}), guide=cell("e3"))))

    # The computer's reply to execute, with the last move and the Cube usable.
    pos = game.start()
    first = game.parse_move(pos, "Mb1-c3")
    pos.push(first)
    reply = game.parse_move(pos, "Mg8-f6")
    cube_ok = any(m.token == "cube" for m in game.legal_moves(pos))
    black_cube = layout.spot_index("black-cube")
    out.append(Example("luotuoqi-execute",
                       "execute Black's Mg8-f6 (white); last move dim; Black's Cube pad active",
                       Interaction(phase="execute", mover=1, execute_from=frozenset({reply.origin}),
                                   execute_to=frozenset({reply.target}),
                                   last_move=frozenset({first.origin, first.target}),
                                   active_pads=frozenset({black_cube}) if cube_ok else frozenset(),
                                   owners={black_cube: 1})))

    # Check by bypassing (§8.2): Black's King on d5.
    pos = game.parse_position("8/8/8/3k1m2/8/8/1D6/K7 b - b 0 1")
    king = cell("d5")
    out.append(Example("luotuoqi-check", "check: Black's King d5 (red heartbeat)",
                       Interaction(phase="turn", mover=1,
                                   check=frozenset({king}) if game.in_check(pos) else frozenset(),
                                   last_move=frozenset({cell("c1"), cell("b2")}))))

    # Tower height on request.
    out.append(Example("luotuoqi-height", "height of the d1 Tower: 8 white flashes, then a pause",
                       Interaction(phase="turn", mover=0, height_display=(cell("d1"), 8))))
    return out


def laotzu_example(layout: Layout | None = None) -> Example:
    """White's private board in Lao Tzu Chess (luotuoqi's square8 board serves both)."""
    layout = layout or load_layout("square8")
    cell = layout.geometry.cell
    own = {cell(n) for n in ("a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "a2", "b2",
                             "c2", "d2", "f2", "g2", "h2", "e4")}
    visible = own | {cell(n) for n in ("a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3", "a4",
                                       "b4", "c4", "d4", "f4", "g4", "h4", "e2", "e5", "d5")}
    enemy = frozenset({cell("d5")})
    return Example("laotzu-fog",
                   "Lao Tzu, White's board: fog dark, visible cells faint, Black's Pawn d5 "
                   "teal/blue (a capture target)",
                   Interaction(phase="lifted", viewer=0, mover=0, visible=frozenset(visible),
                               enemy_visible=enemy, origins=frozenset({cell("e4")}),
                               targets=frozenset({cell("e5"), cell("d5")})),
                   time=0.75)  # the off phase of the alternation: the enemy colour


#: role -> (pattern, what it means) for the swatch sheet
MEANINGS: dict[str, tuple[Blink | None, str]] = {
    "target": (None, "legal target of the lifted piece"),
    "origin": (None, "lifted / selected piece"),
    "last_move": (None, "last move, both cells"),
    "check": (HEARTBEAT, "King in check"),
    "missing": (None, "a piece belongs here"),
    "extra": (SLOW, "no piece belongs here"),
    "remove": (SLOW, "take this piece off"),
    "execute": (None, "move to execute: from (steady) ..."),
    "execute_to": (SLOW, "... to (blinking)"),
    "visible": (None, "fog: cell visible to you"),
    "enemy": (None, "fog: opponent's visible piece"),
    "active": (BREATHE, "active pad (Cube may be used)"),
    "height": (count_blink(3), "Tower height (here 3)"),
    "guide": (FAST, "correction: fix this one first"),
}


def swatch_svg(palette: Palette | None = None) -> str:
    """The colour language as a sheet: swatch, name, meaning, and 3 s of its pattern."""
    p = palette or Palette()
    rows: list[tuple[str, tuple[int, int, int], Blink | None, str]] = []
    for role, (pattern, meaning) in MEANINGS.items():
        colour = {"execute_to": p.execute, "guide": p.missing}.get(role) or getattr(p, role)
        rows.append((role, colour, pattern, meaning))
    for k, c in enumerate(p.options):
        rows.append((f"option {k + 1}", c, None, "choice option on pad " + str(k + 1)))
    for name, c in p.player_colours:
        rows.append((f"player {name}", c, None, f"owner colour (shown at {p.owner_level:.0%})"))
    row_h, w = 11.0, 250.0
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * 3:.0f}" '
           f'height="{(len(rows) * row_h + 6) * 3:.0f}" viewBox="0 0 {w:g} '
           f'{len(rows) * row_h + 6:g}" font-family="DejaVu Sans, sans-serif">',
           f'<rect width="{w:g}" height="{len(rows) * row_h + 6:g}" fill="#2b2724"/>']
    for k, (name, colour, pattern, meaning) in enumerate(rows):
        y = 3 + k * row_h + row_h / 2
        hue, alpha = glow(colour, 1.0)
        out.append(f'<circle cx="8" cy="{y:.2f}" r="4" fill="{_hex(hue)}" '
                   f'fill-opacity="{max(alpha, 0.15):.2f}"/>')
        out.append(f'<text x="16" y="{y + 1.5:.2f}" font-size="4" fill="#eee">{name}</text>')
        out.append(f'<text x="52" y="{y + 1.5:.2f}" font-size="3.4" fill="#bbb">'
                   f'{meaning} · {"#{:02x}{:02x}{:02x}".format(*colour)}</text>')
        x0, span = 168.0, 78.0  # 3 s of the pattern
        steps = 600
        states = [pattern is None or pattern.on((i + 0.5) * 3.0 / steps) for i in range(steps)]
        i = 0
        while i < steps:  # one rectangle per on run
            j = i
            while j < steps and states[j] == states[i]:
                j += 1
            # the breathing pad falls to active_low, every other pattern to dark
            level = 1.0 if states[i] else p.active_low if name == "active" else 0.0
            if level:
                opacity = max(alpha, 0.15) * level ** (1 / 2.2)
                out.append(f'<rect x="{x0 + i * span / steps:.2f}" y="{y - 2:.2f}" '
                           f'width="{(j - i) * span / steps:.2f}" height="4" '
                           f'fill="{_hex(hue)}" fill-opacity="{opacity:.2f}"/>')
            i = j
        out.append(f'<rect x="{x0:g}" y="{y - 2:.2f}" width="{span:g}" height="4" fill="none" '
                   'stroke="#555" stroke-width="0.3"/>')
    out.append("</svg>")
    return "\n".join(out)


#: the examples pictured in docs/leds.md
DOC_IMAGES = ("luotuoqi-tower-lifted", "luotuoqi-split-choice", "luotuoqi-bypass-remove",
              "luotuoqi-correction", "luotuoqi-execute", "laotzu-fog")


def write_examples(out_dir: str | Path = "docs/images", palette: Palette | None = None,
                   settings: LedSettings | None = None,
                   names: tuple[str, ...] | None = DOC_IMAGES) -> list[Path]:
    """Render the examples (``names``; None = all) and the colour sheet to ``out_dir``."""
    layout = load_layout("square8")
    renderer = SceneRenderer(layout, palette, settings)
    paths = []
    for ex in [*luotuoqi_examples(layout), laotzu_example(layout)]:
        if names is not None and ex.name not in names:
            continue
        frame = renderer.render(ex.interaction, ex.time)
        svg = board_svg(layout, frame, ex.caption, gain=1.4, px_per_mm=2.0)
        paths.append(write_png(svg, Path(out_dir) / f"{ex.name}.png"))
    paths.append(write_png(swatch_svg(palette), Path(out_dir) / "leds-colour-language.png"))
    return paths


if __name__ == "__main__":
    for p in write_examples(sys.argv[1] if len(sys.argv) > 1 else "docs/images"):
        print(p)
