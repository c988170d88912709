"""Position diagrams for the players' guides, drawn with the printed board's own drawing.

A diagram is the playing surface of ``fairyboard board print`` (cells, names, Rivers, pads)
with the pieces of a position on it and, optionally, the legal targets of one piece marked:
dots on free targets, rings on captures.  The targets are computed by the rules, never
typed by hand, so a guide's figure cannot disagree with what the board accepts.

``fairyboard diagram`` draws one; ``fairyboard diagram --batch FILE.toml`` draws every
figure listed in a file (``docs/rules/figures.toml``), which is how the guides' pictures
are made and kept up to date (a test redraws them and compares).
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from controller.boardprint import board_body
from controller.layout import Layout, layout_names, load_layout
from controller.rules import Game, Position, get_game

#: Piece body colours by player index (0 White, 1 Black, 2 Red, 3 Green in KaleidoChess).
BODY = ("#fbfaf5", "#26221f", "#c8372d", "#2e7d4f")
INK = ("#26221f", "#fbfaf5", "#fbfaf5", "#fbfaf5")
TARGET = "#1f6fd1"
CAPTURE = "#d1341f"
ORIGIN = "#f2b705"


class DiagramError(ValueError):
    """A figure cannot be drawn: unknown cell, no piece to move, bad figure file."""


@dataclass(frozen=True)
class Figure:
    """One diagram: a position (start, text, or moves from either) and what to mark."""

    out: str
    game: str
    options: dict
    position: str | None = None
    moves: tuple[str, ...] = ()
    piece: str | None = None  #: cell whose legal targets are marked
    caption: str = ""


def layout_for(game: Game) -> Layout:
    """The first printed layout that can play ``game`` (layouts name their games)."""
    for name in layout_names():
        layout = load_layout(name)
        if game.name in layout.games:
            return layout
    raise DiagramError(f"no layout plays {game.name}")


def position_of(figure: Figure) -> tuple[Game, Position]:
    game = get_game(figure.game, **figure.options)
    pos = game.parse_position(figure.position) if figure.position else game.start()
    for text in figure.moves:
        pos.push(game.parse_move(pos, text))
    return game, pos


def _radius(layout: Layout, c: int) -> float:
    xs = [p[0] for p in layout.spots[c].outline_mm]
    ys = [p[1] for p in layout.spots[c].outline_mm]
    area = 0.5 * abs(sum(xs[i] * ys[i - 1] - xs[i - 1] * ys[i] for i in range(len(xs))))
    return min(0.36 * math.sqrt(area), 0.33 * layout.scale_mm)


def diagram_svg(game: Game, pos: Position, piece_cell: str | None = None,
                caption: str = "") -> str:
    """The position on its board; with ``piece_cell``, that piece's legal targets marked."""
    layout = layout_for(game)
    g = game.geometry
    w, h = layout.size_mm

    def at(c: int) -> tuple[float, float]:
        x, y = layout.spots[c].centre_mm
        return x, h - y

    cells = layout.spots[: len(g)]
    xs = [x for s in cells for x, _ in s.outline_mm]
    ys = [y for s in cells for _, y in s.outline_mm]
    margin = 0.15 * layout.scale_mm
    box = (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)
    body = board_body(layout, marks=False, view=box)
    if piece_cell is not None:
        try:
            origin = g.cell(piece_cell)
        except (KeyError, ValueError):
            raise DiagramError(f"no cell {piece_cell!r} on {layout.name}") from None
        if pos.board[origin] is None:
            raise DiagramError(f"no piece on {piece_cell}")
        x, y = at(origin)
        body.append(f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{_radius(layout, origin) * 1.25:.2f}" '
                    f'fill="none" stroke="{ORIGIN}" stroke-width="1.6"/>')
    for c, piece in enumerate(pos.board):
        if piece is None:
            continue
        x, y = at(c)
        r = _radius(layout, c)
        body.append(f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{r:.2f}" fill="{BODY[piece.owner]}" '
                    'stroke="#000" stroke-width="0.5"/>')
        body.append(f'<text x="{x:.2f}" y="{y:.2f}" font-family="DejaVu Sans, sans-serif" '
                    f'font-size="{r * 1.1:.2f}" font-weight="bold" text-anchor="middle" '
                    f'dominant-baseline="central" fill="{INK[piece.owner]}">'
                    f'{escape(piece.kind)}</text>')
        if piece.height > 1:
            body.append(f'<text x="{x + r * 0.75:.2f}" y="{y - r * 0.75:.2f}" '
                        f'font-family="DejaVu Sans, sans-serif" font-size="{r * 0.7:.2f}" '
                        f'font-weight="bold" text-anchor="middle" dominant-baseline="central" '
                        f'fill="{CAPTURE}">{piece.height}</text>')
    if piece_cell is not None:
        targets: dict[int, bool] = {}
        # the piece's moves by the rules, even in a study position the game would call
        # ended (a lone Knight beside the Kings is dead material)
        for move in game.generate_moves(pos):
            if move.origin == origin and move.target >= 0:
                capture = move.target in move.captures or pos.board[move.target] is not None
                targets[move.target] = targets.get(move.target, False) or capture
        for c, capture in sorted(targets.items()):
            x, y = at(c)
            r = _radius(layout, c)
            if capture:
                body.append(f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{r * 1.15:.2f}" fill="none" '
                            f'stroke="{CAPTURE}" stroke-width="1.4"/>')
            else:
                body.append(f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{r * 0.35:.2f}" '
                            f'fill="{TARGET}" fill-opacity="0.8"/>')
    title = caption or game.title
    x0, y1 = box[0], h - box[3]
    width, height = box[2] - box[0], box[3] - box[1]
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * 2:.0f}" '
        f'height="{height * 2:.0f}" viewBox="{x0:.2f} {y1:.2f} {width:.2f} {height:.2f}">',
        f"<title>{escape(title)}</title>",
        *body,
        "</svg>",
        "",
    ])


def load_figures(path: Path | str) -> list[Figure]:
    """The figures listed in a TOML file: ``[[figure]]`` tables (see docs/rules/figures.toml)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise DiagramError(f"{path}: {exc}") from None
    except RecursionError:
        raise DiagramError(f"{path}: not valid TOML: nested too deeply") from None
    figures = []
    for i, entry in enumerate(data.get("figure", []), start=1):
        try:
            figures.append(Figure(out=entry["out"], game=entry["game"],
                                  options=dict(entry.get("options", {})),
                                  position=entry.get("position"),
                                  moves=tuple(entry.get("moves", ())),
                                  piece=entry.get("piece"), caption=entry.get("caption", "")))
        except KeyError as exc:
            raise DiagramError(f"{path}: figure {i}: missing {exc.args[0]!r}") from None
    return figures


def draw_figures(path: Path | str, out_dir: Path | str | None = None) -> list[Path]:
    """Draw every figure of a figure file into ``out_dir`` (default: beside the file)."""
    path = Path(path)
    folder = Path(out_dir) if out_dir is not None else path.parent
    written = []
    for figure in load_figures(path):
        game, pos = position_of(figure)
        target = folder / figure.out
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(diagram_svg(game, pos, figure.piece, figure.caption), encoding="utf-8")
        written.append(target)
    return written
