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
  the base are data plus a few named hooks.  **Every hook the rest of the product calls
  is declared on** :class:`Game` **with its default** (the board, the reconciler, the page
  and the command line call them plainly, never probe for them);
* a :class:`PlayerView` is what one player may know in a game with hidden information;
* a :class:`GameOption` declares one option of a game (type, range, default, help), so
  bad options are refused with one line before a game is built.

Long module: the one contract every game and every caller shares — the vocabulary, the
``Game`` hooks with their defaults and docstrings, and the helpers for grid games — kept in
one file so that a reader sees the whole contract at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum
from typing import Any, ClassVar, NamedTuple, Protocol

from controller.geometry import Geometry, load_shape

OFF_BOARD = -1


class RulesError(ValueError):
    """Base class of all errors raised by the rules core."""


class PositionError(RulesError):
    """A position text is malformed or describes an impossible position."""


class IllegalMoveError(RulesError):
    """A move is not legal in the position."""


class OptionError(RulesError):
    """A game option is unknown or has a wrong type or value (one line says which)."""


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
    token: str = ""  #: off-board token used with this move (one of ``Game.tokens``)
    promotion: str = ""  #: kind the piece turns into, when it does

    @property
    def is_capture(self) -> bool:
        return bool(self.captures)


class Termination(StrEnum):
    """Why a game ended, in general terms: the reasons the journal and the page see.

    The rules end games with the first group (:meth:`Game.outcome`); a game's own endings
    are a variant win, loss or draw recorded in the game's own words
    (:attr:`Game.endings`: "bare kings", "no castle left"), so a new ending is data on its
    game and never an edit here.  The board and the service end games with the last group
    (a player's or the owner's act)."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    FIFTY_MOVE = "fifty-move"  #: the move rule (:attr:`Game.move_rule` plies, no capture…)
    REPETITION = "repetition"  #: a position occurred :attr:`Game.repetition_count` times
    INSUFFICIENT_MATERIAL = "insufficient-material"  #: no mate possible (FIDE's dead position)
    VARIANT_WIN = "variant win"  #: the winners met a winning condition of their game
    VARIANT_LOSS = "variant loss"  #: the others met a losing condition of their game
    VARIANT_DRAW = "variant draw"  #: a drawing condition of the game
    RESIGNATION = "resignation"
    TIME_FORFEIT = "time forfeit"  #: a clock ran out (:meth:`Game.timeout_outcome`)
    TIMEOUT_DRAW = "timeout vs insufficient material"  #: ran out, but nobody could win
    AGREEMENT = "agreement"
    ABANDONED = "abandoned"


class Outcome(NamedTuple):
    """How a game ended: ``winners`` is empty for a draw."""

    winners: tuple[int, ...]
    reason: str  #: a :class:`Termination`, or the game's own words (:meth:`Game.ended`)

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


class PlayerView(Protocol):
    """What one player may know of a position in a game with hidden information — built by
    :meth:`Game.player_view`; the board's messages and LEDs, the page and the command line
    show a player nothing else (through :mod:`controller.sight`).

    Cells are cell indices of the game's geometry; ``own``/``enemies`` are ``(cell, piece)``
    pairs; ``hands[player]`` is ``((kind, count), …)`` (hands are public)."""

    @property
    def player(self) -> int: ...  # whose view this is
    @property
    def turn(self) -> int: ...  # the side to move
    @property
    def own(self) -> tuple[tuple[int, Piece], ...]: ...
    @property
    def visible(self) -> frozenset[int]: ...  # cells the player sees
    @property
    def enemies(self) -> tuple[tuple[int, Piece], ...]: ...  # enemy pieces on visible cells
    @property
    def hands(self) -> tuple[tuple[tuple[str, int], ...], ...]: ...
    @property
    def in_check(self) -> bool: ...  # the side to move is in check (announced, never by what)
    @property
    def result(self) -> Outcome | None: ...

    def piece_at(self, cell: int) -> Piece | None:
        """The piece the player knows on ``cell`` (None: empty or hidden)."""
        ...

    def targets(self, cell: int) -> frozenset[int]:
        """Where his piece on ``cell`` may go, as far as he can know (a hint)."""
        ...

    def drop_targets(self, kind: str) -> frozenset[int]:
        """Where a ``kind`` from his hand may be dropped, as far as he can know."""
        ...

    def moves(self) -> list[Move]:
        """Every move he may try now (those he cannot know to be illegal)."""
        ...

    def move_text(self, move: Move) -> str:
        """His move as he may be told it before it is made."""
        ...


class GameOption(NamedTuple):
    """One option of a game, declared as data on the game class (:attr:`Game.option_specs`).

    ``kind`` is ``int``, ``bool`` or ``str``; an ``int`` may be bounded by ``low``/``high``;
    ``choices`` lists the only values allowed; ``nullable`` allows ``None`` (and ``off`` /
    ``false``, which mean ``None``: "no budget", "no cap").  ``seed`` style options that take
    a number or a word have ``kind=str`` and ``accepts_int=True``.  An immutable record (a
    named tuple, not a dataclass: ``dataclasses`` costs every command's start more than
    its rules)."""

    name: str
    kind: type
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    low: int | None = None
    high: int | None = None
    nullable: bool = False
    accepts_int: bool = False

    def describe(self) -> str:
        """The allowed values in words, as the error line says them."""
        if self.choices:
            text = "one of " + ", ".join(str(c) for c in self.choices)
        elif self.kind is bool:
            text = "true or false"
        elif self.kind is int:
            if self.low is not None and self.high is not None:
                text = f"a whole number {self.low}..{self.high}"
            elif self.low is not None:
                text = f"a whole number from {self.low} up"
            else:
                text = "a whole number"
        else:
            text = "a number or a word" if self.accepts_int else "a word"
        return text + (" or off" if self.nullable else "")

    def check(self, value: Any) -> Any:
        """``value`` if allowed (``off``/``False`` → ``None`` for a nullable option), else
        :class:`OptionError` with one line naming the option, what it takes and the value."""
        if self.nullable and (value is None or (value is False and self.kind is not bool)):
            return None
        ok = False
        if self.kind is bool:
            ok = isinstance(value, bool)
        elif self.kind is int:
            ok = (isinstance(value, int) and not isinstance(value, bool)
                  and (self.low is None or value >= self.low)
                  and (self.high is None or value <= self.high))
        elif self.kind is str:
            ok = (isinstance(value, str) and 0 < len(value) <= 100) or (
                self.accepts_int and isinstance(value, int) and not isinstance(value, bool))
        if ok and self.choices and value not in self.choices:
            ok = False
        if not ok:
            shown = repr(value) if not isinstance(value, (list, dict)) else repr(value)[:60]
            raise OptionError(f"{self.name} must be {self.describe()}, got {shown}")
        return value

    def json(self) -> dict[str, Any]:
        """The option for the page's new-game form."""
        return {"name": self.name, "type": self.kind.__name__, "default": self.default,
                "help": self.help, "choices": list(self.choices) or None,
                "min": self.low, "max": self.high, "nullable": self.nullable}


class PadNeed(NamedTuple):
    """An off-board pad a game needs on the board (besides the option pads): ``role`` is
    ``token``, ``hand``, ``reserve`` or ``die``; ``owner`` the player (None: shared);
    ``piece`` the piece kind of a hand/reserve pad, the token's name of a token pad."""

    role: str
    owner: int | None = None
    piece: str | None = None


class Token(NamedTuple):
    """An off-board token a game keeps beside the board, held by one player at a time
    (``Position.tokens[name]`` is its holder, ``Move.token`` a move that uses it).

    ``name`` is how positions, moves and a layout's ``token`` pads spell it; ``title`` the
    product's word for it (the printed template, the page, the simulator's box);
    ``holders`` the players who may hold it: each needs a token pad, which the sensors
    see occupied while that player holds it."""

    name: str
    title: str
    holders: tuple[int, ...] = (0, 1)

    def pads(self) -> tuple[PadNeed, ...]:
        """The token pads a board needs for this token (one per holder)."""
        return tuple(PadNeed("token", p, self.name) for p in self.holders)


class LazyTable(dict):
    """A per-cell table whose entries are built on first look (``build(cell)``) and kept.

    A game's move tables cover every cell of its board, but a command or a game looks at
    the cells its pieces stand on: built on demand, a command pays for those only instead
    of the whole board's tables at start-up.  ``table[cell]`` reads it like the tuple it
    stands for (a built entry is a plain dict hit); :attr:`size` is the number of cells,
    ``len`` the entries built so far (which ``tests/test_coldstart.py`` watches)."""

    __slots__ = ("build", "size")

    def __init__(self, size: int, build: Callable[[int], Any]) -> None:
        super().__init__()
        self.size = size
        self.build = build

    def __missing__(self, cell: int) -> Any:
        if cell.__class__ is not int or not 0 <= cell < self.size:
            raise IndexError(f"no cell {cell!r} in a table of {self.size} cells")
        entry = self[cell] = self.build(cell)
        return entry

    def __bool__(self) -> bool:
        return self.size > 0  # as the tuple it stands for, built or not

    def __repr__(self) -> str:
        return f"<LazyTable: {len(self)} of {self.size} cells built>"


class SpecialStep(NamedTuple):
    """The last step of the page's guided first game: the game's own special move.

    ``text`` says what to do and how on the board; a move made counts when it is of
    ``kind`` (if given), promotes to ``promotion`` (if given), captures one of the mover's
    own pieces (``own_capture``) or leaves part of a stack behind (``leaves_part``)."""

    text: str
    kind: str = ""
    promotion: str = ""
    own_capture: bool = False
    leaves_part: bool = False


class Game:
    """Base class of a game's rules.  Subclasses set the class attributes and hooks.

    The contract, in three parts: **class data** (name, shape, players, pads, options,
    hidden information), **rules hooks** every game provides (start, legal moves, make,
    notation, position text) and **hooks with defaults** that a game overrides only when
    it differs (check, game end, hidden information, board prompts).  Callers outside
    ``controller/rules`` call every hook plainly; the defaults say what a game without
    the feature means.
    """

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
    #: off-board pads the game needs on a board (checked when a layout names the game)
    pads: ClassVar[tuple[PadNeed, ...]] = ()
    #: off-board tokens the game keeps beside the board (Lùotuoqí's Cube); the
    #: reconciler, the board, the simulator, the page and the printed template know a
    #: token only from this declaration and the layout's ``token`` pads (none: no tokens)
    tokens: ClassVar[tuple[Token, ...]] = ()
    #: the game's options, as data (:meth:`validate_options` checks against them)
    option_specs: ClassVar[tuple[GameOption, ...]] = ()
    #: players may not see everything: the board, the page and the command line show a
    #: player only his :meth:`player_view` (Lao Tzu's fog of war)
    hidden_information: ClassVar[bool] = False
    #: options whose values would reveal hidden pieces (never sent to a player's page)
    hidden_options: ClassVar[frozenset[str]] = frozenset()
    #: positions are FEN and moves UCI exactly as a UCI chess engine reads them, so an
    #: external engine the owner installs (``[engine] uci_engine``) may play it by default
    uci_chess: ClassVar[bool] = False
    #: piece kinds that appear only by promotion (the box of the simulated board offers
    #: them: Gnu Qi's Wazir)
    promotion_kinds: tuple[str, ...] = ()
    #: the board lights every piece in its owner's colour even with two players (always
    #: with more than two)
    owner_colours: ClassVar[bool] = False
    #: full names of the piece letters ("M": "Mule"), for the page (a piece's name on
    #: hover) and the players' guides; a letter without a name is shown as the letter
    piece_names: ClassVar[Mapping[str, str]] = {}
    #: a stack of ``count`` pieces named ``name`` in spoken words (``controller/speech/``):
    #: "Tower of 3"; a game whose stacks are of several pieces says "stack of 3 Pawns"
    stack_words: ClassVar[str] = "{name} of {count}"
    #: the players' guide (``docs/rules/<guide>.md``) when it is not the game's own name:
    #: a game sharing another's guide (Lotus-39 Modern, a test's variant of chess)
    guide: ClassVar[str] = ""
    #: the guided first game's last step (the page's walkthrough): this game's special
    #: move; None: the walkthrough ends after a capture
    special_step: ClassVar[SpecialStep | None] = None
    #: game end (:meth:`outcome`): plies without progress that draw (None: no such rule)
    move_rule: ClassVar[int | None] = 100
    #: how often one position must occur to draw (None: repetition does not end the game)
    repetition_count: ClassVar[int | None] = 3
    #: the game's own words for some reasons (kept where recorded games and tests use them)
    reason_text: ClassVar[Mapping[Termination, str]] = {}
    #: the game's own endings: its words for each (what the journal and the page show) and
    #: the general kind it is (``{"bare kings": Termination.VARIANT_DRAW}``)
    endings: ClassVar[Mapping[str, Termination]] = {}

    def __init__(self, **options: Any):
        self.geometry = load_shape(self.shape)
        self.options = options
        if options:
            raise RulesError(f"{self.name}: unknown options {', '.join(sorted(options))}")

    @classmethod
    def validate_options(cls, raw: Mapping[str, Any]) -> dict[str, Any]:
        """The options in ``raw`` checked against :attr:`option_specs` (names as given, or
        with ``-`` for ``_``): a new dict, or :class:`OptionError` with one line.  Used by
        :func:`~controller.rules.get_game`, the command line and the page's new-game
        request (JSON), so a bad value never reaches a game or the journal."""
        if not isinstance(raw, Mapping):
            raise OptionError(f"{cls.name}: options must be a table of name = value, "
                              f"got {type(raw).__name__}")
        specs = {spec.name: spec for spec in cls.option_specs}
        unknown = [str(k)[:40] for k in raw if str(k).replace("-", "_") not in specs]
        if unknown:
            raise OptionError(f"game {cls.name!r} has no option {unknown[0]!r} (unknown "
                              f"options: {', '.join(unknown)}; known: "
                              f"{', '.join(specs) or 'none'})")
        return {str(k).replace("-", "_"): specs[str(k).replace("-", "_")].check(v)
                for k, v in raw.items()}

    @property
    def players(self) -> int:
        return len(self.player_names)

    # -- hooks every game provides -----------------------------------------------------
    def start(self) -> Position:
        """The starting position."""
        raise NotImplementedError

    def legal_moves(self, pos: Position) -> list[Move]:
        """Every move the side to move may make — **empty once the game has ended**.

        The contract every caller relies on: on a position reached by play (``push``),
        ``legal_moves(pos)`` is empty exactly where :meth:`outcome` is set, whatever
        ended the game — no move left, the game's own endings (:meth:`special_outcome`),
        the move rule or repetition.  The engine ends a line where it is empty and scores
        it by :meth:`outcome`; the board and the command line offer nothing more.  Games
        do not override it: they list their moves in :meth:`generate_moves` and declare
        their endings in :meth:`special_outcome` (or :meth:`rule_outcome`)."""
        if self.rule_outcome(pos) is not None:
            return []
        return self.generate_moves(pos)

    def generate_moves(self, pos: Position) -> list[Move]:
        """Every move the rules allow the side to move, as if the game were still going
        on (whether it has ended by a rule is :meth:`legal_moves`' question)."""
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
        """Whether and how the game has ended in ``pos`` — the shared template, in this
        order: no legal move (:meth:`no_move_outcome`: checkmate or stalemate), the game's
        own endings (:meth:`special_outcome`), the move rule (:attr:`move_rule`), then
        repetition (:attr:`repetition_count`, over the positions recorded by ``push``).
        A mating move that also completes the move rule stands."""
        if not self.has_legal_move(pos):
            return self.no_move_outcome(pos)
        return self.rule_outcome(pos)

    def rule_outcome(self, pos: Position) -> Outcome | None:
        """The endings that do not wait for the side to move to run out of moves: the
        game's own (:meth:`special_outcome`), the move rule, then repetition.  Where it is
        set :meth:`legal_moves` is empty.  Cheap: :meth:`legal_moves` asks it each time."""
        special = self.special_outcome(pos)
        if special is not None:
            return special
        if self.move_rule is not None and pos.halfmove >= self.move_rule:
            return self.ended((), Termination.FIFTY_MOVE)
        count = self.repetition_count
        if count is None or len(pos.keys) < count:
            return None
        keys = pos.keys
        if self.move_rule is not None and pos.halfmove + 1 < len(keys):
            # only positions since the last capture or Pawn move can repeat
            keys = keys[-(pos.halfmove + 1):]
            if len(keys) < count:
                return None
        if keys.count(_current_key(self, pos)) >= count:
            return self.ended((), Termination.REPETITION)
        return None

    def has_legal_move(self, pos: Position) -> bool:
        """Whether the side to move could still move, whether or not a rule has ended the
        game (for :meth:`outcome`'s mate and stalemate, and a notation's mate mark)."""
        return bool(self.generate_moves(pos))

    def legal_captures(self, pos: Position) -> list[Move] | None:
        """The legal moves that remove a piece of another player than the one to move
        (:meth:`ply_mover`), in :meth:`legal_moves`' order: ``[]`` where the side to move
        has moves but none takes, **None where it has no legal move at all** (where
        :meth:`legal_moves` is empty: the game has ended, :meth:`outcome` says how).

        The engine's quiescence searches these where only mate ends the game
        (``controller/engine/search.py``): the None tells it a stalemate from a quiet
        position without a second listing, and the order matters to it — it sorts them
        by gain with a stable sort, so equal gains are searched in this order and its
        values do not depend on which listing gave the moves.  Default:
        :meth:`legal_moves` filtered, what quiescence did itself before; a game whose quiet
        moves are dear to list gives its own (Lùotuoqí)."""
        moves = self.legal_moves(pos)
        if not moves:
            return None
        board = pos.board
        mover = self.ply_mover(pos)
        return [m for m in moves if m.captures and any(
            board[c] is not None and board[c].owner != mover for c in m.captures)]

    def no_move_outcome(self, pos: Position) -> Outcome:
        """The end when the side to move cannot move: mated when in check (the previous
        player wins), else stalemate (a draw)."""
        if self.in_check(pos):
            return self.ended(((pos.turn - 1) % self.players,), Termination.CHECKMATE)
        return self.ended((), Termination.STALEMATE)

    def special_outcome(self, pos: Position) -> Outcome | None:
        """The game's own endings, checked after checkmate and stalemate and before the
        move rule and repetition (dead material, bare Kings); default none."""
        return None

    def ended(self, winners: tuple[int, ...], reason: Termination | str) -> Outcome:
        """An :class:`Outcome` with the game's words for ``reason``: a :class:`Termination`
        (in :attr:`reason_text`'s words when the game has its own) or one of the game's
        own :attr:`endings`."""
        if not isinstance(reason, Termination) and reason not in self.endings:
            raise RulesError(f"{self.name}: {reason!r} is no Termination and not one of "
                             "the game's endings")
        return Outcome(winners, self.reason_text.get(reason, reason))  # type: ignore[call-overload]

    @classmethod
    def termination(cls, reason: str) -> Termination | None:
        """The general kind of a recorded reason (an own ending's kind, a reason in the
        game's words, or a :class:`Termination`); None for words the game never uses."""
        if reason in cls.endings:
            return cls.endings[reason]
        for kind, words in cls.reason_text.items():
            if words == reason:
                return kind
        try:
            return Termination(reason)
        except ValueError:
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

    def pass_move(self, pos: Position) -> Move | None:
        """A move that only hands the turn to the other player, never legal in play: the
        engine's null-move test ("if I could pass, would I still be winning?") makes it
        inside its search (``controller/engine/search.py``).  None (the default) when the
        game has no such move or passing is no fair test of a position in it (more than
        two players, double moves, drops)."""
        return None

    def cell_attacked(self, pos: Position, cell: int, player: int) -> bool | None:
        """Whether ``player`` could capture a piece of another player standing on ``cell``
        (``player`` need not be to move); None (the default) when the game does not say.
        The engine's quiescence skips a capture of a defended piece by a dearer one."""
        return None

    # -- hooks of the board, the page and the command line (with defaults) --------------
    def check_playable(self, pos: Position) -> None:
        """Raise :class:`PositionError` (one line) when a game cannot be played from
        ``pos`` although its text parses — a royal piece missing.  :meth:`parse_position`
        also accepts such positions for rules studies; the command line and the service
        call this for every position a user gives.  Default: every parsed position is
        playable."""

    @classmethod
    def start_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """The options of a game started on this board (the service's start, the page's
        and the board's new game) from the ones asked for: a game that draws its set-up
        (Lao Tzu's two arrays) adds a fresh draw when none was chosen, so the record
        replays it.  Default: unchanged."""
        return dict(options)

    def piece_name(self, piece: Piece) -> str:
        """The piece's name in the board's prompts ("put a Wazir on e9"); default: its
        symbol.  Called by the board (``controller/board/``) when it asks for a piece."""
        return self.piece_symbol(piece)

    def pgn_variant(self) -> str:
        """The PGN ``Variant`` tag (``controller/pgn.py``): the name chess programs know
        the game by, when they know it; default: the game's title."""
        return self.title

    def can_still_win(self, pos: Position, player: int) -> bool:
        """Whether ``player`` could still win by some series of legal moves; the clock asks
        it when another player's time runs out (:meth:`timeout_outcome`).  Default yes."""
        return True

    def timeout_outcome(self, pos: Position, player: int) -> Outcome:
        """How the game ends when ``player``'s clock runs out (``controller/clock.py``):
        the players still in win — a draw when none of them could still win (FIDE 6.9).
        With 3–4 players the game ends there too and the others share the win."""
        out = set(self.out_players(pos))
        others = tuple(p for p in range(self.players) if p != player and p not in out)
        if not any(self.can_still_win(pos, p) for p in others):
            return self.ended((), Termination.TIMEOUT_DRAW)
        return self.ended(others, Termination.TIME_FORFEIT)

    def out_players(self, pos: Position) -> tuple[int, ...]:
        """Players already out of the game (KaleidoChess with 3–4 players); default none.
        Shown on the page (``controller/web/state.py``)."""
        return ()

    def removal_message(self, pos: Position, moves: Iterable[Move]) -> str:
        """What the board says while pieces are marked to take off for one of ``moves``
        when that is more than a capture (a player knocked out); default: nothing.
        Called by the board while a move is lifted."""
        return ""

    def slide_passes(self, board: list[Piece | None] | tuple[Piece | None, ...], origin: int,
                     target: int, targets: Iterable[int]) -> bool:
        """Whether a piece slid from ``origin`` may only be passing over ``target`` on its
        way to another of its legal ``targets`` (the reconciler then waits before a move to
        ``target`` counts).  Default: ``target`` lies on a straight ray of the geometry
        from ``origin`` with another target beyond it.  Boards whose paths are no straight
        lines override it (KaleidoChess).  Called by ``controller/reconcile.py``."""
        others = set(targets)
        for ray_table in self.geometry.rays.values():
            ray = ray_table[origin]
            if target in ray:
                k = ray.index(target)
                if any(c in others for c in ray[k + 1:]):
                    return True
        return False

    # -- hidden information (defaults: everything is visible) ---------------------------
    def player_view(self, pos: Position, player: int) -> PlayerView | None:
        """What ``player`` may know of ``pos``; ``None`` when the game hides nothing
        (:attr:`hidden_information` is False).  The one way in for every output a player
        sees: :mod:`controller.sight` builds on it."""
        return None

    def view_position(self, pos: Position, player: int) -> Position:
        """What ``player``'s own board holds when each player has a board of his own (a
        linked game with a referee, ``controller/link/referee.py``): his pieces, the enemy
        pieces he sees, what is public; hidden cells empty.  Its :meth:`position_text` is all
        the referee sends him.  Default (nothing hidden): the position itself."""
        return pos

    def parse_view(self, text: str) -> Position:
        """A :meth:`view_position` from its text (on the player's board, which must accept
        a position missing pieces he cannot see).  Default: :meth:`parse_position`."""
        return self.parse_position(text)

    def board_moves(self, pos: Position) -> list[Move]:
        """The moves the side to move may try on the board.  Default: the legal moves;
        with hidden information every move he cannot know to be illegal (the board refuses
        the illegal ones).  Called by the reconciler (``controller/reconcile.py``)."""
        return self.legal_moves(pos)

    def player_move_text(self, pos: Position, move: Move) -> str:
        """A ply as its own player's move list shows it; default the game's notation.
        With hidden information: from his view (the journal keeps :meth:`move_text`).
        Called by the service (``controller/service.py``)."""
        return self.move_text(pos, move)

    def view_text(self, pos: Position, player: int) -> str:
        """``player``'s view as text (``fairyboard view``); a game without hidden
        information has none."""
        raise RulesError(f"game {self.name!r} has no hidden information; use 'show'")

    # -- generic services --------------------------------------------------------------
    def parse_move(self, pos: Position, text: str) -> Move:
        """The legal move whose notation (or long form) is ``text``; also the plain
        from-to forms every game understands (:func:`move_from_cells`)."""
        text = text.strip()
        legal = self.legal_moves(pos)
        for move in legal:
            if self.move_text(pos, move) == text or self.long_move_text(pos, move) == text:
                return move
        found = move_from_cells(self, pos, legal, text)
        if found is not None:
            return found
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


def _current_key(game: Game, pos: Position) -> Any:
    """The repetition key of ``pos`` as it stands: the one ``push`` recorded for it, if the
    last move was recorded (or the position is a fresh :meth:`Position.copy`)."""
    marks = pos._marks
    if (marks[-1][4] if marks else len(pos.keys) == 1):
        return pos.keys[-1]
    return game.position_key(pos)


def move_from_cells(game: Game, pos: Position, legal: Iterable[Move], text: str,
                    ) -> Move | None:
    """The one legal move written as its two cells: ``e2-e4``, ``e2e4``, ``Ng1-f3``,
    ``e2xd3``, ``e7e8q``, ``e7-e8=Q`` (a piece letter in front, ``+``/``#`` and a
    promotion letter are optional; ``-`` means no capture and ``x`` a capture when
    given).  None when no legal move fits; :class:`IllegalMoveError` naming the moves when
    several do (a Tower's split sizes, the same move with the Cube)."""
    body = text.strip().rstrip("+#!?").replace("×", "x")
    promotion = ""
    if "=" in body:
        body, promotion = body.split("=", 1)
    names = {name: i for i, name in enumerate(game.geometry.cells)}
    candidates: list[tuple[int, int, str, str]] = []
    for lead in (body, body[1:] if body[:1].isupper() else None):
        if not lead:
            continue
        for cut in range(1, len(lead)):
            a, rest = lead[:cut], lead[cut:]
            sep = rest[:1] if rest[:1] in ("-", "x") else ""
            b, extra = rest[len(sep):], promotion
            if b not in names and b[:-1] in names and b[-1:].isalpha() and not promotion:
                b, extra = b[:-1], b[-1]
            if a in names and b in names:
                candidates.append((names[a], names[b], sep, extra.upper()))
    found = [m for m in legal if any(
        m.origin == a and m.target == b and (not promo or m.promotion == promo)
        and (sep != "-" or not m.captures) and (sep != "x" or m.captures)
        for (a, b, sep, promo) in candidates)]
    if len(found) > 1:
        raise IllegalMoveError(f"{text.strip()!r} fits several moves: "
                               + ", ".join(game.move_text(pos, m) for m in found))
    return found[0] if found else None


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
