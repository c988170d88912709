"""Lotus-39 (David Moeser, 1998) and Modern Lotus-39 on the 39-cell lotus board.

Everything a piece can do is data over the compiled geometry (``boards/shapes/lotus39.toml``):
each of the seed's 26 piece types (:data:`PIECE_TYPES`) is a combination of

* **steps** — fixed per-cell target tables (King, Wazir, Alfil, Knight, Squirrel, …);
* **rides** — slides along line families, optionally *filtered*: a filtered rider may stop
  only on cells of the listed shapes, and only those cells block it (Alfilrider,
  Archbishop, Hexrider); other cells on the line are leapt;
* **lotus paths** — simple paths in the lotus graph (Lotussa up to 3 steps, Lotusrider any);
* **circle rides** — rides round one lotus circle (Ouroboros);
* **pawn tables** — :data:`PAWN_TABLE`, the per-cell table of lotus39.md §5.4 for both colours.

All the tables are compiled once per geometry (:func:`lotus_tables`; the dearest ones a
cell at a time, when first looked at), so move generation only indexes tables.  Legal
moves are found without make/undo: a move is tried on the board list only when it moves
the King, when the King is in check, or when it vacates a cell through which an enemy
piece could reach the King.

The set-ups are provisional data (DECISIONS.md): :attr:`Lotus39.white_array` and
:attr:`Lotus39.white_reserve`; Black is the top↔bottom mirror.

Long module: the rules of one game, as the spec lists them, kept together.
"""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

from controller.geometry import Geometry
from controller.rules.core import (
    OFF_BOARD,
    Game,
    IllegalMoveError,
    LazyTable,
    Move,
    PadNeed,
    Piece,
    Position,
    PositionError,
    RulesError,
    SpecialStep,
    move_from_cells,
)

WHITE, BLACK = 0, 1
ORTHOGONAL = ("X", "Z60", "Z120")
ALL_FAMILIES = ("X", "Z60", "Z120", "Y", "V", "W")


# ---------------------------------------------------------------------------------
# Pieces as data


class PieceType(NamedTuple):
    """One piece of the seed, as a combination of movement components."""

    letter: str
    name: str
    #: names of fixed step/leap tables (see :func:`_step_table`)
    steps: tuple[str, ...] = ()
    #: (line families, shapes it may stop on — ``()`` = every cell, all cells block)
    rides: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()
    #: longest lotus path (0 = none, ``LOTUS_UNLIMITED`` = any simple path)
    lotus: int = 0
    #: rides round one lotus circle (Ouroboros)
    circle: bool = False
    #: moves by the pawn tables
    pawn: bool = False
    #: pawn that may also step back and may delay promotion (Retreatable Pawn)
    retreat: bool = False
    #: losing it to capture loses the game (only the King)
    royal: bool = False



LOTUS_UNLIMITED = 99
TRIANGLES = ("triangle",)

#: The 26 pieces of the seed (lotus39.md §4.1, §4.2; the Enhanced Rook needs another board).
PIECE_TYPES: tuple[PieceType, ...] = (
    PieceType("K", "King", steps=("king",), royal=True),
    PieceType("U", "Counselor", steps=("king",)),
    PieceType("R", "Rook", rides=((ORTHOGONAL, ()),)),
    PieceType("C", "Crook", rides=((("X", "Z60", "Z120", "Y"), ()),)),
    PieceType("Y", "Wyvern", rides=((("V", "W"), ()),)),
    PieceType("N", "Knight", steps=("knight",)),
    PieceType("L", "Lotussa", lotus=3),
    PieceType("P", "Pawn", pawn=True),
    PieceType("A", "Alfil", steps=("alfil",)),
    PieceType("F", "Ferz", steps=("ferz",)),
    PieceType("Q", "Queen", steps=("king",), rides=((ALL_FAMILIES, ()),)),
    PieceType("S", "Squeen", steps=("king",),
              rides=((ORTHOGONAL, ()), (("Y", "V", "W"), TRIANGLES))),
    PieceType("B", "Bishop", rides=((("Y", "V", "W"), ()),)),
    PieceType("I", "Alfilrider", rides=((("Y", "V", "W"), TRIANGLES),)),
    PieceType("J", "Archbishop", rides=((("Y", "V", "W"), ("triangle", "hexagon")),)),
    PieceType("W", "Wazir", steps=("wazir",)),
    PieceType("G", "General", steps=("general",)),
    PieceType("E", "Colonel", steps=("colonel",)),
    PieceType("T", "Orthodonter", steps=("orthodonter",)),
    PieceType("D", "Dabbaba", steps=("dabbaba",)),
    PieceType("X", "Haxxaba", steps=("haxxaba",)),
    PieceType("H", "Hexrider", rides=((ORTHOGONAL, ("hexagon",)),)),
    PieceType("Z", "Squirrel", steps=("squirrel",)),
    PieceType("M", "Lotusrider", lotus=LOTUS_UNLIMITED),
    PieceType("O", "Ouroboros", circle=True),
    PieceType("V", "Retreatable Pawn", pawn=True, retreat=True),
)
PIECES: dict[str, PieceType] = {p.letter: p for p in PIECE_TYPES}
PAWN_KINDS = frozenset(p.letter for p in PIECE_TYPES if p.pawn)
#: kinds with steps only or rides only: no target is reached two ways (no deduplication)
SINGLE_WAY = frozenset(p.letter for p in PIECE_TYPES
                       if bool(p.steps) != bool(p.rides) and not (p.lotus or p.circle or p.pawn))

#: lotus39.md §5.4: per cell, White's move and capture targets, then Black's ("-" = none).
PAWN_TABLE = """
c7    -         -            c6        e6
d7    -         -            e6        c6,f7
e7    -         -            e6        d7,f7
f7    -         -            e6        d7,g6
g7    -         -            g6        e6
c6    c7        d7           c5        b5,d5
e6    d7,e7,f7  c7,d7,f7,g7  d5,e5,f5  c5,d5,f5,g5
g6    g7        f7           g5        f5,h5
a5    b5        b5           a4        c4
b5    c5        c6           c4        a4,d5
c5    c6        e6           c4        b5,d5
d5    e6        c6,f5        c4        b5,e4
e5    e6        d5,f5        e4        c4,g4
f5    e6        d5,g6        g4        e4,h5
g5    g6        e6           g4        f5,h5
h5    g5        g6           g4        f5,i4
i5    h5        h5           i4        g4
a4    a5        b5           a3        b3
c4    b5,c5,d5  a5,b5,d5,e5  b3,c3,d3  a3,b3,d3,e3
e4    e5        d5,f5        e3        d3,f3
g4    f5,g5,h5  e5,f5,h5,i5  f3,g3,h3  e3,f3,h3,i3
i4    i5        h5           i3        h3
a3    a4        c4           b3        b3
b3    c4        a4,d3        c3        c2
c3    c4        b3,d3        c2        e2
d3    c4        b3,e4        e2        c2,f3
e3    e4        c4,g4        e2        d3,f3
f3    g4        e4,h3        e2        d3,g2
g3    g4        f3,h3        g2        e2
h3    g4        f3,i4        g3        g2
i3    i4        g4           h3        h3
c2    c3        b3,d3        c1        d1
e2    d3,e3,f3  c3,d3,f3,g3  d1,e1,f1  c1,d1,f1,g1
g2    g3        f3,h3        g1        f1
c1    c2        e2           -         -
d1    e2        c2,f1        -         -
e1    e2        d1,f1        -         -
f1    e2        d1,g2        -         -
g1    g2        e2           -         -
"""

#: White's and Black's home hexagon (where the Pawn stack stands and the Knight enters)
HOME_HEXAGON = ("e2", "e6")
#: the rank on which a player's Pawns promote (the opponent's wavy back rank)
PROMOTION_RANK = (7, 1)
MAX_STACK = 3


def mirror_cell(name: str) -> str:
    """The top↔bottom mirror of a cell name (rank r ↔ 8−r): maps White's set-up to Black's."""
    return f"{name[0]}{8 - int(name[1:])}"


# ---------------------------------------------------------------------------------
# Compiled tables


class LotusNode(NamedTuple):
    """A node of a precomputed lotus-path trie: the cell, its path length, the onward nodes."""

    cell: int
    depth: int
    onward: tuple[LotusNode, ...]


class RideCheck(NamedTuple):
    """One direction of reverse attack detection from a target cell."""

    ray: tuple[tuple[int, bool], ...]  #: (cell, blocks) outward from the target
    kinds: frozenset[str]  #: riders attacking the target along this ray


class LotusTables(NamedTuple):
    """Everything move generation looks up, compiled once per geometry; the tables dearest
    to build (the lotus paths, what attacks a cell) build each cell's entry when first
    looked at (:class:`~controller.rules.core.LazyTable`)."""

    #: kind -> cell -> fixed step/leap targets (union of the kind's step tables)
    steps: dict[str, tuple[tuple[int, ...], ...]]
    #: kind -> cell -> rides, each the cells it may stop on in order (each of them blocks;
    #: cells a filtered rider leaps are left out)
    rides: dict[str, tuple[tuple[tuple[int, ...], ...], ...]]
    #: cell -> lotus-graph neighbours (non-hexagons sharing an edge; none for a hexagon)
    lotus_adjacent: tuple[tuple[int, ...], ...]
    #: cell -> lotus-path trie (every simple path of the lotus graph from the cell)
    lotus_tries: LazyTable  # of tuple[LotusNode, ...]
    #: cell -> rides round each lotus circle through the cell, both ways
    circle_rays: tuple[tuple[tuple[int, ...], ...], ...]
    #: owner -> cell -> pawn move / capture / retreat targets
    pawn_moves: tuple[tuple[tuple[int, ...], ...], ...]
    pawn_captures: tuple[tuple[tuple[int, ...], ...], ...]
    pawn_retreats: tuple[tuple[tuple[int, ...], ...], ...]
    #: attacker owner -> target cell -> ((from cell, kinds that attack the target from it), …)
    step_attackers: tuple[LazyTable, LazyTable]  # of tuple[tuple[int, frozenset[str]], ...]
    #: target cell -> reverse ride checks (only for target cells the riders may stop on)
    ride_attackers: LazyTable  # of tuple[RideCheck, ...]
    #: lotus cells reachable by a lotus path of length ≤ 2 (discovery squares for a Lotussa)
    lotus_near: LazyTable  # of frozenset[int]
    lotus_cells: frozenset[int]
    #: owner -> cells of that player's promotion rank; home hexagons
    promotion_cells: tuple[frozenset[int], frozenset[int]]
    home: tuple[int, int]


def _two_steps(g: Geometry, c: int, families: tuple[str, ...]) -> list[int]:
    out = []
    for f in families:
        for d in (f + "+", f + "-"):
            ray = g.rays[d][c]
            if len(ray) >= 2:
                out.append(ray[1])
    return out


def _step_table(g: Geometry, name: str) -> tuple[tuple[int, ...], ...]:
    """The per-cell targets of one step/leap component (lotus39.md §4)."""
    shapes = g.shapes
    hexagons, triangles, squares = g.tags["hexagon"], g.tags["triangle"], g.tags["square"]
    table = []
    king = [tuple(g.side[c]) + tuple(g.corner[c]) for c in range(len(g))]
    for c in range(len(g)):
        if name == "king":
            t = king[c]
        elif name == "wazir":  # one orthogonal (X or Z) step: hexagon <-> square
            t = [g.steps[f + s][c] for f in ORTHOGONAL for s in "+-"]
        elif name == "orthodonter":  # one step along X or Y
            t = [g.steps[f + s][c] for f in ("X", "Y") for s in "+-"]
        elif name == "ferz":  # square to a square touching it only at a corner
            t = [n for n in g.corner[c] if c in squares and n in squares]
        elif name == "general":
            t = [n for n in king[c] if shapes[n] in ("square", "hexagon")]
        elif name == "colonel":
            t = [n for n in king[c] if shapes[n] in ("triangle", "hexagon")]
        elif name == "knight":  # hexagon over one square to the next hexagon on an X/Z line
            t = [n for n in _two_steps(g, c, ORTHOGONAL) if c in hexagons and n in hexagons]
        elif name == "alfil":  # triangle over the cell between to the next triangle (Y/V/W)
            t = [n for n in _two_steps(g, c, ("Y", "V", "W")) if c in triangles and n in triangles]
        elif name == "dabbaba":
            t = _two_steps(g, c, ("X", "Z60", "Z120", "Y"))
        elif name == "haxxaba":
            t = _two_steps(g, c, ("Z60", "Z120", "V", "W"))
        elif name == "squirrel":  # King distance exactly 2
            near = set(king[c]) | {c}
            t = sorted({m for n in king[c] for m in king[n]} - near)
        else:
            raise RulesError(f"unknown step table {name!r}")
        table.append(tuple(sorted({n for n in t if n >= 0})))
    return tuple(table)


def _ray_cells(g: Geometry, c: int, families: tuple[str, ...]) -> list[tuple[int, ...]]:
    return [g.rays[f + s][c] for f in families for s in "+-" if g.rays[f + s][c]]


def _lotus_trie(adjacent: tuple[tuple[int, ...], ...], start: int) -> tuple[LotusNode, ...]:
    def grow(cell: int, depth: int, visited: frozenset[int]) -> tuple[LotusNode, ...]:
        return tuple(
            LotusNode(n, depth, grow(n, depth + 1, visited | {n}))
            for n in adjacent[cell] if n not in visited
        )

    return grow(start, 1, frozenset({start}))


def _pawn_table(g: Geometry) -> tuple[tuple, tuple]:
    moves: list[list[tuple[int, ...]]] = [[()] * len(g), [()] * len(g)]
    captures: list[list[tuple[int, ...]]] = [[()] * len(g), [()] * len(g)]
    seen = set()
    for line in PAWN_TABLE.strip().splitlines():
        name, *columns = line.split()
        c = g.cell(name)
        seen.add(c)
        for k, text in enumerate(columns):
            cells = () if text == "-" else tuple(g.cell(n) for n in text.split(","))
            (moves, captures)[k % 2][k // 2][c] = cells
    if len(seen) != len(g):
        raise RulesError("PAWN_TABLE must list every cell once")
    return (tuple(map(tuple, moves)), tuple(map(tuple, captures)))


@cache
def lotus_tables(g: Geometry) -> LotusTables:
    """Compile every per-cell table of the 26 pieces for geometry ``g`` (once per process)."""
    n = len(g)
    shapes = g.shapes
    step_tables = {name: _step_table(g, name) for p in PIECE_TYPES for name in p.steps}
    steps = {}
    rides: dict[str, Any] = {}
    for p in PIECE_TYPES:
        if p.steps:
            steps[p.letter] = tuple(
                tuple(sorted({t for name in p.steps for t in step_tables[name][c]}))
                for c in range(n))
        if p.rides:
            per_cell = []
            for c in range(n):
                rays = []
                for families, stop in p.rides:
                    for ray in _ray_cells(g, c, families):
                        kept = tuple(t for t in ray if not stop or shapes[t] in stop)
                        if kept:
                            rays.append(kept)
                per_cell.append(tuple(rays))
            rides[p.letter] = tuple(per_cell)
    hexagons = g.tags["hexagon"]
    lotus_adjacent = tuple(
        () if c in hexagons else tuple(x for x in g.side[c] if x not in hexagons)
        for c in range(n))
    lotus_tries = LazyTable(n, lambda c: _lotus_trie(lotus_adjacent, c))
    circle_rays = []
    for c in range(n):
        rays = []
        for ring in g.circles.values():
            if c in ring:
                i = ring.index(c)
                rays.append(ring[i + 1:] + ring[:i])
                rays.append(tuple(reversed(ring[:i])) + tuple(reversed(ring[i + 1:])))
        circle_rays.append(tuple(rays))
    pawn_moves, pawn_captures = _pawn_table(g)
    pawn_retreats = tuple(
        tuple(tuple(x for x in range(n) if c in pawn_moves[owner][x]) for c in range(n))
        for owner in (WHITE, BLACK))

    # reverse attack tables: from which cells, and by which kinds, is a target attacked
    # (a step is the same for both colours, a pawn capture is not)
    steppers: list[dict[int, set[str]]] = [{} for _ in range(n)]
    for kind, table in steps.items():
        for x in range(n):
            for t in table[x]:
                steppers[t].setdefault(x, set()).add(kind)
    pawn_sources: tuple[list[list[int]], ...] = ([[] for _ in range(n)], [[] for _ in range(n)])
    for owner in (WHITE, BLACK):
        for x in range(n):
            for t in pawn_captures[owner][x]:
                pawn_sources[owner][t].append(x)

    def step_attackers(owner: int, t: int) -> tuple[tuple[int, frozenset[str]], ...]:
        kinds = {x: set(ks) for x, ks in steppers[t].items()}
        for x in pawn_sources[owner][t]:
            kinds.setdefault(x, set()).update(PAWN_KINDS)
        return tuple((x, frozenset(ks)) for x, ks in sorted(kinds.items()))

    ride_families = {(f, stop) for p in PIECE_TYPES for fs, stop in p.rides for f in fs}

    def ride_attackers(t: int) -> tuple[RideCheck, ...]:
        checks = []
        for family, stop in ride_families:
            if stop and shapes[t] not in stop:
                continue
            kinds = frozenset(p.letter for p in PIECE_TYPES
                              if any(family in fs and s == stop for fs, s in p.rides))
            for sign in "+-":
                ray = g.rays[family + sign][t]
                if ray:
                    checks.append(RideCheck(
                        tuple((x, not stop or shapes[x] in stop) for x in ray), kinds))
        # merge checks with the same ray so each direction is walked once per filter
        merged: dict[tuple, set[str]] = {}
        for check in checks:
            merged.setdefault(check.ray, set()).update(check.kinds)
        return tuple(RideCheck(ray, frozenset(ks)) for ray, ks in sorted(merged.items()))

    def lotus_near(c: int) -> frozenset[int]:
        return frozenset(node.cell for node in lotus_tries[c] for node in (node, *node.onward))

    promotion_cells = tuple(
        frozenset(c for c in range(n) if g.attributes["rank"][c] == PROMOTION_RANK[o])
        for o in (WHITE, BLACK))
    return LotusTables(
        steps=steps, rides=rides, lotus_adjacent=lotus_adjacent, lotus_tries=lotus_tries,
        circle_rays=tuple(circle_rays), pawn_moves=pawn_moves, pawn_captures=pawn_captures,
        pawn_retreats=pawn_retreats,
        step_attackers=(LazyTable(n, lambda t: step_attackers(WHITE, t)),
                        LazyTable(n, lambda t: step_attackers(BLACK, t))),
        ride_attackers=LazyTable(n, ride_attackers), lotus_near=LazyTable(n, lotus_near),
        lotus_cells=frozenset(c for c in range(n) if c not in hexagons),
        promotion_cells=(promotion_cells[0], promotion_cells[1]),
        home=(g.cell(HOME_HEXAGON[0]), g.cell(HOME_HEXAGON[1])),
    )


def _walk_lotus(board: list, nodes: tuple[LotusNode, ...], found: dict[int, bool],
                me: int) -> None:
    """Lotus-path targets: every empty node is a target and continues; an occupied one ends."""
    for node in nodes:
        q = board[node.cell]
        if q is None:
            found[node.cell] = False
            if node.onward:
                _walk_lotus(board, node.onward, found, me)
        elif q.owner != me:
            found[node.cell] = True


def _lotus_attacked(board: list, nodes: tuple[LotusNode, ...], by: int, limit: int) -> bool:
    """Whether a lotus path from the target reaches an enemy Lotussa (≤ 3) or Lotusrider."""
    for node in nodes:
        q = board[node.cell]
        if q is None:
            if node.depth < limit and _lotus_attacked(board, node.onward, by, limit):
                return True
        elif q.owner == by and (q.kind == "M" or q.kind == "L" and node.depth <= 3):
            return True
    return False


class AttackPlan(NamedTuple):
    """How to test whether one cell is attacked by one player with a given set of kinds."""

    steps: tuple[tuple[int, frozenset[str]], ...]
    rides: tuple[RideCheck, ...]
    lotus_limit: int  #: 0, 3 (Lotussa only) or LOTUS_UNLIMITED
    circle: bool
    #: cells whose vacating could let an enemy piece through to the cell
    exposure: frozenset[int]
    #: ``exposure`` and the cell itself (where the King would leave from)
    risky: frozenset[int]


# ---------------------------------------------------------------------------------
# The game


class Lotus39(Game):
    """Traditional Lotus-39 (provisional array, DECISIONS.md)."""

    piece_names = {letter: kind.name for letter, kind in PIECES.items()}
    special_step = SpecialStep(
        "Move a Pawn off your home stack: take one Pawn from the three on your home hexagon "
        "and put it on a lit cell; the others stay.", leaves_part=True)

    name = "lotus39"
    title = "Lotus-39"
    shape = "lotus39"
    provisional = "provisional set-up: the original Lotus-39 array is not available"
    #: White's set-up (data): cell=piece, Pawn stack height after the letter; Black mirrors it
    white_array = "e1=K,d1=R,f1=R,c1=A,g1=A,c2=L,g2=F,e2=P3,a3=P,c3=P,e3=P,g3=P,i3=P"
    #: pieces White starts with off the board (placed later on the emptied home hexagon)
    white_reserve = "N"
    pads = (PadNeed("reserve", 0, "N"), PadNeed("reserve", 1, "N"))

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.tables = lotus_tables(self.geometry)
        army = [part.split("=")[1][0] for part in self.white_array.split(",")]
        army += list(self.white_reserve)
        #: one promotion move per kind of the initial army except King and Pawn (DECISIONS)
        self.promotion_kinds: tuple[str, ...] = tuple(
            dict.fromkeys(k for k in army if k not in ("K", "P")))
        self._plans: dict[tuple[int, int, frozenset[str]], AttackPlan] = {}
        self._pawn_cache: dict[tuple[Piece, int], tuple] = {}
        #: per (piece, cell): its quiet move and its capture to each target, built on
        #: demand and kept (a Move is an immutable value: one object serves every position)
        self._move_cache: dict[tuple[Piece, int], dict[int, tuple[Move, Move]]] = {}
        self._single_way_cache: dict[tuple[Piece, int], tuple] = {}
        self._listings: dict[tuple[Piece, int], tuple] = {}  # see _listing_of
        self._start_text = self._array_text()
        self.parse_position(self._start_text)  # validates the set-up data once

    # -- set-up ------------------------------------------------------------------------
    def _array_text(self) -> str:
        pieces = []
        for part in self.white_array.split(","):
            cell, sym = part.split("=")
            pieces.append(f"{cell}={sym}")
            pieces.append(f"{mirror_cell(cell)}={sym.lower()}")
        reserve = self.white_reserve + self.white_reserve.lower()
        return f"{','.join(pieces)} w {reserve or '-'} 0 1"

    def start(self) -> Position:
        return self.parse_position(self._start_text)

    # -- position text -----------------------------------------------------------------
    def position_text(self, pos: Position) -> str:
        """``cells side reserves halfmove fullmove``, e.g. ``e1=K,e2=P3,e7=k w Nn 0 1``."""
        g = self.geometry
        board = ",".join(f"{g.cells[c]}={self.piece_symbol(p)}"
                         for c, p in enumerate(pos.board) if p is not None)
        reserve = "".join(
            (k if owner == WHITE else k.lower()) * n
            for owner in (WHITE, BLACK) for k, n in sorted(pos.reserves[owner].items()))
        return (f"{board or '-'} {'wb'[pos.turn]} {reserve or '-'} "
                f"{pos.halfmove} {pos.fullmove}")

    def parse_position(self, text: str) -> Position:
        fields = text.split()
        if len(fields) != 5:
            raise PositionError(
                f"a Lotus-39 position has 5 fields (cells side reserves halfmove fullmove), "
                f"got {len(fields)} in {text!r}")
        board_text, side, reserve_text, half, full = fields
        g = self.geometry
        board: list[Piece | None] = [None] * len(g)
        if board_text != "-":
            for item in board_text.split(","):
                cell_name, sep, sym = item.partition("=")
                if not sep:
                    raise PositionError(f"expected cell=piece, got {item!r}")
                if cell_name not in g.index:
                    raise PositionError(f"no cell {cell_name!r} on the Lotus-39 board")
                c = g.index[cell_name]
                if board[c] is not None:
                    raise PositionError(f"cell {cell_name} is given twice")
                board[c] = self._parse_piece(sym, cell_name)
        if side not in ("w", "b"):
            raise PositionError(f"side to move must be 'w' or 'b', got {side!r}")
        pos = Position(self, board, "wb".index(side))
        if reserve_text != "-":
            for ch in reserve_text:
                if ch.upper() != "N":
                    raise PositionError(
                        f"only Knights wait in the reserve, got {ch!r} in {reserve_text!r}")
                owner = WHITE if ch.isupper() else BLACK
                pos.reserves[owner][ch.upper()] = pos.reserves[owner].get(ch.upper(), 0) + 1
        try:
            pos.halfmove, pos.fullmove = int(half), int(full)
        except ValueError:
            raise PositionError(f"move counters must be integers, got {half!r} {full!r}") from None
        if pos.halfmove < 0 or pos.fullmove < 1:
            raise PositionError(f"bad move counters {half} {full}")
        self._validate(pos)
        pos.keys = [self.position_key(pos)]
        return pos

    def _parse_piece(self, sym: str, cell_name: str) -> Piece:
        if not sym or sym[0].upper() not in PIECES:
            raise PositionError(f"unknown piece {sym!r} on {cell_name} "
                                f"(letters: {''.join(sorted(PIECES))})")
        kind = sym[0].upper()
        owner = WHITE if sym[0].isupper() else BLACK
        height = 1
        if len(sym) > 1:
            if not sym[1:].isdigit() or sym[1] == "0":
                raise PositionError(f"bad piece {sym!r} on {cell_name}")
            height = int(sym[1:])
            if height == 1:
                raise PositionError(f"write a single piece without height: {sym!r}")
        if height > 1:
            if kind != "P":
                raise PositionError(f"only Pawns stack, got {sym!r} on {cell_name}")
            if cell_name != HOME_HEXAGON[owner]:
                raise PositionError(
                    f"a Pawn stack stands only on its home hexagon {HOME_HEXAGON[owner]}, "
                    f"got {sym!r} on {cell_name}")
            if height > MAX_STACK:
                raise PositionError(f"at most {MAX_STACK} Pawns share the home hexagon, "
                                    f"got {height} on {cell_name}")
        return Piece(owner, kind, height)

    def _validate(self, pos: Position) -> None:
        t = self.tables
        kings = [[], []]
        for c, p in enumerate(pos.board):
            if p is None:
                continue
            if p.kind == "K":
                kings[p.owner].append(c)
            if p.kind == "P" and c in t.promotion_cells[p.owner]:
                raise PositionError(
                    f"a {self.player_names[p.owner]} Pawn on {self.geometry.cells[c]} "
                    f"should have promoted")
        for owner in (WHITE, BLACK):
            if len(kings[owner]) > 1:
                raise PositionError(f"{self.player_names[owner]} has more than one King")
        if self.in_check(pos, 1 - pos.turn):
            raise PositionError(
                f"{self.player_names[1 - pos.turn]} is in check but it is not his move")

    def check_playable(self, pos: Position) -> None:
        """The King is royal (check, checkmate and every legal move depend on it): a game
        starts only with one King per side.  (Rules studies may leave Kings out.)"""
        for owner in (WHITE, BLACK):
            if not any(p is not None and p.kind == "K" and p.owner == owner
                       for p in pos.board):
                raise PositionError(f"{self.player_names[owner]} has no King")

    def position_key(self, pos: Position) -> Any:
        """Board, side to move and reserves: what FIDE repetition compares."""
        return (tuple(pos.board), pos.turn,
                tuple(tuple(sorted(r.items())) for r in pos.reserves))

    # -- attacks -----------------------------------------------------------------------
    def _plan(self, cell: int, by: int, kinds: frozenset[str]) -> AttackPlan:
        key = (cell, by, kinds)
        plan = self._plans.get(key)
        if plan is None:
            t = self.tables
            steps = tuple((x, ks & kinds) for x, ks in t.step_attackers[by][cell] if ks & kinds)
            rides = tuple(RideCheck(r.ray, r.kinds & kinds)
                          for r in t.ride_attackers[cell] if r.kinds & kinds)
            lotus = (LOTUS_UNLIMITED if "M" in kinds else 3 if "L" in kinds else 0)
            circle = "O" in kinds
            exposure = {x for r in rides for x, _ in r.ray}
            if lotus == LOTUS_UNLIMITED:
                exposure |= t.lotus_cells
            elif lotus:
                exposure |= t.lotus_near[cell]
            if circle:
                exposure |= {x for ray in t.circle_rays[cell] for x in ray}
            plan = AttackPlan(steps, rides, lotus, circle, frozenset(exposure),
                              frozenset(exposure | {cell}))
            self._plans[key] = plan
        return plan

    def _attacked(self, board: list, cell: int, by: int, plan: AttackPlan) -> bool:
        for x, ks in plan.steps:
            q = board[x]
            if q is not None and q.owner == by and q.kind in ks:
                return True
        for ray, ks in plan.rides:
            for x, blocks in ray:
                q = board[x]
                if q is not None:
                    if q.owner == by and q.kind in ks:
                        return True
                    if blocks:
                        break
        if plan.lotus_limit and _lotus_attacked(board, self.tables.lotus_tries[cell], by,
                                                plan.lotus_limit):
            return True
        if plan.circle:
            for ray in self.tables.circle_rays[cell]:
                for x in ray:
                    q = board[x]
                    if q is not None:
                        if q.owner == by and q.kind == "O":
                            return True
                        break
        return False

    @staticmethod
    def _kinds_of(board: list, owner: int) -> frozenset[str]:
        return frozenset(p.kind for p in board if p is not None and p.owner == owner)

    @staticmethod
    def _king(board: list, owner: int) -> int:
        for c, p in enumerate(board):
            if p is not None and p.kind == "K" and p.owner == owner:
                return c
        return -1

    def attacked(self, pos: Position, cell: int, by: int) -> bool:
        """Whether a piece of ``by`` could capture on ``cell`` (pins ignored)."""
        return self._attacked(pos.board, cell, by,
                              self._plan(cell, by, self._kinds_of(pos.board, by)))

    def in_check(self, pos: Position, player: int | None = None) -> bool:
        player = pos.turn if player is None else player
        king = self._king(pos.board, player)
        return king >= 0 and self.attacked(pos, king, 1 - player)

    # -- move generation ---------------------------------------------------------------
    def pseudo_moves(self, pos: Position) -> list[Move]:
        """Every move of the side to move, ignoring the safety of its King."""
        return self._generate(pos)[0]

    def _generate(self, pos: Position) -> tuple[list[Move], int, frozenset[str]]:
        """Pseudo-legal moves, the mover's King cell (-1 if none) and the enemy's kinds.

        One pass over the board serves all three, since legal-move filtering needs them.
        """
        me = pos.turn
        board = pos.board
        t = self.tables
        out: list[Move] = []
        king = -1
        enemy_kinds: set[str] = set()
        listings = self._listings
        add = out.append
        for c, p in enumerate(board):
            if p is None:
                continue
            if p.owner != me:
                enemy_kinds.add(p.kind)
                continue
            pawn, steps, rays, back, in_place = (listings.get((p, c))
                                                 or self._listing_of(p, c))
            if pawn:
                forward, captures = steps, rays
                for x, moves in forward:
                    if board[x] is None:
                        out.extend(moves)
                for x, moves in captures:
                    q = board[x]
                    if q is not None and q.owner != me:
                        out.extend(moves)
                if back:
                    for x, moves in back:
                        if board[x] is None:
                            out.extend(moves)
                if in_place:
                    out.extend(in_place)
                continue
            if p.kind == "K":
                king = c
            if steps is not None:  # every target is reached one way only
                for x, quiet, capture in steps:
                    q = board[x]
                    if q is None:
                        add(quiet)
                    elif q.owner != me:
                        add(capture)
                for ray in rays:
                    for x, quiet, capture in ray:
                        q = board[x]
                        if q is None:
                            add(quiet)
                        else:
                            if q.owner != me:
                                add(capture)
                            break
                continue
            spec = PIECES[p.kind]
            kept = self._move_cache.get((p, c))
            if kept is None:
                kept = self._move_cache[(p, c)] = {}
            found: dict[int, bool] = {}
            if spec.steps:
                for x in t.steps[p.kind][c]:
                    q = board[x]
                    if q is None:
                        found[x] = False
                    elif q.owner != me:
                        found[x] = True
            if spec.rides:
                for ray in t.rides[p.kind][c]:
                    for x in ray:
                        q = board[x]
                        if q is None:
                            found[x] = False
                        else:
                            if q.owner != me:
                                found[x] = True
                            break
            if spec.lotus:
                if spec.lotus == LOTUS_UNLIMITED:
                    _walk_lotus(board, t.lotus_tries[c], found, me)
                else:
                    self._walk_lotussa(board, c, found, me)
            if spec.circle:
                for ray in t.circle_rays[c]:
                    for x in ray:
                        q = board[x]
                        if q is None:
                            found[x] = False
                        else:
                            if q.owner != me:
                                found[x] = True
                            break
            for x, capture in found.items():
                pair = kept.get(x) or self._keep(kept, p, c, x)
                out.append(pair[capture])
        home = t.home[me]
        if pos.reserves[me].get("N") and board[home] is None:
            out.append(Move("place", OFF_BOARD, home, Piece(me, "N")))
        return out, king, frozenset(enemy_kinds)

    def _listing_of(self, p: Piece, c: int) -> tuple:
        """How :meth:`_generate` lists ``p`` on ``c``, built once: ``(True, forward,
        captures, back, in_place)`` for a pawn (:meth:`_pawn_table_moves`), ``(False, steps,
        rays, None, None)`` for a :data:`SINGLE_WAY` kind (:meth:`_single_way`), else
        ``(False, None, None, None, None)``."""
        if PIECES[p.kind].pawn:
            listing = (True, *self._pawn_table_moves(p, c))
        elif p.kind in SINGLE_WAY:
            listing = (False, *self._single_way(p, c), None, None)
        else:
            listing = (False, None, None, None, None)
        self._listings[(p, c)] = listing
        return listing

    def _single_way(self, p: Piece, c: int) -> tuple:
        """``(steps, rays)`` of a piece of a :data:`SINGLE_WAY` kind on ``c``: (target, quiet
        move, capture) per step target, and per ride its cells in order; built once."""
        t = self.tables
        kept = self._move_cache.setdefault((p, c), {})

        def entry(x: int) -> tuple[int, Move, Move]:
            quiet, capture = kept.get(x) or self._keep(kept, p, c, x)
            return x, quiet, capture

        spec = PIECES[p.kind]
        steps = tuple(entry(x) for x in t.steps[p.kind][c]) if spec.steps else ()
        rays = tuple(tuple(entry(x) for x in ray) for ray in t.rides[p.kind][c]) \
            if spec.rides else ()
        cached = self._single_way_cache[(p, c)] = (steps, rays)
        return cached

    @staticmethod
    def _keep(kept: dict[int, tuple[Move, Move]], p: Piece, c: int, x: int
              ) -> tuple[Move, Move]:
        """The quiet move and the capture of ``p`` from ``c`` to ``x``, built once."""
        pair = kept[x] = (Move("move", c, x, p), Move("move", c, x, p, None, (x,)))
        return pair

    def _walk_lotussa(self, board: list, start: int, found: dict[int, bool], me: int) -> None:
        """Lotus paths of 1–3 steps, written out (the hot case of :func:`_walk_lotus`)."""
        adjacent = self.tables.lotus_adjacent
        for a in adjacent[start]:
            q = board[a]
            if q is not None:
                if q.owner != me:
                    found[a] = True
                continue
            found[a] = False
            for b in adjacent[a]:
                if b == start:
                    continue
                q = board[b]
                if q is not None:
                    if q.owner != me:
                        found[b] = True
                    continue
                found[b] = False
                for x in adjacent[b]:
                    if x in (a, start):
                        continue
                    q = board[x]
                    if q is None:
                        found[x] = False
                    elif q.owner != me:
                        found[x] = True

    def _pawn_table_moves(self, p: Piece, c: int) -> tuple:
        """The Moves a pawn (or stack) ``p`` on ``c`` may make, grouped by what they need.

        ``(forward, captures, back, in_place)``: the first three are ``(target, moves)``
        pairs (empty target / enemy on target / empty target), ``in_place`` the in-place
        promotions of a Retreatable Pawn.  Built once per (piece, cell) and kept.
        """
        key = (p, c)
        cached = self._pawn_cache.get(key)
        if cached is not None:
            return cached
        t = self.tables
        me = p.owner
        retreat = PIECES[p.kind].retreat
        single = Piece(me, p.kind)
        left = Piece(me, p.kind, p.height - 1) if p.height > 1 else None
        promote_on = t.promotion_cells[me]

        def arrivals(x: int, captures: tuple[int, ...]) -> tuple[Move, ...]:
            if x not in promote_on:
                return (Move("move", c, x, single, left, captures),)
            stay = (Move("move", c, x, single, left, captures),) if retreat else ()
            return stay + tuple(Move("move", c, x, Piece(me, k), left, captures, promotion=k)
                                for k in self.promotion_kinds)

        forward = tuple((x, arrivals(x, ())) for x in t.pawn_moves[me][c])
        captures = tuple((x, arrivals(x, (x,))) for x in t.pawn_captures[me][c])
        back: tuple = ()
        in_place: tuple[Move, ...] = ()
        if retreat:
            back = tuple((x, (Move("move", c, x, single, left),))
                         for x in t.pawn_retreats[me][c])
            if c in promote_on:
                in_place = tuple(Move("promote", c, c, Piece(me, k), promotion=k)
                                 for k in self.promotion_kinds)
        cached = (forward, captures, back, in_place)
        self._pawn_cache[key] = cached
        return cached

    def generate_moves(self, pos: Position) -> list[Move]:
        """Pseudo-legal moves that keep the King safe; most need no trial on the board."""
        board = pos.board
        pseudo, king, kinds = self._generate(pos)
        if king < 0:
            return pseudo
        enemy = 1 - pos.turn
        plan = self._plan(king, enemy, kinds)
        check = self._attacked(board, king, enemy, plan)
        exposure = plan.exposure
        if not check:  # only a King move and a move off a line onto the King need a test
            risky = plan.risky
            return [m for m in pseudo if m.origin not in risky or (
                m.left is not None and m.origin != king) or self._safe(board, m, king, kinds)]
        legal = []
        for m in pseudo:
            o, x = m.origin, m.target
            if o == king:
                board[o] = None
                saved = board[x]
                board[x] = m.piece
                safe = not self._attacked(board, x, enemy, self._plan(x, enemy, kinds))
                board[x] = saved
                board[o] = m.piece
            elif not check and (o < 0 or m.left is not None or o not in exposure):
                safe = True
            else:
                saved_o = board[o] if o >= 0 else None
                saved = board[x]
                if o >= 0:
                    board[o] = m.left
                board[x] = m.piece
                safe = not self._attacked(board, king, enemy, plan)
                board[x] = saved
                if o >= 0:
                    board[o] = saved_o
            if safe:
                legal.append(m)
        return legal

    def _safe(self, board: list, m: Move, king: int, kinds: frozenset[str]) -> bool:
        """Whether the mover's King (on ``king``, not in check) is safe after ``m``, tried
        on the board and put back."""
        o, x = m.origin, m.target
        enemy = 1 - board[king].owner
        saved_o, saved = board[o], board[x]
        board[o] = m.left
        board[x] = m.piece
        cell = x if o == king else king
        safe = not self._attacked(board, cell, enemy, self._plan(cell, enemy, kinds))
        board[x] = saved
        board[o] = saved_o
        return safe

    def make(self, pos: Position, move: Move) -> None:
        me = pos.turn
        if move.kind == "place":
            pos.add_reserve(me, move.piece.kind, -1)
            pos.put(move.target, move.piece)
            pawn = False
        elif move.kind == "promote":
            pawn = True
            pos.put(move.origin, move.piece)
        else:
            mover = pos.board[move.origin]
            pawn = mover is not None and mover.kind in PAWN_KINDS
            pos.put(move.origin, move.left)
            pos.put(move.target, move.piece)
        pos.halfmove = 0 if pawn or move.captures else pos.halfmove + 1
        if me == BLACK:
            pos.fullmove += 1
        pos.turn = 1 - me

    # -- notation ----------------------------------------------------------------------
    def _mover(self, pos: Position, move: Move) -> Piece:
        return move.piece if move.kind == "place" else pos.board[move.origin]

    def long_move_text(self, pos: Position, move: Move) -> str:
        """``Ld3-e5``, ``e6xd7=L``, ``N@e2``, ``Vc7=R`` (in place); no Pawn letter."""
        cells = self.geometry.cells
        if move.kind == "place":
            return f"{move.piece.kind}@{cells[move.target]}"
        mover = self._mover(pos, move)
        letter = "" if mover.kind == "P" else mover.kind
        if move.kind == "promote":
            return f"{letter}{cells[move.origin]}={move.promotion}"
        sep = "x" if move.captures else "-"
        promo = f"={move.promotion}" if move.promotion else ""
        return f"{letter}{cells[move.origin]}{sep}{cells[move.target]}{promo}"

    def move_text(self, pos: Position, move: Move) -> str:
        """Short algebraic: ``Le5``, ``Rdxe6``, ``exc4``, ``d3``, ``e7=L``, ``N@e2``, then +/#."""
        return self._short_text(pos, move, self.generate_moves(pos)) + self._check_mark(pos, move)

    def _short_text(self, pos: Position, move: Move, legal: list[Move]) -> str:
        cells = self.geometry.cells
        if move.kind == "place":
            return f"{move.piece.kind}@{cells[move.target]}"
        mover = self._mover(pos, move)
        if move.kind == "promote":
            return f"{mover.kind}{cells[move.origin]}={move.promotion}"
        letter = "" if mover.kind == "P" else mover.kind
        rivals = {
            m.origin for m in legal
            if m.kind == "move" and m.target == move.target and m.origin != move.origin
            and pos.board[m.origin].kind == mover.kind
        }
        origin = cells[move.origin]
        file, rank = origin[0], origin[1:]
        if not rivals:
            hint = file if mover.kind == "P" and move.captures else ""
        elif all(cells[r][0] != file for r in rivals):
            hint = file
        elif all(cells[r][1:] != rank for r in rivals):
            hint = rank
        else:
            hint = origin
        capture = "x" if move.captures else ""
        promo = f"={move.promotion}" if move.promotion else ""
        return f"{letter}{hint}{capture}{cells[move.target]}{promo}"

    def _check_mark(self, pos: Position, move: Move) -> str:
        pos.push(move, record=False)
        try:
            if not self.in_check(pos):
                return ""
            return "+" if self.has_legal_move(pos) else "#"
        finally:
            pos.pop()

    def parse_move(self, pos: Position, text: str) -> Move:
        """The legal move written ``text`` (short or long form; ``+``/``#`` optional)."""
        want = text.strip().rstrip("+#!?").replace("×", "x")
        legal = self.legal_moves(pos)
        for move in legal:
            if want in (self._short_text(pos, move, legal), self.long_move_text(pos, move)):
                return move
        found = move_from_cells(self, pos, legal, text)
        if found is not None:
            return found
        raise IllegalMoveError(f"illegal move {text!r} in {self.position_text(pos)}")

    def move_json(self, pos: Position, move: Move) -> dict[str, Any]:
        data = super().move_json(pos, move)
        data["long"] = self.long_move_text(pos, move)
        if move.promotion:
            data["promotion"] = move.promotion
        if move.left is not None:
            data["left"] = self.piece_symbol(move.left)
        return data

    #: the home hexagon holds a stack of Pawns, said as such ("stack of 3 Pawns")
    stack_words = "stack of {count} {name}s"

    def piece_name(self, piece: Piece) -> str:
        """The piece's name: the board asks for a promoted piece by it ("put a Lotussa
        on c7"), since one letter may mean different pieces in different games."""
        return PIECES[piece.kind].name

    # -- drawing -----------------------------------------------------------------------
    def render_text(self, pos: Position) -> str:
        """The board by ranks in the schematic layout of lotus39.md §1.1.

        ``/x\\`` triangle with apex toward rank 7, ``\\x/`` apex toward rank 1, ``[x]`` rank
        square, ``<x>`` oblique square, ``(x)`` hexagon; ``x`` is the piece (upper case
        White, a digit for the height of a Pawn stack) or blank.
        """
        g = self.geometry
        marks = {"apex_up": "/\\", "apex_down": "\\/", "rank_square": "[]",
                 "oblique_square": "<>", "hexagon": "()"}
        files = "abcdefghi"
        width = 6
        lines = [("     " + "".join(f"{f:^{width}}" for f in files)).rstrip()]
        for rank in range(7, 0, -1):
            row = [" " * width] * len(files)
            for c in range(len(g)):
                if g.attributes["rank"][c] != rank:
                    continue
                tag = next(t for t in marks if c in g.tags[t])
                p = pos.board[c]
                inner = (self.piece_symbol(p) if p else "").center(3)
                row[files.index(g.attributes["file"][c])] = \
                    f"{marks[tag][0]}{inner}{marks[tag][1]}".center(width)
            lines.append(f"  {rank}  " + "".join(row).rstrip())
        reserves = [f"{self.player_names[o]} " + ", ".join(f"{k}×{n}" for k, n in
                                                              sorted(pos.reserves[o].items()))
                    for o in (WHITE, BLACK) if pos.reserves[o]]
        lines.append("  reserve: " + ("; ".join(reserves) if reserves else "none"))
        return "\n".join(lines)


class ModernLotus39(Lotus39):
    """Modern Lotus-39: Crooks, Wyverns and a Counselor instead of Rooks, Alfils and Ferz."""

    name = "lotus39-modern"
    title = "Modern Lotus-39"
    guide = "lotus39"  # one players' guide for both arrays
    provisional = "provisional set-up: the original Modern Lotus-39 array is not available"
    white_array = "e1=K,d1=C,f1=C,c1=Y,g1=Y,c2=U,g2=L,e2=P3,a3=P,c3=P,e3=P,g3=P,i3=P"
    white_reserve = "N"
