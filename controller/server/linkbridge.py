"""Boards linked over MQTT play the server's games (docs/server.md, "Linked boards join
the server's games").

The server logs in to its club's broker as the ``referee`` user and plays the referee's
part of the refereed protocol (docs/link.md, format 2) for games held by the hub: a
board's ``seats/BOARD/request`` becomes a hub game, its ``attempt`` a hub move for the
board's account, and after every ply each linked seat is sent its ``view`` (retained,
QoS 1).  For a game with hidden information the view is the referee's; for an open game
the whole position is that seat's view — so one path serves every game, and a board
never holds more than its seat may know.

A seat of the request names who plays it:

* a device id (a board's name at the broker): that device's owner, the board linked
  (the board that asks must be one of them);
* ``@NAME``: the server account ``NAME``, playing in the browser or with the Board API;
* ``@`` alone: anyone — a seek on the server (two-player games).

Which request became which game is kept in ``linkbridge.json`` in the data folder, so a
restarted server answers the boards of its unfinished games again.  This room is used from
the web server's event loop only, like the hub: the broker's messages are handed to the
loop as they arrive (paho's thread puts them on an asyncio queue), and the hub tells the
room of every change (a :class:`~controller.server.games.HubListener`) — nothing is polled.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.atomic import write_atomically
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
from controller.server.games import Challenge, LiveGame, PlayError, game_and_options
from controller.server.hub import Hub

log = logging.getLogger("fairyboard.server.linkbridge")

STATE_FILE = "linkbridge.json"


class PushedLink(MqttLink):
    """The link whose messages are handed to the event loop as they arrive: paho's thread
    moves each one onto the loop's queue (no polling)."""

    def __init__(self, settings: BrokerSettings, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.arrived: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        super().__init__(settings)

    def _on_message(self, client, userdata, msg) -> None:
        super()._on_message(client, userdata, msg)
        for item in self.receive():
            with contextlib.suppress(RuntimeError):  # (the loop closed: the server stopping)
                self._loop.call_soon_threadsafe(self.arrived.put_nowait, item)


@dataclass
class LinkedGame:
    """A hub game some of whose seats are boards linked over MQTT."""

    request_id: str  #: the board's game id: every view and attempt names it
    hub_id: str
    boards: dict[int, str]  #: seat -> device id, the linked seats
    names: tuple[str, ...]  #: the seats as the views name them
    #: seat -> the ply its last attempt was refused for (open games)
    refused: dict[int, int] = field(default_factory=dict)
    sent: dict[int, SeatView] = field(default_factory=dict)  #: the last view per seat

    def record(self) -> dict[str, Any]:
        return {"game": self.hub_id, "boards": {str(k): v for k, v in self.boards.items()},
                "names": list(self.names)}


class LinkBridge:
    """The referee's part for the hub's games, on the club's broker."""

    def __init__(self, hub: Hub, settings: BrokerSettings, folder: Path) -> None:
        self.hub = hub
        self.settings = settings
        self.club = settings.club
        self.path = Path(folder) / STATE_FILE
        self.games: dict[str, LinkedGame] = {}  #: by the board's request id
        #: every request id taken since the start (a copy of one, QoS 1, changes nothing)
        self._taken: set[str] = set()
        #: challenges sent for boards' requests, by id: the game once accepted
        self._challenges: dict[str, LinkedGame] = {}
        self._by_hub: dict[str, LinkedGame] = {}  #: the linked games by hub game id
        self.mqtt: PushedLink | None = None

    # -- running -----------------------------------------------------------------------
    def start(self) -> None:
        """Connect (paho retries until the broker is up), take the unfinished games back
        from the state file and listen to the hub (in the event loop)."""
        mqtt = self.mqtt = PushedLink(self.settings, asyncio.get_running_loop())
        self._load()
        self.hub.listeners.append(self)
        mqtt.subscribe(seat_topic(self.club, "+", "request"))
        mqtt.subscribe(seat_topic(self.club, "+", "attempt"))
        for lg in list(self.games.values()):  # (their boards may have missed the last view)
            self._tell(lg)

    async def run(self) -> None:
        """Each board's message in the order the broker gave them."""
        assert self.mqtt is not None
        arrived = self.mqtt.arrived
        while True:
            topic, message = await arrived.get()
            try:
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

    # -- the hub's changes (HubListener) -------------------------------------------------
    def game_changed(self, g: LiveGame) -> None:
        lg = self._by_hub.get(g.id)
        if lg is not None:
            self._tell(lg, g)

    def challenge_answered(self, c: Challenge, g: LiveGame | None) -> None:
        """A board's challenge was answered: its game linked, or (declined) forgotten."""
        lg = self._challenges.pop(c.id, None)
        if lg is None:
            return
        if g is None:
            log.info("linked board's challenge declined", extra={
                "link_game": lg.request_id, "challenge": c.id})
            return
        lg.hub_id = g.id
        self._link(lg)

    # -- the boards' messages ----------------------------------------------------------
    async def request(self, board: str, start: Start) -> None:
        """``board`` asks for a game (its ``request`` topic): a hub game between the
        accounts its seats name, or a seek."""
        if start.game_id in self.games or start.game_id in self._taken:
            return  # a duplicate (QoS 1), a game under way or a seek waiting
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
        if start.game_id in self.games or start.game_id in self._taken:
            return  # (a copy that came while the store was asked)
        self.mqtt_clear(board)  # taken: a restarted server must not start it again
        self._taken.add(start.game_id)
        names = tuple(start.seats)
        if None in accounts:
            await self._seek(start, name, options, accounts, boards)
            return
        players = [a for a in accounts if a]
        invited = [seat for seat in range(len(players)) if seat not in boards]
        if not invited:  # boards only: each board's view is its invitation (docs/link.md)
            g = await self.hub.start_game(name, options, players, None, False)
            self._link(LinkedGame(start.game_id, g.id, boards, names))
            return
        if len(players) != 2:
            raise PlayError("a board challenges one server player: seek for more")
        (seat,) = boards
        c = await self.hub.challenge(players[seat], players[invited[0]], name, options, None,
                                     False, "white" if seat == 0 else "black")
        self._challenges[c.id] = LinkedGame(start.game_id, "", boards, names)
        log.info("linked board challenges", extra={"link_game": start.game_id,
                                                   "challenge": c.id})

    async def _seek(self, start: Start, name: str, options: dict[str, Any],
              accounts: list[str | None], boards: dict[int, str]) -> None:
        """A seat for anyone: the board's account seeks on the server, for its seat."""
        if len(accounts) != 2 or len(boards) != 1 or accounts.count(None) != 1:
            raise PlayError("a seek from a board is for two players: its seat and '@'")
        (seat,) = boards
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
            named[here] = boards[seat]
            self._link(LinkedGame(start.game_id, g.id, {here: boards[seat]}, tuple(named)))

        if seek.found.done():
            found(seek.found)
        else:
            seek.found.add_done_callback(found)

    async def attempt(self, board: str, a: Attempt) -> None:
        """``board`` tries a move for its seat: a hub move of its account."""
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
            result, reason = g.result or "*", g.reason
        return SeatView(lg.request_id, g.name, dict(options), lg.names, seat, ply,
                        position, check, refused, result, reason)

    def _tell(self, lg: LinkedGame, g: LiveGame | None = None,
              again: int | None = None) -> None:
        """Each linked seat's view when it changed (``again``: that seat's in any case)."""
        if self.mqtt is None:
            return
        g = g or self.hub.games.get(lg.hub_id)
        if g is None:  # (no longer in memory: long over)
            self._unlink(lg)
            return
        for seat, board in lg.boards.items():
            v = self.view(lg, g, seat)
            if v is None or (v == lg.sent.get(seat) and seat != again):
                continue
            lg.sent[seat] = v
            self.mqtt.publish(seat_topic(self.club, board, "view"), v, retain=True)
        if g.ended:
            self._unlink(lg)

    # -- which request is which game ---------------------------------------------------
    def _link(self, lg: LinkedGame) -> None:
        self.games[lg.request_id] = lg
        self._by_hub[lg.hub_id] = lg
        log.info("linked game", extra={"game_id": lg.hub_id, "link_game": lg.request_id,
                                       "boards": sorted(lg.boards.values())})
        self._save()
        self._tell(lg)

    def _unlink(self, lg: LinkedGame) -> None:
        self.games.pop(lg.request_id, None)
        self._by_hub.pop(lg.hub_id, None)
        self._save()

    def mqtt_clear(self, board: str) -> None:
        assert self.mqtt is not None
        self.mqtt.clear(seat_topic(self.club, board, "request"))

    def _save(self) -> None:
        data = {rid: lg.record() for rid, lg in self.games.items()}
        write_atomically(self.path, json.dumps(data, sort_keys=True).encode(), mode=0o600)

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.error("linked games not read", extra={"problem": str(exc)[:200]})
            return
        for rid, r in data.items():
            try:
                lg = LinkedGame(rid, r["game"], {int(k): v for k, v in r["boards"].items()},
                                tuple(r["names"]))
            except (KeyError, TypeError, ValueError, AttributeError):
                log.error("linked game not read", extra={"link_game": str(rid)[:64]})
                continue
            g = self.hub.games.get(lg.hub_id)
            if g is not None and not g.ended:
                self.games[rid] = lg
                self._by_hub[lg.hub_id] = lg
            self._taken.add(rid)


def bridge_settings(host: str, port: int, club: str, secret: str) -> BrokerSettings:
    """The server's login at its club's broker: the referee's."""
    return BrokerSettings(host=host, port=port, club=club, board="referee",
                          username="referee", password=secret)
