"""Two ``fairyboard server --cluster`` workers on one real PostgreSQL and one real
Mosquitto serve the same games (docs/server.md, "Growing past one machine"): moves
alternate between the workers and every stream on either tells each ply once; a Lao Tzu
game is refereed across both from the store, each seat told only its view; two workers
judging the same ply at once store exactly one; one clock falls once; and a worker
killed (SIGKILL) mid-game, a move in flight on it, leaves the game to the other with no
move lost, doubled or forked."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from controller.online.api import OnlineError
from controller.rules import get_game
from tests.support.clubserver import Seat
from tests.support.cluster import Events, Follower, challenge, each_seat_saw_only_its_view

#: a short mate: seven plies, alternating workers
SCHOLARS_MATE = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]


def _play_told(movers, game_id: str, streams, plies) -> None:
    """Each ``(ply, move)`` sent by its side's client, and told by every stream."""
    for ply, move in plies:
        movers[(ply - 1) % 2].move(game_id, move)
        for s in streams:
            s.wait_ply(ply)


def _each_ply_told_once(streams) -> None:
    """Every stream ended, having told each ply of the scholar's mate once, in order."""
    for s in streams:
        s.join(10)
        assert s.problem is None and not s.is_alive()
        assert s.plies() == list(range(len(SCHOLARS_MATE) + 1))  # each ply once, in order
        assert s.lines[-1]["status"] == "mate" and s.lines[-1]["winner"] == "white"
        assert s.lines[-1]["moves"] == " ".join(SCHOLARS_MATE)


def test_a_chess_game_alternates_between_the_workers_and_every_stream_tells_each_ply(
        cluster):
    a, b = cluster.player("alice"), cluster.player("bob")
    events_b1 = Events(cluster.client(1, b[1]))  # (the other worker's event stream)
    time.sleep(0.5)  # (connected before the game starts)
    gid = challenge(cluster, a, b)
    events_b1.wait("gameStart", gid)  # told on the worker it was not started on
    movers = [cluster.client(0, a[1]), cluster.client(1, b[1])]  # white on w0, black on w1
    streams = [Follower(cluster.client(w, t), gid) for w in (0, 1) for t in (a[1], b[1])]
    for s in streams:
        s.wait_ply(0)
    _play_told(movers, gid, streams, enumerate(SCHOLARS_MATE, start=1))
    _each_ply_told_once(streams)
    for s in streams:
        assert s.lines[-1]["reason"] == streams[0].lines[-1]["reason"] != ""
    assert cluster.store.moves(gid) == SCHOLARS_MATE
    assert cluster.store.game(gid).status == "mate"
    events_b1.wait("gameFinish", gid)


def test_two_workers_judging_one_ply_at_once_store_exactly_one(cluster):
    a, b = cluster.player("carol"), cluster.player("dave")
    gid = challenge(cluster, a, b, worker=1)
    Follower(cluster.client(0, b[1]), gid).wait_ply(0)  # (worker 0 holds the game too)
    answers: dict[str, str] = {}

    def send(worker: int, move: str) -> None:
        try:
            cluster.client(worker, a[1]).move(gid, move)
            answers[move] = "ok"
        except OnlineError as exc:
            answers[move] = str(exc)

    for _ in range(3):  # (three rounds: the race goes either way)
        ply = len(cluster.store.moves(gid))
        pos = get_game("chess").start()
        for text in cluster.store.moves(gid):
            pos.push(get_game("chess").parse_move(pos, text))
        legal = [get_game("chess").long_move_text(pos, m)
                 for m in get_game("chess").legal_moves(pos)][:2]
        answers.clear()
        threads = [threading.Thread(target=send, args=(w, m)) for w, m in zip((0, 1), legal,
                                                                             strict=True)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        assert sorted(answers.values()).count("ok") == 1, answers  # one ply, never two
        stored = cluster.store.moves(gid)
        assert len(stored) == ply + 1 and answers[stored[-1]] == "ok"
        loser = next(v for v in answers.values() if v != "ok")
        assert "not your turn" in loser or "changed meanwhile" in loser
        a, b = b, a  # the other side moves next


def test_a_laotzu_game_is_refereed_across_both_workers_once_per_ply(cluster):
    a, b = cluster.player("erin"), cluster.player("frank")
    gid = challenge(cluster, a, b, "laotzu")
    seats = [Seat(cluster.client(0, a[1]), gid, 11, max_plies=40),
             Seat(cluster.client(1, b[1]), gid, 12, max_plies=40)]
    for s in seats:
        s.start()
    for s in seats:
        s.join(60)
        assert not s.is_alive() and s.problem is None, s.problem
    moves = each_seat_saw_only_its_view(cluster.store, gid, seats)
    judged = [r["ply"] for w in cluster.workers for r in w.records("refereed move")
              if r.get("game_id") == gid]
    assert sorted(judged) == list(range(1, len(moves) + 1))  # each ply judged once, by one


def test_one_clock_falls_once(cluster):
    a, b = cluster.player("gina"), cluster.player("hank")
    gid = challenge(cluster, a, b, seconds=3)
    api_a, api_b = cluster.client(0, a[1]), cluster.client(1, b[1])
    api_a.request("POST", f"/api/board/game/{gid}/move/e2e4", "move")
    api_b.move(gid, "e7e5")
    watchers = [Follower(cluster.client(w, a[1]), gid) for w in (0, 1)]
    # white's 3 s run out with both workers' clocks watching: one of them ends it
    for w in watchers:
        w.join(15)
        assert not w.is_alive() and w.lines[-1]["status"] == "outoftime"
    record = cluster.store.game(gid)
    assert record.status == "outoftime" and record.winners == (1,)
    assert record.version == 3  # two plies and one end: no second end was written


def _send_unanswered(worker, token: str, game_id: str, move: str) -> socket.socket:
    """A move's request sent and its answer never read (a board whose answer is lost)."""
    s = socket.create_connection(("127.0.0.1", worker.port), timeout=5)
    s.sendall(f"POST /api/board/game/{game_id}/move/{move} HTTP/1.1\r\nHost: x\r\n"
              f"Authorization: Bearer {token}\r\nContent-Length: 0\r\n\r\n".encode())
    return s


def test_a_worker_killed_mid_game_leaves_every_game_to_the_other(cluster):
    a, b = cluster.player("ivy"), cluster.player("jack")
    gid = challenge(cluster, a, b)
    on_0 = [cluster.client(0, a[1]), cluster.client(0, b[1])]
    for ply, move in enumerate(SCHOLARS_MATE[:3], start=1):
        on_0[(ply - 1) % 2].move(gid, move)
    watch_1 = Follower(cluster.client(1, a[1]), gid)  # a stream on the worker that lives
    watch_1.wait_ply(3)
    # black's move goes to worker 0, which stores it and dies before anyone reads the answer
    lost = _send_unanswered(cluster.workers[0], b[1], gid, SCHOLARS_MATE[3])
    deadline = time.monotonic() + 10
    while len(cluster.store.moves(gid)) < 4:
        assert time.monotonic() < deadline, "the move in flight was not stored"
        time.sleep(0.005)
    cluster.workers[0].kill()
    lost.close()
    watch_1.wait_ply(4)  # the surviving worker tells the ply the dead one stored
    on_1 = [cluster.client(1, a[1]), cluster.client(1, b[1])]
    with pytest.raises(OnlineError, match="not your turn"):
        on_1[1].move(gid, SCHOLARS_MATE[3])  # sent again: not doubled
    for ply, move in enumerate(SCHOLARS_MATE[4:], start=5):
        on_1[(ply - 1) % 2].move(gid, move)
    watch_1.join(10)
    assert watch_1.plies() == list(range(3, 8)) and watch_1.lines[-1]["status"] == "mate"
    assert cluster.store.moves(gid) == SCHOLARS_MATE  # contiguous: none lost or doubled
    assert cluster.store.game(gid).status == "mate"
    cluster.workers[0].start()  # started again, it serves the others' games
    again = Follower(cluster.client(0, a[1]), gid)
    again.join(10)
    assert again.lines[0]["state"]["moves"] == " ".join(SCHOLARS_MATE)


def test_the_broker_stopped_and_started_under_a_game_loses_no_ply_to_any_stream(cluster):
    """With no broker the workers cannot tell each other: the store still decides every
    move, and each worker's sweep of the store tells its streams; once the broker is back
    the game goes on. Every stream on either worker tells each ply once, in order."""
    a, b = cluster.player("kim"), cluster.player("leo")
    gid = challenge(cluster, a, b)
    movers = [cluster.client(0, a[1]), cluster.client(1, b[1])]  # white on w0, black on w1
    streams = [Follower(cluster.client(w, t), gid) for w in (0, 1) for t in (a[1], b[1])]
    for s in streams:
        s.wait_ply(0)
    plies = list(enumerate(SCHOLARS_MATE, start=1))
    _play_told(movers, gid, streams, plies[:2])
    cluster.broker.stop()
    _play_told(movers, gid, streams, plies[2:4])  # the other worker learns it by its sweep
    cluster.broker.start()
    _play_told(movers, gid, streams, plies[4:])
    _each_ply_told_once(streams)
    assert cluster.store.moves(gid) == SCHOLARS_MATE
