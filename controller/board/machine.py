"""The board's state machine: sensed frames in; :class:`Interaction` values, committed
moves, takebacks and commands out.

The reconciler (``controller/reconcile.py``) says what a frame means relative to the
committed position; this module adds what needs memory and time: the turn's phases, the
spots touched since the board last matched (captures and silent moves depend on it),
open choices and how they are answered from the board, guidance after a stable mismatch,
executing someone else's move, takebacks, the command menu, pause and game over.

The flow is the declarative table :data:`TRANSITIONS` driven by ``transitions``; the
diagram in ``docs/board.md`` is generated from it (:func:`diagram`).  Nothing blocks and
nothing sleeps: time comes from the frames and from :meth:`Board.tick`.  Frames are
expected from the sensing pipeline (debouncer + settle gate); give the gate
:meth:`Board.is_extendable` so that a slide that could go on waits before it commits, and
optionally show the gate's held frame with :meth:`Board.preview` (phase ``settling``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from transitions import Machine

from controller.interaction import PHASES, ChoiceOption, Interaction
from controller.layout import Layout
from controller.reconcile import (
    AMEND,
    CHOOSE,
    COMMIT,
    CONFIRM,
    CUBE,
    IDLE,
    MISMATCH,
    TAKEBACK,
    WAIT,
    Decision,
    FrameLike,
    Key,
    Reconciler,
    bits,
    mask_of,
    next_touched,
)
from controller.rules import get_game
from controller.rules.core import (
    OFF_BOARD,
    Game,
    IllegalMoveError,
    Move,
    Outcome,
    Piece,
    PlayerView,
    Position,
    Termination,
)
from controller.sight import Sight, viewer_spots

# -- the table ------------------------------------------------------------------------

#: states where the player is playing a turn on the board
PLAY = ["turn", "lifted", "settling", "correction", "takeback"]
_ALL_BUT_PAUSED = [s for s in PHASES if s != "paused"]

#: (trigger, source(s), destination, condition or None) — read top to bottom; for one
#: trigger the first row whose condition holds is taken.
TRANSITIONS: list[tuple[str, str | list[str], str, str | None]] = [
    # set-up verification
    ("board_ready", "setup", "game_over", "game_is_over"),
    ("board_ready", "setup", "turn", None),
    # a turn on the board
    ("board_matches", PLAY, "turn", None),
    ("piece_lifted", PLAY, "lifted", None),
    ("move_previewed", PLAY, "settling", None),
    ("move_sensed", PLAY + ["choice", "execute", "game_over"], "game_over", "game_is_over"),
    ("move_sensed", PLAY + ["choice", "execute", "game_over"], "turn", None),
    ("moves_ambiguous", PLAY + ["game_over"], "choice", None),
    ("gesture_sensed", PLAY + ["setup", "execute", "game_over"], "choice", None),
    ("choice_left", "choice", "setup", "not_started"),
    ("choice_left", "choice", "execute", "executing"),
    ("choice_left", "choice", "game_over", "game_is_over"),
    ("choice_left", "choice", "turn", None),
    ("board_wrong", PLAY, "correction", None),
    # takebacks: the board restored to an earlier position
    ("earlier_position", PLAY, "takeback", None),
    ("taken_back", PLAY + ["game_over"], "turn", None),
    # someone else's move shown on the board
    ("move_to_execute", PLAY + ["choice"], "execute", None),
    ("execute_cancelled", "execute", "turn", None),
    # end, restart, pause
    ("game_ended", PLAY + ["choice", "execute"], "game_over", None),
    ("game_reset", _ALL_BUT_PAUSED, "setup", None),
    ("game_reset", "paused", "setup", None),
    ("paused_by_user", _ALL_BUT_PAUSED, "paused", None),
    ("resumed", "paused", "setup", "not_started"),
    ("resumed", "paused", "game_over", "game_is_over"),
    ("resumed", "paused", "execute", "executing"),
    ("resumed", "paused", "turn", None),
]


def diagram(kind: str = "mermaid") -> str:
    """The state diagram generated from :data:`TRANSITIONS` (``mermaid`` or ``dot``).

    The five states of a turn in progress are drawn as one composite state ``playing``;
    a row from every state but ``paused`` starts at the node ``any``."""
    edges: list[tuple[str, str, str]] = []
    for trigger, sources, dest, cond in TRANSITIONS:
        label = trigger + (f" [{cond}]" if cond else "")
        src = [sources] if isinstance(sources, str) else list(sources)
        if set(src) == set(_ALL_BUT_PAUSED):
            src = ["any"]
        elif set(PLAY) <= set(src):
            src = ["playing", *(s for s in src if s not in PLAY)]
        edges.extend((a, dest, label) for a in src)
    if kind == "mermaid":
        lines = ["stateDiagram-v2", "    [*] --> setup",
                 "    state playing {", *(f"        {s}" for s in PLAY), "    }",
                 "    any : any state but paused"]
        lines += [f"    {a} --> {b} : {label}" for a, b, label in edges]
        return "\n".join(lines) + "\n"
    if kind == "dot":
        lines = ["digraph board {", "    rankdir=LR;", "    start [shape=point]; start -> setup;",
                 "    subgraph cluster_playing { label=playing; "
                 + " ".join(f"{s};" for s in PLAY) + " }",
                 '    any [label="any state but paused", shape=box, style=dashed];']
        lines += [f'    {a} -> {b} [label="{label}"];' for a, b, label in edges]
        return "\n".join(lines) + "\n}\n"
    raise ValueError(f"unknown diagram kind {kind!r} (mermaid, dot)")


# -- settings and commands ------------------------------------------------------------


@dataclass(frozen=True)
class BoardOptions:
    """How the board behaves (the service fills these from its configuration)."""

    #: honour takeback requests (the board restored to an earlier position)
    takeback: bool = True
    #: stable mismatch for this long starts guidance one piece at a time (seconds)
    guide_delay: float = 3.0
    #: both Kings held off the board this long open the command menu (seconds)
    command_hold: float = 1.0
    #: the board must show an earlier position this long before the takeback is made
    #: (a piece knocked off and put back at once takes nothing back) (seconds)
    takeback_delay: float = 1.5
    #: where choices are answered: "pads" (option pads), "cells" (a tap on a cell) or
    #: "auto" (pads when the layout has two or more option pads)
    answer_on: str = "auto"

    def __post_init__(self) -> None:
        if self.answer_on not in ("auto", "pads", "cells"):
            raise ValueError(f"answer_on must be auto, pads or cells, got {self.answer_on!r}")
        if min(self.guide_delay, self.command_hold, self.takeback_delay) < 0:
            raise ValueError("guide_delay, command_hold and takeback_delay must not be negative")


#: commands of the menu (option pads, or both Kings lifted on a board without pads)
OFFER_DRAW, ACCEPT_DRAW, RESIGN, NEW_GAME, NEXT_GAME = (
    "offer draw", "accept draw", "resign", "new game", "next game")
MORE = "more…"
#: the royal piece whose check the board shows and whose lifting opens the command menu
ROYAL = "K"
#: the only answer to a move that is illegal for reasons the player cannot see (Lao Tzu)
ILLEGAL_MOVE = "illegal move"


@dataclass
class _Choice:
    """An open question: its options and the sensed state the board keeps meanwhile."""

    kind: str  # moves | confirm | amend | menu
    labels: list[str]
    values: list[Any]  # a Move, or a command name
    keys: set[Key]  # board states that keep the choice open
    targets: frozenset[int] = frozenset()
    page: int = 0
    steady: Key | None = None  # the last board state among ``keys``
    touched: int = 0  # cells seen empty (a confirm choice grows with the gesture)
    amends: tuple = ()  # options that replace the last move instead of following it
    tapping: int | None = None  # a spot lifted (or touched) since the steady state


@dataclass
class _Listeners:
    interaction: list[Callable[[Interaction], None]] = field(default_factory=list)
    move: list[Callable[[Move], None]] = field(default_factory=list)
    takeback: list[Callable[[list[Move]], None]] = field(default_factory=list)
    command: list[Callable[[str, int | None], None]] = field(default_factory=list)
    game_over: list[Callable[[Outcome], None]] = field(default_factory=list)


class Board:
    """One physical board playing one game (see the module docstring).

    Callbacks: ``on_interaction(Interaction)`` after every visible change,
    ``on_move(Move)`` for each committed move (already pushed on :attr:`position`),
    ``on_takeback(moves)`` (undone moves, last first), ``on_command(name, player)``
    (new game, resign, draw…), ``on_game_over(Outcome)``."""

    def __init__(self, game: Game, layout: Layout, position: Position | None = None,
                 options: BoardOptions | None = None, *, games: Sequence[str] | None = None,
                 on_interaction: Callable[[Interaction], None] | None = None,
                 on_move: Callable[[Move], None] | None = None,
                 on_takeback: Callable[[list[Move]], None] | None = None,
                 on_command: Callable[[str, int | None], None] | None = None,
                 on_game_over: Callable[[Outcome], None] | None = None):
        self.game = game
        self.layout = layout
        #: the Cube's pads: a Cube handed over leaves its pad empty, but it is no piece
        #: off the board (it never arrives on a cell)
        self._token_pads = sum(1 << layout.spot_index(s.name) for s in layout.pads("cube"))
        self.options = options or BoardOptions()
        self.games = list(games) if games is not None else [game.name]
        if game.name not in self.games:
            self.games.insert(0, game.name)
        self.listeners = _Listeners()
        for kind, fn in (("interaction", on_interaction), ("move", on_move),
                         ("takeback", on_takeback), ("command", on_command),
                         ("game_over", on_game_over)):
            if fn is not None:
                getattr(self.listeners, kind).append(fn)
        self.reconciler = Reconciler(game, layout, position)
        self.view = self.reconciler.view
        pads = len(self.view.option_pads)
        self.answer_on = (self.options.answer_on if self.options.answer_on != "auto"
                          else "pads" if pads >= 2 else "cells")
        if self.answer_on == "pads" and pads < 2:
            raise ValueError(f"layout {layout.name} has {pads} option pads; answers on pads "
                             "need two or more")
        self.machine = Machine(
            model=self, states=list(PHASES), initial="setup", auto_transitions=False,
            transitions=[{"trigger": t, "source": s, "dest": d,
                          **({"conditions": c} if c else {})} for t, s, d, c in TRANSITIONS])
        self.now = 0.0
        self._frame: FrameLike | None = None
        self._key: Key | None = None
        self._signature: tuple | None = None
        self._pads_on: frozenset[int] = frozenset()
        self._decision: Decision | None = None
        self._pending: Decision | None = None
        self._touched = 0
        self._lifted = 0
        self._sensed: int | None = None  # tracked spots occupied in the last frame
        self._landed = 0  # where pieces were put down during this attempt (a mask)
        self._arrivals: dict[int, int] = {}  # cell refilled -> pieces off the board then
        self._choice: _Choice | None = None
        self._execute: Move | None = None
        self._started = False
        self._outcome: Outcome | None = None
        self._wrong_key: Key | None = None
        self._wrong_since: float | None = None
        self._guiding = False
        self._royal_since: float | None = None
        self._takeback_since: tuple[int, float] | None = None  # (plies, since)
        self._exchange: int | None = None  # a piece to swap on this cell (Pawn -> Wazir)
        self._placed_first: dict[int, int] = {}  # spot put down -> what was lifted then
        self._draw_offer: int | None = None
        #: while an amend's takeback and move callbacks run: the move being replaced (the
        #: journal writes the replacement as one record)
        self.replacing: Move | None = None
        self._message = ""
        self._fog_cache: tuple[Any, Sight] | None = None
        self._published: Interaction | None = None
        self._publish()

    # -- subscriptions ---------------------------------------------------------------
    def subscribe(self, kind: str, fn: Callable) -> None:
        """Add a listener: ``interaction``, ``move``, ``takeback``, ``command``, ``game_over``."""
        if not hasattr(self.listeners, kind):
            raise ValueError(f"unknown event {kind!r}")
        getattr(self.listeners, kind).append(fn)

    # -- state -----------------------------------------------------------------------
    @property
    def position(self) -> Position:
        """The committed position (the truth; the board is evidence)."""
        return self.reconciler.pos

    @property
    def interaction(self) -> Interaction:
        assert self._published is not None
        return self._published

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    # conditions of the table
    def game_is_over(self) -> bool:
        return self._outcome is not None

    def not_started(self) -> bool:
        return not self._started

    def executing(self) -> bool:
        return self._execute is not None

    # -- input -----------------------------------------------------------------------
    def is_extendable(self, frame: FrameLike) -> bool:
        """For the settle gate: hold this frame, a slide or takeback that may go on?"""
        if self.state not in (*PLAY, "choice", "execute"):
            return False
        key = self.view.key(frame)
        if key == self._key or (self._choice is not None and key in self._choice.keys):
            return False  # only a pad changed, or a tap ended: nothing on the board goes on
        rec = self.reconciler
        return rec.is_extendable(frame, next_touched(self._touched, self._lifted,
                                                     rec.lifted(frame)))

    def preview(self, frame: FrameLike) -> None:
        """Show a frame the settle gate is still holding (phase ``settling``)."""
        if self.state not in PLAY:
            return
        d = self.reconciler.decide(frame, self._touched)
        if d.kind in (COMMIT, CHOOSE) and d.extendable:
            self._pending = d
            self.move_previewed()
            self._publish()
            if d.kind == COMMIT and self.reconciler.is_legal(d.moves[0]):
                self.reconciler.preview(d.moves[0])  # the hold builds the next index

    def feed(self, frame: FrameLike) -> None:
        """Consume one (debounced, settled) frame."""
        self.tick(frame.time)
        view = self.view
        command = view.option_pads + ((view.die_pad,) if view.die_pad is not None else ())
        pads_now = frozenset(p for p in command if frame.occupied[p])
        pads_on = pads_now - self._pads_on
        self._pads_on = pads_now
        die = view.die_pad is not None and view.die_pad in pads_on
        pads_on -= {view.die_pad}
        key = self.view.key(frame)
        signature = (key, frame.stack, frame.polarity)
        changed = signature != self._signature
        self._frame, self._key, self._signature = frame, key, signature
        if self.state == "paused" or (not changed and not pads_on and not die):
            return
        self._pending = None
        if die and self.state in PLAY and self._offer_roll():
            self._publish()
            return
        if pads_on and self.state != "choice" and self.answer_on == "pads":
            self._open_menu()
            self._publish()
            return
        if self.state == "choice":
            self._choice_frame(frame, pads_on)
        elif self.state == "setup":
            self._setup_frame(frame)
        elif self.state == "execute":
            self._execute_frame(frame)
        elif self.state == "game_over":
            self._over_frame(frame)
        else:
            self._play_frame(frame)
        self._publish()

    def tick(self, now: float) -> None:
        """Let time pass (guidance after a stable mismatch, the command gesture)."""
        if now < self.now:
            return
        self.now = now
        if self.state == "paused":
            return
        dirty = False
        if (self._wrong_since is not None and not self._guiding
                and now - self._wrong_since >= self.options.guide_delay):
            self._guiding = True
            dirty = True
        if (self._royal_since is not None and self.state != "choice"
                and now - self._royal_since >= self.options.command_hold):
            self._royal_since = None
            self._open_menu(royal=True)
            dirty = True
        if (self._takeback_since is not None and self.state in (*PLAY, "game_over")
                and now - self._takeback_since[1] >= self.options.takeback_delay):
            plies = self._takeback_since[0]
            self._takeback_since = None
            self._take_back(plies)
            dirty = True
        if dirty:
            self._publish()

    # -- answers and commands from the web page ------------------------------------------
    def answer_choice(self, index: int) -> None:
        """Answer the open choice with option ``index`` (of all options, not a page)."""
        c = self._choice
        if self.state != "choice" or c is None:
            raise ValueError("no choice is open")
        if not 0 <= index < len(c.values):
            raise ValueError(f"option {index} out of range 0..{len(c.values) - 1}")
        self._answer(index)
        self._publish()

    def execute(self, move: Move) -> None:
        """Show ``move`` (the opponent's or the computer's) and wait until the board shows
        it done; any other legal move made meanwhile is not accepted."""
        if move not in self.reconciler.index.moves or not self.reconciler.is_legal(move):
            raise IllegalMoveError(f"cannot execute {move!r}: not legal in "
                                   f"{self.game.position_text(self.position)}")
        if (self.state not in PLAY and self.state != "choice") or not self._started:
            raise ValueError(f"cannot execute a move while {self.state}")
        self._choice = None
        self._execute = move
        self.move_to_execute()
        e = self._effect(move)
        if e is not None and e.key == self.reconciler.index.expected and not e.gesture:
            self._commit(move)  # nothing to do on the board (a pass, a die roll)
        elif self._frame is not None:
            self._execute_frame(self._frame)
        self._publish()

    def cancel_execute(self) -> None:
        """Stop waiting for the move shown (the engine withdrew it)."""
        if self.state == "execute":
            self._execute = None
            self.execute_cancelled()
            self._replay()

    def pause(self) -> None:
        """Stop reacting to the board (frames are remembered, not acted on)."""
        if self.state != "paused":
            self.paused_by_user()
            self._publish()

    def resume(self) -> None:
        """React again: the board as it is now is decided afresh."""
        if self.state == "paused":
            self.resumed()
            self._replay()

    def new_game(self, game: str | Game | None = None, position: Position | None = None) -> None:
        """Start over (optionally another game or a saved position): set-up verification."""
        if isinstance(game, str):
            game = get_game(game)
        if game is not None and game is not self.game:
            if game.geometry.name != self.layout.geometry.name:
                raise ValueError(f"{game.name} is not played on layout {self.layout.name}")
            self.game = game
            if game.name not in self.games:
                self.games.append(game.name)
        self.reconciler = Reconciler(self.game, self.layout,
                                     position if position is not None else self.game.start())
        self.view = self.reconciler.view
        self._started = False
        self._outcome = None
        self._execute = None
        self._choice = None
        self._draw_offer = None
        self._exchange = None
        self._clear_attempt()
        self.game_reset()
        self._replay()

    def load(self, position: Position) -> None:
        """Resume a saved game: it starts when the board matches ``position``."""
        self.new_game(position.game, position)

    def _in_game(self, what: str) -> None:
        if not self._started or self._outcome is not None or self.state == "paused":
            raise ValueError(f"cannot {what}: no game in progress ({self.state})")

    def resign(self, player: int | None = None) -> None:
        """``player`` (default: the player to move) resigns; the others win."""
        self._in_game("resign")
        player = self._mover() if player is None else player
        others = tuple(p for p in range(self.game.players) if p != player)
        self._emit_command(RESIGN, player)
        self._end(Outcome(others, Termination.RESIGNATION))

    def offer_draw(self, player: int | None = None) -> None:
        """The offer stands until the other player has moved."""
        self._in_game("offer a draw")
        player = self._mover() if player is None else player
        self._draw_offer = player
        self._message = f"{self.game.player_names[player]} offers a draw"
        self._emit_command(OFFER_DRAW, player)
        self._publish()

    def accept_draw(self, player: int | None = None) -> None:
        self._in_game("accept a draw")
        player = self._mover() if player is None else player
        if self._draw_offer is None or self._draw_offer == player:
            raise ValueError("no draw offer to accept")
        self._emit_command(ACCEPT_DRAW, player)
        self._end(Outcome((), Termination.AGREEMENT))

    def next_game(self) -> None:
        """The next game of :attr:`games` (the layout's games), from its set-up."""
        names = self.games
        name = names[(names.index(self.game.name) + 1) % len(names)]
        self._emit_command(NEXT_GAME, None)
        self.new_game(name)

    # -- frames per state --------------------------------------------------------------
    def _setup_frame(self, frame: FrameLike) -> None:
        idx = self.reconciler.index
        key = self.view.key(frame)
        if key == idx.expected and idx.unchanged_fits(idx.emask, frame):
            self._started = True
            self._clear_attempt()
            self.board_ready()
            self._message = ""
            self._offer_silent_turn()
            return
        self._note_wrong(key)
        self._watch_command_gesture(frame)

    def _track(self, frame: FrameLike) -> None:
        lifted = self.reconciler.lifted(frame)
        sensed = mask_of(self.view.key(frame))
        put = sensed & ~self._sensed if self._sensed is not None else 0
        self._sensed = sensed
        # a cell seen empty and filled again while other pieces are off the board: the
        # mover arriving on a capture.  It stays seen empty while one of those pieces
        # stays off (the victims of an elimination taken off afterwards are new lifts),
        # and is forgotten when they are all back (it was a tap, not an arrival)
        for c in bits(put & self._touched):
            support = self._lifted & ~(1 << c) & ~self._token_pads
            if support:
                self._arrivals[c] = support
        kept = 0
        for c, support in list(self._arrivals.items()):
            if support & lifted:
                kept |= 1 << c
            else:
                del self._arrivals[c]
                if not self._split_onto(c, support):
                    self._touched &= ~(1 << c) | lifted
        self._touched = next_touched(self._touched, self._lifted, lifted) | (
            self._touched & kept)
        self._lifted = lifted
        if put:  # something put down: earlier puts whose spot is empty again are forgotten
            self._landed = (self._landed & sensed) | put

    def _play_frame(self, frame: FrameLike) -> None:
        self._track(frame)
        d = self.reconciler.decide(frame, self._touched, self._landed)
        self._decision = d
        self._touched = d.touched
        self._message = ""
        lifted = self._lifted
        self._placed_first = {c: self._placed_first.get(c, lifted) for c in d.placed}
        if d.kind != MISMATCH:
            self._royal_since = None
        if d.kind not in (WAIT, TAKEBACK):
            self._takeback_since = None
        if (self._exchange is not None and d.kind in (WAIT, MISMATCH)
                and d.lifted == {self._exchange} and not d.placed):
            # the piece to exchange is off its cell: expected, not a move nor a mistake
            self._wrong_since = self._wrong_key = None
            self._guiding = False
            self.board_matches()
            return
        if d.kind == IDLE:
            if self._exchange is not None and d.touched >> self._exchange & 1:
                self._exchange = None  # the exchanged piece is back
            self._clear_attempt()
            self.board_matches()
            self._offer_silent_turn()
        elif d.kind == CONFIRM:
            key = self.view.key(frame)
            if key == self.reconciler.index.expected:
                self._clear_attempt()
            self._open_choice("confirm", list(d.moves), {key}, d.targets, touched=d.touched)
        elif d.kind == COMMIT:
            self._commit(d.moves[0])
        elif d.kind == CHOOSE:
            self._open_choice("moves", list(d.moves), {self.view.key(frame)}, d.targets,
                              touched=d.touched, amends=d.amends)
        elif d.kind == AMEND:
            if len(d.moves) == 1:
                self._commit(d.moves[0], amend=True)
            else:
                self._open_choice("amend", list(d.moves), {self.view.key(frame)}, d.targets,
                                  touched=d.touched)
        elif d.kind == TAKEBACK:
            if self.options.takeback:
                self._message = f"taking back {d.plies} move{'s' if d.plies > 1 else ''}"
                if self._takeback_since is None or self._takeback_since[0] != d.plies:
                    self._takeback_since = (d.plies, self.now)
            else:
                self._message = "take-backs are off: restore the position"
                self._note_wrong(self.view.key(frame))
            self.earlier_position()
        elif d.kind == WAIT:
            self._wrong_since = self._wrong_key = None
            self._guiding = False
            if d.plies and self.options.takeback:
                if self._takeback_since is None or self._takeback_since[0] != d.plies:
                    self._takeback_since = (d.plies, self.now)
            else:
                self._takeback_since = None
            self.piece_lifted()
        else:
            self._note_wrong(self.view.key(frame))
            self.board_wrong()
            self._watch_command_gesture(frame)

    def _execute_frame(self, frame: FrameLike) -> None:
        move = self._execute
        assert move is not None
        rec = self.reconciler
        self._track(frame)
        if rec.explains(frame, move, self._touched):
            self._commit(move)
            return
        d = rec.decide(frame, self._touched)
        self._decision = d
        self._touched = d.touched  # kept on IDLE too: a silent move needs its gesture
        if d.kind == TAKEBACK and self.options.takeback:
            self._execute = None
            self.execute_cancelled()
            self._play_frame(frame)
            return
        if d.kind in (COMMIT, CHOOSE) and move not in d.moves:
            self._message = "that is not the move to execute"
        else:
            self._message = ""

    def _over_frame(self, frame: FrameLike) -> None:
        self._track(frame)
        d = self.reconciler.decide(frame, self._touched)
        self._decision = d
        self._touched = d.touched
        if d.kind == TAKEBACK and self.options.takeback:
            if self._takeback_since is None or self._takeback_since[0] != d.plies:
                self._takeback_since = (d.plies, self.now)
        elif d.kind == AMEND and len(d.moves) == 1:
            self._commit(d.moves[0], amend=True)
        elif d.kind == IDLE:
            self._touched = 0
        else:
            self._watch_command_gesture(frame)
        if d.kind != TAKEBACK:
            self._takeback_since = None

    def _choice_frame(self, frame: FrameLike, pads_on: frozenset[int]) -> None:
        c = self._choice
        assert c is not None
        if self.answer_on == "pads":
            for pad in sorted(pads_on):
                index = self._option_at(pad)
                if index is not None:
                    self._answer(index)
                    return
        key = self.view.key(frame)
        if key in c.keys:
            tapped = c.tapping
            c.tapping = None
            if tapped is not None and key == c.steady:
                if self.answer_on == "cells":
                    index = self._option_at(tapped)
                    if index is not None:
                        self._answer(index)
                        return
                if c.kind != "menu" and tapped in self.view.slot_of:
                    # another cell lifted and put back is a new gesture (the target of a
                    # merge or of a silent move tapped): ask again if other moves fit it
                    gesture = 1 << self.view.slot_of[tapped]
                    d = self.reconciler.decide(frame, gesture)
                    if d.kind in (CONFIRM, CHOOSE, AMEND) and set(d.moves) != set(c.values):
                        kind = {CONFIRM: "confirm", CHOOSE: "moves", AMEND: "amend"}[d.kind]
                        self._choice = None
                        self.choice_left()
                        self._touched = gesture
                        self._open_choice(kind, list(d.moves), set(c.keys), d.targets,
                                          touched=gesture, amends=d.amends)
                        return
            c.steady = key
            return
        if c.steady is not None:
            steady = mask_of(c.steady)
            lifted = steady & ~mask_of(key)
            if lifted and lifted & (lifted - 1) == 0 and mask_of(key) & ~steady == 0:
                # one piece lifted: a tap under way, or a piece taken to touch a pad
                c.tapping = self.view.tracked[lifted.bit_length() - 1]
                return
        # the board moved on: the choice is dropped and the picture decided afresh — but
        # a silent move confirmed by handing over the Cube keeps its gesture
        keep = 0
        if c.kind == "confirm":
            d = self.reconciler.decide(frame, c.touched)
            plain = {m._replace(token="") for m in c.values if isinstance(m, Move)}
            if d.kind in (COMMIT, CHOOSE, CONFIRM) and any(m._replace(token="") in plain
                                                           for m in d.moves):
                keep = c.touched
        self._choice = None
        self.choice_left()
        self._touched = keep
        self._lifted = self.reconciler.lifted(self._frame) if keep else 0
        self._replay()

    # -- choices -----------------------------------------------------------------------
    def _open_choice(self, kind: str, values: list[Any], keys: set[Key],
                     targets: frozenset[int] = frozenset(), touched: int = 0,
                     amends: tuple = ()) -> None:
        if kind == "menu":
            labels = [str(v) for v in values]
        elif kind == "amend":
            labels = [self._prev_move_text(m) for m in values]
        else:
            labels = [self._prev_move_text(m) if m in amends
                      else self._label(self.position, m) for m in values]
        steady = self._key if self._key in keys else next(iter(keys))
        self._choice = _Choice(kind, labels, values, set(keys), targets, steady=steady,
                               touched=touched, amends=tuple(amends))
        self._wrong_since = self._wrong_key = None
        self._guiding = False
        if kind in ("menu", "confirm"):
            self.gesture_sensed()
        else:
            self.moves_ambiguous()

    def _open_menu(self, royal: bool = False) -> None:
        if self.state == "choice" or self.state == "paused":
            return
        items: list[str] = []
        if not self._started:
            items = [NEXT_GAME]
        elif self._outcome is not None:
            items = [NEW_GAME, NEXT_GAME]
        else:
            mover = self._mover()
            if self._draw_offer is not None and self._draw_offer != mover:
                items.append(ACCEPT_DRAW)
            else:
                items.append(OFFER_DRAW)
            items += [RESIGN, NEW_GAME]
        expected = self.reconciler.index.expected
        keys = {expected}
        if self._key is not None:
            keys.add(self._key)
        if royal:  # the Kings go back one by one while the menu stays open
            for cell in self._royal_cells():
                for key in list(keys):
                    keys.add(key[:cell] + (False,) + key[cell + 1:])
        self._open_choice("menu", items, keys)

    def _pages(self) -> list[list[int | None]]:
        """Option indices per page of option pads; None marks the "more…" pad."""
        c = self._choice
        assert c is not None
        n = len(c.values)
        if self.answer_on == "cells":
            return [list(range(n))]
        per = len(self.view.option_pads)
        if n <= per:
            return [list(range(n))]
        per -= 1
        return [[*range(k, min(k + per, n)), None] for k in range(0, n, per)]

    def _answer_spots(self) -> list[int]:
        """Option pads; or, without pads, the occupied cells counted from the mover's
        left-hand corner (a tap there = lift the piece and put it back)."""
        if self.answer_on == "pads":
            return list(self.view.option_pads)
        c = self._choice
        key = c.steady if c is not None and c.steady is not None else self._key
        n = self.view.n_cells
        order = range(n) if self._mover() % 2 == 0 else range(n - 1, -1, -1)
        fog = self._fog()  # hidden information: only his own pieces, never a hidden cell
        own = None if fog is None else {c for c, _ in fog.own}
        return [cell for cell in order if (key is None or key[cell])
                and (own is None or cell in own)]

    def _option_at(self, spot: int) -> int | None:
        """Which option (index, or -1 for "more…") the spot answers on the current page."""
        c = self._choice
        assert c is not None
        page = self._pages()[c.page % len(self._pages())]
        spots = self._answer_spots()
        if spot not in spots:
            return None
        k = spots.index(spot)
        if k >= len(page):
            return None
        index = page[k]
        return -1 if index is None else index

    def _answer(self, index: int) -> None:
        c = self._choice
        assert c is not None
        if index == -1:
            c.page += 1
            return
        value = c.values[index]
        self._choice = None
        if c.kind == "menu":
            self.choice_left()
            self._command(value)
            return
        self._commit(value, amend=c.kind == "amend" or value in c.amends)

    def _command(self, name: str) -> None:
        if name == RESIGN:
            self.resign()
        elif name == OFFER_DRAW:
            self.offer_draw()
            self._replay()
        elif name == ACCEPT_DRAW:
            self.accept_draw()
        elif name == NEW_GAME:
            self._emit_command(NEW_GAME, None)
            self.new_game()
        elif name == NEXT_GAME:
            self.next_game()

    def _offer_roll(self) -> bool:
        """The die pad touched: ask for the face when a roll is due (a physical die)."""
        idx = self.reconciler.index
        rolls = [m for m, e in zip(idx.moves, idx.effects, strict=True)
                 if e.key == idx.expected and not e.gesture]
        if not rolls:
            return False
        self._open_choice("confirm", rolls, {idx.expected, self._key or idx.expected})
        return True

    def _offer_silent_turn(self) -> None:
        """When every legal move changes nothing on the board (a die roll, a forced pass,
        only promotions), ask at once: a forced pass is made without asking."""
        idx = self.reconciler.index
        if self.state != "turn" or not idx.all_silent:
            return
        if len(idx.moves) == 1 and idx.moves[0].kind == "pass":
            self._commit(idx.moves[0])
            return
        self._open_choice("confirm", list(idx.moves), {idx.expected})

    # -- effects -----------------------------------------------------------------------
    def _commit(self, move: Move, amend: bool = False) -> None:
        rec = self.reconciler
        if not rec.is_legal(move, amend):
            self._refuse()
            return
        mover = self._mover()
        self.replacing = None  # never stale from a callback that raised
        if amend:
            old = rec.amend(move)
            self.replacing = old
            for fn in self.listeners.takeback:
                fn([old])
        before = self.position.board[move.origin] if move.origin >= 0 and not amend else None
        if not amend:
            rec.commit(move)
        if self._draw_offer is not None and self._draw_offer != mover:
            self._draw_offer = None
        self._execute = None
        self._choice = None
        # a piece that changes kind as it moves (Gnu Qi's Pawn -> Wazir) is swapped on its
        # target: that lift is expected, not a mistake, and asked for until done — unless
        # the new piece stood on the target while the old one was still on its origin
        early = self._placed_first.get(move.target)
        swapped_first = early is not None and move.origin >= 0 and not early >> move.origin & 1
        self._clear_attempt()
        self._exchange = (move.target if before is not None and move.piece is not None
                          and move.kind != "promote" and before.kind != move.piece.kind
                          and not swapped_first else None)
        self._outcome = self.game.outcome(self.position)
        for fn in self.listeners.move:
            fn(move)
        self.replacing = None
        self.move_sensed()
        if self._outcome is not None:
            for fn in self.listeners.game_over:
                fn(self._outcome)
        else:
            self._offer_silent_turn()

    def _refuse(self) -> None:
        """A move the player tried that a piece he cannot see makes illegal (hidden
        information): refused with "illegal move" and nothing else; the board shows what to
        put back, as for any mismatch."""
        self._choice = None
        if self.state == "choice":
            self.choice_left()
        self._message = ILLEGAL_MOVE
        if self.state in PLAY:
            if self._key is not None:
                self._note_wrong(self._key)
            self.board_wrong()

    def _take_back(self, plies: int) -> None:
        self.replacing = None  # a real takeback, never an amend's
        undone = self.reconciler.takeback(plies)
        self._outcome = None
        self._execute = None
        self._choice = None
        self._exchange = None
        self._clear_attempt()
        for fn in self.listeners.takeback:
            fn(undone)
        self.taken_back()
        self._offer_silent_turn()

    def _end(self, outcome: Outcome) -> None:
        self._outcome = outcome
        self._choice = None
        self._execute = None
        if self.state != "game_over":
            self.game_ended()
        for fn in self.listeners.game_over:
            fn(outcome)
        self._publish()

    def _emit_command(self, name: str, player: int | None) -> None:
        for fn in self.listeners.command:
            fn(name, player)

    # -- helpers -----------------------------------------------------------------------
    def _mover(self) -> int:
        return self.game.ply_mover(self.position)

    def _replay(self) -> None:
        """Decide the last frame again in the current state (after a change of state)."""
        frame = self._frame
        if frame is not None and self.state != "paused":
            self._key = self._signature = None
            self.feed(frame)
        else:
            self._publish()

    def _clear_attempt(self) -> None:
        self._touched = 0
        self._lifted = 0
        self._landed = 0
        self._arrivals = {}
        self._placed_first = {}
        self._decision = None
        self._pending = None
        self._wrong_since = self._wrong_key = None
        self._guiding = False
        self._royal_since = None
        self._takeback_since = None

    def _note_wrong(self, key: Key) -> None:
        if key != self._wrong_key:
            self._wrong_key = key
            if not self._guiding:
                self._wrong_since = self.now

    def _royal_cells(self, player: int | None = None) -> list[int]:
        board = self.reconciler.index.board
        return [c for c, p in enumerate(board) if p is not None and p.kind == ROYAL
                and (player is None or p.owner == player)]

    def _watch_command_gesture(self, frame: FrameLike) -> None:
        """Both Kings off the board and nothing else changed: the command menu opens
        after :attr:`BoardOptions.command_hold` seconds (boards without option pads)."""
        royal = self._royal_cells()
        if len({self.reconciler.index.board[c].owner for c in royal}) < 2:  # type: ignore[union-attr]
            self._royal_since = None
            return
        missing, extra = self.reconciler.deviation(frame)
        if not extra and missing == set(royal):
            if self._royal_since is None:
                self._royal_since = self.now
        else:
            self._royal_since = None

    def _split_onto(self, cell: int, support: int) -> bool:
        """Whether part of a stack (a Tower, a Pawn stack) on a ``support`` cell may land on
        ``cell``: a whole stack lifted, a part put on ``cell``, the rest put back is an
        arrival there, not a tap (the source looks "back" but holds less)."""
        return any(m.target == cell and m.left is not None and m.origin >= 0
                   and support >> m.origin & 1 for m in self.reconciler.index.moves)

    def _effect(self, move: Move):
        idx = self.reconciler.index
        try:
            return idx.effects[idx.moves.index(move)]
        except ValueError:
            return None

    def _prev_move_text(self, move: Move) -> str:
        pos = self.position
        last = pos.pop()
        try:
            return self._label(pos, move)
        finally:
            pos.push(last)

    def _label(self, pos: Position, move: Move) -> str:
        """A move of ``pos`` as its player may be told it (:meth:`Sight.move_text`)."""
        if not self.game.hidden_information:
            return self.game.move_text(pos, move)
        return Sight(self.game, pos).move_text(pos, move)

    def _sight(self) -> Sight:
        """What the player the board serves (the side to move) may see: built once per
        committed position."""
        idx = self.reconciler.index
        if self._fog_cache is None or self._fog_cache[0] is not idx:
            self._fog_cache = (idx, Sight(self.game, self.position, self._mover()))
        return self._fog_cache[1]

    def _fog(self) -> PlayerView | None:
        """The view of the player the board serves in a game with hidden information,
        else None."""
        return self._sight().view

    def _move_spots(self, move: Move) -> frozenset[int]:
        """Cells a move changed (and the Cube pads when the Cube changed hands)."""
        cells = {move.origin, move.target, *(c for pair in move.also for c in pair)}
        cells.discard(OFF_BOARD)
        if move.token == CUBE:
            cells |= set(self.view.tracked[j] for j in self.view.cube_pads.values())
        return frozenset(cells)

    # -- output ------------------------------------------------------------------------
    def _publish(self) -> None:
        it = self._compose()
        if it != self._published:
            self._published = it
            for fn in self.listeners.interaction:
                fn(it)

    def _compose(self) -> Interaction:
        state = self.state
        pos = self.position
        game = self.game
        mover = self._mover()
        base: dict[str, Any] = {"phase": state, "mover": mover}
        if pos.moves:
            base["last_move"] = self._move_spots(pos.moves[-1])
        if self._started and game.in_check(pos, mover):
            base["check"] = frozenset(self._royal_cells(mover))
        base["active_pads"] = self._active_pads()
        if state == "turn" and pos.moves and pos.moves[-1].kind == "roll":
            # after a die roll: the pieces that may move
            base["origins"] = frozenset(m.origin for m in self.reconciler.index.moves
                                        if m.origin >= 0)
        if game.players > 2 or game.owner_colours:
            owners = {c: p.owner for c, p in enumerate(pos.board) if p is not None}
            if state == "game_over" and self._outcome is not None and self._outcome.winners:
                owners = {c: p for c, p in owners.items() if p in self._outcome.winners}
            base["owners"] = owners  # at the end only the winners' pieces keep their colour
        message = self._message
        frame = self._frame
        if state == "turn":
            moves = self.reconciler.index.moves
            if pos.moves and pos.moves[-1].kind == "roll" and not message:
                roll = pos.pop()
                try:
                    rolled = game.long_move_text(pos, roll)
                finally:
                    pos.push(roll)
                message = (f"{rolled}: the only move is {game.move_text(pos, moves[0])}"
                           if len(moves) == 1 else f"{rolled}: move one of the lit pieces")
            if len(moves) == 1 and moves[0].origin == OFF_BOARD and moves[0].captures:
                # the only move takes pieces off (a KaleidoChess player who cannot move is
                # out): mark them at once
                base["to_remove"] = frozenset(moves[0].captures)
                message = message or game.long_move_text(pos, moves[0])
        if state in ("setup", "correction", "takeback") and frame is not None:
            missing, extra = self.reconciler.deviation(frame)
            if state == "setup" and not missing and not extra:  # linear halls: a stack
                missing, extra = self.reconciler.misfits(frame)  # too low, a wrong colour
            base["missing"], base["extra"] = missing, extra
            if self._guiding and (missing or extra):
                spot = min(extra) if extra else min(missing)
                base["guide"] = spot
                message = self._guide_text(spot, spot in extra)
            elif state == "setup":
                message = message or ("set up the position" if (missing or extra) else "")
            elif state == "correction" and not message:
                message = self._not_a_move_text(missing, extra)
        elif state in ("lifted", "settling"):
            d = self._pending if state == "settling" and self._pending else self._decision
            if d is not None:
                base.update(origins=d.origins, targets=d.targets, to_remove=d.to_remove)
                pads = {t for t in d.targets
                        if t >= self.view.n_cells and self.layout.spots[t].role == "hand"}
                if not message and pads and frame is not None and any(
                        t < self.view.n_cells and frame.occupied[t] for t in d.targets):
                    # the mover stands on its capture: the captured piece is wanted in hand
                    message = self._hand_pad_text(frozenset(pads))
                if d.to_remove and not message:  # who is knocked out
                    message = game.removal_message(pos, [m for m in self.reconciler.index.moves
                                                         if d.to_remove <= set(m.captures)])
                if len(d.origins) == 1:
                    c = next(iter(d.origins))
                    p = pos.board[c] if c < len(pos.board) else None
                    if p is not None and p.height > 1:
                        base["height_display"] = (c, p.height)
        elif state == "choice" and self._choice is not None:
            c = self._choice
            pages = self._pages()
            page = pages[c.page % len(pages)]
            spots = self._answer_spots()
            opts = []
            for k, index in enumerate(page):
                if k >= len(spots):
                    break
                if index is None:
                    opts.append(ChoiceOption(MORE, None, spots[k], k))
                else:
                    value = c.values[index]
                    opts.append(ChoiceOption(c.labels[index],
                                             value if isinstance(value, Move) else None,
                                             spots[k], k))
            base["options"] = tuple(opts)
            base["targets"] = c.targets
            if self.answer_on == "pads" and len(pages) == 1 and all(
                    isinstance(v, Move) and v.kind == "roll" for v in c.values):
                message = message or (f"roll the die and touch option pad 1–{len(opts)} "
                                      "for the face rolled")
            message = message or ("choose: " + ", ".join(o.label for o in opts)
                                  + (f" (page {c.page % len(pages) + 1}/{len(pages)})"
                                     if len(pages) > 1 else ""))
        elif state == "execute" and self._execute is not None:
            m = self._execute
            e = self._effect(m)
            if e is not None:
                view = self.view
                base["execute_from"] = view.spots(e.vacate & ~e.victims | e.source)
                base["execute_to"] = view.spots(e.goal) | ({m.origin} if m.origin == m.target
                                                           and m.origin >= 0 else set())
                base["to_remove"] = view.spots(e.victims)
                if frame is not None:
                    missing, extra = self.reconciler.deviation(frame, e.key)
                    moving = view.spots(e.vacate | e.arrive | e.touch)
                    base["missing"] = missing - moving
                    base["extra"] = extra - moving
            message = message or f"execute {self._label(pos, m)}"
        elif state == "game_over" and self._outcome is not None:
            o = self._outcome
            who = ", ".join(game.player_names[w] for w in o.winners)
            message = f"{o.result} ({o.reason})" + (f": {who} wins" if who else "")
            if game.players > 2 and who:  # "1-0" / "winner 2" mean little with more players
                message = f"{who} win{'s' if len(o.winners) == 1 else ''} ({o.reason})"
        elif state == "paused":
            message = "paused"
        fog = self._fog()
        if self._exchange is not None and state in PLAY and fog is None:
            # (with hidden information the promoting player swaps his piece unasked: the
            # board now serves his opponent, who may not learn where or what it became)
            message = message or self._exchange_prompt(base, frame)
        if not message and self._draw_offer is not None and state in PLAY:
            message = f"{game.player_names[self._draw_offer]} offers a draw"
        if fog is not None:
            message = self._fogged(base, fog, message)
        base["message"] = message
        return Interaction(**base)

    def _fogged(self, base: dict[str, Any], fog: Any, message: str) -> str:
        """Hidden information: the board serves the side to move and shows what he may know
        (``fog`` is his view).  A lifted piece shows his hints; the opponent's last move is
        not shown; everything stays on the cells he sees and the pads — except the
        corrections (missing, extra, guide): they are the physical board's difference from
        the picture it showed complete at the last commit, which both players saw (in
        set-up: occupancy only; see docs/laotzu.md).  "check", never by what."""
        visible = frozenset(fog.visible)
        allowed = viewer_spots(visible, self.view.n_cells, len(self.layout.spots))
        phase = base["phase"]
        base.update(viewer=fog.player, visible=visible if phase != "setup" else None,
                    enemy_visible=frozenset(c for c, _ in fog.enemies))
        last = self.position.moves[-1] if self.position.moves else None
        if last is None or last.piece is None or last.piece.owner != fog.player:
            base.pop("last_move", None)
        d = self._pending if phase == "settling" and self._pending else self._decision
        if phase in ("lifted", "settling") and d is not None and not d.placed \
                and len(d.origins) == 1:
            base["targets"] = base.get("targets", frozenset()) | self._hints(
                next(iter(d.origins)))
        for name in ("origins", "targets", "to_remove", "execute_from", "execute_to",
                     "last_move", "check", "active_pads", "enemy_visible"):
            if name in base:
                base[name] = frozenset(base[name]) & allowed
        if "options" in base:
            base["options"] = tuple(o for o in base["options"] if o.spot in allowed)
        if base.get("height_display") is not None and base["height_display"][0] not in allowed:
            del base["height_display"]
        if "owners" in base:
            base["owners"] = {c: p for c, p in base["owners"].items() if c in allowed}
        if not message and phase == "turn" and fog.in_check and fog.turn == fog.player:
            message = "check"
        return message

    def _hints(self, spot: int) -> frozenset[int]:
        """Where the viewer's piece lifted from ``spot`` (a cell, or his hand pad) may go,
        as far as he can know (:meth:`Sight.hints`)."""
        if spot < self.view.n_cells:
            return self._sight().hints(spot)
        pad = self.layout.spots[spot]
        return self._sight().hints(spot, pad.role, pad.owner, pad.piece)

    def _exchange_prompt(self, base: dict[str, Any], frame: FrameLike | None) -> str:
        """Ask for the piece exchanged on its cell (Gnu Qi's Pawn -> Wazir): while the old
        piece stands there it blinks "take off"; once lifted, the cell asks for the new one."""
        cell = self._exchange
        assert cell is not None
        piece = self.position.board[cell]
        name = self.layout.spots[cell].name
        what = "piece" if piece is None else self._piece_name(piece)
        off = frame is not None and not frame.occupied[cell]
        if base["phase"] == "turn":
            key = "missing" if off else "to_remove"
            base[key] = base.get(key, frozenset()) | {cell}
        if off:
            return f"exchange the piece: put a {what} on {name}"
        return f"exchange the piece on {name} for a {what}"

    def _piece_name(self, piece: Piece) -> str:
        """The piece's name from the rules (``piece_name`` hook: its symbol by default)."""
        return self.game.piece_name(piece)

    def _active_pads(self) -> frozenset[int]:
        view = self.view
        pads = set()
        rec = self.reconciler
        if any(m.token == CUBE for m in rec.index.moves):
            holder = self.position.tokens.get(CUBE)
            if holder in view.cube_pads:
                pads.add(view.tracked[view.cube_pads[holder]])
        am = rec.amendable
        if am is not None and any(m.token == CUBE for m in am[1]):
            for j in view.cube_pads.values():
                pads.add(view.tracked[j])
        if self._started and self._outcome is None:  # a reserve piece may be placed now
            effects = rec.index.effects
            for j in view.reserve_pads.values():
                if any(e.source >> j & 1 for e in effects):
                    pads.add(view.tracked[j])
            if view.die_pad is not None and any(m.kind == "roll" for m in rec.index.moves):
                pads.add(view.die_pad)  # a die roll is due
        return frozenset(pads)

    def _not_a_move_text(self, missing: frozenset[int], extra: frozenset[int]) -> str:
        """A piece moved where it may not go: which move was seen, why it is not legal and
        what to do — said only when the picture is one piece moved from a cell to a cell
        (anything else: the lit cells say what is missing or extra)."""
        n = self.view.n_cells
        if len(missing) != 1 or len(extra) != 1:
            return ""
        (a,), (b,) = tuple(missing), tuple(extra)
        pos = self.position
        if a >= n or b >= n or pos.board[a] is None:
            return ""
        game, spots = self.game, self.layout.spots
        fog = self._fog()
        if fog is not None and fog.piece_at(a) is None:
            return ""  # never name a piece the player may not know
        piece = pos.board[a]
        name = f"{game.player_names[piece.owner]} {game.piece_names.get(piece.kind, piece.kind)}"
        seen = f"{name} {spots[a].name}–{spots[b].name} is not a legal move"
        back = f"put it back on {spots[a].name}"
        mover = game.ply_mover(pos)
        if piece.owner != mover:
            return f"{seen}: it is {game.player_names[mover]}'s move; {back}"
        if fog is not None:  # the reason may lie in what he cannot see
            return f"{seen}: {back}"
        if game.in_check(pos):
            return f"{seen}: {game.player_names[mover]} is in check; {back}"
        if not any(m.origin == a for m in self.reconciler.index.moves):
            return f"{seen}: it has no legal move now; {back}"
        return f"{seen}: {back} and lift it to see where it may go"

    def _hand_pad_text(self, pads: frozenset[int]) -> str:
        """A capture that waits for the captured piece on the capturer's hand pad."""
        spot = self.layout.spots[min(pads)]
        owner = self.game.player_names[spot.owner] if spot.owner is not None else ""
        kind = self.game.piece_names.get(spot.piece or "", spot.piece or "piece")
        return (f"put a {owner} {kind} from the box on {owner}'s {kind} hand pad "
                "(a captured piece changes colour)").replace("  ", " ")

    def _guide_text(self, spot: int, extra: bool) -> str:
        name = self.layout.spots[spot].name
        if extra:
            return f"take the piece off {name}"
        pos = self.position
        view = self.view
        if spot < view.n_cells:
            p = pos.board[spot]
            fog = self._fog()
            if p is not None and fog is not None and fog.piece_at(spot) is None:
                return f"put a piece on {name}"  # hidden: the cell, never what stands there
            if p is not None:
                who = self.game.player_names[p.owner] if p.owner < self.game.players else ""
                return f"put {who} {self.game.piece_symbol(p)} on {name}".replace("  ", " ")
        return f"put the piece back on {name}"
