"""Boards linked over MQTT join the games of a cluster (``fairyboard server --cluster …
--link-boards``; controller/server/linkbridge.py, controller/server/dynsec.py): two real
workers on real PostgreSQL, a real Mosquitto whose logins are its dynamic-security
plugin's.  Each board's token is made on a worker's *Your boards* page (its broker login
made then by that worker); its requests and attempts reach one worker each; the game is
played against a Board API player on the other worker — a whole chess game, a refereed
Lao Tzu game in which the board receives nothing but its views, a game whose worker is
killed mid-game; a revoked token stops at the broker; bad requests are one line each."""

from __future__ import annotations

import random
import re
import threading

import httpx
import paho.mqtt.client as mqtt
import pytest

from controller.link.messages import Start, seat_topic
from controller.rules import get_game
from tests.support.clubserver import wait_event
from tests.support.cluster import Cluster
from tests.support.fog import decisive_try
from tests.support.linkedboards import CLUB, LinkedBoard, assert_views_only, wait


@pytest.fixture(scope="module")
def linked(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("linked"), link_boards=True)
    yield c
    c.stop()


class Owner:
    """A board's owner in the browser on one worker: signed up, a token made on the
    *Your boards* page (the device id and token it shows), revoked there."""

    def __init__(self, cluster: Cluster, worker: int, name: str) -> None:
        self.browser = httpx.Client(base_url=cluster.workers[worker].url, timeout=20)
        self.browser.post("/signup", data={"name": name, "password": "correct horse 1",
                                           "csrf": self._csrf("/")})
        made = self.browser.post("/devices", data={"name": f"{name}'s board",
                                                   "csrf": self._csrf("/devices")}).text
        self.token = re.search(r"<p class=token>([^<]+)</p>", made).group(1)
        self.device = re.search(r"user name <code>([^<]+)</code>", made).group(1)

    def _csrf(self, path: str) -> str:
        return re.search(r"name=csrf value='([^']+)'", self.browser.get(path).text).group(1)

    def revoke(self, via: Cluster, worker: int) -> None:
        """Revoked on ``worker``'s page (the same session: the store's)."""
        self.browser.base_url = via.workers[worker].url
        self.browser.post(f"/devices/{self.device}/revoke",
                          data={"csrf": self._csrf("/devices")})


def taker(cluster: Cluster, request_id: str, message: str) -> int:
    """The worker that logged ``message`` for the board's request (exactly one did)."""
    def found() -> list[int]:
        return [i for i, w in enumerate(cluster.workers)
                for r in w.records(message) if r.get("link_game") == request_id]

    wait(lambda: found())
    assert len(found()) == 1, found()
    return found()[0]


def board_challenge(cluster: Cluster, board: LinkedBoard, start: Start, player_token: str
                    ) -> tuple[int, str]:
    """The board challenges the API player, who accepts on the worker that did not take
    the request: (the worker that took it, the hub's game id)."""
    wait(lambda: board.mqtt.connected)
    clients = [cluster.client(w, player_token) for w in (0, 1)]
    events = [c.stream_events() for c in clients]
    board.seat.request(start)
    took = taker(cluster, start.game_id, "linked board challenges")
    other = 1 - took
    c = wait_event(events[other], "challenge")["challenge"]
    clients[other].accept_challenge(c["id"])
    game_id = wait_event(events[other], "gameStart")["game"]["gameId"]
    for e in events:
        e.close()
    return took, game_id


def test_a_linked_board_plays_a_whole_chess_game_with_an_api_player_on_the_other_worker(
        linked):
    _, bob_token = linked.player("bob")
    alice = Owner(linked, 0, "alice")
    board = LinkedBoard(alice.device, alice.token, linked.broker.port)
    try:
        took, gid = board_challenge(linked, board, Start("b-1", "chess", {}, "",
                                                         ("@bob", alice.device)), bob_token)
        api = linked.client(1 - took, bob_token)
        wait(lambda: board.views, board.pump)
        assert board.views[-1].seats == ("@bob", alice.device)
        assert (board.views[-1].seat, board.views[-1].ply) == (1, 0)
        assert linked.store.game(gid).seats == ("bob", "alice")
        script = ["f2f3", "e7e5", "g2g4", "d8h4"]
        for ply, move in enumerate(script, 1):
            if ply % 2:
                api.move(gid, move)
            else:
                if ply == 2:  # an illegal try first: refused to this seat, nothing played
                    board.attempt(ply, "e7e4")
                    wait(lambda: board.views[-1].refused == "illegal move", board.pump)
                    assert linked.store.moves(gid) == script[:1]
                board.attempt(ply, move)
                board.attempt(ply, move)  # a copy (QoS 1): changes nothing
            wait(lambda n=ply: board.views[-1].ply == n, board.pump)
        wait(lambda: board.views[-1].result is not None, board.pump)
        last = board.views[-1]
        assert (last.result, last.reason) == ("0-1", "checkmate")
        game = get_game("chess")
        pos = game.start()
        for move in script:
            pos.push(game.parse_move(pos, move))
        assert last.position == game.position_text(pos)
        assert linked.store.moves(gid) == script
        assert linked.store.game(gid).status == "mate"
    finally:
        board.close()


def test_a_refereed_lao_tzu_game_sends_the_board_its_views_only(linked):
    _, dave_token = linked.player("dave")
    carol = Owner(linked, 1, "carol")
    board = LinkedBoard(carol.device, carol.token, linked.broker.port)
    try:
        took, gid = board_challenge(linked, board, Start("lt-1", "laotzu", {}, "",
                                                         (carol.device, "@dave")), dave_token)
        api = linked.client(1 - took, dave_token)
        wait(lambda: board.player is not None, lambda: board.pump(fog=True))
        player = board.player
        board.attempt(1, "a1a1")  # nonsense: refused to this seat alone, nothing played
        wait(lambda: board.views[-1].refused == "illegal move", lambda: board.pump(fog=True))
        options, _ = linked.store.truth(gid)
        game = get_game("laotzu", **options)

        def truth():
            pos = game.start()
            moves = linked.store.truth(gid)[1]
            for text in moves:
                pos.push(game.parse_move(pos, text))
            return pos, moves

        pos, moves = truth()
        assert moves == []
        player.follow()
        rng = random.Random(7)
        while game.outcome(pos) is None and len(moves) < 14:
            ply = len(moves)
            if game.ply_mover(pos) == 0:
                player.play(decisive_try(game, pos, player))
                wait(lambda: not player.sync.waiting, lambda: board.pump(fog=True))
            else:
                api.move(gid, game.long_move_text(pos, rng.choice(game.legal_moves(pos))))
            pos, moves = truth()
            plies = len(moves)
            if plies > ply:
                wait(lambda n=plies: player.sync.ply == n, lambda: board.pump(fog=True))
            player.follow()
        if game.outcome(pos) is None:
            api.resign(gid)
        wait(lambda: board.views[-1].result is not None, lambda: board.pump(fog=True))
    finally:
        board.close()
    assert linked.store.moves(gid) == moves  # revealed at the end
    assert_views_only(board, game, moves, options)


def test_bad_requests_are_one_line_each_and_a_copy_is_taken_once(linked):
    _, ivy_token = linked.player("ivy")
    hank = Owner(linked, 0, "hank")
    device = hank.device
    board = LinkedBoard(device, hank.token, linked.broker.port)
    refused = "linked board refused"

    def lines() -> list[dict]:
        return [r for w in linked.workers for r in w.records(refused)
                if r.get("board") == device]

    try:
        wait(lambda: board.mqtt.connected)
        bad = [Start("x-1", "chess", {}, "", ("@nobody", device)),  # no such account
               Start("x-2", "chess", {}, "", ("@ivy", "@hank")),  # not this board's game
               Start("x-3", "laotzu", {"seed": "mine"}, "", ("@ivy", device)),  # hidden
               Start("x-4", "nogame", {}, "", ("@ivy", device)),
               Start("x-5", "chess", {}, "", ("@", "@"))]
        for start in bad:
            board.seat.request(start)
        wait(lambda: len(lines()) == len(bad))
        assert sorted(r["link_game"] for r in lines()) == [s.game_id for s in bad]
        assert all("\n" not in r["problem"] and r["problem"] for r in lines())
        good = Start("c-1", "chess", {}, "", ("@ivy", device))
        for _ in range(3):  # copies (QoS 1), whichever workers they reach
            board.mqtt.publish(seat_topic(CLUB, device, "request"), good)

        def handled(message: str) -> int:
            return sum(r.get("link_game") == "c-1" for w in linked.workers
                       for r in w.records(message))

        wait(lambda: handled("linked board challenges")
             + handled("linked board's request taken before") == 3)
        assert handled("linked board challenges") == 1  # one challenge, taken once
        assert not board.views
    finally:
        board.close()
    for w in linked.workers:
        assert "Traceback" not in w.log.read_text(errors="replace")
    # each message reached one worker (a shared subscription): none was handled twice
    assert len(lines()) == len(bad)
    assert handled("linked board challenges") + handled(
        "linked board's request taken before") == 3


def _login(port: int, user: str, password: str) -> bool:
    """Whether the broker admits this login (its CONNACK, waited for)."""
    answer: list[bool] = []
    done = threading.Event()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=user)
    client.username_pw_set(user, password)

    def on_connect(c, userdata, flags, reason_code, properties) -> None:
        answer.append(not reason_code.is_failure)
        done.set()

    client.on_connect = on_connect
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        assert done.wait(10), "no CONNACK"
    finally:
        client.disconnect()
        client.loop_stop()
    return answer[0]


def test_a_revoked_token_is_refused_at_the_broker(linked):
    gina = Owner(linked, 1, "gina")
    board = LinkedBoard(gina.device, gina.token, linked.broker.port)
    try:
        wait(lambda: board.mqtt.connected)
        assert not _login(linked.broker.port, gina.device, gina.token + "x")  # wrong password
        connections = board.mqtt.connections
        gina.revoke(linked, 0)  # on the other worker than the one that made it
        wait(lambda: not board.mqtt.connected)  # dropped by the broker at once
        assert not _login(linked.broker.port, gina.device, gina.token)
        assert board.mqtt.connections == connections  # and not admitted again
    finally:
        board.close()
    assert linked.workers[0].records("board login removed at the broker")


def test_a_revocation_the_broker_missed_is_settled_when_a_worker_starts(linked):
    """A token revoked in the store while no worker told the broker (the broker away):
    the next worker to start deletes that board's login."""
    jill = Owner(linked, 0, "jill")
    assert _login(linked.broker.port, jill.device, jill.token)
    assert linked.store.revoke_device(jill.device, "jill")  # (the store alone: no listener)
    assert _login(linked.broker.port, jill.device, jill.token)  # the broker does not know
    worker = linked.workers[1]
    worker.stop()
    worker.start()
    assert not _login(linked.broker.port, jill.device, jill.token)
    assert any(r.get("device") == jill.device
               for r in worker.records("board login removed at the broker"))


def test_the_worker_that_took_the_request_killed_mid_game_the_board_plays_on(linked):
    """SIGKILL to the worker that took the board's request and linked its game: the board
    plays on through the other; the store holds each move once, in order."""
    _, frank_token = linked.player("frank")
    erin = Owner(linked, 0, "erin")
    board = LinkedBoard(erin.device, erin.token, linked.broker.port)
    killed = None
    try:
        took, gid = board_challenge(linked, board, Start("k-1", "chess", {}, "",
                                                         (erin.device, "@frank")), frank_token)
        api = linked.client(1 - took, frank_token)
        wait(lambda: board.views, board.pump)
        board.attempt(1, "e2e4")
        wait(lambda: board.views[-1].ply == 1, board.pump)
        api.move(gid, "e7e5")
        wait(lambda: board.views[-1].ply == 2, board.pump)
        killed = linked.workers[took]

        def goodbyes() -> int:  # (the broker's log: its share holds the other alone now)
            return sum(f"fairyboard-bridge-{killed.name} " in line
                       and ("closed its connection" in line or "disconnected" in line)
                       for line in linked.broker.log.read_text().splitlines())

        before = goodbyes()
        killed.kill()
        wait(lambda: goodbyes() > before)
        board.attempt(3, "g1f3")
        wait(lambda: board.views[-1].ply == 3, board.pump)
        api.move(gid, "b8c6")
        wait(lambda: board.views[-1].ply == 4, board.pump)
        board.attempt(5, "f1b5")
        board.attempt(5, "f1b5")  # a copy: changes nothing
        wait(lambda: board.views[-1].ply == 5, board.pump)
        assert linked.store.moves(gid) == ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]
        assert linked.store.game(gid).version >= 5
    finally:
        board.close()
        if killed is not None:
            killed.start()


def test_link_boards_without_cluster_is_refused_in_one_line(tmp_path):
    import subprocess
    import sys

    from tests.support.cluster import ROOT

    done = subprocess.run([sys.executable, "-m", "controller.cli", "server", "--data",
                           str(tmp_path), "--link-boards"], capture_output=True, text=True,
                          timeout=30, cwd=ROOT)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "--link-boards" in done.stderr
