"""The club's broker provisioned from the server's records, on a real Mosquitto on
loopback: a board's token is its broker password, the linked boards' access rules hold, a
revoked token is refused at the broker, and nothing secret lands in the files."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from controller.link.messages import ROOT
from controller.server.app import build
from controller.server.broker import (
    REFEREE,
    BrokerFiles,
    BrokerUser,
    LocalBroker,
    acl_text,
    broker_hash,
    hash_matches,
)
from controller.server.store import open_store
from tests.support.broker import free_port, mosquitto_or_skip
from tests.support.clubserver import FAST_HASHER

ROOT_DIR = Path(__file__).resolve().parent.parent
CLUB = "server"


class Login:
    """One MQTT client: whether the broker let it in, and what it receives."""

    def __init__(self, port: int, user: str | None, password: str | None) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=user or "anon")
        if user is not None:
            self.client.username_pw_set(user, password)
        self.answer: queue.Queue = queue.Queue()
        self.received: queue.Queue = queue.Queue()
        self.gone = threading.Event()
        self.subscribed = threading.Event()
        self.client.on_connect = lambda c, u, f, reason, p: self.answer.put(reason)
        self.client.on_message = lambda c, u, m: self.received.put((m.topic, m.payload))
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.on_disconnect = lambda *a: self.gone.set()
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.accepted = not self.answer.get(timeout=10).is_failure

    def subscribe(self, topic: str) -> None:
        self.subscribed.clear()
        self.client.subscribe(topic, qos=1)
        assert self.subscribed.wait(5)

    def publish(self, topic: str, text: str) -> None:
        self.client.publish(topic, text, qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def server(tmp_path):
    mosquitto_or_skip()
    built = build(tmp_path, hasher=FAST_HASHER, broker_port=free_port())
    built.broker.start(built.logins())
    logins: list[Login] = []
    yield built, logins
    for login in logins:
        login.close()
    built.broker.stop()
    built.store.close()


def _login(server, logins, user, password) -> Login:
    login = Login(server.broker.port, user, password)
    logins.append(login)
    return login


def test_a_broker_hash_is_mosquittos_own_format_and_only_its_secret_matches() -> None:
    hashed = broker_hash("fbd_secret", salt=b"0123456789ab", iterations=101)
    assert hashed.startswith("$7$101$MDEyMzQ1Njc4OWFi$")
    assert hash_matches("fbd_secret", hashed)
    assert not hash_matches("fbd_secreT", hashed)
    assert not hash_matches("fbd_secret", "not a hash")
    assert broker_hash("x") != broker_hash("x")  # salted


def test_the_clubs_rules_are_the_ones_the_linked_boards_guide_gives() -> None:
    """One home: the access rules docs/link.md and deploy/mosquitto/ show for the club
    "home" are the ones the server writes."""
    def rules(text: str) -> list[str]:
        return [line for line in text.splitlines() if line and not line.startswith("#")]

    shipped = (ROOT_DIR / "deploy/mosquitto/fairyboard.acl").read_text()
    assert rules(acl_text("home")) == rules(shipped)


def test_a_boards_token_logs_it_in_and_the_access_rules_hold(server) -> None:
    built, logins = server
    accounts = built.accounts
    alice = accounts.sign_up("alice", "correct horse")
    bob = accounts.sign_up("bob", "correct horse")
    board_a, token_a = accounts.issue_token(alice, "alice's board")
    board_b, token_b = accounts.issue_token(bob, "bob's board")
    assert not _login(built, logins, None, None).accepted  # no anonymous logins
    assert not _login(built, logins, board_a, token_b).accepted  # another board's token
    assert not _login(built, logins, board_a, "fbd_guess").accepted
    a = _login(built, logins, board_a, token_a)
    b = _login(built, logins, board_b, token_b)
    assert a.accepted and b.accepted
    referee = _login(built, logins, REFEREE, built.broker_files.referee_secret())
    assert referee.accepted
    referee.subscribe(f"{ROOT}/{CLUB}/#")
    b.subscribe(f"{ROOT}/{CLUB}/#")
    # a board writes under its own name, and the others read it
    a.publish(f"{ROOT}/{CLUB}/boards/{board_a}/presence", "alice here")
    assert b.received.get(timeout=5) == (f"{ROOT}/{CLUB}/boards/{board_a}/presence",
                                         b"alice here")
    # but never under another board's name, nor a referee's topic, nor a seat's view
    a.publish(f"{ROOT}/{CLUB}/boards/{board_b}/presence", "I am bob")
    a.publish(f"{ROOT}/{CLUB}/games/g1/state", "forged")
    a.publish(f"{ROOT}/{CLUB}/seats/{board_b}/view", "forged")
    a.publish(f"{ROOT}/{CLUB}/boards/{board_a}/presence", "marker")
    assert referee.received.get(timeout=5)[1] == b"alice here"
    assert referee.received.get(timeout=5)[1] == b"marker"  # nothing forged came between
    # a seat's view reaches that seat only
    referee.publish(f"{ROOT}/{CLUB}/seats/{board_a}/view", "alice's view")
    referee.publish(f"{ROOT}/{CLUB}/boards/{board_a}/presence", "after the view")
    seen = [b.received.get(timeout=5) for _ in range(2)]
    assert [payload for _, payload in seen[-1:]] == [b"after the view"]
    assert all(payload != b"alice's view" for _, payload in seen)


def test_a_revoked_token_is_refused_at_the_broker(server) -> None:
    built, logins = server
    accounts = built.accounts
    alice = accounts.sign_up("alice", "correct horse")
    board, token = accounts.issue_token(alice, "alice's board")
    kept, kept_token = accounts.issue_token(alice, "her second board")
    connected = _login(built, logins, board, token)
    assert connected.accepted
    assert accounts.revoke(alice, board)
    # the broker has read its files again: the revoked board is dropped and refused
    assert connected.gone.wait(5)
    again = Login(built.broker.port, board, token)
    logins.append(again)
    assert not again.accepted
    assert _login(built, logins, kept, kept_token).accepted


def test_the_files_hold_hashes_only_and_are_private(server) -> None:
    built, _ = server
    alice = built.accounts.sign_up("alice", "correct horse")
    board, token = built.accounts.issue_token(alice, "alice's board")
    files = [built.broker_files.passwords, built.broker_files.acl,
             built.broker.config, built.broker_files.folder / "broker-referee.secret"]
    for path in files:
        assert path.stat().st_mode & 0o077 == 0, path
    text = built.broker_files.passwords.read_text()
    assert token not in text and built.broker_files.referee_secret() not in text
    (line,) = [x for x in text.splitlines() if x.startswith(f"{board}:")]
    assert hash_matches(token, line.split(":", 1)[1])
    sqlite = (built.broker_files.folder / "fairyboard-server.sqlite3").read_bytes()
    assert token.encode() not in sqlite


def test_a_board_made_before_the_broker_logins_has_none_until_a_new_token(tmp_path) -> None:
    """The migration leaves older boards without a broker login (their token was never
    kept), and the store lists only boards that have one and are not revoked."""
    store = open_store(str(tmp_path / "s.sqlite3"))
    store.add_account("alice", "x")
    store.add_device("old", "alice", "old board", "sha")
    store.add_device("new", "alice", "new board", "sha2", broker_hash("fbd_t"))
    store.add_device("gone", "alice", "gone board", "sha3", broker_hash("fbd_u"))
    assert store.revoke_device("gone", "alice")
    assert [name for name, _ in store.broker_logins()] == ["new"]
    store.close()


def test_the_broker_files_refuse_a_board_named_like_the_referee(tmp_path) -> None:
    files = BrokerFiles(tmp_path, CLUB)
    with pytest.raises(Exception, match="referee"):
        files.write([BrokerUser(REFEREE, broker_hash("x"))])


def test_a_broker_that_cannot_start_is_one_line(tmp_path) -> None:
    mosquitto_or_skip()
    port = free_port()
    first = LocalBroker(BrokerFiles(tmp_path / "a", CLUB), port)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first.start([])
    try:
        code = ("import sys\nfrom pathlib import Path\n"
                "from controller.server.broker import BrokerFiles, LocalBroker, BrokerError\n"
                f"b = LocalBroker(BrokerFiles(Path({str(tmp_path / 'b')!r}), 'server'), {port})\n"
                "try:\n    b.start([])\nexcept BrokerError as e:\n    print(e)\n"
                "    sys.exit(3)\n")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=30, cwd=ROOT_DIR)
        assert done.returncode == 3, done.stderr
        assert len(done.stdout.strip().splitlines()) == 1
        assert "mosquitto" in done.stdout and "Traceback" not in done.stderr
    finally:
        first.stop()


def test_the_command_refuses_a_broker_port_equal_to_its_own(tmp_path) -> None:
    done = subprocess.run([sys.executable, "-m", "controller.cli", "server", "--data",
                           str(tmp_path), "--port", "8090", "--broker-port", "8090"],
                          capture_output=True, text=True, timeout=30, cwd=ROOT_DIR)
    assert done.returncode != 0
    assert "--broker-port" in done.stderr and "Traceback" not in done.stderr


def test_the_boards_page_names_the_broker_login_a_new_token_gets(tmp_path) -> None:
    """Without a broker of its own the server still writes the files (for a club's own
    Mosquitto); the page shows the user name the files hold for the new token."""
    import re

    import httpx

    from tests.support.clubserver import ClubServer

    club = ClubServer(tmp_path).start()
    try:
        browser = httpx.Client(base_url=club.url)
        csrf = re.search(r"name=csrf value='([^']+)'", browser.get("/").text).group(1)
        browser.post("/signup", data={"name": "alice", "password": "correct horse 1",
                                      "csrf": csrf})
        page = browser.get("/devices").text
        csrf = re.search(r"name=csrf value='([^']+)'", page).group(1)
        made = browser.post("/devices", data={"name": "alice's board", "csrf": csrf}).text
        token = re.search(r"<p class=token>([^<]+)</p>", made).group(1)
        user = re.search(r"user name <code>([^<]+)</code>", made).group(1)
        lines = (tmp_path / "broker.passwd").read_text().splitlines()
        (hashed,) = [x.split(":", 1)[1] for x in lines if x.startswith(f"{user}:")]
        assert hash_matches(token, hashed)
    finally:
        club.stop()
