"""The board's state machine: sensed frames in; :class:`Interaction` values, committed
moves, takebacks and commands out.

The reconciler (``controller/reconcile.py``) says what a frame means relative to the
committed position; this module adds what needs memory and time: the turn's phases, the
spots touched since the board last matched (captures and silent moves depend on it),
open choices and how they are answered from the board, guidance after a stable mismatch,
executing someone else's move, takebacks, the command menu, pause and game over.

The flow is the declarative table :data:`~controller.board.flow.TRANSITIONS` driven by
``transitions``; a reconciler decision during a turn goes to its handler through one
mapping (:attr:`Board.TURN_DECISIONS`), which fires the trigger named after the decision.
The state the machine owns lives in small values (:mod:`controller.board.attempt`): the
attempt under way, the timers, the game's progress, the sensed input and the shown output;
what the board shows is :func:`~controller.board.compose.compose` of a snapshot of them.
Nothing blocks or sleeps: time comes from the frames and :meth:`Board.tick`. Frames come
from the sensing pipeline (debouncer + settle gate): :meth:`Board.is_extendable` makes it
hold a slide that could go on, :meth:`Board.preview` shows its held frame (``settling``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from transitions import Machine

from controller.board.attempt import Attempt, Progress, Sensed, Shown, Timers, replace
from controller.board.choices import Answers, Choice, labels, menu_items, own_cells
from controller.board.compose import Snapshot, compose, effect_of, royal_cells
from controller.board.flow import PLAY, TRANSITIONS
from controller.board.options import (
    ACCEPT_DRAW,
    ILLEGAL_MOVE,
    NEW_GAME,
    NEXT_GAME,
    OFFER_DRAW,
    RESIGN,
    BoardOptions,
)
from controller.i18n.text import Text
from controller.interaction import PHASES, Interaction
from controller.layout import Layout
from controller.reconcile import (
    AMEND,
    CHOOSE,
    COMMIT,
    CONFIRM,
    IDLE,
    MISMATCH,
    TAKEBACK,
    WAIT,
    Decision,
    FrameLike,
    Key,
    Reconciler,
    mask_of,
    next_touched,
)
from controller.rules import get_game
from controller.rules.core import Game, IllegalMoveError, Move, Outcome, Position, Termination
from controller.sight import Sight

#: the trigger that opens a choice of each kind
_OPENED_BY = {"moves": "choose", "amend": "choose", "confirm": "confirm", "menu": "menu"}


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
        #: the token pads: a token handed over leaves its pad empty, but it is no piece
        #: off the board (it never arrives on a cell)
        self._token_pads = sum(1 << layout.spot_index(s.name) for s in layout.pads("token"))
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
        self.answers = Answers(self.answer_on, tuple(self.view.option_pads),
                               self.view.n_cells)
        self.machine = Machine(
            model=self, states=list(PHASES), initial="setup", auto_transitions=False,
            transitions=[{"trigger": t, "source": s, "dest": d,
                          **({"conditions": c} if c else {})} for t, s, d, c in TRANSITIONS])
        self.now = 0.0
        self.sensed = Sensed()
        self.attempt = Attempt()
        self.timers = Timers()
        self.progress = Progress()
        self.shown = Shown()
        #: while an amend's takeback and move callbacks run: the move being replaced (the
        #: journal writes the replacement as one record)
        self.replacing: Move | None = None
        #: a board of its own for one player (hidden information: controller/board/fogsync.py):
        #: whom it serves, that the referee, not this board's partial position, judges
        #: legality, and that the menu offers "take back" (the referee's, fogtable.py)
        self.serving: int | None = None
        self.referee_judges = False
        self.takes_back_on_command = False
        #: the commit a preview showed, whose next index :meth:`prebuild` builds (with the
        #: index it belongs to)
        self._prebuild: tuple[Any, Move] | None = None
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
        assert self.shown.published is not None
        return self.shown.published

    @property
    def outcome(self) -> Outcome | None:
        return self.progress.outcome

    @property
    def choice(self) -> Choice | None:
        """The open question (phase ``choice``), else None."""
        return self.attempt.choice

    _choice = choice  # the name the web tests read

    # conditions of the table
    def game_is_over(self) -> bool:
        return self.progress.outcome is not None

    def not_started(self) -> bool:
        return not self.progress.started

    def executing(self) -> bool:
        return self.progress.execute is not None

    # -- input -----------------------------------------------------------------------
    def is_extendable(self, frame: FrameLike) -> bool:
        """For the settle gate: hold this frame, a slide or takeback that may go on?"""
        if self.state not in (*PLAY, "choice", "execute"):
            return False
        key = self.view.key(frame)
        c = self.attempt.choice
        if key == self.sensed.key or (c is not None and key in c.keys):
            return False  # only a pad changed, or a tap ended: nothing on the board goes on
        rec = self.reconciler
        return rec.is_extendable(frame, next_touched(self.attempt.touched, self.attempt.lifted,
                                                     rec.lifted(frame)))

    def preview(self, frame: FrameLike, prebuild: bool = True) -> None:
        """Show a frame the settle gate is still holding (phase ``settling``).  The hold
        also builds the index of the position after the move it would commit — at once,
        or with ``prebuild=False`` when :meth:`prebuild` is called (the service lights
        the LEDs first)."""
        if self.state not in PLAY:
            return
        d = self.reconciler.decide(frame, self.attempt.touched)
        if d.kind in (COMMIT, CHOOSE) and d.extendable:
            self.attempt = replace(self.attempt, pending=d)
            self.previewed()
            self._publish()
            if d.kind == COMMIT and self.reconciler.is_legal(d.moves[0]):
                self._prebuild = (self.reconciler.index, d.moves[0])
                if prebuild:
                    self.prebuild()

    def prebuild(self) -> None:
        """Build the index a preview asked for, if its position is still the committed one."""
        wanted, self._prebuild = self._prebuild, None
        if wanted is not None and wanted[0] is self.reconciler.index:
            self.reconciler.preview(wanted[1])

    def feed(self, frame: FrameLike) -> None:
        """Consume one (debounced, settled) frame."""
        self.tick(frame.time)
        view = self.view
        sensed = self.sensed
        command = view.option_pads + ((view.die_pad,) if view.die_pad is not None else ())
        pads_now = frozenset(p for p in command if frame.occupied[p])
        pads_on = pads_now - sensed.pads_on
        sensed.pads_on = pads_now
        die = view.die_pad is not None and view.die_pad in pads_on
        pads_on -= {view.die_pad}
        key = view.key(frame)
        signature = (key, frame.stack, frame.polarity)
        changed = signature != sensed.signature
        sensed.frame, sensed.key, sensed.signature = frame, key, signature
        if self.state == "paused" or (not changed and not pads_on and not die):
            return
        self.attempt = replace(self.attempt, pending=None)
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
        options = self.options
        if self.timers.guidance_due(now, options.guide_delay):
            self.timers = replace(self.timers, guiding=True)
            dirty = True
        if self.state != "choice" and self.timers.menu_due(now, options.command_hold):
            self.timers = replace(self.timers, royal_since=None)
            self._open_menu(royal=True)
            dirty = True
        plies = self.timers.takeback_due(now, options.takeback_delay)
        if plies is not None and self.state in (*PLAY, "game_over"):
            self.timers = replace(self.timers, takeback=None)
            self._take_back(plies)
            dirty = True
        if dirty:
            self._publish()

    # -- answers and commands from the web page ------------------------------------------
    def answer_choice(self, index: int) -> None:
        """Answer the open choice with option ``index`` (of all options, not a page)."""
        c = self.attempt.choice
        if self.state != "choice" or c is None:
            raise ValueError(Text("no choice is open"))
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
        if (self.state not in PLAY and self.state != "choice") or not self.progress.started:
            raise ValueError(f"cannot execute a move while {self.state}")
        self.attempt = replace(self.attempt, choice=None)
        self.progress = replace(self.progress, execute=move, hint=None)
        self.move_to_execute()
        e = effect_of(self.reconciler.index, move)
        if e is not None and e.key == self.reconciler.index.expected and not e.gesture:
            self._commit(move)  # nothing to do on the board (a pass, a die roll)
        elif self.sensed.frame is not None:
            self._execute_frame(self.sensed.frame)
        self._publish()

    def cancel_execute(self) -> None:
        """Stop waiting for the move shown (the engine withdrew it)."""
        if self.state == "execute":
            self.progress = replace(self.progress, execute=None)
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
        self.progress = Progress()
        self._new_attempt()
        self.game_reset()
        self._replay()

    def load(self, position: Position) -> None:
        """Resume a saved game: it starts when the board matches ``position``."""
        self.new_game(position.game, position)

    def resync(self, position: Position, message: str = "") -> None:
        """The physical board must become ``position`` before play goes on (a player's own
        board after each ply of a refereed game): set-up verification, guiding one piece at a
        time at once — or showing ``message`` (a refusal) until ``guide_delay``."""
        away = self.progress.away
        self.new_game(position.game, position)
        self.progress = replace(self.progress, away=away)
        if self.state == "setup":
            if message:
                self.shown.message = message
            else:
                self.timers = replace(self.timers, guiding=True, wrong_since=self.now)
            self._publish()

    def _in_game(self, what: str) -> None:
        if (not self.progress.started or self.progress.outcome is not None
                or self.state == "paused"):
            raise ValueError(Text("cannot {what}: no game in progress ({state})", what=what,
                                  state=self.state))

    def resign(self, player: int | None = None) -> None:
        """``player`` (default: the player to move) resigns; the others win."""
        self._in_game(Text("resign"))
        player = self._mover() if player is None else player
        others = tuple(p for p in range(self.game.players) if p != player)
        self._emit_command(RESIGN, player)
        self._end(Outcome(others, Termination.RESIGNATION))

    def set_away(self, players: frozenset[int]) -> None:
        """``players`` move elsewhere (a linked board): their moves arrive through
        :meth:`execute`; made here unasked, they are refused."""
        self.progress = replace(self.progress, away=frozenset(players))

    def set_resuming(self, on: bool) -> None:
        """A resumed game waits for its player's answer (the service's resume offer):
        the option pads light, the command menu on them offers a new game, a move plays
        on.  Off once he answered."""
        if on != self.progress.resuming:
            self.progress = replace(self.progress, resuming=on)
            self._publish()

    def set_low_time(self, low: bool) -> None:
        """The mover is short of time (the service's clock): shown on his royal pieces."""
        if low != self.progress.low_time:
            self.progress = replace(self.progress, low_time=low)
            self._publish()

    def set_online(self, commands: tuple[str, ...], targets: bool) -> None:
        """An online game: the menu offers ``commands`` (only emitted: the server decides
        them); ``targets``: a lifted piece lights its legal targets."""
        if (commands, targets) != (self.progress.commands, self.progress.targets):
            self.progress = replace(self.progress, commands=commands, targets=targets)
            self._publish()

    def show_hint(self, move: Move | None) -> None:
        """Show ``move`` as a suggestion to the mover (None: stop); it goes when he
        starts a move or the position changes.  (With hidden information it is a try
        from his view, which a piece he cannot see may make illegal.)"""
        if move is not None and self.state != "turn":
            raise ValueError(f"cannot show a hint while {self.state}")
        self.progress = replace(self.progress, hint=move)
        self._publish()

    def end_on_time(self, outcome: Outcome) -> None:
        """A clock ran out (the service's game clock): the game ends with ``outcome``
        (``Game.timeout_outcome``)."""
        self._in_game("end the game on time")
        self._end(outcome)

    def offer_draw(self, player: int | None = None) -> None:
        """The offer stands until the other player has moved."""
        self._in_game(Text("offer a draw"))
        player = self._mover() if player is None else player
        self.progress = replace(self.progress, draw_offer=player)
        self.shown.message = Text("{player} offers a draw",
                                  player=self.game.player_names[player])
        self._emit_command(OFFER_DRAW, player)
        self._publish()

    def accept_draw(self, player: int | None = None) -> None:
        self._in_game(Text("accept a draw"))
        player = self._mover() if player is None else player
        if self.progress.draw_offer is None or self.progress.draw_offer == player:
            raise ValueError(Text("no draw offer to accept"))
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
        self.sensed.occupied = self.view.mask(frame)  # (untracked: no arranged piece "put")
        idx = self.reconciler.index
        key = self.view.key(frame)
        if key == idx.expected and idx.unchanged_fits(idx.emask, frame):
            self.progress = replace(self.progress, started=True)
            self._new_attempt()
            self.board_ready()
            self.shown.message = ""
            self._offer_silent_turn()
            return
        self._note_wrong(key)
        self._watch_command_gesture(frame)

    def _track(self, frame: FrameLike) -> None:
        """The attempt after ``frame`` (see :meth:`Attempt.tracked`)."""
        lifted = self.reconciler.lifted(frame)
        occupied = self.view.mask(frame)
        before = self.sensed.occupied
        put = occupied & ~before if before is not None else 0
        self.sensed.occupied = occupied
        self.attempt = self.attempt.tracked(lifted, occupied, put, self._token_pads,
                                            self._split_onto)

    def _play_frame(self, frame: FrameLike) -> None:
        self._track(frame)
        a = self.attempt
        d = self.reconciler.decide(frame, a.touched, a.landed)
        self.attempt = replace(a.decided(d), placed_first={
            c: a.placed_first.get(c, a.lifted) for c in d.placed})
        self.shown.message = ""
        if d.kind != IDLE and self.progress.hint is not None:
            self.progress = replace(self.progress, hint=None)  # he is making a move
        if d.kind != MISMATCH:
            self.timers = replace(self.timers, royal_since=None)
        if d.kind not in (WAIT, TAKEBACK):
            self.timers = replace(self.timers, takeback=None)
        exchange = self.progress.exchange
        if (exchange is not None and d.kind in (WAIT, MISMATCH)
                and d.lifted == {exchange} and not d.placed):
            # the piece to exchange is off its cell: expected, not a move nor a mistake
            self.timers = self.timers.matched()
            self.idle()
            return
        self.TURN_DECISIONS[d.kind](self, d, frame)

    # -- a turn's decisions (each fires the trigger of its name) ---------------------------
    def _idle(self, d: Decision, frame: FrameLike) -> None:
        """The board shows the committed position."""
        exchange = self.progress.exchange
        if exchange is not None and d.touched >> exchange & 1:
            self.progress = replace(self.progress, exchange=None)  # the exchanged piece is back
        self._new_attempt()
        self.idle()
        self._offer_silent_turn()

    def _wait(self, d: Decision, frame: FrameLike) -> None:
        """A move under way (perhaps also an earlier position: timed as a takeback)."""
        self.timers = self.timers.matched()
        if d.plies and self.options.takeback:
            self.timers = self.timers.earlier_position(d.plies, self.now)
        else:
            self.timers = replace(self.timers, takeback=None)
        self.wait()

    def _commit_decided(self, d: Decision, frame: FrameLike) -> None:
        """Exactly one legal move explains the picture."""
        self._commit(d.moves[0])

    def _amend(self, d: Decision, frame: FrameLike) -> None:
        """The picture replaces the last move: committed if one move fits, else asked."""
        if len(d.moves) == 1:
            self._commit(d.moves[0], amend=True)
        else:
            self._open_choice("amend", list(d.moves), {self.view.key(frame)}, d.targets,
                              touched=d.touched)

    def _choose(self, d: Decision, frame: FrameLike) -> None:
        """Several moves fit: the player picks one."""
        self._open_choice("moves", list(d.moves), {self.view.key(frame)}, d.targets,
                          touched=d.touched, amends=d.amends)

    def _confirm(self, d: Decision, frame: FrameLike) -> None:
        """A silent move's gesture: asked for confirmation, never committed unasked."""
        key = self.view.key(frame)
        if key == self.reconciler.index.expected:
            self._new_attempt()
        self._open_choice("confirm", list(d.moves), {key}, d.targets, touched=d.touched)

    def _takeback(self, d: Decision, frame: FrameLike) -> None:
        """An earlier position: taken back once held still (or refused when off)."""
        if self.options.takeback:
            self.shown.message = (Text("taking back {count} moves", count=d.plies)
                                  if d.plies > 1 else Text("taking back 1 move"))
            self.timers = self.timers.earlier_position(d.plies, self.now)
        else:
            self.shown.message = Text("take-backs are off: restore the position")
            self._note_wrong(self.view.key(frame))
        self.takeback()

    def _mismatch(self, d: Decision, frame: FrameLike) -> None:
        """Nothing explains the picture: the board shows what to fix."""
        self._note_wrong(self.view.key(frame))
        self.mismatch()
        self._watch_command_gesture(frame)

    #: a reconciler decision during a turn -> its handler, which fires the trigger of
    #: :data:`~controller.board.flow.TRANSITIONS` named after the decision (an amendment:
    #: ``commit`` or ``choose``; a commit the rules refuse: ``mismatch``)
    TURN_DECISIONS: dict[str, Callable[[Board, Decision, FrameLike], None]] = {
        IDLE: _idle, WAIT: _wait, COMMIT: _commit_decided, AMEND: _amend, CHOOSE: _choose,
        CONFIRM: _confirm, TAKEBACK: _takeback, MISMATCH: _mismatch}

    # -- frames in other states ----------------------------------------------------------
    def _execute_frame(self, frame: FrameLike) -> None:
        move = self.progress.execute
        assert move is not None
        rec = self.reconciler
        self._track(frame)
        if rec.explains(frame, move, self.attempt.touched):
            self._commit(move)
            return
        d = rec.decide(frame, self.attempt.touched)
        # (the touched cells are kept on IDLE too: a silent move needs its gesture)
        self.attempt = self.attempt.decided(d)
        if d.kind == TAKEBACK and self.options.takeback:
            self.progress = replace(self.progress, execute=None)
            self.execute_cancelled()
            self._play_frame(frame)
            return
        if d.kind in (COMMIT, CHOOSE) and move not in d.moves:
            self.shown.message = Text("that is not the move to execute")
        else:
            self.shown.message = ""

    def _over_frame(self, frame: FrameLike) -> None:
        self._track(frame)
        d = self.reconciler.decide(frame, self.attempt.touched)
        self.attempt = self.attempt.decided(d)
        if d.kind == TAKEBACK and self.options.takeback:
            self.timers = self.timers.earlier_position(d.plies, self.now)
        elif d.kind == AMEND and len(d.moves) == 1:
            self._commit(d.moves[0], amend=True)
        elif d.kind == IDLE:
            self.attempt = replace(self.attempt, touched=0)
        else:
            self._watch_command_gesture(frame)
        if d.kind != TAKEBACK:
            self.timers = replace(self.timers, takeback=None)

    def _choice_frame(self, frame: FrameLike, pads_on: frozenset[int]) -> None:
        c = self.attempt.choice
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
            c = replace(c, tapping=None)
            self.attempt = replace(self.attempt, choice=c)
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
                        self.attempt = replace(self.attempt, choice=None)
                        self.choice_left()
                        self.attempt = replace(self.attempt, touched=gesture)
                        self._open_choice(kind, list(d.moves), set(c.keys), d.targets,
                                          touched=gesture, amends=d.amends)
                        return
            self.attempt = replace(self.attempt, choice=replace(c, steady=key))
            return
        if c.steady is not None:
            steady = mask_of(c.steady)
            lifted = steady & ~mask_of(key)
            if lifted and lifted & (lifted - 1) == 0 and mask_of(key) & ~steady == 0:
                # one piece lifted: a tap under way, or a piece taken to touch a pad
                tapping = self.view.tracked[lifted.bit_length() - 1]
                self.attempt = replace(self.attempt, choice=replace(c, tapping=tapping))
                return
        # the board moved on: the choice is dropped and the picture decided afresh — but
        # a silent move confirmed by handing over a token keeps its gesture
        keep = 0
        if c.kind == "confirm":
            d = self.reconciler.decide(frame, c.touched)
            plain = {m._replace(token="") for m in c.values if isinstance(m, Move)}
            if d.kind in (COMMIT, CHOOSE, CONFIRM) and any(m._replace(token="") in plain
                                                           for m in d.moves):
                keep = c.touched
        self.attempt = replace(self.attempt, choice=None)
        self.choice_left()
        lifted_now = self.reconciler.lifted(self.sensed.frame) if keep else 0
        self.attempt = replace(self.attempt, touched=keep, lifted=lifted_now)
        self._replay()

    # -- choices -----------------------------------------------------------------------
    def _open_choice(self, kind: str, values: list[Any], keys: set[Key],
                     targets: frozenset[int] = frozenset(), touched: int = 0,
                     amends: tuple = ()) -> None:
        texts = labels(self.game, self.position, kind, values, tuple(amends))
        steady = self.sensed.key if self.sensed.key in keys else next(iter(keys))
        choice = Choice(kind, tuple(texts), tuple(values), frozenset(keys), targets,
                        steady=steady, touched=touched, amends=tuple(amends))
        self.attempt = replace(self.attempt, choice=choice)
        self.timers = self.timers.matched()
        self.trigger(_OPENED_BY[kind])

    def _open_menu(self, royal: bool = False) -> None:
        if self.state == "choice" or self.state == "paused":
            return
        p = self.progress
        items = menu_items(p.started, p.outcome is not None, p.draw_offer, self._mover(),
                           self.options.hints, p.resuming, p.commands, self.takes_back_on_command)
        expected = self.reconciler.index.expected
        keys = {expected}
        if self.sensed.key is not None:
            keys.add(self.sensed.key)
        if royal:  # the Kings go back one by one while the menu stays open
            for cell in royal_cells(self.reconciler.index.board):
                for key in list(keys):
                    keys.add(key[:cell] + (False,) + key[cell + 1:])
        self._open_choice("menu", items, keys)

    def _option_at(self, spot: int) -> int | None:
        """Which option (index, or -1 for "more…") the spot answers on the current page."""
        c = self.attempt.choice
        assert c is not None
        spots = self.answers.spots(c, self.sensed.key, self._mover(),
                                   own_cells(self._sight().view))
        return self.answers.option_at(c, spot, spots)

    def _answer(self, index: int) -> None:
        c = self.attempt.choice
        assert c is not None
        if index == -1:
            self.attempt = replace(self.attempt, choice=c.next_page())
            return
        value = c.values[index]
        self.attempt = replace(self.attempt, choice=None)
        if c.kind == "menu":
            self.choice_left()
            self._command(value)
            return
        self._commit(value, amend=c.kind == "amend" or value in c.amends)

    def _command(self, name: str) -> None:
        if name in self.progress.commands:  # another room carries it out (set_online)
            self._emit_command(name, self._mover())
            self._replay()
        elif name == RESIGN:
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
        else:  # a hint (the service asks the engine) or a takeback (controller/fogtable.py)
            self._emit_command(name, self._mover())
            self._replay()

    def _offer_roll(self) -> bool:
        """The die pad touched: ask for the face when a roll is due (a physical die)."""
        idx = self.reconciler.index
        rolls = [m for m, e in zip(idx.moves, idx.effects, strict=True)
                 if e.key == idx.expected and not e.gesture]
        if not rolls:
            return False
        self._open_choice("confirm", rolls, {idx.expected, self.sensed.key or idx.expected})
        return True

    def _offer_silent_turn(self) -> None:
        """When every legal move changes nothing on the board (a die roll, a forced pass,
        only promotions), ask at once (a forced pass unasked); an away player's: execute."""
        idx = self.reconciler.index
        if self.state != "turn" or not idx.all_silent or self._mover() in self.progress.away:
            return
        if len(idx.moves) == 1 and idx.moves[0].kind == "pass":
            self._commit(idx.moves[0])
            return
        self._open_choice("confirm", list(idx.moves), {idx.expected})

    # -- effects -----------------------------------------------------------------------
    def _commit(self, move: Move, amend: bool = False) -> None:
        rec = self.reconciler
        if not (self.referee_judges or rec.is_legal(move, amend)):
            self._refuse()
            return
        mover = self._mover()
        # An amendment (castling completed after its Rook move, a token handed over) is
        # the previous mover's.  A refereed board and an online game (set_online) hold a
        # move until it can no longer be amended; an open linked board has already sent it,
        # so there the amendment is refused like any move of the side that plays elsewhere.
        held = self.referee_judges or bool(self.progress.commands)
        maker = move.piece.owner if amend and held and move.piece is not None else mover
        if maker in self.progress.away and self.progress.execute is None:
            self._refuse(Text("{player} moves on the other board: put the piece back and "
                              "wait for the move", player=self.game.player_names[maker]))
            return
        self.replacing = None  # never stale from a callback that raised
        if amend:
            old = rec.amend(move)
            self.replacing = old
            for fn in self.listeners.takeback:
                fn([old])
        before = self.position.board[move.origin] if move.origin >= 0 and not amend else None
        if not amend:
            rec.commit(move)
        draw_offer = self.progress.draw_offer
        if draw_offer is not None and draw_offer != mover:
            draw_offer = None
        # a piece that changes kind as it moves (Gnu Qi's Pawn -> Wazir) is swapped on its
        # target: that lift is expected, not a mistake, and asked for until done — unless
        # the new piece stood on the target while the old one was still on its origin
        early = self.attempt.placed_first.get(move.target)
        swapped_first = early is not None and move.origin >= 0 and not early >> move.origin & 1
        self._new_attempt()
        exchange = (move.target if before is not None and move.piece is not None
                    and move.kind != "promote" and before.kind != move.piece.kind
                    and not swapped_first else None)
        self.progress = replace(self.progress, draw_offer=draw_offer, execute=None, hint=None,
                                exchange=exchange, outcome=self.game.outcome(self.position))
        for fn in self.listeners.move:
            fn(move)
        self.replacing = None
        self.commit()
        outcome = self.progress.outcome
        if outcome is not None:
            for fn in self.listeners.game_over:
                fn(outcome)
        else:
            self._offer_silent_turn()

    def _refuse(self, message: str = ILLEGAL_MOVE) -> None:
        """A move the player tried that a piece he cannot see makes illegal (hidden
        information): refused with "illegal move" and nothing else; the board shows what to
        put back, as for any mismatch.  (A move of a player who moves elsewhere is
        refused the same way, with ``message``.)"""
        self.attempt = replace(self.attempt, choice=None)
        if self.state == "choice":
            self.choice_left()
        self.shown.message = message
        if self.state in PLAY:
            if self.sensed.key is not None:
                self._note_wrong(self.sensed.key)
            self.mismatch()

    def _take_back(self, plies: int) -> None:
        self.replacing = None  # a real takeback, never an amend's
        undone = self.reconciler.takeback(plies)
        self.progress = replace(self.progress, outcome=None, execute=None, exchange=None,
                                hint=None)
        self._new_attempt()
        self.shown.message = ""  # "taking back 2 moves" is done
        for fn in self.listeners.takeback:
            fn(undone)
        self.taken_back()
        self._offer_silent_turn()

    def _end(self, outcome: Outcome) -> None:
        self.progress = replace(self.progress, outcome=outcome, execute=None)
        self.attempt = replace(self.attempt, choice=None)
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
        frame = self.sensed.frame
        if frame is not None and self.state != "paused":
            self.sensed.key = self.sensed.signature = None
            self.feed(frame)
        else:
            self._publish()

    def _new_attempt(self) -> None:
        """A new move attempt: nothing touched, no decision, no choice, no timer running."""
        self.attempt = Attempt()
        self.timers = Timers()

    def _note_wrong(self, key: Key) -> None:
        self.timers = self.timers.mismatch(key, self.now)

    def _watch_command_gesture(self, frame: FrameLike) -> None:
        """Both Kings off the board and nothing else changed: the command menu opens
        after :attr:`BoardOptions.command_hold` seconds (boards without option pads)."""
        board = self.reconciler.index.board
        royal = royal_cells(board)
        if len({board[c].owner for c in royal}) < 2:  # type: ignore[union-attr]
            self.timers = replace(self.timers, royal_since=None)
            return
        missing, extra = self.reconciler.deviation(frame)
        if not extra and missing == set(royal):
            if self.timers.royal_since is None:
                self.timers = replace(self.timers, royal_since=self.now)
        else:
            self.timers = replace(self.timers, royal_since=None)

    def _split_onto(self, cell: int, support: int) -> bool:
        """Whether part of a stack (a Tower, a Pawn stack) on a ``support`` cell may land on
        ``cell``: a whole stack lifted, a part put on ``cell``, the rest put back is an
        arrival there, not a tap (the source looks "back" but holds less)."""
        return any(m.target == cell and m.left is not None and m.origin >= 0
                   and support >> m.origin & 1 for m in self.reconciler.index.moves)

    def _sight(self) -> Sight:
        """What the player the board serves (the side to move) may see: built once per
        committed position."""
        idx = self.reconciler.index
        cache = self.shown.sight
        if cache is None or cache[0] is not idx:
            viewer = self._mover() if self.serving is None else self.serving
            self.shown.sight = cache = (idx, Sight(self.game, self.position, viewer))
        return cache[1]

    # -- output ------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """The machine's state as :func:`~controller.board.compose.compose` sees it."""
        return Snapshot(
            phase=self.state, game=self.game, layout=self.layout, view=self.view,
            position=self.position, picture=self.reconciler, sight=self._sight(),
            answers=self.answers, frame=self.sensed.frame, key=self.sensed.key,
            attempt=self.attempt, progress=self.progress, guiding=self.timers.guiding,
            message=self.shown.message)

    def _publish(self) -> None:
        it = compose(self.snapshot())
        if it != self.shown.published:
            self.shown.published = it
            for fn in self.listeners.interaction:
                fn(it)
