"""Lùotuoqí (Camel Chess) per ``rules/luotuoqi.md`` and ``rules/DECISIONS.md``.

Pieces: King ``K``, Eaglet ``E``, Mule ``M``, Rook-Camel ``R``, Diagonal Bypasser ``D``
and the Tower of Hanoi ``T`` (a stack of 1–8 stones, ``Piece.height``).  The Cube is an
off-board token (``pos.tokens["cube"]`` = holder); using it is part of a first move
(``Move.token == "cube"``) and the same player then makes the next ply.

Speed: every table a move generator needs is built once at import from the ``square8``
shape; legality avoids make/undo for moves that cannot expose the King.
"""

from __future__ import annotations

from typing import Any

from controller.geometry import DIAGONAL, GRID_DIRECTIONS, ORTHOGONAL, load_shape
from controller.rules.core import (
    Game,
    GameOption,
    Move,
    PadNeed,
    Piece,
    Position,
    PositionError,
    SpecialStep,
    Termination,
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
# Reverse: for a cell X, the (source, pass1, pass2) of every camel step that lands on X.
CAMEL_ATTACKERS: tuple = tuple(
    tuple((s, p1, p2) for s in range(N_CELLS) for p1, p2, ts in CAMEL[s] if x in ts)
    for x in range(N_CELLS))


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

_TOWER_QUIET: dict[tuple[int, Piece], dict[int, tuple[Move, ...]]] = {}


def _tower_quiet(o: int, tower: Piece) -> dict[int, tuple[Move, ...]]:
    """The moves of ``tower`` on ``o`` to each empty cell it reaches (whole move and every
    split that gets there), built once per origin and Tower: they never depend on the board."""
    table = _TOWER_QUIET.get((o, tower))
    if table is None:
        me, n = tower.owner, tower.height
        table = {}
        for d in GRID_DIRECTIONS:
            for dist, t in enumerate(RAYS[d][o][:n], start=1):
                table[t] = tuple(
                    Move("move", o, t, tower) if k == n
                    else Move("split", o, t, Piece(me, "T", k), Piece(me, "T", n - k))
                    for k in range(dist, n + 1))
        _TOWER_QUIET[(o, tower)] = table
    return table


_QUIET: dict[tuple[int, Piece], dict[int, Move]] = {}


def _quiet(o: int, piece: Piece) -> dict[int, Move]:
    """Quiet (non-capturing) moves of ``piece`` from ``o``, by target, made on demand and
    kept: a Move is an immutable value, so one object serves every position."""
    table = _QUIET.get((o, piece))
    if table is None:
        table = _QUIET[(o, piece)] = _QuietMoves(o, piece)
    return table


class _QuietMoves(dict):
    def __init__(self, o: int, piece: Piece):
        super().__init__()
        self.o, self.piece = o, piece

    def __missing__(self, t: int) -> Move:
        move = self[t] = Move("move", self.o, t, self.piece)
        return move


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
# cells whose involvement in a move removes castling rights
RIGHTS_LOST_AT: dict[int, str] = {}
for _r in "KQkq":
    for _c in (HOME[_r], ROOK_HOME[_r]):
        RIGHTS_LOST_AT[_c] = RIGHTS_LOST_AT.get(_c, "") + _r

PROMOTION_AXES = (("E", "W"), ("N", "S"), ("NE", "SW"), ("NW", "SE"))


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
    pads = (PadNeed("cube", 0), PadNeed("cube", 1))
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
        king = Piece(owner, "K")
        for c in range(N_CELLS):
            if board[c] == king:
                return c
        return -1

    @staticmethod
    def bypassers(board: list, owner: int) -> list[int]:
        return [c for c in range(N_CELLS) if (p := board[c]) is not None and p.owner == owner
                and p.kind == "D"]

    @staticmethod
    def attacked(board: list, x: int, by: int, bypassers: list[int] | None = None) -> bool:
        """Could a piece of ``by`` capture (or bypass-capture) a piece on cell ``x``?

        ``bypassers`` lists the cells of ``by``'s Diagonal Bypassers when the caller knows
        them (saves a board scan); they may be stale only in cells that are now empty.
        """
        for c in MULE_TARGETS[x]:
            p = board[c]
            if p is not None and p.owner == by and p.kind == "M":
                return True
        for c in KING_STEPS[x]:
            p = board[c]
            if p is not None and p.owner == by and p.kind == "K":
                return True
        for c in EAGLET_ATTACKERS[by][x]:
            p = board[c]
            if p is not None and p.owner == by and p.kind == "E":
                return True
        for d in ORTHOGONAL:
            dist = 0
            for c in RAYS[d][x]:
                dist += 1
                p = board[c]
                if p is not None:
                    if p.owner == by and (p.kind == "R" or p.kind == "T" and p.height >= dist):
                        return True
                    break
        for d in DIAGONAL:
            dist = 0
            for c in RAYS[d][x]:
                dist += 1
                p = board[c]
                if p is not None:
                    if p.owner == by and p.kind == "T" and p.height >= dist:
                        return True
                    break
        for s, p1, p2 in CAMEL_ATTACKERS[x]:
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
        add = moves.append
        kind = pc.kind
        if kind == "T":
            self._tower_moves(board, o, pc, moves)
            return
        quiet = _quiet(o, pc)
        if kind == "D":
            for d in DIAGONAL:
                victims = BYPASS_VICTIMS[d][o]
                n = 0
                for t in RAYS[d][o]:
                    if board[t] is not None:
                        break
                    caps = tuple(v for v in victims[n] if (q := board[v]) is not None
                                 and q.owner != me)
                    n += 1
                    add(Move("move", o, t, pc, None, caps) if caps else quiet[t])
        elif kind == "R":
            for d in ORTHOGONAL:
                for t in RAYS[d][o]:
                    q = board[t]
                    if q is None:
                        add(quiet[t])
                        continue
                    if q.owner != me:
                        add(Move("move", o, t, pc, None, (t,)))
                    break
            for p1, p2, targets in CAMEL[o]:
                if board[p1] is None and board[p2] is None:
                    for t in targets:
                        q = board[t]
                        if q is None:
                            add(quiet[t])
                        elif q.owner != me:
                            add(Move("move", o, t, pc, None, (t,)))
        else:
            table = (MULE_TARGETS if kind == "M" else KING_STEPS if kind == "K"
                     else EAGLET_TARGETS[me])
            for t in table[o]:
                q = board[t]
                if q is None:
                    add(quiet[t])
                elif q.owner != me:
                    add(Move("move", o, t, pc, None, (t,)))
            if kind == "E":
                self._promotions(pos, o, pc, moves)

    @staticmethod
    def _tower_moves(board: list, o: int, pc: Piece, moves: list[Move]) -> None:
        me, n = pc.owner, pc.height
        add = moves.append
        quiet = _tower_quiet(o, pc)
        for d in GRID_DIRECTIONS:
            dist = 0
            for t in RAYS[d][o]:
                dist += 1
                if dist > n:
                    break
                q = board[t]
                if q is None:
                    moves.extend(quiet[t])
                    continue
                if q.owner != me:
                    for k in range(dist, n + 1):
                        if k == n:
                            add(Move("move", o, t, pc, None, (t,)))
                        else:
                            add(Move("split", o, t, Piece(me, "T", k), Piece(me, "T", n - k),
                                     (t,)))
                elif q.kind == "T":
                    for k in range(dist, min(n, MAX_TOWER - q.height) + 1):
                        add(Move("merge", o, t, Piece(me, "T", k + q.height),
                                 Piece(me, "T", n - k) if k < n else None))
                break

    def _promotions(self, pos: Position, o: int, pc: Piece, moves: list[Move]) -> None:
        board = pos.board
        seen = set()
        for a, b in PROMOTION_AXES:
            x, y = STEP[a][o], STEP[b][o]
            if x < 0 or y < 0:
                continue
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
            if any(board[c] is not None for c in empty):
                continue
            if any(self.attacked(board, c, 1 - me, bypassers) for c in safe):
                continue
            out.append(Move("castle", king, kt, board[king], None, (), ((ROOK_HOME[r], rt),)))
        return out

    def legal_moves(self, pos: Position) -> list[Move]:
        if self.outcome_before_moves(pos):
            return []
        moves = self._legal_plain(pos)
        holder = pos.tokens.get("cube")
        if holder == pos.turn and not pos.state.get("cube_second"):
            moves += self._cube_moves(pos, moves)
        return moves

    def _legal_plain(self, pos: Position, first_only: bool = False) -> list[Move]:
        """Legal moves without the Cube option (``first_only``: stop at the first one).

        Make/undo is needed only when a line onto the King may open: King moves are
        tested on the board without the King; when not in check, a piece whose removal
        does not expose the King can make every move that removes no other piece.
        """
        board = pos.board
        me, them = pos.turn, 1 - pos.turn
        own: list[tuple[int, Piece]] = []
        enemy_d: list[int] = []
        king = -1
        for c in range(N_CELLS):
            p = board[c]
            if p is None:
                continue
            if p.owner == me:
                own.append((c, p))
                if p.kind == "K":
                    king = c
            elif p.kind == "D":
                enemy_d.append(c)
        attacked = self.attacked
        checked = attacked(board, king, them, enemy_d)
        watch = KING_WATCH[king]
        out: list[Move] = []
        add = out.append
        candidates: list[Move] = []
        for c, pc in own:
            candidates.clear()
            self._piece_moves(pos, c, pc, candidates)
            if not candidates:
                continue
            if c == king:
                board[c] = None
                for m in candidates:
                    if not attacked(board, m.target, them, enemy_d):
                        add(m)
                board[c] = pc
            elif checked:
                for m in candidates:
                    if self._safe_after(pos, m, me):
                        add(m)
            else:
                exposed = c in watch and self.exposes(board, king, c, them)
                for m in candidates:
                    caps = m.captures
                    if caps and (len(caps) > 1 or caps[0] != m.target):
                        legal = self._safe_after(pos, m, me)  # bypass victims vacate cells
                    elif not exposed or m.left is not None or m.kind == "promote":
                        legal = True
                    else:
                        legal = self._safe_after(pos, m, me)
                    if legal:
                        add(m)
            if first_only and out:
                return out
        if not checked:
            out += self._castling_moves(pos, king, enemy_d)
        return out

    def _safe_after(self, pos: Position, m: Move, me: int) -> bool:
        pos.push(m, record=False)
        safe = not self.attacked(pos.board, self._king(pos.board, me), 1 - me)
        pos.pop()
        return safe

    def _cube_moves(self, pos: Position, plain: list[Move]) -> list[Move]:
        """First moves of a Cube turn: quiet, non-checking, with a legal second move."""
        me, them = pos.turn, 1 - pos.turn
        out = []
        my_d = self.bypassers(pos.board, me)
        enemy_king = self._king(pos.board, them)
        my_king = self._king(pos.board, me)
        steppers = [c for c in range(N_CELLS) if (p := pos.board[c]) is not None
                    and p.owner == me and (p.kind == "M" or p.kind == "E")]
        board = pos.board
        for m in plain:
            if m.captures:
                continue
            # Apply the quiet move to the board only (no log): enough for attack tests.
            o, t = m.origin, m.target
            saved = [(o, board[o]), (t, board[t])] + [(a, board[a]) for pair in m.also
                                                      for a in pair]
            if m.kind == "promote":
                board[o] = m.piece
            else:
                board[o] = m.left
                board[t] = m.piece
                for a, b in m.also:
                    board[b], board[a] = board[a], None
            after_d = [c for c in my_d if board[c] is not None and board[c].kind == "D"]
            if m.piece.kind == "D":
                after_d.append(t)
            gives_check = self.attacked(board, enemy_king, me, after_d)
            king = t if m.piece.kind == "K" else my_king
            easy = not gives_check and self._easy_second_move(board, m, king, steppers)
            for cell, piece in reversed(saved):
                board[cell] = piece
            if gives_check:
                continue
            cube_move = m._replace(token="cube")
            if not easy:
                pos.push(cube_move, record=False)
                easy = bool(self._legal_plain(pos, first_only=True))
                pos.pop()
            if easy:
                out.append(cube_move)
        return out

    def _easy_second_move(self, board: list, first: Move, king: int,
                          steppers: list[int]) -> bool:
        """Cheap witness that a legal second move exists after the quiet, legal ``first``:
        a Mule or Eaglet (not the piece that just moved) with a free target whose removal
        does not expose the King.  False means "look properly", not "none"."""
        if first.piece.kind == "K" or first.also:
            return False
        me = first.piece.owner
        them = 1 - me
        watch = KING_WATCH[king]
        for c in steppers:
            if c == first.origin or c == first.target:
                continue
            pc = board[c]
            table = MULE_TARGETS if pc.kind == "M" else EAGLET_TARGETS[me]
            for t in table[c]:
                q = board[t]
                if q is None or q.owner != me:
                    return c not in watch or not self.exposes(board, king, c, them)
        return False

    def outcome_before_moves(self, pos: Position) -> bool:
        """Repetition and the 50-move rule end the game before any move is listed."""
        return pos.halfmove >= 100 or (len(pos.keys) > 0 and pos.keys.count(pos.keys[-1]) >= 3)

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
        if rights:
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
        """A plain move (the Cube never saves a player; :meth:`legal_moves` is empty once
        the draw rules have ended the game)."""
        return bool(self._legal_plain(pos))

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
