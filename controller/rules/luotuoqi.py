"""Lùotuoqí (Camel Chess) per ``rules/luotuoqi.md`` and ``rules/DECISIONS.md``.

Pieces: King ``K``, Eaglet ``E``, Mule ``M``, Rook-Camel ``R``, Diagonal Bypasser ``D``
and the Tower of Hanoi ``T`` (a stack of 1–8 stones, ``Piece.height``).  The Cube is an
off-board token (``pos.tokens["cube"]`` = holder); using it is part of a first move
(``Move.token == "cube"``) and the same player then makes the next ply.

Speed: every table a move generator needs is built once at import from the ``square8``
shape, and every move a piece can make from a cell is built once and kept (``_Moves``);
legality avoids make/undo for moves that cannot expose the King, and the Cube option is
decided per piece from bitboards and robust witnesses, its variants taken from the same
kept tables (``_listing``); in check only the evasions are generated (``_evasions``);
quiescence's captures are listed without the quiet moves (``legal_captures``).
``tests/test_luotuoqi_speed_paths.py``, ``tests/test_luotuoqi_fast_listing.py``,
``tests/test_luotuoqi_evasions.py`` and ``tests/test_luotuoqi_captures.py`` hold every
shortcut against the literal rules or the full listing;
``docs/performance.md`` has the figures.

Long module: the literal rules and their fast paths side by side, so each shortcut is
read next to the rule it must agree with.
"""

from __future__ import annotations

from itertools import compress
from typing import Any, NamedTuple

from controller.geometry import DIAGONAL, GRID_DIRECTIONS, ORTHOGONAL, load_shape
from controller.rules.core import (
    Game,
    GameOption,
    LazyTable,
    Move,
    Piece,
    Position,
    PositionError,
    SpecialStep,
    Termination,
    Token,
    grid_board_text,
    parse_grid_board,
    render_grid,
)

WHITE, BLACK = 0, 1
MAX_TOWER = 8
#: the largest stone budget: every cell a full Tower
MAX_STONE_BUDGET = 64 * MAX_TOWER
START_TEXT = "rmdt8kdmr/eeeeeeee/8/8/8/8/EEEEEEEE/RMDT8KDMR w KQkq b 0 1"
KINDS = "KEMRDT"
NO_PROMOTION = frozenset("KE")  # never promote to King or Eaglet (DECISIONS Q4)

# --- tables, built once ---------------------------------------------------------------
G = load_shape("square8")
N_CELLS = len(G.cells)
RAYS = G.rays
STEP = G.steps
FWD = (1, -1)  # rank direction of each colour

KING_STEPS = G.leap_table(tuple(GRID_DIRECTIONS.values()))
ORTHOGONAL_STEPS = G.leap_table(tuple(GRID_DIRECTIONS[d] for d in ORTHOGONAL))
DIAGONAL_STEPS = G.leap_table(tuple(GRID_DIRECTIONS[d] for d in DIAGONAL))
MULE_TARGETS = G.leap_table(
    ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2),
     (0, 1), (1, 0), (0, -1), (-1, 0)))
# Eaglet targets per colour: both forward diagonals and one straight back.
EAGLET_TARGETS = tuple(G.leap_table(((-1, f), (1, f), (0, -f))) for f in FWD)
# Cells from which an Eaglet of colour ``c`` attacks a cell (the reverse of its targets).
EAGLET_ATTACKERS = tuple(G.leap_table(((1, -f), (-1, -f), (0, f))) for f in FWD)


def _diag(df: int, dr: int) -> str:
    return next(n for n, v in GRID_DIRECTIONS.items() if v == (df, dr))


def _build_camel() -> tuple:
    """Per cell: (pass1, pass2, (targets…)) for each orthogonal direction."""
    table = []
    for c in range(N_CELLS):
        entries = []
        for d in ORTHOGONAL:
            p1 = STEP[d][c]
            p2 = STEP[d][p1] if p1 >= 0 else -1
            if p2 < 0:
                continue
            df, dr = GRID_DIRECTIONS[d]
            # one diagonal step outward: forward along d and sideways at once
            diagonals = (_diag(df + dr, dr + df), _diag(df - dr, dr - df))
            targets = tuple(t for s in diagonals if (t := STEP[s][p2]) >= 0)
            if targets:
                entries.append((p1, p2, targets))
        table.append(tuple(entries))
    return tuple(table)


CAMEL = _build_camel()
def _build_camel_attackers() -> tuple:
    table: list[list[tuple[int, int, int]]] = [[] for _ in range(N_CELLS)]
    for s in range(N_CELLS):  # in source order, each source's steps in their order
        for p1, p2, ts in CAMEL[s]:
            for x in ts:
                table[x].append((s, p1, p2))
    return tuple(map(tuple, table))


# Reverse: for a cell X, the (source, pass1, pass2) of every camel step that lands on X.
CAMEL_ATTACKERS: tuple = _build_camel_attackers()


def _bypass_victim_cells(c: int, d: str) -> tuple[tuple[int, ...], ...]:
    """For each length n = 1.. of a Bypasser slide from c along d: the capture cells.

    For n steps along (dx, dy) with path P_i, the victims stand on P_i+(dx,0) and
    P_i+(0,dy) for i = 1 … n−2 (luotuoqi.md §3.5).
    """
    df, dr = GRID_DIRECTIONS[d]
    horiz = "E" if df > 0 else "W"
    vert = "N" if dr > 0 else "S"
    path = RAYS[d][c]
    result, acc = [], []
    for n in range(1, len(path) + 1):
        if n >= 3:
            p = path[n - 3]  # P_{n-2}
            for side in (STEP[horiz][p], STEP[vert][p]):
                if side >= 0:
                    acc.append(side)
        result.append(tuple(acc))
    return tuple(result)


BYPASS_VICTIMS = {d: tuple(_bypass_victim_cells(c, d) for c in range(N_CELLS)) for d in DIAGONAL}
# Per cell: for each diagonal, (path cells, victim cells added by each further step).
BYPASS_STEPS = tuple(
    tuple((RAYS[d][c], tuple(v[len(BYPASS_VICTIMS[d][c][i - 1]) if i else 0:]
                             for i, v in enumerate(BYPASS_VICTIMS[d][c])))
          for d in DIAGONAL)
    for c in range(N_CELLS))

# Per cell, for each diagonal (BYPASS_STEPS' order): the cells a Bypasser's slide along it
# may land on or remove a piece from, as a bitboard (an evasion walks only the diagonals
# that touch the check).
BYPASS_REACH = tuple(
    tuple(sum(1 << x for x in {*cells, *(v for fresh in victims for v in fresh)})
          for cells, victims in BYPASS_STEPS[c])
    for c in range(N_CELLS))


def _build_bypass_attackers() -> tuple:
    """For a cell X: (source, cells that must be empty) of each shortest Bypasser slide
    that would remove a piece standing on X."""
    table: list[list] = [[] for _ in range(N_CELLS)]
    for s in range(N_CELLS):
        for d in DIAGONAL:
            path = RAYS[d][s]
            seen: set[int] = set()
            for n, victims in enumerate(BYPASS_VICTIMS[d][s], start=1):
                for x in victims:
                    if x not in seen:
                        seen.add(x)
                        table[x].append((s, path[:n]))
    return tuple(tuple(t) for t in table)


BYPASS_ATTACKERS = _build_bypass_attackers()
# The same, by source: BYPASS_NEED[s][x] = cells that must be empty for a Bypasser on s
# to remove a piece on x.
BYPASS_NEED: tuple[dict[int, tuple[int, ...]], ...] = tuple({} for _ in range(N_CELLS))
for _x, _entries in enumerate(BYPASS_ATTACKERS):
    for _s, _need in _entries:
        BYPASS_NEED[_s][_x] = _need

# Cells whose emptiness an attack on X may depend on (beyond X's own queen lines).
_LINE_CELLS = tuple(
    frozenset(c for d in GRID_DIRECTIONS for c in RAYS[d][x]) for x in range(N_CELLS))
KING_WATCH = tuple(
    _LINE_CELLS[x]
    | frozenset(p for _, p1, p2 in CAMEL_ATTACKERS[x] for p in (p1, p2))
    | frozenset(c for _, need in BYPASS_ATTACKERS[x] for c in need)
    for x in range(N_CELLS))

# For a King on X and a cell c: the direction from X through c (if on one of X's lines),
# the camel steps onto X that pass over c, and the Bypasser slides onto X that cross c.
LINE_DIR: tuple[dict[int, str], ...] = tuple(
    {c: d for d in GRID_DIRECTIONS for c in RAYS[d][x]} for x in range(N_CELLS))
CAMEL_VIA: tuple[dict[int, list], ...] = tuple({} for _ in range(N_CELLS))
BYPASS_VIA: tuple[dict[int, list], ...] = tuple({} for _ in range(N_CELLS))
for _x in range(N_CELLS):
    for _s, _p1, _p2 in CAMEL_ATTACKERS[_x]:
        CAMEL_VIA[_x].setdefault(_p1, []).append((_s, _p2))
        CAMEL_VIA[_x].setdefault(_p2, []).append((_s, _p1))
    for _s, _need in BYPASS_ATTACKERS[_x]:
        for _c in _need:
            BYPASS_VIA[_x].setdefault(_c, []).append((_s, _need))

# Static reach tables for "does a piece arriving on t attack x" (the Cube's check test).
MULE_SET = tuple(frozenset(ts) for ts in MULE_TARGETS)
KING_SET = tuple(frozenset(ts) for ts in KING_STEPS)
EAGLET_SET = tuple(tuple(frozenset(ts) for ts in EAGLET_TARGETS[c]) for c in (WHITE, BLACK))
# LINE_TO[t][x] = (distance, cells strictly between, orthogonal?) for x on one of t's lines.
#: (built for a cell when first asked: only the Cube's check test asks)
LINE_TO: LazyTable = LazyTable(N_CELLS, lambda t: {
    x: (i + 1, RAYS[d][t][:i], d in ORTHOGONAL)
    for d in GRID_DIRECTIONS for i, x in enumerate(RAYS[d][t])})
EAGLET_ATTACKER_SET = tuple(tuple(frozenset(cs) for cs in EAGLET_ATTACKERS[c])
                            for c in (WHITE, BLACK))
# Cells from which a Rook-Camel's camel step, a Bypasser's slide may reach/remove x.
CAMEL_SOURCES = tuple(frozenset(s for s, _, _ in CAMEL_ATTACKERS[x]) for x in range(N_CELLS))
BYPASS_SOURCES = tuple(frozenset(s for s, _ in BYPASS_ATTACKERS[x]) for x in range(N_CELLS))


def _bits(cells) -> int:
    mask = 0
    for c in cells:
        mask |= 1 << c
    return mask


# Cells a piece on a cell attacks, as bitboards: a Mule, a King, an Eaglet (by colour).
BIT = tuple(1 << c for c in range(N_CELLS))
MULE_MASK = tuple(_bits(s) for s in MULE_SET)
KING_MASK = tuple(_bits(s) for s in KING_SET)
EAGLET_MASK = tuple(tuple(_bits(s) for s in sets) for sets in EAGLET_SET)
# CAMEL_PASS[t][x] = the two cells a Rook-Camel on t passes over to reach x by a camel step.
CAMEL_PASS: tuple[dict[int, tuple[int, int]], ...] = tuple(
    {x: (p1, p2) for p1, p2, ts in CAMEL[t] for x in ts} for t in range(N_CELLS))


# For the Cube's bulk test, per enemy King cell x, bitboards: every cell on x's lines
# (orthogonal ones only, and all within distance n for n = 0..8), the cells from which a
# Rook-Camel's camel step, a Bypasser's slide, an Eaglet of each colour may attack x, and
# KING_WATCH as a bitboard.
ORTHO_LINES_MASK = tuple(_bits(c for d in ORTHOGONAL for c in RAYS[d][x]) for x in range(N_CELLS))
LINES_MASK = tuple(_bits(_LINE_CELLS[x]) for x in range(N_CELLS))
def _lines_near(x: int) -> tuple[int, ...]:
    """Per n = 0..8: the cells within n steps of x along its lines (each step adds the
    n-th cell of every line long enough)."""
    masks, near = [0], 0
    for n in range(MAX_TOWER):
        for d in GRID_DIRECTIONS:
            ray = RAYS[d][x]
            if n < len(ray):
                near |= 1 << ray[n]
        masks.append(near)
    return tuple(masks)


LINES_NEAR_MASK = tuple(_lines_near(x) for x in range(N_CELLS))
CAMEL_SOURCES_MASK = tuple(_bits(s) for s in CAMEL_SOURCES)
BYPASS_SOURCES_MASK = tuple(_bits(s) for s in BYPASS_SOURCES)
EAGLET_FROM_MASK = tuple(tuple(_bits(s) for s in sets) for sets in EAGLET_ATTACKER_SET)
WATCH_MASK = tuple(_bits(s) for s in KING_WATCH)
# Every cell a Rook-Camel, a Bypasser could move to from a cell on an empty board.
ROOK_CAMEL_REACH = tuple(ORTHO_LINES_MASK[o] | _bits(t for _, _, ts in CAMEL[o] for t in ts)
                         for o in range(N_CELLS))
DIAGONAL_REACH = tuple(_bits(c for d in DIAGONAL for c in RAYS[d][o]) for o in range(N_CELLS))
# Per enemy King cell x: the cells from which an Eaglet (by colour), a Mule, a Bypasser
# reaches a cell where it would attack x (the others list their Cube variants in bulk).
EAGLET_NEAR = tuple(tuple(_bits(c for c in range(N_CELLS)
                                if EAGLET_MASK[me][c] & EAGLET_FROM_MASK[me][x])
                          for x in range(N_CELLS)) for me in (WHITE, BLACK))
MULE_NEAR = tuple(_bits(c for c in range(N_CELLS) if MULE_MASK[c] & MULE_MASK[x])
                  for x in range(N_CELLS))
BYPASS_NEAR = tuple(_bits(c for c in range(N_CELLS) if DIAGONAL_REACH[c] & BYPASS_SOURCES_MASK[x])
                    for x in range(N_CELLS))
# Per King cell x, its eight lines (GRID_DIRECTIONS order): (orthogonal?, cells, bitboard).
KING_LINES = tuple(tuple((d in ORTHOGONAL, RAYS[d][x], _bits(RAYS[d][x])) for d in GRID_DIRECTIONS)
                   for x in range(N_CELLS))
# Per cell x: the cells from which a Rook-Camel may attack x (its lines and camel sources).
ROOK_CAMEL_SOURCES = tuple(ORTHO_LINES_MASK[x] | CAMEL_SOURCES_MASK[x] for x in range(N_CELLS))
CELLS = range(N_CELLS)
#: the one-step targets of a piece kind (a witness of a second move), by colour and cell
ONE_STEP = tuple(
    {"M": MULE_TARGETS, "E": EAGLET_TARGETS[me], "R": ORTHOGONAL_STEPS, "D": DIAGONAL_STEPS,
     "T": KING_STEPS} for me in (WHITE, BLACK))


class _Moves:
    """Every move one piece on one cell can make, built on demand and kept: a Move is an
    immutable value, so one object serves every position (no Move built per listing).

    ``quiet[t]``/``capture[t]``: the move to an empty / enemy-held ``t`` (Tower: all the
    whole and split moves that get there, as a tuple); ``rays``: per direction, the cells
    within reach and ``prefixes[k]``, the quiet moves to the first ``k`` of them;
    ``ray_masks``: each ray's cells as a bitboard (an evasion walks only the rays that
    touch the check).
    """

    __slots__ = ("o", "piece", "quiet", "quiet_cube", "capture", "merge", "rays", "ray_masks")

    def __init__(self, o: int, piece: Piece):
        self.o, self.piece = o, piece
        self.capture: dict = {}
        self.merge: dict = {}
        me, n, kind = piece.owner, piece.height, piece.kind
        if kind == "T":
            self.quiet = {
                t: tuple(Move("move", o, t, piece) if k == n
                         else Move("split", o, t, Piece(me, "T", k), Piece(me, "T", n - k))
                         for k in range(dist, n + 1))
                for d in GRID_DIRECTIONS for dist, t in enumerate(RAYS[d][o][:n], start=1)}
            self.quiet_cube = _CubeTuples(self.quiet)
            self.rays = self._rays(GRID_DIRECTIONS, n, lambda t: self.quiet[t])
        else:
            self.quiet = _QuietMoves(o, piece)
            self.quiet_cube = _CubeVariants(self.quiet)
            self.rays = (self._rays(ORTHOGONAL, MAX_TOWER, lambda t: (self.quiet[t],))
                         if kind == "R" else ())
        self.ray_masks = tuple(_bits(cells) for cells, _, _ in self.rays)

    def _rays(self, directions, reach: int, moves_to) -> tuple:
        """Per direction: (cells, prefixes, the prefixes' Cube variants, built when asked)."""
        rays = []
        for d in directions:
            cells = RAYS[d][self.o][:reach]
            if cells:
                prefixes = [()]
                for t in cells:
                    prefixes.append(prefixes[-1] + moves_to(t))
                prefixes_tuple = tuple(prefixes)
                rays.append((cells, prefixes_tuple, _CubeTuples(prefixes_tuple)))
        return tuple(rays)

    def capture_on(self, t: int) -> Move:
        """The plain capture on ``t`` (not for Towers)."""
        move = self.capture.get(t)
        if move is None:
            move = self.capture[t] = Move("move", self.o, t, self.piece, None, (t,))
        return move

    def tower_captures(self, t: int, dist: int) -> tuple[Move, ...]:
        """A Tower's captures on ``t`` at ``dist``: whole, and every split part that gets there."""
        moves = self.capture.get(t)
        if moves is None:
            o, pc = self.o, self.piece
            me, n = pc.owner, pc.height
            moves = self.capture[t] = tuple(
                Move("move", o, t, pc, None, (t,)) if k == n
                else Move("split", o, t, Piece(me, "T", k), Piece(me, "T", n - k), (t,))
                for k in range(dist, n + 1))
        return moves

    def tower_merges(self, t: int, dist: int, height: int) -> tuple[Move, ...]:
        """A Tower's merges onto an own Tower of ``height`` on ``t`` at ``dist``."""
        moves = self.merge.get((t, height))
        if moves is None:
            o, me, n = self.o, self.piece.owner, self.piece.height
            moves = self.merge[(t, height)] = tuple(
                Move("merge", o, t, Piece(me, "T", k + height),
                     Piece(me, "T", n - k) if k < n else None)
                for k in range(dist, min(n, MAX_TOWER - height) + 1))
        return moves

    def tower_merges_cube(self, t: int, dist: int, height: int) -> tuple[Move, ...]:
        """The Cube variants of :meth:`tower_merges`."""
        moves = self.merge.get((t, height, "cube"))
        if moves is None:
            moves = self.merge[(t, height, "cube")] = tuple(
                map(_cube_of_kept, self.tower_merges(t, dist, height)))
        return moves


_MOVES: dict[tuple[int, Piece], _Moves] = {}


def _moves_of(o: int, piece: Piece) -> _Moves:
    table = _MOVES.get((o, piece))
    if table is None:
        table = _MOVES[(o, piece)] = _Moves(o, piece)
    return table


class _QuietMoves(dict):
    """A piece's quiet moves from one cell by target, each built the first time asked."""

    def __init__(self, o: int, piece: Piece):
        super().__init__()
        self.o, self.piece = o, piece

    def __missing__(self, t: int) -> Move:
        move = self[t] = Move("move", self.o, t, self.piece)
        return move


class _CubeVariants(dict):
    """The Cube variants of a piece's quiet moves from one cell, by target, each built
    the first time asked."""

    def __init__(self, quiet: _QuietMoves):
        super().__init__()
        self.quiet = quiet

    def __missing__(self, t: int) -> Move:
        move = self[t] = _cube_of_kept(self.quiet[t])
        return move


class _CubeTuples(dict):
    """The Cube variants of tuples of kept quiet moves (``source[key]``), by the same key,
    each built the first time asked."""

    def __init__(self, source: Any):
        super().__init__()
        self.source = source

    def __missing__(self, key: int) -> tuple[Move, ...]:
        moves = self[key] = tuple(map(_cube_of_kept, self.source[key]))
        return moves


# The Cube variant of a kept quiet move, by the move's id.  Only moves kept for good
# (in ``_MOVES``, which holds them alive) are entered, so an id found here is that move's.
_CUBE_BY_ID: dict[int, Move] = {}


def _cube_of_kept(m: Move) -> Move:
    """The Cube variant of the kept quiet move ``m`` (entered in ``_CUBE_BY_ID``)."""
    cube = _CUBE_BY_ID.get(id(m))
    if cube is None:
        cube = _CUBE_BY_ID[id(m)] = m._replace(token="cube")
    return cube


def _cube_variant(m: Move) -> Move:
    cube = _CUBE_BY_ID.get(id(m))
    return cube if cube is not None else m._replace(token="cube")


def _leaper_steps(steps: list, piece: Piece, o: int) -> tuple:
    """(target, quiet move, its Cube variant, capture) for each target of the Eaglet or
    Mule ``piece`` on ``o`` (for a one-stone Tower: the tuples of its moves, its Cube
    variants, its captures there) — its kept moves (:class:`_Moves`) looked up once and
    entered in ``steps[o]`` (``EAGLET_STEPS``, ``MULE_STEPS``, ``TOWER1_STEPS``), so a
    listing walks one tuple instead of three dictionaries.  Never empty: every cell has a
    target."""
    table = _moves_of(o, piece)
    kind = piece.kind
    if kind == "T":
        entry = tuple((t, table.quiet[t], table.quiet_cube[t], table.tower_captures(t, 1))
                      for t in KING_STEPS[o])
    else:
        targets = (MULE_TARGETS if kind == "M" else EAGLET_TARGETS[piece.owner])[o]
        entry = tuple((t, table.quiet[t], table.quiet_cube[t], table.capture_on(t))
                      for t in targets)
    steps[o] = entry
    return entry


HOME = {"K": G.cell("e1"), "Q": G.cell("e1"), "k": G.cell("e8"), "q": G.cell("e8")}
ROOK_HOME = {"K": G.cell("h1"), "Q": G.cell("a1"), "k": G.cell("h8"), "q": G.cell("a8")}
# castling right -> (king to, rook to, must be empty, must not be attacked)
CASTLE_PATH = {
    right: (G.cell(kt), G.cell(rt), tuple(G.cell(c) for c in empty), tuple(G.cell(c) for c in safe))
    for right, kt, rt, empty, safe in (
        ("K", "g1", "f1", ("f1", "g1"), ("e1", "f1", "g1")),
        ("Q", "c1", "d1", ("b1", "c1", "d1"), ("e1", "d1", "c1")),
        ("k", "g8", "f8", ("f8", "g8"), ("e8", "f8", "g8")),
        ("q", "c8", "d8", ("b8", "c8", "d8"), ("e8", "d8", "c8")),
    )
}
RIGHTS_OF = ("KQ", "kq")
KING_OF = (Piece(WHITE, "K"), Piece(BLACK, "K"))
BYPASSER_OF = (Piece(WHITE, "D"), Piece(BLACK, "D"))
MULE_OF = (Piece(WHITE, "M"), Piece(BLACK, "M"))
EAGLET_OF = (Piece(WHITE, "E"), Piece(BLACK, "E"))
# Per colour and cell, an Eaglet's, a Mule's, a one-stone Tower's steps (:func:`_leaper_steps`),
# built when first met.
EAGLET_STEPS: tuple[list, list] = ([None] * N_CELLS, [None] * N_CELLS)
MULE_STEPS: tuple[list, list] = ([None] * N_CELLS, [None] * N_CELLS)
TOWER1_STEPS: tuple[list, list] = ([None] * N_CELLS, [None] * N_CELLS)
# cells whose involvement in a move removes castling rights
RIGHTS_LOST_AT: dict[int, str] = {}
for _r in "KQkq":
    for _c in (HOME[_r], ROOK_HOME[_r]):
        RIGHTS_LOST_AT[_c] = RIGHTS_LOST_AT.get(_c, "") + _r

PROMOTION_AXES = (("E", "W"), ("N", "S"), ("NE", "SW"), ("NW", "SE"))
#: per cell, the pairs of cells that flank it on an axis (both on the board)
FLANKS = tuple(tuple((STEP[a][o], STEP[b][o]) for a, b in PROMOTION_AXES
                     if STEP[a][o] >= 0 and STEP[b][o] >= 0) for o in range(N_CELLS))


class _CubeContext(NamedTuple):
    """What the Cube test of one position knows about every quiet move."""

    king: int  #: the mover's King
    enemy_king: int
    uncovers: int  #: own cells whose emptying would uncover an attack on the enemy King (bits)
    witnesses: list[tuple[int, int, bool]]  #: see :meth:`Luotuoqi._witnesses`


class Luotuoqi(Game):
    name = "luotuoqi"
    title = "Lùotuoqí (Camel Chess)"
    piece_names = {"K": "King", "E": "Eaglet", "M": "Mule", "R": "Rook-Camel",
                   "D": "Diagonal Bypasser", "T": "Tower"}
    special_step = SpecialStep(
        "Split a Tower: take the top stones of your Tower (or put the rest back) and put "
        "them down on a lit cell; if several sizes fit, touch the option pad of the size.",
        kind="split")
    shape = "square8"
    #: the Cube: one per game, held by one player, handed over when used
    tokens = (Token("cube", "Cube"),)
    pads = tokens[0].pads()
    #: the words recorded Lùotuoqí games use
    reason_text = {Termination.FIFTY_MOVE: "fifty-move rule",
                   Termination.REPETITION: "threefold repetition"}
    option_specs = (
        GameOption("stone_budget", int, None, "stones per colour available for Towers "
                   "(off = unlimited)", low=0, high=MAX_STONE_BUDGET, nullable=True),
    )

    def __init__(self, stone_budget: int | None = None):
        """``stone_budget``: stones per colour available for Towers (None = unlimited)."""
        self.stone_budget = stone_budget
        super().__init__()

    # -- positions ------------------------------------------------------------------
    def start(self) -> Position:
        return self.parse_position(START_TEXT)

    def parse_position(self, text: str) -> Position:
        fields = text.split()
        if len(fields) != 6:
            raise PositionError(
                f"expected 6 fields (board side castling cube halfmove fullmove), got {text!r}")
        board_text, side, castling, cube, half, full = fields

        def parse_piece(row: str, i: int) -> tuple[Piece, int]:
            ch = row[i]
            kind = ch.upper()
            if kind not in KINDS:
                raise PositionError(f"unknown piece letter {ch!r} in {row!r}")
            owner = WHITE if ch.isupper() else BLACK
            if kind != "T":
                return Piece(owner, kind), i + 1
            if i + 1 >= len(row) or not row[i + 1].isdigit():
                raise PositionError(f"Tower {ch!r} needs a height digit 1-8 in {row!r}")
            height = int(row[i + 1])
            if not 1 <= height <= MAX_TOWER:
                raise PositionError(f"Tower height {height} out of range 1-8 in {row!r}")
            return Piece(owner, "T", height), i + 2

        board = parse_grid_board(G, board_text, parse_piece)
        if side not in ("w", "b"):
            raise PositionError(f"side to move must be 'w' or 'b', got {side!r}")
        pos = Position(self, board, WHITE if side == "w" else BLACK)
        if castling != "-" and (set(castling) - set("KQkq") or len(set(castling)) != len(castling)):
            raise PositionError(f"bad castling rights {castling!r}")
        rights = "".join(r for r in "KQkq" if r in castling)
        for r in rights:
            owner = WHITE if r.isupper() else BLACK
            if board[HOME[r]] != Piece(owner, "K") or board[ROOK_HOME[r]] != Piece(owner, "R"):
                raise PositionError(f"castling right {r!r} without King and Rook-Camel at home")
        pos.state["castling"] = rights
        pending = cube.endswith("*")
        holder = cube.rstrip("*")
        if holder not in ("w", "b", "-"):
            raise PositionError(f"Cube field must be 'w', 'b' or '-' (+'*'), got {cube!r}")
        if holder != "-":
            pos.tokens["cube"] = WHITE if holder == "w" else BLACK
        if pending:
            if holder == "-" or pos.tokens["cube"] == pos.turn:
                raise PositionError("a pending Cube move needs the Cube on the opponent's side")
            pos.state["cube_second"] = True
        try:
            pos.halfmove, pos.fullmove = int(half), int(full)
        except ValueError:
            raise PositionError(f"bad move counters {half!r} {full!r}") from None
        if pos.halfmove < 0 or pos.fullmove < 1:
            raise PositionError(f"bad move counters {half!r} {full!r}")
        for owner in (WHITE, BLACK):
            kings = sum(1 for p in board if p == Piece(owner, "K"))
            if kings != 1:
                raise PositionError(f"{self.player_names[owner]} has {kings} Kings (needs 1)")
        if self.attacked(board, self._king(board, 1 - pos.turn), pos.turn):
            raise PositionError("the side not to move is in check")
        pos.keys.append(self.position_key(pos))
        return pos

    def position_text(self, pos: Position) -> str:
        board = grid_board_text(G, pos.board, self.piece_symbol)
        holder = pos.tokens.get("cube")
        cube = "-" if holder is None else "wb"[holder]
        if pos.state.get("cube_second"):
            cube += "*"
        return (f"{board} {'wb'[pos.turn]} {pos.state.get('castling') or '-'} {cube} "
                f"{pos.halfmove} {pos.fullmove}")

    def piece_symbol(self, piece: Piece) -> str:
        s = piece.kind if piece.owner == WHITE else piece.kind.lower()
        return f"{s}{piece.height}" if piece.kind == "T" else s

    def render_text(self, pos: Position) -> str:
        holder = pos.tokens.get("cube")
        cube = "nobody" if holder is None else self.player_names[holder]
        return render_grid(self, pos) + f"\nCube: {cube}" + (
            " (second move of a Cube turn)" if pos.state.get("cube_second") else "")

    def position_key(self, pos: Position) -> Any:
        return (tuple(pos.board), pos.turn, pos.state.get("castling", ""),
                pos.tokens.get("cube"), bool(pos.state.get("cube_second")))

    # -- attacks --------------------------------------------------------------------
    @staticmethod
    def _king(board: list, owner: int) -> int:
        try:
            return board.index(KING_OF[owner])  # compared in C: faster than a loop
        except ValueError:
            return -1

    @staticmethod
    def bypassers(board: list, owner: int) -> list[int]:
        out = []
        bypasser = BYPASSER_OF[owner]
        c = -1
        try:
            while True:
                c = board.index(bypasser, c + 1)
                out.append(c)
        except ValueError:
            return out

    @staticmethod
    def attacked(board: list, x: int, by: int, bypassers: list[int] | None = None,
                 enemy: dict[str, int] | None = None) -> bool:
        """Could a piece of ``by`` capture (or bypass-capture) a piece on cell ``x``?

        ``bypassers`` lists the cells of ``by``'s Diagonal Bypassers when the caller knows
        them (saves a board scan); they may be stale only in cells that are now empty.
        ``enemy``, ``by``'s cells by kind as bitboards, lets lines and leapers where no
        piece of that kind stands go unlooked; like ``bypassers`` it may be stale only
        in cells that are now empty (a cell it names is still looked at on the board).
        """
        at = board.__getitem__
        if enemy is None:
            mules = kings = eaglets = towers = rook_camels = -1  # every cell may hold one
        else:
            mules, kings, eaglets = enemy["M"], enemy["K"], enemy["E"]
            towers, rook_camels = enemy["T"], enemy["R"]
        if MULE_MASK[x] & mules and MULE_OF[by] in map(at, MULE_TARGETS[x]) \
                or KING_MASK[x] & kings and KING_OF[by] in map(at, KING_STEPS[x]) \
                or EAGLET_FROM_MASK[by][x] & eaglets \
                and EAGLET_OF[by] in map(at, EAGLET_ATTACKERS[by][x]):  # compared in C
            return True
        for orthogonal, ray, ray_mask in KING_LINES[x]:
            if not (towers | rook_camels if orthogonal else towers) & ray_mask:
                continue  # no Tower or Rook-Camel of ``by`` on this line
            dist = 0
            for c in ray:
                dist += 1
                p = board[c]
                if p is not None:
                    if p.owner == by and (p.kind == "R" and orthogonal
                                          or p.kind == "T" and p.height >= dist):
                        return True
                    break
        for s, p1, p2 in (CAMEL_ATTACKERS[x] if rook_camels & CAMEL_SOURCES_MASK[x] else ()):
            p = board[s]
            if (p is not None and p.owner == by and p.kind == "R"
                    and board[p1] is None and board[p2] is None):
                return True
        if bypassers is None:
            bypassers = Luotuoqi.bypassers(board, by)
        for s in bypassers:
            need = BYPASS_NEED[s].get(x)
            if need is None:
                continue
            p = board[s]
            if p is not None and p.owner == by and p.kind == "D":
                for c in need:
                    if board[c] is not None:
                        break
                else:
                    return True
        return False

    @staticmethod
    def exposes(board: list, king: int, c: int, them: int) -> bool:
        """Would emptying cell ``c`` let ``them`` attack ``king`` (which is not attacked now)?"""
        d = LINE_DIR[king].get(c)
        if d is not None:
            dist = 0
            for x in RAYS[d][king]:
                dist += 1
                if x == c:
                    continue
                p = board[x]
                if p is not None:
                    if dist < 2 or x not in RAYS[d][c]:
                        break  # a piece between the King and c still blocks
                    if p.owner == them and (p.kind == "T" and p.height >= dist
                                            or p.kind == "R" and d in ORTHOGONAL):
                        return True
                    break
        for s, other in CAMEL_VIA[king].get(c, ()):
            p = board[s]
            if p is not None and p.owner == them and p.kind == "R" and board[other] is None:
                return True
        for s, need in BYPASS_VIA[king].get(c, ()):
            p = board[s]
            if p is not None and p.owner == them and p.kind == "D":
                for x in need:
                    if x != c and board[x] is not None:
                        break
                else:
                    return True
        return False

    def in_check(self, pos: Position, player: int | None = None) -> bool:
        me = pos.turn if player is None else player
        return self.attacked(pos.board, self._king(pos.board, me), 1 - me)

    # -- move generation ------------------------------------------------------------
    def pseudo_moves(self, pos: Position) -> list[Move]:
        """Moves that obey piece movement, ignoring the safety of the mover's King."""
        board = pos.board
        me = pos.turn
        moves: list[Move] = []
        for o in range(N_CELLS):
            pc = board[o]
            if pc is not None and pc.owner == me:
                self._piece_moves(pos, o, pc, moves)
        return moves

    def _piece_moves(self, pos: Position, o: int, pc: Piece, moves: list[Move]) -> None:
        """Append the pseudo-legal moves of the piece ``pc`` standing on ``o``."""
        board = pos.board
        me = pc.owner
        kind = pc.kind
        table = _MOVES.get((o, pc)) or _moves_of(o, pc)
        extend = moves.extend
        if kind == "T":
            for cells, prefixes, _ in table.rays:
                k = 0
                for t in cells:
                    q = board[t]
                    if q is not None:
                        extend(prefixes[k])
                        if q.owner != me:
                            extend(table.tower_captures(t, k + 1))
                        elif q.kind == "T":
                            extend(table.tower_merges(t, k + 1, q.height))
                        break
                    k += 1
                else:
                    extend(prefixes[k])
            return
        add = moves.append
        quiet = table.quiet
        if kind == "D":
            for cells, new_victims in BYPASS_STEPS[o]:
                caps: tuple[int, ...] = ()
                for t, fresh in zip(cells, new_victims, strict=True):
                    if board[t] is not None:
                        break
                    for v in fresh:
                        q = board[v]
                        if q is not None and q.owner != me:
                            caps += (v,)
                    add(Move("move", o, t, pc, None, caps) if caps else quiet[t])
        elif kind == "R":
            for cells, prefixes, _ in table.rays:
                k = 0
                for t in cells:
                    q = board[t]
                    if q is not None:
                        extend(prefixes[k])
                        if q.owner != me:
                            add(table.capture_on(t))
                        break
                    k += 1
                else:
                    extend(prefixes[k])
            for p1, p2, targets in CAMEL[o]:
                if board[p1] is None and board[p2] is None:
                    for t in targets:
                        q = board[t]
                        if q is None:
                            add(quiet[t])
                        elif q.owner != me:
                            add(table.capture_on(t))
        else:
            targets = (MULE_TARGETS if kind == "M" else KING_STEPS if kind == "K"
                       else EAGLET_TARGETS[me])[o]
            for t in targets:
                q = board[t]
                if q is None:
                    add(quiet[t])
                elif q.owner != me:
                    add(table.capture_on(t))
            if kind == "E":
                for x, y in FLANKS[o]:  # two equal pieces flanking it: promotions
                    p = board[x]
                    if p is not None and (q := board[y]) is not None and p.kind == q.kind \
                            and p.height == q.height and p.kind not in NO_PROMOTION:
                        self._promotions(pos, o, pc, moves)
                        break

    def _promotions(self, pos: Position, o: int, pc: Piece, moves: list[Move]) -> None:
        board = pos.board
        seen = set()
        for x, y in FLANKS[o]:
            p, q = board[x], board[y]
            if p is None or q is None or p.kind != q.kind or p.height != q.height:
                continue
            if p.kind in NO_PROMOTION or (p.kind, p.height) in seen:
                continue
            if p.kind == "T" and not self._stones_available(pos, pc.owner, p.height):
                continue
            seen.add((p.kind, p.height))
            moves.append(Move("promote", o, o, Piece(pc.owner, p.kind, p.height),
                              promotion=p.kind))

    def _stones_available(self, pos: Position, owner: int, height: int) -> bool:
        if self.stone_budget is None:
            return True
        used = sum(p.height for p in pos.board if p is not None and p.owner == owner
                   and p.kind == "T")
        return used + height <= self.stone_budget

    def _castling_moves(self, pos: Position, king: int,
                        bypassers: list[int] | None = None) -> list[Move]:
        rights = pos.state.get("castling", "")
        me = pos.turn
        out = []
        board = pos.board
        for r in RIGHTS_OF[me]:
            if r not in rights:
                continue
            kt, rt, empty, safe = CASTLE_PATH[r]
            if any(map(board.__getitem__, empty)):  # a piece stands between (in C)
                continue
            if any(self.attacked(board, c, 1 - me, bypassers) for c in safe):
                continue
            out.append(Move("castle", king, kt, board[king], None, (), ((ROOK_HOME[r], rt),)))
        return out

    def generate_moves(self, pos: Position) -> list[Move]:
        cube = pos.tokens.get("cube") == pos.turn and not pos.state.get("cube_second")
        return self._listing(pos, cube)

    def _listing(self, pos: Position, cube: bool) -> list[Move]:
        """Every legal move, with the Cube variants when ``cube``: the plain moves first,
        then the Cube variants, both piece by piece.

        Not in check, a piece whose leaving exposes nothing lists from its kept tables
        (:class:`_Moves`) with no test; when it also cannot give check from any cell it
        reaches (a bitboard test), its leaving uncovers no attack on the enemy King and
        robust witnesses serve it (:meth:`_cube_setup`), the Cube variants of its quiet
        moves come from the same tables alongside.  Pinned pieces, the King, bypass
        captures that empty a cell an attack on the King may need, and Cube options the
        bulk test cannot decide are tested one by one.  In check: :meth:`_evasions`, their
        Cube variants by :meth:`_cube_evasions`.
        """
        board = pos.board
        me, them = pos.turn, 1 - pos.turn
        (own, enemy_d, sliders, enemy, king, x, my_towers, attacks, attackers,
         exposers) = self._survey(board, me)
        if attacks:
            moves = self._evasions(pos, own, sliders, enemy_d, king, enemy, attacks,
                                   attackers, exposers)
            if cube:
                moves += self._cube_evasions(pos, moves, own, king, x)
            return moves
        out: list[Move] = []
        add = out.append
        extend = out.extend
        watch = WATCH_MASK[king]
        safe_after = self._safe_after
        cubes: list[Move] = []
        cadd = cubes.append
        cextend = cubes.extend
        if cube:
            setup = self._cube_setup(board, me, own, king, x)
            (uncovers, witnesses, all_three, visible, visible_orthogonal, lines, ortho_lines,
             near, danger_of, camel_sources) = setup
            state: list = [pos, king, x, uncovers, own, exposers, None]  # its context, lazily
            # with three robust witnesses, these kinds list in bulk off these cells
            quick = {"E": EAGLET_NEAR[me][x] | uncovers, "M": MULE_NEAR[x] | uncovers,
                     "D": BYPASS_NEAR[x] | uncovers} if all_three else {}
        bad = cube_start = block = line = 0
        cb = False  # the piece's Cube variants are listed alongside its moves
        for c, pc in own:
            kind = pc.kind
            start = len(out)
            promotions = -1  # where an Eaglet's promotions start in ``out``
            if c == king:
                self._king_steps(board, c, pc, me, them, sliders, enemy, add)
                if cube:
                    self._cube_king(out[start:], state, witnesses, cadd)
                continue
            if cube:
                # which of its quiet moves need the one-by-one Cube test (-1: all)
                near_leaper = quick.get(kind)
                if near_leaper is not None and not BIT[c] & near_leaper:
                    bad = 0  # a leaper or Bypasser far from the enemy King
                elif BIT[c] & uncovers:
                    bad = -1
                else:
                    if all_three:
                        block = 0
                    else:
                        others = [w for w in witnesses if w[0] != c]
                        block = (0 if len(others) >= 2 else
                                 BIT[others[0][0]] | BIT[others[0][1]] if others else -1)
                    if block < 0:
                        bad = -1
                    elif kind == "T":
                        # a Tower's moves that may check; a merge makes a taller Tower on
                        # an own Tower's cell: every cell of the line (``near[8]``)
                        line = lines if BIT[c] & lines else visible
                        bad = block | (near[pc.height] | my_towers) & line
                        if not LINES_NEAR_MASK[c][pc.height] & bad:
                            bad = 0
                    elif kind == "R":
                        bad = block | camel_sources | (
                            ortho_lines if BIT[c] & ortho_lines else visible_orthogonal)
                        if not ROOK_CAMEL_REACH[c] & bad:
                            bad = 0
                    else:
                        bad = block | danger_of[kind]
                        if not (MULE_MASK[c] if kind == "M" else DIAGONAL_REACH[c]
                                if kind == "D" else EAGLET_MASK[me][c]) & bad:
                            bad = 0
                cb = bad >= 0
                cube_start = len(cubes)
            if c in exposers:
                candidates = []
                self._piece_moves(pos, c, pc, candidates)
                for m in candidates:
                    if m.left is not None or m.kind == "promote" or safe_after(
                            board, m, king, them, enemy_d, enemy):
                        add(m)
                if cube:
                    self._cube_one_by_one(out[start:], bad, state, cadd)
                continue
            if kind == "E" or kind == "M":
                steps = EAGLET_STEPS[me] if kind == "E" else MULE_STEPS[me]
                for t, quiet_move, cube_move, capture in (
                        steps[c] or _leaper_steps(steps, pc, c)):
                    q = board[t]
                    if q is None:
                        add(quiet_move)
                        if cb:
                            cadd(cube_move)
                    elif q.owner != me:
                        add(capture)
                if kind == "E":
                    for f1, f2 in FLANKS[c]:  # two equal pieces flanking it: promotions
                        p = board[f1]
                        if p is not None and (q := board[f2]) is not None \
                                and p.kind == q.kind and p.height == q.height \
                                and p.kind not in NO_PROMOTION:
                            promotions = len(out)
                            self._promotions(pos, c, pc, out)
                            break
            else:
                table = _MOVES.get((c, pc)) or _moves_of(c, pc)
                if kind == "T" and pc.height == 1:  # one step: a leaper's loop, same order
                    steps = TOWER1_STEPS[me]
                    for t, quiet_moves, cube_moves, captures in (
                            steps[c] or _leaper_steps(steps, pc, c)):
                        q = board[t]
                        if q is None:
                            extend(quiet_moves)
                            if cb:
                                cextend(cube_moves)
                        elif q.owner != me:
                            extend(captures)
                        elif q.kind == "T":
                            extend(table.tower_merges(t, 1, q.height))
                            if cb:
                                cextend(table.tower_merges_cube(t, 1, q.height))
                elif kind == "T":
                    for cells, prefixes, cube_prefixes in table.rays:
                        k = 0
                        for t in cells:
                            q = board[t]
                            if q is not None:
                                extend(prefixes[k])
                                if cb:
                                    cextend(cube_prefixes[k])
                                if q.owner != me:
                                    extend(table.tower_captures(t, k + 1))
                                elif q.kind == "T":
                                    extend(table.tower_merges(t, k + 1, q.height))
                                    if cb:
                                        cextend(table.tower_merges_cube(t, k + 1, q.height))
                                break
                            k += 1
                        else:
                            extend(prefixes[k])
                            if cb:
                                cextend(cube_prefixes[k])
                elif kind == "R":
                    quiet = table.quiet
                    quiet_cube = table.quiet_cube
                    for cells, prefixes, cube_prefixes in table.rays:
                        k = 0
                        for t in cells:
                            q = board[t]
                            if q is not None:
                                extend(prefixes[k])
                                if cb:
                                    cextend(cube_prefixes[k])
                                if q.owner != me:
                                    add(table.capture_on(t))
                                break
                            k += 1
                        else:
                            extend(prefixes[k])
                            if cb:
                                cextend(cube_prefixes[k])
                    for p1, p2, targets in CAMEL[c]:
                        if board[p1] is None and board[p2] is None:
                            for t in targets:
                                q = board[t]
                                if q is None:
                                    add(quiet[t])
                                    if cb:
                                        cadd(quiet_cube[t])
                                elif q.owner != me:
                                    add(table.capture_on(t))
                else:  # a Bypasser: a capture may empty cells an attack on the King needs
                    quiet = table.quiet
                    quiet_cube = table.quiet_cube
                    for cells, new_victims in BYPASS_STEPS[c]:
                        caps: tuple[int, ...] = ()
                        for t, fresh in zip(cells, new_victims, strict=True):
                            if board[t] is not None:
                                break
                            for v in fresh:
                                q = board[v]
                                if q is not None and q.owner != me:
                                    caps += (v,)
                            if not caps:
                                add(quiet[t])
                                if cb:
                                    cadd(quiet_cube[t])
                                continue
                            m = Move("move", c, t, pc, None, caps)
                            for v in caps:
                                if BIT[v] & watch:
                                    if safe_after(board, m, king, them, enemy_d, enemy):
                                        add(m)
                                    break
                            else:
                                add(m)
            if not cube:
                continue
            if not cb:
                self._cube_one_by_one(out[start:], -1, state, cadd)
                continue
            if bad:  # the Cube variants listed alongside that may give check: tested
                listed = cubes[cube_start:]
                del cubes[cube_start:]
                if kind == "T":
                    # the moving part's height (a merge's: the sum) decides; seen from the
                    # enemy King past nothing but empty cells, it surely checks
                    sure = line if line == visible else 0
                    for m in listed:
                        t = BIT[m.target]
                        danger = near[m.piece.height] & t
                        if danger & sure:
                            continue
                        if not (danger & line or block & t) or self._cube_option(
                                pos, m, self._cube_context(state)):
                            cadd(m)
                elif kind == "M" or kind == "E":  # a leaper on a danger cell surely checks
                    danger = danger_of[kind]
                    for m in listed:
                        t = BIT[m.target]
                        if not danger & t and (not block & t or self._cube_option(
                                pos, m, self._cube_context(state))):
                            cadd(m)
                else:
                    for m in listed:
                        if not bad & BIT[m.target] or self._cube_option(
                                pos, m, self._cube_context(state)):
                            cadd(m)
            if promotions >= 0:
                self._cube_one_by_one(out[promotions:], -1, state, cadd)
        if pos.state.get("castling"):
            castles = self._castling_moves(pos, king, enemy_d)
            if castles:
                out += castles
                if cube:
                    self._cube_one_by_one(castles, -1, state, cadd)
        if cubes:
            out += cubes
        return out

    def legal_captures(self, pos: Position) -> list[Move] | None:
        """The legal captures, in :meth:`legal_moves`' order, without listing a quiet
        move: each piece walks only toward the cells it could take on (a bitboard test
        skips a piece, a Bypasser's diagonal, with no enemy piece in reach), with the
        legality tests :meth:`_listing` makes of the same moves.  A Cube variant is
        always of a quiet move, so the Cube holder's captures are the plain ones; a
        promotion takes nothing.  In check: the captures among :meth:`_evasions`.  With
        none, :meth:`has_legal_move` (which stops at the first piece that can move) tells
        ``[]`` from None."""
        if self.rule_outcome(pos) is not None:
            return None
        board = pos.board
        me, them = pos.turn, 1 - pos.turn
        (own, enemy_d, sliders, enemy, king, _x, _towers, attacks, attackers,
         exposers) = self._survey(board, me)
        if attacks:
            evasions = self._evasions(pos, own, sliders, enemy_d, king, enemy, attacks,
                                      attackers, exposers)
            return [m for m in evasions if m.captures] if evasions else None
        theirs = sum(enemy.values())  # every cell of the other side (the kinds are disjoint)
        out: list[Move] = []
        watch = WATCH_MASK[king]
        safe_after = self._safe_after
        for c, pc in own:
            kind = pc.kind
            if c == king:
                if KING_MASK[c] & theirs:
                    targets = [t for t in KING_STEPS[c] if BIT[t] & theirs]
                    board[c] = None
                    safe = self._safe_cells(board, targets, sliders, them, enemy)
                    board[c] = pc
                    if safe:
                        table = _MOVES.get((c, pc)) or _moves_of(c, pc)
                        out += [table.capture_on(t) for t in targets if t in safe]
                continue
            if not (EAGLET_MASK[me][c] if kind == "E" else MULE_MASK[c] if kind == "M"
                    else ROOK_CAMEL_REACH[c] if kind == "R"
                    else LINES_NEAR_MASK[c][pc.height] if kind == "T" else -1) & theirs:
                continue  # nothing of the other side within its reach
            start = len(out)
            self._piece_captures(board, c, pc, me, theirs, out)
            if c in exposers:  # pinned: a capture that empties its cell is tested
                out[start:] = [m for m in out[start:] if m.left is not None or safe_after(
                    board, m, king, them, enemy_d, enemy)]
            elif kind == "D":  # a bypass empties cells an attack on the King may need
                out[start:] = [m for m in out[start:] if not any(
                    BIT[v] & watch for v in m.captures) or safe_after(
                    board, m, king, them, enemy_d, enemy)]
        return out if out or self.has_legal_move(pos) else None

    @staticmethod
    def _piece_captures(board: list, o: int, pc: Piece, me: int, theirs: int,
                        out: list[Move]) -> None:
        """Append the pseudo-legal captures of the piece ``pc`` (not a King) on ``o``, in
        :meth:`_piece_moves`' order (``theirs``: the other side's cells, as a bitboard)."""
        kind = pc.kind
        table = _MOVES.get((o, pc)) or _moves_of(o, pc)
        if kind == "E" or kind == "M":
            for t in (MULE_TARGETS[o] if kind == "M" else EAGLET_TARGETS[me][o]):
                if BIT[t] & theirs:
                    out.append(table.capture_on(t))
        elif kind == "T":
            for (cells, _, _), mask in zip(table.rays, table.ray_masks, strict=True):
                if mask & theirs:
                    k = 0
                    for t in cells:
                        k += 1
                        if board[t] is not None:
                            if BIT[t] & theirs:
                                out += table.tower_captures(t, k)
                            break
        elif kind == "R":
            for (cells, _, _), mask in zip(table.rays, table.ray_masks, strict=True):
                if mask & theirs:
                    for t in cells:
                        if board[t] is not None:
                            if BIT[t] & theirs:
                                out.append(table.capture_on(t))
                            break
            for p1, p2, targets in CAMEL[o]:
                if board[p1] is None and board[p2] is None:
                    for t in targets:
                        if BIT[t] & theirs:
                            out.append(table.capture_on(t))
        else:  # a Bypasser: takes what it passes beside, never where it lands
            for (cells, new_victims), reach in zip(BYPASS_STEPS[o], BYPASS_REACH[o],
                                                   strict=True):
                if not reach & theirs:
                    continue
                caps: tuple[int, ...] = ()
                for t, fresh in zip(cells, new_victims, strict=True):
                    if board[t] is not None:
                        break
                    for v in fresh:
                        if BIT[v] & theirs:
                            caps += (v,)
                    if caps:
                        out.append(Move("move", o, t, pc, None, caps))

    def _cube_setup(self, board: list, me: int, own: list[tuple[int, Piece]], king: int,
                    x: int) -> tuple:
        """What the Cube's bulk test of one position (not in check) needs: the own cells
        whose leaving uncovers an attack on the enemy King ``x``, the robust witnesses
        (:meth:`_robust_witnesses`), and bitboards of the cells from which an arriving
        piece may attack ``x``: on its lines up to the first piece (all, orthogonal), its
        lines whole, within each distance, per leaper kind, a camel step's sources, the own
        Towers (a merge makes a taller one)."""
        visible, visible_orthogonal, uncovers = self._enemy_king_lines(board, x, me, own)
        witnesses = self._robust_witnesses(board, own, king)
        danger_of = {"M": MULE_MASK[x], "E": EAGLET_FROM_MASK[me][x], "D": BYPASS_SOURCES_MASK[x]}
        return (uncovers, witnesses, len(witnesses) == 3, visible, visible_orthogonal,
                LINES_MASK[x], ORTHO_LINES_MASK[x], LINES_NEAR_MASK[x], danger_of,
                CAMEL_SOURCES_MASK[x])

    def _cube_context(self, state: list) -> _CubeContext:
        """The one-by-one Cube test's context, built the first time a position needs it
        (``state``: position, King, enemy King, uncovering cells, own pieces, exposers,
        the context or None)."""
        ctx = state[6]
        if ctx is None:
            pos, king, x, uncovers, own, exposers, _ = state
            ctx = state[6] = _CubeContext(
                king, x, uncovers, self._witnesses(pos.board, own, king, exposers))
        return ctx

    def _cube_one_by_one(self, moves: list[Move], bad: int, state: list, cadd: Any) -> None:
        """The Cube variants of the quiet ``moves`` of one piece: moves to a cell of ``bad``
        (-1: every move), promotions and castling (built per listing, not kept) by
        :meth:`_cube_option`, the others at once."""
        for m in moves:
            if m.captures:
                continue
            if m.kind == "promote" or m.kind == "castle":
                if self._cube_option(state[0], m, self._cube_context(state)):
                    cadd(_cube_variant(m))
            elif not bad & BIT[m.target] or self._cube_option(
                    state[0], m, self._cube_context(state)):
                cadd(_cube_of_kept(m))

    def _cube_king(self, moves: list[Move], state: list, witnesses: list, cadd: Any) -> None:
        """The Cube variants of the King's quiet steps: at once when its leaving uncovers
        nothing and a witness is robust for its new cell, else by :meth:`_cube_option`."""
        uncovers = state[3]
        for m in moves:
            if m.captures:
                continue
            t = m.target
            if not BIT[m.origin] & uncovers and any(
                    t2 != t and not BIT[c] & WATCH_MASK[t] for c, t2 in witnesses) \
                    or self._cube_option(state[0], m, self._cube_context(state)):
                cadd(_cube_of_kept(m))

    def _legal_plain(self, pos: Position, first_only: bool = False) -> list[Move]:
        """Legal moves without the Cube option (``first_only``: stop at the first one)."""
        return self._plain(pos, first_only)

    def _plain(self, pos: Position, first_only: bool = False) -> list[Move]:
        """Legal moves without the Cube option (``first_only``: stop after the first
        piece that has one); the path for a position in check and for the Cube's full
        test of a second move (:meth:`_listing` lists the others).

        Make/undo is needed only when a line onto the King may open: King moves are
        tested on the board without the King; when not in check, a piece whose removal
        does not expose the King can make every move that removes no other piece; in
        check, only the evasions are generated (:meth:`_evasions`).
        """
        board = pos.board
        me, them = pos.turn, 1 - pos.turn
        (own, enemy_d, sliders, enemy, king, _x, _towers, attacks, attackers,
         exposers) = self._survey(board, me)
        if attacks:
            return self._evasions(pos, own, sliders, enemy_d, king, enemy, attacks,
                                  attackers, exposers, first_only)
        out: list[Move] = []
        add = out.append
        piece_moves = self._piece_moves
        candidates: list[Move] = []
        for c, pc in own:
            if c == king:
                candidates.clear()
                piece_moves(pos, c, pc, candidates)
                if candidates:
                    board[c] = None
                    safe = self._safe_cells(board, [m.target for m in candidates], sliders,
                                            them, enemy)
                    board[c] = pc
                    out += [m for m in candidates if m.target in safe]
            elif (exposed := c in exposers) or pc.kind == "D":
                candidates.clear()
                piece_moves(pos, c, pc, candidates)
                for m in candidates:
                    caps = m.captures
                    if caps and (len(caps) > 1 or caps[0] != m.target):
                        # bypass victims vacate cells
                        legal = self._safe_after(board, m, king, them, enemy_d, enemy)
                    elif not exposed or m.left is not None or m.kind == "promote":
                        legal = True
                    else:
                        legal = self._safe_after(board, m, king, them, enemy_d, enemy)
                    if legal:
                        add(m)
            else:
                piece_moves(pos, c, pc, out)  # nothing it does can expose the King
            if first_only and out:
                return out
        out += self._castling_moves(pos, king, enemy_d)
        return out

    def _evasions(self, pos: Position, own: list[tuple[int, Piece]],
                  sliders: list[tuple[int, Piece]], enemy_d: list[int], king: int,
                  enemy: dict[str, int], attacks: list[int], attackers: list[int],
                  pinned: set[int], first_only: bool = False) -> list[Move]:
        """The legal moves of a player in check, in :meth:`pseudo_moves`' order, generated
        as evasions instead of listed and filtered.

        Besides the King's steps, a move helps only if it lands on a cell of every attack
        (the attacker's, or one its line or path needs empty: :meth:`_checks`) or, a
        Bypasser's, removes an attacker; a merge or a promotion never does.  So each piece
        walks only the targets among those cells.  Against a single attack such a move
        of a piece whose leaving exposes nothing is legal as it stands (it takes the
        attacker or blocks, and its arrival only blocks); a pinned piece's, a bypass
        capture's (its victims vacate cells) and every move against two attacks are made
        on the board and tested.
        """
        board = pos.board
        me, them = pos.turn, 1 - pos.turn
        helps, touched = -1, 0  # the cells on every attack, on any attack
        for cells in attacks:
            helps &= cells
            touched |= cells
        bypassing = 0  # the cells from which a Bypasser's slide may remove an attacker
        for a in attackers:
            bypassing |= BYPASS_SOURCES_MASK[a]
        single = len(attacks) == 1
        safe_after = self._safe_after
        out: list[Move] = []
        add = out.append
        extend = out.extend
        for c, pc in own:
            kind = pc.kind
            start = len(out)
            if c == king:
                self._king_steps(board, c, pc, me, them, sliders, enemy, add)
            elif kind == "D":  # lands on an attack's cell, or bypasses an attacker
                if not (DIAGONAL_REACH[c] & touched or BIT[c] & bypassing):
                    continue
                free = single and c not in pinned
                quiet = (_MOVES.get((c, pc)) or _moves_of(c, pc)).quiet
                for (cells, new_victims), reach in zip(BYPASS_STEPS[c], BYPASS_REACH[c],
                                                       strict=True):
                    if not reach & touched:
                        continue
                    caps: tuple[int, ...] = ()
                    for t, fresh in zip(cells, new_victims, strict=True):  # as _piece_moves
                        if board[t] is not None:
                            break
                        for v in fresh:
                            q = board[v]
                            if q is not None and q.owner != me:
                                caps += (v,)
                        if BIT[t] & touched or any(BIT[v] & touched for v in caps):
                            m = Move("move", c, t, pc, None, caps) if caps else quiet[t]
                            if free and not caps or safe_after(board, m, king, them,
                                                               enemy_d, enemy):
                                add(m)
            elif helps & (MULE_MASK[c] if kind == "M" else EAGLET_MASK[me][c] if kind == "E"
                          else ROOK_CAMEL_REACH[c] if kind == "R"
                          else LINES_NEAR_MASK[c][pc.height]):  # on an empty board it reaches one
                table = _MOVES.get((c, pc)) or _moves_of(c, pc)
                if kind == "E" or kind == "M":
                    for t in (EAGLET_TARGETS[me] if kind == "E" else MULE_TARGETS)[c]:
                        if BIT[t] & helps:
                            q = board[t]
                            if q is None:
                                add(table.quiet[t])
                            elif q.owner != me:
                                add(table.capture_on(t))
                else:  # a Tower (whole and split parts) or a Rook-Camel: its rays, in order
                    tower = kind == "T"
                    quiet = table.quiet
                    for (cells, _, _), mask in zip(table.rays, table.ray_masks, strict=True):
                        if not mask & helps:
                            continue
                        dist = 0
                        for t in cells:
                            dist += 1
                            q = board[t]
                            if q is None:
                                if BIT[t] & helps:
                                    if tower:
                                        extend(quiet[t])
                                    else:
                                        add(quiet[t])
                                continue
                            if q.owner != me and BIT[t] & helps:
                                if tower:
                                    extend(table.tower_captures(t, dist))
                                else:
                                    add(table.capture_on(t))
                            break
                    if not tower:
                        for p1, p2, targets in CAMEL[c]:
                            if board[p1] is None and board[p2] is None:
                                for t in targets:
                                    if BIT[t] & helps:
                                        q = board[t]
                                        if q is None:
                                            add(quiet[t])
                                        elif q.owner != me:
                                            add(table.capture_on(t))
                if (not single or c in pinned) and len(out) > start:
                    out[start:] = [m for m in out[start:]
                                   if safe_after(board, m, king, them, enemy_d, enemy)]
            if first_only and out:
                return out
        return out

    @staticmethod
    def _survey(board: list, me: int) -> tuple:
        """One walk over the occupied cells for a listing (:meth:`_listing`,
        :meth:`_plain`, :meth:`legal_captures`): ``me``'s pieces as ``(cell, piece)``;
        the other side's Bypassers' cells; its Towers, Rook-Camels and Bypassers (the
        sliders a King step must look past); its cells by kind, as bitboards; both
        Kings' cells (-1: none); ``me``'s Towers as a bitboard; and :meth:`_checks` on
        ``me``'s King (attacks, attackers, the cells whose emptying exposes it)."""
        own: list[tuple[int, Piece]] = []
        enemy_d: list[int] = []
        sliders: list[tuple[int, Piece]] = []
        enemy = dict.fromkeys(KINDS, 0)
        king = x = -1
        my_towers = 0
        for c in compress(CELLS, board):  # the occupied cells, found in C
            p = board[c]
            if p.owner == me:
                own.append((c, p))
                if p.kind == "T":
                    my_towers |= BIT[c]
                elif p.kind == "K":
                    king = c
            else:
                kind = p.kind
                enemy[kind] |= BIT[c]
                if kind == "D":
                    enemy_d.append(c)
                    sliders.append((c, p))
                elif kind == "K":
                    x = c
                elif kind == "T" or kind == "R":
                    sliders.append((c, p))
        attacks, attackers, exposers = Luotuoqi._checks(board, king, 1 - me, enemy_d, enemy)
        return (own, enemy_d, sliders, enemy, king, x, my_towers, attacks, attackers,
                exposers)

    @staticmethod
    def _cells_by_kind(board: list, owner: int) -> dict[str, int]:
        """The cells of ``owner``'s pieces by kind, as bitboards."""
        out = dict.fromkeys(KINDS, 0)
        for c in compress(CELLS, board):
            p = board[c]
            if p.owner == owner:
                out[p.kind] |= BIT[c]
        return out

    @staticmethod
    def _checks(board: list, x: int, by: int, bypassers: list[int],
                enemy: dict[str, int] | None = None) -> tuple[list[int], list[int], set[int]]:
        """What ``by`` threatens on ``x``, in one walk along ``x``'s lines: every attack
        on it, each as a bitboard of the attacker's cell and the cells the attack needs
        empty (a move that answers it must land on one); the attackers' cells; and the
        cells whose emptying alone would add an attack — the pinned pieces, every cell
        :meth:`exposes` says yes for when ``x`` is not attacked.  ``enemy``: ``by``'s
        cells by kind, as bitboards — a line without a Tower or Rook-Camel of ``by`` on it
        is not walked (found from the board when not given)."""
        if enemy is None:
            enemy = Luotuoqi._cells_by_kind(board, by)
        attacks: list[int] = []
        attackers: list[int] = []
        for piece, cells, mask in (
                (MULE_OF[by], MULE_TARGETS[x], MULE_MASK[x] & enemy["M"]),
                (KING_OF[by], KING_STEPS[x], KING_MASK[x] & enemy["K"]),
                (EAGLET_OF[by], EAGLET_ATTACKERS[by][x], EAGLET_FROM_MASK[by][x] & enemy["E"])):
            if mask:
                for c in cells:
                    if board[c] == piece:
                        attacks.append(BIT[c])
                        attackers.append(c)
        pinned: set[int] = set()
        towers, rook_camels = enemy["T"], enemy["R"]
        for orthogonal, ray, ray_mask in KING_LINES[x]:
            if not (towers | rook_camels if orthogonal else towers) & ray_mask:
                continue  # no attacker on this line
            first = -1
            for dist, c in enumerate(ray, start=1):
                p = board[c]
                if p is None:
                    continue
                attacks_x = p.owner == by and (p.kind == "R" and orthogonal
                                               or p.kind == "T" and p.height >= dist)
                if first < 0:
                    if attacks_x:
                        attacks.append(_bits(ray[:dist]))
                        attackers.append(c)
                        break
                    first = c
                    continue
                if attacks_x:
                    pinned.add(first)
                break
        for s, p1, p2 in (CAMEL_ATTACKERS[x] if rook_camels & CAMEL_SOURCES_MASK[x] else ()):
            p = board[s]
            if p is not None and p.owner == by and p.kind == "R":
                a, b = board[p1], board[p2]
                if a is None:
                    if b is None:
                        attacks.append(BIT[s] | BIT[p1] | BIT[p2])
                        attackers.append(s)
                    else:
                        pinned.add(p2)
                elif b is None:
                    pinned.add(p1)
        for s in bypassers:
            need = BYPASS_NEED[s].get(x)
            if need is None:
                continue
            occupied = [c for c in need if board[c] is not None]
            if not occupied:
                attacks.append(BIT[s] | _bits(need))
                attackers.append(s)
            elif len(occupied) == 1:
                pinned.add(occupied[0])
        return attacks, attackers, pinned

    def _king_steps(self, board: list, c: int, pc: Piece, me: int, them: int,
                    sliders: list[tuple[int, Piece]], enemy: Any, add: Any) -> None:
        """The King's steps on ``c`` to cells no enemy attacks once he has left ``c``
        (one home for the plain listing and the evasions)."""
        targets = [t for t in KING_STEPS[c] if (q := board[t]) is None or q.owner != me]
        if not targets:
            return
        board[c] = None
        safe = self._safe_cells(board, targets, sliders, them, enemy)
        board[c] = pc
        if safe:
            table = _MOVES.get((c, pc)) or _moves_of(c, pc)
            for t in targets:
                if t in safe:
                    add(table.capture_on(t) if board[t] else table.quiet[t])

    @staticmethod
    def _safe_cells(board: list, cells: list[int], sliders: list[tuple[int, Piece]],
                    them: int, enemy: dict[str, int]) -> set[int]:
        """Those of ``cells`` no piece of ``them`` attacks (:meth:`attacked` for a King's
        few targets at once): the leapers by bitboards (``enemy``: ``them``'s cells by
        kind), then those of ``them``'s Towers, Rook-Camels and Bypassers (``sliders``)
        that stand where they might attack the cell."""
        mules, kings, eaglets = enemy["M"], enemy["K"], enemy["E"]
        towers, rook_camels, bypassers = enemy["T"], enemy["R"], enemy["D"]
        eaglet_from = EAGLET_FROM_MASK[them]
        at = board.__getitem__  # a piece is a non-empty tuple: true; an empty cell false
        safe = set()
        for x in cells:
            if MULE_MASK[x] & mules or KING_MASK[x] & kings or eaglet_from[x] & eaglets:
                continue
            near = (towers & LINES_MASK[x] | rook_camels & ROOK_CAMEL_SOURCES[x]
                    | bypassers & BYPASS_SOURCES_MASK[x])
            if not near:
                safe.add(x)
                continue
            for s, p in sliders:
                if not BIT[s] & near:
                    continue
                kind = p.kind
                if kind == "D":
                    need = BYPASS_NEED[s].get(x)
                    if need is not None and not any(map(at, need)):  # all empty (in C)
                        break
                    continue
                line = LINE_TO[x].get(s)
                if line is not None and (line[2] if kind == "R" else p.height >= line[0]) \
                        and not any(map(at, line[1])):
                    break
                if kind == "R":
                    passes = CAMEL_PASS[s].get(x)
                    if passes is not None and board[passes[0]] is None \
                            and board[passes[1]] is None:
                        break
            else:
                safe.add(x)
        return safe

    def _safe_after(self, board: list, m: Move, king: int, them: int,
                    enemy_d: list[int], enemy: dict[str, int] | None = None) -> bool:
        """Is the mover's King (on ``king``) safe from ``them`` after ``m`` (not castling)?
        The move's cells are changed on the board and put back: only the pieces matter
        to an attack, not the rest of the position (``enemy_d``: the Bypassers of
        ``them``; ``enemy``: their cells by kind before the move, which a capture only
        leaves stale in cells now empty)."""
        o, t = m.origin, m.target
        saved = [(c, board[c]) for c in m.captures]
        saved.append((o, board[o]))
        saved.append((t, board[t]))
        for c in m.captures:
            board[c] = None
        if m.kind == "promote":
            board[o] = m.piece
        else:
            board[o] = m.left
            board[t] = m.piece
            if o == king:
                king = t
        safe = not self.attacked(board, king, them, enemy_d, enemy)
        for c, piece in reversed(saved):
            board[c] = piece
        return safe

    @staticmethod
    def _enemy_king_lines(board: list, x: int, me: int,
                          own: list[tuple[int, Piece]]) -> tuple[int, int, int]:
        """Bitboards for the enemy King on ``x`` (not attacked): the cells on its lines up to
        and including the first piece, all and the orthogonal ones (where a slider arriving
        may attack it), and the own cells whose emptying alone would let ``me`` attack it
        (as :meth:`_checks` finds them)."""
        visible = orthogonal = uncovers = 0
        for d in GRID_DIRECTIONS:
            straight = d in ORTHOGONAL
            mask = 0
            first = -1
            for dist, c in enumerate(RAYS[d][x], start=1):
                p = board[c]
                if first < 0:
                    mask |= BIT[c]
                    if p is not None:
                        if p.owner != me:
                            break  # an enemy piece shields the King: nothing to uncover
                        first = c
                elif p is not None:
                    if p.owner == me and (p.kind == "R" and straight
                                          or p.kind == "T" and p.height >= dist):
                        uncovers |= BIT[first]
                    break
            visible |= mask
            if straight:
                orthogonal |= mask
        for s, p1, p2 in CAMEL_ATTACKERS[x]:
            p = board[s]
            if p is not None and p.owner == me and p.kind == "R":
                a, b = board[p1], board[p2]
                if a is None:
                    if b is not None:
                        uncovers |= BIT[p2]
                elif b is None:
                    uncovers |= BIT[p1]
        for s, pc in own:
            if pc.kind == "D":
                need = BYPASS_NEED[s].get(x)
                if need is not None:
                    occupied = [c for c in need if board[c] is not None]
                    if len(occupied) == 1:
                        uncovers |= BIT[occupied[0]]
        return visible, orthogonal, uncovers

    @staticmethod
    def _robust_witnesses(board: list, own: list[tuple[int, Piece]],
                          king: int) -> list[tuple[int, int]]:
        """Up to three one-step moves (cell, empty target) of different pieces other than
        the King, to different cells, of pieces off every line or path of an attack on the
        King (``KING_WATCH``): their leaving can never expose it."""
        watch = WATCH_MASK[king]
        steps = ONE_STEP[board[king].owner]
        out: list[tuple[int, int]] = []
        used = 0
        for c, pc in own:
            if BIT[c] & watch or pc.kind == "K":
                continue
            for t in steps[pc.kind][c]:
                if board[t] is None and not BIT[t] & used:
                    out.append((c, t))
                    used |= BIT[t]
                    if len(out) == 3:
                        return out
                    break
        return out

    def _cube_option(self, pos: Position, m: Move, ctx: _CubeContext) -> bool:
        """May the quiet, legal ``m`` be the first move of a Cube turn (not in check)?"""
        board = pos.board
        me, them = pos.turn, 1 - pos.turn
        king, x, witnesses = ctx.king, ctx.enemy_king, ctx.witnesses
        o, t, pc, left = m.origin, m.target, m.piece, m.left
        kind = pc.kind
        if m.kind == "promote":
            # the Eaglet turns into ``pc`` where it stands: nothing else changes, so only
            # the new piece may give check, and a robust witness of another piece stays good
            eaglet, board[o] = board[o], pc
            gives_check = self.attacked(board, x, me)
            board[o] = eaglet
            if gives_check:
                return False
            return any(robust and c != o for c, _, robust in witnesses) \
                or self._cube_option_in_full(pos, _cube_variant(m))
        vacated = o if left is None else -1
        if m.also or vacated >= 0 and BIT[vacated] & ctx.uncovers:
            return self._cube_option_in_full(pos, _cube_variant(m))
        exposes = self.exposes
        if kind == "K":  # the witness must not expose the King on its new cell
            board[o], board[t] = None, pc
            ok = any(c != t and t2 != t and (c not in KING_WATCH[t]
                                             or not exposes(board, t, c, them))
                     for c, t2, _ in witnesses)
            board[o], board[t] = pc, None
            return ok or self._cube_option_in_full(pos, _cube_variant(m))
        if self._checks_on_arrival(board, pc, t, x, vacated):
            return False
        opened = vacated in KING_WATCH[king]  # the first move may open a line onto the King
        for c, t2, robust in witnesses:
            if c != o and c != t and t2 != t and (robust or not opened):
                return True
        saved = board[o], board[t]  # a merge's target holds a Tower
        board[o], board[t] = left, pc
        ok = any(c != o and c != t and t2 != t and not exposes(board, king, c, them)
                 for c, t2, _ in witnesses)
        board[o], board[t] = saved
        return ok or self._cube_option_in_full(pos, _cube_variant(m))

    @staticmethod
    def _checks_on_arrival(board: list, pc: Piece, t: int, x: int, vacated: int) -> bool:
        """Does ``pc`` (not a King), arriving on ``t``, attack the enemy King on ``x``?  The
        board is as before the move, ``vacated`` the cell the move empties (or -1)."""
        kind = pc.kind
        if kind == "M":
            return x in MULE_SET[t]
        if kind == "E":
            return x in EAGLET_SET[pc.owner][t]
        if kind == "D":
            need = BYPASS_NEED[t].get(x)
            return need is not None and all(board[c] is None or c == vacated for c in need)
        line = LINE_TO[t].get(x)
        if line is not None and (line[2] if kind == "R" else pc.height >= line[0]) \
                and all(board[c] is None or c == vacated for c in line[1]):
            return True
        if kind == "R":
            passes = CAMEL_PASS[t].get(x)
            return passes is not None and all(board[c] is None or c == vacated
                                              for c in passes)
        return False

    def _cube_evasions(self, pos: Position, moves: list[Move], own: list[tuple[int, Piece]],
                       king: int, x: int) -> list[Move]:
        """The Cube variants of the quiet ones among the legal evasions ``moves``.

        From the board as it stands: the first move gives check if the piece checks on
        arrival or its leaving exposes the enemy King ``x`` (then made and tested, as it
        may block again); a robust witness (:meth:`_robust_witnesses`, for
        a King's step robust for its new cell too) untouched by the move is a legal
        second move, as no attack on the King can depend on its cell.  The others are
        tried on the board (:meth:`_cube_option_in_check`)."""
        quiet = [m for m in moves if not m.captures]
        if not quiet:
            return []
        board = pos.board
        me = pos.turn
        witnesses = self._robust_witnesses(board, own, king)
        mine: dict[str, int] = {}  # the fallback's bitboards, built when first needed
        my_d: list[int] = []
        out: list[Move] = []
        for m in quiet:  # every quiet evasion is a kept move (:meth:`_evasions`)
            o, t, pc = m.origin, m.target, m.piece
            vacated = o if m.left is None else -1
            if vacated < 0 or not self.exposes(board, x, vacated, me):
                if pc.kind == "K":
                    if any(t2 != t and not BIT[c] & WATCH_MASK[t] for c, t2 in witnesses):
                        out.append(_cube_of_kept(m))
                        continue
                elif self._checks_on_arrival(board, pc, t, x, vacated):
                    continue
                elif any(c != o and c != t and t2 != t for c, t2 in witnesses):
                    out.append(_cube_of_kept(m))
                    continue
            if not mine:
                mine = dict.fromkeys(KINDS, 0)
                for c, p in own:
                    mine[p.kind] |= BIT[c]
                my_d = [c for c, p in own if p.kind == "D"]
            if self._cube_option_in_check(pos, m, x, own, my_d, mine):
                out.append(_cube_of_kept(m))
        return out

    def _cube_option_in_check(self, pos: Position, m: Move, x: int,
                              own: list[tuple[int, Piece]], my_d: list[int],
                              mine: dict[str, int]) -> bool:
        """The Cube option of the legal, quiet evasion ``m``: made on the board alone, then
        no check on the enemy King ``x``, and a second move found as a one-step move of a
        piece whose leaving does not expose the King or a safe step of the King (else
        searched in full); ``my_d``, ``mine``: the mover's Bypassers, its cells by kind
        (bitboards), before the move."""
        board = pos.board
        me, them = pos.turn, 1 - pos.turn
        o, t = m.origin, m.target
        saved = [(o, board[o]), (t, board[t])]
        if m.kind == "promote":
            board[o] = m.piece
        else:
            board[o], board[t] = m.left, m.piece
        try:
            # the moved piece's old cell is empty now or holds what stayed (``attacked``
            # allows both); its new cell is added
            kind = m.piece.kind
            after = dict(mine)
            after[kind] |= BIT[t]
            if self.attacked(board, x, me, my_d + [t] if kind == "D" else my_d, after):
                return False
            king = t if m.piece.kind == "K" else next(c for c, p in own if p.kind == "K")
            # ``m`` is a legal evasion: the King is not attacked now
            for c in [c for c, _ in own] + [t]:
                p = board[c]
                if p is None or p.owner != me or p.kind == "K":
                    continue
                kind = p.kind
                steps = (MULE_TARGETS[c] if kind == "M" else EAGLET_TARGETS[me][c]
                         if kind == "E" else ORTHOGONAL_STEPS[c] if kind == "R"
                         else DIAGONAL_STEPS[c] if kind == "D" else KING_STEPS[c])
                if any(board[s] is None for s in steps) \
                        and not self.exposes(board, king, c, them):
                    return True
            if self._king_may_step(board, king, them):  # a lone King near a mate
                return True
        finally:
            for cell, piece in reversed(saved):
                board[cell] = piece
        # no check given and no King step found on this board: only the listing is left
        return self._cube_option_in_full(pos, _cube_variant(m), listing_only=True)

    def _cube_option_in_full(self, pos: Position, cube: Move,
                             listing_only: bool = False) -> bool:
        """The Cube rule by make/undo: the first move gives no check and a second exists —
        a safe step of the King to an empty cell, else found by listing (a lone King, the
        usual case near a mate, had every first move listed after).  ``listing_only``:
        the caller found no check and no King step on the same board already."""
        me = pos.turn
        pos.push(cube, record=False)
        try:
            board = pos.board
            if not listing_only:
                if self.attacked(board, self._king(board, 1 - me), me):
                    return False
                if self._king_may_step(board, self._king(board, me), 1 - me):
                    return True
            return bool(self._legal_plain(pos, first_only=True))
        finally:
            pos.pop()

    def _king_may_step(self, board: list, king: int, them: int) -> bool:
        """Whether the King on ``king`` has a step to an empty cell no piece of ``them``
        attacks once the King has left (lines through its old cell count)."""
        royal, board[king] = board[king], None
        try:
            return any(board[s] is None and not self.attacked(board, s, them)
                       for s in KING_STEPS[king])
        finally:
            board[king] = royal

    @staticmethod
    def _witnesses(board: list, own: list[tuple[int, Piece]], king: int,
                   exposers: Any) -> list[tuple[int, int, bool]]:
        """Second-move witnesses: up to six (cell, empty target, robust) one-step moves of
        pieces other than the King (not in check) whose leaving does not expose the King;
        robust: the piece stands where no attack on the King can depend on it."""
        watch = KING_WATCH[king]
        out: list[tuple[int, int, bool]] = []
        for c, pc in own:
            kind = pc.kind
            if kind == "K":
                continue
            robust = c not in watch
            if not robust and c in exposers:
                continue
            steps = (MULE_TARGETS[c] if kind == "M" else EAGLET_TARGETS[pc.owner][c]
                     if kind == "E" else ORTHOGONAL_STEPS[c] if kind == "R"
                     else DIAGONAL_STEPS[c] if kind == "D" else KING_STEPS[c])
            found = 0
            for t in steps:
                if board[t] is None:
                    out.append((c, t, robust))
                    found += 1
                    if found == 2:
                        break
            if len(out) >= 6:
                break
        out.sort(key=lambda w: not w[2])
        return out

    # -- make -------------------------------------------------------------------------
    def make(self, pos: Position, move: Move) -> None:
        me = pos.turn
        for c in move.captures:
            pos.put(c, None)
        if move.kind == "promote":
            pos.put(move.origin, move.piece)
        else:
            pos.put(move.origin, move.left)
            pos.put(move.target, move.piece)
            for a, b in move.also:
                rook = pos.board[a]
                pos.put(a, None)
                pos.put(b, rook)
        rights = pos.state.get("castling", "")
        if rights and (move.origin in RIGHTS_LOST_AT or move.target in RIGHTS_LOST_AT
                       or move.captures):
            lost = "".join(RIGHTS_LOST_AT.get(c, "") for c in (move.origin, move.target,
                                                               *move.captures))
            if lost:
                new = "".join(r for r in rights if r not in lost)
                if new != rights:
                    pos.set_state("castling", new or None)
        resets = bool(move.captures) or move.kind == "promote" or move.piece.kind == "E"
        pos.halfmove = 0 if resets else pos.halfmove + 1
        if move.token == "cube":
            pos.set_token("cube", 1 - me)
            pos.set_state("cube_second", True)
            return  # the same player moves again
        if pos.state.get("cube_second"):
            pos.set_state("cube_second", None)
        if me == BLACK:
            pos.fullmove += 1
        pos.turn = 1 - me

    # -- end of game ------------------------------------------------------------------
    def has_legal_move(self, pos: Position) -> bool:
        """A plain move (the Cube never saves a player)."""
        return bool(self._legal_plain(pos, first_only=True))

    # -- notation ---------------------------------------------------------------------
    def move_text(self, pos: Position, move: Move) -> str:
        """``Mb1-c3``, ``T4b7xe4``, ``T1b7-a8`` (split), ``T4b7-d7=T6`` (merge),
        ``Db2-h8xc4xd3`` (bypass), ``Eg4=M`` (promotion), ``O-O``, suffix ``+cube``."""
        cells = G.cells
        if move.kind == "castle":
            text = "O-O" if move.target > move.origin else "O-O-O"
        elif move.kind == "promote":
            p = move.piece
            new = "T" + str(p.height) if p.kind == "T" else p.kind
            text = f"E{cells[move.origin]}={new}"
        else:
            mover = pos.board[move.origin]
            if mover.kind == "T":
                moving = move.piece.height - (pos.board[move.target].height
                                              if move.kind == "merge" else 0)
                letter = f"T{moving}"
            else:
                letter = mover.kind
            sep = "x" if move.target in move.captures else "-"
            text = f"{letter}{cells[move.origin]}{sep}{cells[move.target]}"
            if move.kind == "merge":
                text += f"=T{move.piece.height}"
            for c in move.captures:
                if c != move.target:
                    text += f"x{cells[c]}"
        if move.token == "cube":
            text += "+cube"
        return text

    def ply_mover(self, pos: Position) -> int:
        return pos.turn
