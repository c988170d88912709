"""Several ``fairyboard server`` workers on one PostgreSQL and one MQTT broker, serving the
same games (``fairyboard server --cluster HOST:PORT``; docs/server.md, "Growing past one
machine").

* **The store decides.** A worker changes a game only on the version of it that it read:
  the change's transaction bumps the game's version under its row lock
  (:meth:`~controller.server.store.Store._take_turn`), so of two workers changing one
  version exactly one writes; the other is told :class:`~controller.server.store.Behind`,
  reads the game again and judges the request again on what the store holds.  A ply, a
  takeback and a game's end (a clock's too) are all such changes: no ply is lost, doubled
  or forked, and only one worker ends a game.
* **The referee judges from the store.** A game with hidden information keeps its truth
  (the set-up the referee drew, each ply's true move) in columns no player's path reads;
  every worker's :class:`~controller.link.referee.Referee` holds a copy adopted from them
  and judges the next attempt with the one home of the rules of refereeing.
* **The broker tells.** After each change the worker publishes "game G is at version V"
  on ``fairyboard/v1/server/cluster/games/G`` —
  never a position or a move; boards' logins cannot read that topic.  Every other worker
  reads G again from the store and wakes its streams.  A worker that dies leaves its last
  will on ``cluster/workers/W``: the others then read every live game again (a ply it
  stored but never told), and a sweep every :data:`SWEEP_S` catches any notice lost.
* **The lobby is the store's** (``lobby.py``): seeks and challenges taken by exactly one
  game, told on ``cluster/lobby`` as the lobby's version; a game's public offers are
  kept on its row under its version, so two offers made at once on two workers are both
  seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import socket
import time
from dataclasses import dataclass
from typing import Any

from controller.link.messages import ROOT, check_name
from controller.link.referee import ILLEGAL_MOVE, Referee
from controller.rules.core import Outcome, RulesError
from controller.server.games import LiveGame, PlayError, ending_words, winners_of
from controller.server.hub import HIDDEN_MOVE, KEEP_ENDED, Hub
from controller.server.lobby import StoreLobby
from controller.server.store import GameRecord, Store, StoreError, Unavailable
from controller.wire import read_move

log = logging.getLogger("fairyboard.server.cluster")

#: how often a worker compares its live games' versions with the store's
SWEEP_S = 2.0
#: a refereed game just started on another worker may be read before its truth is
#: stored (the referee's set-up follows the game's row): read again this often, so long
TRUTH_WAITS, TRUTH_WAIT_S = 20, 0.1
CLUB = "server"


@dataclass(frozen=True)
class ClusterSettings:
    """The broker the workers share and this worker's name at it."""

    host: str
    port: int
    worker: str
    username: str = ""
    password: str = ""


def cluster_settings(address: str, worker: str | None = None, username: str = "",
                     password: str = "") -> ClusterSettings:
    """``HOST:PORT`` of the broker (one line when it is not one)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"--cluster {address[:60]!r}: the broker as HOST:PORT")
    name = worker or f"{socket.gethostname()}-{os.getpid()}"
    try:
        check_name("--worker", name)
    except ValueError as exc:
        raise ValueError(str(exc)) from None
    return ClusterSettings(host, int(port), name, username, password)


def notice_topic(game_id: str = "+") -> str:
    return f"{ROOT}/{CLUB}/cluster/games/{game_id}"


def worker_topic(worker: str = "+") -> str:
    return f"{ROOT}/{CLUB}/cluster/workers/{worker}"


def lobby_topic() -> str:
    return f"{ROOT}/{CLUB}/cluster/lobby"


class ClusterLink:
    """This worker's login at the shared broker (paho, QoS 1): notices out, the others'
    notices and wills handed to the event loop as they arrive."""

    def __init__(self, settings: ClusterSettings, loop: asyncio.AbstractEventLoop) -> None:
        import paho.mqtt.client as mqtt

        self.settings = settings
        self._loop = loop
        self.arrived: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                             client_id=f"fairyboard-server-{settings.worker}",
                             clean_session=True)
        if settings.username:
            client.username_pw_set(settings.username, settings.password or None)
        client.will_set(worker_topic(settings.worker),
                        json.dumps({"worker": settings.worker, "up": False}), qos=1)
        client.reconnect_delay_set(min_delay=1, max_delay=10)
        client.on_connect = self._on_connect
        client.on_message = self._on_message
        self.client = client
        client.connect_async(settings.host, settings.port, keepalive=5)
        client.loop_start()

    def _hand(self, item: dict[str, Any]) -> None:
        with contextlib.suppress(RuntimeError):  # (the loop closed: the worker stopping)
            self._loop.call_soon_threadsafe(self.arrived.put_nowait, item)

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.warning("cluster broker refused the connection",
                        extra={"reason": str(reason_code)})
            return
        client.subscribe(notice_topic(), qos=1)
        client.subscribe(worker_topic(), qos=1)
        client.subscribe(lobby_topic(), qos=1)
        log.info("cluster connected", extra={"worker": self.settings.worker})
        self._hand({"sweep": True})  # (notices may have been missed while away)

    def _on_message(self, client, userdata, msg) -> None:
        try:
            item = json.loads(msg.payload)
        except ValueError:
            return
        if isinstance(item, dict) and item.get("worker") != self.settings.worker:
            self._hand(item)

    def tell(self, notice: dict[str, Any]) -> None:
        self.client.publish(notice_topic(notice["game"]), json.dumps(notice), qos=1)

    def tell_lobby(self) -> None:
        """The lobby changed (the others read it from the store: nothing else is said)."""
        self.client.publish(lobby_topic(), json.dumps({"lobby": True,
                                                       "worker": self.settings.worker}), qos=1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class ClusterHub(StoreLobby, Hub):
    """The hub of one worker among several: every change made on the store's version of
    the game, told to the others through the broker (module docstring)."""

    def __init__(self, store: Store, referee: Referee, settings: ClusterSettings,
                 clock=time.monotonic, dice=None) -> None:
        super().__init__(store, referee, clock, dice)
        self.settings = settings
        self.worker = settings.worker
        self.link: ClusterLink | None = None
        #: refereed games this worker cannot hold (no truth in the store: started on one
        #: process before cluster mode): told once, not read again at every sweep
        self._unreadable: set[str] = set()
        #: the ending's words a notice told, for the game's reading that follows it (the
        #: store keeps the status, not the reason)
        self._reasons: dict[str, str] = {}
        self._lobby_init()

    # -- the store's turn, the referee's truth ------------------------------------------
    def _turn_of(self, g: LiveGame) -> dict[str, Any]:
        return {"expect": g.version}

    async def _keep_offers(self, g: LiveGame) -> None:
        await self.io(self.store.set_offers, g.id, sorted(g.draw_offers), g.takeback_offer,
                      g.version)
        g.version += 1

    def _lobby_changed(self) -> None:
        if self.link is not None:
            self.link.tell_lobby()

    async def _keep_truth(self, g: LiveGame) -> None:
        await self.io(self.store.set_truth, g.id, self.referee.games[g.id].options)

    async def _referee_move(self, g: LiveGame, seat: int, account: str, text: str,
                            left: int | None, now: float) -> Outcome | None:
        try:
            outs = self._judge(g, seat, account, text)
        except PlayError:
            self._tell_refusal(g, seat)
            raise
        truth = self.referee.games[g.id].moves[-1]
        try:
            await self._record(g, HIDDEN_MOVE, left, truth)
        except (StoreError, PlayError):  # (not stored: the referee's copy is read again)
            self._stale.add(g.id)
            raise
        self._take_views(g, outs)
        v = g.views[seat]
        return Outcome(winners_of(v.result), v.reason or "") if v.result is not None else None

    # -- reading a game from the store ----------------------------------------------------
    def _read(self, game_id: str, known: LiveGame | None = None
              ) -> tuple[LiveGame, Any, float | None] | None:
        """(the store's threads) The game, a refereed one's truth, when its last change
        was stored; ``known`` (a copy of the game as held): only the plies after it are
        played on it (a takeback or an end: the game read whole)."""
        fresh = self._read_public(game_id, known)
        if fresh is None:
            return None
        g, at = fresh
        return g, self.store.truth(game_id) if g.refereed else None, at

    def _read_public(self, game_id: str, known: LiveGame | None = None
                     ) -> tuple[LiveGame, float | None] | None:
        """(the store's threads) :meth:`_read` without a refereed game's truth."""
        record = self.store.game(game_id)  # (its version read before its moves: never ahead)
        g = self._played_on(known, record) if known is not None and record else None
        if g is None and record is not None:
            g = self._rebuild(game_id, record)
        if g is None or record is None:
            return None
        if not g.ended:  # the public offers standing on the version read
            g.draw_offers = {s for s in record.draw_offers if 0 <= s < len(g.seats)}
            g.takeback_offer = record.takeback_offer
        return g, record.turned_at

    def _played_on(self, known: LiveGame, record: GameRecord) -> LiveGame | None:
        """``known`` with the plies the store has after its own (None: not only that)."""
        if known.pos is None or record.status != "started" or known.ended:
            return None
        rows = self.store.moves_with_clocks(known.id)
        if len(rows) < known.ply or [t for t, _ in rows[:known.ply]] != known.moves:
            return None
        pos, times = known.pos, list(known.times)
        try:
            for text, left in rows[known.ply:]:
                mover = known.game.ply_mover(pos)
                pos.push(read_move(known.game, pos, text))
                if left is not None:
                    times[mover] = left
        except RulesError:
            return None
        return dataclasses.replace(known, pos=pos, moves=[t for t, _ in rows],
                                   ply=len(rows), times=times, version=record.version,
                                   draw_offers=set())

    def _adopt(self, g: LiveGame, truth: Any) -> None:
        """A refereed game's views from the referee's copy of the store's truth."""
        if truth is None:
            log.error("refereed game without its truth in the store",
                      extra={"game_id": g.id})
            return
        options, moves = truth
        try:
            outs = self.referee.adopt(g.id, g.name, options, g.seats, moves[:g.ply])
        except (RulesError, ValueError, TypeError) as exc:
            log.error("refereed game not read", extra={"game_id": g.id,
                                                       "problem": str(exc)[:200]})
            return
        if g.ended:
            self.referee.close(g.id)
        g.views = {}
        self._take_views(g, outs)

    def _started_at(self, at: float | None) -> float:
        """The loop's clock when the last ply was stored (by whichever worker)."""
        now = self._clock()
        return now if at is None else now - max(0.0, time.time() - at)

    async def _refresh(self, g: LiveGame) -> None:
        """``g`` as the store has it now (another worker changed it, or this worker's
        change was refused or may not have been stored); ``g``'s lock held."""
        try:
            known = (dataclasses.replace(g, pos=g.pos.copy(), moves=list(g.moves))
                     if g.pos is not None else None)  # (copied here: the loop's streams read g)
            fresh = await self.io(self._read, g.id, known)
        except Unavailable:
            raise PlayError("the store cannot be reached now: try again", 503) from None
        if fresh is None:
            raise PlayError("the store cannot be reached now: try again", 503)
        new, truth, at = fresh
        was_ended = g.ended
        for name in ("pos", "moves", "ply", "times", "status", "result", "winners",
                     "version", "draw_offers", "takeback_offer"):
            setattr(g, name, getattr(new, name))
        if g.refereed:
            self._adopt(g, truth)
        g.turn_started = self._started_at(at)
        reason = self._reasons.pop(g.id, "")
        if g.ended and not was_ended:  # (no notice read: the rules' words, or the status's)
            g.reason = reason or ending_words(g)
        self._stale.discard(g.id)
        Hub._changed(self, g)  # (this worker's streams; the others know already)
        if g.ended and not was_ended:
            self._ended_here(g, "gameFinish")

    def _ended_here(self, g: LiveGame, kind: str) -> None:
        """Tell this worker's seats' event streams of a game another worker started
        (``gameStart``) or ended (``gameFinish``), and its lobby."""
        for seat, account in enumerate(g.seats):
            self._event(account, {"type": kind, "game": self._event_game(g, seat)})
        self.lobby.fire()
        if g.ended:
            self._keep_ended(g)

    def _keep_ended(self, g: LiveGame) -> None:
        self._ended.append(g.id)
        while len(self._ended) > KEEP_ENDED:  # (the store answers for older ones)
            self.games.pop(self._ended.pop(0), None)

    def _install(self, fresh: tuple[LiveGame, Any, float | None]) -> LiveGame | None:
        """A game read from the store held in memory (started by another worker)."""
        g, truth, at = fresh
        if g.id in self.games:
            return self.games[g.id]
        if g.refereed:
            if _truth_pending(fresh):
                return None  # (read again when asked: not unreadable, only early)
            self._adopt(g, truth)
            if not g.views:
                self._unreadable.add(g.id)
                return None
        g.turn_started = self._started_at(at)
        self.games[g.id] = g
        if g.ended:
            self._keep_ended(g)
        else:
            self._ended_here(g, "gameStart")
        return g

    async def _load(self, game_id: str, wait: bool = True) -> LiveGame | None:
        """A game another worker started, read from the store and held here (None: no
        such game, unreadable, or a refereed game whose truth is not stored yet).  Only a
        request waits for the truth (``wait``, up to :data:`TRUTH_WAITS` reads): the
        notices and sweeps go on (a worker that stopped between storing the game and its
        truth would hold up every sweep), and read the game again on the next one."""
        if game_id in self._unreadable:
            return None
        reads = TRUTH_WAITS if wait else 1
        for read in range(reads):
            if read:
                await asyncio.sleep(TRUTH_WAIT_S)  # (between reads, not after the last)
            fresh = await self.io(self._read, game_id)
            if fresh is None:
                return None
            if not _truth_pending(fresh):
                return self._install(fresh)
        return None  # (not marked unreadable: its truth may still come)

    def resume(self) -> int:
        """Every unfinished game from the store (a refereed one: its truth there); the
        lobby's past taken as told."""
        self._lobby_quiet = False
        _, seeks, challenges = self.store.lobby(time.time() - 3600)
        self._lobby_seen = {**{s.id: (s.status, 0) for s in seeks},
                            **{c.id: (c.status, c.version) for c in challenges}}
        self.store.cancel_seeks(worker=self.worker)  # (this worker's, before it stopped)
        for game_id in self.store.unfinished_games():
            fresh = self._read(game_id)
            if fresh is not None:
                self._install(fresh)
        return len(self.games)

    async def game_of(self, game_id: str) -> LiveGame:
        """The game as the store has it now: a request may reach this worker before the
        notice of another worker's change does (a stream opened here then began with an
        older ply); one read of the game's version, caught up if the store is ahead."""
        g = self.games.get(game_id)
        if g is None and len(game_id) <= 16 and game_id.isalnum():
            g = await self._load(game_id)  # (started on another worker, or out of memory)
        elif g is not None and not g.ended:
            try:
                record = await self.io(self.store.game, game_id)
            except Unavailable:
                record = None  # (memory answers; the change itself is decided by the store)
            if record is not None and record.version > g.version:
                async with g.lock:
                    if record.version > g.version:
                        await self._refresh(g)
        if g is None:
            raise PlayError("no such game", 404)
        return g

    # -- telling the others, hearing them -----------------------------------------------
    def _changed(self, g: LiveGame) -> None:
        super()._changed(g)
        if self.link is not None:
            self.link.tell({"game": g.id, "version": g.version, "worker": self.worker,
                            "reason": g.reason if g.ended else ""})

    def start_cluster(self) -> None:
        """Log in to the shared broker (in the event loop; paho retries until it is up)."""
        self.link = ClusterLink(self.settings, asyncio.get_running_loop())

    async def run_cluster(self) -> None:
        """The others' notices as they arrive, and a sweep every :data:`SWEEP_S`."""
        assert self.link is not None
        arrived = self.link.arrived
        while True:
            try:
                item = await asyncio.wait_for(arrived.get(), SWEEP_S)
            except TimeoutError:
                item = {"sweep": True}
            try:
                if "game" in item:
                    await self.heard(item)
                elif "lobby" in item:
                    await self.sync_lobby()
                else:  # a sweep due, a worker gone (its will), or connected again
                    if item.get("up") is False and isinstance(item.get("worker"), str):
                        await self.worker_gone(item["worker"])
                    await self.sweep()
            except (PlayError, StoreError) as exc:  # (the store down: the next sweep)
                log.warning("cluster: a game not read again",
                            extra={"problem": str(exc)[:200]})

    async def heard(self, notice: dict[str, Any]) -> None:
        """Another worker changed a game: read it again (or for the first time)."""
        game_id, version = notice.get("game"), notice.get("version")
        if not (isinstance(game_id, str) and isinstance(version, int)):
            return
        g = self.games.get(game_id)
        if g is None:
            if len(game_id) <= 16 and game_id.isalnum():
                await self._load(game_id, wait=False)
            return
        async with g.lock:  # (its offers too: the store keeps them on the version)
            if g.version < version or g.id in self._stale:
                reason = notice.get("reason")
                if isinstance(reason, str) and reason:
                    self._reasons[g.id] = reason[:40]
                await self._refresh(g)
            self._heard_refusal(g, version, notice.get("refused"), notice.get("ply"))

    def _tell_refusal(self, g: LiveGame, seat: int) -> None:
        """``seat``'s attempt of the next ply was refused here: the seat's streams on the
        other workers show it too (which seat and ply only, never the attempt)."""
        if self.link is not None:
            self.link.tell({"game": g.id, "version": g.version, "worker": self.worker,
                            "refused": seat, "ply": g.ply + 1})

    def _heard_refusal(self, g: LiveGame, version: int, seat: Any, ply: Any) -> None:
        """Another worker's referee refused ``seat``'s attempt of ``ply``: that seat's view
        here says so, as on the judging worker (until the seat's next ply)."""
        if not (isinstance(seat, int) and isinstance(ply, int)) or g.ended or not g.refereed:
            return
        view = g.views.get(seat)
        if g.version == version and view is not None and view.ply + 1 == ply:
            g.views[seat] = dataclasses.replace(view, refused=ILLEGAL_MOVE)
            Hub._changed(self, g)

    async def sweep(self) -> None:
        """Every live game whose version in the store is newer than this worker's (or
        that ended meanwhile) read again; games started elsewhere taken in."""
        await self.sync_lobby_if_moved()
        await self.purge_lobby_if_due()
        versions = await self.io(self.store.live_versions)
        for game_id, version in versions.items():
            g = self.games.get(game_id)
            if g is None:
                await self._load(game_id, wait=False)
            elif g.version < version:
                async with g.lock:
                    if g.version < version:
                        await self._refresh(g)
        for g in [g for g in self.games.values() if not g.ended and g.id not in versions]:
            async with g.lock:  # (ended by another worker, or started here meanwhile)
                await self._refresh(g)

    def close(self) -> None:
        if self.link is not None:
            self.link.close()
            self.link = None
        super().close()


def _truth_pending(fresh: tuple[LiveGame, Any, float | None]) -> bool:
    """A refereed game read before its truth was stored: no move yet, so the referee's
    set-up is still to come (a game with moves and no truth was started before cluster
    mode, and stays unreadable)."""
    g, truth, _ = fresh
    return g.refereed and truth is None and not g.ply
