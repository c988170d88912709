"""The online room: the owner's account on a Board API server and the online game on the
board.  A room of the service (``BoardService`` only wires it): it owns the token, the
event stream (games starting, challenges), a seek kept open, the owner's errands to the
server (draw, resign, takeback, abort, claim victory) and the :class:`OnlineSeat` of the
game being played, and it learns about the board's game from the board's events.

Fair play by construction: while :attr:`OnlineRoom.playing`, the service refuses the
engine, hints, evaluation and the coach (see ``BoardService.command``), and the board's
menu offers the server's commands only.  Threads talk to the server and post what they
learn to an inbox; :meth:`OnlineRoom.tick`, on the board loop, alone touches the board
and the service.  Nothing here names lichess beyond the configured server's address.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

import httpx

from controller.board import Board
from controller.board.fogsync import FogSync
from controller.clock import format_clock
from controller.config import OnlineSettings
from controller.i18n import Text, text_of
from controller.online.api import BoardApi, Hangup, OnlineError, StreamLost, Unauthorized
from controller.online.game import OnlineGameError, Player, ServerGame, game_full
from controller.online.offer import OnlineRefused, challenge_terms, offered_games, wire_terms
from controller.online.seat import (
    BACKOFF_S,
    CHAT_LENGTH,
    NO_RESULT,
    STATUS_WORDS,
    Notice,
    OnlineSeat,
)
from controller.online.token import TokenError, load_token, masked, save_token
from controller.rules import Game
from controller.wire import variant_game

log = logging.getLogger("fairyboard.online")

#: the menu's and the page's online commands (the board's words where it has them; each
#: name is also the catalogue's message the page shows it by)
OFFER_DRAW, ACCEPT_DRAW, DECLINE_DRAW = (Text("offer draw"), Text("accept draw"),
                                         Text("decline draw"))
RESIGN, ABORT, TAKEBACK = Text("resign"), Text("abort"), Text("takeback")
ACCEPT_TAKEBACK, DECLINE_TAKEBACK, CLAIM = (Text("accept takeback"), Text("decline takeback"),
                                            Text("claim victory"))
COMMANDS = (OFFER_DRAW, ACCEPT_DRAW, DECLINE_DRAW, RESIGN, ABORT, TAKEBACK, ACCEPT_TAKEBACK,
            DECLINE_TAKEBACK, CLAIM)
#: the pads' menu before and after a game, with a token set: seek as the page last did
#: (10+5, casual, any colour until then), stop seeking, accept the oldest challenge
SEEK, STOP_SEEK, ACCEPT_CHALLENGE = (Text("seek online"), Text("stop seeking"),
                                     Text("accept challenge"))
#: what the server allows for a seek (lichess: a board's real-time seeks are rapid or
#: slower, an estimated 8 minutes at least — the limit and 40 times the increment;
#: correspondence by days)
SEEK_DAYS = (1, 2, 3, 5, 7, 10, 14)
COLOURS = ("random", "white", "black")
#: the low-time glow on the owner's King below this many seconds
LOW_TIME_S = 20.0
#: how many of the room's lines the page shows
NOTICES = 6
#: reads of a starting game's description before the room gives up on it (with the
#: back-off's waits: half a minute with the product's)
FETCH_TRIES = 10

class OnlineHost(Protocol):
    """What the room asks of the service that wires it."""

    board: Board | None

    def changed(self) -> None: ...

    def begin_online(self, game: Game, options: dict[str, Any], setup: str,
                     names: list[str]) -> None:
        """Play the server's game here (ending the board's current one): no engine, no
        coach, no clock of the board's own."""

    def online_set_back(self, plies: int) -> None:
        """The board was set back ``plies`` to the server's move list: the journal too."""

    def online_aborted(self) -> None:
        """The server's game ended without a result (aborted): a new game on the board,
        the journal's left unfinished."""

    def online_layout_problem(self, game: Game) -> str | None:
        """Why this board cannot play ``game`` (its printed layout is made for other
        games), in one line; None when it can."""


def seek_problem(minutes: float, increment: int) -> Text | None:
    """Why the server would refuse a real-time seek of this time control (None: fine)."""
    if not (0 <= increment <= 180) or not (0 < minutes <= 180):
        return Text("a seek's clock: 1 to 180 minutes and an increment of 0 to 180 seconds")
    if minutes * 60 + increment * 40 < 480:  # lichess: the Board API seeks rapid and slower
        return Text("a seek from the board is rapid or slower: the minutes and 40 times the "
                    "increment must make 8 minutes or more (blitz: challenge a player by "
                    "name)")
    return None


def _clock_name(player: Player) -> str:
    """A player on the page's clock: title, name and rating, as the server gives them."""
    title = f"{player.title} " if player.title else ""
    rating = f" ({player.rating})" if player.rating is not None else ""
    return f"{title}{player.name}{rating}"


class OnlineRoom:
    """The owner's online account and game (nothing until a token is set).

    Many fields: one connection's state — the account and what its server plays, the
    game on the board, the seek, the challenges, and the threads' inbox and errands —
    which the board loop alone changes (:meth:`tick`)."""

    def __init__(self, settings: OnlineSettings, host: OnlineHost, *,
                 transport: httpx.BaseTransport | None = None,
                 backoff_s: tuple[float, ...] = BACKOFF_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.host = host
        self.token_path = Path(settings.token_file).expanduser()
        self._transport = transport
        self.backoff_s = backoff_s
        self._clock = clock
        self.api: BoardApi | None = None
        self.me: str | None = None  #: the token's account (its id, lower case)
        self.seat: OnlineSeat | None = None
        #: the game on the board as the journal keeps it (server, id, url, seat, clock)
        self.record: dict[str, Any] | None = None
        self.challenges: dict[str, dict[str, Any]] = {}  #: incoming, by id
        self.seeking: dict[str, Any] | None = None
        self.open_url: str | None = None  #: an open challenge's address to share
        self.notices: deque[str] = deque(maxlen=NOTICES)  #: Texts, said in each page's language
        self.gone = False  #: the opponent left the game (claim victory may follow)
        self._inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._errands: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._takeback: str | None = None  # the board's takeback: "asking", "asked"
        self._acked: int | None = None  # the seat's state count when the server took it
        self._times_at = 0.0  # when the server's times were read
        self._execute_since: float | None = None
        self._seek_hangup = Hangup()  # closes the open seek's stream (cancel_seek)
        self.fetching: str | None = None  # a game whose description is being read
        self.last_seek: tuple[float, int, bool, str, None, str, dict[str, Any]] = (
            10, 5, False, "random", None, "standard", {})
        #: the variant keys the connected server's account answer lists (None: it lists
        #: none — :data:`~controller.online.offer.PLAIN_VARIANTS`, no game options)
        self.listed: tuple[str, ...] | None = None

    # -- the account ----------------------------------------------------------------------
    def start(self) -> None:
        """At the service's start: with a saved token, connect (an ongoing game found on
        the event stream is played on)."""
        if self.api is None and self.token_path.exists():
            try:
                self._connect(load_token(self.token_path))
            except TokenError as exc:
                self._say(text_of(exc), problem=True)

    def token_masked(self) -> str | None:
        try:
            return masked(load_token(self.token_path))
        except TokenError:
            return None

    def set_token(self, token: str) -> str:
        """Save the owner's token (mode 0600) and connect with it; the masked token.  An
        online game on the board goes on with it (a token revoked mid-game is replaced)."""
        try:
            save_token(self.token_path, token)
        except TokenError as exc:
            raise OnlineRefused(text_of(exc)) from None
        except OSError as exc:
            raise OnlineRefused(Text("the token cannot be saved ({error})",
                                     error=type(exc).__name__)) from None
        self._disconnect()
        self._connect(load_token(self.token_path))
        return masked(token.strip())

    def clear_token(self) -> None:
        """Forget the token (the file is removed) and disconnect."""
        if self.playing:
            raise OnlineRefused(Text("not during an online game: resign or abort it first"))
        self._disconnect()
        with contextlib.suppress(FileNotFoundError):
            self.token_path.unlink()
        self.me = None
        self._say(Text("token removed"))

    def _connect(self, token: str) -> None:
        self._stop = threading.Event()
        self._errands = queue.Queue()  # (the last connection's closes with its queue)
        self.api = BoardApi(self.settings.server, token, transport=self._transport)
        self._thread(self._read_events, "online-events")
        self._thread(self._run_errands, "online-errands")

    def _disconnect(self) -> None:
        self._stop.set()
        self._errands.put(None)
        if self.seat is not None:
            self.seat.close()
            self.seat = None
        api, self.api = self.api, None
        if api is not None:
            with contextlib.suppress(Exception):
                api.close()
        self.seeking = None
        self._seek_hangup()
        self.fetching = None  # (a game being read is read again on the next connection)
        self.challenges.clear()

    def _thread(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def _need_api(self) -> BoardApi:
        if self.api is None:
            raise OnlineRefused(Text("no token: set your token first"))
        return self.api

    # -- what the owner asks -----------------------------------------------------------
    @property
    def playing(self) -> bool:
        """An online game is on the board and not over (fair play holds)."""
        return self.record is not None and not self.ended

    @property
    def fog(self) -> FogSync | None:
        """The board holds the owner's view of a game with hidden information."""
        return self.seat.fog if self.seat is not None else None

    @property
    def ended(self) -> bool:
        server = self.seat.server if self.seat is not None else None
        return server is not None and server.ended

    def seek(self, minutes: float, increment: int, rated: bool, colour: str,
             days: int | None = None, variant: str = "standard",
             options: dict[str, Any] | None = None) -> None:
        """Look for an opponent: real time (the seek stays open while the server looks)
        or correspondence (``days`` a move); ``variant``: a variant key or a game's
        registry name, with the game's ``options`` (a fairyboard server's: players, dice…;
        :func:`~controller.online.offer.wire_terms` checks them)."""
        api = self._need_api()
        if self.playing or self.seeking is not None:
            raise OnlineRefused(Text("already playing") if self.playing
                                else Text("already seeking"))
        if colour not in COLOURS:
            raise OnlineRefused(Text("colour: one of {colours}", colours=", ".join(COLOURS)))
        asked = (variant, dict(options or {}))
        variant, options, title = self._terms(variant, options)
        if rated and colour != "random":
            raise OnlineRefused(Text("a rated seek takes the colour it is given (random)"))
        if days is not None:
            if days not in SEEK_DAYS:
                raise OnlineRefused(Text("days a move: one of {days}",
                                         days=", ".join(map(str, SEEK_DAYS))))
            self._errand(lambda: api.seek_correspondence(days, rated=rated, color=colour,
                                                         variant=variant, options=options),
                         Text("seeking a correspondence game ({days} days a move)",
                              days=days))
            return
        problem = seek_problem(minutes, increment)
        if problem:
            raise OnlineRefused(problem)
        self.last_seek = (minutes, increment, rated, colour, None, *asked)
        mine = self.seeking = {"clock": f"{minutes:g}+{increment}", "rated": rated,
                               "colour": colour, "variant": variant, "title": title,
                               "options": options}
        stop, hangup = self._stop, Hangup()
        self._seek_hangup = hangup

        def withdrawn() -> bool:
            """Cancelled, a game begun, another seek made or the room closed: the stream
            is closed (at once when cancelled, else at its next line), which withdraws
            the seek."""
            return stop.is_set() or self.seeking is not mine

        def run() -> None:
            try:
                for _ in api.seek(minutes, increment, rated=rated, color=colour,
                                  variant=variant, options=options, stop=withdrawn,
                                  hangup=hangup):
                    pass  # (nothing to read: the game starts on the event stream)
            except StreamLost:
                pass  # the server closes the seek when it found a game (or refused it)
            except OnlineError as exc:
                self._inbox.put(("notice", Notice(text_of(exc), True)))
            self._inbox.put(("seek over", mine))
        self._thread(run, "online-seek")
        clock = self.seeking["clock"]
        self._say(Text("seeking a {clock} game of {game}", clock=clock, game=title)
                  if variant != "standard" else Text("seeking a {clock} game", clock=clock))

    def cancel_seek(self) -> None:
        """Stop seeking: the seek's stream is closed now, and the server, seeing it
        closed, withdraws the seek."""
        if self.seeking is None:
            raise OnlineRefused(Text("not seeking"))
        self.seeking = None
        self._seek_hangup()
        self._say(Text("seek cancelled"))

    def challenge(self, name: str, minutes: float, increment: int, rated: bool,
                  colour: str, variant: str = "standard",
                  options: dict[str, Any] | None = None) -> None:
        """Challenge a player by name (the game starts when he accepts)."""
        api = self._need_api()
        name = name.strip()
        if not name or len(name) > 30 or not all(c.isalnum() or c in "_-" for c in name):
            raise OnlineRefused(Text("a player's name: letters, digits, _ and - (up to 30)"))
        if colour not in COLOURS:
            raise OnlineRefused(Text("colour: one of {colours}", colours=", ".join(COLOURS)))
        if not (0 < minutes <= 180 and 0 <= increment <= 180):
            raise OnlineRefused(Text("a challenge's clock: up to 180 minutes and 180 seconds"))
        variant, options, _ = self._terms(variant, options)
        self._errand(lambda: api.challenge(name, minutes, increment, rated=rated,
                                           color=colour, variant=variant, options=options),
                     Text("challenge sent to {name}", name=name))

    def open_challenge(self, minutes: float, increment: int,
                       variant: str = "standard",
                       options: dict[str, Any] | None = None) -> None:
        """An open challenge: anyone with its address may take it (shown on the page)."""
        api = self._need_api()
        if not (0 < minutes <= 180 and 0 <= increment <= 180):
            raise OnlineRefused(Text("a challenge's clock: up to 180 minutes and 180 seconds"))
        variant, options, _ = self._terms(variant, options)

        def run() -> None:
            answer = api.open_challenge(minutes, increment, variant=variant, options=options)
            url = str(answer.get("url") or answer.get("challenge", {}).get("url") or "")
            self._inbox.put(("open", url[:200]))
        self._errand(run, Text("open challenge created"))

    def _terms(self, variant: str, options: Mapping[str, Any] | None
               ) -> tuple[str, dict[str, Any], str]:
        """The wire's variant key, options and the game's title of a seek or challenge
        (:func:`~controller.online.offer.wire_terms`: one line when this server or this
        board cannot play it)."""
        return wire_terms(variant, options, self.listed, self.host.online_layout_problem)

    def offered(self) -> list[dict[str, Any]]:
        """The games (and their options) the page's seek and challenge forms offer."""
        return offered_games(self.listed, self.host.online_layout_problem)

    def answer_challenge(self, challenge_id: str, accept: bool) -> None:
        api = self._need_api()
        if challenge_id not in self.challenges:
            raise OnlineRefused(Text("no such challenge waiting"))
        problem = self.challenges[challenge_id].get("problem")
        if accept and problem is not None:
            raise OnlineRefused(problem)
        self.challenges.pop(challenge_id)
        if accept:
            self._errand(lambda: api.accept_challenge(challenge_id), Text("challenge accepted"))
        else:
            self._errand(lambda: api.decline_challenge(challenge_id), Text("challenge declined"))

    def commands(self) -> tuple[str, ...]:
        """The commands the game allows now (the board's menu and the page offer these)."""
        server = self.seat.server if self.seat is not None else None
        if not self.playing or server is None:
            return ()
        mine = server.seat
        offered = server.draw_offer not in (None, mine)  # (another seat offers)
        out = [ACCEPT_DRAW, DECLINE_DRAW] if offered else [OFFER_DRAW]
        if server.takeback_offer not in (None, mine):
            out += [ACCEPT_TAKEBACK, DECLINE_TAKEBACK]
        elif any(server.mover_of(p) == mine for p in range(len(server.moves))):
            out.append(TAKEBACK)
        out.append(ABORT if server.plies < len(server.players) else RESIGN)
        if self.gone:
            out.append(CLAIM)
        return tuple(out)

    def command(self, name: str) -> None:
        """One of :data:`COMMANDS`, from the page or the board's menu, sent to the server."""
        if name not in COMMANDS:
            raise OnlineRefused(Text("unknown online command {name} (one of {commands})",
                                     name=repr(name), commands=", ".join(COMMANDS)))
        if name not in self.commands():
            raise OnlineRefused(Text("{command}: not possible now", command=name))
        api, gid = self._need_api(), self.record["id"] if self.record else ""
        calls: dict[str, Callable[[], None]] = {
            OFFER_DRAW: lambda: api.draw(gid, True), ACCEPT_DRAW: lambda: api.draw(gid, True),
            DECLINE_DRAW: lambda: api.draw(gid, False), RESIGN: lambda: api.resign(gid),
            ABORT: lambda: api.abort(gid), TAKEBACK: lambda: api.takeback(gid, True),
            ACCEPT_TAKEBACK: lambda: api.takeback(gid, True),
            DECLINE_TAKEBACK: lambda: api.takeback(gid, False),
            CLAIM: lambda: api.claim_victory(gid)}
        self._errand(calls[name], Text("{command}: sent", command=name))

    def send_chat(self, text: str) -> None:
        """A line to the opponent in the game's chat (shown here once the server took it)."""
        if self.record is None:
            raise OnlineRefused(Text("no online game to chat in"))
        line = "".join(c for c in text if c.isprintable()).strip()
        if not 0 < len(line) <= CHAT_LENGTH:
            raise OnlineRefused(Text("a chat line: 1 to {length} characters",
                                     length=CHAT_LENGTH))
        api, gid, me = self._need_api(), self.record["id"], self.me or "you"

        def run() -> None:
            api.chat(gid, line)
            self._inbox.put(("chat", (me, line)))
        self._errands.put(lambda: self._quietly(run))

    def _quietly(self, call: Callable[[], None]) -> None:
        """An errand whose failure is a line, and whose success says nothing."""
        try:
            call()
        except OnlineError as exc:
            self._inbox.put(("failed", Notice(text_of(exc), True)))

    def idle_commands(self) -> tuple[str, ...]:
        """The pads' online commands before and after a game (a token set)."""
        if self.api is None or self.me is None or self.playing:
            return ()
        if self.seeking is not None:
            return (STOP_SEEK,)
        return (SEEK, *((ACCEPT_CHALLENGE,) if self.challenges else ()))

    def from_board(self, name: str) -> None:
        """A command chosen on the board's menu (a refusal is said, not raised)."""
        try:
            if name == SEEK:
                self.seek(*self.last_seek)
            elif name == STOP_SEEK:
                self.cancel_seek()
            elif name == ACCEPT_CHALLENGE:  # (the oldest this board can play)
                playable = [i for i, c in self.challenges.items() if c.get("problem") is None]
                self.answer_challenge((playable or list(self.challenges))[0], True)
            else:
                self.command(name)
        except OnlineRefused as exc:
            self._say(text_of(exc), True)

    def _errand(self, call: Callable[[], Any], done: Text, then: str = "") -> None:
        """A request for the errands' thread (the board loop never waits on the network);
        ``then``: an event for the inbox once the server took it."""
        def run() -> None:
            try:
                call()
                self._inbox.put(("notice", Notice(done)))
                if then:
                    self._inbox.put((then, None))
            except OnlineError as exc:
                self._inbox.put(("failed", Notice(text_of(exc), True)))
        self._errands.put(run)

    # -- the board's events ------------------------------------------------------------
    def taken_back(self, plies: int) -> None:
        """A takeback made on the board becomes a takeback offer; the board waits for the
        answer (accepted: the server's list matches; declined: the moves are shown to
        make again)."""
        if not self.playing or self.seat is None or self.seat.unsent_taken_back():
            return
        server = self.seat.server
        if server is not None and server.takeback_offer not in (None, server.seat):
            self.from_board(ACCEPT_TAKEBACK)  # the opponent asked for it: agreed here
        else:
            api, gid = self._need_api(), self.record["id"] if self.record else ""
            self._errand(lambda: api.takeback(gid, True), Text("takeback offered"),
                         then="takeback acked")
            self._takeback, self._acked = "asking", None
            self.seat.offer_seen = False
        self.seat.hold = True

    def resumed(self, record: dict[str, Any]) -> None:
        """The journal's game on the board is this online game (after a restart): its
        seat comes back and reconciles the board with the server's move list."""
        self.record = dict(record)
        if self.api is None:
            self.start()
        self._attach()

    def new_game(self) -> None:
        """The board starts another game: the online game (if any) is no longer on it."""
        if self.seat is not None:
            self.seat.close()
            self.seat = None
        self.record = None
        self.gone = False
        self._takeback = None

    # -- the board loop ---------------------------------------------------------------
    def tick(self, board: Board) -> bool:
        """Apply what the threads learned and bring the board to the server's game.  True
        when the page has something new."""
        changed = False
        while True:
            try:
                kind, value = self._inbox.get_nowait()
            except queue.Empty:
                break
            changed = True
            self._event(kind, value)
        if self.seat is None and self.record is not None:
            self._attach()  # a resumed game, once the account is known
        seat = self.seat
        if seat is None:
            self._commands(board)
            return changed
        before, said = seat.server, seat.said
        seat.tick()
        server = seat.server
        if server is not before or seat.said != said:
            changed = True
            self._times_at = self._clock()
            if server is not None and server.status in NO_RESULT:
                self._say(Text("game {game} aborted: no result", game=server.id))
                self.host.online_aborted()  # (the board starts anew: this room too)
                return True
        self._follow_takeback(before, server)
        if board.state == "execute" and self._execute_since is None:
            self._execute_since = self._clock()
        elif board.state != "execute":
            self._execute_since = None
        self._commands(board)
        if self.record is not None:
            low = self.playing and server is not None and server.to_move == server.seat \
                and (self.remaining(server.seat) or LOW_TIME_S) < LOW_TIME_S
            board.set_low_time(bool(low))
        return changed

    def _commands(self, board: Board) -> None:
        """What the pads' menu offers of the server's commands."""
        if self.playing:
            board.set_online(self.commands(), self.settings.targets)
        elif board.not_started() or board.outcome is not None:
            board.set_online(self.idle_commands(), True)  # the pads may start one
        else:
            board.set_online((), True)  # a game of the board's own

    def _follow_takeback(self, before: ServerGame | None, server: ServerGame | None) -> None:
        """The board's takeback offer: seen on the server, then answered (agreed: the
        list is shorter; declined: the offer is gone)."""
        seat = self.seat
        if self._takeback is None or server is None or seat is None:
            return
        if self._takeback == "asking" and seat.offer_seen:
            self._takeback = "asked"
        answered = self._takeback == "asked" or (  # (a stream may skip the offer's state)
            self._acked is not None and seat.states > self._acked)
        shorter = before is not None and len(server.moves) < len(before.moves)
        if shorter or (answered and server.takeback_offer != server.seat):
            self._takeback = None
        seat.hold = self._takeback is not None

    def _event(self, kind: str, value: Any) -> None:
        if kind == "notice":
            self._say(value.text, value.problem)
        elif kind == "failed":
            self._say(value.text, True)
            if self._takeback == "asking" and self.seat is not None:
                self._takeback = None
                self.seat.hold = False
        elif kind == "takeback acked" and self._takeback == "asking" and self.seat:
            self._acked = self.seat.states
        elif kind == "account":
            self.me, variants = value
            self.listed = variants
        elif kind == "gameStart":
            self._game_started(value)
        elif kind == "begin":
            self._begin(value)
        elif kind == "challenge":
            self.challenges[value["id"]] = challenge_terms(value,
                                                           self.host.online_layout_problem)
        elif kind == "challenge gone":
            self.challenges.pop(value, None)
        elif kind == "fetch failed" and self.fetching == value:
            self.fetching = None  # (the next gameStart of it reads it again)
        elif kind == "seek over" and self.seeking is value:  # (not a newer seek's)
            self.seeking = None
        elif kind == "open":
            self.open_url = value or None
        elif kind == "gone":
            self.gone = bool(value)
        elif kind == "chat" and self.seat is not None:
            self.seat.hear(*value, mine=True)

    def _game_started(self, gid: str) -> None:
        """The event stream says a game of the owner's is on: played here unless it is
        already on the board (a restart finds it again)."""
        self.seeking = None
        if self.record is not None and self.record.get("id") == gid:
            if self.seat is None:
                self._attach()
            return
        if self.playing:
            self._say(Text("another online game ({game}) is on: finish this one first",
                           game=gid), True)
            return
        api = self.api
        if api is None or self.fetching == gid:
            return
        self.fetching = gid
        me, stop = self.me or "", self._stop

        def read() -> None:
            """The game's description, read again while the link fails (a game that
            started as the stream fell is not lost); given up after :data:`FETCH_TRIES`
            or at a refused token, and then a later ``gameStart`` tries again."""
            for attempt in range(FETCH_TRIES):
                try:
                    for line in api.stream_game(gid):
                        if line.get("type") == "gameFull":
                            self._inbox.put(("begin", game_full(line, me)))
                            return
                except (Unauthorized, OnlineGameError) as exc:
                    problem = exc
                    break
                except OnlineError as exc:
                    problem = exc
                    if stop.wait(self.backoff_s[min(attempt, len(self.backoff_s) - 1)]):
                        return
            self._inbox.put(("failed", Notice(Text("game {game}: {problem}", game=gid,
                                                   problem=text_of(problem)), True)))
            self._inbox.put(("fetch failed", gid))
        self._thread(read, "online-fetch")

    def _begin(self, server: ServerGame) -> None:
        self.fetching = None
        if server.ended:
            return
        try:
            game, pos = server.rules()
        except OnlineGameError as exc:
            self._decline(server, text_of(exc))
            return
        problem = self.host.online_layout_problem(game)
        if problem is not None:
            self._decline(server, Text("game {game} is {title}: {problem}", game=server.id,
                                       title=game.title, problem=problem))
            return
        clock = server.clock
        self.new_game()
        self.record = {"server": self.settings.server, "id": server.id,
                       "url": f"{self.settings.server.rstrip('/')}/{server.id}",
                       "seat": server.seat, "variant": server.variant, "game": server.game,
                       "rated": server.rated,
                       "clock": (f"{clock[0] / 60000:g}+{clock[1] // 1000}" if clock
                                 else None)}
        names = [p.name for p in server.players]
        self.host.begin_online(game, dict(server.options), game.position_text(pos), names)
        self._attach()
        opponent = ", ".join(p.name for i, p in enumerate(server.players)
                             if i != server.seat)
        self._say(Text("online game {game} against {name}: set up the board",
                       game=server.id, name=opponent))

    def _decline(self, server: ServerGame, problem: str | Text) -> None:
        """A game this board cannot play: said in one line, and aborted on the server
        while it may be (before the seats' first moves) so nobody waits for it."""
        self._say(problem, True)
        api = self.api
        if api is not None and not server.moves:
            self._errand(lambda: api.abort(server.id),
                         Text("game {game} aborted", game=server.id))

    def _attach(self) -> None:
        board = self.host.board
        if self.api is None or self.me is None or board is None or self.record is None:
            return  # (the account arrives first: the next tick attaches)
        self.seat = OnlineSeat(self.api, board, self.record["id"], self.me,
                               on_notice=lambda n: self._notice_line(n),
                               on_set_back=self.host.online_set_back,
                               backoff_s=self.backoff_s)

    def _notice_line(self, notice: Notice) -> None:
        if notice.text.startswith("your opponent left"):
            self.gone = True
        elif notice.text.startswith("your opponent is back"):
            self.gone = False
        self._say(notice.text, notice.problem)

    def _say(self, text: str, problem: bool = False) -> None:
        """A line of the page's notices (a :class:`Text`: each page reads it in its own
        language, :func:`controller.web.texts.localise_online`) and of the log."""
        self.notices.append(Text.join("", ["⚠ ", text]) if problem else text)
        (log.warning if problem else log.info)("online: %s", text)

    # -- the threads ---------------------------------------------------------------------
    def _read_events(self) -> None:
        api, stop = self.api, self._stop
        assert api is not None
        attempt = 0
        while not stop.is_set():
            try:
                account = api.account()
                listed = account.get("variants")  # (a fairyboard server's extension)
                variants = (tuple(str(v)[:20] for v in listed if variant_game(str(v)))
                            if isinstance(listed, list) else None)
                self._inbox.put(("account", (str(account.get("id") or
                                                 account.get("username", "")).lower(),
                                             variants)))
                for line in api.stream_events(stop=stop.is_set):
                    if stop.is_set():
                        return
                    attempt = 0
                    self._event_line(line)
            except Unauthorized as exc:
                self._inbox.put(("failed", Notice(text_of(exc), True)))
                return
            except OnlineError as exc:
                wait = self.backoff_s[min(attempt, len(self.backoff_s) - 1)]
                attempt += 1
                log.info("online: %s; reconnecting in %.1f s", exc, wait)
                stop.wait(wait)

    def _event_line(self, line: dict[str, Any]) -> None:
        kind = line.get("type")
        if kind == "gameStart" and isinstance(line.get("game"), dict):
            self._inbox.put(("gameStart", str(line["game"].get("gameId") or
                                              line["game"].get("id", ""))))
        elif kind == "challenge" and isinstance(line.get("challenge"), dict):
            c = line["challenge"]
            who = c.get("challenger") or {}
            if str(who.get("id", "")).lower() == self.me:
                return  # our own challenge
            control = c.get("timeControl") or {}
            clock = control.get("show") or ""
            if not clock and isinstance(control.get("limit"), int | float):
                clock = f"{control['limit'] / 60:g}+{control.get('increment', 0)}"
            options = c.get("options")
            self._inbox.put(("challenge", {
                "id": str(c.get("id", ""))[:20], "from": str(who.get("name", "?"))[:30],
                "rated": bool(c.get("rated")), "clock": str(clock)[:20],
                "variant": str((c.get("variant") or {}).get("key", "standard"))[:20],
                "options": options if isinstance(options, dict) else {}}))
        elif kind in ("challengeCanceled", "challengeDeclined"):
            c = line.get("challenge") or {}
            self._inbox.put(("challenge gone", str(c.get("id", ""))))

    def _run_errands(self) -> None:
        stop, errands = self._stop, self._errands
        while not stop.is_set():
            call = errands.get()
            if call is None:
                return
            try:
                call()
            except Exception as exc:  # noqa: BLE001 - one errand's failure is a line
                self._inbox.put(("failed", Notice(Text("online: {error}",
                                                       error=type(exc).__name__), True)))

    # -- what the page reads ---------------------------------------------------------
    def remaining(self, seat: int) -> float | None:
        """``seat``'s time left now (seconds), the running side's counted down."""
        server = self.seat.server if self.seat is not None else None
        if server is None or server.times_ms is None:
            return None
        left = server.times_ms[seat] / 1000
        if self.playing and server.to_move == seat and server.plies >= 2:
            left -= self._clock() - self._times_at
        return max(0.0, left)

    def times(self) -> list[float] | None:
        """Both sides' time left now (seconds), for the journal's move records."""
        server = self.seat.server if self.seat is not None else None
        if not self.playing or server is None or server.times_ms is None:
            return None
        return [round(self.remaining(i) or 0.0, 1) for i in range(len(server.players))]

    def clock_json(self) -> dict[str, Any] | None:
        """The server's clocks in the shape of the board's own clock (the page draws it),
        and the seconds spent making the opponent's move on the board."""
        server = self.seat.server if self.seat is not None else None
        if server is None or server.times_ms is None:
            return None
        left = [self.remaining(i) or 0.0 for i in range(len(server.players))]
        running = server.to_move if self.playing and server.plies >= 2 else None
        executing = (None if self._execute_since is None
                     else round(self._clock() - self._execute_since, 1))
        return {"control": (self.record or {}).get("clock") or "", "server": True,
                "names": [_clock_name(p) for p in server.players],
                "remaining": [round(x, 1) for x in left],
                "shown": [format_clock(x) for x in left],
                "low": [x < LOW_TIME_S for x in left], "running": running,
                "paused": running is None, "flag": None, "executing_s": executing}

    def json(self) -> dict[str, Any]:
        """The online section of the page (the token only masked)."""
        server = self.seat.server if self.seat is not None else None
        game = None
        if self.record is not None:
            status = server.status if server else "connecting"
            # the wire's status stays as the server said it; its words are for the page
            game = dict(self.record, status=status, status_text=STATUS_WORDS.get(status, status),
                        players=[p.name for p in server.players] if server else [],
                        mine=self.record.get("seat"), draw_offer=server.draw_offer
                        if server else None, takeback_offer=server.takeback_offer
                        if server else None, gone=self.gone,
                        reconnects=self.seat.reconnects if self.seat else 0)
        return {"server": self.settings.server, "token": self.token_masked(),
                "account": self.me, "connected": self.api is not None,
                "games": self.offered() if self.me is not None else [],
                "playing": self.playing, "game": game, "commands": list(self.commands()),
                "seeking": self.seeking, "challenges": list(self.challenges.values()),
                "open_url": self.open_url, "notices": list(self.notices),
                "chat": [{"from": who, "text": text}
                         for who, text in (self.seat.chat if self.seat else ())],
                "targets": self.settings.targets}

    def close(self) -> None:
        self._disconnect()
