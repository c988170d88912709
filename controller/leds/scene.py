"""The LED scene: what every LED of the chain shows for the current :class:`Interaction`.

Pure: ``(layout, interaction, time, palette, settings) -> LedFrame``; no I/O, no clock
(the caller passes the time).  Blinking is generated here and only here:
:meth:`LedFrame.at` evaluates every LED's :class:`Blink` pattern at a time, so drivers and
the microcontroller only ever receive plain colours.  All blinks run on the same clock,
so LEDs with the same pattern blink in step.

Layers, lowest first (a later layer wins on a spot that is in several sets):

1. fog of war: cells visible to the viewer glow faintly;
2. pieces' owners (multi-player colours), dim;
3. last move;  4. the opponent's visible pieces;  5. check (heartbeat);
6. active pads (breathing);  7. legal targets (alternating with the enemy colour on a
   visible enemy piece);  8. origins;  9. move to execute (from steady, to blinking);
10. choice options;  11. pieces to remove (blinking);  12. missing (steady) and extra
(blinking) pieces;  13. the guided spot (fast blink);  14. the height count;
15. outside fog of war, cells with nothing else to show glow at ``dark_level``.

Then hidden information is masked (see :func:`allowed_spots`, the rule of
:mod:`controller.sight`), colours are dimmed (global
brightness, dark squares) and capped to the current budget.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from controller.interaction import Interaction
from controller.layout import Layout
from controller.leds.palette import OFF, RGB, LedError, LedSettings, Palette, current_ma
from controller.sight import viewer_spots


@dataclass(frozen=True)
class Blink:
    """A looping on/off pattern: ``steps`` are ``(on, seconds)``; off shows the alt colour."""

    name: str
    steps: tuple[tuple[bool, float], ...]

    def __post_init__(self) -> None:
        if not self.steps or any(d <= 0 for _, d in self.steps):
            raise LedError(f"blink {self.name!r}: steps need positive durations")

    @property
    def period(self) -> float:
        return sum(d for _, d in self.steps)

    def on(self, t: float) -> bool:
        """Whether the pattern is in an on step at time ``t`` (seconds, any origin)."""
        phase = t % self.period
        for state, d in self.steps:
            if phase < d:
                return state
            phase -= d
        return self.steps[-1][0]  # float rounding at the very end of the period

    def next_edge(self, t: float) -> float | None:
        """The first time after ``t`` at which :meth:`on` changes (None: never changes)."""
        if all(s == self.steps[0][0] for s, _ in self.steps):
            return None
        period = self.period
        start = t - t % period
        state = self.on(t)
        edge = start
        for _ in range(3):  # at most two periods ahead
            for s, d in self.steps:
                if edge > t and s != state:
                    return edge
                edge += d
        return None  # pragma: no cover - unreachable for a pattern with two states

    def on_count(self) -> int:
        """Number of flashes per period (consecutive on steps count once)."""
        count, prev = 0, self.steps[-1][0]
        for s, _ in self.steps:
            if s and not prev:
                count += 1
            prev = s
        return count or (1 if self.steps[0][0] else 0)


#: the patterns of the colour language
SLOW = Blink("slow", ((True, 0.5), (False, 0.5)))
FAST = Blink("fast", ((True, 0.15), (False, 0.15)))
HEARTBEAT = Blink("heartbeat", ((True, 0.12), (False, 0.12), (True, 0.12), (False, 0.64)))
BREATHE = Blink("breathe", ((True, 1.0), (False, 1.0)))
#: height count: one flash per stone, then a pause
COUNT_ON, COUNT_OFF, COUNT_PAUSE = 0.2, 0.25, 1.0


def count_blink(n: int) -> Blink:
    """``n`` flashes (0.2 s on, 0.25 s off) then a 1 s pause: the height of a Tower."""
    if n < 1:
        raise LedError(f"height_display: height must be 1 or more, got {n}")
    steps: list[tuple[bool, float]] = []
    for _ in range(n):
        steps += [(True, COUNT_ON), (False, COUNT_OFF)]
    steps[-1] = (False, COUNT_OFF + COUNT_PAUSE)
    return Blink(f"count{n}", tuple(steps))


@dataclass(frozen=True)
class LedFrame:
    """Colours for every LED of the chain (index = chain position).

    ``base`` is shown in a pattern's on steps and by steady LEDs, ``alt`` in off steps;
    ``pixels`` is what the chain shows at ``time``.  ``roles`` names what each LED shows
    ("" = dark) for the web page and the tests.  Brightness and the current cap are
    already applied: a driver sends ``pixels`` as they are.
    """

    base: tuple[RGB, ...]
    alt: tuple[RGB, ...]
    blinks: tuple[Blink | None, ...]
    roles: tuple[str, ...]
    time: float = 0.0
    pixels: tuple[RGB, ...] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.base)
        if not (len(self.alt) == len(self.blinks) == len(self.roles) == n):
            raise LedError("LedFrame: base, alt, blinks and roles must have one entry per LED")
        t = self.time
        pixels = tuple(b if k is None or k.on(t) else a
                       for b, a, k in zip(self.base, self.alt, self.blinks, strict=True))
        object.__setattr__(self, "pixels", pixels)

    @classmethod
    def steady(cls, pixels: Iterable[RGB], role: str = "") -> LedFrame:
        """A frame of fixed colours (tests, blanking, drivers' self-test)."""
        p = tuple(tuple(c) for c in pixels)
        return cls(p, p, (None,) * len(p), ((role,) if role else ("",)) * len(p))  # type: ignore[arg-type]

    @classmethod
    def dark(cls, led_count: int) -> LedFrame:
        return cls.steady([OFF] * led_count)

    def __len__(self) -> int:
        return len(self.base)

    def at(self, t: float) -> LedFrame:
        """The same scene at another time: only blinking LEDs change."""
        return LedFrame(self.base, self.alt, self.blinks, self.roles, t)

    def next_change(self, t: float | None = None) -> float | None:
        """When the pixels next change (the next blink edge after ``t``), or None."""
        t = self.time if t is None else t
        edges = [e for k in set(self.blinks) if k is not None
                 and (e := k.next_edge(t)) is not None]
        return min(edges) if edges else None

    def peak(self) -> tuple[RGB, ...]:
        """Per LED and channel the highest level over all blink phases (for power)."""
        return tuple((max(b[0], a[0]), max(b[1], a[1]), max(b[2], a[2]))
                     for b, a in zip(self.base, self.alt, strict=True))


def dark_cells(layout: Layout) -> frozenset[int]:
    """Cells printed dark: on grid boards a1 and every cell of its colour."""
    g = layout.geometry
    if g.kind != "grid":
        return frozenset()
    return frozenset(c for c in range(len(g.cells)) if sum(g.coords(c)) % 2 == 0)


def allowed_spots(layout: Layout, interaction: Interaction) -> frozenset[int] | None:
    """Spots that may show anything to the viewer; None when nothing is hidden.

    With a ``viewer`` and a ``visible`` set: :func:`controller.sight.viewer_spots` of the
    visible cells and the viewer's own pieces (``owners``) — every pad included."""
    if interaction.viewer is None or interaction.visible is None:
        return None
    own = {s for s, p in interaction.owners.items() if p == interaction.viewer}
    return viewer_spots(set(interaction.visible) | own, layout.cell_count, len(layout.spots))


class SceneRenderer:
    """Renders interactions for one layout with one palette and one set of settings
    (fixed for the renderer's life: another palette or brightness = a new renderer)."""

    def __init__(self, layout: Layout, palette: Palette | None = None,
                 settings: LedSettings | None = None):
        self.layout = layout
        self._palette = palette or Palette()
        self._settings = settings or LedSettings()
        self._settings.check_chain(layout.led_count)
        n = len(layout.spots)
        if layout.led_count != n:
            raise LedError(f"layout {layout.name}: {layout.led_count} LEDs for {n} spots")
        self.spot_count = n
        self.spot_at_led = layout.led_spots()
        self._last: tuple[Interaction, LedFrame] | None = None
        dark = dark_cells(layout)
        s = self.settings
        self.scale = tuple(s.brightness * (s.dark_square_level if i in dark else 1.0)
                           for i in range(n))
        self._dim: dict[tuple[RGB, float], RGB] = {}

    @property
    def palette(self) -> Palette:
        return self._palette

    @property
    def settings(self) -> LedSettings:
        return self._settings

    # -- layers ----------------------------------------------------------------------
    def _check(self, name: str, spots: Iterable[int]) -> None:
        n = self.spot_count
        for s in spots:
            if not (isinstance(s, int) and 0 <= s < n):
                raise LedError(f"interaction.{name}: spot {s!r} is not on layout "
                               f"{self.layout.name} (spots 0..{n - 1})")

    def layers(self, it: Interaction) -> tuple[list[str], list[RGB], list[RGB],
                                                list[Blink | None]]:
        """Role, base colour, alt colour and blink per *spot*, before dimming."""
        p = self.palette
        n = self.spot_count
        role = [""] * n
        base: list[RGB] = [OFF] * n
        alt: list[RGB] = [OFF] * n
        blink: list[Blink | None] = [None] * n

        def put(spots: Iterable[int], name: str, colour: RGB, pattern: Blink | None = None,
                other: RGB = OFF) -> None:
            for s in spots:
                role[s], base[s], blink[s] = name, colour, pattern
                alt[s] = colour if pattern is None else other

        for name in ("origins", "targets", "missing", "extra", "to_remove", "execute_from",
                     "execute_to", "last_move", "check", "enemy_visible", "active_pads",
                     "low_time", "hint_from", "hint_to"):
            self._check(name, getattr(it, name))
        self._check("owners", it.owners)
        self._check("options", (o.spot for o in it.options))
        if it.guide is not None:
            self._check("guide", (it.guide,))
        if it.visible is not None:
            self._check("visible", it.visible)

        fogged = it.viewer is not None and it.visible is not None
        if fogged:
            put((s for s in it.visible if s < self.layout.cell_count), "visible", p.visible)
        for s, player in it.owners.items():
            put((s,), "owner", _scaled(p.player(player), p.owner_level))
        if it.mover is not None:  # short of time: the mover's royal pieces breathe
            put(it.low_time, "low_time", p.player(it.mover), BREATHE,
                _scaled(p.player(it.mover), p.owner_level))
        put(it.last_move, "last_move", p.last_move)
        put(it.enemy_visible, "enemy", p.enemy)
        put(it.check, "check", p.check, HEARTBEAT)
        put(it.hint_from, "hint", p.hint, SLOW)
        put(it.hint_to, "hint", p.hint, SLOW)
        put(it.active_pads, "active", p.active, BREATHE, _scaled(p.active, p.active_low))
        for s in it.targets:
            if s in it.enemy_visible:  # a capture of a piece shown only by its LED
                put((s,), "target", p.target, SLOW, p.enemy)
            else:
                put((s,), "target", p.target)
        put(it.origins, "origin", p.origin)
        put(it.execute_from, "execute_from", p.execute)
        put(it.execute_to, "execute_to", p.execute, SLOW)
        for o in it.options:
            put((o.spot,), f"option{o.slot + 1}", p.option(o.slot))
        put(it.to_remove, "remove", p.remove, SLOW)
        put(it.missing, "missing", p.missing)
        put(it.extra, "extra", p.extra, SLOW)
        if it.guide is not None:
            g = it.guide
            if g in it.missing:
                put((g,), "guide_missing", p.missing, FAST)
            elif g in it.extra:
                put((g,), "guide_extra", p.extra, FAST)
            elif g in it.to_remove:
                put((g,), "guide_remove", p.remove, FAST)
            else:
                put((g,), "guide", base[g] if role[g] else p.missing, FAST)
        if it.height_display is not None:
            cell, height = it.height_display
            self._check("height_display", (cell,))
            put((cell,), "height", p.height, count_blink(height))

        if fogged:
            allowed = allowed_spots(self.layout, it)
            assert allowed is not None
            for s in range(self.layout.cell_count):
                if s in allowed:
                    continue
                # Only the viewer's own physical stray piece may show: every piece on a
                # fog cell of the viewer's board is extra whatever the hidden position is.
                if s in it.extra:
                    put((s,), "extra", p.extra, FAST if it.guide == s else SLOW)
                else:
                    put((s,), "", OFF)
        elif self.settings.dark_level > 0:
            # a faint glow on idle cells (never in fog: there dark means hidden)
            ambient = _scaled(p.ambient, self.settings.dark_level)
            put((s for s in range(self.layout.cell_count) if not role[s]), "ambient", ambient)
        return role, base, alt, blink

    # -- output ----------------------------------------------------------------------
    def render(self, interaction: Interaction, t: float = 0.0) -> LedFrame:
        """The frame for ``interaction`` at time ``t`` (seconds on any steady clock).

        The last scene is kept: rendering the same interaction again (a loop calling this
        on every poll) only re-evaluates the blinking, about 20 times cheaper."""
        last = self._last
        if last is not None and (interaction is last[0] or interaction == last[0]):
            return last[1].at(t)
        frame = self._render(interaction, t)
        self._last = (interaction, frame)
        return frame

    def _dimmed(self, colour: RGB, f: float) -> RGB:
        """``colour`` at level ``f`` (brightness × the cell's own level), rounded: kept per
        colour and level — a scene has a handful of colours on ~100 LEDs."""
        try:
            q = self._dim.get((colour, f))
        except TypeError:  # a colour given as a list (a palette built by hand)
            return _round(_mul(colour, f))
        if q is None:
            q = self._dim[(colour, f)] = _round(_mul(colour, f))
        return q

    def _render(self, interaction: Interaction, t: float) -> LedFrame:
        role, base, alt, blink = self.layers(interaction)
        n = self.spot_count
        scale = self.scale
        dimmed = self._dimmed
        qb = [dimmed(base[s], scale[s]) for s in range(n)]
        qa = [b if alt[s] is base[s] else dimmed(alt[s], scale[s])
              for s, b in enumerate(qb)]
        s = self.settings
        if s.budget_ma is not None:
            peak = [b if b is a or b == a else (max(b[0], a[0]), max(b[1], a[1]),
                                                max(b[2], a[2]))
                    for b, a in zip(qb, qa, strict=True)]
            if current_ma(peak, s) > s.budget_ma:  # type: ignore[arg-type]
                hb = [_mul(base[s], scale[s]) for s in range(n)]
                ha = [_mul(alt[s], scale[s]) for s in range(n)]
                raw = sum(max(x, y) for b, a in zip(hb, ha, strict=True)
                          for x, y in zip(b, a, strict=True))
                room = (s.budget_ma - s.idle_current(n)) * 255.0 / s.ma_per_channel
                f = room / raw * (1.0 - 1e-9)
                qb = [_floor(c, f) for c in hb]
                qa = [_floor(c, f) for c in ha]
        leds = self.spot_at_led
        return LedFrame(tuple(qb[i] for i in leds), tuple(qa[i] for i in leds),
                        tuple(blink[i] for i in leds), tuple(role[i] for i in leds), t)


def render_scene(layout: Layout, interaction: Interaction, t: float = 0.0,
                 palette: Palette | None = None,
                 settings: LedSettings | None = None) -> LedFrame:
    """One-shot form of :meth:`SceneRenderer.render`."""
    return SceneRenderer(layout, palette, settings).render(interaction, t)


def _scaled(c: RGB, f: float) -> RGB:
    return (_r(c[0] * f), _r(c[1] * f), _r(c[2] * f))


def _r(x: float) -> int:
    return int(x + 0.5)


def _mul(c: RGB, f: float) -> tuple[float, float, float]:
    return (c[0] * f, c[1] * f, c[2] * f)


def _round(c: tuple[float, float, float]) -> RGB:
    return (min(255, _r(c[0])), min(255, _r(c[1])), min(255, _r(c[2])))


def _floor(c: tuple[float, float, float], f: float) -> RGB:
    return (math.floor(c[0] * f), math.floor(c[1] * f), math.floor(c[2] * f))
