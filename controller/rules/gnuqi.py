"""Gnu Qi (Charles Gilman): 9×9 chess with two Rivers, Camels, a Gnu and Pawns that turn Wazir.

The rules are ``shared/rules/gnuqi.md`` as settled by ``DECISIONS.md``:

* King, Queen and Gnu may never cross their own *far* River; Bishop and Camel may cross
  it only by a move that neither starts nor ends on one of its two banks.  These tests
  restrict captures exactly like moves, so they also decide which cells a piece attacks
  (hence the "one-way check" between Kings).
* Pawns step one forward, capture one diagonally forward, have no double step (so no
  en passant) and become Wazirs the moment they cross their far River.
* Castling on both wings, FIDE-queenside style; FIDE check, mate, stalemate,
  threefold-repetition and 50-move rules; bare Kings are a draw.

The starting array is provisional data (:data:`START_FEN`, :data:`CASTLINGS`).

Speed comes from tables built once per process: for every piece, colour and cell the
reachable cells with the River tests already applied, each paired with ready-made
:class:`Move` values, and the reverse tables (who can attack a cell from where) used for
check, pin and attacked-cell detection.  Legal moves are found with check and pin
detection instead of making and unmaking every pseudo-legal move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, NamedTuple

from controller.geometry import DIAGONAL, ORTHOGONAL, Geometry, load_shape
from controller.rules.core import (
    Game,
    IllegalMoveError,
    LazyTable,
    Move,
    Outcome,
    Piece,
    Position,
    PositionError,
    RulesError,
    SpecialStep,
    Termination,
    grid_board_text,
    move_from_cells,
    parse_grid_board,
    render_grid,
)

#: Provisional starting array (gnuqi.md §4, DECISIONS.md): White R N B B K C C N R,
#: Queen b2, Gnu h2, Pawns a3–i3; Black is White's array turned through 180°.
START_FEN = "rncckbbnr/1g5q1/ppppppppp/9/9/9/PPPPPPPPP/1Q5G1/RNBBKCCNR w KQkq - 0 1"

PROVISIONAL = "provisional set-up: the inventor's array is lost, this one is a reconstruction"

PIECE_NAMES = {
    "K": "King", "Q": "Queen", "R": "Rook", "B": "Bishop", "N": "Knight",
    "C": "Camel", "G": "Gnu", "P": "Pawn", "W": "Wazir",
}
COLOUR_NAMES = ("White", "Black")
#: Gnu Qi's own ending (its words, as recorded games keep them)
BARE_KINGS = "bare kings"

#: The River after this rank (1-based) is each colour's far River (gnuqi.md §1).
FAR_RIVER = (6, 3)
#: Pieces that may never cross their far River.
NO_CROSSING = "KQG"
#: Pieces that may cross it only without starting or ending on a bank.
BANK_BOUND = "BC"


class Castling(NamedTuple):
    """One castling, as data: it follows the array (gnuqi.md §7)."""

    letter: str  #: FEN letter
    owner: int
    king_from: str
    king_to: str
    rook_from: str
    rook_to: str


#: K/k castle toward the i-file (notation O-O), Q/q toward the a-file (O-O-O).
#: With the rotated array White's O-O is Camelside, Black's O-O is Bishopside.
CASTLINGS = (
    Castling("K", 0, "e1", "g1", "i1", "f1"),
    Castling("Q", 0, "e1", "c1", "a1", "d1"),
    Castling("k", 1, "e9", "g9", "i9", "f9"),
    Castling("q", 1, "e9", "c9", "a9", "d9"),
)
CASTLING_ORDER = "".join(c.letter for c in CASTLINGS)

KNIGHT_LEAPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
CAMEL_LEAPS = ((1, 3), (3, 1), (3, -1), (1, -3), (-1, -3), (-3, -1), (-3, 1), (-1, 3))
KING_STEPS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
WAZIR_STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))
LEAPS = {
    "K": KING_STEPS, "N": KNIGHT_LEAPS, "C": CAMEL_LEAPS,
    "G": KNIGHT_LEAPS + CAMEL_LEAPS, "W": WAZIR_STEPS,
}
SLIDES = {"Q": ORTHOGONAL + DIAGONAL, "R": ORTHOGONAL, "B": DIAGONAL}

#: The canonical piece values; tables and moves share them.
PIECES = {(owner, kind): Piece(owner, kind) for owner in (0, 1) for kind in PIECE_NAMES}


def crosses(rank1: int, rank2: int, river: int) -> bool:
    """Does a move between these 1-based ranks cross the River lying after ``river``?"""
    return min(rank1, rank2) <= river < max(rank1, rank2)


def river_allows(kind: str, owner: int, rank1: int, rank2: int) -> bool:
    """The River filter of gnuqi.md §5 for a move or capture between 1-based ranks."""
    far = FAR_RIVER[owner]
    if not crosses(rank1, rank2, far):
        return True
    if kind in NO_CROSSING:
        return False
    if kind in BANK_BOUND:
        return rank1 not in (far, far + 1) and rank2 not in (far, far + 1)
    return True


# -- precomputed tables ------------------------------------------------------------


class _Tables:
    """Everything the move generator looks up, per board shape; each per-cell entry is
    built when first looked at (:class:`~controller.rules.core.LazyTable`), so a command
    pays for the cells its pieces use, not for the whole board's tables.

    Per colour:

    * ``leaps[kind][o]``: ``(t, quiet, capture)`` for every cell ``t`` a leaper on ``o``
      may reach, River tests applied, with the two ready-made moves;
    * ``slides[kind][o]``: rays of ``(t, quiet, capture)``; ``quiet``/``capture`` are
      ``None`` on cells a Bishop may pass over but not stop on; a ray ends after its
      last stop;
    * ``pawns[o]``: ``(push, captures)`` with ``push = (t, move)`` or ``None`` and
      ``captures`` a tuple of ``(t, move)``;
    * ``rev_leaps[t]``: ``(o, kinds)``: a leaper or Pawn of one of ``kinds`` on ``o``
      attacks ``t``;
    * ``rev_rays[t]``: rays outward from ``t`` of ``(o, kinds, line)``: a slider of one
      of ``kinds`` on ``o`` attacks ``t`` when the cells before it are empty; ``line`` is
      the set of cells from ``t`` (exclusive) to ``o`` (inclusive) — where a piece may
      block that attack.
    """

    def __init__(self, g: Geometry):
        self.geometry = g
        self.rank = tuple(g.coords(c)[1] + 1 for c in range(len(g.cells)))
        n = len(g.cells)

        def per_cell(build: Callable[..., Any], *args: Any) -> LazyTable:
            return LazyTable(n, lambda c: build(*args, c))

        self.leaps: list[dict[str, LazyTable]] = [
            {kind: per_cell(self._leaps_from, owner, kind) for kind in LEAPS} for owner in (0, 1)]
        self.slides: list[dict[str, LazyTable]] = [
            {kind: per_cell(self._slides_from, owner, kind) for kind in SLIDES}
            for owner in (0, 1)]
        self.pawns = [per_cell(self._pawn_from, owner) for owner in (0, 1)]
        self.rev_leaps = [per_cell(self._leapers_onto, owner) for owner in (0, 1)]
        self.rev_rays = [per_cell(self._rays_onto, owner) for owner in (0, 1)]
        self._castling_tables()

    def _leaps_from(self, owner: int, kind: str, o: int) -> tuple:
        g, rank = self.geometry, self.rank
        piece = PIECES[owner, kind]
        f, r = g.coords(o)
        entries = []
        for df, dr in LEAPS[kind]:
            t = g.at(f + df, r + dr)
            if t >= 0 and river_allows(kind, owner, rank[o], rank[t]):
                entries.append((t, Move("move", o, t, piece),
                                Move("move", o, t, piece, captures=(t,))))
        return tuple(entries)

    def _leapers_onto(self, owner: int, t: int) -> tuple[tuple[int, str], ...]:
        """``(o, kinds)`` in cell order: the leaper kinds (in :data:`LEAPS` order, then
        ``P``) of ``owner`` that attack ``t`` from ``o`` — the reverse of the leap and Pawn
        capture tables."""
        g, rank = self.geometry, self.rank
        f, r = g.coords(t)
        kinds: dict[int, str] = {}
        for kind, offsets in LEAPS.items():
            for df, dr in offsets:
                o = g.at(f - df, r - dr)
                if o >= 0 and river_allows(kind, owner, rank[o], rank[t]):
                    kinds[o] = kinds.get(o, "") + kind
        forward = 1 if owner == 0 else -1
        for df in (-1, 1):
            o = g.at(f - df, r - forward)
            if o >= 0:
                kinds[o] = kinds.get(o, "") + "P"
        return tuple(sorted(kinds.items()))

    def _pawn_from(self, owner: int, o: int) -> tuple:
        g = self.geometry
        forward = 1 if owner == 0 else -1
        f, r = g.coords(o)
        ahead = g.at(f, r + forward)
        push = (ahead, self._pawn_move(owner, o, ahead, False)) if ahead >= 0 else None
        caps = []
        for df in (-1, 1):
            t = g.at(f + df, r + forward)
            if t >= 0:
                caps.append((t, self._pawn_move(owner, o, t, True)))
        return (push, tuple(caps))

    def _pawn_move(self, owner: int, o: int, t: int, capture: bool) -> Move:
        """A Pawn step or capture; crossing the far River makes it a Wazir on arrival."""
        promoted = crosses(self.rank[o], self.rank[t], FAR_RIVER[owner])
        return Move("move", o, t, PIECES[owner, "W" if promoted else "P"],
                    captures=(t,) if capture else (), promotion="W" if promoted else "")

    def _slides_from(self, owner: int, kind: str, o: int) -> tuple:
        g, rank = self.geometry, self.rank
        piece = PIECES[owner, kind]
        rays = []
        for d in SLIDES[kind]:
            ray = []
            for t in g.rays[d][o]:
                if river_allows(kind, owner, rank[o], rank[t]):
                    ray.append((t, Move("move", o, t, piece),
                                Move("move", o, t, piece, captures=(t,))))
                else:
                    ray.append((t, None, None))
            while ray and ray[-1][1] is None:
                ray.pop()
            if ray:
                rays.append(tuple(ray))
        return tuple(rays)

    def _rays_onto(self, owner: int, t: int) -> tuple:
        g, rank = self.geometry, self.rank
        rays = []
        for d in ORTHOGONAL + DIAGONAL:
            cells = g.rays[d][t]
            back = OPPOSITE[d]  # the attacker slides from o back toward t
            ray = []
            for i, o in enumerate(cells):
                kinds = "".join(k for k, dirs in SLIDES.items()
                                if back in dirs and river_allows(k, owner, rank[o], rank[t]))
                ray.append((o, kinds, frozenset(cells[:i + 1])))
            while ray and not ray[-1][1]:
                ray.pop()
            if ray:
                rays.append(tuple(ray))
        return tuple(rays)

    def _castling_tables(self) -> None:
        g = self.geometry
        #: letter -> (owner, King from, Rook from, must be empty, must be safe, move)
        self.castlings: dict[str, tuple] = {}
        #: castling letters lost when a move starts or ends on each cell
        clears = [""] * len(g.cells)
        for c in CASTLINGS:
            k0, k1, r0, r1 = (g.cell(x) for x in (c.king_from, c.king_to, c.rook_from, c.rook_to))
            lo, hi = sorted((k0, r0))
            must_be_empty = tuple(range(lo + 1, hi))
            step = 1 if k1 > k0 else -1
            # The King's own cell is covered by "not in check".
            must_be_safe = tuple(range(k0 + step, k1 + step, step))
            move = Move("castle", k0, k1, PIECES[c.owner, "K"], also=((r0, r1),))
            self.castlings[c.letter] = (c.owner, k0, r0, must_be_empty, must_be_safe, move)
            clears[k0] += c.letter
            clears[r0] += c.letter
        self.clears = tuple(clears)


OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E", "NE": "SW", "SW": "NE", "NW": "SE", "SE": "NW"}


@cache
def _tables(shape: str) -> _Tables:
    return _Tables(load_shape(shape))


def _attacked(board: list, t: int, by: int, rev_leaps: tuple, rev_rays: tuple) -> bool:
    """Is cell ``t`` attacked by player ``by``?  ``rev_*`` are ``by``'s reverse tables."""
    for o, kinds in rev_leaps[t]:
        p = board[o]
        if p is not None and p[0] == by and p[1] in kinds:
            return True
    for ray in rev_rays[t]:
        for o, kinds, _line in ray:
            p = board[o]
            if p is not None:
                if p[0] == by and p[1] in kinds:
                    return True
                break
    return False


# -- the game ----------------------------------------------------------------------


class GnuQi(Game):
    """Gnu Qi on the 9×9 board with Rivers after ranks 3 and 6."""

    piece_names = PIECE_NAMES
    special_step = SpecialStep(
        "Take a Pawn across the far River: it becomes a Wazir. Make the move, then take the "
        "Pawn off and put a Wazir on its cell (the board asks for it).", promotion="W")

    name = "gnuqi"
    title = "Gnu Qi"
    shape = "square9"
    provisional = PROVISIONAL
    start_fen = START_FEN
    #: kinds that appear only by promotion (the board's box must offer a Wazir)
    promotion_kinds = ("W",)
    pads = ()

    def __init__(self, **options: object):
        super().__init__(**options)
        if self.geometry.rivers != (3, 6) or self.geometry.files != 9:
            raise RulesError(f"gnuqi needs a 9×9 board with Rivers after ranks 3 and 6, "
                                f"got {self.geometry!r}")
        self.tables = _tables(self.shape)

    # -- positions ---------------------------------------------------------------------
    def start(self) -> Position:
        return self.parse_position(self.start_fen)

    def parse_position(self, text: str) -> Position:
        """Read FEN for 9 files: board, side to move, castling (``KQkq``/``-``), ``-``,
        halfmove clock, fullmove number; the last four fields may be left out."""
        fields = text.split()
        if not 1 <= len(fields) <= 6:
            raise PositionError(f"expected 6 space-separated FEN fields, got {len(fields)} "
                                f"in {text!r}")
        fields += ["w", "-", "-", "0", "1"][len(fields) - 1:]
        board_text, turn_text, castling_text, ep_text, half_text, full_text = fields
        board = parse_grid_board(self.geometry, board_text, _parse_piece)
        if turn_text not in ("w", "b"):
            raise PositionError(f"side to move must be 'w' or 'b', got {turn_text!r}")
        if ep_text != "-":
            raise PositionError(f"Gnu Qi has no en passant (Pawns have no double step); "
                                f"the fourth field must be '-', got {ep_text!r}")
        try:
            halfmove, fullmove = int(half_text), int(full_text)
        except ValueError:
            raise PositionError(f"halfmove clock and move number must be integers, got "
                                f"{half_text!r} {full_text!r}") from None
        if halfmove < 0 or fullmove < 1:
            raise PositionError(f"halfmove clock must be >= 0 and move number >= 1, got "
                                f"{halfmove} {fullmove}")
        pos = Position(self, board, 0 if turn_text == "w" else 1)
        pos.halfmove, pos.fullmove = halfmove, fullmove
        rights = self._parse_castling(castling_text, board)
        if rights:
            pos.state["castling"] = rights
        self._validate(pos)
        pos.keys.append(self.position_key(pos))
        return pos

    def _parse_castling(self, text: str, board: list) -> str:
        if text == "-":
            return ""
        g = self.geometry
        if any(ch not in CASTLING_ORDER for ch in text) or len(set(text)) != len(text):
            raise PositionError(f"castling rights must be '-' or distinct letters of "
                                f"{CASTLING_ORDER!r}, got {text!r}")
        for c in CASTLINGS:
            if c.letter in text:
                colour = COLOUR_NAMES[c.owner]
                if board[g.cell(c.king_from)] != PIECES[c.owner, "K"]:
                    raise PositionError(f"castling right {c.letter!r} needs the {colour} King "
                                        f"on {c.king_from}")
                if board[g.cell(c.rook_from)] != PIECES[c.owner, "R"]:
                    raise PositionError(f"castling right {c.letter!r} needs a {colour} Rook "
                                        f"on {c.rook_from}")
        return "".join(ch for ch in CASTLING_ORDER if ch in text)

    def _validate(self, pos: Position) -> None:
        g = self.geometry
        for owner in (0, 1):
            kings = pos.board.count(PIECES[owner, "K"])
            if kings != 1:
                raise PositionError(f"{COLOUR_NAMES[owner]} must have exactly one King, "
                                    f"found {kings}")
        for c, p in enumerate(pos.board):
            if p is None:
                continue
            rank = g.coords(c)[1] + 1
            far = FAR_RIVER[p.owner]
            beyond = rank > far if p.owner == 0 else rank <= far
            if beyond and p.kind in "P" + NO_CROSSING:
                why = ("it would have become a Wazir on crossing" if p.kind == "P"
                       else "it can never cross")
                raise PositionError(f"{COLOUR_NAMES[p.owner]} {PIECE_NAMES[p.kind]} on "
                                    f"{g.cells[c]} stands beyond its far River ({why} it)")
        if self.in_check(pos, 1 - pos.turn):
            raise PositionError(f"{COLOUR_NAMES[1 - pos.turn]} is in check but it is "
                                f"{COLOUR_NAMES[pos.turn]}'s move")

    def position_text(self, pos: Position) -> str:
        board = grid_board_text(self.geometry, pos.board, self.piece_symbol)
        rights = pos.state.get("castling") or "-"
        return f"{board} {'wb'[pos.turn]} {rights} - {pos.halfmove} {pos.fullmove}"

    def position_key(self, pos: Position) -> tuple:
        """Board, side to move and castling rights (FIDE: same position, same options)."""
        return (tuple(pos.board), pos.turn, pos.state.get("castling", ""))

    def render_text(self, pos: Position) -> str:
        return render_grid(self, pos)

    def piece_name(self, piece: Piece) -> str:
        """The piece's English name ("Wazir"), for the board's prompts."""
        return PIECE_NAMES[piece.kind]

    # -- moves -------------------------------------------------------------------------
    def generate_moves(self, pos: Position) -> list[Move]:
        """All legal moves, from the tables, without making any of them.

        One pass over the board lists the pseudo-legal moves of every piece but the King;
        then the rays and leaps toward the King find checkers and pinned pieces, which
        filter that list; King moves and castling test each arrival cell for attacks with
        the King lifted off its cell (so it cannot hide behind itself)."""
        board = pos.board
        me = pos.turn
        them = 1 - me
        tables = self.tables
        leaps, slides, pawns = tables.leaps[me], tables.slides[me], tables.pawns[me]
        out: list[Move] = []
        append = out.append
        ksq = -1
        for o, p in enumerate(board):
            if p is None or p[0] != me:
                continue
            kind = p[1]
            if kind == "P":
                push, caps = pawns[o]
                if push is not None and board[push[0]] is None:
                    append(push[1])
                for t, cm in caps:
                    q = board[t]
                    if q is not None and q[0] != me:
                        append(cm)
            elif kind == "K":
                ksq = o
            elif kind in SLIDES:
                for ray in slides[kind][o]:
                    for t, qm, cm in ray:
                        q = board[t]
                        if q is None:
                            if qm is not None:
                                append(qm)
                        else:
                            if cm is not None and q[0] != me:
                                append(cm)
                            break
            else:
                for t, qm, cm in leaps[kind][o]:
                    q = board[t]
                    if q is None:
                        append(qm)
                    elif q[0] != me:
                        append(cm)
        if ksq < 0:
            raise PositionError(f"{COLOUR_NAMES[me]} has no King")

        # Checks and pins: leapers can only check; sliders check or pin along a ray.
        rev_leaps, rev_rays = tables.rev_leaps[them], tables.rev_rays[them]
        checks = 0
        mask: Iterable[int] = ()
        for o, kinds in rev_leaps[ksq]:
            q = board[o]
            if q is not None and q[0] == them and q[1] in kinds:
                checks += 1
                mask = (o,)
        pins: dict[int, frozenset] | None = None
        for ray in rev_rays[ksq]:
            blocker = -1
            for o, kinds, line in ray:
                q = board[o]
                if q is None:
                    continue
                if q[0] == me:
                    if blocker >= 0:
                        break
                    blocker = o
                    continue
                if q[1] in kinds:
                    if blocker < 0:
                        checks += 1
                        mask = line
                    else:
                        if pins is None:
                            pins = {}
                        pins[blocker] = line
                break
        if checks:
            out = [m for m in out if m[2] in mask] if checks == 1 else []
            append = out.append
        if pins:
            out = [m for m in out if m[1] not in pins or m[2] in pins[m[1]]]
            append = out.append

        king = board[ksq]
        board[ksq] = None  # the King must not shelter behind its own old cell
        try:
            for t, qm, cm in leaps["K"][ksq]:
                q = board[t]
                if q is None:
                    if not _attacked(board, t, them, rev_leaps, rev_rays):
                        append(qm)
                elif q[0] != me and not _attacked(board, t, them, rev_leaps, rev_rays):
                    append(cm)
            rights = pos.state.get("castling")
            if rights and not checks:
                castlings = tables.castlings
                rook = PIECES[me, "R"]
                for letter in rights:
                    owner, k0, r0, empty, safe, move = castlings[letter]
                    if (owner == me and k0 == ksq and board[r0] == rook
                            and all(board[c] is None for c in empty)
                            and not any(_attacked(board, c, them, rev_leaps, rev_rays)
                                        for c in safe)):
                        append(move)
        finally:
            board[ksq] = king
        return out

    def make(self, pos: Position, move: Move) -> None:
        board = pos.board
        origin, target = move[1], move[2]
        mover = board[origin]
        pos.put(origin, None)
        pos.put(target, move[3])
        for a, b in move[6]:
            piece = board[a]
            pos.put(a, None)
            pos.put(b, piece)
        rights = pos.state.get("castling")
        if rights:
            clears = self.tables.clears
            gone = clears[origin] + clears[target]
            if gone:
                kept = "".join(ch for ch in rights if ch not in gone)
                if kept != rights:
                    pos.set_state("castling", kept or None)
        if move[5] or mover is None or mover[1] == "P":
            pos.halfmove = 0
        else:
            pos.halfmove += 1
        if pos.turn == 1:
            pos.fullmove += 1
        pos.turn = 1 - pos.turn

    def in_check(self, pos: Position, player: int | None = None) -> bool:
        player = pos.turn if player is None else player
        try:
            ksq = pos.board.index(PIECES[player, "K"])
        except ValueError:
            return False
        t = self.tables
        return _attacked(pos.board, ksq, 1 - player, t.rev_leaps[1 - player],
                         t.rev_rays[1 - player])

    def attacked(self, pos: Position, cell: int, by: int) -> bool:
        """Does player ``by`` attack ``cell`` (River tests applied)?"""
        t = self.tables
        return _attacked(pos.board, cell, by, t.rev_leaps[by], t.rev_rays[by])

    endings = {BARE_KINGS: Termination.VARIANT_DRAW}

    def special_outcome(self, pos: Position) -> Outcome | None:
        """Bare Kings draw (after mate and stalemate: a mating 50th move stands)."""
        if all(p is None or p.kind == "K" for p in pos.board):
            return self.ended((), BARE_KINGS)
        return None

    # -- notation ----------------------------------------------------------------------
    def long_move_text(self, pos: Position, move: Move) -> str:
        """Origin and target cells, e.g. ``e6e7``; unique since the Wazir change is forced."""
        cells = self.geometry.cells
        return cells[move.origin] + cells[move.target]

    def move_text(self, pos: Position, move: Move) -> str:
        """SAN-like: ``Ce4``, ``Bxd5``, ``e7=W``, ``exd7=W``, ``O-O``, with ``+``/``#``."""
        text = self._san(pos, move, None)
        pos.push(move, record=False)
        try:
            if self.in_check(pos):
                text += "#" if not self.has_legal_move(pos) else "+"
        finally:
            pos.pop()
        return text

    def _san(self, pos: Position, move: Move, legal: list[Move] | None) -> str:
        """The move text without the check suffix."""
        cells = self.geometry.cells
        if move.kind == "castle":
            return "O-O" if move.target > move.origin else "O-O-O"
        mover = pos.board[move.origin]
        if mover is None:
            raise IllegalMoveError(f"no piece on {cells[move.origin]}")
        target = cells[move.target]
        if mover.kind == "P":
            text = (cells[move.origin][0] + "x" + target) if move.captures else target
            return text + ("=" + move.promotion if move.promotion else "")
        if legal is None:
            legal = self.generate_moves(pos)
        rivals = [m.origin for m in legal
                  if m.target == move.target and m.origin != move.origin and m.kind == "move"
                  and pos.board[m.origin] == mover]
        prefix = ""
        if rivals:
            here = cells[move.origin]
            if all(cells[o][0] != here[0] for o in rivals):
                prefix = here[0]
            elif all(cells[o][1:] != here[1:] for o in rivals):
                prefix = here[1:]
            else:
                prefix = here
        return mover.kind + prefix + ("x" if move.captures else "") + target

    def parse_move(self, pos: Position, text: str) -> Move:
        """A legal move from SAN (check marks optional; ``0-0`` too), ``e6e7`` or ``e6e7w``."""
        wanted = text.strip().rstrip("+#!?")
        if wanted in ("0-0", "0-0-0"):
            wanted = wanted.replace("0", "O")
        legal = self.legal_moves(pos)
        cells = self.geometry.cells
        for move in legal:
            long = cells[move.origin] + cells[move.target]
            if wanted in (long, long + move.promotion.lower()):
                return move
        for move in legal:
            if self._san(pos, move, legal) == wanted:
                return move
        found = move_from_cells(self, pos, legal, text)
        if found is not None:
            return found
        raise IllegalMoveError(f"illegal move {text!r} in {self.position_text(pos)}")


def _parse_piece(text: str, i: int) -> tuple[Piece, int]:
    ch = text[i]
    kind = ch.upper()
    if kind not in PIECE_NAMES:
        raise PositionError(f"unknown piece letter {ch!r} (Gnu Qi uses "
                            f"{''.join(PIECE_NAMES)}, lower case for Black)")
    return PIECES[0 if ch.isupper() else 1, kind], i + 1
