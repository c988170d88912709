"""Sensed frames → what happened on the board, decided from the committed position alone.

The sensors never say which piece stands where; the game state does.  So for every
committed position a :class:`PositionIndex` is built once: for each legal move it pushes
the move, reads what the sensors of the layout should then show (occupancy of the cells,
the token pad of each token's holder, hand and reserve pads holding something), pops it, and files
the move under that *expected sensed state*.  Every sensor change is then one dictionary
lookup (the sensed state → the moves that explain it) plus, when nothing explains it
completely, a filter of the few moves that touch the first changed spot (a move under
way: what is lifted, where it may go, what must still be removed).

What occupancy alone cannot tell is settled by the order of events, recorded by the
caller as a ``touched`` mask (spots seen empty that the position fills, since the board
last matched it):

* a move that lands on an occupied cell (a capture by replacement, a merge onto an own
  Tower) counts only once that cell has been seen empty — otherwise "Rook lifted" and
  "Rook captured on a5" would be the same picture;
* a move that changes no occupancy at all (flank promotion, a split that captures or
  merges, a die roll) is *silent*: it is offered for confirmation when the board is back
  in the position after exactly its landing cell was lifted and put back; the same move
  with a token handed over (only its token pads change: Lùotuoqí's double move) is
  confirmed too, never committed unasked.

Linear halls add a coarse stack class and the magnet polarity per spot.  They narrow the
candidates when present and are never relied on: if they contradict every candidate,
they are ignored.

Decisions (:class:`Decision`.kind): ``idle`` (board = position), ``commit`` (exactly one
move), ``choose`` (several moves explain the board — never guessed), ``confirm`` (a
silent move's gesture), ``amend`` (the last move extended: a token handed over after a
qualifying move, the King joining a Rook-Camel that moved first in castling),
``takeback`` (the board shows an earlier position), ``wait`` (a move under way),
``mismatch`` (nothing explains the board: show what is missing and extra).

Everything here is pure: no clock, no I/O; the caller (``controller/board/``) owns time.

Long module: the explanation search and its index are one algorithm (docs/board.md).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple, Protocol

from controller.layout import Layout
from controller.rules.core import OFF_BOARD, Game, IllegalMoveError, Move, Piece, Position

#: pad roles whose occupancy follows from the position (a token pad is occupied while its
#: owner holds the token it names); option and die pads are commands
TRACKED_ROLES = ("token", "hand", "reserve")

IDLE, COMMIT, CHOOSE, CONFIRM, AMEND, TAKEBACK, WAIT, MISMATCH = (
    "idle", "commit", "choose", "confirm", "amend", "takeback", "wait", "mismatch")

Key = tuple  # sensed occupancy of the tracked spots, a tuple of bools

_BITS = bytes.maketrans(b"\x00\x01", b"01")


def mask_of(key: Key) -> int:
    """Bit ``j`` set when tracked spot ``j`` is occupied (C speed, ~1 µs for 80 spots)."""
    return int(bytes(key).translate(_BITS)[::-1], 2) if key else 0


def bits(mask: int) -> Iterable[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class FrameLike(Protocol):
    """What the reconciler reads of a :class:`controller.sensing.frame.Frame`."""

    time: float
    occupied: Sequence[bool]
    stack: Sequence[int | None] | None
    polarity: Sequence[int | None] | None


def piece_polarity(piece: Piece | None) -> int | None:
    """Magnet polarity of a piece: +1 White (south up), -1 Black, None for other players."""
    if piece is None:
        return 0
    return (1, -1)[piece.owner] if piece.owner in (0, 1) else None


class SensorView:
    """How the sensors of one layout see positions of one game.

    *Tracked* spots are the cells plus the pads whose occupancy the position determines
    (token, hand, reserve).  Option and die pads are *command* spots: they never take part
    in explaining a move."""

    def __init__(self, game: Game, layout: Layout):
        if layout.geometry.name != game.geometry.name:
            raise ValueError(f"layout {layout.name} is a {layout.geometry.name} board; "
                             f"{game.name} is played on {game.geometry.name}")
        self.game = game
        self.layout = layout
        n_cells = layout.cell_count
        tracked = list(range(n_cells))
        #: (token name, holder) -> tracked index of the pad occupied while he holds it
        self.token_pads: dict[tuple[str, int], int] = {}
        self.hand_pads: dict[tuple[int, str], int] = {}
        self.reserve_pads: dict[tuple[int, str], int] = {}
        option, die = [], None
        for i, s in enumerate(layout.spots[n_cells:], start=n_cells):
            if s.role in TRACKED_ROLES:
                j = len(tracked)
                tracked.append(i)
                if s.role == "token":
                    self.token_pads[(s.piece, s.owner)] = j
                elif s.role == "hand":
                    self.hand_pads[(s.owner, s.piece)] = j
                else:
                    self.reserve_pads[(s.owner, s.piece)] = j
            elif s.role == "option":
                option.append(i)
            elif s.role == "die" and die is None:
                die = i
        self.n_cells = n_cells
        self.tracked: tuple[int, ...] = tuple(tracked)
        #: the tokens the sensors see change hands (a move using one moves it between pads)
        self.pad_tokens: frozenset[str] = frozenset(name for name, _ in self.token_pads)
        #: (0 token / 1 hand / 2 reserve, owner, piece or token) of each tracked pad
        self._pads = tuple(
            (TRACKED_ROLES.index(layout.spots[spot].role), layout.spots[spot].owner,
             layout.spots[spot].piece) for spot in tracked[n_cells:])
        self.slot_of: dict[int, int] = {spot: j for j, spot in enumerate(tracked)}
        self.option_pads: tuple[int, ...] = tuple(option)
        self.die_pad: int | None = die
        self._pick = operator.itemgetter(*tracked)
        #: the last frame's occupancy (a tuple: immutable), its key and mask — a frame is
        #: read by the machine and the reconciler several times
        self._seen: list = [None, None, None]

    # -- sensed ----------------------------------------------------------------------
    def key(self, frame: FrameLike) -> Key:
        """The sensed occupancy of the tracked spots."""
        occupied = frame.occupied
        seen = self._seen
        if occupied is seen[0]:
            return seen[1]
        key = self._pick(occupied)
        if type(occupied) is tuple:
            seen[:] = occupied, key, None
        return key

    def mask(self, frame: FrameLike) -> int:
        """The sensed occupancy of the tracked spots as a mask (``mask_of(key(frame))``)."""
        key = self.key(frame)
        seen = self._seen
        if seen[1] is key:
            if seen[2] is None:
                seen[2] = mask_of(key)
            return seen[2]
        return mask_of(key)

    def spots(self, mask: int) -> frozenset[int]:
        tracked = self.tracked
        return frozenset(tracked[j] for j in bits(mask))

    # -- expected --------------------------------------------------------------------
    def expected(self, pos: Position) -> Key:
        """What the tracked sensors read when the board shows ``pos`` exactly."""
        cells = tuple([p is not None for p in pos.board])
        if not self._pads:
            return cells
        return cells + self.pads_expected(pos)

    def pads_expected(self, pos: Position) -> Key:
        """What the tracked pads read in ``pos`` (the end of :meth:`expected`)."""
        tokens, hands, reserves = pos.tokens, pos.hands, pos.reserves
        pads = []
        for kind, owner, piece in self._pads:
            if kind == 0:
                pads.append(tokens.get(piece) == owner)
            elif kind == 1:
                pads.append(owner < len(hands) and hands[owner].get(piece, 0) > 0)
            else:
                pads.append(owner < len(reserves) and reserves[owner].get(piece, 0) > 0)
        return tuple(pads)

    def detail(self, pos: Position, j: int) -> tuple[int | None, int | None]:
        """Expected (stack class, polarity) of tracked spot ``j``; None where unknowable."""
        if j < self.n_cells:
            p = pos.board[j]
            return (min(p.height, 3) if p else 0), piece_polarity(p)
        for table, store in ((self.hand_pads, pos.hands), (self.reserve_pads, pos.reserves)):
            for (owner, kind), jj in table.items():
                if jj == j:
                    n = store[owner].get(kind, 0) if owner < len(store) else 0
                    return min(n, 3), None
        return None, None

    def sensed_detail(self, frame: FrameLike, j: int) -> tuple[int | None, int | None]:
        spot = self.tracked[j]
        stack = frame.stack[spot] if frame.stack is not None else None
        pol = frame.polarity[spot] if frame.polarity is not None else None
        occupied = frame.occupied[spot]
        if occupied and stack == 0:  # contradicts presence: unknown
            stack = None
        if occupied and pol == 0:
            pol = None
        return stack, pol


class Effect(NamedTuple):
    """What a move does to the tracked sensors (bit masks over tracked spots)."""

    key: Key  #: expected sensed state after the move
    vacate: int  #: occupied before, empty after (origin, bypass victims, token pad, …)
    arrive: int  #: empty before, occupied after (target, castling Rook, other token pad)
    touch: int  #: occupied before and after, but holding something else (split source,
    #:            capture or merge target, a hand pad whose count changed)
    must_lift: int  #: cells that must be seen empty once (the target when it stays occupied)
    source: int  #: where the moving piece comes from (origin cell or hand/reserve pad)
    goal: int  #: where pieces must be put (arrive + an occupied target + a vanishing
    #:            piece's landing cell)
    victims: int  #: every captured piece's cell
    gesture: int  #: for silent moves: the landing cell to lift and put back
    extendable: bool  #: a slide that could travel further along its line
    pads_only: bool  #: changes only pads (a silent move with a token): always confirmed
    detail: tuple[tuple[int, int | None, int | None], ...]  #: (j, stack class, polarity)


@dataclass(frozen=True, slots=True)
class Decision:
    """What the board shows, relative to the committed position."""

    kind: str
    moves: tuple[Move, ...] = ()
    plies: int = 0  #: takeback depth (with ``wait``: the picture is also an earlier position)
    extendable: bool = False  #: a slide that might go on: the settle gate should wait
    touched: int = 0  #: the caller's touched mask plus the cells this frame shows empty
    lifted: frozenset[int] = frozenset()  #: spots expected occupied, sensed empty
    placed: frozenset[int] = frozenset()  #: spots sensed occupied, expected empty
    origins: frozenset[int] = frozenset()  #: lifted spots a candidate move starts from
    targets: frozenset[int] = frozenset()  #: where the candidates' pieces may go
    to_remove: frozenset[int] = frozenset()  #: pieces every candidate still has to remove
    #: moves of the previous position that would replace the last move (see ``amend``);
    #: with ``choose`` they are offered beside the moves of this position
    amends: tuple[Move, ...] = ()


def _cell_bit(c: int) -> int:
    return 1 << c if c >= 0 else 0


class PositionIndex:
    """Expected sensed state → legal moves, for one position; built once per position."""

    def __init__(self, view: SensorView, pos: Position, moves: Sequence[Move] | None = None):
        game = pos.game
        self.view = view
        self.mover: int = game.ply_mover(pos)
        self.expected: Key = view.expected(pos)
        self.emask: int = mask_of(self.expected)
        self.board: tuple[Piece | None, ...] = tuple(pos.board)
        # hidden information (Lao Tzu): the index holds every move the player may try
        # (``board_moves``: what he cannot know to be illegal), so nothing it shows depends
        # on hidden pieces; only legal ones are committed (``is_legal``)
        attempts = game.hidden_information and moves is None
        self.legal: frozenset[Move] | None = (frozenset(game.legal_moves(pos))
                                              if attempts else None)
        if moves is None:
            moves = game.board_moves(pos)
        self.moves: tuple[Move, ...] = tuple(moves)
        self.effects: list[Effect] = []
        self.by_key: dict[Key, list[int]] = {}
        self.by_bit: dict[int, list[int]] = {}
        self.silent: dict[int, list[int]] = {}  # gesture mask -> silent moves
        self.landing: dict[int, int] = {}  # move -> cell its vanishing piece lands on
        self._here_detail: dict[int, tuple[int | None, int | None]] = {}
        #: what presentation derives from this position and asks on every frame (the
        #: index is immutable: read once per position, see ``board/compose.py``)
        self.memo: dict[object, object] = {}
        before_hands = [dict(h) for h in pos.hands]
        before_res = [dict(r) for r in pos.reserves]
        before_tokens = dict(pos.tokens)
        pads_tracked = bool(view.hand_pads or view.reserve_pads)
        E = self.emask
        here = self.expected
        board = self.board
        n_cells = view.n_cells
        cells_mask = (1 << n_cells) - 1
        here_cells = list(here[:n_cells])
        here_pads = here[n_cells:]
        pads_of = view.pads_expected if here_pads else None
        detail_of = view.detail
        counted = {*view.hand_pads.values(), *view.reserve_pads.values()}  # pads with counts
        token_pads: dict[tuple, Key] = {}  # tokens after a move -> the pads they light
        effects, by_key, by_bit = self.effects, self.by_key, self.by_bit
        extendable = self._extendable(game)
        for i, m in enumerate(self.moves):
            pos.push(m, record=False)
            after = pos.board
            # The Move spells out every cell it changes (origin, target, captures, further
            # displacements): the expected picture after it differs from this one there
            # and on the pads only.
            _, origin, target, piece, _, captures, also, _, _ = m
            cells = here_cells.copy()
            A = E
            touch = 0
            for c in ((origin, target, *captures, *(c for pair in also for c in pair)) if also
                      else (origin, target, *captures)):
                if c < 0:
                    continue
                a = after[c]
                if a is None:
                    cells[c] = False
                    A &= ~(1 << c)
                    continue
                cells[c] = True
                A |= 1 << c
                # a captured piece replaced by one of the same kind and colour (an own
                # capture, KaleidoChess) is a change the sensors cannot see either
                b = board[c]
                if b is not None and (a != b or c in captures):
                    touch |= 1 << c
            stores = pos.hands != before_hands or pos.reserves != before_res
            if pads_of is not None:
                # the pads follow the tokens, hands and reserves: most moves change none,
                # and the moves that only hand a token over share their pads
                if stores:
                    pads = pads_of(pos)
                elif pos.tokens != before_tokens:
                    tokens = tuple(pos.tokens.items())
                    pads = token_pads.get(tokens)
                    if pads is None:
                        pads = token_pads[tokens] = pads_of(pos)
                else:
                    pads = here_pads
                if pads != here_pads:
                    for jj, on in enumerate(pads, start=n_cells):
                        A = A | 1 << jj if on else A & ~(1 << jj)
                key = tuple(cells) + pads
            else:
                key = tuple(cells)
            if pads_tracked and stores:
                touch |= self._pad_touch(pos, before_hands, before_res)
            vacate, arrive = E & ~A, A & ~E
            shown = touch | arrive
            if shown:
                detail = []
                while shown:
                    low = shown & -shown
                    j = low.bit_length() - 1
                    shown ^= low
                    if j < n_cells:
                        p = after[j]
                        detail.append((j, min(p.height, 3) if p else 0, piece_polarity(p)))
                    elif j in counted:
                        detail.append((j, *detail_of(pos, j)))
                    else:  # a token pad: nothing to read but presence
                        detail.append((j, None, None))
                detail = tuple(detail)
            else:
                detail = ()
            pos.pop()
            target_bit = 1 << target if target >= 0 else 0
            # a cell occupied before and after must be seen empty once: the target of a
            # capture or merge, the cell of an in-place promotion (its gesture) — not the
            # King's cell of a castling that moves only the Rook (Chess960)
            must = (touch & target_bit if origin != target or (E ^ A) & cells_mask
                    else target_bit)
            source = (1 << origin if origin >= 0 else 0) if origin != target else 0
            if origin == OFF_BOARD:
                source = self._pad_source(vacate | touch)
            victims = 0
            for c in captures:
                victims |= 1 << c
            silent = A == E
            # silent: confirmed after lifting its landing cell
            gesture = _cell_bit(target if target >= 0 else origin) if silent else 0
            pads_only = not silent and not (E ^ A) & cells_mask
            # a piece that lands and then leaves the board with its owner's other pieces
            # (a KaleidoChess player giving up his last castle is out): every such move
            # ends in the same picture, so it counts only once its piece was seen put
            # down on its target (``landed``)
            landing = (target_bit if piece is None and origin >= 0 and target >= 0
                       and target in captures else 0)
            if landing:
                self.landing[i] = landing
            effects.append(Effect(key, vacate, arrive, touch, must, source,
                                  arrive | (touch & target_bit) | landing, victims,
                                  gesture, i in extendable, pads_only, detail))
            if silent:
                # confirmed once its landing cell was lifted (and maybe its source too)
                self.silent.setdefault(gesture, []).append(i)
                if source & ~gesture:
                    self.silent.setdefault(gesture | source, []).append(i)
                continue
            by_key.setdefault(key, []).append(i)  # one hash of the long key
            spots = vacate | touch | arrive | landing
            while spots:
                low = spots & -spots
                j = low.bit_length() - 1
                spots ^= low
                group = by_bit.get(j)
                if group is None:
                    by_bit[j] = [i]
                else:
                    group.append(i)
        self.all_silent = bool(self.moves) and len(self.by_key) == 0

    def _pad_touch(self, pos: Position, hands: list[dict], reserves: list[dict]) -> int:
        """Hand/reserve pads whose count changed but that stay occupied."""
        touch = 0
        for table, before, after in ((self.view.hand_pads, hands, pos.hands),
                                     (self.view.reserve_pads, reserves, pos.reserves)):
            for (owner, kind), j in table.items():
                if owner >= len(after):
                    continue
                b, a = before[owner].get(kind, 0), after[owner].get(kind, 0)
                if b and a and a != b:
                    touch |= 1 << j
        return touch

    def _pad_source(self, mask: int) -> int:
        n = self.view.n_cells
        pads = mask >> n << n
        return pads & -pads  # the lowest pad bit: the hand/reserve pad it came from

    def _extendable(self, game: Game) -> set[int]:
        """The moves that are slides the same piece could carry further along its line."""
        # the same moving part: same origin, same remainder left behind (a Tower passing a
        # cell on its way to merge, a King sliding on to castle)
        reach: dict[tuple, set[int]] = {}
        for m in self.moves:
            if m.origin >= 0 and m.target >= 0 and m.origin != m.target:
                reach.setdefault((m.origin, m.left, m.token), set()).add(m.target)
        # a whole Tower (or stack) in the hand may still be a split going further, its
        # remainder put back afterwards (the board amends the move then): hold it too
        for (origin, left, token), targets in list(reach.items()):
            if left is not None and (origin, None, token) in reach:
                reach[(origin, None, token)] |= targets
        ways = {part: frozenset(targets) for part, targets in reach.items()}
        # the rules say whether a target lies on the way to another (straight rays by
        # default; KaleidoChess's paths are no straight lines); a piece's parts that reach
        # the same targets (a Tower's split sizes) share the answer
        passes: dict[tuple[int, int, frozenset[int]], bool] = {}
        out = set()
        for i, m in enumerate(self.moves):
            if m.origin < 0 or m.target < 0 or m.origin == m.target:
                continue
            targets = ways[(m.origin, m.left, m.token)]
            if len(targets) < 2:
                continue
            known = (m.origin, m.target, targets)
            slides = passes.get(known)
            if slides is None:
                slides = passes[known] = game.slide_passes(self.board, m.origin, m.target,
                                                           targets)
            if slides:
                out.add(i)
        return out

    # -- queries ---------------------------------------------------------------------
    def here_detail(self, j: int) -> tuple[int | None, int | None]:
        """Expected (stack class, polarity) of tracked spot ``j`` in this position."""
        d = self._here_detail.get(j)
        if d is None:
            if j < self.view.n_cells:
                p = self.board[j]
                d = ((min(p.height, 3) if p else 0), piece_polarity(p))
            else:
                d = (None, None)
            self._here_detail[j] = d
        return d

    def fits(self, i: int, frame: FrameLike) -> bool:
        """Whether the sensed stack classes / polarities agree with move ``i``'s result."""
        view = self.view
        for j, cls, pol in self.effects[i].detail:
            s_cls, s_pol = view.sensed_detail(frame, j)
            if (s_cls is not None and cls is not None and s_cls != cls) or (
                    s_pol is not None and pol is not None and s_pol != pol):
                return False
        return True

    def narrow(self, candidates: Sequence[int], frame: FrameLike) -> list[int]:
        """Keep the candidates the stack classes / polarities agree with; all when none do
        (linear halls narrow a choice, they are never relied on)."""
        if frame.stack is None and frame.polarity is None:
            return list(candidates)
        kept = [i for i in candidates if self.fits(i, frame)]
        return kept or list(candidates)

    def unchanged_fits(self, cells: int, frame: FrameLike) -> bool:
        """Whether the sensed details at ``cells`` still fit this position."""
        view = self.view
        for j in bits(cells):
            s_cls, s_pol = view.sensed_detail(frame, j)
            cls, pol = self.here_detail(j)
            if (s_cls is not None and cls is not None and s_cls != cls) or (
                    s_pol is not None and pol is not None and s_pol != pol):
                return False
        return True

    def partial(self, L: int, X: int) -> list[int]:
        """Moves the deviation (lifted ``L``, placed ``X``) could be a step toward: pieces
        were lifted only where the move takes or replaces something and put only where
        it puts something (``goal``; a vanishing piece's landing cell once that piece is
        lifted); a piece appears only after its source was lifted — unless the move
        changes the piece's kind (Gnu Qi's Pawn → Wazir): the new piece may be put down
        before the old one is taken off."""
        first = (L | X) & -(L | X)
        out = []
        effects = self.effects
        landing = self.landing
        for i in self.by_bit.get(first.bit_length() - 1, ()):
            e = effects[i]
            goal = e.goal if i not in landing or L & e.source else e.arrive
            if X & ~goal or L & ~(e.vacate | e.touch):
                continue
            if X and not (L & (e.vacate | e.touch)) and self.moves[i].origin != OFF_BOARD \
                    and not self.swaps_piece(self.moves[i]):
                continue
            out.append(i)
        return out

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` may be committed (every move of the index, unless the game's
        ``board_moves`` also lists moves that are illegal for reasons the player cannot see)."""
        return self.legal is None or move in self.legal

    def swaps_piece(self, move: Move) -> bool:
        """Whether ``move`` leaves another kind of piece than the one that moved (a
        promotion on the way): the player exchanges the physical piece."""
        if move.origin < 0 or move.origin == move.target or move.piece is None:
            return False
        before = self.board[move.origin]
        return before is not None and before.kind != move.piece.kind


class _Past(NamedTuple):
    """An earlier position: its expected key, its board, and the move that left it."""

    key: Key
    board: tuple[Piece | None, ...]
    move: Move


class Reconciler:
    """Keeps the committed position's index (and what takebacks and amendments need)
    and decides what a sensed frame means.  The caller commits; nothing here guesses."""

    def __init__(self, game: Game, layout: Layout, pos: Position | None = None):
        self.game = game
        self.view = SensorView(game, layout)
        self.pos = game.start() if pos is None else pos
        self._past: list[_Past] = []
        undone = []
        while self.pos.moves:  # earlier positions of a loaded game, for takebacks
            undone.append(self.pos.pop())
        for m in reversed(undone):
            self._past.append(_Past(self.view.expected(self.pos), tuple(self.pos.board), m))
            self.pos.push(m)
        self._preview: dict[Move, PositionIndex] = {}
        self.index = PositionIndex(self.view, self.pos)
        self._amend: tuple[PositionIndex, Move, list[int]] | None = None
        self._takeback_keys: dict[Key, int] = {}
        self._refresh_takebacks()

    # -- committing ------------------------------------------------------------------
    def commit(self, move: Move) -> None:
        """Make ``move`` (one of the index's legal moves) the new committed position."""
        if move not in self.index.moves:
            raise IllegalMoveError(f"illegal move {move!r} in {self.game.position_text(self.pos)}")
        prev = self.index
        self._advance(move)
        ext = self._extensions(prev, move)
        self._amend = (prev, move, ext) if ext else None

    def amend(self, move: Move) -> Move:
        """Replace the last committed move by ``move``, an extension of it in the previous
        position (a token handed over, castling completed).  Returns the replaced move."""
        if self._amend is None or move not in [self._amend[0].moves[i] for i in self._amend[2]]:
            raise IllegalMoveError(f"{move!r} does not extend the last move")
        prev, old, _ = self._amend
        self.pos.pop()
        self._past.pop()
        self.index = prev
        self._preview.clear()
        self._advance(move)
        ext = self._extensions(prev, move)
        self._amend = (prev, move, ext) if ext else None
        return old

    def takeback(self, plies: int) -> list[Move]:
        """Undo the last ``plies`` moves; returns them, last first."""
        if not 1 <= plies <= len(self.pos.moves):
            raise IllegalMoveError(f"cannot take back {plies} moves of {len(self.pos.moves)}")
        undone = [self.pos.pop() for _ in range(plies)]
        del self._past[len(self._past) - plies:]
        self._preview.clear()
        self._amend = None
        self.index = PositionIndex(self.view, self.pos)
        self._refresh_takebacks()
        return undone

    def _advance(self, move: Move) -> None:
        idx = self.index
        self._past.append(_Past(idx.expected, idx.board, move))
        cached = self._preview.pop(move, None)
        self._preview.clear()
        self.pos.push(move)
        self.index = cached or PositionIndex(self.view, self.pos)
        self._refresh_takebacks()

    def preview(self, move: Move) -> PositionIndex:
        """The index of the position after ``move`` (cached for the commit)."""
        idx = self._preview.get(move)
        if idx is None:
            self.pos.push(move)
            idx = PositionIndex(self.view, self.pos)
            self.pos.pop()
            self._preview[move] = idx
        return idx

    def _refresh_takebacks(self) -> None:
        keys: dict[Key, int] = {}
        here = self.index.expected
        for plies, past in enumerate(reversed(self._past), start=1):
            if past.key != here and past.key not in keys:
                keys[past.key] = plies
        self._takeback_keys = keys

    @staticmethod
    def _extensions(prev: PositionIndex, move: Move) -> list[int]:
        """Moves of ``prev`` that may still replace ``move`` once it is committed:

        * moves that do everything ``move`` does to the sensors and more (a token handed
          over after the move; the King completing castling after the Rook-Camel);
        * splits of the same Tower to the same cell when ``move`` took the whole Tower
          (the player lifted it all and then put the remainder back)."""
        try:
            i = prev.moves.index(move)
        except ValueError:
            return []
        e = prev.effects[i]
        if e.key == prev.expected:
            # a silent move (confirmed on a choice: a stone onto its own Tower) changes no
            # sensor, so only the same move with a token handed over can extend it
            tokens = prev.view.pad_tokens
            return [k for k, m in enumerate(prev.moves)
                    if m.token in tokens and m.token != move.token
                    and m._replace(token=move.token) == move]
        out = []
        for k, f in enumerate(prev.effects):
            if k == i or k in prev.landing:  # a vanishing piece is told by where it landed
                continue
            m = prev.moves[k]
            remainder_back = (move.left is None and m.left is not None
                              and m.origin == move.origin and m.target == move.target
                              and (m.token == move.token or m.token in prev.view.pad_tokens))
            # (a cell the move emptied may be filled again by another piece: Chess960
            # castling whose King stepped first, the Rook landing on the King's cell)
            does_more = (f.key != prev.expected
                         and (f.vacate | f.touch) & e.vacate == e.vacate
                         and f.arrive & e.arrive == e.arrive
                         and f.touch & e.touch == e.touch
                         and (f.vacate | f.arrive) != (e.vacate | e.arrive))
            if remainder_back or does_more:
                out.append(k)
        return out

    # -- deciding --------------------------------------------------------------------
    def is_legal(self, move: Move, amend: bool = False) -> bool:
        """Whether ``move`` (of this position, or with ``amend`` of the previous one,
        replacing the last move) is legal: see :meth:`PositionIndex.is_legal`."""
        idx = self._amend[0] if amend and self._amend is not None else self.index
        return idx.is_legal(move)

    @property
    def amendable(self) -> tuple[Move, tuple[Move, ...]] | None:
        """The last move and the moves that may still replace it, if any."""
        if self._amend is None:
            return None
        prev, move, ext = self._amend
        return move, tuple(prev.moves[i] for i in ext)

    def explains(self, frame: FrameLike, move: Move, touched: int = 0) -> bool:
        """Whether the board shows exactly ``move`` made (for executing a known move)."""
        idx = self.index
        i = idx.moves.index(move)
        e = idx.effects[i]
        key = self.view.key(frame)
        S = self.view.mask(frame)
        touched |= idx.emask & ~S
        if e.key == idx.expected:
            return key == idx.expected and e.gesture & ~touched == 0
        return key == e.key and e.must_lift & ~touched == 0

    def is_extendable(self, frame: FrameLike, touched: int = 0) -> bool:
        """For the settle gate: would this frame commit a slide that might still go on, or
        a takeback that might go further back?"""
        d = self.decide(frame, touched)
        return d.extendable

    def decide(self, frame: FrameLike, touched: int = 0, landed: int = 0) -> Decision:
        """What ``frame`` means in the committed position (see the module docstring).
        ``landed``: cells where something was put down during the attempt (a mask)."""
        idx = self.index
        view = self.view
        key = view.key(frame)
        if key == idx.expected:
            return self._idle(frame, touched)
        S = view.mask(frame)
        E = idx.emask
        L, X = E & ~S, S & ~E
        touched |= L
        amends = self._amend_fits(key, touched, frame)
        group = idx.by_key.get(key)
        if group:
            complete = [i for i in group if idx.effects[i].must_lift & ~touched == 0
                        and idx.landing.get(i, 0) & ~landed == 0]
            if complete:
                chosen = idx.narrow(complete, frame)
                moves = tuple(idx.moves[i] for i in chosen)
                ext = any(idx.effects[i].extendable for i in chosen)
                if amends:  # the last move completed, or a move of this position: ask
                    return self._shown(CHOOSE, moves + amends, chosen, L, X, touched, ext,
                                       amends=amends)
                if idx.effects[chosen[0]].pads_only:  # only a token moved: confirm
                    return self._shown(CONFIRM, moves, chosen, L, X, touched, False)
                kind = COMMIT if len(moves) == 1 else CHOOSE
                return self._shown(kind, moves, chosen, L, X, touched, ext)
        plies = self._takeback_keys.get(key)
        need = self._takeback_lifts(plies) if plies is not None else 0
        if need & ~touched:
            plies = None
        cands = idx.partial(L, X)
        held = 0
        if not cands and frame.stack is not None:  # part of a stack in the hand
            cands, held = self._stack_moves(frame, L, X)
        # an earlier position whose capturing piece was lifted off again is a takeback;
        # otherwise the last move completed (a token, castling, a remainder) comes first
        if plies is not None and not cands and (need or not amends):
            return Decision(TAKEBACK, plies=plies, extendable=plies < len(self._past),
                            touched=touched, lifted=view.spots(L), placed=view.spots(X))
        if amends:
            return Decision(AMEND, amends, touched=touched, lifted=view.spots(L),
                            placed=view.spots(X), amends=amends)
        if cands:  # a move under way; if it is also an earlier position, say so (plies)
            d = self._shown(WAIT, (), cands, L, X, touched, False, plies or 0)
            return replace(d, origins=d.origins | view.spots(held)) if held else d
        if self._amend is not None:
            prev, _, ext_list = self._amend
            goal = 0
            for k in ext_list:
                K = prev.effects[k].key
                KM = mask_of(K)
                if not (L & ~(E & ~KM)) and not (X & ~(KM & ~E)):
                    goal |= KM & ~E & ~X
            if goal:  # the lifted piece (castling's King) on its way: from where, to where
                return Decision(WAIT, touched=touched, lifted=view.spots(L),
                                placed=view.spots(X), origins=view.spots(L),
                                targets=view.spots(goal))
        return Decision(MISMATCH, touched=touched, lifted=view.spots(L), placed=view.spots(X))

    def _amend_fits(self, key: Key, touched: int, frame: FrameLike) -> tuple[Move, ...]:
        """Extensions of the last move that the board shows complete."""
        if self._amend is None:
            return ()
        prev, last, ext_list = self._amend
        # seen empty before the commit: what the last move had to lift, and what it left
        # empty (the commit needed that picture) — a Chess960 Rook that moved first from
        # the King's target lent it that way
        e = prev.effects[prev.moves.index(last)]
        done = e.must_lift | e.vacate
        fits = [k for k in ext_list if prev.effects[k].key == key
                and prev.effects[k].must_lift & ~done & ~touched == 0]
        return tuple(prev.moves[k] for k in prev.narrow(fits, frame)) if fits else ()

    def _idle(self, frame: FrameLike, touched: int) -> Decision:
        """The board shows the position; if exactly the landing cell of silent moves was
        lifted and put back, offer them for confirmation (never commit them unasked)."""
        idx = self.index
        silent = idx.silent.get(touched) if touched else None
        if silent:
            fitting = [i for i in silent if idx.fits(i, frame)]
            if fitting or not idx.unchanged_fits(touched, frame):
                chosen = fitting or silent
                return Decision(CONFIRM, tuple(idx.moves[i] for i in chosen), touched=touched,
                                targets=self.view.spots(touched))
        if frame.stack is not None:
            cands, held = self._stack_moves(frame, 0, 0)
            if cands:
                d = self._shown(WAIT, (), cands, 0, 0, touched, False)
                return replace(d, origins=self.view.spots(held))
        return Decision(IDLE, touched=touched)

    def _stack_moves(self, frame: FrameLike, L: int, X: int) -> tuple[list[int], int]:
        """Linear halls: part of a stack (a Tower, a Pawn stack) is in the hand — its cell
        still reads occupied but its stack class went down.  The moves of that stack whose
        remainder has that class and that the rest of the picture (lifted ``L``, placed
        ``X``) could be a step toward, and the stacks' cells (a mask).  Only for showing
        targets: a move still needs the board to show it."""
        idx = self.index
        stack = frame.stack
        assert stack is not None
        low: dict[int, int] = {}
        for c, p in enumerate(idx.board):
            if p is not None and p.height > 1 and not L >> c & 1:
                s = stack[c]
                if s is not None and 0 < s < min(p.height, 3):
                    low[c] = s
        if not low:
            return [], 0
        out, held = [], 0
        for i, m in enumerate(idx.moves):
            s = low.get(m.origin)
            if s is None or m.left is None or min(m.left.height, 3) != s:
                continue
            e = idx.effects[i]
            if L & ~(e.vacate | e.touch) or X & ~e.arrive:
                continue
            out.append(i)
            held |= 1 << m.origin
        return out, held

    def _shown(self, kind: str, moves: tuple[Move, ...], cands: Sequence[int], L: int, X: int,
               touched: int, extendable: bool, plies: int = 0,
               amends: tuple[Move, ...] = ()) -> Decision:
        idx, view = self.index, self.view
        source = goal = 0
        remove = still = -1
        S_victims = (idx.emask & ~L) | X  # still on the board (or a vanishing piece put down)
        for i in cands:
            e = idx.effects[i]
            source |= e.source
            # a vanishing piece's landing cell is shown only while that piece is lifted
            goal |= e.goal if i not in idx.landing or L & e.source else e.arrive
            still &= e.vacate & ~e.victims & S_victims
        # a capture whose target was seen empty and is occupied again has arrived: its other
        # victims (a KaleidoChess player knocked out) are what is left to take off; the
        # target itself now holds the mover
        effects = idx.effects
        arrived = [i for i in cands if effects[i].must_lift
                   and not effects[i].must_lift & (~touched | L)]
        for i in arrived or cands:
            e = effects[i]
            remove &= e.victims & S_victims & ~(e.must_lift & touched)
        if remove == -1:
            remove = 0
        origins = L & source
        if kind == WAIT:
            goal &= ~X
            if X and still != -1:  # a piece already put down: what every candidate still
                origins |= still  # has to lift (castling's Rook, the Pawn a Wazir replaces)
        return Decision(kind, moves, plies=plies, extendable=extendable, touched=touched,
                        lifted=view.spots(L), placed=view.spots(X),
                        origins=view.spots(origins), targets=view.spots(goal),
                        to_remove=view.spots(remove), amends=amends)

    def _takeback_lifts(self, plies: int) -> int:
        """Cells that must have been seen empty for a takeback of ``plies`` moves to count:
        targets of the undone moves that are occupied before and after, by other pieces."""
        here = self.index.board
        there = self._past[-plies].board
        need = 0
        for past in self._past[len(self._past) - plies:]:
            t = past.move.target
            if t >= 0 and here[t] is not None and there[t] is not None and here[t] != there[t]:
                need |= 1 << t
        return need

    # -- helpers for the state machine -----------------------------------------------
    def misfits(self, frame: FrameLike) -> tuple[frozenset[int], frozenset[int]]:
        """Linear halls: spots occupied as the position expects whose reading disagrees —
        (stack class too low: pieces missing from a stack, class too high or wrong colour).
        Set-up verification shows them when the occupancy alone matches."""
        idx, view = self.index, self.view
        low = wrong = 0
        if frame.stack is None and frame.polarity is None:
            return frozenset(), frozenset()
        for j in bits(idx.emask & view.mask(frame)):
            s_cls, s_pol = view.sensed_detail(frame, j)
            cls, pol = idx.here_detail(j)
            if s_cls is not None and cls is not None and s_cls < cls:
                low |= 1 << j
            elif (s_cls is not None and cls is not None and s_cls != cls) or (
                    s_pol is not None and pol is not None and s_pol != pol):
                wrong |= 1 << j
        return view.spots(low), view.spots(wrong)

    def deviation(self, frame: FrameLike, key: Key | None = None) -> tuple[frozenset[int],
                                                                         frozenset[int]]:
        """(missing, extra) spots of ``frame`` against ``key`` (default: the position)."""
        E = mask_of(self.index.expected if key is None else key)
        S = self.view.mask(frame)
        return self.view.spots(E & ~S), self.view.spots(S & ~E)

    def lifted(self, frame: FrameLike) -> int:
        """Tracked spots the position fills that ``frame`` shows empty (a mask)."""
        return self.index.emask & ~self.view.mask(frame)


def next_touched(touched: int, lifted_before: int, lifted_now: int) -> int:
    """The cells seen empty during a move attempt, updated for a new frame.

    When something new is lifted, cells that were lifted earlier and are back already
    are forgotten: what counts is the target emptied *during* the move (a victim lifted
    first is still off the board when the mover is lifted; the target of a merge is
    lifted last).  So a piece lifted and put back never lends its "seen empty" to a
    later, different move."""
    if lifted_now & ~lifted_before:
        touched &= lifted_now
    return touched | lifted_now
