"""Referee processes of their own (``fairyboard server --cluster … --referee``) judge the
hidden-information games of two workers started with ``--use-referees``, on one real
PostgreSQL and one real Mosquitto (docs/server.md, "Growing past one machine"): the
games are spread over both referees through the shared subscription, each game is
judged by one referee (its lease in the store), each seat is told only its own view, and
a referee killed mid-game — then a worker too — leaves its games to the others with no
ply lost, doubled or judged twice."""

from __future__ import annotations

import time

import pytest

from controller.link.referee import Referee
from controller.server.cluster import cluster_settings
from controller.server.refereeing import LEASE_S, RefereedClusterHub
from tests.support.clubserver import Seat, play
from tests.support.cluster import (
    Cluster,
    challenge,
    each_seat_saw_only_its_view,
    refusal_shown_on_both_workers,
)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("referees"), referees=2)
    yield c
    c.stop()


def _play(seats: list[Seat], timeout: float = 60) -> None:
    for s in seats:
        s.start()
    for s in seats:
        s.join(timeout)
        assert not s.is_alive() and s.problem is None, s.problem


def _judged(cluster, game_id: str) -> dict[str, list[int]]:
    return {r.name: r.judged(game_id) for r in cluster.referees}


def test_games_are_spread_over_the_referees_and_each_judged_by_one(cluster):
    players = [cluster.player(n) for n in ("ann", "ben", "cat", "dan")]
    games = [challenge(cluster, players[i], players[i + 1], "laotzu", worker=i % 2)
             for i in (0, 2)]
    games += [challenge(cluster, players[i + 1], players[i], "laotzu", worker=1 - i % 2)
              for i in (0, 2)]
    holders = {gid: cluster.store.referee_of(gid) for gid in games}
    assert set(holders.values()) == {"r0", "r1"}, holders  # the group spread them
    gid = games[0]
    white, black = players[0], players[1]
    seats = [Seat(cluster.client(0, white[1]), gid, 21, max_plies=30),
             Seat(cluster.client(1, black[1]), gid, 22, max_plies=30)]  # a seat on each
    _play(seats)
    moves = each_seat_saw_only_its_view(cluster.store, gid, seats)
    judged = _judged(cluster, gid)
    assert judged[holders[gid]] == list(range(1, len(moves) + 1))  # its referee, each once
    assert all(not plies for name, plies in judged.items() if name != holders[gid])
    assert cluster.store.referee_of(gid) is None  # ended: the lease given back


def test_a_refusal_by_a_referee_process_is_shown_on_the_seats_streams_on_both_workers(
        cluster):
    refusal_shown_on_both_workers(cluster, cluster.player("gil"), cluster.player("hoy"))


@pytest.mark.parametrize("variant", ["standard", "laotzu", "luotuoqi", "gnuqi",
                                     "kaleidochess", "lotus39"])
def test_a_game_of_each_of_the_six_across_the_workers(cluster, variant):
    """Chess and the five variants with a seat on each worker (and the referees of the
    hidden-information one): to the rules' end or a resignation, every ply stored once."""
    a, b = cluster.player(f"{variant}-a"), cluster.player(f"{variant}-b")
    gid = challenge(cluster, a, b, variant)
    seats = play(cluster, [cluster.client(0, a[1]), cluster.client(1, b[1])], gid, 7,
                 max_plies=60)
    record, moves = cluster.store.game(gid), cluster.store.moves(gid)
    assert record.status != "started" and seats[0].final["status"] == record.status
    assert all(moves) and 0 < len(moves) <= 61
    assert [len(s.final["moves"].split()) for s in seats] == [len(moves)] * 2
    if variant == "laotzu":
        each_seat_saw_only_its_view(cluster.store, gid, seats)
        assert sorted(p for r in cluster.referees for p in r.judged(gid)) == list(
            range(1, len(moves) + 1))


def test_a_referee_then_a_worker_killed_mid_game_leave_it_to_the_others(cluster):
    white, black = cluster.player("eve"), cluster.player("fay")
    gid = challenge(cluster, white, black, "laotzu")
    first = cluster.store.referee_of(gid)
    dying = next(r for r in cluster.referees if r.name == first)
    living = next(r for r in cluster.referees if r.name != first)
    seats = [Seat(cluster.client(0, white[1]), gid, 31, max_plies=40),
             Seat(cluster.client(0, black[1]), gid, 32, max_plies=40)]
    for s in seats:
        s.start()
    deadline = time.monotonic() + 20
    while len(cluster.store.moves(gid)) < 6:
        assert time.monotonic() < deadline, "the game did not get going"
        time.sleep(0.01)
    dying.kill()  # mid-game: a move may be in flight to it
    killed_at = len(cluster.store.moves(gid))
    deadline = time.monotonic() + LEASE_S + 15
    while len(cluster.store.moves(gid)) < killed_at + 4:
        assert time.monotonic() < deadline, "the game was not taken over"
        time.sleep(0.01)
    assert cluster.store.referee_of(gid) == living.name
    # then the worker both seats play on dies: they go on on the other worker
    cluster.workers[0].kill()
    for s in seats:
        s.join(1)
    assert cluster.store.game(gid).status == "started"
    on_1 = [Seat(cluster.client(1, white[1]), gid, 33, max_plies=40),
            Seat(cluster.client(1, black[1]), gid, 34, max_plies=40)]
    _play(on_1)
    record, moves = cluster.store.game(gid), cluster.store.moves(gid)
    assert record.status != "started"
    # contiguous and revealed: none lost, doubled or forked
    assert all(moves) and len(moves) == len(set(enumerate(moves)))
    before, after = dying.judged(gid), living.judged(gid)
    assert sorted(before + after) == list(range(1, len(moves) + 1))  # each judged once
    assert before == list(range(1, len(before) + 1)) and before[-1] >= 6
    assert after == list(range(len(before) + 1, len(moves) + 1))
    each_seat_saw_only_its_view(cluster.store, gid, on_1)
    cluster.workers[0].start()


def test_a_worker_with_referee_processes_has_no_way_to_a_truth(cluster):
    hub = RefereedClusterHub(cluster.store, Referee("server"),
                             cluster_settings("127.0.0.1:1", "t"))
    try:
        for name in ("truth", "set_truth"):
            with pytest.raises(AttributeError, match="never holds a game's truth"):
                getattr(hub.store, name)
        assert hub.store.kind == "postgresql"  # (the rest of the store as it is)
    finally:
        hub.close()
