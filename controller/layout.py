"""Printed board layouts: where every cell and pad lies in millimetres, which sensor reads it
and which LED lights it.

A layout file (``boards/layouts/<name>.toml``) names a board *shape* and never repeats its
geometry: cell centres and outlines in millimetres are the shape's abstract coordinates
times ``scale_mm`` plus ``origin_mm``.  The wiring of the cells is given by a compact rule
where it is regular (``matrix-by-rank``, ``serpentine-by-rank``, …) plus an explicit table
for the cells a rule cannot reach; every pad is listed with its position, sensor and LED.
After compilation every spot (cells first in geometry order, then pads) carries an explicit
sensor address and LED index, and the whole is validated: every spot wired exactly once,
no sensor address shared, LED indices ``0..led_count-1`` each used once, matrix/chain/channel
limits respected, cells and pads on the board and apart, every pad each served game needs.

Millimetre coordinates have their origin at the lower-left corner of the board (White's
left), x to the right, y toward Black — the same orientation as the shape coordinates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from controller.geometry import BOARDS_DIR, Geometry, GeometryError, load_shape, read_toml
from controller.sensing.kinds import SENSING_KINDS, SensingKind, SensorWiring

LAYOUTS_DIR = BOARDS_DIR / "layouts"

Point = tuple[float, float]

#: the sensing kinds' names (one home: ``controller/sensing/kinds.py``)
SENSINGS = tuple(SENSING_KINDS)
SENSOR_KINDS = ("reed", "digital-hall", "linear-hall")
PAD_ROLES = ("token", "hand", "reserve", "option", "die")
#: roles whose pad belongs to one player / holds one piece kind
OWNED_ROLES = ("token", "hand", "reserve")
PIECE_ROLES = ("hand", "reserve")
#: a token pad's ``token`` names one of a game's off-board tokens (``Game.tokens``); the
#: sensors see it occupied while its owner holds that token
TOKEN_ROLE = "token"

#: fewest option pads a game needs to offer every choice from the board alone
#: (promotion to Q R B N, split sizes, confirm): four covers the largest menu; more pads
#: just page less.
MIN_OPTION_PADS = 4

#: a WS2812B (5050 package) is 5 mm square; it must lie wholly under its spot
LED_FOOTPRINT_MM = 5.0
#: sensor bodies as they lie under the plate (width along x, height along y): a reed's
#: glass lies along x, a TO-92 hall sensor lies flat
SENSOR_BODY_MM = {"reed": (14.0, 2.4), "digital-hall": (4.5, 3.0), "linear-hall": (4.5, 3.0)}
#: an LED placed beside the piece keeps this much from the piece's base, the spot's
#: outline and the sensor's body
LED_CLEARANCE_MM = 1.0

#: LED chain rules for the cells
LED_RULES = ("serpentine-by-rank", "in-order")
#: sensor rules per sensing kind (each kind's ``rules``)
SENSOR_RULES = {name: kind.rules for name, kind in SENSING_KINDS.items()}


class LayoutError(ValueError):
    """A layout file is malformed; the message names the file, the entry and the problem."""


@dataclass(frozen=True)
class Spot:
    """One sensed place: a cell of the shape or an off-board pad.

    ``role`` / ``owner`` / ``piece`` are ``None`` for cells; ``piece`` is what a pad
    holds: the piece kind of a hand or reserve pad, the token's name of a token pad;
    ``sensor_mm`` and ``led_mm`` are where the sensor and the LED sit (the drilling
    template marks them)."""

    name: str
    kind: str
    role: str | None
    owner: int | None
    piece: str | None
    centre_mm: Point
    outline_mm: tuple[Point, ...]
    sensor: SensorWiring
    led: int
    sensor_mm: Point = (0.0, 0.0)
    led_mm: Point = (0.0, 0.0)


@dataclass(frozen=True, eq=False)
class Layout:
    """A compiled printed board.  ``spots[i]`` for ``i < len(geometry)`` is cell ``i``."""

    name: str
    title: str
    shape: str
    geometry: Geometry
    spots: tuple[Spot, ...]
    sensing: str
    sensor_kind: str
    matrix_rows: int
    matrix_columns: int
    chain_length: int
    led_count: int
    games: tuple[str, ...]
    size_mm: tuple[float, float]
    scale_mm: float = 1.0
    origin_mm: Point = (0.0, 0.0)
    channel_count: int = 0
    #: the rules used in the file, kept for the wiring diagram and the build guide
    sensor_rule: str = "explicit"
    led_rule: str = "explicit"
    notes: str = ""
    path: Path | None = None
    #: kit facts for the bill of materials: ``magnets`` (count), ``magnet`` (size text),
    #: ``piece_base_mm`` (the widest piece base: no LED may lie under it)
    kit: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    #: printed words beside a cell's name (``e2 = "White's home"``), for the template
    labels: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    index: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    def __repr__(self) -> str:
        return f"<Layout {self.name}: {len(self.spots)} spots, {self.led_count} LEDs>"

    @property
    def cell_count(self) -> int:
        return len(self.geometry.cells)

    @property
    def pad_spots(self) -> tuple[Spot, ...]:
        return self.spots[self.cell_count:]

    def spot_index(self, name: str) -> int:
        """Index of a named spot; ``KeyError`` names the unknown spot."""
        try:
            return self.index[name]
        except KeyError:
            raise KeyError(f"no spot {name!r} on layout {self.name}") from None

    def spot(self, name: str) -> Spot:
        return self.spots[self.spot_index(name)]

    def cell_spot(self, cell: int) -> Spot:
        """The spot of geometry cell ``cell`` (same index)."""
        if not 0 <= cell < self.cell_count:
            raise IndexError(f"no cell {cell} on layout {self.name}")
        return self.spots[cell]

    def pads(self, role: str, owner: int | None = None) -> tuple[Spot, ...]:
        """Pads of one role (optionally of one owner), in file order."""
        return tuple(s for s in self.pad_spots
                     if s.role == role and (owner is None or s.owner == owner))

    def pad(self, role: str, owner: int | None = None, piece: str | None = None) -> Spot:
        """The one pad with this role/owner/piece; ``KeyError`` when absent."""
        for s in self.pad_spots:
            if s.role == role and s.owner == owner and s.piece == piece:
                return s
        raise KeyError(f"layout {self.name} has no {role} pad"
                       + (f" of player {owner}" if owner is not None else "")
                       + (f" for {piece}" if piece else ""))

    def led_spots(self) -> tuple[int, ...]:
        """Spot index for each LED index (the inverse of ``Spot.led``)."""
        out = [0] * self.led_count
        for i, s in enumerate(self.spots):
            out[s.led] = i
        return tuple(out)

    def sensor_spots(self) -> MappingProxyType:
        """Sensor address (see :meth:`SensorWiring.address`) -> spot index."""
        return MappingProxyType({s.sensor.address(): i for i, s in enumerate(self.spots)})

    def matrix_table(self) -> tuple[tuple[int, ...], ...]:
        """``table[row][column]`` = spot index, or -1 for an unused matrix position."""
        table = [[-1] * self.matrix_columns for _ in range(self.matrix_rows)]
        for i, s in enumerate(self.spots):
            if s.sensor.row is not None and s.sensor.column is not None:
                table[s.sensor.row][s.sensor.column] = i
        return tuple(tuple(r) for r in table)

    def chain_table(self) -> tuple[int, ...]:
        """``table[bit]`` = spot index, or -1 for an unused chain bit."""
        table = [-1] * self.chain_length
        for i, s in enumerate(self.spots):
            if s.sensor.chain is not None:
                table[s.sensor.chain] = i
        return tuple(table)

    def channel_table(self) -> tuple[int, ...]:
        """``table[channel]`` = spot index, or -1 for an unused analog channel."""
        table = [-1] * self.channel_count
        for i, s in enumerate(self.spots):
            if s.sensor.channel is not None:
                table[s.sensor.channel] = i
        return tuple(table)


# ---------------------------------------------------------------------------------
# Loading


def _fail(path: Path, entry: str, problem: str) -> LayoutError:
    return LayoutError(f"{path.name}: {entry}: {problem}")


def _get(data: dict, key: str, typ: type | tuple, path: Path, entry: str = "",
         default: Any = ...) -> Any:
    where = f"{entry}.{key}" if entry else key
    if key not in data:
        if default is not ...:
            return default
        raise _fail(path, where, "missing")
    value = data[key]
    if not isinstance(value, typ) or (isinstance(value, bool) and typ is not bool):
        name = typ.__name__ if isinstance(typ, type) else " or ".join(t.__name__ for t in typ)
        raise _fail(path, where, f"expected {name}, got {value!r}")
    return value


def _count(data: dict, key: str, path: Path, entry: str = "", default: Any = ...,
           minimum: int = 1) -> int:
    value = _get(data, key, int, path, entry, default)
    if value < minimum:
        raise _fail(path, f"{entry}.{key}" if entry else key,
                    f"must be {minimum} or more, got {value}")
    return value


def _pair(data: dict, key: str, path: Path, entry: str = "", positive: bool = False,
          default: Any = ...) -> Point:
    where = f"{entry}.{key}" if entry else key
    value = _get(data, key, list, path, entry, default)
    if (len(value) != 2 or not all(isinstance(v, int | float) and not isinstance(v, bool)
                                   for v in value)):
        raise _fail(path, where, f"expected two numbers [x, y], got {value!r}")
    x, y = float(value[0]), float(value[1])
    if not (math.isfinite(x) and math.isfinite(y)):
        raise _fail(path, where, f"numbers must be finite, got {value!r}")
    if positive and (x <= 0 or y <= 0):
        raise _fail(path, where, f"must be positive, got {value!r}")
    return x, y


TOP_KEYS = ("name", "shape", "title", "notes", "games", "size_mm", "scale_mm", "origin_mm",
            "sensor_kind", "sensing", "leds", "pads", "kit", "labels")
SENSING_KEYS = ("kind", "rows", "columns", "chain_length", "channels", "cells", "cell",
                "offset_mm")
LED_KEYS = ("cells", "first", "offset_mm", "beside_piece")
PAD_KEYS = ("name", "role", "owner", "piece", "token", "centre_mm", "size_mm", "row",
            "column", "bit", "channel", "led", "led_offset_mm")


def _known(data: dict, keys: tuple[str, ...], path: Path, entry: str = "") -> None:
    """A misspelt key would otherwise be ignored silently and its default used."""
    for key in data:
        if key not in keys:
            where = f"{entry}.{key}" if entry else key
            raise _fail(path, where, f"unknown entry (known: {', '.join(keys)})")


def load_layout_file(path: Path | str) -> Layout:
    """Load and validate one layout file (any path; used by tests and custom boards)."""
    path = Path(path)
    return parse_layout(read_toml(path, LayoutError), path)


@cache
def load_layout(name: str) -> Layout:
    """The layout ``boards/layouts/<name>.toml``, compiled once per process."""
    path = LAYOUTS_DIR / f"{name}.toml"
    if not path.exists():
        known = ", ".join(layout_names())
        raise LayoutError(f"no board layout {name!r} (known: {known})")
    return load_layout_file(path)


def layout_names() -> list[str]:
    """Names of the shipped layouts."""
    return sorted(p.stem for p in LAYOUTS_DIR.glob("*.toml"))


def layout_playing(game: str) -> str | None:
    """The first printed board whose layout names ``game`` (None: none does)."""
    return next((n for n in layout_names() if game in load_layout(n).games), None)


def parse_layout(data: dict, path: Path) -> Layout:
    """Compile parsed layout data; ``path`` is only used in messages."""
    _known(data, TOP_KEYS, path)
    name = _get(data, "name", str, path)
    shape_name = _get(data, "shape", str, path)
    try:
        geometry = load_shape(shape_name)
    except GeometryError as exc:
        raise _fail(path, "shape", str(exc)) from None
    title = _get(data, "title", str, path, default=name)
    notes = _get(data, "notes", str, path, default="")
    games = tuple(_get(data, "games", list, path))
    known_games = _games()
    for g in games:
        if g not in known_games:
            raise _fail(path, "games", f"unknown game {g!r} (known: {', '.join(known_games)})")
        if known_games[g].shape != shape_name:
            raise _fail(path, "games", f"{g} is played on {known_games[g].shape}, "
                        f"not {shape_name}")
    size = _pair(data, "size_mm", path, positive=True)
    scale = _get(data, "scale_mm", (int, float), path)
    if not (math.isfinite(scale) and scale > 0):
        raise _fail(path, "scale_mm", f"must be a positive number of mm per unit, got {scale!r}")
    origin = _pair(data, "origin_mm", path)
    sensor_kind = _get(data, "sensor_kind", str, path)
    if sensor_kind not in SENSOR_KINDS:
        raise _fail(path, "sensor_kind", f"unknown sensor kind {sensor_kind!r} "
                    f"({', '.join(SENSOR_KINDS)})")

    sensing_data = _get(data, "sensing", dict, path)
    _known(sensing_data, SENSING_KEYS, path, "sensing")
    sensing = _get(sensing_data, "kind", str, path, "sensing")
    if sensing not in SENSINGS:
        raise _fail(path, "sensing.kind", f"unknown sensing {sensing!r} ({', '.join(SENSINGS)})")
    kind = SENSING_KINDS[sensing]
    read = {key: _count(sensing_data, key, path, "sensing") for key in kind.size_keys}
    problem = kind.sizes_problem(read)
    if problem:
        raise _fail(path, f"sensing.{next(iter(read))}", problem)
    sizes = {"matrix_rows": 0, "matrix_columns": 0, "chain_length": 0, "channel_count": 0}
    sizes.update({kind.size_keys[key]: n for key, n in read.items()})
    rows, columns = sizes["matrix_rows"], sizes["matrix_columns"]
    chain_length, channel_count = sizes["chain_length"], sizes["channel_count"]
    voltages = [k.name for k in SENSING_KINDS.values() if not k.switches]
    if sensor_kind == "linear-hall" and kind.switches:
        raise _fail(path, "sensing.kind", "linear hall sensors give a voltage: use "
                    + " or ".join(voltages))
    if sensor_kind != "linear-hall" and not kind.switches:
        switches = [k.name for k in SENSING_KINDS.values() if k.switches]
        raise _fail(path, "sensing.kind", f"{sensor_kind} sensors are switches: use "
                    + " or ".join(switches))

    scale = float(scale)
    ox, oy = origin

    def to_mm(p: Point) -> Point:
        return (round(ox + p[0] * scale, 3), round(oy + p[1] * scale, 3))

    n_cells = len(geometry.cells)
    cell_centres = [to_mm(p) for p in geometry.centres]
    cell_outlines = [tuple(to_mm(p) for p in o) for o in geometry.outlines]

    # --- cell sensors -----------------------------------------------------------
    sensor_rule = _get(sensing_data, "cells", str, path, "sensing", default="explicit")
    wiring: list[SensorWiring | None] = [None] * n_cells
    if sensor_rule != "explicit":
        if sensor_rule not in SENSOR_RULES[sensing]:
            raise _fail(path, "sensing.cells", f"unknown rule {sensor_rule!r} for {sensing} "
                        f"({', '.join(SENSOR_RULES[sensing])} or explicit)")
        for c, w in _sensor_rule(sensor_rule, geometry, columns, path).items():
            wiring[c] = w
    explicit = _get(sensing_data, "cell", dict, path, "sensing", default={})
    for cell_name, value in explicit.items():
        where = f"sensing.cell.{cell_name}"
        if cell_name not in geometry.index:
            raise _fail(path, where, f"no cell {cell_name!r} on shape {shape_name}")
        c = geometry.index[cell_name]
        if wiring[c] is not None:
            raise _fail(path, where, f"wired twice: the rule {sensor_rule!r} already puts "
                        f"it on {wiring[c].text()}")
        wiring[c] = _explicit_wiring(kind, value, path, where)
    for c, w in enumerate(wiring):
        if w is None:
            raise _fail(path, f"sensing.cell.{geometry.cells[c]}",
                        f"cell is not wired (rule {sensor_rule!r} does not reach it and no "
                        "explicit entry)")

    # --- cell LEDs -----------------------------------------------------------------
    leds_data = _get(data, "leds", dict, path)
    _known(leds_data, LED_KEYS, path, "leds")
    led_rule = _get(leds_data, "cells", (str, list), path, "leds")
    if isinstance(led_rule, list):
        order = _led_order_list(led_rule, geometry, path)
        led_rule = "explicit"
    elif led_rule in LED_RULES:
        order = _led_order_rule(led_rule, geometry, path)
    else:
        raise _fail(path, "leds.cells", f"unknown rule {led_rule!r} "
                    f"({', '.join(LED_RULES)} or a list of cell names)")
    first = _count(leds_data, "first", path, "leds", default=0, minimum=0)
    cell_leds = [0] * n_cells
    for k, c in enumerate(order):
        cell_leds[c] = first + k
    led_offset = _pair(leds_data, "offset_mm", path, "leds", default=[0, 0])
    # A reed switch has a dead zone under its middle when a pole-down magnet stands right
    # above it: reed boards shift the switch so one end lies under the spot centre.
    sensor_offset = _pair(sensing_data, "offset_mm", path, "sensing", default=[0, 0])

    # --- spots --------------------------------------------------------------------
    spots: list[Spot] = []
    for c in range(n_cells):
        cx, cy = cell_centres[c]
        spots.append(Spot(
            name=geometry.cells[c], kind="cell", role=None, owner=None, piece=None,
            centre_mm=(cx, cy), outline_mm=cell_outlines[c], sensor=wiring[c],  # type: ignore[arg-type]
            led=cell_leds[c],
            sensor_mm=(round(cx + sensor_offset[0], 3), round(cy + sensor_offset[1], 3)),
            led_mm=(round(cx + led_offset[0], 3), round(cy + led_offset[1], 3)),
        ))
    kit = dict(_get(data, "kit", dict, path, default={}))
    if "magnets" in kit:
        _count(kit, "magnets", path, "kit", minimum=0)
    if "magnet" in kit:
        _get(kit, "magnet", str, path, "kit")
    base = _get(kit, "piece_base_mm", (int, float), path, "kit", default=None)
    if base is not None and not (math.isfinite(base) and base > 0):
        raise _fail(path, "kit.piece_base_mm", f"must be a positive diameter, got {base!r}")
    unknown = sorted(set(kit) - {"magnets", "magnet", "piece_base_mm"})
    if unknown:
        raise _fail(path, f"kit.{unknown[0]}", "unknown entry (magnets, magnet, piece_base_mm)")

    labels = _get(data, "labels", dict, path, default={})
    for cell in labels:
        if cell not in geometry.index:
            raise _fail(path, f"labels.{cell}", f"no cell {cell!r} on {shape_name}")
        _get(labels, cell, str, path, "labels")

    pads_data = _get(data, "pads", list, path, default=[])
    for k, entry in enumerate(pads_data):
        spots.append(_pad(entry, k, sensing, led_offset, sensor_offset, path))
    if _get(leds_data, "beside_piece", bool, path, "leds", default=False):
        if base is None:
            raise _fail(path, "leds.beside_piece", "needs kit.piece_base_mm (the widest "
                        "piece base the LEDs must stay clear of)")
        body = SENSOR_BODY_MM[sensor_kind]
        for k, spot in enumerate(spots):
            led = led_beside_piece(spot, base / 2, body)
            if led is None:
                raise _fail(path, f"{spot.kind} {spot.name}", f"no room for a "
                            f"{LED_FOOTPRINT_MM:g} mm LED beside a Ø{base:g} mm piece base")
            spots[k] = replace(spot, led_mm=led)

    return _validate(Layout(
        name=name, title=title, shape=shape_name, geometry=geometry, spots=tuple(spots),
        sensing=sensing, sensor_kind=sensor_kind, matrix_rows=rows, matrix_columns=columns,
        chain_length=chain_length, led_count=len(spots), games=games, size_mm=size,
        scale_mm=scale, origin_mm=origin, channel_count=channel_count,
        sensor_rule=sensor_rule, led_rule=led_rule, notes=notes, path=path,
        kit=MappingProxyType(kit), labels=MappingProxyType(dict(labels)),
        index=MappingProxyType({s.name: i for i, s in enumerate(spots)}),
    ), path)


def led_clearance(spot: Spot) -> float:
    """How far (mm) the LED's footprint lies from the spot centre at its nearest point: a
    piece standing centred covers the LED when its base radius reaches this far."""
    half = LED_FOOTPRINT_MM / 2
    dx = max(abs(spot.led_mm[0] - spot.centre_mm[0]) - half, 0.0)
    dy = max(abs(spot.led_mm[1] - spot.centre_mm[1]) - half, 0.0)
    return math.hypot(dx, dy)


def led_beside_piece(spot: Spot, radius: float, sensor_body: Point) -> Point | None:
    """Where the LED goes so a piece standing centred on the spot leaves it uncovered.

    From the spot's LED offset (its preferred direction, e.g. toward White) the direction
    turns in 5° steps, alternately each way, until the LED — just clear of the piece's
    base — fits inside the spot and beside the sensor's body, with
    ``LED_CLEARANCE_MM`` to spare everywhere; None when no direction fits."""
    cx, cy = spot.centre_mm
    px, py = spot.led_mm[0] - cx, spot.led_mm[1] - cy
    prefer = math.atan2(py, px) if (px or py) else -math.pi / 2
    half = LED_FOOTPRINT_MM / 2
    margin = half + LED_CLEARANCE_MM
    sx, sy = spot.sensor_mm
    bw, bh = sensor_body[0] / 2 + margin, sensor_body[1] / 2 + margin
    for k in range(72):
        angle = prefer + math.radians(5 * ((k + 1) // 2) * (1 if k % 2 else -1))
        ux, uy = math.cos(angle), math.sin(angle)
        t = radius
        while t < radius + 2 * LED_FOOTPRINT_MM:
            x, y = cx + t * ux, cy + t * uy
            probe = replace(spot, led_mm=(x, y))
            if led_clearance(probe) >= radius + LED_CLEARANCE_MM:
                break
            t += 0.25
        if not all(_inside((x + dx, y + dy), spot.outline_mm)
                   for dx in (-margin, 0, margin) for dy in (-margin, 0, margin)):
            continue
        if abs(x - sx) < bw and abs(y - sy) < bh:
            continue
        return (round(x, 2), round(y, 2))
    return None


def reed_lead_clearance(layout: Layout, stub_mm: float,
                        magnet_mm: float = 10.0) -> tuple[float, str, str]:
    """(mm, reed spot, neighbour spot): the nearest any reed's lead end — ``stub_mm``
    beyond its glass, where the lead is bent down — comes to the edge of another spot's
    magnet (a Ø``magnet_mm`` disc at that spot's centre).  A magnet near a reed's end
    closes it as well as one over the glass does."""
    length = SENSOR_BODY_MM["reed"][0]
    best = (math.inf, "", "")
    for s in layout.spots:
        x, y = s.sensor_mm
        for end in ((x - length / 2 - stub_mm, y), (x + length / 2 + stub_mm, y)):
            for other in layout.spots:
                if other is not s:
                    d = math.dist(end, other.centre_mm) - magnet_mm / 2
                    if d < best[0]:
                        best = (d, s.name, other.name)
    return best


def nearest_neighbour_magnet(layout: Layout) -> tuple[float, str, str]:
    """(mm, sensor spot, magnet spot): the closest a piece on another spot brings its magnet
    (at that spot's centre) to a sensor — to the nearest point of a reed's glass (it lies
    along x, its whole length sensitive), to a hall sensor's centre.  The one-cell test
    must leave the sensor open with a magnet this far away."""
    length = SENSOR_BODY_MM["reed"][0] if layout.sensor_kind == "reed" else 0.0
    best = (math.inf, "", "")
    for s in layout.spots:
        x, y = s.sensor_mm
        for other in layout.spots:
            if other is not s:
                ox, oy = other.centre_mm
                nearest_x = min(max(ox, x - length / 2), x + length / 2)
                d = math.dist((nearest_x, y), (ox, oy))
                if d < best[0]:
                    best = (d, s.name, other.name)
    return best


def _sensor_rule(rule: str, g: Geometry, columns: int, path: Path) -> dict[int, SensorWiring]:
    """Cell -> wiring for the cells a rule reaches."""
    n = len(g.cells)
    if rule == "matrix-by-rank":
        if g.kind != "grid":
            raise _fail(path, "sensing.cells", f"{rule} needs a grid shape, {g.name} is {g.kind}")
        return {c: SensorWiring(row=g.coords(c)[1], column=g.coords(c)[0]) for c in range(n)}
    if rule == "matrix-by-slice":
        if g.kind != "rings":
            raise _fail(path, "sensing.cells", f"{rule} needs a ring shape, {g.name} is {g.kind}")
        letters: list[str] = []
        for letter in g.attributes["letter"]:
            if letter and letter not in letters:
                letters.append(letter)
        return {c: SensorWiring(row=letters.index(g.attributes["letter"][c]),
                                column=g.attributes["slice"][c] - 1)
                for c in range(n) if g.attributes["letter"][c]}
    if rule == "matrix-in-order":
        return {c: SensorWiring(row=c // columns, column=c % columns) for c in range(n)}
    if rule == "chain-in-order":
        return {c: SensorWiring(chain=c) for c in range(n)}
    if rule == "channels-in-order":
        return {c: SensorWiring(channel=c) for c in range(n)}
    raise AssertionError(rule)


def _explicit_wiring(kind: SensingKind, value: Any, path: Path, where: str) -> SensorWiring:
    try:
        return kind.explicit_wiring(value)
    except ValueError as exc:
        raise _fail(path, where, str(exc)) from None


def _led_order_rule(rule: str, g: Geometry, path: Path) -> list[int]:
    n = len(g.cells)
    if rule == "in-order":
        return list(range(n))
    # serpentine-by-rank: ranks from White's side, alternate direction (boustrophedon)
    ranks = g.attributes.get("rank")
    if ranks is None or any(r is None for r in ranks):
        raise _fail(path, "leds.cells", f"{rule} needs a rank for every cell of {g.name}")
    order: list[int] = []
    for k, r in enumerate(sorted(set(ranks))):
        row = sorted((c for c in range(n) if ranks[c] == r), key=lambda c: g.centres[c][0])
        order.extend(row if k % 2 == 0 else reversed(row))
    return order


def _led_order_list(names: list, g: Geometry, path: Path) -> list[int]:
    order: list[int] = []
    seen: dict[int, int] = {}
    for k, n in enumerate(names):
        if not isinstance(n, str) or n not in g.index:
            raise _fail(path, f"leds.cells[{k}]", f"no cell {n!r} on shape {g.name}")
        c = g.index[n]
        if c in seen:
            raise _fail(path, f"leds.cells[{k}]", f"{n} already has LED {seen[c]}")
        seen[c] = k
        order.append(c)
    missing = [g.cells[c] for c in range(len(g.cells)) if c not in seen]
    if missing:
        raise _fail(path, "leds.cells", f"cell {missing[0]} has no LED"
                    + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    return order


def _pad(entry: Any, k: int, sensing: str, led_offset: Point, sensor_offset: Point,
         path: Path) -> Spot:
    if not isinstance(entry, dict):
        raise _fail(path, f"pads[{k}]", "expected a table")
    name = _get(entry, "name", str, path, f"pads[{k}]")
    where = f"pads.{name}"
    _known(entry, PAD_KEYS, path, where)
    role = _get(entry, "role", str, path, where)
    if role not in PAD_ROLES:
        raise _fail(path, f"{where}.role", f"unknown role {role!r} ({', '.join(PAD_ROLES)})")
    token = _get(entry, "token", str, path, where, default=None)
    owner = _get(entry, "owner", int, path, where, default=None)
    if role in OWNED_ROLES and owner is None:
        raise _fail(path, f"{where}.owner", f"a {token or role} pad needs the owning player "
                    "(0, 1, …)")
    if owner is not None and not 0 <= owner <= 3:
        raise _fail(path, f"{where}.owner", f"player must be 0..3, got {owner}")
    piece = _get(entry, "piece", str, path, where, default=None)
    if role in PIECE_ROLES and piece is None:
        raise _fail(path, f"{where}.piece", f"a {role} pad needs the piece kind (P, N, …)")
    if piece is not None and not (len(piece) == 1 and piece.isalpha() and piece.isupper()):
        raise _fail(path, f"{where}.piece", f"expected one upper-case letter, got {piece!r}")
    if (role == TOKEN_ROLE) != (token is not None):
        raise _fail(path, f"{where}.token", "a token pad, and only a token pad, names its "
                    "token (the game's name for it, e.g. token = \"NAME\")")
    if token is not None:
        if piece is not None:
            raise _fail(path, f"{where}.piece", "a token pad holds its token, not a piece")
        if not token.isidentifier() or not token.islower():
            raise _fail(path, f"{where}.token", f"expected a lower-case word, got {token!r}")
        piece = token
    cx, cy = _pair(entry, "centre_mm", path, where)
    w, h = _pair(entry, "size_mm", path, where, positive=True)
    kind = SENSING_KINDS[sensing]
    sensor = kind.wiring([_get(entry, key, int, path, where) for key in kind.pad_keys])
    led = _get(entry, "led", int, path, where)
    offset = _pair(entry, "led_offset_mm", path, where, default=list(led_offset))
    outline = ((cx - w / 2, cy - h / 2), (cx + w / 2, cy - h / 2),
               (cx + w / 2, cy + h / 2), (cx - w / 2, cy + h / 2))
    return Spot(name=name, kind="pad", role=role, owner=owner, piece=piece,
                centre_mm=(cx, cy), outline_mm=outline, sensor=sensor, led=led,
                sensor_mm=(round(cx + sensor_offset[0], 3), round(cy + sensor_offset[1], 3)),
                led_mm=(round(cx + offset[0], 3), round(cy + offset[1], 3)))


# ---------------------------------------------------------------------------------
# Validation


def _entry(layout: Layout, i: int) -> str:
    s = layout.spots[i]
    return f"sensing.cell.{s.name}" if s.kind == "cell" else f"pads.{s.name}"


def _validate(layout: Layout, path: Path) -> Layout:
    spots = layout.spots
    # names
    seen_names: dict[str, int] = {}
    for i, s in enumerate(spots):
        if s.name in seen_names:
            raise _fail(path, f"pads.{s.name}", "name used twice (a cell or another pad)")
        seen_names[s.name] = i
    # sensor ranges and uniqueness
    for i, s in enumerate(spots):
        w = s.sensor
        where = _entry(layout, i)
        problem = SENSING_KINDS[layout.sensing].range_problem(layout, w)
        if problem:
            raise _fail(path, where, problem)
    by_address: dict[Any, int] = {}
    for i, s in enumerate(spots):
        a = s.sensor.address()
        if a in by_address:
            raise _fail(path, _entry(layout, i), f"{s.sensor.text()} is already wired to "
                        f"{spots[by_address[a]].name}")
        by_address[a] = i
    # LEDs: 0..n-1, each once
    by_led: dict[int, int] = {}
    for i, s in enumerate(spots):
        where = f"leds ({s.name})" if s.kind == "cell" else f"pads.{s.name}.led"
        if s.led < 0:
            raise _fail(path, where, f"LED index must be 0 or more, got {s.led}")
        if s.led in by_led:
            raise _fail(path, where, f"LED {s.led} is already used by {spots[by_led[s.led]].name}")
        by_led[s.led] = i
    for k in range(len(spots)):
        if k not in by_led:
            raise _fail(path, "leds", f"LED index {k} is skipped: {len(spots)} spots need "
                        f"LEDs 0..{len(spots) - 1} (highest used: {max(by_led)})")
    # physical: everything on the board, LEDs inside their spot, pads clear of everything
    width, height = layout.size_mm
    for s in spots:
        where = f"cell {s.name}" if s.kind == "cell" else f"pads.{s.name}"
        for x, y in s.outline_mm:
            if not (-1e-6 <= x <= width + 1e-6 and -1e-6 <= y <= height + 1e-6):
                raise _fail(path, where, f"reaches ({x:.1f}, {y:.1f}) mm, off the "
                            f"{width:g}×{height:g} mm board (check size_mm, scale_mm, "
                            "origin_mm, centre_mm)")
        if not _inside(s.sensor_mm, s.outline_mm):
            raise _fail(path, where, f"its sensor at ({s.sensor_mm[0]:.1f}, "
                        f"{s.sensor_mm[1]:.1f}) mm lies outside it (check sensing.offset_mm)")
        lx, ly = s.led_mm
        half = LED_FOOTPRINT_MM / 2
        if not all(_inside((lx + dx, ly + dy), s.outline_mm)
                   for dx in (-half, half) for dy in (-half, half)):
            raise _fail(path, where, f"its LED at ({lx:.1f}, {ly:.1f}) mm does not fit inside "
                        f"it ({LED_FOOTPRINT_MM:g} mm footprint; check leds.offset_mm)")
        base = layout.kit.get("piece_base_mm")
        if base is not None and led_clearance(s) < base / 2:
            raise _fail(path, where, f"its LED at ({lx:.1f}, {ly:.1f}) mm lies under a "
                        f"Ø{base:g} mm piece standing on it (move leds.offset_mm out, or "
                        "set leds.beside_piece)")
    n_cells = layout.cell_count
    for i in range(n_cells, len(spots)):
        for j in range(len(spots)):
            if j != i and (j > i or j < n_cells) and _overlap(spots[i].outline_mm,
                                                               spots[j].outline_mm):
                raise _fail(path, f"pads.{spots[i].name}", f"overlaps {spots[j].kind} "
                            f"{spots[j].name}")
    # tokens the games declare, and pads the games need
    declared = {t.name for game in layout.games for t in _games()[game].tokens}
    for s in layout.pads(TOKEN_ROLE):
        if s.piece not in declared:
            raise _fail(path, f"pads.{s.name}.token", f"no game of this board has a token "
                        f"{s.piece!r} ({', '.join(sorted(declared)) or 'none'})")
    for game in layout.games:
        for role, owner, piece in _games()[game].pads:
            if not any(s.role == role and s.owner == owner and s.piece == piece
                       for s in layout.pad_spots):
                what = (piece if role == TOKEN_ROLE else role) + (
                    f" of player {owner}" if owner is not None else "") + (
                    f" for {piece}" if piece and role != TOKEN_ROLE else "")
                raise _fail(path, "pads", f"{game} needs a {what} pad")
        options = len(layout.pads("option"))
        if options < MIN_OPTION_PADS:
            raise _fail(path, "pads", f"{game} needs at least {MIN_OPTION_PADS} option pads, "
                        f"found {options}")
    return layout


def token_title(name: str) -> str:
    """The product's word for the token a token pad names ("Cube"), from the declaration
    of the game that keeps it (loaded with any layout that serves the game)."""
    from controller.rules import token_named

    token = token_named(name)
    return token.title if token is not None else name


def _games() -> dict[str, Any]:
    """The game registry: a layout names the games it can play (``games = [...]``) and each
    game's class says its shape and the pads it needs."""
    from controller.rules import GAMES  # lazy: the rules load only when a layout is read

    return GAMES


def _inside(p: Point, poly: tuple[Point, ...]) -> bool:
    """Point in polygon (even-odd rule)."""
    x, y = p
    inside = False
    n = len(poly)
    for k in range(n):
        (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _area(poly: list[Point]) -> float:
    return abs(sum(poly[k][0] * poly[(k + 1) % len(poly)][1]
                   - poly[(k + 1) % len(poly)][0] * poly[k][1] for k in range(len(poly)))) / 2


def _overlap(pad: tuple[Point, ...], other: tuple[Point, ...]) -> bool:
    """Whether a pad (an axis-aligned rectangle) shares area with another outline.

    Sutherland–Hodgman clipping of ``other`` by the rectangle: exact for any outline, convex
    or not, because the clipping window is convex; touching edges give zero area."""
    x0, x1 = min(p[0] for p in pad), max(p[0] for p in pad)
    y0, y1 = min(p[1] for p in pad), max(p[1] for p in pad)
    poly = list(other)
    for axis, bound, keep_above in ((0, x0, True), (0, x1, False), (1, y0, True),
                                    (1, y1, False)):
        if not poly:
            return False
        out: list[Point] = []
        for k in range(len(poly)):
            a, b = poly[k - 1], poly[k]
            a_in = (a[axis] >= bound) if keep_above else (a[axis] <= bound)
            b_in = (b[axis] >= bound) if keep_above else (b[axis] <= bound)
            if a_in != b_in:
                t = (bound - a[axis]) / (b[axis] - a[axis])
                out.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
            if b_in:
                out.append(b)
        poly = out
    return len(poly) >= 3 and _area(poly) > 1e-6
