"""Linked boards over a real Mosquitto on loopback: two services on simulated boards play
one game, each board making its own seat's moves and executing the other's."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.config import Config
from controller.journal import Journal
from controller.link.game import Disagree, LinkedGame, Show
from controller.link.messages import (
    LinkError,
    MoveMessage,
    Start,
    State,
    decode,
    encode,
    position_digest,
)
from controller.seats import record_of
from controller.service import BoardService
from controller.web.simulator import move_actions
from tests.support.linkplay import until as run_until
from tests.support.service import play, set_up

START = Start("alpha-1", "luotuoqi", {}, "setup", ("alpha", "beta"))


def test_messages_round_trip_and_bad_ones_get_one_line():
    m = MoveMessage("alpha-1", 3, 0, "Mb1-c3", "abc")
    assert decode(encode(m)) == m and decode(encode(START)) == START
    for payload, problem in [(b"\xff", "not JSON"), (b"[]", "not a JSON object"),
                             (b'{"v": 2, "type": "move"}', "format '2', this board reads format 1"),
                             (b'{"v": 1, "type": "move", "game_id": "g", "ply": 0}',
                              "'ply' must be 1 or more"),
                             (b'{"v": 1, "type": "bogus"}', "unknown type"),
                             (b'{"v": 1, "type": "move", "game_id": "a/b", "ply": 1, '
                              b'"seat": 0, "move": "x", "digest": "y"}', "game id 'a/b'")]:
        with pytest.raises(LinkError, match=problem) as info:
            decode(payload)
        assert "\n" not in str(info.value)


def test_duplicates_and_reordering_change_nothing_and_a_fork_stops():
    game = LinkedGame(START, "beta")
    first = MoveMessage("alpha-1", 1, 0, "Mb1-c3", "d1")
    third = MoveMessage("alpha-1", 3, 0, "Ec2-d3", "d3")
    assert game.receive(third) == []  # early: waits for ply 2
    assert game.receive(first) == [Show(1, "Mb1-c3", "d1")]
    assert game.receive(first) == []  # a duplicate while it is shown
    game.remote_made("Mb1-c3", "d1")
    assert game.receive(first) == []  # a duplicate of a ply held
    game.local_move(1, "Eb7-a6", "d2")
    assert game.next_early() == [Show(3, "Ec2-d3", "d3")]
    other = game.receive(MoveMessage("alpha-1", 1, 0, "Mg1-f3", "x"))
    assert isinstance(other[0], Disagree) and "ply 1" in other[0].reason
    assert game.receive(first) == []  # stopped: nothing more is acted on


def test_a_move_for_this_boards_own_seat_from_elsewhere_stops():
    game = LinkedGame(START, "beta")
    (action,) = game.receive(MoveMessage("alpha-1", 1, 1, "Eb7-a6", "d"))
    assert isinstance(action, Disagree)


# -- two services and a real broker ---------------------------------------------------


def linked(tmp_path, name: str, port: int, password: str = "") -> BoardService:
    """A board on the club's broker (``password``: it logs in as its own name)."""
    config = Config()
    config.journal.path = str(tmp_path / name / "journal")
    config.sensing.settle_ms = 50.0
    config.sensing.debounce_ms = 5.0
    config.link.broker = "127.0.0.1"
    config.link.port = port
    config.link.board = name
    config.link.club = "test"
    if password:
        config.link.username, config.link.password = name, password
    return BoardService(config)



def until(condition, *services, timeout: float = 10.0) -> None:
    run_until(condition, services, timeout)


def test_two_boards_play_one_game_through_the_broker(tmp_path, broker):
    alpha = linked(tmp_path, "alpha", broker.port)
    beta = linked(tmp_path, "beta", broker.port)
    try:
        until(lambda: alpha.remote.connected and beta.remote.connected, alpha, beta)
        alpha.new_game("luotuoqi", remote={1: "beta"})
        link_id = alpha.link_json()["game_id"]
        until(lambda: beta.link_json()["game_id"] == link_id, alpha, beta)
        assert beta.link_json()["seats"] == ["alpha", "beta"]
        set_up(alpha)
        set_up(beta)
        texts = ["Mb1-c3", "Eb7-a6", "Ec2-d3", "Mg8-f6"]
        for ply, text in enumerate(texts, start=1):
            here, there = (alpha, beta) if ply % 2 else (beta, alpha)
            play(here, text)
            assert len(here.plies) == ply
            until(lambda t=there: t.interaction.phase == "execute", alpha, beta)
            play(there, text)  # the person at the other board makes the shown move
            until(lambda t=there, p=ply: len(t.plies) == p, alpha, beta)
        assert [t for _, t in alpha.plies] == [t for _, t in beta.plies]
        assert alpha.game.position_text(alpha.position) == \
            beta.game.position_text(beta.position)
        # a third board of the club follows the game for its spectators
        from tests.support.webtools import page_client

        gamma = linked(tmp_path, "gamma", broker.port)
        try:
            until(lambda: any(g["plies"] == len(texts) for g in gamma.club_json()["games"]),
                  gamma)
            (game,) = [g for g in gamma.club_json()["games"] if g["game_id"] == link_id]
            assert game["seats"] == ["alpha", "beta"] and game["title"] == alpha.game.title
            assert game["moves"] == record_of(alpha.session, alpha.position)
            assert game["result"] is None
            client = page_client(gamma)
            assert client.get("/api/club").json()["games"][0]["game_id"] == link_id
            assert "The club's games" in client.get("/club").text
        finally:
            gamma.close()
        records = [Journal(tmp_path / n / "journal").unfinished() for n in ("alpha", "beta")]
        assert [r.link["game_id"] for r in records] == [link_id, link_id]
        assert records[0].moves == records[1].moves
    finally:
        alpha.close()
        beta.close()


def test_the_club_page_takes_retained_states_in_any_order_and_each_ply_from_its_seat():
    """Retained messages come in no set order: a state heard before its game's start still
    counts once the start names the seats, an older state of one seat does not hide the
    other's later ply, and a ply shows only once the board of its seat says it (a third
    board's state and one seat's say-so about the other's move are not enough)."""
    from controller.link.client import BrokerSettings
    from controller.link.messages import board_game_topic
    from controller.link.remote import Remote

    remote = Remote(BrokerSettings(port=1, club="test", board="gamma"))  # never connects
    try:
        def state(by: str, moves: list[str], result: str | None = None) -> None:
            remote._follow_club(board_game_topic("test", by, START.game_id, "state"), by,
                                State(START.game_id, tuple(moves), "d", result, None,
                                      tuple(i % 2 for i in range(len(moves)))))

        texts = ["Mb1-c3", "Eb7-a6", "Ec2-d3", "Mg8-f6"]
        state("beta", texts)
        state("gamma", texts + ["Mh1-g3"])  # not a seat: ignored
        assert remote.club_games() == []  # nobody has said who plays yet
        remote._follow_club(board_game_topic("test", "alpha", START.game_id, "start"),
                            "alpha", START)
        state("alpha", texts[:3])  # alpha's state after its last ply, heard last
        (game,) = remote.club_games()
        assert game["moves"] == texts and game["result"] is None
        state("beta", texts[:2] + ["Ed2-e3", "Mg8-f6"])  # beta's word on alpha's ply 3
        assert remote.club_games()[0]["moves"] == texts[:3]
        state("beta", texts, "1-0")
        assert remote.club_games()[0]["result"] is None  # alpha has not said it
        state("alpha", texts, "1-0")
        assert remote.club_games()[0]["result"] == "1-0"
    finally:
        remote.close()


def test_a_move_sent_while_the_broker_was_down_arrives_after_it_restarts(tmp_path, broker):
    alpha = linked(tmp_path, "alpha", broker.port)
    beta = linked(tmp_path, "beta", broker.port)
    try:
        until(lambda: alpha.remote.connected and beta.remote.connected, alpha, beta)
        alpha.new_game("luotuoqi", remote={1: "beta"})
        until(lambda: beta.link_json()["game_id"] is not None, alpha, beta)
        set_up(alpha)
        set_up(beta)
        broker.stop()
        until(lambda: not alpha.remote.connected, alpha, beta)
        play(alpha, "Mb1-c3")  # journalled here; paho keeps it until the broker is back
        broker.start()
        until(lambda: beta.interaction.phase == "execute", alpha, beta, timeout=40)
        play(beta, "Mb1-c3")
        until(lambda: len(beta.plies) == 1, alpha, beta)
    finally:
        alpha.close()
        beta.close()


def test_the_digest_is_the_position(tmp_path):
    assert position_digest("a") == position_digest("a") != position_digest("b")


def _heredoc(text: str, marker: str) -> str:
    """The lines of the documented shell here-document written to ``marker``."""
    start = text.index(marker)
    body = text[text.index("\n", start) + 1:]
    lines = []
    for line in body.splitlines():
        if line.strip() == "EOF":
            return "\n".join(lines) + "\n"
        lines.append(line.strip())
    raise AssertionError(f"no end of the {marker} block")


def test_the_documented_broker_set_up_with_passwords_and_acl_works(tmp_path):
    """docs/link.md's Mosquitto configuration as written: boards with their own
    credentials play a game started through the page's API; a wrong password is refused."""
    import subprocess
    import warnings
    from pathlib import Path

    from tests.support.broker import Broker

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from controller.web.app import create_app

    doc = (Path(__file__).resolve().parent.parent / "docs" / "link.md").read_text()
    conf = _heredoc(doc, "tee /etc/mosquitto/conf.d/fairyboard.conf")
    acl = _heredoc(doc, "tee /etc/mosquitto/fairyboard.acl").replace("/home/", "/test/")
    folder = tmp_path / "broker"
    folder.mkdir()
    (folder / "fairyboard.acl").write_text(acl)
    passwd = folder / "fairyboard.passwd"
    passwd.touch()
    for user, secret in (("alpha", "a long secret"), ("beta", "another secret")):
        subprocess.run(["mosquitto_passwd", "-b", str(passwd), user, secret], check=True)
    lines = [line.replace("/etc/mosquitto", str(folder)) for line in conf.splitlines()
             if not line.startswith(("listener", "allow_anonymous", "persistence"))]
    assert any(line.startswith("acl_file") for line in lines)
    broker = Broker(folder, extra="allow_anonymous false\n" + "\n".join(lines)).start()

    def board(name: str, secret: str) -> BoardService:
        # (its credentials from the start: set after the first connection's attempt, a
        # refused login waited out paho's back-off, longer than the test waits)
        return linked(tmp_path, name, broker.port, secret)

    alpha, beta = board("alpha", "a long secret"), board("beta", "another secret")
    intruder = board("mallory", "guess")
    try:
        until(lambda: alpha.remote.connected and beta.remote.connected, alpha, beta)
        client = TestClient(create_app(alpha))
        r = client.post("/api/new-game", json={"game": "luotuoqi", "remote": {"1": "beta"}})
        assert r.json()["ok"], r.json()
        until(lambda: beta.link_json()["game_id"] is not None, alpha, beta)
        set_up(alpha)
        set_up(beta)
        # Black's player at beta tries White's move: not his to make
        for action in move_actions(beta.game, beta.position,
                                   beta.game.parse_move(beta.position, "Mb1-c3"), beta.layout):
            beta.sim_action(action)
            beta.step(0.03)
        beta.step(0.2)
        assert beta.plies == [] and "White moves on the other board" in beta.interaction.message
        for action in ({"action": "lift", "spot": "c3"}, {"action": "place", "spot": "b1"}):
            beta.sim_action(action)
            beta.step(0.05)
        play(alpha, "Mb1-c3")
        until(lambda: beta.interaction.phase == "execute", alpha, beta)
        assert not intruder.remote.connected
        bad = client.post("/api/new-game", json={"game": "luotuoqi", "remote": {"x": 1}})
        assert bad.status_code == 400 and "'remote' must be" in bad.json()["error"]
    finally:
        for svc in (alpha, beta, intruder):
            svc.close()
        broker.stop()


def test_moves_go_out_at_once_not_after_a_delayed_ack(broker):
    """Nagle's algorithm held a move behind the PUBACK before it until the broker's
    delayed acknowledgement, about 40 ms per move: the board's socket has TCP_NODELAY."""
    import socket

    from controller.link.client import BrokerSettings, MqttLink

    link = MqttLink(BrokerSettings(port=broker.port, board="nagle", club="test"))
    try:
        deadline = time.monotonic() + 10
        while not link.connected:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        sock = link.client.socket()
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        link.close()


@given(st.data())
@settings(max_examples=150, deadline=None)
def test_any_delivery_order_with_duplicates_shows_each_ply_once_in_order(data):
    """QoS 1 delivers at least once, in any order after a reconnection: whatever the
    order and however many copies, the receiving board shows ply after ply, each once,
    and never stops for a disagreement."""
    plies = data.draw(st.integers(1, 12))
    # ply k is made by seat (k - 1) % 2; beta plays seat 1 and makes its own plies
    messages = [MoveMessage("alpha-1", k, (k - 1) % 2, f"m{k}", f"d{k}")
                for k in range(1, plies + 1)]
    remote = [m for m in messages if m.seat == 0]
    deliveries = data.draw(st.lists(st.sampled_from(remote), min_size=len(remote),
                                    max_size=4 * len(remote)))
    deliveries += remote  # every message arrives at least once
    game = LinkedGame(START, "beta")
    shown: list[int] = []
    queue = list(deliveries)

    def act(actions):
        for action in actions:
            assert not isinstance(action, Disagree), action
            shown.append(action.ply)
            game.remote_made(action.move, action.digest)  # the person makes it here
            nxt = action.ply + 1
            if nxt <= plies:  # beta's own reply
                own = messages[nxt - 1]
                game.local_move(own.seat, own.move, own.digest)
            act(game.next_early())

    for m in queue:
        act(game.receive(m))
    assert shown == [m.ply for m in remote]
    assert game.stopped is None


def test_a_hidden_information_game_is_not_linked_until_the_referee_exists(tmp_path, broker):
    """Both boards would hold the whole Lao Tzu position (and the club's state topic
    would carry it): refused with one line, on either side."""
    from controller.service import ServiceError

    alpha = linked(tmp_path, "alpha", broker.port)
    try:
        with pytest.raises(ServiceError, match="cannot be linked yet.*referee"):
            alpha.new_game("laotzu", {"white_array": 518, "black_array": 518},
                           remote={1: "beta"})
        before = alpha.session.game_id
        alpha._join(Start("x-1", "laotzu", {}, "setup", ("beta", "alpha")))
        assert alpha.session.game_id == before and alpha.link_json()["game_id"] is None
    finally:
        alpha.close()


def test_boards_reach_a_tls_broker_and_check_its_certificate(tmp_path):
    """`link.tls_ca`: the board connects with TLS and checks the broker's certificate; a
    board given another CA does not connect."""
    import shutil
    import subprocess

    from controller.link.client import BrokerSettings, MqttLink
    from tests.support.broker import Broker

    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path / "tls"
    folder.mkdir()

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], cwd=folder, check=True, capture_output=True)

    for ca in ("ca", "other-ca"):
        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
            f"/CN=fairyboard test {ca}", "-keyout", f"{ca}.key", "-out", f"{ca}.crt")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
        "-keyout", "broker.key", "-out", "broker.csr")
    (folder / "san.ext").write_text("subjectAltName = IP:127.0.0.1\n")
    run("x509", "-req", "-in", "broker.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "broker.crt")
    broker = Broker(folder, extra=f"certfile {folder}/broker.crt\nkeyfile {folder}/broker.key")
    broker.start()
    good = MqttLink(BrokerSettings(port=broker.port, board="tls", club="test",
                                   tls_ca=str(folder / "ca.crt")))
    bad = MqttLink(BrokerSettings(port=broker.port, board="tls2", club="test",
                                  tls_ca=str(folder / "other-ca.crt")))
    try:
        deadline = time.monotonic() + 10
        while not good.connected:
            assert time.monotonic() < deadline, (folder / "mosquitto.log").read_text()[-400:]
            time.sleep(0.02)
        time.sleep(0.5)
        assert not bad.connected
    finally:
        good.close()
        bad.close()
        broker.stop()


def test_plies_missed_before_subscribing_come_from_the_retained_state():
    """A move sent before the other board's subscription reached the broker is lost to
    it; the retained state carries every ply with its seat and digest, so the board
    shows the missed ply all the same (and a duplicate state changes nothing)."""
    host = LinkedGame(START, "alpha")
    host.local_move(0, "Mb1-c3", "d1")
    moves, seats, digests = host.history()
    state = State("alpha-1", moves, digests[-1], None, None, seats, digests)
    assert decode(encode(state)) == state
    joiner = LinkedGame(START, "beta")
    assert joiner.receive(state) == [Show(1, "Mb1-c3", "d1")]
    assert joiner.receive(state) == []  # shown already
    joiner.remote_made("Mb1-c3", "d1")
    assert joiner.receive(state) == [] and joiner.history() == (("Mb1-c3",), (0,), ("d1",))
    with pytest.raises(LinkError, match="'seats' and 'digests' must match"):
        decode(b'{"v": 1, "type": "state", "game_id": "g", "moves": ["a"], "digest": "x", '
               b'"seats": [0, 1], "digests": ["x"]}')
