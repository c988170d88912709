"""KaleidoChess (Cai Qi) per ``rules/kaleidochess.md`` and ``rules/DECISIONS.md``.

Round board of 89 fields (``kaleido89``: centre ``00`` and five rings; fields ``1A``…``8K``).
Every piece moves along a path of exactly its number of steps (§4): no field twice (the
start counts as visited), at most one ring line crossed and only once (except the
wizard), walkers step across sides only and are blocked by any piece on a passed field,
flyers may also step across corners and fly over pieces.  Any piece may be captured,
one's own included.  A player who holds no castle has lost (3–4 players: is out, his
pieces are removed); a player who cannot move loses (3–4 players: is out).

Pieces (``Piece.kind``): ``W`` wizard, ``D`` dragon, ``R`` roc, ``E`` eagle, ``V`` raven
(flyers); ``L`` elephant, ``T`` tiger, ``H`` horse, ``P`` pawn (walkers).

The board model, the set-ups and the dice table are provisional data (module tables
below), so that a correction from the author's lost pictures is a data edit.

Speed: for every field and piece type the simple paths of the exact length that obey the
ring rule are enumerated once, when a piece of that type first looks from that field.  A
flyer's destinations are a fixed tuple per field; a walker's are listed with the minimal
sets (bit masks) of fields its paths pass through, so move generation is table lookups
plus one ``&`` per candidate path.

Long module: the round board's path moves, its castle rules for 2–4 players and its dice
variant are one game's rules; split they would need each other's private tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from controller.geometry import load_shape
from controller.i18n.text import Text
from controller.rules.core import (
    Game,
    GameOption,
    LazyTable,
    Move,
    Outcome,
    PadNeed,
    Piece,
    Position,
    PositionError,
    RulesError,
    SpecialStep,
    Termination,
)

SHAPE = "kaleido89"


class PieceType(NamedTuple):
    name: str
    steps: int  #: exact number of steps per move
    flies: bool  #: may step across corners and over pieces
    ring_free: bool  #: exempt from the one-ring-line rule (the wizard)


#: §2: the nine piece types, by letter.
PIECE_TYPES: dict[str, PieceType] = {
    "W": PieceType("wizard", 3, True, True),
    "D": PieceType("dragon", 4, True, False),
    "R": PieceType("roc", 3, True, False),
    "E": PieceType("eagle", 2, True, False),
    "V": PieceType("raven", 1, True, False),
    "L": PieceType("elephant", 4, False, False),
    "T": PieceType("tiger", 3, False, False),
    "H": PieceType("horse", 2, False, False),
    "P": PieceType("pawn", 1, False, False),
}
KINDS = "".join(PIECE_TYPES)

#: Player names by player count, in turn order (clockwise by home castle, White first).
PLAYER_NAMES: dict[int, tuple[str, ...]] = {
    2: ("White", "Black"),
    3: ("White", "Red", "Black"),
    4: ("White", "Red", "Black", "Green"),
}

#: [P] kaleidochess.md §3.1 — White's 18-piece army; Black's is turned by 4 slices.
TWO_PLAYER_ARMY: dict[str, tuple[str, ...]] = {
    "W": ("1J",),
    "D": ("1G",),
    "R": ("1I", "1K"),
    "E": ("8K", "2I"),
    "V": ("8J", "2J"),
    "L": ("8I", "2K"),
    "T": ("8F", "2H"),
    "H": ("8G", "2G"),
    "P": ("8H", "1F", "1H", "2F"),
}

#: House set-up for 3 and 4 players (DECISIONS.md) — White's 10-piece army.
HOUSE_ARMY: dict[str, tuple[str, ...]] = {
    "W": ("1J",),
    "D": ("1G",),
    "R": ("1I", "1K"),
    "E": ("2I", "8K"),
    "P": ("1F", "1H", "2F", "8H"),
}

#: Per player count: White's army and by how many slices each player's army is turned
#: (player order = turn order; the home castles are 1J, 3J, 5J, 7J).
SETUPS: dict[int, tuple[dict[str, tuple[str, ...]], tuple[int, ...]]] = {
    2: (TWO_PLAYER_ARMY, (0, 4)),
    3: (HOUSE_ARMY, (0, 2, 4)),
    4: (HOUSE_ARMY, (0, 2, 4, 6)),
}

#: [P] kaleidochess.md §6.1 — die face -> piece kinds that may move.
DICE_TABLE: dict[int, str] = {
    1: "PV",
    2: "HE",
    3: "TR",
    4: "LD",
    5: "W",
    6: KINDS,
}

PROVISIONAL_BOARD = "provisional board model (rings 8/16/16/24/24)"
PROVISIONAL_SETUP = "provisional 2-player set-up"
PROVISIONAL_HOUSE = "house set-ups for 3/4 players"
PROVISIONAL_DICE = "provisional dice table"
#: KaleidoChess's own endings, in its words (as recorded games keep them)
CAPITULATION = "capitulation"  #: a player gave up his last castle
NO_CASTLE = "no castle left"  #: a player's last castle was taken
LAST_PLAYER = "last player left"  #: with 3–4 players
BLOCKED = "blocked"  #: the side to move cannot move and loses
MOVE_CAP = "move cap"  #: the optional turn limit


# --- geometry tables, built once ------------------------------------------------------

G = load_shape(SHAPE)
N_CELLS = len(G.cells)
RING: tuple[int, ...] = G.attributes["ring"]
CASTLES: tuple[int, ...] = tuple(sorted(G.tags["castle"]))
CASTLE_SET = frozenset(CASTLES)
CASTLE_BITS = sum(1 << c for c in CASTLES)
BITS = tuple(1 << c for c in range(N_CELLS))
#: the state key of each player's take-back ban (§4.5)
BAN_KEYS = tuple(f"ban{p}" for p in range(4))
ALL_CELLS = (1 << N_CELLS) - 1
SLICES = 8


def enumerate_paths(
    start: int, steps: int, flies: bool, ring_free: bool,
) -> Iterable[tuple[int, ...]]:
    """Every path of exactly ``steps`` steps from ``start`` allowed by §4.2 rules 1–5.

    Blocking is not applied here (it depends on the position); paths are simple with
    the start counted as visited, and a non-wizard changes ring at most once.
    """
    side, corner = G.side, G.corner

    def extend(path: tuple[int, ...], changes: int) -> Iterable[tuple[int, ...]]:
        cur = path[-1]
        for nxt in side[cur] + (corner[cur] if flies else ()):
            if nxt in path:
                continue
            c = changes + (RING[nxt] != RING[cur])
            if not ring_free and c > 1:
                continue
            if len(path) == steps:
                yield path + (nxt,)
            else:
                yield from extend(path + (nxt,), c)

    return extend((start,), 0)


def _minimal_masks(masks: set[int]) -> tuple[int, ...]:
    """Drop every mask that contains another: a superset path is never the only way."""
    kept: list[int] = []
    for m in sorted(masks, key=lambda x: (x.bit_count(), x)):
        if not any(k & m == k for k in kept):
            kept.append(m)
    return tuple(kept)


def _passed(kind: str, start: int) -> dict[int, set[int]]:
    """Per destination from ``start``: every set (bit mask) of fields its paths pass."""
    pt = PIECE_TYPES[kind]
    passed: dict[int, set[int]] = {}
    for path in enumerate_paths(start, pt.steps, pt.flies, pt.ring_free):
        mask = 0
        for c in path[1:-1]:
            mask |= 1 << c
        passed.setdefault(path[-1], set()).add(mask)
    return passed


def _flyer_destinations(kind: str, start: int) -> tuple[int, ...]:
    return tuple(sorted(_PASSED[kind][start]))


def _walker_paths(kind: str, start: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    passed = _PASSED[kind][start]
    return tuple((t, _minimal_masks(passed[t])) for t in sorted(passed))


def _slide_paths(kind: str, start: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    passed = _PASSED[kind][start]
    if PIECE_TYPES[kind].flies:
        # a flyer is never blocked: the fields it may pass on the way to each
        return tuple((t, (_or(passed[t]),)) for t in sorted(passed))
    return tuple((t, tuple(sorted(passed[t]))) for t in sorted(passed))


def _or(masks: Iterable[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


def _per_cell(build: Callable[[str, int], Any], kind: str) -> LazyTable:
    return LazyTable(N_CELLS, lambda start: build(kind, start))


# The path tables, per kind and field, each built when a piece of that kind first looks
# from that field (a whole board's worth costs a command more than its moves):
#: the destinations and the sets of fields passed on the way to each (shared by the rest)
_PASSED = {kind: _per_cell(_passed, kind) for kind in PIECE_TYPES}
#: flyers' destinations; walkers' destinations with the minimal sets of fields passed;
#: and per destination every set of fields passed (for slides)
FLYER_DESTINATIONS = {kind: _per_cell(_flyer_destinations, kind)
                      for kind, pt in PIECE_TYPES.items() if pt.flies}
WALKER_PATHS = {kind: _per_cell(_walker_paths, kind)
                for kind, pt in PIECE_TYPES.items() if not pt.flies}
SLIDE_PATHS = {kind: _per_cell(_slide_paths, kind) for kind in PIECE_TYPES}


def _attacks(kind: str, origin: int) -> dict[int, tuple[int, ...]]:
    if kind in FLYER_DESTINATIONS:
        return {t: (0,) for t in FLYER_DESTINATIONS[kind][origin]}
    return dict(WALKER_PATHS[kind][origin])


#: per kind and field: every field it reaches on some board, with the minimal sets of
#: fields its paths pass (a flyer's: ``(0,)``, never blocked) — the attack test's table
_ATTACKS = {kind: _per_cell(_attacks, kind) for kind in PIECE_TYPES}


def turned(field: str, slices: int) -> str:
    """The field ``slices`` slices further clockwise (same letter); ``00`` stays."""
    if field == G.cells[0]:
        return field
    s = (int(field[:-1]) - 1 + slices) % SLICES + 1
    return f"{s}{field[-1]}"


def destinations(board: list[Piece | None], origin: int) -> list[int]:
    """Fields the piece on ``origin`` may move to on ``board`` (no take-back rule)."""
    piece = board[origin]
    if piece is None:
        return []
    return _destinations(piece.kind, origin, _occupancy(board))


def _occupancy(board: list[Piece | None]) -> int:
    occ = 0
    for c, p in enumerate(board):
        if p is not None:
            occ |= 1 << c
    return occ


def _destinations(kind: str, origin: int, occ: int) -> list[int]:
    table = FLYER_DESTINATIONS.get(kind)
    if table is not None:
        return list(table[origin])
    out = []
    for target, masks in WALKER_PATHS[kind][origin]:
        for m in masks:
            if not m & occ:
                out.append(target)
                break
    return out


_Reach = tuple[tuple[int, int, tuple[int, ...] | None, Move, Move], ...]
#: per (origin, piece): (target, target bit, the minimal sets of fields passed or None when
#: a path is never blocked, the quiet move, the capture) for every destination on an empty
#: board, and whether no castle is reached or left from there; built on demand and kept
#: (a Move is an immutable value: one object serves every position)
_REACH: dict[tuple[int, Piece], tuple[_Reach, bool]] = {}


def _away_from_castles(kind: str, origin: int) -> bool:
    return origin not in CASTLE_SET and not any(
        t in CASTLE_SET for t, _ in SLIDE_PATHS[kind][origin])


#: per kind and field: whether it is no castle and no castle can be reached from it on
#: any board
_AWAY_FROM_CASTLES = {kind: _per_cell(_away_from_castles, kind) for kind in PIECE_TYPES}

#: per (field, flying kind): its destinations (never blocked) and their bits
_FLIGHTS: dict[tuple[int, str], tuple[tuple[int, ...], int]] = {}


def _reach_of(origin: int, piece: Piece) -> tuple[_Reach, bool]:
    flyer = FLYER_DESTINATIONS.get(piece.kind)
    if flyer is not None:
        _FLIGHTS[(origin, piece.kind)] = (flyer[origin], sum(1 << t for t in flyer[origin]))
    paths = (tuple((t, None) for t in flyer[origin]) if flyer is not None
             else WALKER_PATHS[piece.kind][origin])
    reach = tuple(
        (t, 1 << t, None if masks is None or 0 in masks else masks,  # a path never blocked
         Move("move", origin, t, piece, None, ()), Move("move", origin, t, piece, None, (t,)))
        for t, masks in paths)
    kept = _REACH[(origin, piece)] = (reach, _AWAY_FROM_CASTLES[piece.kind][origin])
    return kept


# --- the game ---------------------------------------------------------------------------


class KaleidoChess(Game):
    """KaleidoChess for 2, 3 or 4 players, optionally with the dice variant."""

    piece_names = {"W": "Wizard", "D": "Dragon", "R": "Roc", "E": "Eagle", "V": "Raven",
                   "L": "Elephant", "T": "Tiger", "H": "Horse", "P": "Pawn"}
    special_step = SpecialStep(
        "Capture one of your own pieces: in KaleidoChess any piece may be knocked out, "
        "yours too. Take it off and put your moving piece on its field.", own_capture=True)

    name = "kaleidochess"
    title = "KaleidoChess"
    shape = SHAPE
    provisional = f"{PROVISIONAL_BOARD}; {PROVISIONAL_SETUP}"
    #: the board lights every piece in its owner's colour, also with two players: on a
    #: round board whose armies meet from every side the colours keep the sides apart
    owner_colours = True
    pads = (PadNeed("die"),)
    option_specs = (
        GameOption("players", int, 2, "number of players", choices=(2, 3, 4)),
        GameOption("dice", bool, False, "dice variant: a die roll decides which pieces move"),
        GameOption("repetition_ban", bool, False, "a move may not repeat a position"),
        GameOption("move_cap", int, None, "the game is drawn after this many turns "
                   "(off = no cap)", low=1, high=100_000, nullable=True),
    )

    def __init__(
        self,
        players: int = 2,
        dice: bool = False,
        repetition_ban: bool = False,
        move_cap: int | None = None,
        **options: Any,
    ):
        super().__init__(**options)
        if isinstance(players, bool) or players not in PLAYER_NAMES:
            raise RulesError(f"kaleidochess: players must be 2, 3 or 4, got {players!r}")
        for key, value in (("dice", dice), ("repetition_ban", repetition_ban)):
            if not isinstance(value, bool):
                raise RulesError(f"kaleidochess: {key} must be true or false, got {value!r}")
        if move_cap is False:  # ``--set move_cap=off``
            move_cap = None
        if move_cap is not None and (
            isinstance(move_cap, bool) or not isinstance(move_cap, int) or move_cap < 1
        ):
            raise RulesError(f"kaleidochess: move_cap must be a positive number of turns "
                             f"or off, got {move_cap!r}")
        self.player_names = PLAYER_NAMES[players]
        self.colours = tuple(n[0].lower() for n in self.player_names)
        self.dice = dice
        self.repetition_ban = repetition_ban
        self.move_cap = move_cap
        self.options = {"players": players, "dice": dice, "repetition_ban": repetition_ban,
                        "move_cap": move_cap}
        labels = [PROVISIONAL_BOARD, PROVISIONAL_HOUSE if players > 2 else PROVISIONAL_SETUP]
        if dice:
            labels.append(PROVISIONAL_DICE)
        self.provisional = "; ".join(labels)
        self._rolls = tuple(Move("roll", token=f"die:{n}") for n in sorted(DICE_TABLE))

    # -- set-up ------------------------------------------------------------------------
    def start(self) -> Position:
        army, turns = SETUPS[self.players]
        board: list[Piece | None] = [None] * N_CELLS
        for player, by in enumerate(turns):
            for kind, fields in army.items():
                for f in fields:
                    cell = G.cell(turned(f, by))
                    if board[cell] is not None:
                        raise RulesError(f"set-up puts two pieces on {G.cells[cell]}")
                    board[cell] = Piece(player, kind)
        pos = Position(self, board, 0)
        pos.keys.append(self.position_key(pos))
        return pos

    # -- queries -----------------------------------------------------------------------
    def out_players(self, pos: Position) -> tuple[int, ...]:
        """Players eliminated so far (3–4 players only)."""
        return pos.state.get("out", ())

    def active_players(self, pos: Position) -> list[int]:
        out = pos.state.get("out", ())
        return [p for p in range(self.players) if p not in out]

    @staticmethod
    def castle_holders(board: list[Piece | None]) -> set[int]:
        """Players with at least one piece standing in a castle."""
        return {p.owner for c in CASTLES if (p := board[c]) is not None}

    def cell_attacked(self, pos: Position, cell: int, player: int) -> bool | None:
        """Whether a piece of ``player`` could move to ``cell`` (and so take what stands
        there), whoever is to move; the take-back ban and the die are not asked.  With 3–4
        players only (the engine scores the danger to a player's last castles with it);
        with two the game does not say (None): there a single capture of the last castle
        piece ends the game, and the engine's quiescence would skip it as a dear piece
        taking a defended one.  (With 3–4 players such a capture also removes the loser's
        other pieces — it is never one capture of a defended piece.)"""
        if self.players < 3:
            return None
        board = pos.board
        occ = -1
        for origin, piece in enumerate(board):
            if piece is None or piece.owner != player or origin == cell:
                continue
            masks = _ATTACKS[piece.kind][origin].get(cell)
            if masks is None:
                continue
            if occ < 0:
                occ = _occupancy(board)
            for m in masks:
                if not m & occ:
                    return True
        return False

    def allowed_kinds(self, pos: Position) -> str:
        """Piece kinds the player to move may move (the die's row once rolled)."""
        roll = pos.state.get("roll")
        return DICE_TABLE[roll] if self.dice and roll is not None else KINDS

    def destinations(self, pos: Position, origin: int) -> list[int]:
        """Where the piece on ``origin`` may go, whoever is to move (no take-back rule)."""
        return destinations(pos.board, origin)

    # -- moves -------------------------------------------------------------------------
    def generate_moves(self, pos: Position) -> list[Move]:
        mover = pos.turn
        if self.dice:
            roll = pos.state.get("roll")
            if roll is None:
                return list(self._rolls)
            moves = self._piece_moves(pos, mover, DICE_TABLE[roll])
        else:
            moves = self._piece_moves(pos, mover, KINDS)
        if self.repetition_ban and moves:
            moves = self._without_repeats(pos, moves)
        if moves:
            return moves
        if self.dice:  # §6.1: no move for the roll — he passes and does not lose
            return [Move("pass")]
        if self.players == 2:  # blocked: he loses (see outcome)
            return []
        own = tuple(c for c, p in enumerate(pos.board) if p is not None and p.owner == mover)
        return [Move("pass", captures=own)]  # blocked: he is out, his pieces leave

    def _piece_moves(self, pos: Position, mover: int, kinds: str) -> list[Move]:
        board = pos.board
        multi = self.players > 2
        cells_of: list[list[int]] = []  # every player's cells, once somebody goes out
        occupied = [c for c, p in enumerate(board) if p is not None]
        occ = sum(map(BITS.__getitem__, occupied))  # the bits are disjoint: the sum is the union
        mine = [(c, p) for c in occupied if (p := board[c]).owner == mover and p.kind in kinds]
        ban = pos.state.get(BAN_KEYS[mover])
        if multi:
            held = [0] * self.players  # castles held per player
            for c in CASTLES:
                if (p := board[c]) is not None:
                    held[p.owner] += 1
        moves: list[Move] = []
        add = moves.append
        make_move = Move._make  # every field given: skips the keyword defaults
        new_tuple = tuple.__new__  # what Move._make does, without its length check
        for origin, piece in mine:
            reach, away = _REACH.get((origin, piece)) or _reach_of(origin, piece)
            banned = ban[1] if ban is not None and ban[0] == origin else -1  # §4.5
            if banned < 0 and (away or not multi):
                # no take-back ban, no castle left or entered: the plain moves
                for _target, bit, masks, quiet, capture in reach:
                    if masks is not None:
                        for m in masks:
                            if not m & occ:
                                break
                        else:
                            continue
                    add(capture if occ & bit else quiet)
                continue
            from_castle = origin in CASTLE_SET
            if multi and from_castle and held[mover] == 1 and banned < 0:
                # on his last castle: every move off the castles is a capitulation, the
                # moving piece and all his others leave the board
                rest = tuple(c for c in occupied if board[c].owner == mover and c != origin)
                own_bits = sum(map(BITS.__getitem__, rest))
                flight = _FLIGHTS.get((origin, piece.kind))
                if flight is not None and not flight[1] & CASTLE_BITS:
                    targets = flight[0]
                    # a flyer reaches every destination and none is a castle
                    moves += [new_tuple(Move, ("move", origin, t, None, None, (t,) + (
                        rest if not BITS[t] & own_bits else tuple(c for c in rest if c != t)),
                        (), "", "")) for t in targets]
                    continue
                for target, bit, masks, quiet, capture in reach:
                    if masks is not None:
                        for m in masks:
                            if not m & occ:
                                break
                        else:
                            continue
                    if not bit & CASTLE_BITS:
                        caps = (target,) + (rest if not bit & own_bits
                                            else tuple(c for c in rest if c != target))
                        add(new_tuple(Move, ("move", origin, target, None, None, caps, (), "",
                                             "")))
                    elif (victim := board[target]) is not None and held[victim.owner] == 1:
                        if not cells_of:  # castle to castle: the victim's owner goes out
                            cells_of = self._cells_of(board)
                        add(self._castle_move(board, mover, origin, target, held, cells_of))
                    else:
                        add(capture if occ & bit else quiet)
                continue
            castles = (ALL_CELLS if from_castle else CASTLE_BITS) if multi else 0
            rest = None  # the mover's other pieces, when he gives up his last castle
            for target, bit, masks, quiet, capture in reach:
                if masks is not None:
                    for m in masks:
                        if not m & occ:
                            break
                    else:
                        continue
                if target == banned:
                    continue  # §4.5: no immediate take-back
                if bit & castles:  # 3–4 players: a castle left or entered
                    victim = board[target]
                    if target not in CASTLE_SET:  # the mover gives up a castle
                        drops = held[mover] == 1
                    elif victim is None:  # the mover gains a castle
                        drops = False
                    elif victim.owner != mover:  # the victim loses one
                        drops = held[victim.owner] == 1
                    else:  # his own piece taken off a castle: his count falls if he left one
                        drops = from_castle and held[mover] == 1
                    if not drops:
                        pass
                    elif target in CASTLE_SET:  # the victim's owner goes out
                        if not cells_of:
                            cells_of = self._cells_of(board)
                        add(self._castle_move(board, mover, origin, target, held, cells_of))
                        continue
                    else:  # capitulation: the mover's piece and all his others leave
                        if rest is None:
                            rest = tuple(c for c, p in enumerate(board)
                                         if p is not None and p.owner == mover and c != origin)
                        caps = (target,) + (rest if victim is None or victim.owner != mover
                                            else tuple(c for c in rest if c != target))
                        add(make_move(("move", origin, target, None, None, caps, (), "", "")))
                        continue
                add(capture if occ & bit else quiet)
        return moves

    def _cells_of(self, board: list[Piece | None]) -> list[list[int]]:
        """Every player's cells, in cell order."""
        cells_of: list[list[int]] = [[] for _ in range(self.players)]
        for c, p in enumerate(board):
            if p is not None:
                cells_of[p.owner].append(c)
        return cells_of

    @staticmethod
    def _castle_move(
        board: list[Piece | None], mover: int, origin: int, target: int,
        held: list[int], cells_of: list[list[int]],
    ) -> Move:
        """A move touching a castle with 3–4 players: list the pieces of who drops out.

        ``held`` counts the castles of every player before the move; only active players
        have pieces, so a player whose count drops to 0 is the one who goes out.
        """
        after = list(held)
        if origin in CASTLE_SET:
            after[mover] -= 1
        victim = board[target]
        if target in CASTLE_SET:
            if victim is not None:
                after[victim.owner] -= 1
            after[mover] += 1
        out = [p for p, n in enumerate(after) if n == 0 and held[p]]
        piece: Piece | None = board[origin]
        caps = [target] if victim is not None or mover in out else []
        for p in out:
            caps.extend(c for c in cells_of[p] if c != origin and c != target)
        if mover in out:
            piece = None  # capitulation: the mover's piece leaves the board with the rest
        return Move("move", origin, target, piece, None, tuple(caps))

    def _without_repeats(self, pos: Position, moves: list[Move]) -> list[Move]:
        """Option: drop moves that recreate an earlier position with the same player to move."""
        seen = set(pos.keys)
        keep = []
        for m in moves:
            pos.push(m, record=False)
            key = self.position_key(pos)
            pos.pop()
            if key not in seen:
                keep.append(m)
        return keep

    def make(self, pos: Position, move: Move) -> None:
        mover = pos.turn
        if move.kind == "roll":
            pos.set_state("roll", _die_face(move.token))
            return
        if move.kind not in ("move", "pass"):
            raise RulesError(f"kaleidochess has no {move.kind!r} moves")
        for c in move.captures:
            pos.put(c, None)
        if move.kind == "move":
            pos.put(move.origin, None)
            pos.put(move.target, move.piece)
        state = pos.state
        out = state.get("out", ())
        if self.players > 2:
            holders = self.castle_holders(pos.board)
            newly = [p for p in range(self.players) if p not in out and p not in holders]
            if newly:
                out = tuple(sorted((*out, *newly)))
                pos.set_state("out", out)
        # take-back bans: the mover's ends with this turn; a banned piece captured frees it
        new_ban = (move.target, move.origin) if move.kind == "move" and move.piece else None
        if state.get(f"ban{mover}") != new_ban:
            pos.set_state(f"ban{mover}", new_ban)
        if move.captures:
            gone = set(move.captures)
            for p in range(self.players):
                ban = state.get(f"ban{p}")
                if p != mover and ban is not None and (ban[0] in gone or p in out):
                    pos.set_state(f"ban{p}", None)
        if "roll" in state:
            pos.set_state("roll", None)
        nxt = mover
        for k in range(1, self.players + 1):
            nxt = (mover + k) % self.players
            if nxt not in out:
                break
        pos.halfmove += 1
        if nxt <= mover:
            pos.fullmove += 1
        pos.turn = nxt

    # -- game end ----------------------------------------------------------------------
    move_rule = None  # the optional move cap instead
    endings = {CAPITULATION: Termination.VARIANT_LOSS, NO_CASTLE: Termination.VARIANT_LOSS,
               LAST_PLAYER: Termination.VARIANT_WIN, BLOCKED: Termination.VARIANT_LOSS,
               MOVE_CAP: Termination.VARIANT_DRAW}
    repetition_count = None  # the optional repetition ban instead

    def outcome(self, pos: Position) -> Outcome | None:
        """KaleidoChess ends only in its own ways (castles, players out, the move cap, a
        blocked side), in this order; no checkmate, no move rule, no repetition draw."""
        ended = self.rule_outcome(pos)
        if ended is not None:
            return ended
        if self.players == 2 and not self.dice and not self.generate_moves(pos):
            return self.ended((1 - pos.turn,), BLOCKED)
        return None

    def rule_outcome(self, pos: Position) -> Outcome | None:
        """The castles, the players left and the move cap (a blocked side is the one
        ending that waits for the moves to run out)."""
        if self.players == 2:
            holders = self.castle_holders(pos.board)
            if len(holders) < 2:
                loser = 0 if 0 not in holders else 1
                winner = 1 - loser
                # the loser moved last (capitulation) if the winner is now to move
                return self.ended((winner,), CAPITULATION if pos.turn == winner
                                  else NO_CASTLE)
        else:
            active = self.active_players(pos)
            if len(active) == 1:
                return self.ended((active[0],), LAST_PLAYER)
        if self.move_cap is not None and pos.halfmove >= self.move_cap:
            return self.ended((), MOVE_CAP)
        return None

    def position_key(self, pos: Position) -> Any:
        """Whole board, player to move and die state (the take-back bans do not count)."""
        return (tuple(pos.board), pos.turn, pos.state.get("roll"))

    # -- on the board ------------------------------------------------------------------
    def slide_passes(self, board: list[Piece | None] | tuple[Piece | None, ...], origin: int,
                     target: int, targets: Iterable[int]) -> bool:
        """Whether a piece slid from ``origin`` may only be passing over ``target`` on
        its way to another of its legal ``targets``: the fields of a path are no straight
        line, so the board asks the rules (the settle gate then waits before a move to
        ``target`` counts).  Walkers pass only over empty fields."""
        piece = board[origin]
        if piece is None or board[target] is not None:
            return False
        bit = 1 << target
        occupied = 0
        flies = PIECE_TYPES[piece.kind].flies
        if not flies:
            for c, p in enumerate(board):
                if p is not None:
                    occupied |= 1 << c
        others = set(targets) - {target}
        for dest, masks in SLIDE_PATHS[piece.kind][origin]:
            if dest in others and any(m & bit and (flies or not m & occupied)
                                      for m in masks):
                return True
        return False

    def removal_message(self, pos: Position, moves: Iterable[Move]) -> str:
        """What the board says while pieces are marked to take off for one of ``moves``
        (the moves that take them all): with 3–4 players, who is knocked out — or gives
        up his last castle — and must leave the board.  Empty when it is not that."""
        before = set(self.out_players(pos))
        gone: set[frozenset[int]] = set()
        for m in moves:
            pos.push(m, record=False)
            gone.add(frozenset(set(self.out_players(pos)) - before))
            pos.pop()
        if len(gone) != 1:
            return ""
        out = sorted(gone.pop())
        if not out:
            return ""
        names = Text.join(", ", [self.player_names[p] for p in out])
        if out == [pos.turn]:
            return Text("{player} gives up the last castle and is out: take the marked "
                        "pieces off the board", player=names)
        if len(out) > 1:
            return Text("{players} are out: take the marked pieces off the board",
                        players=names)
        return Text("{player} is out: take the marked pieces off the board", player=names)

    # -- notation ----------------------------------------------------------------------
    def move_text(self, pos: Position, move: Move) -> str:
        """``1B-2F``, ``1B+2F`` (capture), ``die:4`` (roll), ``pass``."""
        if move.kind == "move":
            sep = "+" if pos.board[move.target] is not None else "-"
            return f"{G.cells[move.origin]}{sep}{G.cells[move.target]}"
        if move.kind == "roll":
            return move.token
        return "pass"

    def long_move_text(self, pos: Position, move: Move) -> str:
        """§7: ``wizard from 1B goes to 2F`` / ``wizard from 1B knocks out raven at 2F``."""
        mover = pos.turn
        name = self.player_names[mover]
        if move.kind == "roll":
            face = _die_face(move.token)
            return Text("{player} rolls {face} ({kinds})", player=name, face=face,
                        kinds=_kinds_text(DICE_TABLE[face]))
        if move.kind == "pass":
            return (Text("{player} cannot move and is out", player=name) if move.captures
                    else Text("{player} passes", player=name))
        piece = pos.board[move.origin]
        victim = pos.board[move.target]
        kind = PIECE_TYPES[piece.kind].name if piece else "?"
        frm, to = G.cells[move.origin], G.cells[move.target]
        if victim is None:
            text: str = Text("{piece} from {cell} goes to {to}", piece=kind, cell=frm, to=to)
        else:
            whose = ("own " if victim.owner == mover
                     else f"{self.player_names[victim.owner]} " if self.players > 2 else "")
            prey = whose + PIECE_TYPES[victim.kind].name
            text = Text("{piece} from {cell} knocks out {victim} at {to}", piece=kind, cell=frm,
                        victim=prey, to=to)
        if self.players > 2:
            gone = {*move.captures, move.origin}
            dropped = [p for p in self.active_players(pos) if p != mover and not any(
                q is not None and q.owner == p and c not in gone for c, q in enumerate(pos.board))]
            if move.piece is None:
                dropped.append(mover)
            if dropped:
                text = Text("{move}; {players} out", move=text, players=Text.join(
                    ", ", [self.player_names[p] for p in sorted(dropped)]))
        return text

    def move_json(self, pos: Position, move: Move) -> dict[str, Any]:
        data = super().move_json(pos, move)
        if move.token:
            data["token"] = move.token
        return data

    def piece_symbol(self, piece: Piece) -> str:
        """Colour letter and piece letter: ``wW`` White wizard, ``rP`` Red pawn."""
        return f"{self.colours[piece.owner]}{piece.kind}"

    # -- position text -----------------------------------------------------------------
    def position_text(self, pos: Position) -> str:
        """``PIECES TURN OUT ROLL BANS TURNS ROUND``, e.g. ``1F=wP,1G=wD,… w - - - 0 1``.

        PIECES is ``field=cK`` in field order (``-`` if none), OUT the colour letters of
        eliminated players, ROLL the die face awaiting a move, BANS ``c:Y-X`` (player c
        may not move his piece from Y to X now), TURNS the turns played, ROUND the round.
        """
        cells = G.cells
        pieces = ",".join(f"{cells[c]}={self.piece_symbol(p)}"
                          for c, p in enumerate(pos.board) if p is not None)
        out = "".join(self.colours[p] for p in pos.state.get("out", ()))
        roll = pos.state.get("roll")
        bans = ",".join(f"{self.colours[p]}:{cells[b[0]]}-{cells[b[1]]}"
                        for p in range(self.players) if (b := pos.state.get(f"ban{p}")))
        return " ".join((pieces or "-", self.colours[pos.turn], out or "-",
                         str(roll) if roll is not None else "-", bans or "-",
                         str(pos.halfmove), str(pos.fullmove)))

    def parse_position(self, text: str) -> Position:
        parts = text.split()
        if len(parts) != 7:
            raise PositionError(f"kaleidochess position needs 7 parts (pieces turn out roll "
                                f"bans turns round), got {len(parts)} in {text!r}")
        pieces, turn, out_text, roll_text, bans_text, half, full = parts
        board: list[Piece | None] = [None] * N_CELLS
        if pieces != "-":
            for item in pieces.split(","):
                field, sep, sym = item.partition("=")
                cell = self._cell(field, item)
                if not sep or len(sym) != 2 or sym[1] not in KINDS:
                    raise PositionError(f"bad piece {item!r}: expected FIELD=cK with K one of "
                                        f"{KINDS}")
                if board[cell] is not None:
                    raise PositionError(f"field {field} is given twice")
                board[cell] = Piece(self._player(sym[0], item), sym[1])
        pos = Position(self, board, self._player(turn, "turn"))
        out: tuple[int, ...] = ()
        if out_text != "-":
            if self.players == 2:
                raise PositionError("no player can be out in a 2-player game")
            out = tuple(sorted({self._player(ch, "out") for ch in out_text}))
            if len(out) != len(out_text):
                raise PositionError(f"player listed twice in out {out_text!r}")
            for p in out:
                if any(q is not None and q.owner == p for q in board):
                    raise PositionError(f"{self.player_names[p]} is out but has pieces")
            if len(out) >= self.players:
                raise PositionError("every player is out")
            pos.state["out"] = out
        if pos.turn in out:
            raise PositionError(f"{self.player_names[pos.turn]} is out and cannot be to move")
        holders = self.castle_holders(board)
        if self.players == 2:
            if not holders:
                raise PositionError("neither player has a piece in a castle")
        else:
            for p in range(self.players):
                if p not in out and p not in holders:
                    raise PositionError(f"{self.player_names[p]} holds no castle but is not out")
        if roll_text != "-":
            if not self.dice:
                raise PositionError("a die roll is only possible in the dice variant")
            if not (roll_text.isdigit() and int(roll_text) in DICE_TABLE):
                raise PositionError(f"bad die roll {roll_text!r}")
            pos.state["roll"] = int(roll_text)
        if bans_text != "-":
            for item in bans_text.split(","):
                who, sep, span = item.partition(":")
                frm, sep2, to = span.partition("-")
                if not sep or not sep2:
                    raise PositionError(f"bad take-back ban {item!r}: expected c:FROM-TO")
                p = self._player(who, item)
                y, x = self._cell(frm, item), self._cell(to, item)
                if f"ban{p}" in pos.state:
                    raise PositionError(f"two take-back bans for {self.player_names[p]}")
                if board[y] is None or board[y].owner != p or y == x:
                    raise PositionError(f"take-back ban {item!r} names no piece of "
                                        f"{self.player_names[p]} on {frm}")
                pos.state[f"ban{p}"] = (y, x)
        try:
            pos.halfmove, pos.fullmove = int(half), int(full)
        except ValueError:
            raise PositionError(f"bad turn counters {half!r} {full!r}") from None
        if pos.halfmove < 0 or pos.fullmove < 1:
            raise PositionError(f"bad turn counters {half!r} {full!r}")
        pos.keys.append(self.position_key(pos))
        return pos

    def _cell(self, field: str, where: str) -> int:
        if field not in G.index:
            raise PositionError(f"unknown field {field!r} in {where!r}")
        return G.index[field]

    def _player(self, letter: str, where: str) -> int:
        if letter not in self.colours:
            raise PositionError(f"unknown colour {letter!r} in {where!r} "
                                f"(one of {', '.join(self.colours)})")
        return self.colours.index(letter)

    # -- display -----------------------------------------------------------------------
    def render_text(self, pos: Position) -> str:
        """One row per slice, one column per letter; ``#`` is an empty castle."""
        letters = "".join(sorted(set(G.attributes["letter"][1:])))
        lines = ["    " + "".join(f"{ch:>4}" for ch in letters)]
        centre = pos.board[0]
        for s in range(1, SLICES + 1):
            row = []
            for ch in letters:
                cell = G.index[f"{s}{ch}"]
                p = pos.board[cell]
                row.append(self.piece_symbol(p) if p else "#" if cell in CASTLE_SET else ".")
            lines.append(f"{s:>4}" + "".join(f"{x:>4}" for x in row))
        lines.append(f"  00 {self.piece_symbol(centre) if centre else '#'}")
        extra = []
        if self.dice:
            roll = pos.state.get("roll")
            extra.append(f"die: {roll} ({self.allowed_kinds(pos)})" if roll else "die: to roll")
        if pos.state.get("out"):
            extra.append("out: " + ", ".join(self.player_names[p] for p in pos.state["out"]))
        return "\n".join(lines + extra)


def _kinds_text(kinds: str) -> str:
    """``"an elephant or the dragon"`` for the kinds a die face allows."""
    if set(kinds) == set(KINDS):
        return Text("any piece")
    names = []
    for k in kinds:
        name = PIECE_TYPES[k].name
        names.append(f"the {name}" if k in "WD" else
                     f"{'an' if name[0] in 'aeiou' else 'a'} {name}")
    return " or ".join(names)


def _die_face(token: str) -> int:
    name, _, face = token.partition(":")
    if name != "die" or not face.isdigit() or int(face) not in DICE_TABLE:
        raise RulesError(f"bad die token {token!r} (expected die:1 … die:6)")
    return int(face)


__all__ = [
    "DICE_TABLE", "HOUSE_ARMY", "KINDS", "PIECE_TYPES", "PLAYER_NAMES", "SETUPS",
    "TWO_PLAYER_ARMY", "KaleidoChess", "PieceType", "destinations", "enumerate_paths", "turned",
]
