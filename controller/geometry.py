"""Board shapes: loaded once from ``boards/shapes/*.toml`` and compiled into lookup tables.

A shape says which cells exist, how they are drawn (centre and outline in abstract
units, y toward Black), which cells share a side or only a corner, and the direction
structure the pieces move along (ranks/files/diagonals on grids, the five Lotus axes,
the rings of the round board).  Three kinds of shape file exist:

* ``grid``  — a rectangle of squares named ``a1``…; optional Rivers between ranks.
* ``rings`` — a round board of concentric rings cut into slices (KaleidoChess).
* ``cells`` — every cell listed explicitly with its contacts and lines (Lotus-39).

Rules code only ever sees the compiled :class:`Geometry`: cells are small ints and
every neighbour or ray is a tuple lookup.
"""

from __future__ import annotations

import contextlib
import marshal
import math
import os
import sys
import zlib
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any


def _boards_dir() -> Path:
    """The board data: inside the package when installed from a wheel (the build copies
    ``boards/`` to ``controller/boards``, see setup.py), else ``boards/`` at the top of the
    checkout."""
    package = Path(__file__).resolve().parent
    installed = package / "boards"
    return installed if installed.is_dir() else package.parent / "boards"


BOARDS_DIR = _boards_dir()
SHAPES_DIR = BOARDS_DIR / "shapes"

FILE_LETTERS = "abcdefghijklmnopqrstuvwxyz"

# Grid directions: name -> (dfile, drank).  Rank grows toward Black.
GRID_DIRECTIONS: dict[str, tuple[int, int]] = {
    "N": (0, 1), "NE": (1, 1), "E": (1, 0), "SE": (1, -1),
    "S": (0, -1), "SW": (-1, -1), "W": (-1, 0), "NW": (-1, 1),
}
ORTHOGONAL = ("N", "E", "S", "W")
DIAGONAL = ("NE", "SE", "SW", "NW")


class GeometryError(ValueError):
    """A shape file is malformed; the message names the file and the entry."""


Point = tuple[float, float]


class Geometry:
    """A compiled board shape.  Cells are ints ``0..len(cells)-1``.

    Immutable: its fields are set once by the compiler (a plain class, not a dataclass:
    ``dataclasses`` costs every command's start more than its rules).  Two geometries are
    equal only when they are the same object."""

    name: str
    kind: str
    title: str
    cells: tuple[str, ...]
    index: MappingProxyType
    shapes: tuple[str, ...]
    centres: tuple[Point, ...]
    outlines: tuple[tuple[Point, ...], ...]
    side: tuple[tuple[int, ...], ...]
    corner: tuple[tuple[int, ...], ...]
    #: direction name -> next cell from each cell (-1 when the step leaves the board)
    steps: MappingProxyType
    #: direction name -> the cells along that direction from each cell, nearest first
    rays: MappingProxyType
    #: tag name -> cells carrying it (``castle``, ``town``, ``hexagon``, …)
    tags: MappingProxyType
    #: per-cell attributes (``file``, ``rank``, ``ring``, ``slice``, ``letter``) where meaningful
    attributes: MappingProxyType
    #: named lines (Lotus axes) and circles (Lotus petals, round-board rings)
    lines: MappingProxyType
    circles: MappingProxyType
    #: grid only: River after rank k (1-based) for each k listed
    rivers: tuple[int, ...]
    files: int
    ranks: int

    def __init__(
        self, *, name: str, kind: str, title: str, cells: tuple[str, ...],
        index: MappingProxyType, shapes: tuple[str, ...], centres: tuple[Point, ...],
        outlines: tuple[tuple[Point, ...], ...], side: tuple[tuple[int, ...], ...],
        corner: tuple[tuple[int, ...], ...], steps: MappingProxyType, rays: MappingProxyType,
        tags: MappingProxyType, attributes: MappingProxyType,
        lines: MappingProxyType | None = None, circles: MappingProxyType | None = None,
        rivers: tuple[int, ...] = (), files: int = 0, ranks: int = 0,
    ) -> None:
        self.__dict__.update(
            name=name, kind=kind, title=title, cells=cells, index=index, shapes=shapes,
            centres=centres, outlines=outlines, side=side, corner=corner, steps=steps,
            rays=rays, tags=tags, attributes=attributes,
            lines=MappingProxyType({}) if lines is None else lines,
            circles=MappingProxyType({}) if circles is None else circles,
            rivers=rivers, files=files, ranks=ranks)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Geometry is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Geometry is immutable: cannot delete {name!r}")

    def __len__(self) -> int:
        return len(self.cells)

    def __repr__(self) -> str:
        return f"<Geometry {self.name}: {len(self.cells)} cells>"

    def cell(self, name: str) -> int:
        """The index of a named cell; ``KeyError`` names the unknown cell."""
        try:
            return self.index[name]
        except KeyError:
            raise KeyError(f"no cell {name!r} on {self.name}") from None

    def attr(self, name: str, cell: int) -> Any:
        return self.attributes[name][cell]

    # Grid helpers -----------------------------------------------------------------
    def at(self, file: int, rank: int) -> int:
        """Grid cell at 0-based (file, rank), or -1 when off the board."""
        if 0 <= file < self.files and 0 <= rank < self.ranks:
            return rank * self.files + file
        return -1

    def coords(self, cell: int) -> tuple[int, int]:
        """0-based (file, rank) of a grid cell."""
        return cell % self.files, cell // self.files

    def leap_table(self, offsets: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], ...]:
        """For every cell, the cells reached by the given (dfile, drank) leaps."""
        table = []
        for c in range(len(self.cells)):
            f, r = self.coords(c)
            table.append(tuple(t for df, dr in offsets if (t := self.at(f + df, r + dr)) >= 0))
        return tuple(table)


# ---------------------------------------------------------------------------------
# Loading


def _fail(path: Path, entry: str, problem: str) -> GeometryError:
    return GeometryError(f"{path.name}: {entry}: {problem}")


def _require(data: dict, key: str, typ: type | tuple, path: Path, entry: str = "") -> Any:
    where = f"{entry}.{key}" if entry else key
    if key not in data:
        raise _fail(path, where, "missing")
    value = data[key]
    if not isinstance(value, typ) or isinstance(value, bool) and typ is not bool:
        raise _fail(path, where, f"expected {getattr(typ, '__name__', typ)}, got {value!r}")
    return value


def parse_shape(data: dict, path: Path) -> Geometry:
    """Compile parsed shape data; ``path`` is only used in error messages."""
    kind = _require(data, "kind", str, path)
    name = _require(data, "name", str, path)
    if kind == "grid":
        return _compile_grid(data, path, name)
    if kind == "rings":
        return _compile_rings(data, path, name)
    if kind == "cells":
        return _compile_cells(data, path, name)
    raise _fail(path, "kind", f"unknown shape kind {kind!r} (grid, rings or cells)")


def read_toml(path: Path, error: type[ValueError] = GeometryError) -> dict:
    """A board data file parsed; ``error`` names the file when it is unreadable or not TOML."""
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    return _parse_toml(text, path, error)


def load_shape_file(path: Path) -> Geometry:
    return parse_shape(_shape_data(path), path)


# --- the shape cache ----------------------------------------------------------------
# Parsing TOML (and importing the parser) costs a rules command more CPU than listing its
# moves, so a shape file's parsed data is kept in the user's cache folder together with
# the exact text it was parsed from, and used only while the file still holds that text.

#: what a cache file holds; a new number when that changes
SHAPE_CACHE_FORMAT = 1


def shape_cache_file(path: Path) -> Path | None:
    """Where the parsed ``path`` is kept: ``$XDG_CACHE_HOME/fairyboard/shapes`` (by default
    ``~/.cache/…``), one file per shape name and Python (marshal's format is Python's);
    None when there is no such folder to use."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # unset, or relative (which the XDG rules say to ignore)
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    return Path(base, "fairyboard", "shapes", f"{path.stem}.{tag}.marshal")


def _shape_data(path: Path) -> dict:
    """The parsed shape file: from the cache when it holds this very text, else parsed
    and the cache written.  A damaged cache file is parsed anew and rewritten, with one
    log line; a cache folder that cannot be written is only not used."""
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise GeometryError(f"{path}: cannot read: {exc.strerror}") from None
    cache = shape_cache_file(path)
    if cache is not None:
        try:
            stored = cache.read_bytes()
        except OSError:
            stored = None  # none yet
        if stored is not None:
            kept = _from_cache(stored)
            if kept is None:
                import logging  # lazy: only a damaged cache logs

                logging.getLogger(__name__).warning(
                    "shape cache %s is damaged: %s is read again and the cache rewritten",
                    cache, path.name)
            elif kept[0] == text:
                return kept[1]
    data = _parse_toml(text, path)
    if cache is not None:
        _write_cache(cache, text, data)
    return data


def _from_cache(stored: bytes) -> tuple[bytes, dict] | None:
    """(source text, parsed data) from a cache file's bytes; None when they are damaged
    (a checksum over the rest guards against a torn or altered file)."""
    body = stored[4:]
    if len(stored) < 4 or zlib.crc32(body) != int.from_bytes(stored[:4], "big"):
        return None
    try:
        kept = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None
    if (not isinstance(kept, tuple) or len(kept) != 3 or kept[0] != SHAPE_CACHE_FORMAT
            or not isinstance(kept[1], bytes) or not isinstance(kept[2], dict)):
        return None
    return kept[1], kept[2]


def _write_cache(cache: Path, text: bytes, data: dict) -> None:
    try:
        body = marshal.dumps((SHAPE_CACHE_FORMAT, text, data))
    except ValueError:  # a value marshal cannot keep (a TOML date): this file is not cached
        return
    temporary = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(zlib.crc32(body).to_bytes(4, "big") + body)
        os.replace(temporary, cache)  # whole or not at all, also with two writers
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)


def _parse_toml(text: bytes, path: Path, error: type[ValueError] = GeometryError) -> dict:
    import tomllib  # lazy: a shape from the cache needs no TOML parser

    try:
        # as ``read_text`` reads a file: UTF-8 with its line ends made ``\n``
        return tomllib.loads(text.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n"))
    except UnicodeDecodeError as exc:
        raise error(f"{path.name}: not valid TOML: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path.name}: not valid TOML: {exc}") from None


@cache
def load_shape(name: str) -> Geometry:
    """The shape ``boards/shapes/<name>.toml``, compiled once per process."""
    path = SHAPES_DIR / f"{name}.toml"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in SHAPES_DIR.glob("*.toml")))
        raise GeometryError(f"no board shape {name!r} (known: {known})")
    return load_shape_file(path)


def _freeze(d: dict) -> MappingProxyType:
    return MappingProxyType(dict(d))


def _rays_from_steps(steps: dict[str, tuple[int, ...]]) -> dict[str, tuple[tuple[int, ...], ...]]:
    rays = {}
    for d, nxt in steps.items():
        per_cell = []
        for c in range(len(nxt)):
            ray, cur = [], nxt[c]
            while cur >= 0:
                ray.append(cur)
                cur = nxt[cur]
            per_cell.append(tuple(ray))
        rays[d] = tuple(per_cell)
    return rays


# --- grid -------------------------------------------------------------------------


def _compile_grid(data: dict, path: Path, name: str) -> Geometry:
    files = _require(data, "files", int, path)
    ranks = _require(data, "ranks", int, path)
    if not (1 <= files <= 26 and 1 <= ranks <= 99):
        raise _fail(path, "files/ranks", f"unsupported size {files}x{ranks}")
    rivers = tuple(data.get("rivers", ()))
    for k in rivers:
        if not isinstance(k, int) or not 1 <= k < ranks:
            raise _fail(path, "rivers", f"a River must lie between two ranks, got {k!r}")
    cells, centres, outlines = [], [], []
    for r in range(ranks):
        for f in range(files):
            cells.append(f"{FILE_LETTERS[f]}{r + 1}")
            centres.append((f + 0.5, r + 0.5))
            outlines.append(((f, r), (f + 1, r), (f + 1, r + 1), (f, r + 1)))

    def at(f: int, r: int) -> int:
        return r * files + f if 0 <= f < files and 0 <= r < ranks else -1

    steps = {}
    for d, (df, dr) in GRID_DIRECTIONS.items():
        steps[d] = tuple(at(c % files + df, c // files + dr) for c in range(files * ranks))
    side = tuple(tuple(t for d in ORTHOGONAL if (t := steps[d][c]) >= 0) for c in range(len(cells)))
    corner = tuple(tuple(t for d in DIAGONAL if (t := steps[d][c]) >= 0) for c in range(len(cells)))
    tags: dict[str, frozenset[int]] = {}
    for k in rivers:
        tags[f"bank{k}"] = frozenset(c for c in range(len(cells)) if c // files + 1 in (k, k + 1))
    return Geometry(
        name=name, kind="grid", title=data.get("title", name), cells=tuple(cells),
        index=_freeze({n: i for i, n in enumerate(cells)}), shapes=("square",) * len(cells),
        centres=tuple(centres), outlines=tuple(outlines), side=side, corner=corner,
        steps=_freeze(steps), rays=_freeze(_rays_from_steps(steps)), tags=_freeze(tags),
        attributes=_freeze({
            "file": tuple(c % files for c in range(len(cells))),
            "rank": tuple(c // files for c in range(len(cells))),
        }),
        rivers=rivers, files=files, ranks=ranks,
    )


# --- rings (round board) ----------------------------------------------------------


def _compile_rings(data: dict, path: Path, name: str) -> Geometry:
    slices = _require(data, "slices", int, path)
    units = _require(data, "units", int, path)
    ring_fields = _require(data, "ring_fields", list, path)
    letters = _require(data, "letters", list, path)
    centre = _require(data, "centre", str, path)
    if len(letters) != len(ring_fields):
        raise _fail(path, "letters", "need one letter group per ring")
    for r, (n, group) in enumerate(zip(ring_fields, letters, strict=True), start=1):
        if not isinstance(n, int) or n % slices or units % n:
            raise _fail(path, f"ring_fields[{r - 1}]", f"{n!r} is not a multiple of {slices} "
                        f"dividing {units} units")
        if not isinstance(group, str) or len(group) != n // slices:
            raise _fail(path, f"letters[{r - 1}]", f"need {n // slices} letters, got {group!r}")
    cells = [centre]
    ring = [0]
    span: list[tuple[int, int]] = [(0, units)]
    slice_of = [0]
    letter_of = [""]
    for r, n in enumerate(ring_fields, start=1):
        per = n // slices
        width = units // n
        for i in range(n):
            s = i // per + 1
            letter = letters[r - 1][i % per]
            cells.append(f"{s}{letter}")
            ring.append(r)
            span.append((i * width, (i + 1) * width))
            slice_of.append(s)
            letter_of.append(letter)
    if len(set(cells)) != len(cells):
        raise _fail(path, "letters", "field names are not unique")
    count = len(cells)
    side: list[list[int]] = [[] for _ in range(count)]
    corner: list[list[int]] = [[] for _ in range(count)]

    def link(table: list[list[int]], a: int, b: int) -> None:
        table[a].append(b)
        table[b].append(a)

    first = 1
    starts = []
    for n in ring_fields:
        starts.append(first)
        first += n
    for k in range(ring_fields[0]):
        link(side, 0, starts[0] + k)
    for r, n in enumerate(ring_fields):
        base = starts[r]
        for i in range(n):  # consecutive fields of one ring share a side (the ring is closed)
            link(side, base + i, base + (i + 1) % n)
        if r + 1 < len(ring_fields):
            outer_base, m = starts[r + 1], ring_fields[r + 1]
            for i in range(n):
                a0, a1 = span[base + i]
                for j in range(m):
                    b0, b1 = span[outer_base + j]
                    overlap = min(a1, b1) - max(a0, b0)
                    touches_corner = a0 % units == b1 % units or a1 % units == b0 % units
                    if overlap > 0:
                        link(side, base + i, outer_base + j)
                    elif touches_corner:
                        link(corner, base + i, outer_base + j)
    castles = data.get("castles", [])
    index = {n: i for i, n in enumerate(cells)}
    for c in castles:
        if c not in index:
            raise _fail(path, "castles", f"unknown field {c!r}")
    castle_set = frozenset(index[c] for c in castles)
    towns = frozenset(
        t for c in castle_set for t in (*side[c], *corner[c]) if t not in castle_set
    )
    # Drawing: the centre is a disc of radius 1, every ring is 1 unit wide.
    # Slice 1 sits at 6 o'clock (in front of White); numbering runs clockwise seen from above.
    def angle(u: float) -> float:
        return math.radians(270.0 - (u - units / (2 * slices)) * 360.0 / units)

    def arc(radius: float, u0: float, u1: float, pieces: int) -> list[Point]:
        return [(radius * math.cos(angle(u0 + (u1 - u0) * t / pieces)),
                 radius * math.sin(angle(u0 + (u1 - u0) * t / pieces))) for t in range(pieces + 1)]

    centres: list[Point] = [(0.0, 0.0)]
    outlines: list[tuple[Point, ...]] = [tuple(arc(1.0, 0, units, 48)[:-1])]
    for c in range(1, count):
        u0, u1 = span[c]
        r = ring[c]
        mid = (u0 + u1) / 2
        centres.append(((r + 0.5) * math.cos(angle(mid)), (r + 0.5) * math.sin(angle(mid))))
        pieces = max(2, (u1 - u0) * 2)
        outlines.append(tuple(arc(r, u0, u1, pieces) + arc(r + 1, u1, u0, pieces)))
    circles = {
        f"ring{r + 1}": tuple(range(starts[r], starts[r] + n)) for r, n in enumerate(ring_fields)
    }
    return Geometry(
        name=name, kind="rings", title=data.get("title", name), cells=tuple(cells),
        index=_freeze(index), shapes=("field",) * count, centres=tuple(centres),
        outlines=tuple(outlines), side=tuple(tuple(s) for s in side),
        corner=tuple(tuple(c) for c in corner), steps=_freeze({}), rays=_freeze({}),
        tags=_freeze({"castle": castle_set, "town": towns}),
        attributes=_freeze({"ring": tuple(ring), "slice": tuple(slice_of),
                            "letter": tuple(letter_of), "span": tuple(span)}),
        circles=_freeze(circles),
    )


# --- explicit cells (Lotus-39) ----------------------------------------------------

_SHAPE_RADIUS = {"hexagon": 1.0, "triangle": 1 / math.sqrt(3), "square": math.sqrt(0.5)}


def _polygon(shape: str, centre: Point, rotation: float) -> tuple[Point, ...]:
    """Regular polygon of unit edge; ``rotation`` is the angle of the first vertex."""
    corners = {"hexagon": 6, "triangle": 3, "square": 4}[shape]
    radius = _SHAPE_RADIUS[shape]
    x, y = centre
    return tuple(
        (x + radius * math.cos(math.radians(rotation + k * 360 / corners)),
         y + radius * math.sin(math.radians(rotation + k * 360 / corners)))
        for k in range(corners)
    )


def _compile_cells(data: dict, path: Path, name: str) -> Geometry:
    raw = _require(data, "cells", list, path)
    cells: list[str] = []
    for k, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise _fail(path, f"cells[{k}]", "expected a table")
        cells.append(_require(entry, "name", str, path, f"cells[{k}]"))
    index = {n: i for i, n in enumerate(cells)}
    if len(index) != len(cells):
        dup = next(n for n in cells if cells.count(n) > 1)
        raise _fail(path, f"cells.{dup}", "defined twice")
    shapes, centres, outlines, side, corner = [], [], [], [], []
    attrs: dict[str, list] = {"file": [], "rank": []}
    for k, entry in enumerate(raw):
        where = f"cells.{cells[k]}"
        shape = _require(entry, "shape", str, path, where)
        if shape not in _SHAPE_RADIUS:
            raise _fail(path, f"{where}.shape", f"unknown shape {shape!r}")
        xy = (float(_require(entry, "x", (int, float), path, where)),
              float(_require(entry, "y", (int, float), path, where)))
        rotation = float(entry.get("rotation", 0.0))
        shapes.append(shape)
        centres.append(xy)
        outlines.append(_polygon(shape, xy, rotation))
        for key, table in (("side", side), ("corner", corner)):
            names = _require(entry, key, list, path, where)
            for n in names:
                if n not in index:
                    raise _fail(path, f"{where}.{key}", f"unknown cell {n!r}")
            table.append(tuple(index[n] for n in names))
        attrs["file"].append(entry.get("file"))
        attrs["rank"].append(entry.get("rank"))
    for c, ns in enumerate(side):
        for n in ns:
            if c not in side[n]:
                raise _fail(path, f"cells.{cells[c]}.side",
                            f"{cells[n]} is listed but does not list {cells[c]} back")
    for c, ns in enumerate(corner):
        for n in ns:
            if c not in corner[n]:
                raise _fail(path, f"cells.{cells[c]}.corner",
                            f"{cells[n]} is listed but does not list {cells[c]} back")
    lines: dict[str, tuple[tuple[int, ...], ...]] = {}
    steps: dict[str, list[int]] = {}
    for family, family_lines in data.get("lines", {}).items():
        compiled = []
        plus, minus = [-1] * len(cells), [-1] * len(cells)
        for j, line in enumerate(family_lines):
            for n in line:
                if n not in index:
                    raise _fail(path, f"lines.{family}[{j}]", f"unknown cell {n!r}")
            ids = tuple(index[n] for n in line)
            for a, b in zip(ids, ids[1:], strict=False):
                if plus[a] >= 0:
                    raise _fail(path, f"lines.{family}[{j}]", f"{cells[a]} is on two lines")
                plus[a], minus[b] = b, a
            compiled.append(ids)
        lines[family] = tuple(compiled)
        steps[f"{family}+"] = plus
        steps[f"{family}-"] = minus
    circles = {}
    for key, ring in data.get("circles", {}).items():
        for n in ring:
            if n not in index:
                raise _fail(path, f"circles.{key}", f"unknown cell {n!r}")
        circles[key] = tuple(index[n] for n in ring)
    frozen_steps = {d: tuple(v) for d, v in steps.items()}
    tags = {s: frozenset(i for i, x in enumerate(shapes) if x == s) for s in _SHAPE_RADIUS}
    for tag, names in data.get("tags", {}).items():
        for n in names:
            if n not in index:
                raise _fail(path, f"tags.{tag}", f"unknown cell {n!r}")
        tags[tag] = frozenset(index[n] for n in names)
    return Geometry(
        name=name, kind="cells", title=data.get("title", name), cells=tuple(cells),
        index=_freeze(index), shapes=tuple(shapes), centres=tuple(centres),
        outlines=tuple(outlines), side=tuple(side), corner=tuple(corner),
        steps=_freeze(frozen_steps), rays=_freeze(_rays_from_steps(frozen_steps)),
        tags=_freeze(tags), attributes=_freeze({k: tuple(v) for k, v in attrs.items()}),
        lines=_freeze(lines), circles=_freeze(circles),
    )
