"""The board service: the board loop and the wiring of its rooms.

One process, one asyncio loop (``controller/process.py``).  The loop polls the sensing
back end and pushes every frame through the pipeline — debounce → settle gate → board
state machine (:class:`controller.board.Board`) → LED scene → LED driver; uvicorn serves
the page from the same loop, so a page request and a scan never run at once and nothing
needs a lock.  The session and its journal, the clock, the computer, the coach, the
voice and the linked boards are rooms (``session.py``, ``seats.py``, ``speech/``,
``link/seat.py``) that hear the board's events from here; the page is built from
:meth:`snapshot`.  The default configuration is the simulated board, whose actions go
through the pipeline a physical board uses (emulated electronics, production scanners).

Durability: a committed move is journalled (fsync-ed) in the machine's move callback,
before the machine publishes the interaction that shows it done — neither LEDs nor page
can show a move the journal does not hold; if the journal cannot be written the service
stops.  On start the last unfinished game is resumed (set-up verification first).
"""

from __future__ import annotations

import contextlib
import logging
import random
from collections.abc import Callable
from typing import Any

from controller.adaptive_seat import AdaptiveSeat
from controller.board import HINT, NEW_GAME, NEXT_GAME, Board, BoardOptions
from controller.clock import ClockError, parse_time_control
from controller.coach import Coach
from controller.config import Config, ConfigError, PlayerSettings
from controller.i18n import Text, text_of
from controller.interaction import Interaction
from controller.journal import GameRecord, Journal, JournalError
from controller.layout import Layout, layout_playing, load_layout
from controller.lighting import Lighting
from controller.link.messages import Start
from controller.link.seat import LinkRefused, LinkSeat, open_remote
from controller.online.room import OnlineRefused, OnlineRoom
from controller.opponent import Computer, Opponent
from controller.rules import GAMES, Game, Move, Outcome, Position, get_game
from controller.seats import HAND_PAGE_WAIT_S as HAND_PAGE_WAIT_S  # re-exported (tests)
from controller.seats import HAND_STEP_S as HAND_STEP_S
from controller.seats import (
    ClockSeat,
    CoachSeat,
    ComputerSeat,
    Failures,
    computer_from_config,
    resume_summary,
)
from controller.sensing.backends import QUIET_S as QUIET_S  # re-exported: the loop's rest
from controller.sensing.backends import open_sensing
from controller.sensing.frame import Frame
from controller.sensing.sim.objects import supply_names
from controller.sensing.watch import SensingWatch
from controller.service_errors import ServiceError, ServiceFailed, page_request
from controller.service_rooms import RoomNames
from controller.session import GameSession, JournalWriteError, Scorebook, online_view
from controller.snapshot import BoardSnapshot, health_of, take_snapshot
from controller.speech.room import BoardVoice
from controller.speech.words import event_words

log = logging.getLogger("fairyboard.service")
#: why the engine's help is refused during an online game
FAIR_PLAY = ("off during an online game: fair play (no engine, hints, evaluation or "
             "coach)")


class BoardService(RoomNames):
    """The running board: the loop and the wiring.  It owns the sensing pipeline, the
    state machine and the LEDs; everything else is a room it wires to the board's events
    (``move``, ``takeback``, ``command``, ``game_over``) and to the loop's tick: the
    session and its journal (:class:`~controller.session.Scorebook`), the clock, the
    computer and the coach (:mod:`controller.seats`), and the linked boards
    (:class:`~controller.link.seat.LinkSeat`).  The page reads :meth:`snapshot`."""

    def __init__(self, config: Config, *, seed: int | None = None) -> None:
        """``seed`` makes the virtual die and the simulator's magnets repeatable."""
        self.config = config
        self.watch = SensingWatch()
        self.stopping = False
        self.version = 0          # bumped on every change the page shows
        self.listeners: set[Callable[[], None]] = set()
        #: open pages: the newest ``version`` each has been sent (see HAND_PAGE_WAIT_S)
        self.pages_sent: dict[object, int] = {}
        self.rng = random.Random(seed)
        self.layout: Layout = load_layout(config.board.layout)
        self._check_game(config.board.game)
        #: the LEDs: the scene, the driver and the page's glow
        self.lighting = Lighting(config, self.layout)
        if config.leds.driver == "serial" and not (
                config.sensing.backend == "serial" or config.sensing.simulated_link):
            raise ConfigError('leds.driver = "serial" sends the LED frames to the '
                              'microcontroller: it needs sensing.backend = "serial"')
        journal = Journal(config.journal.path)
        journal.folder.mkdir(parents=True, exist_ok=True)
        #: the session and its journal: the only writer of records
        self.scorebook = Scorebook(journal, self._stop_on_failure)
        self.board: Board | None = None
        #: the page's guided first game: the ply it began at (None: not running)
        self.tutorial_since: int | None = None
        #: the seats other than the person at the board
        self.clock_seat = ClockSeat(config.board.clock, config.board.on_flag)
        coach = Coach(margin=config.board.coach_margin)
        coach.on = config.board.coach
        failures = Failures()  # the workers': logged once, counted, shown
        self.coach_seat = CoachSeat(coach, self._changed, failures)
        # the adaptive level (``[engine] adaptive``): its state beside the journal
        adaptive = AdaptiveSeat(config.engine.adaptive, journal.folder)
        opponent = Opponent(adaptive.computer(computer_from_config(config)),
                            seed=seed or 0, engine=config.engine)
        self.computer = ComputerSeat(opponent, None, failures, adaptive)
        #: the board's voice: each event said once, for the page and the Pi's speaker
        self.voice = BoardVoice(config.speech, listener=lambda: self.page_viewer(None),
                                who=self._who, remaining=self._remaining)
        #: linked boards (their ``remote`` is None: this board plays alone)
        self.link = LinkSeat(open_remote(config), self.scorebook, self)
        #: the owner's online account and game (controller/online/room.py)
        self.online = OnlineRoom(config.online, self)
        self.sensing = open_sensing(config, self.layout, self._is_extendable, seed or 0)
        try:
            self._set_up(config)
        except BaseException:
            self.sensing.close()
            raise

    def _set_up(self, config: Config) -> None:
        self.sim = self.sensing.sim
        if self.sim is not None and config.board.simulated_hand_moves:
            from controller.sensing.sim.hand import perform
            self.computer = ComputerSeat(self.computer.opponent,
                                         lambda action: perform(self, action),
                                         self.computer.failures, self.computer.adaptive)
        self._previewed: Frame | None = None
        self.lighting.open(config, self.sensing.send_led_frame, self.clock)
        self.resume_offer: dict[str, Any] | None = None
        self.on_failure: Callable[[], None] | None = None
        self._restart: str | None = None
        self._resume_or_start()
        self.online.start()
        self._light(self.clock())

    @property
    def clock(self) -> Callable[[], float]:
        """The sensing back end's clock (simulated time on the simulated board)."""
        return self.sensing.clock

    # -- games and the journal ---------------------------------------------------------
    def _check_game(self, name: str) -> None:
        if name not in GAMES:  # (Texts: a page reads the problem in its own language)
            raise ConfigError(Text("board.game: {problem}", problem=Text(
                "unknown game {name} (known: {games})", name=repr(name), games=", ".join(GAMES))))
        if name not in self.layout.games:
            raise ConfigError(Text("board.game: {problem}", problem=Text(
                "layout {layout} is not made for {game} (it serves {games})",
                layout=self.layout.name, game=name, games=", ".join(self.layout.games))))

    def _resume_or_start(self) -> None:
        """Resume the newest game if it is unfinished.  A file that cannot be read — empty,
        no start record, options or set-up the game rejects — is quarantined (renamed aside)
        and reported; it never keeps another game from being resumed or a new one started."""
        for record in self.scorebook.resumable(self.layout.games):
            try:
                self._resume(record)
                return
            except JournalError as exc:  # the file, not the board: set it aside
                self.scorebook.unreadable(record, exc)
        c = self.config.board
        options = GAMES[c.game].start_options(c.options) if c.game in GAMES else dict(c.options)
        self._start(c.game, options, None)

    def _resume(self, record: GameRecord) -> None:
        if record.link and record.link.get("refereed") and self.remote is not None:
            self._resume_refereed(record)
            return
        if online_view(record):  # the server's view brings the board up to date
            session, pos = self.scorebook.continued_online_view(record)
            self._restore_seats(session.game, record.seats or {})
            self._install(session, pos)
            return
        session, pos = self.scorebook.continued(record)
        game, plies = session.game, session.plies
        if record.clock:
            session.game_clock = ClockSeat.resumed(game, record, plies)
        if record.link and self.remote is not None:
            session.link = Start(record.link["game_id"], record.game, dict(record.options),
                                 record.setup, tuple(record.link["seats"]), record.clock or "")
            self.link.attach(session, pos, resumed=True)
        if record.seats is not None:  # the seats as the owner set the game up
            self._restore_seats(game, record.seats)
        self.resume_offer = {"id": record.id, "title": game.title, "plies": len(plies),
                             "date": record.date.replace("T", " "),
                             "dropped": record.damage,
                             "summary": resume_summary(
                                 self.opponent.computer, self.coach, session,
                                 self._other_boards(session), self.clock())}
        log.info("resuming unfinished game", extra={
            "game_id": record.id, "game": record.game, "plies": len(plies),
            "torn_tail": record.torn_tail})
        self._install(session, pos)

    def _seats_record(self) -> dict[str, Any]:
        """Who plays the game and how, for its start record (a resume restores it)."""
        computer = self.opponent.computer
        return {"computer": sorted(computer.seats), "level": computer.level,
                "coach": self.coach.on, "coach_margin": self.coach.margin,
                **({"online": self.online.record} if self.online.record else {})}

    def _restore_seats(self, game: Game, seats: dict[str, Any]) -> None:
        players = frozenset(p for p in seats.get("computer", []) if p < game.players)
        self.computer.new_game(Computer(players, seats.get("level", 6)))
        self.coach.on = seats.get("coach", self.coach.on)
        self.coach.margin = seats.get("coach_margin", self.coach.margin)
        if isinstance(seats.get("online"), dict):  # an online game: its seat comes back
            self.online.resumed(seats["online"])

    def _other_boards(self, session: GameSession) -> list[str]:
        if session.link is None or self.remote is None:
            return []
        return sorted({b for b in session.link.seats if b != self.remote.board})

    def _resume_refereed(self, record: GameRecord) -> None:
        """A refereed game: the journal holds its first view only (the board never knows
        more); the referee's retained view brings the board up to date."""
        game = get_game(record.game, **record.options)
        link = Start(record.link["game_id"], record.game, dict(record.options), record.setup,
                     tuple(record.link["seats"]))
        session = self.scorebook.continued_view(record, game, link)
        log.info("resuming refereed game", extra={"game_id": record.id,
                                                  "link_game": link.game_id})
        self._install(session, game.parse_view(record.setup))
        self.link.fog_attach(link)

    def _start(self, name: str, options: dict[str, Any], setup: str | None,
               game: Game | None = None, link: Start | None = None) -> GameSession:
        self._check_game(name)
        game = game or get_game(name, **options)
        pos = game.parse_position(setup) if setup else game.start()
        setup_text = game.position_text(pos)
        session = self._new_session(game, options, setup_text, link)
        log.info("new game", extra={"game_id": session.game_id, "game": name,
                                    "options": options, "setup": setup_text,
                                    "clock": self.time_control})
        self._install(session, pos)
        return session

    def _new_session(self, game: Game, options: dict[str, Any], setup: str,
                     link: Start | None = None, clock: bool = True) -> GameSession:
        """A new journal game, on the current time control's clock if there is one."""
        control = self.time_control if clock else ""
        session = self.scorebook.new(game, options, setup, self._player_names(game), control,
                                     link, self._seats_record())
        session.game_clock = self.clock_seat.new_clock(game) if clock else None
        return session

    def _player_names(self, game: Game) -> list[str]:
        names = list(self.config.players.names)
        if names == PlayerSettings().names:  # not set: the game's own names (White, Red, …)
            names = []
        names += list(game.player_names[len(names):])
        return names[:game.players]

    def _install(self, session: GameSession, pos: Position) -> None:
        """Put a session on the board: set-up verification of ``pos`` starts."""
        self.scorebook.install(session)
        if self.tutorial_since is not None:
            self.tutorial_since = len(pos.moves)
        game = session.game
        self._dress(game, pos)
        if self.board is None:
            self.board = Board(
                game, self.layout, pos,
                BoardOptions(takeback=self.config.board.takeback,
                             guide_delay=self.config.timing.correction_s,
                             takeback_delay=self.config.board.takeback_delay_s,
                             command_hold=self.config.board.command_hold_s,
                             answer_on=self.config.board.answer_on,
                             hints=self.config.board.menu_hint),
                games=[g for g in self.layout.games if g in GAMES],
                on_move=self._on_move, on_takeback=self._on_takeback,
                on_command=self._on_command, on_game_over=self._on_game_over)
        else:
            self.board.new_game(game, pos)
        self.voice.follow(self.board)
        self.computer.lay_table(self.board, session, self.link.linked(session), self._on_move,
                                self._on_takeback)
        if self.link.linked(session):  # the others' moves come linked
            assert session.link is not None
            self.board.set_away(self.link.away(session.link))
        self._changed()

    # -- the voice ----------------------------------------------------------------------
    def _who(self, player: int) -> str:
        """A seat's name when it is not the person at the board (in the voice's words)."""
        if player in self.computer.seats:
            return event_words("computer")
        session = self.session
        if self.link.linked(session) and not self.link.plays_here(session, player):
            return event_words("opponent")
        return ""

    def _remaining(self, player: int) -> float | None:
        clock = self.session.game_clock
        return None if clock is None else clock.remaining(player, self.clock())

    def _dress(self, game: Game, pos: Position) -> None:
        """The game's colours on the LEDs and the objects it may need from the box."""
        self.lighting.for_game(game)
        self.supply = supply_names(game, pos)

    def _stop_on_failure(self) -> None:
        """The journal refused a record: stop the service (exit status 1); /health says
        why, the page shows nothing more than the journal holds."""
        self.stopping = True
        if self.on_failure is not None:
            self.on_failure()
        self._notify()

    def fail(self, message: str) -> None:
        """Stop the service (exit status 1) for ``message`` (a journal write failed)."""
        self.scorebook.fail(message)

    # -- the board's events --------------------------------------------------------------
    def _on_move(self, move: Move) -> None:
        """A move is committed (already on ``board.position``): journal it before the
        board publishes it.  Raises OSError when the disk refuses — nothing is shown."""
        if self.computer.table is not None and not self.computer.table.committing:
            return  # the person's move on his view: the table judges it, then commits it
        s = self.session
        pos = self.position
        amend = self.board is not None and self.board.replacing is not None
        remaining = (self.clock_seat.press(s, s.game.ply_mover(pos), self.clock())
                     or self.online.times())  # online: the server's clocks
        ply = self.scorebook.move(pos, move, amend, remaining)  # once it is on disk
        if self.resume_offer is not None:  # a move made on the resumed game keeps it
            self.resume_offer = None        # (a board without a screen): the clocks run
            log.info("resumed game continued", extra={"game_id": s.game_id})
        assert self.board is not None
        self.coach_seat.moved(s, self.board, ply.player, ply.long,
                              by_person=ply.player not in self.computer.seats
                              and self.link.plays_here(s, ply.player))
        self.link.moved(s, pos, ply.player, ply.long)
        log.info("move", extra={"game_id": s.game_id, "ply": len(s.plies),
                                **({} if s.game.hidden_information else {"move": ply.text}),
                                "player": s.game.player_names[ply.player],
                                **({"amends": True} if amend else {})})
        self._changed()

    def _on_takeback(self, moves: list[Move]) -> None:
        if self.board is not None and self.board.replacing is not None:
            return  # the move callback writes the replacement as one amend record
        if self.fog is not None or (self.computer.table and not self.computer.table.committing):
            return  # the board holds a view: nothing is journalled but the game's moves
        s = self.session
        self.scorebook.takeback(len(moves))
        self.online.taken_back(len(moves))  # online: a takeback offer
        self.coach_seat.taken_back()
        self.clock_seat.taken_back(s, s.game.ply_mover(self.position), self.clock())
        self.link.taken_back(s, len(moves))
        log.info("takeback", extra={"game_id": s.game_id, "plies": len(moves)})
        self._changed()

    def _on_game_over(self, outcome: Outcome) -> None:
        s = self.session
        if self.scorebook.end(outcome):
            self.link.ended(s, outcome.result, outcome.reason)
            self.adaptive.game_over(s.game_id, outcome, self.opponent.computer,
                                    s.game.players,  # online and linked games never count
                                    self.online.record is None and s.link is None)
        log.info("game over", extra={"game_id": s.game_id, "result": outcome.result,
                                     "reason": outcome.reason})
        self._changed()

    def _on_command(self, name: str, player: int | None) -> None:
        log.info("command", extra={"command": name, "player": player})
        if name in (NEW_GAME, NEXT_GAME):
            self._restart = name  # the board resets itself; the journal follows
        elif self.board is not None and name in self.board.progress.commands:
            self.online.from_board(name)
        elif name == HINT:
            self._ask("hint")

    def _follow_board_restart(self) -> None:
        """After the board's own new-game / next-game command: a new journal game."""
        if self._restart is None:
            return
        self._restart = None
        assert self.board is not None
        self.link.fog_detach()
        self.scorebook.abandon()
        self.resume_offer = None
        self.online.new_game()
        game = self.board.game
        options = self.session.options if game is self.session.game else {}
        pos = self.board.position
        setup = game.position_text(pos)
        self.computer.new_game(self.adaptive.computer(self.opponent.computer))
        self.scorebook.install(session := self._new_session(game, options, setup))
        self.computer.lay_table(self.board, session, False, self._on_move, self._on_takeback)
        self._dress(game, pos)
        log.info("new game", extra={"game_id": self.session.game_id, "game": game.name,
                                    "setup": setup, "from": "board"})
        self._changed()

    # -- what the link asks (LinkHost) ---------------------------------------------------
    def changed(self) -> None:
        self._changed()

    def join_linked(self, start: Start) -> None:
        self.new_game(start.game, start.options, start.setup, time_control=start.clock,
                      link=start)

    def _join(self, start: Start, consent: bool = False) -> None:
        """Another board's invitation, as the link takes it (tests call it directly)."""
        self.link.join(start, consent)

    def begin_online(self, game: Game, options: dict[str, Any], setup: str,
                     names: list[str]) -> None:
        """The online room's game on this board: no engine, no coach, the server's clock."""
        switch = self._simulated_layout_for(game.name)
        self.link.fog_detach()
        self.scorebook.abandon()
        self.resume_offer = None
        self.computer.new_game(None)
        self.coach_seat.new_game()
        self.coach.on = False
        if switch is not None:
            self._use_simulated_layout(switch)
        session = self.scorebook.new(game, options, setup, names, None, None,
                                     self._seats_record())
        self._install(session, game.parse_view(setup))  # (the owner's view, if hidden)

    def online_layout_problem(self, game: Game) -> str | None:
        if self._simulated_layout_for(game.name) is not None:
            return None  # (the simulated board takes the layout made for it)
        try:
            self._check_game(game.name)
        except ConfigError as exc:
            return exc.args[0].values["problem"]
        return None

    def online_aborted(self) -> None:
        self.new_game(self.game.name, self.game_options)

    def online_set_back(self, plies: int) -> None:
        self.scorebook.takeback(plies)
        self._changed()

    def begin_refereed(self, game: Game, start: Start, pos: Position) -> GameSession:
        self.scorebook.abandon()
        self.resume_offer = None
        self.computer.new_game(None)
        self.coach_seat.advice = {}
        session = self._new_session(game, dict(start.options), start.setup, start,
                                    clock=False)  # refereed games: no clock
        self._install(session, pos)
        return session

    # -- the loop ----------------------------------------------------------------------
    def _is_extendable(self, frame: Frame) -> bool:
        return self.board is not None and self.board.is_extendable(frame)

    def tick(self) -> None:
        """One poll: committed frames to the state machine, held ones as a preview, the
        LEDs lit.  The back end was read by :meth:`Sensing.catch_up` (or by the emulated
        scanner while simulated time advanced)."""
        board = self.board
        assert board is not None
        now = self.clock()
        pipeline = self.sensing.pipeline
        if self.watch.watch(self.sensing, now):
            self._changed()
        before = board.interaction
        for frame in pipeline.frames(now):
            board.feed(frame)
            self._follow_board_restart()
        held = pipeline.gate.queue[0] if pipeline.gate.queue else None
        if held is not None and held is not self._previewed:
            self._previewed = held
            board.preview(held, prebuild=False)  # built once the LEDs show the preview
        board.set_resuming(self.resume_offer is not None)  # the pads ask (issue 37)
        board.tick(now)
        if self.clock_seat.run(self.session, board, self.resume_offer is None
                               and self.failure is None, now):
            self._changed()
        self.coach_seat.turn(self.session, board, self.position)
        self.link.turn()
        if self.online.tick(board):
            self._changed()
        self._computer_turn(now)
        if board.interaction != before:
            self._changed()
        self._light(now)
        board.prebuild()

    def _computer_turn(self, now: float) -> None:
        """The computer's move (see :class:`~controller.seats.ComputerSeat`); on the
        simulated board its hand then makes it, one action at a time."""
        board = self.board
        assert board is not None
        computer = self.computer
        if computer.hand:
            shown = computer.hand_shown
            if computer.hand_turn(now, any(sent < shown
                                           for sent in list(self.pages_sent.values()))):
                self._changed()  # the page shows the hand (a lift may change nothing else)
            return
        if board.state != "turn" or self.session.ended or not computer.seats:
            return
        move, changed = computer.turn(board, self.session, self._computer_movetime(now),
                                      self.layout, now)
        if changed:
            self._changed()
        if move is not None:
            computer.hand_shown = self.version

    def _computer_movetime(self, now: float) -> float | None:
        """On a clock the computer spends its share of what it has left; None: the
        level's time."""
        return self.clock_seat.movetime(self.session, self.position, now)

    def _ask(self, kind: str) -> None:
        assert self.board is not None
        if self.online.playing:
            return  # fair play: no engine during an online game
        self.coach_seat.ask(kind, self.session, self.board, now=self.position)

    @property
    def busy(self) -> bool:
        """Something is under way that wants the loop at full speed (the computer's
        search or the simulated hand making its move)."""
        return self.computer.busy or self.coach_seat.busy

    def _light(self, now: float) -> None:
        """The LEDs for the interaction now (see :class:`~controller.lighting.Lighting`)."""
        assert self.board is not None
        if self.lighting.light(self.board.interaction, now):
            self._notify()

    def step(self, seconds: float) -> None:
        """Simulated board only: let ``seconds`` of simulated time pass, polling once per
        scan period as the live loop does (tests and benchmarks)."""
        if self.sim is None:
            raise ServiceError("step() needs the simulated board")
        period_us = round(self.sensing.period * 1e6)
        end = self.sim.clock.us + round(seconds * 1e6)
        while self.sim.clock.us < end:
            self.sim.advance(min(period_us, end - self.sim.clock.us) / 1e6)
            self.tick()

    # -- notifications ----------------------------------------------------------------
    def _changed(self) -> None:
        self.version += 1
        self._notify()

    def _notify(self) -> None:
        for listener in list(self.listeners):
            listener()

    # -- what the page reads -----------------------------------------------------------
    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def position(self) -> Position:
        assert self.board is not None
        table = self.computer.table
        return self.board.position if table is None else table.position

    def expected_position(self) -> Position:
        """What the board should show (a table that holds a view: the view)."""
        assert self.board is not None
        return self.board.position

    @property
    def plies(self) -> list[tuple[int, str]]:
        return self.session.plies

    @property
    def setup(self) -> str:
        return self.session.setup

    @property
    def game_options(self) -> dict[str, Any]:
        return self.session.options

    @property
    def game_id(self) -> str:
        return self.session.game_id

    @property
    def interaction(self) -> Interaction:
        assert self.board is not None
        return self.board.interaction

    @property
    def outcome(self) -> Outcome | None:
        assert self.board is not None
        return self.board.outcome

    def choice_labels(self) -> list[str]:
        """Every option of the open choice (the pads show one page of them)."""
        choice = self.board.choice if self.board is not None else None
        return list(choice.labels) if choice is not None else []

    def led_glow(self) -> list[list[Any]]:
        """Per spot: display colour and opacity of its LED now."""
        return self.lighting.glow

    def clock_json(self) -> dict[str, Any] | None:
        """The seats' clocks for the page (None without a clock); online: the server's."""
        if self.online.record is not None:
            return self.online.clock_json()
        return self.clock_seat.json(self.session, self.clock())

    def advice_json(self) -> dict[str, Any]:
        """Hints, the coach and the evaluation for the page."""
        return self.coach_seat.json(self.game)

    def link_json(self) -> dict[str, Any] | None:
        """The link for the page: connection, the linked game's seats, a stop."""
        return self.link.json()

    def club_json(self) -> dict[str, Any]:
        """The club's linked games for the spectators' page."""
        return self.link.club_json()

    def set_coach(self, on: bool) -> None:
        """The page's Coach box (journalled: a resume keeps it; refused during an online
        game: fair play)."""
        if on and self.online.playing:
            raise ServiceError(FAIR_PLAY)
        self.coach_seat.set_on(on)
        self.scorebook.seats(self._seats_record())

    def page_viewer(self, viewer: int | None) -> int | None:
        """Whose view the page shows in a game with hidden information: a refereed
        game's board serves its own player; against the computer a person, never one of
        the computer's seats (the one asked for, else the person to move, else the
        first); otherwise ``viewer`` (None: the side to move, hot seat)."""
        if self.fog is not None and viewer is None:
            return self.fog.seat
        seats = self.computer.seats
        if not seats or not self.game.hidden_information:
            return viewer
        people = [p for p in range(self.game.players) if p not in seats]
        if not people or viewer in people:
            return viewer
        mover = self.game.ply_mover(self.position)
        return mover if viewer is None and mover in people else people[0]

    def snapshot(self) -> BoardSnapshot:
        """The board as the page sees it now (a frozen value: ``controller/web/`` builds
        the page from it)."""
        return take_snapshot(self)

    def die_expected(self) -> bool:
        """Whether the player to move must roll the die now (KaleidoChess dice)."""
        moves = [] if self.outcome is not None else self.game.legal_moves(self.position)
        return bool(moves) and all(m.kind == "roll" for m in moves)

    def health(self) -> dict[str, Any]:
        """What ``/health`` says: ok, degraded (and why) or failed."""
        return health_of(self)

    @page_request
    def answer_choice(self, index: int) -> None:
        """Answer the open choice with option ``index`` of :meth:`choice_labels`."""
        assert self.board is not None
        labels = self.choice_labels()
        if not labels:
            raise ServiceError("there is no choice to answer")
        if not 0 <= index < len(labels):
            raise ServiceError(Text("choice {index} does not exist (0..{last})", index=index,
                                    last=len(labels) - 1))
        self.board.answer_choice(index)
        self._follow_board_restart()
        self._changed()

    #: commands the page may give for the player to move
    COMMANDS = ("offer draw", "accept draw", "resign", "hint", "evaluate", "coach on",
                "coach off", "takeback")

    @page_request
    def command(self, name: str) -> None:
        """``offer draw``, ``accept draw`` or ``resign`` for the player to move (the same
        commands as the board's own menu; the journal follows through the callbacks);
        ``hint``, ``evaluate`` and ``coach on|off`` ask the engine."""
        assert self.board is not None
        if name not in self.COMMANDS:
            raise ServiceError(Text("unknown command {name} (one of {known})",
                                    name=repr(name)[:40], known=", ".join(self.COMMANDS)))
        if name in ("coach on", "coach off"):
            self.set_coach(name == "coach on")
            return
        if self.outcome is not None:
            raise ServiceError("the game is over")
        if self.online.playing:  # the server decides; no engine help (fair play)
            if name in ("hint", "evaluate"):
                raise ServiceError(FAIR_PLAY)
            try:
                return self.online.command(name)
            except OnlineRefused as exc:  # (its Text: said in the page's language)
                raise ServiceError(text_of(exc)) from None
        if name in ("hint", "evaluate"):
            if self.board.state != "turn" and name == "hint":
                raise ServiceError("a hint is shown when it is a player's turn")
            self._ask(name)
            return
        try:
            if name == "resign":
                self.board.resign()
            elif name == "takeback":  # (a table that holds the person's view only)
                self.computer.take_back(self.board.options.takeback)
            elif name == "offer draw":
                self.board.offer_draw()
            else:
                self.board.accept_draw()
        except ValueError as exc:
            raise ServiceError(exc.args[0] if exc.args else str(exc)) from None
        self._changed()

    @page_request
    def roll_die(self) -> int:
        """The page's virtual die: a random face, entered as the roll move."""
        assert self.board is not None
        if not self.die_expected():
            raise ServiceError("no die roll is expected now")
        move = self.rng.choice(self.game.legal_moves(self.position))
        self.board.execute(move)
        self._changed()
        return int(move.token.split(":")[1])

    @page_request
    def new_game(self, name: str, options: dict[str, Any] | None = None,
                 setup: str | None = None, computer: Computer | None = None,
                 time_control: str | None = None, remote: dict[int, str] | None = None,
                 link: Start | None = None) -> None:
        """End the current game (unfinished: result ``*``) and start ``name``; the
        computer plays the players of ``computer`` (nobody by default); ``time_control``
        ("3+2", "" for none) replaces the configured one from this game on.  ``remote``
        (player → board name) links the game: those players play on other boards of the
        club, which are invited; ``link`` joins another board's game."""
        options = dict(options or {})
        if name in GAMES and not (remote or link or setup):  # (linked: the referee draws)
            options = GAMES[name].start_options(options)
        if time_control:
            try:
                parse_time_control(time_control)
            except ClockError as exc:
                raise ServiceError(exc.args[0]) from None  # (a Text: the page translates it)
        if computer is not None:
            game_class = GAMES.get(name)
            players = game_class(**options).players if game_class is not None else 2
            bad = [p for p in computer.seats if not 0 <= p < players]
            if bad or not 1 <= computer.level <= 10:
                raise ServiceError(Text("computer: players 0..{last} and a level 1..10, got "
                                        "players {players} level {level}", last=players - 1,
                                        players=sorted(computer.seats), level=computer.level))
        if self.online.playing:  # abandoned only when the player says so
            raise ServiceError("an online game is on: resign or abort it first")
        switch = None if remote or link else self._simulated_layout_for(name)
        try:
            if switch is None:
                self._check_game(name)
        except ConfigError as exc:
            raise ServiceError(exc.args[0].values["problem"]) from None
        game = get_game(name, **options)  # bad options fail before the journal changes
        if setup:
            game.check_playable(game.parse_position(setup))
        invite = None
        if remote:
            control = self.time_control if time_control is None else time_control.strip()
            try:
                invite = self.link.start(game, options, setup, remote, control)
            except LinkRefused as exc:
                raise ServiceError(text_of(exc)) from None
            if self.link.refereed(game, invite):  # the referee sends each board its view
                self.link.request_refereed(invite)
                return
        self.link.fog_detach()
        self.scorebook.abandon()
        self.resume_offer = None
        if time_control is not None:
            self.clock_seat.time_control = time_control.strip()
        self.computer.new_game(self.adaptive.computer(computer))
        self.coach_seat.new_game()
        self.link.new_game()
        self.online.new_game()
        if switch is not None:
            self._use_simulated_layout(switch)
        session = self._start(name, options, setup, game, link or invite)
        if invite is not None:
            self.link.invite(invite)
        elif link is not None and self.remote is not None:
            self.link.attach(session, self.position)

    def _simulated_layout_for(self, name: str) -> str | None:
        """The simulated board can be any printed board: the one made for ``name`` when
        this one is not (None: no change needed, or not a simulated board)."""
        if self.sim is None or name not in GAMES or name in self.layout.games:
            return None
        return layout_playing(name)

    def _use_simulated_layout(self, name: str) -> None:
        """Another printed board under the simulated hand (the current game is ended):
        the simulated sensors, the LEDs and the board machine anew (the page redraws
        when it sees the new layout)."""
        layout = load_layout(name)
        lighting = Lighting(self.config, layout)  # checks the LED chain first
        with contextlib.suppress(Exception):
            self.lighting.close()
        self.sensing.close()
        self.config.board.layout = name
        self.layout, self.board, self.lighting = layout, None, lighting
        self.sensing = open_sensing(self.config, layout, self._is_extendable, 0)
        self.sim = self.sensing.sim
        self._previewed = None
        self.watch = SensingWatch()
        self.lighting.open(self.config, self.sensing.send_led_frame, self.clock)
        log.info("layout", extra={"layout": name, "from": "page"})

    @page_request
    def link_resync(self) -> None:
        """After the linked boards disagreed: take the other board's moves."""
        try:
            self.link.resync()
        except LinkRefused as exc:
            raise ServiceError(text_of(exc)) from None

    @page_request
    def link_accept(self, accept: bool = True) -> None:
        """The player's answer to the invitation waiting: leave this game for it, or not."""
        try:
            self.link.accept(accept)
        except LinkRefused as exc:
            raise ServiceError(text_of(exc)) from None

    @page_request
    def decline_takeback(self) -> None:
        """The page's answer to the other board's takeback request: no."""
        try:
            self.link.decline_takeback()
        except LinkRefused as exc:
            raise ServiceError(text_of(exc)) from None

    def set_tutorial(self, on: bool) -> None:
        """Start (from the current move) or stop the page's guided first game."""
        self.tutorial_since = len(self.position.moves) if on else None
        self._changed()

    @page_request
    def decide_resume(self, keep: bool) -> None:
        """The page's answer to the resume prompt."""
        if self.resume_offer is None:
            raise ServiceError("no resumed game is waiting for an answer")
        if keep:
            self.resume_offer = None
            self._changed()
            return
        self.new_game(self.session.game.name, self.session.options, None)

    @page_request
    def sim_action(self, action: dict[str, Any]) -> None:
        """A human action on the simulated board (the page's simulator)."""
        if self.sim is None:
            raise ServiceError("the board is not simulated: move the real pieces")
        from controller.sensing.sim.hand import perform
        perform(self, action)
        self._changed()

    # -- shutdown ----------------------------------------------------------------------
    def close(self) -> None:
        self.stopping = True
        self.voice.close()
        self.computer.close()
        self.coach_seat.close()
        self.link.close()
        self.online.close()
        self._notify()
        with contextlib.suppress(Exception):
            self.lighting.close()
        with contextlib.suppress(Exception):
            self.sensing.close()
        remaining = None
        with contextlib.suppress(Exception):  # the clocks as they stopped, for a restart
            remaining = ClockSeat.stopped(self.session, self.clock())
        self.scorebook.close(remaining)


__all__ = ["BoardService", "JournalWriteError", "ServiceError", "ServiceFailed",
           "open_sensing"]
