"""The colour language of the board's LEDs and the knobs that dim them.

One :class:`Palette` serves every game: each *role* (legal target, origin, missing piece,
…) has one colour, and the service fills the palette from the ``[leds.palette]`` table of
its TOML configuration (role name -> ``[r, g, b]`` or ``"#rrggbb"``).  Colours are raw
LED levels at full brightness (0–255 per channel, linear in light output, as the
WS2812 receives them); :class:`LedSettings` holds the global brightness, the dimming of
LEDs under dark squares and the current budget that the renderer enforces.

Defaults are chosen so that the colours that appear together differ in lightness or on
the blue–yellow axis — the two cues that protanopes and deuteranopes keep — and where a
pair cannot be separated by colour alone (an extra piece vs a legal target) the blink
pattern separates it.  :func:`colour_difference` measures this (CIE76 ΔE after a
Machado-2009 simulation) and the tests hold the defaults to it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

RGB = tuple[int, int, int]
OFF: RGB = (0, 0, 0)


class LedError(ValueError):
    """A bad LED configuration, frame or driver set-up; the message names the problem."""


def parse_colour(value: Any, where: str = "colour") -> RGB:
    """``[r, g, b]`` (0–255 each) or ``"#rrggbb"`` -> an RGB tuple."""
    if isinstance(value, str):
        text = value.strip()
        if len(text) == 7 and text[0] == "#":
            try:
                return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16))
            except ValueError:
                pass
        raise LedError(f"{where}: expected [r, g, b] or \"#rrggbb\", got {value!r}")
    if (isinstance(value, Sequence) and len(value) == 3
            and all(isinstance(c, int) and not isinstance(c, bool) for c in value)):
        if all(0 <= c <= 255 for c in value):
            return (value[0], value[1], value[2])
        raise LedError(f"{where}: channels must be 0..255, got {list(value)!r}")
    raise LedError(f"{where}: expected [r, g, b] or \"#rrggbb\", got {value!r}")


#: LED colours of the players, by the names the games use (``Game.player_names``).
PLAYER_COLOURS: dict[str, RGB] = {
    "White": (255, 200, 130),
    "Black": (110, 0, 255),
    "Red": (255, 20, 0),
    "Green": (0, 230, 40),
}

#: roles whose colour is a single RGB field of :class:`Palette`, in documentation order
ROLES = (
    "target", "origin", "last_move", "check", "missing", "extra", "remove", "execute",
    "visible", "enemy", "active", "height", "ambient", "hint",
)


@dataclass(frozen=True)
class Palette:
    """Role -> colour.  Raw levels at brightness 1; the renderer dims them."""

    target: RGB = (0, 90, 255)          #: legal target of the lifted piece — blue
    origin: RGB = (255, 170, 0)         #: the lifted / selected piece's cell — amber
    last_move: RGB = (110, 80, 40)      #: origin and target of the last move — dim warm
    check: RGB = (255, 0, 0)            #: King in check — red, heartbeat
    missing: RGB = (255, 0, 0)          #: a piece belongs here — red, steady
    extra: RGB = (255, 0, 190)          #: no piece belongs here — magenta, blinking
    remove: RGB = (255, 0, 190)         #: take this piece off (bypass victim) — magenta, blinking
    execute: RGB = (255, 255, 255)      #: a move to execute (opponent / computer) — white
    visible: RGB = (40, 40, 40)         #: fog of war: a cell visible to you — faint white
    enemy: RGB = (0, 220, 170)          #: fog of war: the opponent's visible piece — teal
    active: RGB = (0, 255, 60)          #: an active pad (a token may be used) — green, breathing
    height: RGB = (255, 255, 255)       #: Tower / stack height count — white flashes
    ambient: RGB = (255, 255, 255)      #: cells with nothing to show, at ``dark_level``
    hint: RGB = (150, 255, 0)           #: a suggested move (hint, coach) — lime, blinking
    #: choice options by slot; the pads are numbered too, so the number never depends on colour
    options: tuple[RGB, ...] = (
        (0, 220, 170), (255, 170, 0), (255, 0, 190), (255, 0, 0), (0, 90, 255),
        (255, 255, 255),
    )
    #: colour per player name; ``player_names`` picks the order of the game being played
    player_colours: tuple[tuple[str, RGB], ...] = tuple(PLAYER_COLOURS.items())
    player_names: tuple[str, ...] = ("White", "Black")
    #: pieces' owners are a background: their colour at this fraction
    owner_level: float = 0.2
    #: a breathing active pad falls to this fraction between pulses
    active_low: float = 0.25

    def __post_init__(self) -> None:
        for role in ROLES:
            parse_colour(getattr(self, role), f"palette.{role}")
        if not self.options:
            raise LedError("palette.options: at least one option colour is needed")
        for k, c in enumerate(self.options):
            parse_colour(c, f"palette.options[{k}]")
        names = dict(self.player_colours)
        for k, name in enumerate(self.player_names):
            if name not in names:
                raise LedError(f"palette: no colour for player {name!r} (player {k}); known: "
                               f"{', '.join(names)}")
        for name in ("owner_level", "active_low"):
            v = getattr(self, name)
            if not (isinstance(v, int | float) and 0.0 <= v <= 1.0):
                raise LedError(f"palette.{name} must be between 0 and 1, got {v!r}")

    def player(self, index: int) -> RGB:
        """Colour of player ``index`` (0 = first player of the game)."""
        if not 0 <= index < len(self.player_names):
            raise LedError(f"no player {index}: the palette knows players "
                           f"0..{len(self.player_names) - 1} ({', '.join(self.player_names)})")
        return dict(self.player_colours)[self.player_names[index]]

    def option(self, slot: int) -> RGB:
        """Colour of option slot ``slot`` (wraps around: more options than colours repeat)."""
        if slot < 0:
            raise LedError(f"option slot must be 0 or more, got {slot}")
        return self.options[slot % len(self.options)]

    def for_players(self, names: Sequence[str]) -> Palette:
        """The same palette with the player order of a game (``game.player_names``)."""
        return replace(self, player_names=tuple(names))

    @classmethod
    def from_config(cls, data: Mapping[str, Any] | None) -> Palette:
        """Build from a ``[leds.palette]`` table: role -> colour; ``options`` -> list of
        colours or ``option1`` … -> one slot; ``players`` -> table of name -> colour or
        ``player_<name>`` -> one player; ``owner_level`` / ``active_low`` -> fractions."""
        data = dict(data or {})
        kwargs: dict[str, Any] = {}
        known = set(ROLES) | {"options", "players", "owner_level", "active_low"}
        # flat forms for a plain name -> [r, g, b] table: option1.., player_<name>
        slots: dict[int, RGB] = {}
        players: dict[str, RGB] = {}
        for key in [k for k in data if k not in known]:
            low = str(key).lower()
            if low.startswith("option") and low[6:].isdigit() and int(low[6:]) >= 1:
                slots[int(low[6:]) - 1] = parse_colour(data.pop(key), f"leds.palette.{key}")
            elif low.startswith("player_") and len(low) > 7:
                name = next((n for n in PLAYER_COLOURS if n.lower() == low[7:]), low[7:].title())
                players[name] = parse_colour(data.pop(key), f"leds.palette.{key}")
        unknown = sorted(set(data) - known)
        if unknown:
            raise LedError(f"leds.palette: unknown name {unknown[0]!r} (known: "
                           f"{', '.join(sorted(known))}, option1.., player_<name>)")
        for role in ROLES:
            if role in data:
                kwargs[role] = parse_colour(data[role], f"leds.palette.{role}")
        if "options" in data:
            opts = data["options"]
            if not isinstance(opts, list) or not opts:
                raise LedError("leds.palette.options: expected a non-empty list of colours")
            kwargs["options"] = tuple(parse_colour(c, f"leds.palette.options[{k}]")
                                      for k, c in enumerate(opts))
        if slots:
            options = list(kwargs.get("options", cls.options))
            for k in sorted(slots):
                if k > len(options):
                    raise LedError(f"leds.palette.option{k + 1}: options are numbered "
                                   f"1..{len(options) + 1}")
                if k == len(options):
                    options.append(slots[k])
                else:
                    options[k] = slots[k]
            kwargs["options"] = tuple(options)
        if "players" in data or players:
            table = data.get("players", {})
            if not isinstance(table, Mapping):
                raise LedError("leds.palette.players: expected a table of name = colour")
            merged = dict(PLAYER_COLOURS)
            for name, c in table.items():
                merged[str(name)] = parse_colour(c, f"leds.palette.players.{name}")
            merged.update(players)
            kwargs["player_colours"] = tuple(merged.items())
        for name in ("owner_level", "active_low"):
            if name in data:
                kwargs[name] = data[name]
        return cls(**kwargs)

    def swatches(self) -> list[tuple[str, RGB]]:
        """(name, colour) of every role and option slot, for the docs and the web page."""
        out = [(role, getattr(self, role)) for role in ROLES]
        out += [(f"option {k + 1}", c) for k, c in enumerate(self.options)]
        out += [(f"player {name}", c) for name, c in self.player_colours]
        return out


@dataclass(frozen=True)
class LedSettings:
    """How bright, and how much current the chain may draw.

    Power model (WS2812B at 5 V): a channel at level ``v`` draws ``v / 255 ×
    ma_per_channel`` (20 mA at 255), plus ``idle_ma`` (about 1 mA) per LED whatever it
    shows.  ``budget_ma`` is the supply's share for the LEDs; ``None`` disables the cap.
    """

    brightness: float = 0.25          #: global, 0–1; 0.25 is plenty indoors and not blinding
    dark_square_level: float = 1.0    #: extra factor for LEDs under dark squares (grids)
    #: cells with nothing to show glow at this fraction of ``Palette.ambient`` (0 = off)
    dark_level: float = 0.0
    budget_ma: float | None = 2000.0  #: current budget of the chain in mA (None = no cap)
    ma_per_channel: float = 20.0
    idle_ma: float = 1.0
    max_fps: float = 30.0             #: LED writes per second at most

    def __post_init__(self) -> None:
        for name in ("brightness", "dark_square_level", "dark_level"):
            v = getattr(self, name)
            if not (isinstance(v, int | float) and not isinstance(v, bool) and 0.0 <= v <= 1.0):
                raise LedError(f"leds.{name} must be between 0 and 1, got {v!r}")
        for name in ("ma_per_channel", "idle_ma"):
            v = getattr(self, name)
            if not (isinstance(v, int | float) and not isinstance(v, bool) and v >= 0
                    and math.isfinite(v)):
                raise LedError(f"leds.{name} must be a number of mA, 0 or more, got {v!r}")
        if self.budget_ma is not None and not (
                isinstance(self.budget_ma, int | float) and not isinstance(self.budget_ma, bool)
                and self.budget_ma > 0 and math.isfinite(self.budget_ma)):
            raise LedError(f"leds.budget_ma must be a positive number of mA, got "
                           f"{self.budget_ma!r}")
        if not (isinstance(self.max_fps, int | float) and not isinstance(self.max_fps, bool)
                and self.max_fps > 0 and math.isfinite(self.max_fps)):
            raise LedError(f"leds.max_fps must be a positive number, got {self.max_fps!r}")

    @classmethod
    def from_config(cls, data: Mapping[str, Any] | None) -> LedSettings:
        """Build from the ``[leds]`` table (other keys there — driver, palette — are ignored)."""
        data = data or {}
        kwargs = {f.name: data[f.name] for f in fields(cls) if f.name in data}
        if "budget_ma" in kwargs and kwargs["budget_ma"] in (0, "none", "off"):
            kwargs["budget_ma"] = None
        return cls(**kwargs)

    def idle_current(self, led_count: int) -> float:
        """mA the chain draws with every LED dark."""
        return led_count * self.idle_ma

    def check_chain(self, led_count: int) -> None:
        """Refuse a budget the chain cannot meet even when dark."""
        if self.budget_ma is not None and self.budget_ma < self.idle_current(led_count):
            raise LedError(f"leds.budget_ma {self.budget_ma:g} mA is below the idle draw of "
                           f"{led_count} LEDs ({self.idle_current(led_count):g} mA at "
                           f"{self.idle_ma:g} mA each)")


def current_ma(pixels: Sequence[RGB], settings: LedSettings) -> float:
    """Current the chain draws showing ``pixels`` under the power model of :class:`LedSettings`."""
    total = sum(r + g + b for r, g, b in pixels)
    return total * settings.ma_per_channel / 255.0 + len(pixels) * settings.idle_ma


# ---------------------------------------------------------------------------------
# Colour-vision check: how different two LED colours look to a given viewer.

#: Machado, Oliveira & Fernandes 2009, severity 1.0, on linear RGB
_CVD = {
    "normal": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "protan": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
               (-0.003882, -0.048116, 1.051998)),
    "deutan": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
               (-0.011820, 0.042940, 0.968881)),
    "tritan": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
               (0.004733, 0.691367, 0.303900)),
}
VISIONS = tuple(_CVD)


def _lab(rgb: RGB, vision: str) -> tuple[float, float, float]:
    m = _CVD[vision]
    lin = [c / 255.0 for c in rgb]  # LED PWM levels are linear in light
    s = [min(1.0, max(0.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3)]
    x = (0.4124 * s[0] + 0.3576 * s[1] + 0.1805 * s[2]) / 0.95047
    y = 0.2126 * s[0] + 0.7152 * s[1] + 0.0722 * s[2]
    z = (0.0193 * s[0] + 0.1192 * s[1] + 0.9505 * s[2]) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def colour_difference(a: RGB, b: RGB, vision: str = "normal") -> float:
    """CIE76 ΔE between two LED colours as seen with ``vision`` (normal, protan, deutan,
    tritan).  About 10 is "noticeably different side by side", 30+ is "another colour"."""
    if vision not in _CVD:
        raise LedError(f"unknown vision {vision!r} (one of {', '.join(VISIONS)})")
    return math.dist(_lab(a, vision), _lab(b, vision))
