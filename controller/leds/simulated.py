"""The simulated LED chain: records every frame and draws the board with its LEDs.

The picture is built from the layout alone — cell and pad outlines in millimetres, each
LED a glowing dot at its mounting position (``Spot.led_mm``) — so it shows what a
builder's board would show, including where the LEDs sit.  Used by the tests, the docs
(docs/images/) and the simulated board of the service.
"""

from __future__ import annotations

import math
from collections import deque
from pathlib import Path
from xml.sax.saxutils import escape

from controller.layout import Layout
from controller.leds.chain import ChainDriver
from controller.leds.palette import RGB, LedError
from controller.leds.scene import LedFrame, dark_cells

PLATE = "#4a4440"
LIGHT = "#c9bda8"
DARK = "#8c7d6a"
PLAIN = "#b9ad98"
PAD = "#6b625a"
CAPTION_MM = 16.0


class SimulatedChain(ChainDriver):
    """A chain of ``layout.led_count`` LEDs that remembers what it was shown."""

    name = "simulated"

    def __init__(self, layout: Layout, keep: int | None = 1000):
        super().__init__(layout.led_count)
        self.layout = layout
        self.frames: deque[LedFrame] = deque(maxlen=keep)
        self.writes = 0
        #: the order in which the LED chips take the three bytes the driver sends as
        #: red, green, blue: "RGB" as designed; "GRB" emulates chips wired for another
        #: ``pixel_order`` (a bring-up fault the self-test's colour check finds)
        self.chip_order = "RGB"
        #: how the built chain differs from the guide (a ``LedChainWiring`` of the
        #: emulation: reversed, two LEDs swapped, broken, a low supply), or None
        self.wiring = None

    def seen_all(self) -> list[RGB]:
        """The colour a person sees at each LED place now (after the chips' byte order
        and the chain's wiring)."""
        out = []
        for sent in self.pixels:
            shown = dict(zip(self.chip_order, sent, strict=True))
            out.append((shown["R"], shown["G"], shown["B"]))
        return out if self.wiring is None else self.wiring.seen(out)

    def seen(self, led: int) -> RGB:
        """The colour a person sees at one LED place now."""
        return self.seen_all()[led]

    def show(self, frame: LedFrame) -> None:
        if self.closed:
            raise LedError("simulated LED chain is closed")
        if len(frame.pixels) != self.led_count:
            raise LedError(f"simulated LED chain: frame has {len(frame.pixels)} colours, "
                           f"the chain has {self.led_count} LEDs")
        self.frames.append(frame)
        self.writes += 1

    def write(self, pixels: tuple[RGB, ...]) -> None:
        self.frames.append(LedFrame.steady(pixels))
        self.writes += 1

    @property
    def last(self) -> LedFrame | None:
        return self.frames[-1] if self.frames else None

    @property
    def pixels(self) -> tuple[RGB, ...]:
        """What the chain shows now (dark before the first frame)."""
        return self.frames[-1].pixels if self.frames else ((0, 0, 0),) * self.led_count

    def svg(self, frame: LedFrame | None = None, title: str | None = None,
            gain: float = 1.0) -> str:
        return board_svg(self.layout, frame if frame is not None else
                         (self.last or LedFrame.dark(self.led_count)), title, gain)

    def png(self, path: str | Path, frame: LedFrame | None = None, title: str | None = None,
            gain: float = 1.0) -> Path:
        return write_png(self.svg(frame, title, gain), path)


def write_png(svg: str, path: str | Path, scale: float = 1.0) -> Path:
    """Render an SVG to PNG with cairosvg."""
    import cairosvg  # lazy: only pictures need it

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=str(path), scale=scale)
    return path


def _hex(c: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*c)


def _area(poly: tuple[tuple[float, float], ...]) -> float:
    return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in
                   zip(poly, poly[1:] + poly[:1], strict=True))) / 2


def glow(colour: RGB, gain: float = 1.0) -> tuple[RGB, float]:
    """Display hue (full saturation) and opacity for an LED level: a dim LED is drawn as
    a faint dot of the same hue (opacity follows perceived lightness, gamma 2.2)."""
    m = max(colour)
    if m == 0:
        return (0, 0, 0), 0.0
    hue = (round(colour[0] * 255 / m), round(colour[1] * 255 / m), round(colour[2] * 255 / m))
    return hue, min(1.0, (m / 255) ** (1 / 2.2) * gain)


def board_svg(layout: Layout, frame: LedFrame, title: str | None = None,
              gain: float = 1.0, px_per_mm: float = 2.0) -> str:
    """The board with every LED of ``frame`` (at its own time) drawn as a glow."""
    if len(frame.pixels) != layout.led_count:
        raise LedError(f"frame has {len(frame.pixels)} colours, layout {layout.name} has "
                       f"{layout.led_count} LEDs")
    w, h = layout.size_mm
    total_h = h + (CAPTION_MM if title else 0.0)

    def pt(p: tuple[float, float]) -> str:
        return f"{p[0]:.2f},{h - p[1]:.2f}"

    dark = dark_cells(layout)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * px_per_mm:.0f}" '
           f'height="{total_h * px_per_mm:.0f}" viewBox="0 0 {w:g} {total_h:g}" '
           'font-family="DejaVu Sans, sans-serif">',
           f'<rect x="0" y="0" width="{w:g}" height="{total_h:g}" fill="{PLATE}"/>']
    gradients: dict[tuple[RGB, float], str] = {}
    defs: list[str] = []
    shapes: list[str] = []
    glows: list[str] = []
    grid = layout.geometry.kind == "grid"
    for i, spot in enumerate(layout.spots):
        poly = spot.outline_mm
        size = math.sqrt(max(_area(poly), 1.0))
        if spot.kind == "cell":
            fill = (DARK if i in dark else LIGHT) if grid else PLAIN
            shapes.append(f'<polygon points="{" ".join(pt(p) for p in poly)}" fill="{fill}" '
                          'stroke="#2a2522" stroke-width="0.4"/>')
            label, fs = spot.name, min(4.0, size * 0.22)
        else:
            shapes.append(f'<polygon points="{" ".join(pt(p) for p in poly)}" fill="{PAD}" '
                          'stroke="#2a2522" stroke-width="0.4"/>')
            label, fs = spot.name.replace("option-", "opt ").replace("-", " "), 3.6
        cx, cy = spot.centre_mm
        shapes.append(f'<text x="{cx:.2f}" y="{h - cy + size * 0.32:.2f}" font-size="{fs:.2f}" '
                      f'text-anchor="middle" fill="#000" fill-opacity="0.5">'
                      f'{escape(label)}</text>')
        led = spot.led
        colour = frame.pixels[led]
        lx, ly = spot.led_mm
        hue, alpha = glow(colour, gain)
        radius = min(size * 0.42, 15.0)
        if alpha > 0:
            key = (hue, round(alpha, 3))
            gid = gradients.get(key)
            if gid is None:
                gid = gradients[key] = f"g{len(gradients)}"
                defs.append(f'<radialGradient id="{gid}"><stop offset="0" stop-color="{_hex(hue)}" '
                            f'stop-opacity="{alpha:.3f}"/><stop offset="0.35" '
                            f'stop-color="{_hex(hue)}" stop-opacity="{alpha * 0.55:.3f}"/>'
                            f'<stop offset="1" stop-color="{_hex(hue)}" stop-opacity="0"/>'
                            '</radialGradient>')
            core = tuple(round(c + (255 - c) * 0.6 * alpha) for c in hue)
            glows.append(f'<circle cx="{lx:.2f}" cy="{h - ly:.2f}" r="{radius:.2f}" '
                         f'fill="url(#{gid})"/>')
            glows.append(f'<circle cx="{lx:.2f}" cy="{h - ly:.2f}" r="2.2" '
                         f'fill="{_hex(core)}" fill-opacity="{max(alpha, 0.35):.3f}"/>')  # type: ignore[arg-type]
        else:
            glows.append(f'<circle cx="{lx:.2f}" cy="{h - ly:.2f}" r="1.4" fill="#1c1917" '
                         'fill-opacity="0.7"/>')
        if frame.blinks[led] is not None:
            ring = frame.base[led] if max(frame.base[led]) else frame.alt[led]
            rhue, _ = glow(ring)
            glows.append(f'<circle cx="{lx:.2f}" cy="{h - ly:.2f}" r="{radius * 0.5:.2f}" '
                         f'fill="none" stroke="{_hex(rhue)}" stroke-width="0.7" '
                         'stroke-dasharray="2 1.6"/>')
    if defs:
        out.append("<defs>" + "".join(defs) + "</defs>")
    out += shapes + glows
    if title:
        out.append(f'<text x="{w / 2:g}" y="{h + CAPTION_MM * 0.65:.2f}" font-size="7" '
                   f'text-anchor="middle" fill="#eee">{escape(title)}</text>')
    out.append("</svg>")
    return "\n".join(out)
