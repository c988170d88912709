"""Who may say what on the club's broker (docs/link.md, "Who may say what"): the
documented Mosquitto configuration binds each login's client id to its user and gives a
board write access under its own name only; the boards' link speaks TLS to a broker with
a certificate.  All against a real Mosquitto on loopback."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from controller.link.client import BrokerSettings, MqttLink
from controller.link.messages import (
    LinkError,
    MoveMessage,
    Presence,
    SeatView,
    Start,
    State,
    board_game_topic,
    encode,
    game_topic,
    invitation_topic,
    seat_topic,
)
from tests.support.broker import Broker
from tests.support.refereed import CLUB, documented_broker


def wait_for(condition, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


class Raw:
    """A plain MQTT client (any client id, any credentials): what a forger runs."""

    def __init__(self, port: int, user: str, password: str, client_id: str,
                 subscribe: str | None = None) -> None:
        self.received: list[tuple[str, bytes]] = []
        self.connected = threading.Event()
        self.subscribed = threading.Event()
        self.lock = threading.Lock()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
        c.username_pw_set(user, password)

        def on_connect(client, userdata, flags, reason, properties) -> None:
            if not reason.is_failure:
                self.connected.set()
                if subscribe:
                    client.subscribe(subscribe, qos=1)

        c.on_connect = on_connect
        c.on_subscribe = lambda *a: self.subscribed.set()
        c.on_message = self._message
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.client = c

    def _message(self, client, userdata, msg) -> None:
        with self.lock:
            self.received.append((msg.topic, bytes(msg.payload)))

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(2)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def club(tmp_path):
    broker, users = documented_broker(tmp_path / "broker")
    yield broker, users
    broker.stop()


def link(port: int, users: dict[str, str], name: str) -> MqttLink:
    return MqttLink(BrokerSettings(port=port, club=CLUB, board=name, username=name,
                                   password=users[name]))


def test_a_login_cannot_take_another_boards_or_the_referees_client_id(club):
    """With beta's password a client asking for alpha's (or the referee's, or the old
    ``fairyboard-CLUB-BOARD``) client id gets beta's: alpha stays connected, its session
    and its queued messages stay its own."""
    broker, users = club
    alpha, referee = link(broker.port, users, "alpha"), link(broker.port, users, "referee")
    forgers: list[Raw] = []
    try:
        assert wait_for(lambda: alpha.connected and referee.connected)
        for stolen in ("alpha", "referee", f"fairyboard-{CLUB}-alpha"):
            forgers.append(Raw(broker.port, "beta", users["beta"], stolen))
            assert forgers[-1].connected.wait(5)
        time.sleep(0.5)  # a takeover would have dropped them by now
        assert alpha.connected and referee.connected
        assert alpha.connections == 1 and referee.connections == 1
    finally:
        for f in forgers:
            f.close()
        alpha.close()
        referee.close()


def test_a_board_logs_in_as_its_own_name():
    with pytest.raises(LinkError, match="link.username 'beta'"):
        MqttLink(BrokerSettings(board="alpha", username="beta", password="x"))


def test_a_board_writes_only_under_its_own_name(club):
    """beta, with its own credentials, writes on alpha's topics, alpha's seat view and
    the referee's public topics: the broker drops every one (the referee, who reads the
    whole club, never sees them); what beta writes on its own topics goes through."""
    broker, users = club
    reader = Raw(broker.port, "referee", users["referee"], "referee", f"fairyboard/v1/{CLUB}/#")
    beta = Raw(broker.port, "beta", users["beta"], "beta")
    try:
        assert reader.subscribed.wait(5) and beta.connected.wait(5)
        forged = {
            board_game_topic(CLUB, "alpha", "g", "moves"):
                encode(MoveMessage("g", 1, 0, "Mb1-c3", "d")),
            board_game_topic(CLUB, "alpha", "g", "state"): encode(State("g", (), "")),
            invitation_topic(CLUB, "alpha", "gamma"): b"{}",
            f"fairyboard/v1/{CLUB}/boards/alpha/presence": encode(Presence("alpha", False)),
            seat_topic(CLUB, "alpha", "view"):
                encode(SeatView("g", "laotzu", {}, ("alpha", "beta"), 0, 0, "x")),
            seat_topic(CLUB, "alpha", "attempt"): b"{}",
            seat_topic(CLUB, "alpha", "request"): b"{}",
            game_topic(CLUB, "g", "state"): encode(State("g", (), "", "1-0", "forged")),
            game_topic(CLUB, "g", "start"): b"{}",
        }
        for topic, payload in forged.items():
            beta.publish(topic, payload)
        own = board_game_topic(CLUB, "beta", "g", "moves")
        beta.publish(own, encode(MoveMessage("g", 1, 1, "Eb7-a6", "d")))
        assert wait_for(lambda: any(t == own for t, _ in reader.received))
        assert [t for t, _ in reader.received if t in forged] == []
    finally:
        reader.close()
        beta.close()


def _certificates(folder: Path, name: str) -> tuple[Path, Path, Path]:
    """A throwaway CA and a server certificate it signs for 127.0.0.1 (openssl)."""
    ca_key, ca, key = folder / f"{name}-ca.key", folder / f"{name}-ca.crt", folder / "server.key"
    csr, cert, ext = folder / "server.csr", folder / "server.crt", folder / "san.ext"
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run = lambda *args: subprocess.run(["openssl", *args], check=True,  # noqa: E731
                                       capture_output=True)
    run("req", "-x509", *ec, "-keyout", str(ca_key), "-out", str(ca), "-days", "1",
        "-subj", f"/CN={name} test CA")
    if not cert.exists():
        ext.write_text("subjectAltName=IP:127.0.0.1\n")
        run("req", *ec, "-keyout", str(key), "-out", str(csr), "-subj", "/CN=127.0.0.1")
        run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key),
            "-CAcreateserial", "-out", str(cert), "-days", "1", "-extfile", str(ext))
    return ca, cert, key


def test_the_link_speaks_tls_and_checks_the_brokers_certificate(tmp_path):
    """A TLS listener with a certificate of a throwaway CA: two boards that trust the CA
    exchange a move; a board trusting another CA never connects."""
    import shutil

    if shutil.which("openssl") is None:
        pytest.fail("openssl is not installed (scripts/test installs it as root)")
    ca, cert, key = _certificates(tmp_path, "club")
    other_ca, _, _ = _certificates(tmp_path, "other")
    broker = Broker(tmp_path, extra=f"certfile {cert}\nkeyfile {key}\n"
                    "tls_version tlsv1.2").start()
    boards: list[MqttLink] = []
    try:
        for name, trusted in (("alpha", ca), ("beta", ca), ("mallory", other_ca)):
            boards.append(MqttLink(BrokerSettings(port=broker.port, club=CLUB, board=name,
                                                  tls_ca=str(trusted))))
        alpha, beta, mallory = boards
        topic = board_game_topic(CLUB, "alpha", "g", "moves")
        beta.subscribe(topic)
        assert wait_for(lambda: alpha.connected and beta.connected)
        time.sleep(0.2)
        alpha.publish(topic, MoveMessage("g", 1, 0, "Mb1-c3", "d"))
        got: list = []
        assert wait_for(lambda: bool(got.extend(beta.receive()) or got))
        assert got[0][1] == MoveMessage("g", 1, 0, "Mb1-c3", "d")
        assert not mallory.connected and mallory.connections == 0
    finally:
        for b in boards:
            b.close()
        broker.stop()


def test_an_invitation_waits_for_the_players_yes_while_a_game_is_in_progress(tmp_path, broker):
    """gamma invites alpha while alpha's game with beta is under way: nothing of alpha's
    game changes until its player accepts on the page; then alpha joins gamma's game
    (and beta's game is left as unfinished, as with *New game*)."""
    from tests.support.linkplay import LinkedBoards, linked_service
    from tests.support.webtools import page_client

    boards = LinkedBoards({n: linked_service(tmp_path, n, broker.port)
                           for n in ("alpha", "beta", "gamma")})
    alpha, gamma = boards.services["alpha"], boards.services["gamma"]
    try:
        boards.connected()
        pair = LinkedBoards({n: boards.services[n] for n in ("alpha", "beta")})
        link_id = pair.start("alpha", "luotuoqi", remote={1: "beta"})
        pair.ply("Mb1-c3")
        # a board's own messages coming back (it follows the club's states) are no forgery
        assert [s.remote.refused for s in boards.all] == [0, 0, 0]
        page = page_client(alpha)
        assert page.post("/api/link", json={"action": "accept-invitation"}).status_code == 400
        gamma.new_game("luotuoqi", remote={0: "alpha"})
        invited = gamma.link_json()["game_id"]
        boards.wait(lambda: alpha.link_json()["invitation"] is not None)
        for _ in range(20):
            alpha.step(0.02)
        assert alpha.link_json()["game_id"] == link_id and len(alpha.plies) == 1
        assert alpha.link_json()["invitation"]["game_id"] == invited
        assert page.post("/api/link", json={"action": "accept-invitation"}).json()["ok"]
        assert alpha.link_json()["game_id"] == invited and alpha.plies == []
        assert alpha.link_json()["invitation"] is None
    finally:
        boards.close()


def test_a_forged_move_is_refused_by_the_pure_game_with_nothing_changed():
    """The receiver's own checks (for a broker without the ACL, or a board's bug): a move
    from a board that does not play its seat, a move labelled with the other seat, a move
    of the right seat out of turn, and a bystander's state offered to *Resync*."""
    from controller.link.game import LinkedGame, Turns

    start = Start("alpha-1", "luotuoqi", {}, "", ("alpha", "beta"))
    game = LinkedGame(start, "beta", turns=Turns(start))
    before = (list(game.plies), game.showing, game.stopped)
    assert game.receive(MoveMessage("alpha-1", 1, 0, "Mb1-c3", "d"), "gamma") == []
    assert game.receive(MoveMessage("alpha-1", 1, 1, "Mb1-c3", "d"), "alpha") == []
    assert game.receive(State("alpha-1", ("Mb1-c3",), "d", None, None, (0,), ("d",)),
                        "gamma") == []
    assert (list(game.plies), game.showing, game.stopped) == before and game.refused == 3
    (show,) = game.receive(MoveMessage("alpha-1", 1, 0, "Mb1-c3", "d"), "alpha")
    game.remote_made(show.move, show.digest)
    # it is beta's turn now: alpha may not move again
    assert game.receive(MoveMessage("alpha-1", 2, 0, "Mc3-d5", "e"), "alpha") == []
    assert game.refused == 4 and game.showing is None and len(game.plies) == 1


def test_the_deploy_folders_mosquitto_files_are_the_documented_ones():
    """deploy/mosquitto/ holds docs/link.md's configuration and ACL, word for word."""
    from tests.support.refereed import DOC, heredoc

    doc = DOC.read_text()
    folder = DOC.parent.parent / "deploy" / "mosquitto"
    for name, marker in (("fairyboard.conf", "tee /etc/mosquitto/conf.d/fairyboard.conf"),
                         ("fairyboard.acl", "tee /etc/mosquitto/fairyboard.acl")):
        lines = (folder / name).read_text().splitlines()
        assert [x for x in lines if not x.startswith("# /etc")] == heredoc(
            doc, marker).splitlines(), name
