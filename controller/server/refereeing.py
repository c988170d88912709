"""Referee processes of their own for the server's workers (``fairyboard server --cluster
HOST:PORT --referee``; docs/server.md, "Growing past one machine").

A worker started with ``--use-referees`` never holds a hidden-information game's truth:
it asks a referee process to start the game, judge each attempt and reveal the game at
its end, and streams each seat's view, which the referee stores with each ply.

* **Assigned through a shared subscription, held by a lease.**  A request for a game no
  worker knows the referee of goes to ``…/cluster/referees/requests``, which every
  referee subscribes as ``$share/referees/…`` (MQTT 5): the broker hands it to exactly
  one.  That referee takes the game's **lease** in the store (a compare-and-set on the
  game's row, renewed every :data:`RENEW_S` while the process lives), so a game is
  judged by one referee at a time however the messages were spread; a referee asked
  about a game another holds answers its name, and the worker asks that one directly
  (``…/cluster/referees/R/requests``) from then on.
* **Taken over when a referee dies.**  Its lease runs out :data:`LEASE_S` after its last
  renewal; a worker whose request went unanswered asks the group again until one
  referee has taken the game (its truth adopted from the store) — or tells the player
  in one line that no referee answers (:data:`DEADLINE_S`).  Each ply is stored on the
  game's version (the compare-and-set workers use), so a judgement that comes too late
  is refused by the store, never doubled.
* **Requests and answers are MQTT 5's**: a response topic per worker and correlation
  data per request.  Nothing on ``cluster/`` reaches a board (the boards' access rules).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import queue
import secrets
import threading
import time
from typing import Any

from controller.link.messages import ROOT, Attempt, SeatView, Start, decode, encode_refereed
from controller.link.referee import Referee
from controller.rules.core import Outcome, RulesError
from controller.server.cluster import CLUB, ClusterHub, ClusterSettings
from controller.server.games import LiveGame, PlayError, winners_of
from controller.server.hub import HIDDEN_MOVE
from controller.server.store import Behind, Conflict, Store, StoreError

log = logging.getLogger("fairyboard.server.referees")

#: how long a referee's lease on a game lasts after its last renewal
LEASE_S = 3.0
#: how often a referee renews its leases
RENEW_S = 1.0
#: how long a worker waits for one answer before it asks the group again
ANSWER_S = 1.5
#: how long a worker tries before it tells the player no referee answers
DEADLINE_S = LEASE_S + 4 * ANSWER_S


def requests_topic(referee: str | None = None) -> str:
    """The group's requests (``None``) or one referee's."""
    middle = f"referees/{referee}/requests" if referee else "referees/requests"
    return f"{ROOT}/{CLUB}/cluster/{middle}"


def answers_topic(worker: str) -> str:
    return f"{ROOT}/{CLUB}/cluster/answers/{worker}"


def _client(settings: ClusterSettings, role: str):
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                         client_id=f"fairyboard-{role}-{settings.worker}",
                         protocol=mqtt.MQTTv5)
    if settings.username:
        client.username_pw_set(settings.username, settings.password or None)
    client.reconnect_delay_set(min_delay=1, max_delay=10)
    return client


def _views_json(outs: list) -> dict[str, str]:
    return {str(m.seat): encode_refereed(m).decode() for _, m, _ in outs
            if isinstance(m, SeatView)}


def _views(data: Any) -> dict[int, SeatView]:
    """Seat views as a referee sent or stored them (anything else left out)."""
    out: dict[int, SeatView] = {}
    if isinstance(data, dict):
        for seat, text in data.items():
            try:
                view = decode(text.encode())
            except Exception:  # (a malformed view is no view: the next one replaces it)
                continue
            if isinstance(view, SeatView) and str(view.seat) == str(seat):
                out[view.seat] = view
    return out


# -- the referee process -----------------------------------------------------------------
class RefereeProcess:
    """One referee process: the group's and its own requests, judged one at a time with
    the one home of the rules of refereeing (:class:`~controller.link.referee.Referee`),
    each game's truth adopted from the store when it takes the game."""

    def __init__(self, store: Store, settings: ClusterSettings,
                 seed: str | None = None) -> None:
        self.store, self.settings, self.name = store, settings, settings.worker
        self.referee = Referee(CLUB, None, seed=seed, numbered=seed is not None)
        self.inbox: queue.Queue[tuple[bytes, Any]] = queue.Queue()
        self.held: set[str] = set()  #: games whose copy here is the store's
        self.stopping = threading.Event()
        self.client = _client(settings, "referee")
        self.client.on_connect = self._on_connect
        self.client.on_message = lambda c, u, msg: self.inbox.put((msg.payload,
                                                                   msg.properties))

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.warning("referee: the broker refused the connection",
                        extra={"reason": str(reason_code)})
            return
        client.subscribe(f"$share/referees/{requests_topic()}", qos=1)
        client.subscribe(requests_topic(self.name), qos=1)
        log.info("referee ready", extra={"referee": self.name})

    def run(self) -> None:
        """Until :meth:`stop`: requests as they come, the leases renewed meanwhile."""
        self.client.connect_async(self.settings.host, self.settings.port, keepalive=5)
        self.client.loop_start()
        renewed = 0.0
        try:
            while not self.stopping.is_set():
                if time.monotonic() - renewed >= RENEW_S:
                    self._renew()
                    renewed = time.monotonic()
                try:
                    payload, properties = self.inbox.get(timeout=RENEW_S / 4)
                except queue.Empty:
                    continue
                self._serve(payload, properties)
        finally:
            self.client.disconnect()
            self.client.loop_stop()

    def stop(self) -> None:
        self.stopping.set()

    def _renew(self) -> None:
        try:
            still = self.store.renew_referee(self.name, time.time() + LEASE_S)
        except StoreError as exc:
            log.warning("referee: leases not renewed", extra={"problem": str(exc)[:200]})
            return
        for game_id in self.held - still:  # (ended, or taken over while this one stalled)
            self._drop(game_id)

    def _drop(self, game_id: str) -> None:
        self.held.discard(game_id)
        self.referee.games.pop(game_id, None)

    def _serve(self, payload: bytes, properties: Any) -> None:
        reply_to = getattr(properties, "ResponseTopic", None)
        correlation = getattr(properties, "CorrelationData", None)
        try:
            request = json.loads(payload)
            if not isinstance(request, dict) or not isinstance(request.get("game"), str):
                raise ValueError("not a request")
            answer = self._answer(request)
        except (ValueError, TypeError, KeyError) as exc:
            answer = {"error": f"bad request: {str(exc)[:80]}"}
        except StoreError as exc:
            answer = {"error": "the store cannot be reached now: try again"}
            log.warning("referee: store", extra={"problem": str(exc)[:200]})
        except Exception as exc:  # (one request's defect must not stop the referee)
            answer = {"error": "the referee failed on this request"}
            log.error("referee: a request failed", extra={
                "problem": f"{type(exc).__name__}: {str(exc)[:200]}"})
        if reply_to:
            from paho.mqtt.packettypes import PacketTypes
            from paho.mqtt.properties import Properties

            props = Properties(PacketTypes.PUBLISH)
            if correlation is not None:
                props.CorrelationData = correlation
            self.client.publish(reply_to, json.dumps(answer), qos=1, properties=props)

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        game_id, op = request["game"], request.get("op")
        holder = self.store.claim_referee(game_id, self.name, time.time() + LEASE_S,
                                          time.time())
        if holder is None:
            self._drop(game_id)
            return {"error": "no such game under way"}
        if holder != self.name:
            self._drop(game_id)
            return {"holder": holder}
        if op == "start":
            return self._start(game_id)
        if not self._hold(game_id):
            return {"error": "the game's truth is not in the store"}
        if op == "attempt":
            return self._attempt(game_id, request)
        if op == "close":
            return self._close(game_id)
        return {"error": f"no such request {str(op)[:20]!r}"}

    def _hold(self, game_id: str, moves_expected: int | None = None) -> bool:
        """This referee's copy of the game as the store has it (adopted when it is not
        held, or not at ``moves_expected`` plies)."""
        copy = self.referee.games.get(game_id)
        if (game_id in self.held and copy is not None
                and (moves_expected is None or len(copy.moves) == moves_expected)):
            return True
        record, truth = self.store.game(game_id), self.store.truth(game_id)
        if record is None or truth is None:
            return False
        options, moves = truth
        try:
            self.referee.adopt(game_id, record.game, options, record.seats, moves)
        except (RulesError, ValueError, TypeError) as exc:
            log.error("referee: game not read", extra={"game_id": game_id,
                                                       "problem": str(exc)[:200]})
            return False
        self.held.add(game_id)
        log.info("refereed game taken", extra={"game_id": game_id, "ply": len(moves),
                                               "referee": self.name})
        return True

    def _start(self, game_id: str) -> dict[str, Any]:
        record, truth = self.store.game(game_id), self.store.truth(game_id)
        assert record is not None  # (the lease was taken on its row)
        if truth is not None:  # (asked again: its first answer was lost)
            outs = self.referee.adopt(game_id, record.game, truth[0], record.seats, truth[1])
            self.held.add(game_id)
            return {"views": _views_json(outs)}
        outs = self.referee.start(Start(game_id, record.game, record.options, "",
                                        record.seats))
        views = _views_json(outs)
        if not views:
            return {"error": "the referee refused the game"}
        g = self.referee.games[game_id]
        self.store.set_truth(game_id, g.options, {int(s): v for s, v in views.items()})
        self.held.add(game_id)
        return {"views": views}

    def _attempt(self, game_id: str, request: dict[str, Any]) -> dict[str, Any]:
        ply, seat, expect = int(request["ply"]), int(request["seat"]), int(request["expect"])
        left = request.get("left")
        if not self._hold(game_id, ply - 1):
            return {"error": "the game's truth is not in the store"}
        g = self.referee.games[game_id]
        if len(g.moves) != ply - 1:  # (the store is past it: the worker reads it again)
            return {"behind": True}
        outs = self.referee.attempt(str(request["account"]),
                                    Attempt(game_id, ply, seat, str(request["text"])[:200]))
        views = _views_json(outs)
        if not any(isinstance(m, SeatView) and m.ply == ply for _, m, _ in outs):
            return {"refused": views}
        try:
            self.store.add_move(game_id, ply, HIDDEN_MOVE,
                                left if isinstance(left, int) else None, expect=expect,
                                truth=g.moves[-1],
                                views={int(s): v for s, v in views.items()})
        except (Behind, Conflict):  # (another change came first: adopted again next time)
            self._drop(game_id)
            return {"behind": True}
        except StoreError:
            self._drop(game_id)
            raise
        log.info("refereed ply stored", extra={"game_id": game_id, "ply": ply,
                                               "referee": self.name})
        return {"views": views}

    def _close(self, game_id: str) -> dict[str, Any]:
        g = self.referee.games[game_id]
        options, moves = dict(g.options), self.referee.close(game_id)
        self._drop(game_id)
        self.store.release_referee(game_id, self.name)
        return {"moves": moves, "options": options}


# -- the worker's side ---------------------------------------------------------------------
class RefereeClient:
    """A worker's requests to the referee processes (MQTT 5 request and response)."""

    def __init__(self, settings: ClusterSettings, loop: asyncio.AbstractEventLoop) -> None:
        self.settings, self._loop = settings, loop
        self.holders: dict[str, str] = {}  #: game -> the referee that answered for it
        self._waiting: dict[bytes, asyncio.Future] = {}
        self.client = _client(settings, "worker-referees")
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.connect_async(settings.host, settings.port, keepalive=5)
        self.client.loop_start()

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if not reason_code.is_failure:
            client.subscribe(answers_topic(self.settings.worker), qos=1)

    def _on_message(self, client, userdata, msg) -> None:
        key = getattr(msg.properties, "CorrelationData", None)
        with contextlib.suppress(RuntimeError):  # (the loop closed: the worker stopping)
            self._loop.call_soon_threadsafe(self._answered, key, msg.payload)

    def _answered(self, key: bytes | None, payload: bytes) -> None:
        future = self._waiting.pop(key, None) if key is not None else None
        if future is None or future.done():
            return  # (an answer that came after its request was asked again)
        try:
            answer = json.loads(payload)
        except ValueError:
            answer = None
        future.set_result(answer if isinstance(answer, dict) else {"error": "bad answer"})

    async def ask(self, op: str, game_id: str, **fields: Any) -> dict[str, Any]:
        """The answer of the referee that holds (or takes) ``game_id``; PlayError 503 when
        none answers within :data:`DEADLINE_S`."""
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            key = secrets.token_bytes(8)
            future = self._loop.create_future()
            self._waiting[key] = future
            props = Properties(PacketTypes.PUBLISH)
            props.ResponseTopic = answers_topic(self.settings.worker)
            props.CorrelationData = key
            holder = self.holders.get(game_id)
            self.client.publish(requests_topic(holder),
                                json.dumps({"op": op, "game": game_id, **fields}), qos=1,
                                properties=props)
            try:
                answer = await asyncio.wait_for(future, ANSWER_S)
            except TimeoutError:  # (that referee is gone, or slow: the group is asked)
                self._waiting.pop(key, None)
                self.holders.pop(game_id, None)
                continue
            if isinstance(answer.get("holder"), str):
                if answer["holder"] == holder:  # (it says it holds and does not answer)
                    await asyncio.sleep(ANSWER_S / 4)
                self.holders[game_id] = answer["holder"]
                continue
            if "error" in answer:
                log.warning("referee: a request not served", extra={
                    "game_id": game_id, "op": op, "problem": str(answer["error"])[:120]})
                raise PlayError("the referee cannot judge this game now: try again", 503)
            return answer
        raise PlayError("no referee answers now: try again", 503)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class WithoutTruth:
    """The store as a worker with referee processes has it: everything but a refereed
    game's truth, so no path of the worker can read or write it."""

    HIDDEN = frozenset({"truth", "set_truth"})

    def __init__(self, store: Store) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        if name in self.HIDDEN:
            raise AttributeError(f"a worker with referee processes never holds a game's "
                                 f"truth ({name})")
        return getattr(self._store, name)


class RefereedClusterHub(ClusterHub):
    """A worker whose hidden-information games are judged by referee processes: it reads
    and streams each seat's view and never reads a game's truth (module docstring)."""

    def __init__(self, store: Store, referee: Referee, settings: ClusterSettings,
                 clock=time.monotonic, dice=None) -> None:
        super().__init__(WithoutTruth(store), referee, settings, clock, dice)  # type: ignore[arg-type]
        self.judges: RefereeClient | None = None

    def start_cluster(self) -> None:
        super().start_cluster()
        self.judges = RefereeClient(self.settings, asyncio.get_running_loop())

    def _ask(self, op: str, g: LiveGame, **fields: Any):
        if self.judges is None:
            raise PlayError("no referee answers now: try again", 503)
        return self.judges.ask(op, g.id, **fields)

    async def _start_refereed(self, g: LiveGame) -> None:
        answer = await self._ask("start", g)
        g.views = _views(answer.get("views"))
        if len(g.views) != len(g.seats):
            raise PlayError("the referee refused the game", 500)

    async def _keep_truth(self, g: LiveGame) -> None:
        """(the referee process stored it)"""

    async def _referee_move(self, g: LiveGame, seat: int, account: str, text: str,
                            left: int | None, now: float) -> Outcome | None:
        answer = await self._ask("attempt", g, ply=g.ply + 1, seat=seat, account=account,
                                 text=text, left=left, expect=g.version)
        if answer.get("behind"):
            raise Behind(f"game {g.id} changed since version {g.version}")
        if "refused" in answer:
            g.views.update(_views(answer["refused"]))
            self._changed(g)
            self._tell_refusal(g, seat)
            raise PlayError("illegal move")
        views = _views(answer.get("views"))
        g.ply += 1
        g.version += 1
        g.views.update(views)
        v = g.views[seat]
        return Outcome(winners_of(v.result), v.reason or "") if v.result is not None else None

    async def _reveal(self, g: LiveGame) -> tuple[list[str], dict[str, Any] | None]:
        answer = await self._ask("close", g)
        moves, options = answer.get("moves"), answer.get("options")
        if not (isinstance(moves, list) and all(isinstance(m, str) for m in moves)):
            raise PlayError("the referee cannot judge this game now: try again", 503)
        return moves, options if isinstance(options, dict) else None

    def _read(self, game_id: str, known: LiveGame | None = None):
        """(the store's threads) As :class:`ClusterHub`'s, with each seat's view in place
        of the truth."""
        fresh = self._read_public(game_id, known)
        if fresh is None:
            return None
        g, at = fresh
        return g, self.store.seat_views(game_id) if g.refereed else None, at

    def _adopt(self, g: LiveGame, views: Any) -> None:
        g.views = _views({str(s): v for s, v in (views or {}).items()})
        if len(g.views) != len(g.seats):
            log.error("refereed game without its seats' views in the store",
                      extra={"game_id": g.id})
            g.views = {}

    def close(self) -> None:
        if self.judges is not None:
            self.judges.close()
            self.judges = None
        super().close()
