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
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from controller.geometry import BOARDS_DIR, Geometry, GeometryError, load_shape, read_toml
from controller.sensing.kinds import SENSING_KINDS

LAYOUTS_DIR = BOARDS_DIR / "layouts"

Point = tuple[float, float]

#: the sensing kinds' names (one home: ``controller/sensing/kinds.py``)
SENSINGS = tuple(SENSING_KINDS)
SENSOR_KINDS = ("reed", "digital-hall", "linear-hall")
PAD_ROLES = ("cube", "hand", "reserve", "option", "die")
#: roles whose pad belongs to one player / holds one piece kind
OWNED_ROLES = ("cube", "hand", "reserve")
PIECE_ROLES = ("hand", "reserve")

#: fewest option pads a game needs to offer every choice from the board alone
#: (promotion to Q R B N, split sizes, confirm): four covers the largest menu; more pads
#: just page less.
MIN_OPTION_PADS = 4

#: a WS2812B (5050 package) is 5 mm square; it must lie wholly under its spot
LED_FOOTPRINT_MM = 5.0

#: LED chain rules for the cells
LED_RULES = ("serpentine-by-rank", "in-order")
#: sensor rules per sensing kind
SENSOR_RULES = {
    "matrix": ("matrix-by-rank", "matrix-by-slice", "matrix-in-order"),
    "shift-register": ("chain-in-order",),
    "analog": ("channels-in-order",),
}


class LayoutError(ValueError):
    """A layout file is malformed; the message names the file, the entry and the problem."""


@dataclass(frozen=True)
class SensorWiring:
    """Where a spot's sensor is read: a matrix row/column, a shift-register chain bit
    (0 = first bit shifted in) or an analog channel; the fields of other sensings are None."""

    row: int | None = None
    column: int | None = None
    chain: int | None = None
    channel: int | None = None

    def address(self) -> tuple[str, int, int] | tuple[str, int]:
        """A hashable address used to find two spots on one sensor input."""
        if self.row is not None and self.column is not None:
            return ("matrix", self.row, self.column)
        if self.chain is not None:
            return ("chain", self.chain)
        if self.channel is not None:
            return ("channel", self.channel)
        raise ValueError("sensor wiring without an address")

    def text(self) -> str:
        if self.row is not None:
            return f"row {self.row} / column {self.column}"
        if self.chain is not None:
            return f"chain bit {self.chain}"
        return f"channel {self.channel}"


@dataclass(frozen=True)
class Spot:
    """One sensed place: a cell of the shape or an off-board pad.

    ``role`` / ``owner`` / ``piece`` are ``None`` for cells; ``sensor_mm`` and ``led_mm`` are
    where the sensor and the LED sit (the drilling template marks them)."""

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
    #: kit facts for the bill of materials: ``magnets`` (count), ``magnet`` (size text)
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
LED_KEYS = ("cells", "first", "offset_mm")
PAD_KEYS = ("name", "role", "owner", "piece", "centre_mm", "size_mm", "row", "column", "bit",
            "channel", "led", "led_offset_mm")


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
    rows = columns = chain_length = channel_count = 0
    if sensing == "matrix":
        rows = _count(sensing_data, "rows", path, "sensing")
        columns = _count(sensing_data, "columns", path, "sensing")
    elif sensing == "shift-register":
        chain_length = _count(sensing_data, "chain_length", path, "sensing")
        if chain_length % 8:
            raise _fail(path, "sensing.chain_length",
                        f"a 74HC165 chain has 8 bits per chip, {chain_length} is not a multiple")
    else:
        channel_count = _count(sensing_data, "channels", path, "sensing")
    if sensor_kind == "linear-hall" and sensing != "analog":
        raise _fail(path, "sensing.kind", "linear hall sensors give a voltage: use analog")
    if sensor_kind != "linear-hall" and sensing == "analog":
        raise _fail(path, "sensing.kind", f"{sensor_kind} sensors are switches: use a matrix "
                    "or a shift-register chain")

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
        wiring[c] = _explicit_wiring(sensing, value, path, where)
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
    unknown = sorted(set(kit) - {"magnets", "magnet"})
    if unknown:
        raise _fail(path, f"kit.{unknown[0]}", "unknown entry (magnets, magnet)")

    labels = _get(data, "labels", dict, path, default={})
    for cell in labels:
        if cell not in geometry.index:
            raise _fail(path, f"labels.{cell}", f"no cell {cell!r} on {shape_name}")
        _get(labels, cell, str, path, "labels")

    pads_data = _get(data, "pads", list, path, default=[])
    for k, entry in enumerate(pads_data):
        spots.append(_pad(entry, k, sensing, led_offset, sensor_offset, path))

    return _validate(Layout(
        name=name, title=title, shape=shape_name, geometry=geometry, spots=tuple(spots),
        sensing=sensing, sensor_kind=sensor_kind, matrix_rows=rows, matrix_columns=columns,
        chain_length=chain_length, led_count=len(spots), games=games, size_mm=size,
        scale_mm=scale, origin_mm=origin, channel_count=channel_count,
        sensor_rule=sensor_rule, led_rule=led_rule, notes=notes, path=path,
        kit=MappingProxyType(kit), labels=MappingProxyType(dict(labels)),
        index=MappingProxyType({s.name: i for i, s in enumerate(spots)}),
    ), path)


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


def _explicit_wiring(sensing: str, value: Any, path: Path, where: str) -> SensorWiring:
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if sensing == "matrix":
        if not (isinstance(value, list) and len(value) == 2 and all(map(is_int, value))):
            raise _fail(path, where, f"expected [row, column], got {value!r}")
        return SensorWiring(row=value[0], column=value[1])
    if not is_int(value):
        kind = "chain bit" if sensing == "shift-register" else "channel"
        raise _fail(path, where, f"expected a {kind} number, got {value!r}")
    return SensorWiring(chain=value) if sensing == "shift-register" else SensorWiring(channel=value)


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
    owner = _get(entry, "owner", int, path, where, default=None)
    if role in OWNED_ROLES and owner is None:
        raise _fail(path, f"{where}.owner", f"a {role} pad needs the owning player (0, 1, …)")
    if owner is not None and not 0 <= owner <= 3:
        raise _fail(path, f"{where}.owner", f"player must be 0..3, got {owner}")
    piece = _get(entry, "piece", str, path, where, default=None)
    if role in PIECE_ROLES and piece is None:
        raise _fail(path, f"{where}.piece", f"a {role} pad needs the piece kind (P, N, …)")
    if piece is not None and not (len(piece) == 1 and piece.isalpha() and piece.isupper()):
        raise _fail(path, f"{where}.piece", f"expected one upper-case letter, got {piece!r}")
    cx, cy = _pair(entry, "centre_mm", path, where)
    w, h = _pair(entry, "size_mm", path, where, positive=True)
    if sensing == "matrix":
        row = _get(entry, "row", int, path, where)
        column = _get(entry, "column", int, path, where)
        sensor = SensorWiring(row=row, column=column)
    elif sensing == "shift-register":
        sensor = SensorWiring(chain=_get(entry, "bit", int, path, where))
    else:
        sensor = SensorWiring(channel=_get(entry, "channel", int, path, where))
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
        if layout.sensing == "matrix":
            if not (0 <= w.row < layout.matrix_rows):  # type: ignore[operator]
                raise _fail(path, where, f"matrix row {w.row} out of range "
                            f"0..{layout.matrix_rows - 1}")
            if not (0 <= w.column < layout.matrix_columns):  # type: ignore[operator]
                raise _fail(path, where, f"matrix column {w.column} out of range "
                            f"0..{layout.matrix_columns - 1}")
        elif layout.sensing == "shift-register":
            if not (0 <= w.chain < layout.chain_length):  # type: ignore[operator]
                raise _fail(path, where, f"chain bit {w.chain} out of range "
                            f"0..{layout.chain_length - 1}")
        elif not (0 <= w.channel < layout.channel_count):  # type: ignore[operator]
            raise _fail(path, where, f"analog channel {w.channel} out of range "
                        f"0..{layout.channel_count - 1}")
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
    n_cells = layout.cell_count
    for i in range(n_cells, len(spots)):
        for j in range(len(spots)):
            if j != i and (j > i or j < n_cells) and _overlap(spots[i].outline_mm,
                                                               spots[j].outline_mm):
                raise _fail(path, f"pads.{spots[i].name}", f"overlaps {spots[j].kind} "
                            f"{spots[j].name}")
    # pads the games need
    for game in layout.games:
        for role, owner, piece in _games()[game].pads:
            if not any(s.role == role and s.owner == owner and s.piece == piece
                       for s in layout.pad_spots):
                what = role + (f" of player {owner}" if owner is not None else "") + (
                    f" for {piece}" if piece else "")
                raise _fail(path, "pads", f"{game} needs a {what} pad")
        options = len(layout.pads("option"))
        if options < MIN_OPTION_PADS:
            raise _fail(path, "pads", f"{game} needs at least {MIN_OPTION_PADS} option pads, "
                        f"found {options}")
    return layout


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
