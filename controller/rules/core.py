"""The rules vocabulary shared by all five games: pure data and functions, no I/O, no clock.

* a cell is an ``int`` of the game's :class:`~controller.geometry.Geometry`;
* a :class:`Piece` is an immutable ``(owner, kind, height)`` value — ``height`` counts the
  stones of a Tower or the Pawns of a Lotus home-hexagon stack;
* a :class:`Move` is an immutable value describing everything the move does to the board
  (so the reconciler can predict what the sensors will see without knowing the game);
* a :class:`Position` is mutable, like python-chess's ``Board``: ``push`` / ``pop`` with
  an undo log that restores the exact previous position;
* a :class:`Game` states the rules: legal moves, how a move changes a position, check,
  game end, notation and position text.  Each game is a subclass whose differences from
  the base are data plus a few named hooks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from controller.geometry import Geometry, load_shape

OFF_BOARD = -1


class RulesError(ValueError):
    """Base class of all errors raised by the rules core."""


class PositionError(RulesError):
    """A position text is malformed or describes an impossible position."""


class IllegalMoveError(RulesError):
    """A move is not legal in the position."""


class Piece(NamedTuple):
    owner: int  #: player index: 0 = White, 1 = Black (2 = Red…, by game)
    kind: str  #: the game's piece letter, upper case (``"T"`` for a Tower)
    height: int = 1  #: stones in a Tower, Pawns in a stack


class Move(NamedTuple):
    """A move, with every effect on the board spelt out.

    ``kind`` is one of ``move`` (step, slide, leap or path move), ``split``, ``merge``,
    ``drop`` (from a hand), ``place`` (from the reserve), ``promote`` (in place),
    ``castle``, ``pass`` (its ``captures`` may remove the pieces of a player who is out),
    ``roll`` (a die roll: ``token="die:N"``, no board change).  ``captures`` lists every
    cell whose piece is removed, including the target of an ordinary capture and the
    victims of a bypass.
    """

    kind: str
    origin: int = OFF_BOARD  #: cell left (or OFF_BOARD for drops, placements, passes)
    target: int = OFF_BOARD  #: cell the piece arrives on
    piece: Piece | None = None  #: what stands on ``target`` after the move
    left: Piece | None = None  #: what stays on ``origin`` (split remnant, rest of a stack)
    captures: tuple[int, ...] = ()
    also: tuple[tuple[int, int], ...] = ()  #: further displacements (castling Rook)
    token: str = ""  #: off-board token used with this move (``"cube"``)
    promotion: str = ""  #: kind the piece turns into, when it does

    @property
    def is_capture(self) -> bool:
        return bool(self.captures)


class Outcome(NamedTuple):
    """How a game ended: ``winners`` is empty for a draw."""

    winners: tuple[int, ...]
    reason: str  #: ``checkmate``, ``stalemate``, ``repetition``, ``fifty-move``, …

    @property
    def result(self) -> str:
        if not self.winners:
            return "1/2-1/2"
        if self.winners == (0,):
            return "1-0"
        if self.winners == (1,):
            return "0-1"
        return "winner " + ",".join(str(w) for w in self.winners)


_MISSING = object()


class Position:
    """A mutable game position with exact undo.

    Every change goes through :meth:`put`, :meth:`set_state`, :meth:`add_hand`,
    :meth:`add_reserve` or :meth:`set_token`, which log the old value while a move is
    being made; :meth:`pop` replays the log backwards.  That makes make/undo symmetric
    by construction for every game.
    """

    __slots__ = (
        "game", "geometry", "board", "turn", "hands", "reserves", "tokens", "state",
        "halfmove", "fullmove", "moves", "keys", "_log", "_marks",
    )

    def __init__(self, game: Game, board: list[Piece | None] | None = None, turn: int = 0):
        self.game = game
        self.geometry: Geometry = game.geometry
        self.board: list[Piece | None] = board if board is not None else [None] * len(
            game.geometry.cells)
        self.turn = turn
        self.hands: list[dict[str, int]] = [{} for _ in range(game.players)]
        self.reserves: list[dict[str, int]] = [{} for _ in range(game.players)]
        self.tokens: dict[str, int] = {}
        self.state: dict[str, Any] = {}
        self.halfmove = 0
        self.fullmove = 1
        self.moves: list[Move] = []
        self.keys: list[Any] = []
        self._log: list[tuple] = []
        self._marks: list[tuple] = []

    # -- changes (logged) --------------------------------------------------------------
    def put(self, cell: int, piece: Piece | None) -> None:
        self._log.append((0, cell, self.board[cell]))
        self.board[cell] = piece

    def set_state(self, key: str, value: Any) -> None:
        self._log.append((1, key, self.state.get(key, _MISSING)))
        if value is None:
            self.state.pop(key, None)
        else:
            self.state[key] = value

    def add_hand(self, player: int, kind: str, count: int = 1) -> None:
        hand = self.hands[player]
        old = hand.get(kind, 0)
        self._log.append((2, (player, kind), old))
        if old + count:
            hand[kind] = old + count
        else:
            del hand[kind]

    def add_reserve(self, player: int, kind: str, count: int = 1) -> None:
        res = self.reserves[player]
        old = res.get(kind, 0)
        self._log.append((3, (player, kind), old))
        if old + count:
            res[kind] = old + count
        else:
            del res[kind]

    def set_token(self, name: str, holder: int | None) -> None:
        self._log.append((4, name, self.tokens.get(name, _MISSING)))
        if holder is None:
            self.tokens.pop(name, None)
        else:
            self.tokens[name] = holder

    # -- make / undo -------------------------------------------------------------------
    def push(self, move: Move, record: bool = True) -> None:
        """Make ``move`` (assumed legal).  ``record=False`` skips the repetition key."""
        self._marks.append((len(self._log), self.turn, self.halfmove, self.fullmove, record))
        self.game.make(self, move)
        self.moves.append(move)
        if record:
            self.keys.append(self.game.position_key(self))

    def pop(self) -> Move:
        """Undo the last move and return it."""
        mark, self.turn, self.halfmove, self.fullmove, record = self._marks.pop()
        log = self._log
        board, state = self.board, self.state
        while len(log) > mark:
            what, key, old = log.pop()
            if what == 0:
                board[key] = old
            elif what == 1:
                if old is _MISSING:
                    state.pop(key, None)
                else:
                    state[key] = old
            elif what in (2, 3):
                store = (self.hands if what == 2 else self.reserves)[key[0]]
                if old:
                    store[key[1]] = old
                else:
                    store.pop(key[1], None)
            elif old is _MISSING:
                self.tokens.pop(key, None)
            else:
                self.tokens[key] = old
        if record:
            self.keys.pop()
        return self.moves.pop()

    def copy(self) -> Position:
        """An independent copy of the current position (without the move history)."""
        other = Position(self.game, list(self.board), self.turn)
        other.hands = [dict(h) for h in self.hands]
        other.reserves = [dict(r) for r in self.reserves]
        other.tokens = dict(self.tokens)
        other.state = dict(self.state)
        other.halfmove, other.fullmove = self.halfmove, self.fullmove
        other.keys = [self.game.position_key(other)]
        return other

    def snapshot(self) -> tuple:
        """Everything that defines the position, as a hashable value (for tests)."""
        return (
            tuple(self.board), self.turn, self.halfmove, self.fullmove,
            tuple(tuple(sorted(h.items())) for h in self.hands),
            tuple(tuple(sorted(r.items())) for r in self.reserves),
            tuple(sorted(self.tokens.items())),
            tuple(sorted((k, _hashable(v)) for k, v in self.state.items())),
        )

    # -- convenience -------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        return self.game.legal_moves(self)

    def outcome(self) -> Outcome | None:
        return self.game.outcome(self)

    def text(self) -> str:
        return self.game.position_text(self)

    def occupancy(self) -> tuple[bool, ...]:
        return tuple(p is not None for p in self.board)

    def __repr__(self) -> str:
        return f"<Position {self.game.name} {self.text()!r}>"


def _hashable(v: Any) -> Any:
    if isinstance(v, dict):
        return tuple(sorted((k, _hashable(x)) for k, x in v.items()))
    if isinstance(v, (list, set, frozenset)):
        return tuple(sorted(map(_hashable, v), key=repr))
    return v


class Game:
    """Base class of a game's rules.  Subclasses set the class attributes and hooks."""

    #: registry name (``fairyboard --game NAME``)
    name: str = ""
    #: human-readable title
    title: str = ""
    #: board shape in ``boards/shapes``
    shape: str = "square8"
    #: shown wherever users see the game when its set-up or board is provisional data
    provisional: str = ""
    #: player names, in turn order
    player_names: tuple[str, ...] = ("White", "Black")

    def __init__(self, **options: Any):
        self.geometry = load_shape(self.shape)
        self.options = options
        if options:
            raise RulesError(f"{self.name}: unknown options {', '.join(sorted(options))}")

    @property
    def players(self) -> int:
        return len(self.player_names)

    # -- hooks every game provides -----------------------------------------------------
    def start(self) -> Position:
        """The starting position."""
        raise NotImplementedError

    def legal_moves(self, pos: Position) -> list[Move]:
        raise NotImplementedError

    def make(self, pos: Position, move: Move) -> None:
        """Apply ``move`` through ``pos.put``/``set_state``/…; update ``pos.turn``."""
        raise NotImplementedError

    def position_text(self, pos: Position) -> str:
        raise NotImplementedError

    def parse_position(self, text: str) -> Position:
        raise NotImplementedError

    def move_text(self, pos: Position, move: Move) -> str:
        """The move in the game's notation, in position ``pos`` (before the move)."""
        raise NotImplementedError

    # -- hooks with defaults -----------------------------------------------------------
    def in_check(self, pos: Position, player: int | None = None) -> bool:
        return False

    def outcome(self, pos: Position) -> Outcome | None:
        return None

    def position_key(self, pos: Position) -> Any:
        """What must be equal for two positions to count as a repetition."""
        return (
            tuple(pos.board), pos.turn,
            tuple(tuple(sorted(h.items())) for h in pos.hands),
            tuple(sorted(pos.tokens.items())),
            tuple(sorted((k, _hashable(v)) for k, v in pos.state.items())),
        )

    def render_text(self, pos: Position) -> str:
        return render_cells(self, pos)

    def piece_symbol(self, piece: Piece) -> str:
        """A short text for one piece (used by ``show`` and JSON)."""
        sym = piece.kind if piece.owner == 0 else piece.kind.lower()
        return f"{sym}{piece.height}" if piece.height > 1 else sym

    def ply_mover(self, pos: Position) -> int:
        """The player who makes the next ply (differs from ``turn`` only in special turns)."""
        return pos.turn

    # -- generic services --------------------------------------------------------------
    def parse_move(self, pos: Position, text: str) -> Move:
        """The legal move whose notation (or long form) is ``text``."""
        text = text.strip()
        legal = self.legal_moves(pos)
        for move in legal:
            if self.move_text(pos, move) == text or self.long_move_text(pos, move) == text:
                return move
        raise IllegalMoveError(f"illegal move {text!r} in {self.position_text(pos)}")

    def long_move_text(self, pos: Position, move: Move) -> str:
        return self.move_text(pos, move)

    def perft(self, pos: Position, depth: int) -> int:
        """Number of leaf nodes of the legal move tree (one ply = one move by one player)."""
        if depth == 0:
            return 1
        moves = self.legal_moves(pos)
        if depth == 1:
            return len(moves)
        total = 0
        for move in moves:
            pos.push(move, record=False)
            total += self.perft(pos, depth - 1)
            pos.pop()
        return total

    def move_json(self, pos: Position, move: Move) -> dict[str, Any]:
        cells = self.geometry.cells
        return {
            "from": cells[move.origin] if move.origin >= 0 else None,
            "to": cells[move.target] if move.target >= 0 else None,
            "captured": [cells[c] for c in move.captures],
            "kind": move.kind,
            "promotion": move.promotion or None,
            "notation": self.move_text(pos, move),
        }


# -- helpers for square-board games -------------------------------------------------


def parse_grid_board(
    geometry: Geometry, text: str, parse_piece: Callable[[str, int], tuple[Piece, int]],
) -> list[Piece | None]:
    """Parse FEN-style ranks (top rank first, ``/`` between ranks, digits for empty runs).

    ``parse_piece(text, i)`` reads one piece at ``text[i]`` and returns it with the index
    after it (games with Tower heights read the digits that belong to the piece).
    """
    rows = text.split("/")
    if len(rows) != geometry.ranks:
        raise PositionError(f"expected {geometry.ranks} ranks, got {len(rows)} in {text!r}")
    board: list[Piece | None] = [None] * len(geometry.cells)
    for row_no, row in enumerate(rows):
        rank = geometry.ranks - 1 - row_no
        file = i = 0
        while i < len(row):
            ch = row[i]
            if ch.isdigit():
                j = i
                while j < len(row) and row[j].isdigit():
                    j += 1
                file += int(row[i:j])
                i = j
                continue
            if file >= geometry.files:
                raise PositionError(
                    f"rank {rank + 1} has more than {geometry.files} files: {row!r}")
            piece, i = parse_piece(row, i)
            board[geometry.at(file, rank)] = piece
            file += 1
        if file != geometry.files:
            raise PositionError(
                f"rank {rank + 1} has {file} files instead of {geometry.files}: {row!r}")
    return board


def grid_board_text(
    geometry: Geometry, board: list[Piece | None], symbol: Callable[[Piece], str],
) -> str:
    rows = []
    for rank in range(geometry.ranks - 1, -1, -1):
        row, empty = [], 0
        for file in range(geometry.files):
            p = board[geometry.at(file, rank)]
            if p is None:
                empty += 1
                continue
            if empty:
                row.append(str(empty))
                empty = 0
            row.append(symbol(p))
        if empty:
            row.append(str(empty))
        rows.append("".join(row))
    return "/".join(rows)


def render_grid(game: Game, pos: Position) -> str:
    """A text diagram of a square board, White at the bottom."""
    g = game.geometry
    lines = []
    for rank in range(g.ranks - 1, -1, -1):
        cells = []
        for file in range(g.files):
            p = pos.board[g.at(file, rank)]
            cells.append(f"{game.piece_symbol(p) if p else '.':>3}")
        lines.append(f"{rank + 1:>2} " + "".join(cells))
        if rank in g.rivers:  # rivers are stored 1-based: a River after rank k
            lines.append("   " + "~" * (3 * g.files))
    lines.append("   " + "".join(f"{chr(97 + f):>3}" for f in range(g.files)))
    return "\n".join(lines)


def render_cells(game: Game, pos: Position) -> str:
    """A text listing of an irregular board: one line per occupied cell."""
    g = game.geometry
    parts = [f"{g.cells[c]}={game.piece_symbol(p)}" for c, p in enumerate(pos.board) if p]
    return " ".join(parts) if parts else "(empty board)"


def legal_by_king_safety(
    pos: Position, pseudo: Iterable[Move], is_safe: Callable[[Position, int], bool],
) -> list[Move]:
    """Keep the pseudo-legal moves after which the mover is safe (generic, make/undo)."""
    me = pos.turn
    out = []
    for move in pseudo:
        pos.push(move, record=False)
        if is_safe(pos, me):
            out.append(move)
        pos.pop()
    return out
