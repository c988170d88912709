"""Boards linked over MQTT play the server's games (docs/server.md, "Linked boards join
the server's games").

The server logs in to its club's broker and plays the referee's part of the refereed
protocol (docs/link.md, format 2) for games held by the hub: a board's
``seats/BOARD/request`` becomes a hub game, its ``attempt`` a hub move for the board's
account, and after every ply each linked seat is sent its ``view`` (retained, QoS 1).
For a game with hidden information the view is the referee's; for an open game the whole
position is that seat's view — so one path serves every game, and a board never holds
more than its seat may know.

A seat of the request names who plays it:

* a device id (a board's name at the broker): that device's owner, the board linked
  (the board that asks must be one of them);
* ``@NAME``: the server account ``NAME``, playing in the browser or with the Board API;
* ``@`` alone: anyone — a seek on the server (two-player games).

Which request became which game is the store's (``linked_games``: the request taken
once, its challenge, its game, its seats' boards, the refused-ply mark of an open game),
on one process and in cluster mode alike, so a restarted server — or any other worker —
answers the boards of the unfinished games.  On one process the bridge is told of every
change by the hub (a :class:`~controller.server.games.HubListener`) and polls nothing.  In
cluster mode (``--cluster … --link-boards``) every worker runs a bridge: the boards'
requests and attempts reach exactly one of them (a shared subscription,
``$share/linkbridge/…``); every worker that holds a linked game sends its seats' views
when the hub tells it of a change (the cluster's notices wake every worker: a view sent
twice is the same retained view), and a sweep every :data:`SWEEP_S` reads the store's
linked games again (a game another worker linked, a challenge answered on a worker that
died before linking it).  Only what a worker sent last is its own (``sent``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.i18n import Text
from controller.link.client import BrokerSettings, MqttLink
from controller.link.messages import (
    ACCOUNT_SEAT,
    Attempt,
    SeatView,
    Start,
    check_name,
    seat_topic,
    sender,
)
from controller.link.referee import ILLEGAL_MOVE
from controller.server.games import (
    Challenge,
    LiveGame,
    PlayError,
    ending_words,
    game_and_options,
)
from controller.server.hub import Hub
from controller.server.store import LinkRecord, StoreError

log = logging.getLogger("fairyboard.server.linkbridge")

#: the file the linked games were kept in before the store kept them (read once, renamed)
STATE_FILE = "linkbridge.json"
#: how often a worker of a cluster reads the store's linked games again
SWEEP_S = 2.0
#: how far back a sweep looks for a board's challenge answered but not linked
ASKED_S = 3600.0
#: the shared subscription's group: each board's message goes to one worker of it
SHARE = "$share/linkbridge/"


class PushedLink(MqttLink):
    """The link whose messages are handed to the event loop as they arrive: paho's thread
    moves each one onto the loop's queue (no polling)."""

    def __init__(self, settings: BrokerSettings, loop: asyncio.AbstractEventLoop,
                 session: str | None = None) -> None:
        self._loop = loop
        self.arrived: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        super().__init__(settings, session)

    def _on_message(self, client, userdata, msg) -> None:
        super()._on_message(client, userdata, msg)
        for item in self.receive():
            with contextlib.suppress(RuntimeError):  # (the loop closed: the server stopping)
                self._loop.call_soon_threadsafe(self.arrived.put_nowait, item)


@dataclass
class LinkedGame:
    """A hub game some of whose seats are boards linked over MQTT."""

    board: str  #: the board that asked (with the request id, the store's key)
    request_id: str  #: the board's game id: every view and attempt names it
    hub_id: str
    boards: dict[int, str]  #: seat -> device id, the linked seats
    names: tuple[str, ...]  #: the seats as the views name them
    #: seat -> the ply its last attempt was refused for (open games)
    refused: dict[int, int] = field(default_factory=dict)
    sent: dict[int, SeatView] = field(default_factory=dict)  #: what this process sent last

    @classmethod
    def of(cls, r: LinkRecord) -> LinkedGame:
        return cls(r.board, r.request_id, r.game or "", dict(r.boards), r.names,
                   dict(r.refused))


class LinkBridge:
    """The referee's part for the hub's games, on the club's broker (``session``: this
    worker's client id there, in cluster mode)."""

    def __init__(self, hub: Hub, settings: BrokerSettings, folder: Path,
                 session: str | None = None) -> None:
        self.hub = hub
        self.settings = settings
        self.club = settings.club
        self.path = Path(folder) / STATE_FILE
        self.session = session
        self.cluster = session is not None
        self.games: dict[str, LinkedGame] = {}  #: by the board's request id
        #: challenges this process sent for boards' requests, by id (the store has them all)
        self._challenges: dict[str, LinkedGame] = {}
        self._by_hub: dict[str, LinkedGame] = {}  #: the linked games by hub game id
        self._tasks: set[asyncio.Task] = set()
        self.mqtt: PushedLink | None = None

    # -- running -----------------------------------------------------------------------
    def start(self) -> None:
        """Connect (paho retries until the broker is up), take the unfinished games back
        from the store and listen to the hub (in the event loop)."""
        mqtt = self.mqtt = PushedLink(self.settings, asyncio.get_running_loop(),
                                      self.session)
        self._import_file()
        for r in self.hub.store.links("live"):
            g = self.hub.games.get(r.game or "")
            if g is not None and not g.ended:
                self._hold(LinkedGame.of(r))
            elif not self.cluster:  # (over while the server was stopped)
                self.hub.store.change_link(r.board, r.request_id, "over", "live")
        self.hub.listeners.append(self)
        share = SHARE if self.cluster else ""
        mqtt.subscribe(share + seat_topic(self.club, "+", "request"))
        mqtt.subscribe(share + seat_topic(self.club, "+", "attempt"))
        for lg in list(self.games.values()):  # (their boards may have missed the last view)
            self._tell(lg)

    async def run(self) -> None:
        """Each board's message in the order the broker gave them (in cluster mode, a
        sweep of the store's linked games every :data:`SWEEP_S` besides, busy or not)."""
        assert self.mqtt is not None
        arrived = self.mqtt.arrived
        swept = time.monotonic()
        while True:
            due = max(0.0, swept + SWEEP_S - time.monotonic()) if self.cluster else None
            try:
                try:
                    topic, message = await asyncio.wait_for(arrived.get(), due)
                except TimeoutError:
                    topic = message = None
                if self.cluster and time.monotonic() >= swept + SWEEP_S:
                    swept = time.monotonic()
                    await self.sweep()
                if topic is not None:
                    await self.receive(topic, message)
            except Exception as exc:  # (the store down, …): the bridge goes on, one line
                log.error("link bridge: a message failed", extra={
                    "problem": f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:200]})

    def close(self) -> None:
        if self in self.hub.listeners:
            self.hub.listeners.remove(self)
        if self.mqtt is not None:
            self.mqtt.close()
            self.mqtt = None

    async def receive(self, topic: str, message: Any) -> None:
        """One message a board sent: a request or an attempt."""
        board = sender(self.club, topic)
        if board is None:
            return
        try:
            if isinstance(message, Start) and topic.endswith("/request"):
                await self.request(board, message)
            elif isinstance(message, Attempt) and topic.endswith("/attempt"):
                await self.attempt(board, message)
        except ValueError as exc:  # PlayError, LinkError, RulesError: one line
            log.warning("linked board refused", extra={
                "board": board, "link_game": message.game_id,
                "problem": " ".join(str(exc).split())[:200]})

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Store work a hub's (synchronous) notice started, off the notice's path."""
        task = asyncio.get_running_loop().create_task(self._logged(work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _logged(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except (StoreError, PlayError) as exc:  # (the store down: a sweep or restart heals)
            log.error("link bridge: a linked game not kept", extra={
                "problem": " ".join(str(exc).split())[:200]})

    # -- the hub's changes (HubListener) -------------------------------------------------
    def game_changed(self, g: LiveGame) -> None:
        lg = self._by_hub.get(g.id)
        if lg is not None:
            self._tell(lg, g)

    def challenge_answered(self, c: Challenge, g: LiveGame | None) -> None:
        """A challenge was answered (on this worker): a board's, its game linked, or
        (declined) its request closed."""
        lg = self._challenges.pop(c.id, None)
        if lg is not None or self.cluster:  # (in cluster mode, another worker's maybe)
            self._spawn(self._answered(c.id, lg, g.id if g is not None else None))

    async def _answered(self, challenge_id: str, lg: LinkedGame | None,
                        game_id: str | None) -> None:
        if lg is None:
            r = await self.hub.io(self.hub.store.link_of_challenge, challenge_id)
            if r is None or r.status != "asked":
                return
            lg = LinkedGame.of(r)
        if game_id is None:
            await self.hub.io(self.hub.store.change_link, lg.board, lg.request_id,
                              "declined", "asked")
            log.info("linked board's challenge declined", extra={
                "link_game": lg.request_id, "challenge": challenge_id})
            return
        lg.hub_id = game_id
        await self._link(lg, "asked")

    # -- the boards' messages ----------------------------------------------------------
    async def request(self, board: str, start: Start) -> None:
        """``board`` asks for a game (its ``request`` topic): a hub game between the
        accounts its seats name, or a seek."""
        if start.game_id in self.games:
            self._copy(start)
            return
        owner = await self.hub.io(self.hub.store.device_owner, board)
        if owner is None:
            raise PlayError("a board without a valid token asked for a game")
        if board not in start.seats:
            raise PlayError("a board asked for a game it does not play")
        name, options = game_and_options(start.game, dict(start.options))
        accounts: list[str | None] = []
        boards: dict[int, str] = {}
        for seat, who in enumerate(start.seats):
            if who == ACCOUNT_SEAT:
                accounts.append(None)
            elif who.startswith(ACCOUNT_SEAT):
                account = await self.hub.io(self.hub.store.account, who[1:])
                if account is None:
                    raise PlayError(Text("no player {name} on this server",
                                         name=repr(who[:40])))
                accounts.append(account.id)
            else:
                account_id = await self.hub.io(self.hub.store.device_owner,
                                               check_name("board", who))
                if account_id is None:
                    raise PlayError(Text("no board {name} on this server",
                                         name=repr(who[:40])))
                accounts.append(account_id)
                boards[seat] = who
        players = [a for a in accounts if a]
        invited = [seat for seat in range(len(players)) if seat not in boards]
        if None in accounts:
            if len(accounts) != 2 or len(boards) != 1 or accounts.count(None) != 1:
                raise PlayError("a seek from a board is for two players: its seat and '@'")
        elif invited and len(players) != 2:
            raise PlayError("a board challenges one server player: seek for more")
        names = tuple(start.seats)
        if not await self.hub.io(self.hub.store.take_link_request, board, start.game_id,
                                 boards, names):
            self._copy(start)
            return
        self.mqtt_clear(board)  # taken: a restarted server must not start it again
        lg = LinkedGame(board, start.game_id, "", boards, names)
        try:
            if None in accounts:
                await self._seek(lg, name, options, accounts)
            elif not invited:  # boards only: each board's view is its invitation
                g = await self.hub.start_game(name, options, players, None, False)
                lg.hub_id = g.id
                await self._link(lg, "asked")
            else:
                (seat,) = boards
                c = await self.hub.challenge(players[seat], players[invited[0]], name,
                                             options, None, False,
                                             "white" if seat == 0 else "black")
                self._challenges[c.id] = lg
                await self.hub.io(self.hub.store.change_link, board, start.game_id, "asked",
                                  "asked", challenge=c.id)
                log.info("linked board challenges", extra={"link_game": start.game_id,
                                                           "challenge": c.id})
        except PlayError:  # (the hub refused it: the request is closed, one line)
            await self.hub.io(self.hub.store.change_link, board, start.game_id, "refused",
                              "asked")
            raise

    @staticmethod
    def _copy(start: Start) -> None:
        """A request taken before (a copy, QoS 1, on whichever worker; or a game under
        way or over): nothing more happens."""
        log.info("linked board's request taken before", extra={"link_game": start.game_id})

    async def _seek(self, lg: LinkedGame, name: str, options: dict[str, Any],
                    accounts: list[str | None]) -> None:
        """A seat for anyone: the board's account seeks on the server, for its seat."""
        (seat,) = lg.boards
        device = lg.boards[seat]
        account = accounts[seat]
        assert account is not None
        seek = await self.hub.seek(account, name, options, None, False,
                                   "white" if seat == 0 else "black")

        def found(future: asyncio.Future) -> None:
            if future.cancelled():
                return
            g = self.hub.games[future.result()]
            here = g.seats.index(account)  # (two seeks for one colour: the hub chose)
            named = [ACCOUNT_SEAT + a for a in g.seats]
            named[here] = device
            self._spawn(self._link(LinkedGame(lg.board, lg.request_id, g.id,
                                              {here: device}, tuple(named)), "asked"))

        if seek.found.done():
            found(seek.found)
        else:
            seek.found.add_done_callback(found)

    async def attempt(self, board: str, a: Attempt) -> None:
        """``board`` tries a move for its seat: a hub move of its account."""
        lg = self.games.get(a.game_id)
        if (lg is None or lg.boards.get(a.seat) != board) and self.cluster:
            await self.sweep()  # (linked by another worker since this one last read)
            lg = self.games.get(a.game_id)
        if lg is None or lg.boards.get(a.seat) != board:
            raise PlayError("an attempt for a seat this board does not play")
        g = await self.hub.game_of(lg.hub_id)
        if a.ply != g.ply + 1:  # a duplicate or a stale attempt: the seat's view again
            self._tell(lg, g, again=a.seat)
            return
        try:
            await self.hub.move(g.seats[a.seat], g.id, a.move)
        except PlayError as exc:
            if str(exc).startswith("illegal move"):
                lg.refused[a.seat] = a.ply
                await self.hub.io(self.hub.store.set_link_refused, lg.board, lg.request_id,
                                  lg.refused)
            self._tell(lg, g, again=a.seat)
            log.info("linked attempt refused", extra={"game_id": g.id, "ply": a.ply,
                                                      "seat": a.seat})

    # -- the views -----------------------------------------------------------------------
    def view(self, lg: LinkedGame, g: LiveGame, seat: int) -> SeatView | None:
        """What ``seat`` may know now: the referee's view of a hidden-information game,
        the whole position of an open one."""
        if g.refereed:
            v = g.views.get(seat)
            if v is None:
                return None
            ply, position, check, refused, options = (v.ply, v.position, v.check,
                                                      v.refused, v.options)
        else:
            assert g.pos is not None
            ply, position, options = g.ply, g.game.position_text(g.pos), g.options
            check = not g.ended and g.game.in_check(g.pos)
            refused = ILLEGAL_MOVE if lg.refused.get(seat) == g.ply + 1 else ""
        result = reason = None
        if g.ended:
            result, reason = g.result or "*", ending_words(g)
        return SeatView(lg.request_id, g.name, dict(options), lg.names, seat, ply,
                        position, check, refused, result, reason)

    def _tell(self, lg: LinkedGame, g: LiveGame | None = None,
              again: int | None = None) -> None:
        """Each linked seat's view when it changed (``again``: that seat's in any case)."""
        if self.mqtt is None:
            return
        g = g or self.hub.games.get(lg.hub_id)
        if g is None:  # (not in this process's memory: long over, or another worker's)
            self._forget(lg)
            return
        for seat, board in lg.boards.items():
            v = self.view(lg, g, seat)
            if v is None or (v == lg.sent.get(seat) and seat != again):
                continue
            lg.sent[seat] = v
            self.mqtt.publish(seat_topic(self.club, board, "view"), v, retain=True)
        if g.ended:
            self._forget(lg)
            self._spawn(self._over(lg))

    # -- which request is which game ---------------------------------------------------
    def _hold(self, lg: LinkedGame) -> None:
        self.games[lg.request_id] = lg
        self._by_hub[lg.hub_id] = lg

    def _forget(self, lg: LinkedGame) -> None:
        if self.games.get(lg.request_id) is lg:
            self.games.pop(lg.request_id, None)
        self._by_hub.pop(lg.hub_id, None)

    async def _link(self, lg: LinkedGame, expect: str) -> None:
        """The request's game found: kept (from status ``expect``), its seats told."""
        if not await self.hub.io(self.hub.store.change_link, lg.board, lg.request_id,
                                 "live", expect, lg.hub_id, None, lg.boards, lg.names):
            return  # (linked already: by another worker's sweep)
        self._hold(lg)
        log.info("linked game", extra={"game_id": lg.hub_id, "link_game": lg.request_id,
                                       "boards": sorted(lg.boards.values())})
        self._tell(lg)

    async def _over(self, lg: LinkedGame) -> None:
        await self.hub.io(self.hub.store.change_link, lg.board, lg.request_id, "over",
                          "live")

    async def sweep(self) -> None:
        """(cluster mode) The store's linked games read again: those another worker linked
        held here (their seats told), those that ended elsewhere forgotten, and a board's
        challenge answered on a worker that died before it linked the game linked now
        (a challenge made within :data:`ASKED_S`)."""
        live = await self.hub.io(self.hub.store.links, "live")
        ids = {(r.board, r.request_id) for r in live}
        for lg in [lg for lg in self.games.values() if (lg.board, lg.request_id) not in ids]:
            self._forget(lg)
        for r in live:
            if r.request_id in self.games and self.games[r.request_id].board == r.board:
                continue
            try:
                g = await self.hub.game_of(r.game or "")
            except PlayError:
                continue
            lg = LinkedGame.of(r)
            self._hold(lg)
            self._tell(lg, g)
        for r in await self.hub.io(self.hub.store.links, "asked", time.time() - ASKED_S):
            if r.challenge is None:
                continue  # (a seek waiting: its worker links it, or its death withdrew it)
            c = await self.hub.io(self.hub.store.challenge_record, r.challenge)
            if c is not None and c.status == "accepted" and c.game_id:
                self._challenges.pop(r.challenge, None)
                await self._answered(r.challenge, LinkedGame.of(r), c.game_id)
            elif c is None or c.status in ("declined", "canceled"):
                self._challenges.pop(r.challenge, None)
                await self._answered(r.challenge, LinkedGame.of(r), None)

    def _import_file(self) -> None:
        """The linked games of a server from before the store kept them (read once; the
        file renamed, so it is not read again)."""
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.error("linked games not read", extra={"problem": str(exc)[:200]})
            return
        store = self.hub.store
        for rid, r in (data.items() if isinstance(data, dict) else ()):
            try:
                boards = {int(k): v for k, v in r["boards"].items()}
                names = tuple(r["names"])
                board = next(b for b in boards.values() if b in names)
            except (KeyError, TypeError, ValueError, AttributeError, StopIteration):
                log.error("linked game not read", extra={"link_game": str(rid)[:64]})
                continue
            if store.take_link_request(board, rid, boards, names):
                store.change_link(board, rid, "live", "asked", str(r["game"]))
        self.path.rename(self.path.with_suffix(".json.imported"))

    def mqtt_clear(self, board: str) -> None:
        assert self.mqtt is not None
        self.mqtt.clear(seat_topic(self.club, board, "request"))


def bridge_settings(host: str, port: int, club: str, secret: str) -> BrokerSettings:
    """The server's login at its club's broker: the referee's."""
    return BrokerSettings(host=host, port=port, club=club, board="referee",
                          username="referee", password=secret)


def cluster_bridge(hub: Hub, host: str, port: int, club: str, worker: str, username: str,
                   password: str, folder: Path) -> LinkBridge:
    """A worker's bridge on the cluster's broker, with the cluster's login
    (``FAIRYBOARD_SERVER_CLUSTER_USER``/``_PASSWORD``), its client id its own."""
    settings = BrokerSettings(host=host, port=port, club=club, board="referee",
                              username=username, password=password)
    return LinkBridge(hub, settings, folder, session=f"fairyboard-bridge-{worker}")
