"""The forgery catalogue (docs/reliability.md, "Forged link messages"): every kind of link
message forged, replayed, mislabelled and sent from the wrong identity, in an open game
between two board services and in a refereed game, over the documented Mosquitto (its
ACL, client ids bound to users) — by a third board of the club (``gamma``) and by the
other player's own board.  After each forgery every board is compared with its picture
from before: a forgery is *accepted* when anything of a game changed.

Used by tests/test_link_forgery.py and benchmarks/link_forgery.py.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from controller.link.messages import (
    Attempt,
    MoveMessage,
    Presence,
    SeatView,
    Start,
    State,
    Takeback,
    TakebackAnswer,
    TakebackRequest,
    board_game_topic,
    encode,
    game_topic,
    invitation_topic,
    presence_topic,
    seat_topic,
)
from controller.link.referee import Referee
from controller.service import BoardService
from tests.support.linkplay import LinkedBoards, linked_service
from tests.support.refereed import CLUB, LinkedFogBoard, RefereeThread, documented_broker
from tests.support.refereed import until as fog_until

#: the other boards of the club, beside docs/link.md's alpha, beta and referee
MORE_USERS = {"gamma": "a third board", "delta": "a fourth board", "epsilon": "a fifth"}


class Raw:
    """A plain MQTT client logged in as ``user``: what a forger runs."""

    def __init__(self, port: int, user: str, password: str) -> None:
        self.connected = threading.Event()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=user)
        c.username_pw_set(user, password)
        c.on_connect = lambda cl, u, f, reason, p: (None if reason.is_failure
                                                    else self.connected.set())
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.client = c

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(2)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@dataclass(frozen=True)
class Forgery:
    """One forged message: its ``kind``, ``how`` it is forged (forged, replayed,
    mislabelled, wrong identity), ``who`` sends it (a ``client.publish``-like callable's
    name), the topic and payload, and what must stop it (``broker``: the ACL drops it;
    ``board``/``referee``: its checks refuse it (and count it); ``ignored``: a copy of
    what is held, another game's, or an answer to nothing asked; ``unheard``: a topic no
    board of the game follows; ``consent``: an invitation that waits for the player)."""

    kind: str
    how: str
    who: str
    topic: str
    payload: bytes
    stopped_by: str


@dataclass
class Tally:
    sent: int = 0
    accepted: int = 0
    forks: int = 0
    lost: int = 0
    by: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    hows: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def add(self, f: Forgery, changed: str | None) -> None:
        self.sent += 1
        self.by[f.stopped_by] += 1
        self.kinds[f.kind] += 1
        self.hows[f.how] += 1
        if changed:
            self.accepted += 1
            self.failures.append(f"{f.who} {f.how} {f.kind} on {f.topic}: {changed}")


def _snapshot(svc: BoardService) -> dict[str, Any]:
    remote = svc.remote
    assert remote is not None
    game = remote.game
    club = {g["game_id"]: g.get("result") for g in remote.club_games()}
    return {"session": svc.session.game_id, "plies": list(svc.plies),
            "ended": svc.session.ended, "problem": svc.link_problem,
            "phase": svc.interaction.phase, "link": game.game_id if game else None,
            "held": list(game.plies) if game else None,
            "showing": game.showing if game else None,
            "takeback": (game.asked, game.offered, game.epoch) if game else None,
            "journal": len(svc.journal.games()), "club": club}


def _diff(before: dict[str, Any], after: dict[str, Any]) -> str | None:
    """What changed; on the club's page only the games listed before count (a game a
    player rightly asked the referee for appears there, waiting for the other's yes)."""
    after = dict(after, club={k: after["club"].get(k) for k in before["club"]})
    changed = [k for k in before if before[k] != after[k]]
    return ", ".join(f"{k}: {before[k]!r} -> {after[k]!r}" for k in changed) or None


def open_catalogue(link_id: str, held: list[bytes], rng: random.Random) -> list[Forgery]:
    """The forgeries of an open game ``link_id`` between alpha (seat 0) and beta (seat 1)
    after two plies, the third alpha's: ``held`` are the genuine payloads of its moves
    and of beta's state (to replay)."""
    c = CLUB
    t = lambda board, kind: board_game_topic(c, board, link_id, kind)  # noqa: E731
    seats = ("alpha", "beta")
    ply = 3
    fake = f"Ma{rng.randint(1, 8)}-b{rng.randint(1, 8)}"
    move = lambda seat, p=ply, g=link_id: encode(  # noqa: E731
        MoveMessage(g, p, seat, fake, "forged"))
    invented = encode(State(link_id, ("Mb1-c3", "Eb7-a6", fake, "Eg7-h6"), "x", None, None,
                            (0, 1, 0, 1), ("a", "b", "c", "d")))
    n = rng.randrange(10**9)  # every round's invitations and requests are new games
    other = Start(f"gamma-{n}-1", "luotuoqi", {}, "", ("gamma", "alpha"))
    strangers = Start(f"gamma-{n}-2", "luotuoqi", {}, "", ("alpha", "beta"))
    out = [
        # moves
        Forgery("move", "wrong identity", "gamma", t("alpha", "moves"), move(0), "broker"),
        Forgery("move", "wrong identity", "gamma", t("gamma", "moves"), move(0), "unheard"),
        Forgery("move", "wrong identity", "gamma", t("gamma", "moves"), move(1), "unheard"),
        Forgery("move", "wrong identity", "beta", t("alpha", "moves"), move(0), "broker"),
        Forgery("move", "mislabelled", "beta", t("beta", "moves"), move(0), "board"),
        Forgery("move", "mislabelled", "beta", t("beta", "moves"), move(1), "board"),
        Forgery("move", "replayed", "beta", t("beta", "moves"), held[0], "board"),
        Forgery("move", "replayed", "beta", t("beta", "moves"), held[1], "ignored"),
        Forgery("move", "replayed", "beta", t("beta", "moves"),
                move(1, 2, "alpha-old"), "ignored"),
        # takebacks
        Forgery("takeback-request", "mislabelled", "beta", t("beta", "moves"),
                encode(TakebackRequest(link_id, 1, 0, 0)), "board"),
        Forgery("takeback-request", "wrong identity", "gamma", t("gamma", "moves"),
                encode(TakebackRequest(link_id, 1, 1, 0)), "unheard"),
        Forgery("takeback-request", "wrong identity", "gamma", t("alpha", "moves"),
                encode(TakebackRequest(link_id, 0, 0, 0)), "broker"),
        Forgery("takeback-answer", "wrong identity", "gamma", t("gamma", "moves"),
                encode(TakebackAnswer(link_id, 1, True, 1)), "unheard"),
        Forgery("takeback-answer", "forged", "beta", t("beta", "moves"),
                encode(TakebackAnswer(link_id, 1, True, 1)), "ignored"),
        Forgery("takeback", "mislabelled", "beta", t("beta", "moves"),
                encode(Takeback(link_id, 0, 0, "")), "board"),
        Forgery("takeback", "wrong identity", "gamma", t("gamma", "moves"),
                encode(Takeback(link_id, 0, 1, "")), "unheard"),
        Forgery("takeback", "wrong identity", "gamma", t("beta", "moves"),
                encode(Takeback(link_id, 0, 1, "")), "broker"),
        # states (the resync's history, the club's results)
        Forgery("state", "wrong identity", "gamma", t("gamma", "state"), invented, "board"),
        Forgery("state", "wrong identity", "gamma", t("alpha", "state"), invented, "broker"),
        Forgery("state", "forged", "gamma", t("gamma", "state"),
                encode(State(link_id, ("Mb1-c3", "Eb7-a6"), "", "0-1", "resignation",
                             (0, 1), ("a", "b"))), "board"),
        Forgery("state", "wrong identity", "gamma", game_topic(c, link_id, "state"),
                encode(State(link_id, (), "", "0-1", "resignation")), "broker"),
        Forgery("state", "replayed", "beta", t("beta", "state"), held[2], "ignored"),
        # starts and invitations
        Forgery("start", "wrong identity", "gamma", game_topic(c, link_id, "start"),
                encode(Start(link_id, "luotuoqi", {}, "", ("gamma", "beta"))), "broker"),
        Forgery("start", "wrong identity", "gamma", board_game_topic(c, "gamma", link_id,
                                                                     "start"),
                encode(Start(link_id, "luotuoqi", {}, "", ("alpha", "beta"))), "ignored"),
        Forgery("invitation", "wrong identity", "gamma",
                invitation_topic(c, "gamma", "alpha"), encode(strangers), "board"),
        Forgery("invitation", "wrong identity", "gamma",
                invitation_topic(c, "beta", "alpha"), encode(other), "broker"),
        Forgery("invitation", "forged", "gamma", invitation_topic(c, "gamma", "alpha"),
                encode(other), "consent"),
        Forgery("invitation", "forged", "beta", invitation_topic(c, "beta", "alpha"),
                encode(Start(f"beta-{n}-9", "luotuoqi", {}, "", seats)), "consent"),
        # presence, the referee's topics
        Forgery("presence", "wrong identity", "gamma", presence_topic(c, "alpha"),
                encode(Presence("alpha", False)), "broker"),
        Forgery("view", "wrong identity", "beta", seat_topic(c, "alpha", "view"),
                encode(SeatView("beta-8", "luotuoqi", {}, seats, 0, 0, "x")), "broker"),
        Forgery("request", "wrong identity", "gamma", seat_topic(c, "alpha", "request"),
                encode(Start(f"gamma-{n}-3", "laotzu", {}, "", seats)), "broker"),
        Forgery("request", "forged", "gamma", seat_topic(c, "gamma", "request"),
                encode(Start(f"gamma-{n}-4", "laotzu", {}, "", seats)), "referee"),
        Forgery("request", "forged", "beta", seat_topic(c, "beta", "request"),
                encode(Start(f"beta-{n}-5", "laotzu", {}, "", seats)), "consent"),
    ]
    rng.shuffle(out)
    return out


def run_open(folder: Path, rounds: int = 1, seed: int = 1,
             settle_s: float = 0.15) -> Tally:
    """The open game's catalogue, ``rounds`` times (each round shuffled, the forged
    texts drawn anew), then the game played on: a ply that does not arrive is lost, a
    board stopped or holding other plies is a fork."""
    rng = random.Random(seed)
    broker, users = documented_broker(folder / "broker", MORE_USERS)
    tally = Tally()
    ref = RefereeThread(broker.port, users, Referee(CLUB, seed="forgery"))
    boards = LinkedBoards({n: linked_service(folder, n, broker.port, password=users[n],
                                             referee=True) for n in ("alpha", "beta")})
    gamma = Raw(broker.port, "gamma", users["gamma"])
    alpha, beta = boards.services["alpha"], boards.services["beta"]
    genuine: list[bytes] = []
    tap = beta.remote.mqtt.client  # beta's own session: what its board sent
    publish = tap.publish

    def recording(topic, payload=None, qos=0, retain=False, properties=None):
        if "/moves" in topic or "/state" in topic:
            genuine.append(payload)
        return publish(topic, payload, qos=qos, retain=retain, properties=properties)

    tap.publish = recording
    try:
        boards.connected()
        assert gamma.connected.wait(5)
        link_id = boards.start("alpha", "luotuoqi", remote={1: "beta"})
        alpha_link = alpha.remote.mqtt.client
        sent_by_alpha: list[bytes] = []
        a_publish = alpha_link.publish

        def alpha_recording(topic, payload=None, qos=0, retain=False, properties=None):
            if topic.endswith("/moves"):
                sent_by_alpha.append(payload)
            return a_publish(topic, payload, qos=qos, retain=retain, properties=properties)

        alpha_link.publish = alpha_recording
        boards.ply("Mb1-c3")
        boards.ply("Eb7-a6")
        moves = [m for m in genuine if b'"type":"move"' in m]
        states = [m for m in genuine if b'"type":"state"' in m]
        held = [sent_by_alpha[0], moves[0], states[-1]]
        senders: dict[str, Callable[[str, bytes], Any]] = {
            "gamma": gamma.publish,
            "beta": lambda topic, payload: publish(topic, payload, qos=1).wait_for_publish(2),
        }
        services = [alpha, beta]
        for _ in range(rounds):
            for f in open_catalogue(link_id, held, rng):
                before = [_snapshot(s) for s in services]
                refused = [s.remote.refused + s.remote.game.refused for s in services]
                senders[f.who](f.topic, f.payload)
                deadline = time.monotonic() + (1.0 if f.stopped_by in ("board", "consent")
                                               else settle_s)
                while time.monotonic() < deadline:
                    for s in services:
                        s.step(0.01)
                    if f.stopped_by == "board" and [
                            s.remote.refused + s.remote.game.refused
                            for s in services] != refused:
                        break
                    if f.stopped_by == "consent" and alpha.remote.invited is not None:
                        break
                changed = "; ".join(f"{s.remote.board}: {d}" for s, d in (
                    (s, _diff(b, _snapshot(s))) for s, b in zip(services, before,
                                                                strict=True)) if d)
                if f.stopped_by == "board" and not changed and [
                        s.remote.refused + s.remote.game.refused for s in services] == refused:
                    changed = "not refused by a board's check (nothing counted)"
                if f.stopped_by == "consent":
                    if alpha.remote.invited is None:
                        changed = changed or "the invitation did not wait for consent"
                    for s in services:
                        if s.remote.invited is not None:
                            s.link_accept(False)  # the player says no
                tally.add(f, changed or None)
        # the game goes on: two more plies, both boards and journals alike
        for text in ("Ec2-d3", "Mg8-f6"):
            boards.ply(text)
        counts = boards.disagreements(link_id)
        tally.forks += counts["forked"]
        tally.lost += counts["lost"] + counts["duplicated"]
        play_check = [t for _, t in alpha.plies] == ["Mb1-c3", "Eb7-a6", "Ec2-d3", "Mg8-f6"]
        tally.lost += 0 if play_check else 1
    finally:
        gamma.close()
        boards.close()
        ref.stop()
        broker.stop()
    return tally


def refereed_catalogue(game_id: str, old_attempt: bytes, rng: random.Random
                       ) -> list[Forgery]:
    """The forgeries of a refereed game ``game_id`` between delta (seat 0) and epsilon
    (seat 1), delta to move: ``old_attempt`` is delta's first, genuine attempt."""
    c = CLUB
    seats = ("delta", "epsilon")
    view = encode(SeatView(game_id, "laotzu", {}, seats, 0, 9, "x", result="0-1",
                           reason="checkmate"))
    attempt = lambda seat, ply: encode(Attempt(game_id, ply, seat,  # noqa: E731
                                               rng.choice(["e2e4", "d2d4", "g1f3"])))
    out = [
        Forgery("attempt", "mislabelled", "epsilon", seat_topic(c, "epsilon", "attempt"),
                attempt(0, 3), "referee"),
        Forgery("attempt", "mislabelled", "epsilon", seat_topic(c, "epsilon", "attempt"),
                attempt(1, 3), "referee"),
        Forgery("attempt", "wrong identity", "epsilon", seat_topic(c, "delta", "attempt"),
                attempt(0, 3), "broker"),
        Forgery("attempt", "wrong identity", "gamma", seat_topic(c, "gamma", "attempt"),
                attempt(0, 3), "referee"),
        Forgery("attempt", "replayed", "delta", seat_topic(c, "delta", "attempt"),
                old_attempt, "ignored"),
        Forgery("attempt", "forged", "epsilon", seat_topic(c, "epsilon", "attempt"),
                attempt(1, 7), "referee"),
        Forgery("view", "wrong identity", "epsilon", seat_topic(c, "delta", "view"), view,
                "broker"),
        Forgery("view", "wrong identity", "gamma", seat_topic(c, "epsilon", "view"), view,
                "broker"),
        Forgery("view", "mislabelled", "epsilon", seat_topic(c, "epsilon", "view"), view,
                "broker"),
        Forgery("state", "wrong identity", "gamma", game_topic(c, game_id, "state"),
                encode(State(game_id, ("e2e4",), "", "1-0", "checkmate")), "broker"),
        Forgery("start", "wrong identity", "epsilon", game_topic(c, game_id, "start"),
                encode(Start(game_id, "laotzu", {"seed": "known"}, "", seats)), "broker"),
        Forgery("request", "replayed", "gamma", seat_topic(c, "gamma", "request"),
                encode(Start(game_id, "laotzu", {}, "", seats)), "referee"),
        Forgery("request", "forged", "gamma", seat_topic(c, "gamma", "request"),
                encode(Start("gamma-7", "laotzu", {}, "", seats)), "referee"),
        Forgery("request", "wrong identity", "gamma", seat_topic(c, "delta", "request"),
                encode(Start("gamma-8", "laotzu", {}, "", seats)), "broker"),
    ]
    rng.shuffle(out)
    return out


def run_refereed(folder: Path, rounds: int = 1, seed: int = 1,
                 settle_s: float = 0.15) -> Tally:
    """The refereed game's catalogue: the referee's game and both seats' boards compared
    before and after each forgery; then the game played on a ply."""
    rng = random.Random(seed)
    broker, users = documented_broker(folder / "broker", MORE_USERS)
    tally = Tally()
    ref = RefereeThread(broker.port, users, Referee(CLUB, seed="forgery"))
    players = [LinkedFogBoard(b, broker.port, users[b], seed=3) for b in ("delta", "epsilon")]
    gamma = Raw(broker.port, "gamma", users["gamma"])
    sent: list[bytes] = []
    try:
        fog_until(lambda: all(p.mqtt.connected for p in players), *players)
        assert gamma.connected.wait(5)
        players[0].seat.request(Start("delta-1", "laotzu", {}, "", ("delta", "epsilon")))
        fog_until(lambda: all(p.player is not None for p in players), *players)
        g = ref.referee.games["delta-1"]
        inner = players[0].mqtt.client.publish

        def recording(topic, payload=None, qos=0, retain=False, properties=None):
            if topic.endswith("/attempt"):
                sent.append(payload)
            return inner(topic, payload, qos=qos, retain=retain, properties=properties)

        players[0].mqtt.client.publish = recording

        def one_ply() -> None:
            mover = g.game.ply_mover(g.pos)
            p = players[mover].player
            legal = set(g.game.legal_moves(g.pos))
            move = next(m for m in p.tries() if m in legal)
            n = len(g.moves)
            p.play(move)
            fog_until(lambda: len(g.moves) > n and all(
                q.player.sync.ply == len(g.moves) for q in players), *players)

        one_ply()  # delta's
        one_ply()  # epsilon's: delta to move
        senders = {"gamma": gamma.publish,
                   "delta": lambda t, pl: inner(t, pl, qos=1).wait_for_publish(2),
                   "epsilon": lambda t, pl: players[1].mqtt.client.publish(
                       t, pl, qos=1).wait_for_publish(2)}

        def snapshot() -> tuple:
            return (tuple(g.moves), dict(g.refused), sorted(ref.referee.games),
                    tuple((p.player.sync.ply, p.seat.view) for p in players))

        for _ in range(rounds):
            for f in refereed_catalogue(g.game_id, sent[0], rng):
                before = snapshot()
                senders[f.who](f.topic, f.payload)
                deadline = time.monotonic() + settle_s
                while time.monotonic() < deadline:
                    for p in players:
                        p.pump()
                    time.sleep(0.005)
                after = snapshot()
                tally.add(f, None if after == before else f"{before} -> {after}")
        n = len(g.moves)
        one_ply()
        tally.lost += int(len(g.moves) != n + 1)
        tally.forks += sum(p.player.sync.ply != len(g.moves) for p in players)
    finally:
        gamma.close()
        for p in players:
            p.close()
        ref.stop()
        broker.stop()
    return tally
