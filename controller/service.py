"""``fairyboard run``: the board service.

One process, one asyncio loop.  The loop polls the sensing back end at its scan rate and
pushes every frame through the pipeline — debounce → settle gate → board state machine
(:class:`controller.board.Board`, which asks the reconciler) → LED scene → LED driver;
uvicorn serves the companion page from the same loop, so a page request and a board scan
never run at the same time and nothing needs a lock.

The default configuration is the simulated board, so ``fairyboard run`` works on any
computer: the page is then also the simulator's user interface, and its actions go
through the pipeline a physical board uses (SimulatedBoard → emulated electronics → the
production scanner code → frames).

Durability: a committed move is written to the journal (``GameWriter.move``, fsync-ed) in
the state machine's move callback, which runs before the machine publishes the
interaction that shows the move as done — so neither the LEDs nor the page can show a
move the journal does not hold.  If the journal cannot be written the service stops.
On start the last unfinished game is resumed: the board first guides the player until it
matches the saved position (set-up verification); the page offers a new game instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import random
import signal
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.board import HINT, NEW_GAME, NEXT_GAME, Board, BoardOptions
from controller.board.fogsync import FogSync
from controller.clock import ClockError, GameClock, format_clock, parse_time_control
from controller.coach import Coach, evaluation_words, parse_advice, review_words
from controller.config import (
    Config,
    ConfigError,
    PlayerSettings,
    apply_overrides,
    load_config,
)
from controller.interaction import Interaction
from controller.journal import GameRecord, GameWriter, Journal, JournalError
from controller.layout import Layout, LayoutError, load_layout
from controller.leds.drivers import open_leds
from controller.leds.palette import LedError, LedSettings, Palette
from controller.leds.scene import LedFrame, SceneRenderer
from controller.link.client import BrokerSettings
from controller.link.game import (
    Disagree,
    Show,
    TakeBack,
    TakebackAsked,
    TakebackSettled,
    Withdrawn,
)
from controller.link.messages import LinkError, SeatView, Start, check_name, position_digest
from controller.link.remote import Invitation, Remote
from controller.opponent import Computer, Opponent
from controller.rules import GAMES, Game, Move, Outcome, Position, RulesError, get_game
from controller.rules.core import Termination
from controller.sensing.backends import QUIET_S as QUIET_S  # re-exported: the loop's rest
from controller.sensing.backends import open_sensing
from controller.sensing.frame import Frame, SensingError

log = logging.getLogger("fairyboard.service")

EXIT_BAD_CONFIG = 2
#: the loop's period while the simulated board rests (LED blinks still look smooth)
RESTING_PERIOD_S = 0.05
#: seconds between two actions of the simulated hand making the computer's move
HAND_STEP_S = 0.12
#: the simulated hand's first action waits until every open page was sent the computer's
#: move lit (a page on a loaded machine may lag the loop), but never longer than this
HAND_PAGE_WAIT_S = 3.0

#: Errors that mean "this configuration cannot run": one line, exit status 2.
STARTUP_ERRORS = (ConfigError, LayoutError, LedError, RulesError, SensingError, JournalError,
                  OSError, ValueError)


class ServiceError(ValueError):
    """A request the service cannot carry out (bad game name, no choice open, …)."""


class JournalWriteError(OSError):
    """The journal refused a record (disk full, I/O error): the service stops with
    status 1; nothing that is not on disk is shown as done."""


class ServiceFailed(ServiceError):
    """A page request after (or causing) a journal write failure: the service is stopping."""


# ---------------------------------------------------------------------------------
# logging: one JSON object per line on stderr (journald keeps them as they are)

_RESERVED = frozenset(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime",
                                                                 "color_message"}


def _extra(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in record.__dict__.items()
            if k not in _RESERVED and not k.startswith("_")}


class JsonFormatter(logging.Formatter):
    """``{"ts": …, "level": …, "logger": …, "msg": …, <extra fields>}`` per record."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        out.update(_extra(record))
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """``time level logger: message  key=value …`` for a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%H:%M:%S", time.localtime(record.created))
        line = f"{stamp} {record.levelname.lower():<7} {record.name}: {record.getMessage()}"
        extra = " ".join(f"{k}={v}" for k, v in _extra(record).items())
        if extra:
            line += f"  {extra}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def setup_logging(level: str = "info", fmt: str = "json",
                  stream: Any = None) -> logging.Handler:
    """Route our records and uvicorn's through one handler on stderr (returned, so a
    caller running in process can remove it again)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper()))
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        lg = logging.getLogger(name)
        lg.handlers.clear()
        lg.propagate = True
    # one line per HTTP request, and one per state-machine transition (the ``transitions``
    # library logs every trigger at info: 69 % of the log's bytes), are noise at info level
    quiet = logging.DEBUG if level == "debug" else logging.WARNING
    logging.getLogger("uvicorn.access").setLevel(quiet)
    logging.getLogger("transitions").setLevel(quiet)
    return handler


# ---------------------------------------------------------------------------------
# configuration → sensing


def led_settings(config: Config) -> LedSettings:
    """The renderer's settings from the ``[leds]`` section."""
    c = config.leds
    return LedSettings(brightness=c.brightness, budget_ma=c.current_budget_ma,
                       max_fps=c.max_fps, dark_level=c.dark_level,
                       dark_square_level=c.dark_square_level)


# ---------------------------------------------------------------------------------
# the service


#: the board's phases in which the mover's clock runs (see BoardService._run_clock)
CLOCK_PHASES = frozenset({"turn", "lifted", "settling", "choice", "execute"})


@dataclass
class GameSession:
    """The game being played and its journal file.  The position itself is the state
    machine's (``board.position``): one truth."""

    game: Game
    setup: str
    options: dict[str, Any]
    writer: GameWriter
    #: (player, notation) per committed ply, in journal order
    plies: list[tuple[int, str]] = field(default_factory=list)
    #: the end record is written
    ended: bool = False
    #: the seats' clocks when the game is played on a clock (``board.clock``)
    game_clock: GameClock | None = None
    #: a fallen flag already acted on (ended the game, or reported with on_flag = report)
    flag: int | None = None
    #: a linked game (controller/link): its start message (seats by board name)
    link: Start | None = None

    @property
    def game_id(self) -> str:
        return self.writer.path.stem


def _page_request(method: Callable[..., Any]) -> Callable[..., Any]:
    """A page request that may write the journal: after a write failure it is refused
    (ServiceFailed, one line), never answered with state the journal does not hold."""
    import functools

    @functools.wraps(method)
    def request(self: BoardService, *args: Any, **kwargs: Any) -> Any:
        if self.failure is not None:
            raise ServiceFailed(f"{self.failure}; the service is stopping")
        try:
            return method(self, *args, **kwargs)
        except JournalWriteError:
            raise ServiceFailed(f"{self.failure}; the service is stopping") from None
    return request


class BoardService:
    """The running board: sensing, state machine, LEDs, journal and the page's API."""

    def __init__(self, config: Config, *, seed: int | None = None) -> None:
        """``seed`` makes the virtual die and the simulator's magnets repeatable."""
        self.config = config
        self.started = time.monotonic()
        self.stopping = False
        self.version = 0          # bumped on every change the page shows
        self.led_version = 0      # bumped when the LED colours change
        self.listeners: set[Callable[[], None]] = set()
        #: open pages: the newest ``version`` each has been sent (see HAND_PAGE_WAIT_S)
        self.pages_sent: dict[object, int] = {}
        self.rng = random.Random(seed)
        self.layout: Layout = load_layout(config.board.layout)
        self._check_game(config.board.game)
        self.base_palette = Palette.from_config(config.leds.palette)
        self.settings = led_settings(config)
        self.settings.check_chain(self.layout.led_count)
        if config.leds.driver == "serial" and not (
                config.sensing.backend == "serial" or config.sensing.simulated_link):
            raise ConfigError('leds.driver = "serial" sends the LED frames to the '
                              'microcontroller: it needs sensing.backend = "serial"')
        self.journal = Journal(config.journal.path)
        self.journal.folder.mkdir(parents=True, exist_ok=True)
        self.board: Board | None = None
        #: the page's guided first game: the ply it began at (None: not running)
        self.tutorial_since: int | None = None
        #: the computer's players and its search process (none until a game asks for it)
        self.opponent = Opponent(computer_from_config(config), seed=seed or 0,
                                 engine=config.engine)
        #: the time control of new games ("" no clock); the page's "New game" may change it
        self.time_control = config.board.clock
        #: hints, the coach and the evaluation (its own worker process)
        self.coach = Coach(margin=config.board.coach_margin)
        self.coach.on = config.board.coach
        self.advice: dict[str, Any] = {}
        self._reviewing: tuple | None = None  # the coach's review under way: its key
        #: linked boards: the broker connection (None: this board plays alone)
        self.remote: Remote | None = open_remote(config)
        self._link_pending: Show | None = None  # a remote move waiting for the board
        #: a refereed game (hidden information): the board holds its player's view only
        self.fog: FogSync | None = None
        self._fog_requested: str | None = None  # a refereed game asked for, not yet begun
        #: why a linked game stopped (the boards disagree), shown on the page
        self.link_problem: str | None = None
        #: a takeback asked or answered between the linked boards, shown on the page
        self.link_notice: str | None = None
        self._link_epoch_known = True  # see _link_turn
        #: simulated board: actions of the simulated hand still to make (the computer's
        #: move), one every HAND_STEP_S so the sensors see each of them
        self._hand: list[dict[str, Any]] = []
        self._hand_at = 0.0
        self._hand_shown = 0  # the version showing the move the hand is to make
        self._hand_first = False  # the hand has not acted yet
        self.sensing = open_sensing(config, self.layout, self._is_extendable, seed or 0)
        try:
            self._set_up(config)
        except BaseException:
            self.sensing.close()
            raise

    def _set_up(self, config: Config) -> None:
        self.sim = self.sensing.sim
        self.clock = self.sensing.clock
        self.last_raw_time: float | None = None
        self._scans_seen = 0
        self.sensing_problem = ""
        self._previewed: Frame | None = None
        self.leds = open_leds(config.leds, self.layout, send_frame=self.sensing.send_led_frame,
                              clock=self.clock)
        self.led_frame: LedFrame | None = None
        self._lit: tuple[Any, Any, float | None] = (None, None, None)
        self._glow: list[list[Any]] = [["#000000", 0.0]] * len(self.layout.spots)
        self._spot_at_led = self.layout.led_spots()
        #: (LED colour, gain) -> the page's [colour, opacity] for it (a scene has a handful)
        self._glow_of: dict[tuple[Any, float], list[Any]] = {}

        from controller.web.state import games_json, layout_json
        self.layout_json = layout_json(self.layout)
        self.games = games_json(self.layout, _game_class)
        self.resume_offer: dict[str, Any] | None = None
        #: journal files that could not be read (quarantined) or were damaged, one line each
        self.journal_problems: list[str] = []
        #: set when a journal write failed: the service stops (exit status 1)
        self.failure: str | None = None
        self.on_failure: Callable[[], None] | None = None
        self._state_cache: dict[Any, dict[str, Any]] = {}
        self._restart: str | None = None
        self._clock_low = False
        self.session = self._resume_or_start()
        self._light(self.clock())

    # -- games and the journal ---------------------------------------------------------
    def _check_game(self, name: str) -> None:
        if name not in GAMES:
            raise ConfigError(f"board.game: unknown game {name!r} (known: {', '.join(GAMES)})")
        if name not in self.layout.games:
            raise ConfigError(f"board.game: layout {self.layout.name} is not made for "
                              f"{name} (it serves {', '.join(self.layout.games)})")

    def _resume_or_start(self) -> GameSession:
        """Resume the newest game if it is unfinished.  A file that cannot be read — empty,
        no start record, options or set-up the game rejects — is quarantined (renamed aside)
        and reported; it never keeps another game from being resumed or a new one started."""
        records, problems = self.journal.scan()
        for problem in problems:
            self._quarantine(problem.path, problem.problem)
        record = records[-1] if records else None
        while record is not None and not record.finished and record.game in self.layout.games:
            try:
                return self._resume(record)
            except JournalError as exc:  # the file, not the board: set it aside
                self._quarantine(record.path, " ".join(str(exc).split()).removeprefix(
                    f"{record.path.name}: "))
                records.pop()
                record = records[-1] if records else None
        c = self.config.board
        options = GAMES[c.game].start_options(c.options) if c.game in GAMES else dict(c.options)
        return self._start(c.game, options, None)

    def _quarantine(self, path: Path, problem: str) -> None:
        try:
            aside: Path | str = self.journal.quarantine(path)
        except OSError as exc:
            aside = f"(cannot rename: {exc.strerror or exc})"
        line = f"{path.name}: {problem}; quarantined as {getattr(aside, 'name', aside)}"
        self.journal_problems.append(line)
        log.warning("journal file unreadable; quarantined", extra={
            "file": path.name, "problem": problem, "quarantined": str(aside)})

    def _resume(self, record: GameRecord) -> GameSession:
        if record.link and record.link.get("refereed") and self.remote is not None:
            return self._resume_refereed(record)
        try:  # with its whole history: takebacks, repetitions
            game, pos = record.replay(salvage=True)
            plies = _plies_of(game, record)
        except (RulesError, TypeError, ValueError) as exc:
            if isinstance(exc, JournalError):
                raise
            raise JournalError(f"{record.path.name}: {' '.join(str(exc).split())}") from None
        if record.damage:
            self.journal_problems.append(record.damage)
            log.warning("journal damaged; resuming the moves before the damage", extra={
                "game_id": record.id, "plies": len(plies), "dropped": record.damage})
        writer = self._write(self.journal.continue_game, record)
        session = GameSession(game, record.setup, dict(record.options), writer, plies)
        if record.clock:
            session.game_clock = _resumed_clock(game, record, plies)
        if record.link and self.remote is not None:
            session.link = Start(record.link["game_id"], record.game, dict(record.options),
                                 record.setup, tuple(record.link["seats"]), record.clock or "")
            self.remote.attach(session.link, _link_plies(game, record.setup, pos),
                               _link_movers(game, record.setup, pos), resumed=True)
        self.resume_offer = {"id": record.id, "title": game.title, "plies": len(plies),
                             "date": record.date.replace("T", " "),
                             "dropped": record.damage}
        log.info("resuming unfinished game", extra={
            "game_id": record.id, "game": record.game, "plies": len(plies),
            "torn_tail": record.torn_tail})
        self._install(session, pos)
        return session

    def _resume_refereed(self, record: GameRecord) -> GameSession:
        """A refereed game: the journal holds its first view only (the board never knows
        more); the referee's retained view brings the board up to date."""
        game = get_game(record.game, **record.options)
        link = Start(record.link["game_id"], record.game, dict(record.options), record.setup,
                     tuple(record.link["seats"]))
        session = GameSession(game, record.setup, dict(record.options),
                              self._write(self.journal.continue_game, record), link=link)
        log.info("resuming refereed game", extra={"game_id": record.id,
                                                  "link_game": link.game_id})
        self._install(session, game.parse_view(record.setup))
        self._fog_attach(link)
        return session

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
                     link: Start | None = None) -> GameSession:
        """A new journal game, on the current time control's clock if there is one."""
        control = self.time_control
        link_record = {"game_id": link.game_id, "seats": list(link.seats)} if link else None
        if link_record is not None and game.hidden_information:
            link_record["refereed"] = True  # the journal holds views, never the game
        writer = self._write(self.journal.new_game, game.name, options, setup,
                             self._player_names(game), None, control or None, link_record)
        session = GameSession(game, setup, options, writer, link=link)
        if control:
            session.game_clock = GameClock(parse_time_control(control), game.players)
        return session

    def _player_names(self, game: Game) -> list[str]:
        names = list(self.config.players.names)
        if names == PlayerSettings().names:  # not set: the game's own names (White, Red, …)
            names = []
        names += list(game.player_names[len(names):])
        return names[:game.players]

    def _install(self, session: GameSession, pos: Position) -> None:
        """Put a session on the board: set-up verification of ``pos`` starts."""
        self.session = session
        if self.tutorial_since is not None:
            self.tutorial_since = len(pos.moves)
        game = session.game
        self.palette = self.base_palette.for_players(game.player_names)
        self.renderer = SceneRenderer(self.layout, self.palette, self.settings)
        from controller.web.state import supply_names
        self.supply = supply_names(game, pos)
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
        link = session.link
        if link is not None and self.remote is not None:  # the others' moves come linked
            self.board.set_away(frozenset(i for i, b in enumerate(link.seats)
                                          if b != self.remote.board))
        self._changed()

    def _write(self, record: Callable[..., Any], *args: Any) -> Any:
        """One journal record; a refusal (disk full, I/O error) fails the service."""
        if self.failure is not None:
            raise JournalWriteError(self.failure)
        try:
            return record(*args)
        except OSError as exc:
            self._fail(f"journal write failed: {exc.strerror or exc}")
            raise JournalWriteError(self.failure) from exc

    def _fail(self, message: str) -> None:
        """Stop the service (exit status 1): /health says why, the page shows nothing more
        than the journal holds."""
        if self.failure is None:
            self.failure = message
            log.error("journal write failed; stopping",
                      extra={"problem": message, "journal": str(self.journal.folder)})
        self.stopping = True
        self._state_cache.clear()
        if self.on_failure is not None:
            self.on_failure()
        self._notify()

    def _on_move(self, move: Move) -> None:
        """A move is committed (already on ``board.position``): journal it before the
        board publishes it.  Raises OSError when the disk refuses — nothing is shown.
        A move that replaces the last one (the Cube handed over after it) is one ``amend``
        record: a kill can never leave the journal without the move the board showed."""
        s = self.session
        pos = self.position
        game = s.game
        last = pos.pop()  # notation is written in the position before the move
        try:
            text = game.move_text(pos, move)
            long = game.long_move_text(pos, move)
            player = game.ply_mover(pos)
            shown = game.player_move_text(pos, move)
        finally:
            pos.push(last)
        amend = self.board is not None and self.board.replacing is not None
        remaining = self._press_clock(game.ply_mover(pos))
        # returns only once the record is on disk
        clock = () if remaining is None else (remaining,)  # a game without a clock: none
        self._write(s.writer.amend if amend else s.writer.move, text, long, *clock)
        if amend:
            s.plies.pop()
        s.plies.append((player, shown))
        self.advice = {"note": self.advice.get("note")}  # a hint is about the last position
        if (self.coach.on and not game.hidden_information
                and player not in self.opponent.computer.seats
                and (s.link is None or self.remote is None
                     or s.link.seats[player] == self.remote.board)):
            self._ask("review", played=long)
        if s.link is not None and self.remote is not None:
            self.remote.moved(player, long, position_digest(game.position_text(pos)))
        log.info("move", extra={"game_id": s.game_id, "ply": len(s.plies), "move": text,
                                "player": game.player_names[player],
                                **({"amends": True} if amend else {})})
        self._changed()

    def _on_takeback(self, moves: list[Move]) -> None:
        if self.board is not None and self.board.replacing is not None:
            return  # the move callback writes the replacement as one amend record
        if self.fog is not None:
            return  # a refereed game: nothing is journalled but its views
        s = self.session
        self._write(s.writer.takeback, len(moves))
        del s.plies[len(s.plies) - len(moves):]
        self.advice = {}
        self.coach.cancel()
        self._reviewing = None
        if s.game_clock is not None and s.game_clock.running is not None:
            s.game_clock.switch(s.game.ply_mover(self.position), self.clock())
        if s.ended:  # a takeback after the end reopens the game (the journal agrees)
            s.ended = False
        if s.link is not None and self.remote is not None:  # the other boards must agree
            self._link_pending = None
            self.remote.took_back(len(moves))
            asking = self.remote.game is not None and self.remote.game.asked is not None
            self.link_notice = ("takeback asked: waiting for the other board to agree"
                                if asking else "takeback agreed")
            self._link_away()
        log.info("takeback", extra={"game_id": s.game_id, "plies": len(moves)})
        self._changed()

    def _on_game_over(self, outcome: Outcome) -> None:
        s = self.session
        if not s.ended:
            self._write(s.writer.end, outcome.result, outcome.reason)
            s.ended = True
            if s.link is not None and self.remote is not None:
                self.remote.ended(outcome.result, outcome.reason)
        log.info("game over", extra={"game_id": s.game_id, "result": outcome.result,
                                     "reason": outcome.reason})
        self._changed()

    def _on_command(self, name: str, player: int | None) -> None:
        log.info("command", extra={"command": name, "player": player})
        if name in (NEW_GAME, NEXT_GAME):
            self._restart = name  # the board resets itself; the journal follows
        elif name == HINT:
            self._ask("hint")

    def _follow_board_restart(self) -> None:
        """After the board's own new-game / next-game command: a new journal game."""
        if self._restart is None:
            return
        self._restart = None
        assert self.board is not None
        self._fog_detach()
        self._abandon_current()
        self.resume_offer = None
        game = self.board.game
        options = self.session.options if game is self.session.game else {}
        pos = self.board.position
        setup = game.position_text(pos)
        self.session = self._new_session(game, options, setup)
        self.palette = self.base_palette.for_players(game.player_names)
        self.renderer = SceneRenderer(self.layout, self.palette, self.settings)
        from controller.web.state import supply_names
        self.supply = supply_names(game, pos)
        log.info("new game", extra={"game_id": self.session.game_id, "game": game.name,
                                    "setup": setup, "from": "board"})
        self._changed()

    def _abandon_current(self) -> None:
        s = self.session
        if not s.ended:
            self._write(s.writer.end, "*", Termination.ABANDONED)
            s.ended = True
            log.info("game abandoned", extra={"game_id": s.game_id, "plies": len(s.plies)})
        s.writer.close()

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
        if pipeline.scans != self._scans_seen or self.sensing.resting:
            self._scans_seen = pipeline.scans
            self.last_raw_time = now
        problem = self.sensing.problem()
        if problem != self.sensing_problem:
            self.sensing_problem = problem
            (log.warning if problem else log.info)(
                "sensing " + ("problem" if problem else "ok"),
                extra={"backend": self.sensing.name, "problem": problem})
            self._changed()
        before = board.interaction
        for frame in pipeline.frames(now):
            board.feed(frame)
            self._follow_board_restart()
        held = pipeline.gate.queue[0] if pipeline.gate.queue else None
        if held is not None and held is not self._previewed:
            self._previewed = held
            board.preview(held, prebuild=False)  # built once the LEDs show the preview
        board.tick(now)
        self._run_clock(now)
        self._coach_turn()
        self._link_turn()
        self._computer_turn(now)
        if board.interaction != before:
            self._changed()
        self._light(now)
        board.prebuild()

    def _press_clock(self, mover: int) -> list[float] | None:
        """The move is made: the next mover's clock starts (not after a die roll, whose
        player moves on).  The seats' remaining seconds, for the journal."""
        clock = self.session.game_clock
        if clock is None:
            return None
        now = self.clock()
        if clock.running is None:
            clock.start(mover, now)
        elif mover != clock.running:
            clock.press(mover, now)
        return [clock.remaining(seat, now) for seat in range(len(clock.seats))]

    def _run_clock(self, now: float) -> None:
        """The mover's clock runs while the board waits for, or takes in, a move — not
        during the set-up, a correction, a takeback or a resume question — and a flag
        falls once: the game ends as the rules say, or the page reports it."""
        s = self.session
        clock = s.game_clock
        if clock is None or self.board is None:
            return
        running = (self.board.state in CLOCK_PHASES and not s.ended
                   and self.resume_offer is None and self.failure is None)
        if running and clock.running is None:
            clock.start(s.game.ply_mover(self.position), now)
        elif running and clock.paused:
            clock.resume(now)
        elif not running and not clock.paused:
            clock.pause(now)
        low = clock.running is not None and clock.low(clock.running, now) and running
        self.board.set_low_time(low)  # the mover's royal pieces breathe (publishes once)
        if low != self._clock_low:
            self._clock_low = low
            self._changed()
        seat = clock.flagged(now)
        if seat is None or s.flag is not None:
            return
        s.flag = seat
        clock.pause(now)
        outcome = s.game.timeout_outcome(self.position, seat)
        log.info("flag fell", extra={"game_id": s.game_id, "player": seat,
                                     "on_flag": self.config.board.on_flag})
        if self.config.board.on_flag == "end":
            self.board.end_on_time(outcome)
        else:
            clock.resume(now)  # reported only: play on, the clock shows 0:00
        self._changed()

    def club_json(self) -> dict[str, Any]:
        """The club's linked games for the spectators' page.  A game with hidden
        information shows its moves only once it has ended."""
        if self.remote is None:
            return {"link": None, "games": []}
        games = []
        for g in self.remote.club_games():
            cls = GAMES.get(g["game"])
            hidden = cls is None or (cls.hidden_information and not g.get("result"))
            moves = g.get("moves") or []
            games.append({"game_id": g["game_id"], "game": g["game"],
                          "title": cls.title if cls else g["game"], "seats": g["seats"],
                          "clock": g.get("clock", ""), "plies": len(moves),
                          "moves": None if hidden else moves,
                          "result": g.get("result"), "reason": g.get("reason")})
        return {"link": {"club": self.remote.settings.club,
                         "connected": self.remote.connected}, "games": games}

    def link_json(self) -> dict[str, Any] | None:
        """The link for the page: connection, the linked game's seats, a stop."""
        if self.remote is None:
            return None
        return dict(self.remote.status(), problem=self.link_problem, notice=self.link_notice)

    def clock_json(self) -> dict[str, Any] | None:
        """The seats' clocks for the page (None without a clock)."""
        s = self.session
        clock = s.game_clock
        if clock is None:
            return None
        now = self.clock()
        seats = range(len(clock.seats))
        return {"control": clock.control.text,
                "remaining": [round(clock.remaining(i, now), 1) for i in seats],
                "shown": [format_clock(clock.remaining(i, now)) for i in seats],
                "low": [clock.low(i, now) for i in seats],
                "running": clock.running, "paused": clock.paused, "flag": s.flag}

    # -- hints, the coach, the evaluation ------------------------------------------------
    def _advice_key(self) -> tuple:
        return (self.session.game_id, len(self.position.moves))

    def _ask(self, kind: str, played: str | None = None) -> None:
        """Ask the coach's worker: a "hint" or an "evaluate" for the position now, or a
        "review" of ``played`` (long notation), the move just made."""
        s = self.session
        moves = self._record()
        if played is not None:
            moves = moves[:-1]
        pos = s.game.parse_position(s.setup)
        for move in self.board.position.moves[:len(moves)]:
            pos.push(move)
        if not s.game.legal_moves(pos):
            return
        key = self._advice_key()
        # a review stays about its move while later plies are made (the computer's reply
        # comes before it); a takeback or a new game cancels it
        self._reviewing = key if kind == "review" else None
        self.coach.ask(kind, key, s.game, s.options, s.setup, moves, pos, played)
        self.advice = dict(self.advice, busy=kind)
        self._changed()

    def _coach_turn(self) -> None:
        """An answer of the coach's worker: light the hint, note a poor move, show the
        evaluation."""
        reviewing = self._reviewing
        got = self.coach.answer(reviewing or self._advice_key())
        if got is not None:
            self._reviewing = None
        if got is None:
            if self.advice.get("busy") and not self.coach.busy:
                self.advice = dict(self.advice, busy=None)  # dropped: the position moved
                self._changed()
            return
        kind, advice = got
        s = self.session
        self.advice = dict(self.advice, busy=None)
        if kind == "hint":
            move = parse_advice(s.game, self.position, advice)
            if move is not None and self.board.state == "turn":
                self.board.show_hint(move)
            self.advice["hint"] = advice.best or None
            self.advice["hint_text"] = advice.best_text or advice.best or None
        elif kind == "evaluate":
            self.advice["evaluation"] = (None if s.game.hidden_information else
                                         {"score": advice.score, "best": advice.best,
                                          "best_text": advice.best_text,
                                          "text": evaluation_words(advice),
                                          "ply": len(self.position.moves)})
        elif kind == "review" and advice.loss >= self.coach.margin:
            ply = advice.ply if advice.ply is not None else (
                reviewing or self._advice_key())[1]  # the move reviewed
            self.advice["note"] = {"ply": ply, "played": advice.played,
                                   "better": advice.best, "loss": advice.loss,
                                   "text": review_words(advice)}
            log.info("coach", extra={"game_id": s.game_id, **self.advice["note"]})
        self._changed()

    def set_coach(self, on: bool) -> None:
        """The page's Coach box."""
        self.coach.on = bool(on)
        self._changed()

    def advice_json(self) -> dict[str, Any]:
        """Hints, the coach and the evaluation for the page."""
        return {"coach": self.coach.on, "busy": self.advice.get("busy"),
                "hint": self.advice.get("hint"), "note": self.advice.get("note"),
                "hint_text": self.advice.get("hint_text"),
                "evaluation": self.advice.get("evaluation"),
                "hidden": self.session.game.hidden_information}

    def _link_turn(self) -> None:
        """Linked boards: join a game another board invites this one to, show a remote
        seat's move with the execute flow once the board can take it, stop on a
        disagreement."""
        if self.remote is None:
            return
        for event in self.remote.poll():
            if isinstance(event, SeatView):
                self._fog_view(event)
            elif isinstance(event, Invitation):
                self._join(event.start)
            elif isinstance(event, Show):
                self._link_pending = event
            elif isinstance(event, Disagree):
                self._link_stop(event.reason)
            elif isinstance(event, TakebackAsked):
                self.link_notice = (f"the other board took moves back: take them back here "
                                    f"too (to {event.ply} plies) to agree, or play on")
                self._changed()
            elif isinstance(event, Withdrawn):
                self._link_pending = None
                if self.board is not None:
                    self.board.cancel_execute()
                self.link_notice = "the other board took its move back"
                self._changed()
            elif isinstance(event, TakebackSettled):
                self.link_notice = ("takeback agreed" if event.accepted else
                                    "the other board declined the takeback: make the moves "
                                    "shown again")
                self._link_away()
                self._changed()
            elif isinstance(event, TakeBack):
                self._link_stop("the other board took moves back; linked games cannot "
                                "take moves back yet — start a new game")
        game = self.remote.game
        if game is not None and game.epoch_known != self._link_epoch_known:
            self._link_epoch_known = game.epoch_known  # a resumed game heard the count
            self._link_away()
        if self.fog is not None and self.remote.refereed is not None:
            self.fog.poll()
            self.remote.refereed.send(self.fog)
        board = self.board
        show = self._link_pending
        if show is None or board is None or board.state != "turn" or self.session.ended:
            return
        self._link_pending = None
        s = self.session
        try:
            move = s.game.parse_move(board.position, show.move)
            board.execute(move)
        except (RulesError, ValueError) as exc:
            self._link_stop(f"ply {show.ply} from the other board ({show.move}) is not "
                            f"legal here: {' '.join(str(exc).split())}")
            return
        log.info("remote move", extra={"game_id": s.game_id, "ply": show.ply,
                                       "move": show.move})
        self._changed()

    def _link_away(self) -> None:
        """The players whose moves are not made on this board: the other boards' — and
        every player while this board's takeback waits for their answer."""
        link, board = self.session.link, self.board
        if link is None or self.remote is None or board is None:
            return
        game = self.remote.game
        asking = game is not None and (game.asked is not None or not game.epoch_known)
        board.set_away(frozenset(i for i, b in enumerate(link.seats)
                                 if asking or b != self.remote.board))

    @_page_request
    def link_resync(self) -> None:
        """After the linked boards disagreed: take the other board's moves.  This board
        keeps the plies both hold alike, takes back the rest (journalled; the board asks
        for the earlier position to be set up) and then shows the other board's later
        plies to be made here."""
        s = self.session
        if self.remote is None or self.link_problem is None or s.link is None:
            raise ServiceError("the linked game has not stopped: nothing to resync")
        stand = self.remote.resync()
        if stand is None:
            raise ServiceError("nothing heard from the other board yet: wait for it")
        extra = len(s.plies) - stand
        if extra > 0:
            self._write(s.writer.takeback, extra)
            del s.plies[stand:]
            s.ended = False
            pos = self.position.copy()
            for _ in range(extra):
                pos.pop()
            assert self.board is not None
            self.board.load(pos)
        elif self.board is not None:
            self.board.resume()
        self._link_pending = None
        self.link_problem = None
        self.link_notice = "resynchronised with the other board"
        log.info("linked game resynchronised", extra={"game_id": s.game_id,
                                                      "plies": stand, "taken_back": extra})
        self._link_away()
        self._changed()

    @_page_request
    def decline_takeback(self) -> None:
        """The page's answer to the other board's takeback request: no."""
        if self.remote is None or not self.remote.decline_takeback():
            raise ServiceError("no takeback is asked")
        self.link_notice = None
        self._changed()

    def _join(self, start: Start, consent: bool = False) -> None:
        """Another board invites this one: play ``start`` here (ending the current game
        as unfinished), unless this board already has that game in its journal — or it
        is a game with hidden information, which needs the referee.  A game in progress
        is never left without the player's consent (the invitation waits)."""
        if start.game in GAMES and GAMES[start.game].hidden_information:
            log.warning("linked game refused", extra={
                "link_game": start.game_id, "problem": "hidden information needs the referee"})
            return
        if any(r.link and r.link.get("game_id") == start.game_id
               for r in self.journal.games()):
            return
        if not consent and self._hold_invitation(start):
            return
        log.info("joining linked game", extra={"link_game": start.game_id,
                                               "game": start.game, "seats": start.seats})
        try:
            self.new_game(start.game, start.options, start.setup,
                          time_control=start.clock, link=start)
        except (ServiceError, ConfigError, RulesError) as exc:
            log.warning("linked game refused", extra={"link_game": start.game_id,
                                                      "problem": str(exc)})

    def _in_progress(self) -> bool:
        """Whether leaving the current game would lose a game under way (a move made, or
        a linked game)."""
        s = self.session
        return not s.ended and (bool(s.plies) or s.link is not None)

    def _hold_invitation(self, invited: Start | SeatView) -> bool:
        """An invitation while a game is in progress waits for the player's consent
        (``link_accept``); True when it waits."""
        assert self.remote is not None
        if not self._in_progress():
            return False
        waiting = self.remote.invited
        self.remote.invited = invited
        if waiting is None or waiting.game_id != invited.game_id:
            self.link_notice = (f"an invitation to {invited.game_id}: accept it to leave this "
                                "game, or play on")
            log.info("invitation waits", extra={"link_game": invited.game_id})
            self._changed()
        return True

    @_page_request
    def link_accept(self, accept: bool = True) -> None:
        """The player's answer to the invitation waiting: leave this game and join it
        (``accept``), or not."""
        invited = self.remote.invited if self.remote is not None else None
        if invited is None:
            raise ServiceError("no invitation is waiting")
        self.remote.invited = None
        self.link_notice = None
        if accept and isinstance(invited, SeatView):
            self._fog_view(invited, consent=True)
        elif accept:
            self._join(invited, consent=True)
        self._changed()

    def _fog_view(self, view: SeatView, consent: bool = False) -> None:
        """The referee's view for this board: the refereed game goes on — or begins,
        when this board asked for it or plays one of its seats (a game in progress is
        left only with the player's consent)."""
        fog, refereed = self.fog, self.remote.refereed if self.remote else None
        link = self.session.link
        if fog is not None and link is not None and link.game_id == view.game_id:
            if refereed is not None and refereed.follow(fog, view):
                self._changed()
            return
        if view.result is not None or view.seats[view.seat] != self.board_name:
            return  # an ended game's view (retained)
        if view.game_id != self._fog_requested and (
                not self.remote.accept_invitations
                or any(r.link and r.link.get("game_id") == view.game_id
                       for r in self.journal.games())):
            return  # not accepted here, or a game this board already played or left
        if view.game_id != self._fog_requested and not consent and self._hold_invitation(view):
            return
        try:
            game = get_game(view.game, **view.options)
            pos = game.parse_view(view.position)
        except RulesError as exc:
            log.warning("refereed game refused", extra={"link_game": view.game_id,
                                                        "problem": str(exc)})
            return
        self._fog_requested = None
        self._abandon_current()
        self.resume_offer = None
        self.opponent.cancel()
        self._hand = []
        self.opponent.computer = Computer()
        self.advice = {}
        self._link_pending = None
        self.link_problem = None
        self.remote.detach()
        start = Start(view.game_id, view.game, dict(view.options), view.position, view.seats)
        control, self.time_control = self.time_control, ""  # refereed games: no clock
        try:
            session = self._new_session(game, dict(view.options), view.position, start)
        finally:
            self.time_control = control
        log.info("refereed game", extra={"game_id": session.game_id,
                                         "link_game": view.game_id, "seat": view.seat})
        self._install(session, pos)
        self._fog_attach(start)
        self.remote.refereed.follow(self.fog, view)

    @property
    def board_name(self) -> str:
        return self.remote.board if self.remote is not None else ""

    def _fog_attach(self, link: Start) -> None:
        """The board becomes its seat's own board in the refereed game ``link``."""
        assert self.board is not None and self.remote is not None
        self._fog_detach()
        seat = link.seats.index(self.remote.board)
        self.fog = FogSync(self.board, seat)
        self.fog.show(0, link.setup)

    def _fog_detach(self) -> None:
        if self.fog is not None:
            self.fog.detach()
            self.fog = None

    def _link_stop(self, reason: str) -> None:
        self.link_problem = reason
        log.error("linked game stopped", extra={"game_id": self.session.game_id,
                                                "problem": reason})
        if self.board is not None:
            self.board.pause()
        self._changed()

    def _computer_turn(self, now: float) -> None:
        """The computer's move: asked for while the board waits for a move of one of its
        players, shown with the board's execute flow once the search answers.  On the
        simulated board the simulated hand then makes it, one action at a time."""
        board = self.board
        assert board is not None
        if self._hand:
            if self._hand_first and now - self._hand_at < HAND_PAGE_WAIT_S and any(
                    sent < self._hand_shown for sent in list(self.pages_sent.values())):
                return  # a page has not been sent the lit move yet
            if now - self._hand_at >= HAND_STEP_S:
                self._hand_first = False
                self._hand_at = now
                from controller.web.simulator import perform
                perform(self, self._hand.pop(0))
                self._changed()  # the page shows the hand (a lift may change nothing else)
            return
        if board.state != "turn" or self.session.ended or not self.opponent.computer.seats:
            return
        s = self.session
        pos = board.position
        thinking = self.opponent.thinking
        move = self.opponent.poll(s.game, s.options, s.setup, self._record(), pos,
                                  self._computer_movetime(now))
        if move is None:
            if self.opponent.thinking != thinking:
                self._changed()  # the page shows that the computer thinks
            return
        log.info("computer move", extra={"game_id": s.game_id,
                                         "move": s.game.move_text(pos, move)})
        before = pos.copy()
        board.execute(move)
        if self.sim is not None and self.config.board.simulated_hand_moves:
            from controller.web.simulator import move_actions
            self._hand = move_actions(s.game, before, move, self.layout)
            self._hand_at = now
            self._hand_first = True
        self._changed()
        self._hand_shown = self.version

    def _computer_movetime(self, now: float) -> float | None:
        """On a clock the computer spends its share of what it has left (more when moves
        are due at a time control, the increment mostly spent); None: the level's time."""
        s = self.session
        clock = s.game_clock
        if clock is None:
            return None
        from controller.engine import clock_budget

        seat = s.game.ply_mover(self.position)
        control = clock.control
        state = clock.seats[seat]
        period = control.periods[state.period]
        to_go = None
        if period.moves is not None:
            made_before = sum(p.moves or 0 for p in control.periods[:state.period])
            to_go = max(1, made_before + period.moves - state.moves)
        return clock_budget(clock.remaining(seat, now), control.increment + control.delay,
                            to_go)

    @property
    def busy(self) -> bool:
        """Something is under way that wants the loop at full speed (the computer's
        search or the simulated hand making its move)."""
        return bool(self._hand) or self.opponent.thinking or self.coach.busy

    def _record(self) -> list[str]:
        """The moves of the game so far in long notation (what the engine's worker replays)."""
        s = self.session
        pos = s.game.parse_position(s.setup)
        texts = []
        for move in self.board.position.moves:
            texts.append(s.game.long_move_text(pos, move))
            pos.push(move)
        return texts

    def _light(self, now: float) -> None:
        """Render the LED scene when the interaction changed or a blink edge is due;
        otherwise only let the throttled driver send a held frame."""
        assert self.board is not None
        it = self.board.interaction
        if (it is self._lit[0] and self.renderer is self._lit[1]
                and (self._lit[2] is None or now < self._lit[2])):
            if self.leds is not None:
                self.leds.poll()
            return
        frame = self.renderer.render(it, now)
        self._lit = (it, self.renderer, frame.next_change(now))
        self.led_frame = frame
        if self.leds is not None:
            self.leds.show(frame)
            self.leds.poll()
        from controller.leds.simulated import glow
        spot_at_led = self._spot_at_led
        colours: list[list[Any]] = [["#000000", 0.0]] * len(self.layout.spots)
        gain = 1.0 / max(self.settings.brightness, 0.05) ** 0.5  # show dim LEDs legibly
        known = self._glow_of
        if len(known) > 4096:  # the current cap dims by any factor: keep the memo small
            known.clear()
        for led, rgb in enumerate(frame.pixels):
            shown = known.get((rgb, gain))
            if shown is None:
                hue, opacity = glow(rgb, gain)
                shown = known[(rgb, gain)] = [f"#{hue[0]:02x}{hue[1]:02x}{hue[2]:02x}",
                                              round(opacity, 3)]
            colours[spot_at_led[led]] = shown
        if colours != self._glow:
            self._glow = colours
            self.led_version += 1
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
        self._state_cache.clear()
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
        return self.board.position

    def expected_position(self) -> Position:
        """What the board should show: the committed position."""
        return self.position

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
        choice = getattr(self.board, "_choice", None)  # see the report: needs an accessor
        return list(choice.labels) if choice is not None else []

    def led_glow(self) -> list[list[Any]]:
        """Per spot: display colour and opacity of its LED now."""
        return self._glow

    def page_viewer(self, viewer: int | None) -> int | None:
        """Whose view the page shows in a game with hidden information: a refereed
        game's board serves its own player; against the computer a person, never one of
        the computer's seats (the one asked for, else the person to move, else the
        first); otherwise ``viewer`` (None: the side to move, hot seat)."""
        if self.fog is not None and viewer is None:
            return self.fog.seat
        seats = self.opponent.computer.seats
        if not seats or not self.game.hidden_information:
            return viewer
        people = [p for p in range(self.game.players) if p not in seats]
        if not people or viewer in people:
            return viewer
        mover = self.game.ply_mover(self.position)
        return mover if viewer is None and mover in people else people[0]

    def state_json(self, viewer: int | None = None) -> dict[str, Any]:
        viewer = self.page_viewer(viewer)
        key = (self.version, viewer)
        cached = self._state_cache.get(key)
        if cached is None:
            from controller.web.state import build_state
            cached = build_state(self, viewer)
            self._state_cache[key] = cached
        state = dict(cached, leds=self.leds_json(viewer), led_seq=self.led_version,
                     clock=self.clock_json(), time_control=self.time_control,
                     link=self.link_json(), advice=self.advice_json(),
                     health=self.health(), journal_problems=list(self.journal_problems))
        if self.failure is not None:  # only what the journal holds: no unwritten result
            state.update(phase="failed", message=self.failure, choice=[],
                         result=state["result"] if self.session.ended else None)
        return state

    def leds_json(self, viewer: int | None = None) -> list[list[Any]]:
        viewer = self.page_viewer(viewer)
        from controller.web.state import visible_leds
        return visible_leds(self, viewer)

    def die_expected(self) -> bool:
        """Whether the player to move must roll the die now (KaleidoChess dice)."""
        if self.outcome is not None:
            return False
        moves = self.game.legal_moves(self.position)
        return bool(moves) and all(m.kind == "roll" for m in moves)

    def health(self) -> dict[str, Any]:
        now = self.clock()
        age = (None if self.last_raw_time is None
               else round(max(0.0, now - self.last_raw_time), 3))
        if self.sensing_problem:
            state = self.sensing_problem
        elif age is None:
            state = "starting"
        elif age > max(1.0, 10 * self.sensing.period):
            state = "stale"
        else:
            state = "ok"
        status = "ok" if state in ("ok", "starting") else "degraded"
        return {
            "status": "failed" if self.failure is not None else status,
            **({"failure": self.failure} if self.failure is not None else {}),
            "uptime_s": round(time.monotonic() - self.started, 1),
            "sensing": {"backend": self.sensing.name, "state": state,
                        "last_frame_age_s": age, "scans": self.sensing.pipeline.scans},
            "journal": str(self.session.writer.path),
            # unreadable files quarantined, damage dropped on resuming (one line each)
            "journal_problems": list(self.journal_problems),
            "game": self.game.name,
            "game_id": self.game_id,
            "layout": self.layout.name,
            "phase": self.interaction.phase,
        }

    # -- what the page asks --------------------------------------------------------------
    @_page_request
    def answer_choice(self, index: int) -> None:
        """Answer the open choice with option ``index`` of :meth:`choice_labels`."""
        assert self.board is not None
        labels = self.choice_labels()
        if not labels:
            raise ServiceError("there is no choice to answer")
        if not 0 <= index < len(labels):
            raise ServiceError(f"choice {index} does not exist (0..{len(labels) - 1})")
        self.board.answer_choice(index)
        self._follow_board_restart()
        self._changed()

    #: commands the page may give for the player to move
    COMMANDS = ("offer draw", "accept draw", "resign", "hint", "evaluate", "coach on",
                "coach off")

    @_page_request
    def command(self, name: str) -> None:
        """``offer draw``, ``accept draw`` or ``resign`` for the player to move (the same
        commands as the board's own menu; the journal follows through the callbacks);
        ``hint``, ``evaluate`` and ``coach on|off`` ask the engine."""
        assert self.board is not None
        if name not in self.COMMANDS:
            raise ServiceError(f"unknown command {name!r} (one of {', '.join(self.COMMANDS)})")
        if name in ("coach on", "coach off"):
            self.set_coach(name == "coach on")
            return
        if self.outcome is not None:
            raise ServiceError("the game is over")
        if name in ("hint", "evaluate"):
            if self.board.state != "turn" and name == "hint":
                raise ServiceError("a hint is shown when it is a player's turn")
            self._ask(name)
            return
        try:
            if name == "resign":
                self.board.resign()
            elif name == "offer draw":
                self.board.offer_draw()
            else:
                self.board.accept_draw()
        except ValueError as exc:
            raise ServiceError(str(exc)) from None
        self._changed()

    @_page_request
    def roll_die(self) -> int:
        """The page's virtual die: a random face, entered as the roll move."""
        assert self.board is not None
        if not self.die_expected():
            raise ServiceError("no die roll is expected now")
        move = self.rng.choice(self.game.legal_moves(self.position))
        self.board.execute(move)
        self._changed()
        return int(move.token.split(":")[1])

    @_page_request
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
                raise ServiceError(f"new game: {exc}") from None
        if computer is not None:
            game_class = GAMES.get(name)
            players = game_class(**options).players if game_class is not None else 2
            bad = [p for p in computer.seats if not 0 <= p < players]
            if bad or not 1 <= computer.level <= 10:
                raise ServiceError(f"computer: players 0..{players - 1} and a level 1..10, "
                                   f"got players {sorted(computer.seats)} level {computer.level}")
        switch = None if remote or link else self._simulated_layout_for(name)
        try:
            if switch is None:
                self._check_game(name)
        except ConfigError as exc:
            raise ServiceError(str(exc).removeprefix("board.game: ")) from None
        game = get_game(name, **options)  # bad options fail before the journal changes
        if setup:
            game.check_playable(game.parse_position(setup))
        invite = None
        if remote:
            invite = self._link_start(game, options, setup, remote, time_control)
            if game.hidden_information:  # the referee sends each board its view
                assert self.remote is not None and self.remote.refereed is not None
                self._fog_requested = invite.game_id
                self.remote.refereed.request(invite)
                log.info("refereed game asked for", extra={"link_game": invite.game_id,
                                                           "seats": list(invite.seats)})
                return
        self._fog_detach()
        self._abandon_current()
        self.resume_offer = None
        if time_control is not None:
            self.time_control = time_control.strip()
        self.opponent.cancel()
        self._hand = []
        self.opponent.computer = computer or Computer()
        self.coach.cancel()
        self._reviewing = None
        self.advice = {}
        self._link_pending = None
        self.link_problem = self.link_notice = None
        if self.remote is not None:
            self.remote.detach()
        if switch is not None:
            self._use_simulated_layout(switch)
        self._start(name, options, setup, game, link or invite)
        if self.remote is not None and (link or invite) is not None:
            pos = self.position
            if invite is not None:
                self.remote.invite(invite)
            else:
                self.remote.attach(link, _link_plies(game, link.setup, pos))

    def _simulated_layout_for(self, name: str) -> str | None:
        """The simulated board can be any printed board: the layout made for ``name`` when
        this one is not (None: no change needed, or not a simulated board)."""
        if self.sim is None or name not in GAMES or name in self.layout.games:
            return None
        from controller.layout import layout_names

        return next((n for n in layout_names() if name in load_layout(n).games), None)

    def _use_simulated_layout(self, name: str) -> None:
        """Another printed board under the simulated hand (the current game is ended):
        the simulated sensors, the LEDs, the board machine and the page's drawing anew."""
        layout = load_layout(name)
        self.settings.check_chain(layout.led_count)
        with contextlib.suppress(Exception):
            if self.leds is not None:
                self.leds.close()
        self.sensing.close()
        self.config.board.layout = name
        self.layout, self.board = layout, None
        self.sensing = open_sensing(self.config, layout, self._is_extendable, 0)
        self.sim, self.clock = self.sensing.sim, self.sensing.clock
        self._previewed, self.last_raw_time, self._scans_seen = None, None, 0
        self.leds = open_leds(self.config.leds, layout, send_frame=self.sensing.send_led_frame,
                              clock=self.clock)
        self.led_frame, self._lit = None, (None, None, None)
        self._glow = [["#000000", 0.0]] * len(layout.spots)
        self._spot_at_led, self._glow_of = layout.led_spots(), {}
        from controller.web.state import games_json, layout_json
        self.layout_json = layout_json(layout)
        self.games = games_json(layout, _game_class)
        self._state_cache = {}
        log.info("layout", extra={"layout": name, "from": "page"})

    def _link_start(self, game: Game, options: dict[str, Any], setup: str | None,
                    remote: dict[int, str], time_control: str | None) -> Start:
        if self.remote is None:
            raise ServiceError("remote players need a link: set link.broker in the "
                               "configuration (docs/link.md)")
        if game.hidden_information and self.remote.refereed is None:
            # both boards would hold the whole position
            raise ServiceError(f"{game.title} cannot be linked yet: each board must hold "
                               "only its player's view, which needs the referee "
                               "(docs/link.md); play it on one board")
        secret = sorted(set(options) & game.hidden_options)
        if secret:
            raise ServiceError(f"remote: {', '.join(secret)} would be known to this board: "
                               "the referee draws them")
        if game.hidden_information and setup:
            raise ServiceError("remote: a refereed game starts from the game's start")
        seats = [self.remote.board] * game.players
        for player, board in remote.items():
            if not 0 <= player < game.players:
                raise ServiceError(f"remote: no player {player} in {game.title}")
            try:
                seats[player] = check_name("remote board", board)
            except LinkError as exc:
                raise ServiceError(str(exc)) from None
        pos = game.parse_position(setup) if setup else game.start()
        control = self.time_control if time_control is None else time_control.strip()
        if game.hidden_information:
            return Start(self.remote.new_game_id(), game.name, dict(options), "",
                         tuple(seats))
        return Start(self.remote.new_game_id(), game.name, dict(options),
                     game.position_text(pos), tuple(seats), control)

    def set_tutorial(self, on: bool) -> None:
        """Start (from the current move) or stop the page's guided first game."""
        self.tutorial_since = len(self.position.moves) if on else None
        self._changed()

    @_page_request
    def decide_resume(self, keep: bool) -> None:
        """The page's answer to the resume prompt."""
        if self.resume_offer is None:
            raise ServiceError("no resumed game is waiting for an answer")
        if keep:
            self.resume_offer = None
            self._changed()
            return
        s = self.session
        self.new_game(s.game.name, s.options, None)

    @_page_request
    def sim_action(self, action: dict[str, Any]) -> None:
        """A human action on the simulated board (the page's simulator)."""
        if self.sim is None:
            raise ServiceError("the board is not simulated: move the real pieces")
        from controller.web.simulator import perform
        perform(self, action)
        self._changed()

    # -- shutdown ----------------------------------------------------------------------
    def close(self) -> None:
        self.stopping = True
        self.opponent.close()
        self.coach.close()
        if self.remote is not None:
            with contextlib.suppress(Exception):
                self.remote.close()
        self._notify()
        with contextlib.suppress(Exception):
            if self.leds is not None:
                self.leds.close()
        with contextlib.suppress(Exception):
            self.sensing.close()
        s = self.session
        if s.game_clock is not None and s.game_clock.running is not None and not s.ended:
            with contextlib.suppress(Exception):  # the clocks as they stopped, for a restart
                state = s.game_clock.state(self.clock())
                s.writer.clock(state["remaining"])
        s.writer.close()


def open_remote(config: Config) -> Remote | None:
    """The link to the club's broker, when ``link.broker`` is set."""
    c = config.link
    if not c.broker:
        return None
    settings = BrokerSettings(host=c.broker, port=c.port, club=c.club, board=c.board,
                              username=c.username, password=c.password, tls_ca=c.tls_ca)
    return Remote(settings, accept_invitations=c.accept_invitations, referee=c.referee)


def _link_plies(game: Game, setup: str, pos: Position) -> list[tuple[str, str]]:
    """The plies of ``pos`` as the link keeps them: long notation and position digest."""
    replay = game.parse_position(setup)
    out = []
    for move in pos.moves:
        text = game.long_move_text(replay, move)
        replay.push(move)
        out.append((text, position_digest(game.position_text(replay))))
    return out


def _link_movers(game: Game, setup: str, pos: Position) -> list[int]:
    """The seat that made each ply of ``pos`` (a resumed linked game's retained state
    names them, as the boards' move messages did)."""
    replay = game.parse_position(setup)
    out = []
    for move in pos.moves:
        out.append(game.ply_mover(replay))
        replay.push(move)
    return out


def _resumed_clock(game: Game, record: GameRecord, plies: list[tuple[int, str]]) -> GameClock:
    """The clocks of a resumed game as the journal left them: paused until the set-up is
    verified, each seat's moves counted for its periods."""
    control = parse_time_control(record.clock or "")
    moves = [0] * game.players
    for i, (player, _) in enumerate(plies):  # a die roll and its move are one press
        if i + 1 == len(plies) or plies[i + 1][0] != player:
            moves[player] += 1
    remaining = record.remaining or [control.initial] * game.players
    return GameClock.resumed(control, remaining, moves)


def computer_from_config(config: Config) -> Computer:
    """``board.computer`` (player names) as player indices of the configured game."""
    if not 1 <= config.board.computer_level <= 10:
        raise ConfigError(f"board.computer_level must be 1..10, got {config.board.computer_level}")
    if not config.board.computer:
        return Computer(frozenset(), config.board.computer_level)
    names = [n.lower() for n in get_game(config.board.game, **config.board.options).player_names]
    seats = []
    for name in config.board.computer:
        if name.lower() not in names:
            raise ConfigError(f"board.computer: no player {name!r} in {config.board.game} "
                              f"(players: {', '.join(names)})")
        seats.append(names.index(name.lower()))
    return Computer(frozenset(seats), config.board.computer_level)


def _game_class(name: str) -> type:
    return GAMES[name]


def _plies_of(game: Game, record: GameRecord) -> list[tuple[int, str]]:
    pos = game.parse_position(record.setup)
    out = []
    for text in record.moves:
        player = game.ply_mover(pos)
        move = game.parse_move(pos, text)
        out.append((player, game.player_move_text(pos, move)))
        pos.push(move)
    return out


# ---------------------------------------------------------------------------------
# run


def _fail(message: str) -> int:
    print(f"fairyboard: error: {message}", file=sys.stderr)
    return EXIT_BAD_CONFIG


def _message(exc: BaseException) -> str:
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    return " ".join(text.split())  # one line, whatever the error text holds


def run_service(args: Any) -> int:
    """``fairyboard run``: start, serve until SIGINT/SIGTERM, shut down cleanly."""
    try:
        config = load_config(getattr(args, "config", None))
        apply_overrides(config, layout=getattr(args, "layout", None),
                        game=getattr(args, "game", None),
                        web_port=getattr(args, "web_port", None),
                        web_host=getattr(args, "web_host", None),
                        journal=getattr(args, "journal", None),
                        log_format=getattr(args, "log_format", None))
    except ConfigError as exc:
        return _fail(_message(exc))
    web = config.web
    try:
        sock = _listen(web.host, web.port) if web.enabled else None
    except OSError as exc:
        return _fail(f"web: cannot listen on {web.host}:{web.port}: "
                     f"{exc.strerror or exc}")
    handler = setup_logging(config.log.level, config.log.format)
    try:
        try:
            service = BoardService(config)
        except JournalWriteError as exc:  # a full disk: status 1, systemd tries again
            print(f"fairyboard: error: {_message(exc)}", file=sys.stderr)
            return 1
        except STARTUP_ERRORS as exc:
            return _fail(_message(exc))
        # what start-up built (rules tables, layouts, the page) lives as long as the
        # service: moved out of the collector's sight, a full collection no longer walks it
        # — those walks were the 40–60 ms pauses after a move (docs/performance.md)
        gc.collect()
        gc.freeze()
        try:
            status = asyncio.run(_serve(service, sock))
        finally:
            service.close()
            log.info("stopped", extra={"game_id": service.game_id})
        return status
    finally:
        logging.getLogger().removeHandler(handler)
        if sock is not None:
            sock.close()


def _listen(host: str, port: int) -> socket.socket:
    """The page's listening socket, bound before anything starts: a busy port or a bad
    address is a start-up error (one line, exit status 2), not a crash later."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(False)
    return sock


async def _serve(service: BoardService, sock: socket.socket | None = None) -> int:
    """Run until a signal (exit status 0) or a failure of the board loop (1); the page is
    served on ``sock`` (none: no web page)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    server: Any = None

    def request_stop(sig: int) -> None:
        log.info("stopping", extra={"signal": signal.Signals(sig).name})
        service.stopping = True
        stop.set()
        if server is not None:
            server.should_exit = True

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, request_stop, sig)

    def failed() -> None:  # a journal write failed, in the board loop or a page request
        stop.set()
        if server is not None:
            server.should_exit = True

    service.on_failure = failed
    if service.failure is not None:  # failed before the loop ran
        failed()

    tasks = [asyncio.create_task(_poll(service, stop))]
    if sock is not None:
        server = _make_server(service)
        tasks.append(asyncio.create_task(server.serve(sockets=[sock])))
        tasks.append(asyncio.create_task(_announce(server)))
    log.info("started", extra={
        "layout": service.layout.name, "game": service.game.name,
        "game_id": service.game_id, "sensing": service.sensing.name,
        "leds": service.config.leds.driver, "journal": str(service.journal.folder),
        "resumed": service.resume_offer is not None})
    await stop.wait()
    if server is not None:
        server.should_exit = True
    done, pending = await asyncio.wait(tasks, timeout=5.0)
    for task in pending:
        task.cancel()
    status = 0 if service.failure is None else 1
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            log.error("task failed", exc_info=task.exception())
            status = 1
    return status


async def _poll(service: BoardService, stop: asyncio.Event) -> None:
    """Poll at the scan rate; a journal that cannot be written stops the service."""
    period = service.sensing.period
    while not stop.is_set():
        started = time.monotonic()
        try:
            service.sensing.catch_up()
            service.tick()
        except OSError as exc:  # the journal refused a record: stop with status 1
            if service.failure is None:
                service._fail(f"journal write failed: {exc.strerror or exc}")
            stop.set()
            return
        except SensingError as exc:
            log.warning("sensing error", extra={"problem": str(exc)})
        except Exception:
            log.exception("board loop error")
        wait = RESTING_PERIOD_S if service.sensing.resting and not service.busy else period
        await asyncio.sleep(max(0.0, wait - (time.monotonic() - started)))


#: open connections (page requests and websockets) the web server takes at once
MAX_CONNECTIONS = 100


def _make_server(service: BoardService) -> Any:
    import uvicorn

    from controller.web.app import create_app
    from controller.web.guard import Guard, policy_for
    from controller.web.server import SilentClosingH11

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self):  # the service handles SIGINT/SIGTERM itself
            yield

    web = service.config.web
    token_path = Path(service.config.journal.path).expanduser().parent / "pairing-token"
    policy = policy_for(web.host, web.allowed_hosts, web.allowed_origins, token_path)
    if policy.token:
        log.warning("pairing code", extra={
            "code": policy.token, "hint": "the page is served to the network: enter this "
            "code on a new browser (or open /?token=CODE)"})
    # limits: idle connections are closed soon, and past this many the server answers 503
    # instead of running out of file descriptors (the unit sets LimitNOFILE above it)
    config = uvicorn.Config(Guard(create_app(service), policy), log_config=None,
                            access_log=False, lifespan="off", timeout_graceful_shutdown=2,
                            http=SilentClosingH11, limit_concurrency=MAX_CONNECTIONS,
                            timeout_keep_alive=5,
                            ws_max_size=64 * 1024, h11_max_incomplete_event_size=16 * 1024)
    return Server(config)


async def _announce(server: Any) -> None:
    """Log the page's address once the socket is bound (port 0 picks a free one)."""
    while not server.started:
        if server.should_exit:
            return
        await asyncio.sleep(0.02)
    for s in server.servers:
        for sock in s.sockets:
            host, port = sock.getsockname()[:2]
            log.info("web page", extra={"url": f"http://{host}:{port}/", "port": port})


__all__ = ["BoardService", "JsonFormatter", "ServiceError", "open_sensing", "run_service",
           "setup_logging"]
