"""Printable files of a board layout: everything a kit builder prints, drills and solders by.

``print_board`` turns one layout (``boards/layouts/<name>.toml``) into

* ``<name>-surface.svg/.pdf/.png`` — the playing surface at 1:1 (cells with names, Rivers,
  castles and towns, hexagons and triangles, pads), for the top sheet;
* ``<name>-template.svg/.pdf/.png`` — the same with every sensor and LED position marked,
  the drilling and assembly template;
* ``<name>-wiring.svg/.png/.csv/.md`` — which spot sits on which matrix row/column, chain
  bit or analog channel, and which LED index lights it;
* with ``schematic=True``, ``<name>-schematic.svg/.pdf``, ``<name>-netlist.net`` (KiCad)
  and ``<name>-strip-netlist.net`` (one sensor strip as its own small board);
* ``<name>-bom.md/.csv`` — the bill of materials (parts, part numbers, spares and prices from
  ``boards/parts.toml``) with the LED budget and every power rail checked against its rating.

The PDFs are tiled onto A4 or Letter pages with overlap strips, cut lines and registration
crosses when the board is larger than a page.  Everything is computed from the layout;
nothing here knows a particular board.

Long module: one drawing pipeline (cells, pads, labels, tiling, cut marks) whose parts
share the page geometry; split by drawing step it would pass that geometry around.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from controller import parts
from controller.layout import Layout, Spot, load_layout, token_title
from controller.parts import (
    POWER_INLET_PARTS,
    RAIL_LIMIT,
    REGULATOR_AMBIENT_C,
    SENSOR_RAIL_V,
    SUPPLY_HIGH_V,
    powered_parts,
    rail_loads,
    regulator_allowed_w,
    regulator_count,
    regulator_dissipation_w,
    sensing_parts,
)
from controller.schematic import sensor_supplies
from controller.sensing.kinds import MATRIX, chip_ref, sensing_kind

#: paper sizes in mm (portrait)
PAPERS: dict[str, tuple[float, float]] = {"A4": (210.0, 297.0), "Letter": (215.9, 279.4)}
#: unprinted margin most printers need, mm
PAGE_MARGIN_MM = 10.0
#: strip shared by neighbouring pages, mm; the cut line runs down its middle
OVERLAP_MM = 20.0
#: registration crosses along every cut line, at most this far apart, mm
CROSS_SPACING_MM = 60.0

#: default software brightness cap assumed for the power supply: a fraction of full white
BRIGHTNESS_CAP = 0.25
#: supply rating margin over the computed load
SUPPLY_HEADROOM = 1.2
#: common 5 V supply ratings, A
SUPPLY_SIZES_A = (2, 3, 4, 5, 6, 8, 10, 12, 15, 20)
#: Raspberry Pi Pico: usable GPIO and ADC inputs
PICO_GPIO = 26
PICO_ADC = 3

PREVIEW_PX_PER_MM = 2.0
FONT = "DejaVu Sans, Arial, Helvetica, sans-serif"
PLAYER_NAMES = ("White", "Black", "Player 3", "Player 4")
SENSOR_COLOUR = "#c8102e"
LED_COLOUR = "#0057b8"
REED_BODY_MM = (14.0, 2.4)
HALL_BODY_MM = (4.5, 3.0)
LED_BODY_MM = 5.0

# print colours: light/dark squares, ring fields, castles and towns, Lotus cells, Rivers
LIGHT, DARK = "#f0d9b5", "#c7a27c"
FIELD_A, FIELD_B = "#fbf6ea", "#e9dec4"
CASTLE, TOWN = "#e7a1a1", "#f6d7c6"
LOTUS = {"hexagon": "#e3b564", "triangle": "#f6ead0", "rank_square": "#d5bd91",
         "oblique_square": "#eadab3", "square": "#eadab3"}
RIVER = "#2a7fd4"


def print_board(layout_name: str, out_dir: Path | str, paper: str = "A4", *,
                schematic: bool = False) -> list[Path]:
    """Write every printable file of a layout into ``out_dir``; return their paths.

    ``schematic`` adds ``<name>-schematic.svg/.pdf`` and the KiCad netlist
    ``<name>-netlist.net`` (controller/schematic.py)."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r} (one of {', '.join(PAPERS)})")
    layout = load_layout(layout_name)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    name = layout.name
    written: list[Path] = []

    def write(suffix: str, text: str) -> Path:
        path = out / f"{name}-{suffix}"
        path.write_text(text, encoding="utf-8", newline="")
        written.append(path)
        return path

    for kind, marks in (("surface", False), ("template", True)):
        svg = board_svg(layout, marks=marks)
        write(f"{kind}.svg", svg)
        pdf = out / f"{name}-{kind}.pdf"
        write_tiled_pdf(layout, pdf, paper, marks=marks)
        written.append(pdf)
        written.append(write_png(svg, out / f"{name}-{kind}.png", layout.size_mm[0]))
    wiring = wiring_svg(layout)
    write("wiring.svg", wiring)
    written.append(write_png(wiring, out / f"{name}-wiring.png", _svg_width(wiring)))
    write("wiring.csv", wiring_csv(layout))
    write("wiring.md", wiring_markdown(layout))
    write("bom.md", bom_markdown(layout))
    write("bom.csv", bom_csv(layout))
    if schematic:
        from controller.schematic import (
            board_netlist,
            kicad_netlist,
            schematic_svg,
            strip_netlist,
        )

        netlist = board_netlist(layout)
        svg = schematic_svg(netlist, f"Schematic of {layout.name}: {layout.title}")
        write("schematic.svg", svg)
        written.append(write_pdf(svg, out / f"{name}-schematic.pdf"))
        write("netlist.net", kicad_netlist(netlist))
        write("strip-netlist.net", kicad_netlist(strip_netlist(layout)))
    return written


# ---------------------------------------------------------------------------------
# SVG primitives (user unit = 1 mm, y downward; layouts have y toward Black)


def _n(v: float) -> str:
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


class _Flip:
    """Board millimetres (y up) to SVG millimetres (y down)."""

    def __init__(self, layout: Layout, dx: float = 0.0, dy: float = 0.0) -> None:
        self.height = layout.size_mm[1]
        self.dx, self.dy = dx, dy

    def __call__(self, p: tuple[float, float]) -> tuple[float, float]:
        return p[0] + self.dx, self.height - p[1] + self.dy

    def path(self, outline: tuple[tuple[float, float], ...]) -> str:
        pts = [self(p) for p in outline]
        return "M" + " L".join(f"{_n(x)},{_n(y)}" for x, y in pts) + " Z"


def _text(x: float, y: float, text: str, size: float, *, anchor: str = "middle",
          fill: str = "#222", weight: str = "normal", cls: str = "",
          rotate: float = 0.0) -> str:
    extra = f' class="{cls}"' if cls else ""
    if rotate:
        extra += f' transform="rotate({_n(rotate)} {_n(x)} {_n(y)})"'
    return (f'<text x="{_n(x)}" y="{_n(y)}" font-family="{FONT}" font-size="{_n(size)}" '
            f'text-anchor="{anchor}" dominant-baseline="central" fill="{fill}" '
            f'font-weight="{weight}"{extra}>{escape(text)}</text>')


def _svg(width: float, height: float, body: list[str], title: str) -> str:
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}mm" '
        f'height="{_n(height)}mm" viewBox="0 0 {_n(width)} {_n(height)}">',
        f"<title>{escape(title)}</title>",
        *body,
        "</svg>",
        "",
    ])


def _svg_width(svg: str) -> float:
    start = svg.index('width="') + 7
    return float(svg[start:svg.index("mm", start)])


# ---------------------------------------------------------------------------------
# The board drawing


def _cell_fill(layout: Layout, c: int) -> str:
    g = layout.geometry
    if g.kind == "grid":
        f, r = g.coords(c)
        return DARK if (f + r) % 2 == 0 else LIGHT  # a1 is dark
    if g.kind == "rings":
        if c in g.tags["castle"]:
            return CASTLE
        if c in g.tags["town"]:
            return TOWN
        u0, u1 = g.attributes["span"][c]
        return FIELD_A if (g.attributes["ring"][c] + u0 // (u1 - u0)) % 2 else FIELD_B
    for tag in ("rank_square", "oblique_square"):
        if c in g.tags.get(tag, ()):
            return LOTUS[tag]
    return LOTUS.get(g.shapes[c], FIELD_A)


def _label_position(layout: Layout, spot: Spot) -> tuple[float, float, float]:
    """Where a cell's name is printed (board mm) and its font size: clear of the marks."""
    g = layout.geometry
    s = layout.scale_mm
    cx, cy = spot.centre_mm
    if g.kind == "grid":
        x0 = min(p[0] for p in spot.outline_mm)
        y0 = min(p[1] for p in spot.outline_mm)
        return x0 + 0.16 * s, y0 + 0.2 * s, 0.13 * s
    if g.kind == "rings":
        return cx, cy + 0.3 * s, 0.14 * s
    return cx, cy + 0.16 * s, 0.1 * s


def _rivers(layout: Layout, flip: _Flip) -> list[str]:
    g = layout.geometry
    out: list[str] = []
    s, (ox, oy) = layout.scale_mm, layout.origin_mm
    for k in g.rivers:
        y = oy + k * s
        x0, x1 = ox, ox + g.files * s
        wave = 0.5 * s
        n = max(1, round((x1 - x0) / wave))
        step = (x1 - x0) / n
        amp = 0.04 * s
        sx, sy = flip((x0, y))
        d = [f"M{_n(sx)},{_n(sy)}"]
        for i in range(n):
            px, py = flip((x0 + (i + 0.5) * step, y + (amp if i % 2 else -amp)))
            qx, qy = flip((x0 + (i + 1) * step, y))
            d.append(f"Q{_n(px)},{_n(py)} {_n(qx)},{_n(qy)}")
        out.append(f'<path class="river" d="{" ".join(d)}" fill="none" stroke="{RIVER}" '
                   f'stroke-width="{_n(0.06 * s)}" stroke-linecap="round"/>')
        if ox >= 14:
            lx, ly = flip((ox / 2, y))
            out.append(_text(lx, ly, "River", min(4.0, ox * 0.2), fill=RIVER, weight="bold"))
    return out


def _pad(layout: Layout, spot: Spot, flip: _Flip, *, labels: bool = True) -> list[str]:
    xs = [p[0] for p in spot.outline_mm]
    ys = [p[1] for p in spot.outline_mm]
    w, h = max(xs) - min(xs), max(ys) - min(ys)
    x, y = flip((min(xs), max(ys)))
    cx, cy = flip(spot.centre_mm)
    owner = PLAYER_NAMES[spot.owner] if spot.owner is not None else ""
    big, caption = {
        "token": (token_title(spot.piece or ""), owner),
        "hand": (spot.piece or "", f"{owner} hand"),
        "reserve": (spot.piece or "", f"{owner} reserve"),
        "option": (spot.name.rsplit("-", 1)[-1], "option"),
        "die": ("Die", "die roll"),
    }[spot.role or "option"]
    size = min(w, h)
    # one letter fills 40 % of the pad; a word is scaled to fit its width
    big_size = size * 0.4 if len(big) == 1 else size * 0.88 / len(big)
    rotate = 180.0 if spot.owner == 1 else 0.0  # Black reads his pads from his side
    fill = "#d9d9d9" if spot.owner == 1 else "#f7f7f7"
    cap_y = cy - h * 0.36 if not rotate else cy + h * 0.36
    out = [
        f'<g class="pad" id={quoteattr("pad-" + spot.name)}>',
        f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="{_n(size * 0.08)}" '
        f'fill="{fill}" stroke="#444" stroke-width="0.5" stroke-dasharray="2 1"/>',
    ]
    if labels:
        out.append(_text(cx, cy, big, big_size, fill="#555", weight="bold", rotate=rotate))
        out.append(_text(cx, cap_y, caption, min(3.2, size * 0.1), fill="#333", rotate=rotate))
    out.append("</g>")
    return out


def _sensor_mark(layout: Layout, spot: Spot, flip: _Flip) -> list[str]:
    sx, sy = flip(spot.sensor_mm)
    bw, bh = REED_BODY_MM if layout.sensor_kind == "reed" else HALL_BODY_MM
    arm = 4.0
    out = [
        f'<g class="sensor-mark" data-spot={quoteattr(spot.name)}>',
        f'<rect x="{_n(sx - bw / 2)}" y="{_n(sy - bh / 2)}" width="{_n(bw)}" height="{_n(bh)}" '
        f'rx="{_n(bh / 2 if layout.sensor_kind == "reed" else 0.6)}" fill="none" '
        f'stroke="{SENSOR_COLOUR}" stroke-width="0.35"/>',
        f'<path d="M{_n(sx - arm)},{_n(sy)} H{_n(sx + arm)} M{_n(sx)},{_n(sy - arm)} '
        f'V{_n(sy + arm)}" stroke="{SENSOR_COLOUR}" stroke-width="0.25"/>',
    ]
    if spot.sensor_mm != spot.centre_mm:  # where the magnet stands: the spot centre
        mx, my = flip(spot.centre_mm)
        out.append(f'<circle cx="{_n(mx)}" cy="{_n(my)}" r="1.2" fill="{SENSOR_COLOUR}"/>')
    out.append("</g>")
    return out


def _led_mark(spot: Spot, flip: _Flip) -> list[str]:
    lx, ly = flip(spot.led_mm)
    half = LED_BODY_MM / 2
    return [
        f'<g class="led-mark" data-led="{spot.led}">',
        f'<rect x="{_n(lx - half)}" y="{_n(ly - half)}" width="{_n(LED_BODY_MM)}" '
        f'height="{_n(LED_BODY_MM)}" fill="#ffffff" fill-opacity="0.7" stroke="{LED_COLOUR}" '
        f'stroke-width="0.35"/>',
        f'<circle cx="{_n(lx)}" cy="{_n(ly)}" r="1" fill="none" stroke="{LED_COLOUR}" '
        f'stroke-width="0.25"/>',
        _text(lx, ly + half + 1.6, str(spot.led), 2.4, fill=LED_COLOUR, weight="bold"),
        "</g>",
    ]


Box = tuple[float, float, float, float]


def _visible(spot: Spot, view: Box | None, slack: float = 12.0) -> bool:
    """Whether a spot (with its labels and marks) may show inside ``view`` (board mm)."""
    if view is None:
        return True
    xs = [p[0] for p in spot.outline_mm]
    ys = [p[1] for p in spot.outline_mm]
    return not (max(xs) + slack < view[0] or min(xs) - slack > view[2]
                or max(ys) + slack < view[1] or min(ys) - slack > view[3])


def board_body(layout: Layout, *, marks: bool, flip: _Flip | None = None,
               names: bool = True, faint: bool = False, view: Box | None = None) -> list[str]:
    """SVG elements of the board drawn in board millimetres (shifted by ``flip``).

    ``view`` (x0, y0, x1, y1 in board mm) leaves out spots that cannot show there: a page
    of a tiled print then draws only its share, which keeps the PDF small and fast."""
    flip = flip or _Flip(layout)
    g = layout.geometry
    shown = [_visible(s, view) for s in layout.spots]
    w, h = layout.size_mm
    x0, y0 = flip((0, h))
    body = [f'<rect class="board-edge" x="{_n(x0)}" y="{_n(y0)}" width="{_n(w)}" '
            f'height="{_n(h)}" fill="#ffffff" stroke="#000" stroke-width="0.3"/>']
    opacity = ' fill-opacity="0.45"' if faint else ""
    for c in range(len(g)):
        spot = layout.spots[c]
        if not shown[c]:
            continue
        body.append(f'<path class="cell" id={quoteattr("cell-" + spot.name)} '
                    f'd="{flip.path(spot.outline_mm)}" fill="{_cell_fill(layout, c)}"{opacity} '
                    f'stroke="#333" stroke-width="0.4" stroke-linejoin="round"/>')
    body.extend(_rivers(layout, flip))
    for i in range(len(g), len(layout.spots)):
        if shown[i]:
            body.extend(_pad(layout, layout.spots[i], flip, labels=names))
    if names:
        homes = layout.labels  # cells with a meaning of their own
        for c, spot in enumerate(layout.spots[: len(g)]):
            if not shown[c]:
                continue
            x, y, size = _label_position(layout, spot)
            px, py = flip((x, y))
            anchor = "start" if g.kind == "grid" else "middle"
            body.append(_text(px, py, spot.name, size, anchor=anchor, fill="#333",
                              cls="cell-name"))
            if spot.name in homes:
                hx, hy = flip((spot.centre_mm[0], spot.centre_mm[1] + 0.34 * layout.scale_mm))
                body.append(_text(hx, hy, homes[spot.name], size * 0.75, fill="#5a3d00"))
    if marks:
        for i, spot in enumerate(layout.spots):
            if shown[i]:
                body.extend(_sensor_mark(layout, spot, flip))
        for i, spot in enumerate(layout.spots):
            if shown[i]:
                body.extend(_led_mark(spot, flip))
    return body


def _captions(layout: Layout, flip: _Flip, marks: bool) -> list[str]:
    """Title, 100 mm check bar and (on the template) the legend, in the board's margins."""
    w, h = layout.size_mm
    out: list[str] = []
    tx, ty = flip((8, 5))
    out.append(_text(tx, ty, f"{layout.title} — {layout.name} — print at 100 %: "
                     "the bar is 100 mm", 3.2, anchor="start", fill="#444"))
    bx0, by = flip((w - 108, 5))
    out.append(f'<path class="scale-bar" d="M{_n(bx0)},{_n(by)} h100 M{_n(bx0)},{_n(by - 1.5)} '
               f'v3 M{_n(bx0 + 100)},{_n(by - 1.5)} v3" stroke="#000" stroke-width="0.4"/>')
    out.append(_text(bx0 + 50, by - 2.4, "100 mm", 2.6, fill="#000"))
    if marks:
        lx, ly = flip((8, h - 6))
        body = REED_BODY_MM if layout.sensor_kind == "reed" else HALL_BODY_MM
        kind = {
            "reed": "reed switch under the plate (glass drawn, dot = magnet centre): "
                    "pilot-drill Ø1.5 mm at cross and dot",
            "digital-hall": "hall switch lying flat, marked face up, under the cross: "
                            "pilot-drill Ø1.5 mm",
            "linear-hall": "linear hall sensor lying flat, marked face up, under the cross: "
                           "pilot-drill Ø1.5 mm",
        }[layout.sensor_kind]
        out.append(f'<rect x="{_n(lx)}" y="{_n(ly - body[1] / 2)}" width="{_n(body[0])}" '
                   f'height="{_n(body[1])}" fill="none" stroke="{SENSOR_COLOUR}" '
                   'stroke-width="0.35"/>')
        out.append(_text(lx + body[0] + 2, ly, kind, 3, anchor="start", fill=SENSOR_COLOUR))
        mx = lx + body[0] + 2 + 3 * 0.56 * len(kind) + 6
        out.append(f'<rect x="{_n(mx)}" y="{_n(ly - 2.5)}" width="5" height="5" fill="none" '
                   f'stroke="{LED_COLOUR}" stroke-width="0.35"/>')
        out.append(_text(mx + 7, ly, "WS2812B LED under a Ø6 mm hole; number = chain index", 3,
                         anchor="start", fill=LED_COLOUR))
    return out


def board_svg(layout: Layout, *, marks: bool) -> str:
    """The whole board at 1:1 (user unit = 1 mm); ``marks`` adds sensors and LEDs."""
    flip = _Flip(layout)
    body = board_body(layout, marks=marks, flip=flip)
    body.extend(_captions(layout, flip, marks))
    kind = "drilling and assembly template" if marks else "playing surface"
    return _svg(*layout.size_mm, body, f"{layout.title}: {kind}")


# ---------------------------------------------------------------------------------
# Tiling onto pages


@dataclass(frozen=True)
class Tile:
    """One printed page: the board region it shows (SVG mm, y down) and its place."""

    row: int
    column: int
    x: float
    y: float
    rows: int
    columns: int

    @property
    def label(self) -> str:
        return f"{chr(ord('A') + self.row)}{self.column + 1}"


def page_plan(size_mm: tuple[float, float], paper: str) -> tuple[tuple[float, float],
                                                                    list[Tile]]:
    """Page size (mm) and tiles covering a board; portrait or landscape, fewer pages wins."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r} (one of {', '.join(PAPERS)})")
    w, h = size_mm
    best: tuple[int, tuple[float, float], int, int] | None = None
    pw0, ph0 = PAPERS[paper]
    for pw, ph in ((pw0, ph0), (ph0, pw0)):
        uw, uh = pw - 2 * PAGE_MARGIN_MM, ph - 2 * PAGE_MARGIN_MM
        cols = 1 if w <= uw else 1 + math.ceil((w - uw) / (uw - OVERLAP_MM))
        rows = 1 if h <= uh else 1 + math.ceil((h - uh) / (uh - OVERLAP_MM))
        if best is None or cols * rows < best[0]:
            best = (cols * rows, (pw, ph), rows, cols)
    assert best is not None
    _, (pw, ph), rows, cols = best
    uw, uh = pw - 2 * PAGE_MARGIN_MM, ph - 2 * PAGE_MARGIN_MM
    tiles = []
    for r in range(rows):
        for c in range(cols):
            # centre the board on a single page; otherwise step by the page minus overlap
            x = (w - uw) / 2 if cols == 1 else c * (uw - OVERLAP_MM)
            y = (h - uh) / 2 if rows == 1 else r * (uh - OVERLAP_MM)
            tiles.append(Tile(r, c, x, y, rows, cols))
    return (pw, ph), tiles


def _cut_lines(layout: Layout, tile: Tile, page: tuple[float, float]) -> tuple[list[float],
                                                                                list[float]]:
    """Board x of the vertical and board-SVG y of the horizontal cut lines."""
    uw = page[0] - 2 * PAGE_MARGIN_MM
    uh = page[1] - 2 * PAGE_MARGIN_MM
    xs = [(c + 1) * (uw - OVERLAP_MM) + OVERLAP_MM / 2 for c in range(tile.columns - 1)]
    ys = [(r + 1) * (uh - OVERLAP_MM) + OVERLAP_MM / 2 for r in range(tile.rows - 1)]
    return xs, ys


def page_svg(layout: Layout, tile: Tile, page: tuple[float, float], *, marks: bool) -> str:
    """One page of the tiled print: its share of the board, cut lines, crosses, labels."""
    pw, ph = page
    m = PAGE_MARGIN_MM
    uw, uh = pw - 2 * m, ph - 2 * m
    dx, dy = m - tile.x, m - tile.y
    flip = _Flip(layout, dx, dy)
    w, h = layout.size_mm
    body = [
        '<defs><clipPath id="printable">'
        f'<rect x="{_n(m)}" y="{_n(m)}" width="{_n(uw)}" height="{_n(uh)}"/></clipPath></defs>',
        '<g clip-path="url(#printable)">',
        *board_body(layout, marks=marks, flip=flip,
                    view=(tile.x, h - tile.y - uh, tile.x + uw, h - tile.y)),
        *_captions(layout, flip, marks),
    ]
    xs, ys = _cut_lines(layout, tile, page)
    for x in xs:
        px = x + dx
        body.append(f'<path class="cut-line" d="M{_n(px)},{_n(dy)} v{_n(h)}" stroke="#000" '
                    'stroke-width="0.3" stroke-dasharray="3 2"/>')
        n = max(2, math.ceil(h / CROSS_SPACING_MM) + 1)
        for k in range(n):
            body.append(_cross(px, dy + h * (k + 0.5) / n))
    for y in ys:
        py = y + dy
        body.append(f'<path class="cut-line" d="M{_n(dx)},{_n(py)} h{_n(w)}" stroke="#000" '
                    'stroke-width="0.3" stroke-dasharray="3 2"/>')
        n = max(2, math.ceil(w / CROSS_SPACING_MM) + 1)
        for k in range(n):
            body.append(_cross(dx + w * (k + 0.5) / n, py))
    body.append("</g>")
    # page frame corners and labels in the margin
    for cx, cy, sx, sy in ((m, m, 1, 1), (pw - m, m, -1, 1), (m, ph - m, 1, -1),
                           (pw - m, ph - m, -1, -1)):
        body.append(f'<path class="corner" d="M{_n(cx + 6 * sx)},{_n(cy)} H{_n(cx)} '
                    f'V{_n(cy + 6 * sy)}" fill="none" stroke="#888" stroke-width="0.3"/>')
    # a 50 mm check bar on every page: measure it to be sure the printer did not scale
    bx = pw - m - 50
    body.append(f'<path class="check-bar" d="M{_n(bx)},{_n(m / 2)} h50 M{_n(bx)},'
                f'{_n(m / 2 - 1.5)} v3 M{_n(bx + 50)},{_n(m / 2 - 1.5)} v3" stroke="#000" '
                'stroke-width="0.4"/>')
    body.append(_text(bx - 2, m / 2, "50 mm", 2.6, anchor="end", fill="#000"))
    neighbours = []
    if tile.column > 0:
        neighbours.append(f"left: {chr(65 + tile.row)}{tile.column}")
    if tile.column < tile.columns - 1:
        neighbours.append(f"right: {chr(65 + tile.row)}{tile.column + 2}")
    if tile.row > 0:
        neighbours.append(f"above: {chr(64 + tile.row)}{tile.column + 1}")
    if tile.row < tile.rows - 1:
        neighbours.append(f"below: {chr(66 + tile.row)}{tile.column + 1}")
    total = tile.rows * tile.columns
    number = tile.row * tile.columns + tile.column + 1
    body.append(_text(m, m / 2, f"{layout.name} {'template' if marks else 'surface'} — "
                      f"page {tile.label} ({number} of {total}) — print at 100 %", 3,
                      anchor="start", fill="#333", cls="page-label"))
    if total > 1:
        body.append(_text(m, ph - m / 2, "Trim the left and top edges along the dashed lines; "
                          "lay each page on its neighbour so the crosses meet. "
                          + " · ".join(neighbours), 2.6, anchor="start", fill="#333"))
    return _svg(pw, ph, body, f"{layout.title}: page {tile.label}")


def _cross(x: float, y: float) -> str:
    return (f'<g class="registration"><circle cx="{_n(x)}" cy="{_n(y)}" r="2.5" fill="none" '
            f'stroke="#000" stroke-width="0.25"/><path d="M{_n(x - 4)},{_n(y)} h8 '
            f'M{_n(x)},{_n(y - 4)} v8" stroke="#000" stroke-width="0.25"/></g>')


def write_tiled_pdf(layout: Layout, path: Path, paper: str = "A4", *, marks: bool) -> Path:
    """A multi-page PDF of the board at 1:1, drawn page by page onto one cairo surface."""
    import cairocffi
    from cairosvg.parser import Tree
    from cairosvg.surface import PDFSurface

    page, tiles = page_plan(layout.size_mm, paper)
    points = (page[0] / 25.4 * 72, page[1] / 25.4 * 72)
    pdf = cairocffi.PDFSurface(str(path), *points)

    class _SharedPage(PDFSurface):
        """cairosvg draws each page SVG onto the one PDF surface instead of a new file."""

        def _create_surface(self, width: float, height: float) -> tuple:
            pdf.set_size(width, height)
            return pdf, width, height

    try:
        for tile in tiles:
            svg = page_svg(layout, tile, page, marks=marks)
            _SharedPage(Tree(bytestring=svg.encode("utf-8")), None, 96)
            pdf.show_page()
    finally:
        pdf.finish()
    return path


def write_png(svg: str, path: Path, width_mm: float,
              px_per_mm: float = PREVIEW_PX_PER_MM) -> Path:
    """A raster preview of an SVG at ``px_per_mm``, on white."""
    import cairosvg

    cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=str(path),
                     output_width=round(width_mm * px_per_mm), background_color="white")
    return path


def write_pdf(svg: str, path: Path) -> Path:
    """A one-page PDF of an SVG at its own size."""
    import cairosvg

    cairosvg.svg2pdf(bytestring=svg.encode("utf-8"), write_to=str(path))
    return path


# ---------------------------------------------------------------------------------
# Wiring


def sensor_text(layout: Layout, spot: Spot) -> str:
    """Short sensor address as printed on the wiring diagram."""
    return sensing_kind(layout).sensor_text(spot.sensor)


def chip_input(layout: Layout, spot: Spot) -> str:
    """Chip and input of a chain bit or analog channel, named as in the schematic
    ("U10 H", "U11 I5"); a matrix: empty."""
    return _chip_input(layout, spot)


def _chip_input(layout: Layout, spot: Spot) -> str:
    """Chip and pin of a chain bit or analog channel (matrix: empty)."""
    w = spot.sensor
    if w.chain is not None:
        return f"{chip_ref(w.chain // 8)} {'HGFEDCBA'[w.chain % 8]}"
    if w.channel is not None:
        return f"{chip_ref(w.channel // 16)} I{w.channel % 16}"
    return ""


WIRING_FIELDS = ("spot", "name", "kind", "role", "owner", "piece", "x_mm", "y_mm", "row",
                 "column", "chain_bit", "channel", "chip_input", "sensor_x_mm", "sensor_y_mm",
                 "led", "led_x_mm", "led_y_mm", "sensor_vcc")


def wiring_rows(layout: Layout) -> list[dict[str, object]]:
    """One row per spot: position, sensor address and LED index."""
    rows = []
    supplies = sensor_supplies(layout)
    for i, s in enumerate(layout.spots):
        rows.append({
            "spot": i, "name": s.name, "kind": s.kind, "role": s.role or "",
            "owner": "" if s.owner is None else s.owner, "piece": s.piece or "",
            "x_mm": _n(s.centre_mm[0]), "y_mm": _n(s.centre_mm[1]),
            "row": "" if s.sensor.row is None else s.sensor.row,
            "column": "" if s.sensor.column is None else s.sensor.column,
            "chain_bit": "" if s.sensor.chain is None else s.sensor.chain,
            "channel": "" if s.sensor.channel is None else s.sensor.channel,
            "chip_input": _chip_input(layout, s),
            "sensor_x_mm": _n(s.sensor_mm[0]), "sensor_y_mm": _n(s.sensor_mm[1]),
            "led": s.led, "led_x_mm": _n(s.led_mm[0]), "led_y_mm": _n(s.led_mm[1]),
            "sensor_vcc": supplies[i][0] if supplies else "",
        })
    return rows


def wiring_csv(layout: Layout) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=WIRING_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(wiring_rows(layout))
    return buf.getvalue()


def sensor_grid(layout: Layout) -> tuple[list[str], list[str], list[list[int]]]:
    """The sensor inputs as a table: row labels, column labels, spot index or -1."""
    return sensing_kind(layout).grid(layout)


def _sensing_summary(layout: Layout) -> str:
    return sensing_kind(layout).summary(layout)


def sensor_supply_lines(layout: Layout, supplies: list[tuple[str, str]]) -> list[str]:
    """Which regulator feeds which spots' sensors (the column *sensor VCC* below): with two
    regulators, a sensor on the wrong one loads it past its share of the heat budget."""
    if not supplies:
        return []
    spans: list[tuple[str, str, int, int]] = []
    for i, (ref, rail) in enumerate(supplies):
        if spans and spans[-1][0] == ref:
            spans[-1] = (ref, rail, spans[-1][2], i)
        else:
            spans.append((ref, rail, i, i))
    fed = "; ".join(f"{ref} ({rail}) spots {first}–{last} ({layout.spots[first].name} … "
                    f"{layout.spots[last].name})" for ref, rail, first, last in spans)
    lines = ["", f"Sensors' VCC (column *sensor VCC* below): {fed}."]
    if len(spans) > 1:
        lines.append("The regulators' outputs are never joined; the read-out chips and their "
                     f"pull-ups are on {spans[0][0]}.")
    return lines


def wiring_markdown(layout: Layout) -> str:
    row_labels, col_labels, grid = sensor_grid(layout)
    lines = [
        f"# Wiring of {layout.name}: {layout.title}",
        "",
        f"Generated by `fairyboard board print {layout.name}` from "
        f"`boards/layouts/{layout.name}.toml`; do not edit by hand.",
        "",
        f"- Sensors: {layout.sensor_kind}, {_sensing_summary(layout)}; "
        f"cells wired by the rule `{layout.sensor_rule}`.",
        f"- LEDs: {layout.led_count} WS2812B in one chain, cells by the rule "
        f"`{layout.led_rule}`, then the pads.",
        "- Coordinates: mm from the board's lower-left corner (White's left), y toward Black.",
        "",
        "## Sensor inputs",
        "",
        "| | " + " | ".join(col_labels) + " |",
        "|---|" + "---|" * len(col_labels),
    ]
    for label, row in zip(row_labels, grid, strict=True):
        names = [layout.spots[i].name if i >= 0 else "·" for i in row]
        lines.append(f"| {label} | " + " | ".join(names) + " |")
    lines += ["", "## Raspberry Pi Pico pins (the firmware's default config.py)", ""]
    lines += pico_pin_lines(layout)
    supplies = sensor_supplies(layout)
    lines += sensor_supply_lines(layout, supplies)
    vcc_head, vcc_rule = (" sensor VCC |", "---|") if supplies else ("", "")
    lines += ["", "## Every spot", "",
              "| spot | name | kind | sensor | chip input | LED | centre x, y mm | "
              f"sensor x, y mm | LED x, y mm |{vcc_head}",
              f"|---:|---|---|---|---|---:|---|---|---|{vcc_rule}"]
    for i, s in enumerate(layout.spots):
        kind = s.kind if s.kind == "cell" else f"{s.piece if s.role == 'token' else s.role} pad"
        vcc = f" {supplies[i][0]} |" if supplies else ""
        lines.append(f"| {i} | {s.name} | {kind} | {sensor_text(layout, s)} | "
                     f"{_chip_input(layout, s) or '—'} | {s.led} | "
                     f"{_n(s.centre_mm[0])}, {_n(s.centre_mm[1])} | "
                     f"{_n(s.sensor_mm[0])}, {_n(s.sensor_mm[1])} | "
                     f"{_n(s.led_mm[0])}, {_n(s.led_mm[1])} |{vcc}")
    lines.append("")
    return "\n".join(lines)


def pico_pin_lines(layout: Layout) -> list[str]:
    """Markdown table of the Pico pins the default firmware configuration expects.

    The pin choice is the firmware's (``controller.sensing.fwconfig``); this only shows it
    next to the wiring so the builder solders what the firmware reads."""
    from controller.sensing.fwconfig import firmware_settings

    fw = firmware_settings(layout)
    rows = ["| signal | Pico pin |", "|---|---|"]
    kind_rows, note = sensing_kind(layout).pin_rows(fw)
    rows += kind_rows
    rows.append(f"| LED data → 74AHCT125 (10 kΩ pull-down) → 330 Ω → DIN of LED 0 | "
                f"{fw['NEOPIXEL_PIN']} |")
    if layout.sensor_kind != "reed":
        rows.append("| sensors' 3.3 V rail (LM1117-3.3 output(s), from the 5 V rail) | — not the "
                    "3V3 pin (36) |")
        if not sensing_kind(layout).switches:
            rows.append("| ADC_VREF: leave open (the Pico filters its own 3V3 onto it through "
                        "200 Ω; never join it to the sensors' rail) | pin 35 |")
    rows += ["| GND: the 5 V supply's ground, the sensors', the LEDs' | any GND pin (38) |",
             "| VSYS: from the 5 V rail through the 1N5819 (D2, ring toward VSYS) | pin 39 |",
             "| 3V3_EN: drain of the 2N7000 (Q2; gate to VSYS, source to the 5 V rail) | "
             "pin 37 |",
             "| USB: data to the computer; on USB alone the Pico stays off | micro-USB |"]
    return [*rows, "", note]


def wiring_svg(layout: Layout) -> str:
    """Board with each spot's sensor address and LED index, the LED chain, and the
    sensor input table."""
    w, h = layout.size_mm
    margin, top = 10.0, 22.0
    flip = _Flip(layout, margin, top)
    body = board_body(layout, marks=False, flip=flip, names=False, faint=True)
    # LED chain
    order = layout.led_spots()
    pts = [flip(layout.spots[i].led_mm) for i in order]
    body.append('<polyline class="led-chain" points="'
                + " ".join(f"{_n(x)},{_n(y)}" for x, y in pts)
                + f'" fill="none" stroke="{LED_COLOUR}" stroke-width="0.5" '
                'stroke-opacity="0.55"/>')
    sx, sy = pts[0]
    body.append(f'<circle cx="{_n(sx)}" cy="{_n(sy)}" r="2.2" fill="{LED_COLOUR}"/>')
    body.append(_text(sx - 3.5, sy, "DIN", 3, anchor="end", fill=LED_COLOUR, weight="bold"))
    for s in layout.spots:
        cx, cy = flip(s.centre_mm)
        lx, ly = flip(s.led_mm)
        size = min(3.0, layout.scale_mm * 0.08)
        body.append(f'<g class="spot-wiring" data-spot={quoteattr(s.name)}>'
                    + _text(cx, cy - size * 0.7, s.name, size, fill="#222", weight="bold")
                    + _text(cx, cy + size * 0.7, sensor_text(layout, s), size * 0.9,
                            fill=SENSOR_COLOUR)
                    + f'<circle cx="{_n(lx)}" cy="{_n(ly)}" r="1.1" fill="{LED_COLOUR}"/>'
                    + _text(lx + 1.6, ly, str(s.led), size * 0.85, anchor="start",
                            fill=LED_COLOUR)
                    + "</g>")
    # sensor input table
    row_labels, col_labels, grid = sensor_grid(layout)
    label_w = 20.0 if sensing_kind(layout) is MATRIX else 50.0
    cell_w = 22.0 if len(col_labels) > 10 else 30.0
    cell_h = 11.0
    tx0, ty0 = margin + w + 20, top + 8
    body.append(_text(tx0, top + 2, f"Sensor inputs: {_sensing_summary(layout)}", 5,
                      anchor="start", weight="bold"))
    for k, label in enumerate(col_labels):
        body.append(_text(tx0 + label_w + (k + 0.5) * cell_w, ty0 + cell_h / 2, label, 3.8,
                          weight="bold"))
    for r, (label, row) in enumerate(zip(row_labels, grid, strict=True)):
        y = ty0 + (r + 1) * cell_h
        body.append(_text(tx0 + label_w - 2, y + cell_h / 2, label, 3.8, anchor="end",
                          weight="bold"))
        for k, i in enumerate(row):
            x = tx0 + label_w + k * cell_w
            spot = layout.spots[i] if i >= 0 else None
            fill = "#ffffff" if spot is None else ("#eef3fb" if spot.kind == "cell"
                                                   else "#fdeccf")
            body.append(f'<rect class="sensor-input" x="{_n(x)}" y="{_n(y)}" '
                        f'width="{_n(cell_w)}" height="{_n(cell_h)}" fill="{fill}" '
                        'stroke="#777" stroke-width="0.25"/>')
            if spot is not None:
                text = spot.name if len(spot.name) <= 8 else _short_pad_name(spot)
                body.append(_text(x + cell_w / 2, y + cell_h / 2, text, 3.4))
    table_w = label_w + cell_w * len(col_labels)
    table_h = cell_h * (len(row_labels) + 1)
    notes = [
        f"LED chain: {layout.led_count} WS2812B, DIN at LED 0 ({layout.spots[order[0]].name}), "
        f"cells by '{layout.led_rule}', then the pads.",
        f"Cells wired by the rule '{layout.sensor_rule}'; pads (orange) as listed in the layout.",
        "Red: sensor input; blue: LED index. Full table: "
        f"{layout.name}-wiring.md / .csv.",
    ]
    for k, line in enumerate(notes):
        body.append(_text(tx0, ty0 + table_h + 10 + k * 7, line, 4, anchor="start"))
    body.insert(0, _text(margin, 10, f"Wiring of {layout.name}: {layout.title}", 6,
                         anchor="start", weight="bold"))
    width = tx0 + max(table_w, 150) + margin
    height = max(top + h, ty0 + table_h + 10 + len(notes) * 7) + margin
    body.insert(0, f'<rect x="0" y="0" width="{_n(width)}" height="{_n(height)}" '
                'fill="#ffffff"/>')
    return _svg(width, height, body, f"Wiring of {layout.name}")


def _short_pad_name(spot: Spot) -> str:
    owner = "WB34"[spot.owner] if spot.owner is not None else ""
    if spot.role in ("hand", "reserve"):
        return f"{owner} {spot.role} {spot.piece}"
    if spot.role == "token":
        return f"{owner} {spot.piece}"
    return spot.name[:8]


# ---------------------------------------------------------------------------------
# Bill of materials


@dataclass(frozen=True)
class PowerBudget:
    """The 5 V supply worked out from the LED count, the brightness cap and the
    electronics."""

    leds: int
    full_white_a: float
    cap: float
    led_a: float
    electronics_a: float
    load_a: float
    supply_a: int

    def explanation(self, powered: list[tuple[str, int, float, str]]) -> list[str]:
        """The arithmetic, step by step, in mA (exact: no rounding between the steps);
        ``powered`` is :func:`controller.parts.powered_parts`, whose sum the budget took."""
        full = self.leds * full_white_ma()
        capped = full * self.cap
        electronics = self.electronics_a * 1000
        load = capped + electronics
        terms = " + ".join(f"{name} {each:g} mA" if qty == 1 else f"{qty} {name} × {each:g} mA"
                           for name, qty, each, _ in powered)
        return [
            f"LEDs at full white: {self.leds} × {full_white_ma():g} mA = {full:g} mA",
            f"brightness capped at {self.cap:.0%} of full white: {full:g} mA × {self.cap:g} = "
            f"{capped:g} mA",
            f"electronics (every powered part of the list): {terms} = {electronics:.6g} mA",
            f"load: {capped:g} mA + {electronics:.6g} mA = {load:.6g} mA; × {SUPPLY_HEADROOM:g} "
            f"headroom = {load * SUPPLY_HEADROOM:.6g} mA → a 5 V {self.supply_a} A supply",
            f"uncapped full white would need {full + electronics:.6g} mA: never raise the cap "
            "above what the supply gives",
        ]


def full_white_ma() -> float:
    """One WS2812B at full white, worst case (boards/parts.toml)."""
    return float(parts.parts_catalogue()["parts"]["led"]["full_white_ma"])


def power_budget(layout: Layout, cap: float = BRIGHTNESS_CAP) -> PowerBudget:
    if not 0 < cap <= 1:
        raise ValueError(f"brightness cap must be in (0, 1], got {cap}")
    full = layout.led_count * full_white_ma() / 1000
    led = full * cap
    electronics = electronics_ma(layout) / 1000
    load = led + electronics
    need = load * SUPPLY_HEADROOM
    supply = next((s for s in SUPPLY_SIZES_A if s >= need), math.ceil(need))
    return PowerBudget(layout.led_count, full, cap, led, electronics, load, supply)


@dataclass(frozen=True)
class BomLine:
    group: str
    item: str
    quantity: int
    note: str = ""
    manufacturer: str = ""
    mpn: str = ""
    grade: str = ""
    spares: int = 0
    unit_price: float = 0.0

    @property
    def order_quantity(self) -> int:
        return self.quantity + self.spares

    @property
    def total_price(self) -> float:
        return self.order_quantity * self.unit_price


def _part(key: str, group: str, quantity: int, note: str | None = None,
          item: str | None = None) -> BomLine:
    p = parts.parts_catalogue()["parts"][key]
    spares = max(int(p.get("spare_min", 0)), math.ceil(quantity * float(p.get("spares", 0))))
    return BomLine(group, item or p["item"], quantity, p.get("note", "") if note is None
                   else note, p["manufacturer"], p["mpn"], p["grade"], spares,
                   float(p["price"]))


def gpio_needed(layout: Layout) -> tuple[int, int]:
    """(GPIO pins, of which ADC inputs) the microcontroller needs, LED data included."""
    return sensing_kind(layout).gpio_needed(layout)


@dataclass(frozen=True)
class Rail:
    """One supply path, its worst-case load and the rating of the part that carries it."""

    name: str
    load_ma: float
    rating_ma: float

    @property
    def share(self) -> float:
        return self.load_ma / self.rating_ma


def fuse_rating_a(load_a: float) -> float:
    """The smallest 0218-series fuse that carries ``load_a`` at ≤ 80 % of its rating."""
    ratings = sorted(float(r) for r in parts.parts_catalogue()["fuse-codes"])
    return next(r for r in ratings if load_a <= RAIL_LIMIT * r)


def electronics_ma(layout: Layout) -> float:
    """Everything but the LEDs on the 5 V supply (the linear regulator passes its load
    through from the 5 V rail; the Pico's 3V3 pin load is counted in full, from VSYS)."""
    on = rail_loads(layout)
    return on["5v"] + on["sensor-3v3"] + on["pico-3v3"]


def led_budget_ma(layout: Layout) -> int:
    """The host's ``leds.current_budget_ma`` for this board, rounded down to 10 mA: the
    supply carries the budget plus the electronics with 25 % to spare."""
    supply = power_budget(layout).supply_a * 1000
    return int(RAIL_LIMIT * supply - electronics_ma(layout)) // 10 * 10


def rails(layout: Layout) -> list[Rail]:
    """Every rail with its worst-case load: the LEDs at the host's current budget plus the
    sensor, chip and controller figures of the parts catalogue."""
    catalogue = parts.parts_catalogue()["parts"]
    on = rail_loads(layout)
    five = led_budget_ma(layout) + electronics_ma(layout)
    out = [Rail("5 V supply", five, power_budget(layout).supply_a * 1000),
           Rail("5 V fuse", five, fuse_rating_a(five / 1000) * 1000),
           Rail("Pico 3V3 pin (external load)", on["pico-3v3"],
                float(catalogue["controller"]["pico_3v3_rating_ma"])),
           Rail("Pico VSYS diode (1N5819)", float(catalogue["controller"]["supply_ma"]),
                float(catalogue["vsys-diode"]["rating_ma"]))]
    if on["sensor-3v3"]:
        count = regulator_count(on["sensor-3v3"])
        name = "3.3 V sensor regulator" + (f" (each of {count})"
                                            if count > 1 else "")
        out.append(Rail(name, on["sensor-3v3"] / count,
                        float(catalogue["regulator"]["rating_ma"])))
    return out


def regulator_lines(layout: Layout) -> list[str]:
    """The sensor regulators' heat, step by step from the datasheet figures (empty: none)."""
    load = rail_loads(layout)["sensor-3v3"]
    if not load:
        return []
    reg = parts.parts_catalogue()["parts"]["regulator"]
    count = regulator_count(load)
    each = load / count
    watts, allowed = regulator_dissipation_w(each), regulator_allowed_w()
    theta, tj = float(reg["theta_ja_c_per_w"]), float(reg["tj_max_c"])
    rise = watts * theta
    sot_theta = float(reg["theta_ja_sot223_c_per_w"])
    sot223 = regulator_dissipation_w(load) * sot_theta
    pico = float(parts.parts_catalogue()["parts"]["controller"]["pico_3v3_rating_ma"])
    share = f"{count} regulators, each {each:.0f} mA" if count > 1 else f"one, {each:.0f} mA"
    return [
        f"- sensor regulator ({reg['mpn']}, TO-220, no heatsink): {share}; "
        f"PD = ({SUPPLY_HIGH_V:g} V − {SENSOR_RAIL_V:g} V) × {each:.0f} mA + "
        f"{SUPPLY_HIGH_V:g} V × {float(reg['quiescent_ma']):g} mA = {watts:.2f} W; "
        f"× {theta:g} °C/W = {rise:.0f} °C above {REGULATOR_AMBIENT_C:g} °C = "
        f"{REGULATOR_AMBIENT_C + rise:.0f} °C at the junction (at most {tj:g} °C: "
        f"{allowed:.2f} W may be dissipated, {watts / allowed:.0%} of it used)",
        f"- the same load on one LM1117 in SOT-223 on perfboard ({sot_theta:g} °C/W) would rise "
        f"{sot223:.0f} °C: too hot, hence the TO-220"
        + (" and the split" if count > 1 else ""),
        f"- the sensors on the Pico's 3V3 pin instead: {load:.0f} mA against "
        f"{RAIL_LIMIT * pico:.0f} mA (80 % of the {pico:g} mA it may give): "
        + ("it would fit" if load <= RAIL_LIMIT * pico else "too much, hence a regulator"),
    ]


def supply_part(layout: Layout) -> dict[str, Any]:
    need = power_budget(layout).supply_a
    return next(s for s in parts.parts_catalogue()["supplies"] if s["rating_a"] >= need)


def bill_of_materials(layout: Layout) -> list[BomLine]:
    lines: list[BomLine] = []
    add = lines.append
    for key, qty in sensing_parts(layout):
        add(_part(key, "sensing" if key not in ("regulator", "regulator-cap") else "power",
                  qty))
    catalogue = parts.parts_catalogue()
    magnets = int(layout.kit.get("magnets", layout.cell_count))
    magnet = str(layout.kit.get("magnet", "10×1 mm neodymium disc"))
    add(_part("magnet", "pieces", magnets, item=f"Magnet: {magnet}"))
    base = layout.kit.get("piece_base_mm")
    add(BomLine("pieces", "Pieces with a Ø10 mm recess in the base for the magnet"
                + (f", base Ø{base:g} mm at most (wider bases cover the LEDs)" if base else ""),
                1, "printed, turned or bought", unit_price=0.0))
    add(_part("led", "LEDs", layout.led_count))
    add(_part("led-cap", "LEDs", layout.led_count))
    add(_part("level-shifter", "LEDs", 1))
    add(_part("bypass-chip", "LEDs", 1, item="Ceramic capacitor 100 nF at the 74AHCT125"))
    add(_part("pulldown", "LEDs", 1))
    add(_part("data-resistor", "LEDs", 1))
    add(_part("bulk-cap", "LEDs", 1))
    budget = power_budget(layout)
    supply = supply_part(layout)
    add(BomLine("power", f"5 V power supply, {budget.supply_a} A or more", 1,
                f"LED budget {led_budget_ma(layout)} mA + electronics "
                f"{electronics_ma(layout):.6g} mA ≤ {RAIL_LIMIT:.0%} of {budget.supply_a} A "
                "(see the power section)",
                supply["manufacturer"], supply["mpn"], supply["grade"], 0,
                float(supply["price"])))
    five = rails(layout)[0]
    fuse = fuse_rating_a(five.load_ma / 1000)
    code = catalogue["fuse-codes"][f"{fuse:g}"]
    line = _part("fuse", "power", 1, item=f"Fuse 5 × 20 mm, slow-blow, {fuse:g} A")
    add(BomLine(line.group, line.item, 1, line.note, line.manufacturer,
                line.mpn.format(code=code), line.grade, line.spares, line.unit_price))
    add(_part("fuse-holder", "power", 2))
    for key in POWER_INLET_PARTS:
        add(_part(key, "power", 1))
    pins, adc = gpio_needed(layout)
    add(_part("header", "controller", math.ceil((pins + 3) / 40)))
    add(_part("controller", "controller", 1,
              f"{pins} GPIO needed" + (f", {adc} of them ADC inputs" if adc else "")
              + f" (the Pico has {PICO_GPIO} GPIO, {PICO_ADC} ADC); VSYS from the 5 V rail"))
    add(_part("usb-cable", "controller", 1))
    w, h = layout.size_mm
    add(BomLine("board", f"Top plate, 3 mm plywood or MDF, {_n(w)} × {_n(h)} mm", 1,
                "sensors glued under it at the template's marks, a Ø6 mm hole over each "
                "LED", unit_price=round(w * h / 1e6 * 25, 2)))
    add(BomLine("board", f"Printed surface ({layout.name}-surface.pdf at 100 %), laminated",
                1, unit_price=5.0))
    for extra in catalogue["extras"]:
        add(BomLine("extras", extra["item"], 1, extra["quantity"],
                    unit_price=float(extra["price"])))
    return lines


def bom_total(layout: Layout) -> float:
    """Indicative price of one board's parts, spares included (EUR)."""
    return sum(line.total_price for line in bill_of_materials(layout))


def bom_csv(layout: Layout) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["group", "item", "manufacturer", "part number", "grade", "quantity",
                     "spares", "order", "unit EUR", "total EUR", "note"])
    for line in bill_of_materials(layout):
        writer.writerow([line.group, line.item, line.manufacturer, line.mpn, line.grade,
                         line.quantity, line.spares, line.order_quantity,
                         f"{line.unit_price:.2f}", f"{line.total_price:.2f}", line.note])
    return buf.getvalue()


def power_lines(layout: Layout) -> list[str]:
    """The power arithmetic and every rail's load against its rating, as Markdown lines."""
    budget = power_budget(layout)
    lines = [f"- {text}" for text in budget.explanation(powered_parts(layout))]
    lines.append(f"- the host's LED budget: {RAIL_LIMIT:.0%} of the supply minus the "
                 f"electronics ({electronics_ma(layout):.6g} mA) = {led_budget_ma(layout)} mA, "
                 f"above the capped scenes' {budget.led_a * 1000:.4g} mA")
    fet = parts.parts_catalogue()["parts"]["reverse-mosfet"]
    amps = rails(layout)[0].load_ma / 1000
    rds = 2 * float(fet["rds_on_ohm"])
    lines.append(f"- reverse-polarity MOSFET ({fet['mpn']}): ({amps:.3g} A)² × {rds:g} Ω "
                 f"(twice its typical {float(fet['rds_on_ohm']):g} Ω, for a gate at only "
                 f"−5 V) = {amps * amps * rds:.2g} W, a drop of {amps * rds * 1000:.0f} mV; a "
                 f"Schottky would drop about 0.5 V and burn {amps * 0.5:.2g} W")
    lines += regulator_lines(layout)
    lines += ["", "| rail | worst-case load | rating | share |", "|---|---:|---:|---:|"]
    for rail in rails(layout):
        lines.append(f"| {rail.name} | {rail.load_ma:.0f} mA | {rail.rating_ma:.0f} mA | "
                     f"{rail.share:.0%} |")
    if rail_loads(layout)["sensor-3v3"]:
        sensors = ("The hall sensors and their chips run from the 3.3 V regulator fed by the "
                   "5 V supply, never from the Pico's 3V3 pin (the Pico datasheet keeps that "
                   "pin's external load below 300 mA).")
    else:
        sensors = ("The reed switches draw nothing; only the matrix's pull-up networks hang "
                   "on the Pico's 3V3 pin (the Pico datasheet keeps that pin's external load "
                   "below 300 mA).")
    lines += [
        "",
        f"Every rail stays at or below {RAIL_LIMIT:.0%} of its rating. {sensors}",
        "",
        "One supply domain: the 5 V comes in through a polarised barrel jack, the fuse and a "
        "P-channel MOSFET that conducts only with the plug the right way round. The Pico's "
        "VSYS is fed from the 5 V rail through a 1N5819 (ORed with USB by the Pico's own "
        "Schottky), and a 2N7000 holds its 3V3_EN low while the 5 V rail is off, so with USB "
        "alone the Pico stays off instead of driving unpowered chips through their clamp "
        "diodes. `tests/test_supply.py` checks every way of powering the board on this "
        "netlist.",
        "",
        f"Set `leds.current_budget_ma = {led_budget_ma(layout)}` (or lower) in `config.toml`: "
        "the supply then carries the LED budget plus the electronics with 25 % to spare, and "
        "the host dims any scene that would draw more. The firmware's `MAX_BRIGHTNESS` stays "
        "255, a failsafe only; the host's `brightness` and current budget are the cap.",
        "",
        "Feed 5 V into both ends of a long LED chain (thin wires drop voltage), both from "
        "the board's one 5 V rail after the MOSFET (no second supply: one supply domain); "
        "every ground — supply, LEDs, sensors and Pico — is joined.",
    ]
    return lines


def bom_markdown(layout: Layout) -> str:
    pins, adc = gpio_needed(layout)
    lines = [
        f"# Bill of materials: {layout.name}",
        "",
        f"{layout.title}. Generated by `fairyboard board print {layout.name}` from "
        f"`boards/layouts/{layout.name}.toml` and `boards/parts.toml`; do not edit by hand. "
        "Prices are indicative (EUR, small quantities).",
        "",
        f"- Board {_n(layout.size_mm[0])} × {_n(layout.size_mm[1])} mm, "
        f"{layout.cell_count} cells + {len(layout.pad_spots)} pads = {len(layout.spots)} "
        "sensed spots",
        f"- Sensors: {layout.sensor_kind}, {_sensing_summary(layout)}",
        f"- Microcontroller pins: {pins} GPIO" + (f" ({adc} ADC)" if adc else ""),
        f"- Indicative total, spares included: {bom_total(layout):.0f} EUR",
        "",
        "| group | item | manufacturer | part number | grade | qty | spares | unit | total "
        "| note |",
        "|---|---|---|---|---|---:|---:|---:|---:|---|",
    ]
    for line in bill_of_materials(layout):
        lines.append(f"| {line.group} | {line.item} | {line.manufacturer} | {line.mpn} | "
                     f"{line.grade} | {line.quantity} | {line.spares} | "
                     f"{line.unit_price:.2f} | {line.total_price:.2f} | {line.note} |")
    lines += ["", "## Power: the LED budget and every rail", ""]
    lines += power_lines(layout)
    lines.append("")
    return "\n".join(lines)
