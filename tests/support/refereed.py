"""A refereed game over a real Mosquitto: docs/link.md's broker set-up as written, the
referee on its own thread, and a player's own board linked through the broker."""

from __future__ import annotations

import re
import shlex
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from controller.link.client import BrokerSettings, MqttLink
from controller.link.messages import SeatView
from controller.link.referee import Referee, serve
from controller.link.remote import RefereedSeat
from tests.support.broker import Broker
from tests.support.fog import FogPlayer

DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "link.md"
CLUB = "test"  # the documented club "home", renamed so tests never touch a real one


def heredoc(doc: str, marker: str) -> str:
    """The body of the ``marker <<'EOF'`` block of ``doc``."""
    start = doc.index(marker)
    body = doc[start:].split("\n", 1)[1]
    lines = []
    for line in body.splitlines():
        if line.strip() == "EOF":
            return "\n".join(lines) + "\n"
        lines.append(line.strip())
    raise AssertionError(f"no end of the {marker} block")


def documented_broker(folder: Path, more: dict[str, str] | None = None
                      ) -> tuple[Broker, dict[str, str]]:
    """Mosquitto with docs/link.md's configuration, passwords and ACL; the users and
    their passwords as the document creates them (and ``more`` users, added the same
    way: other boards of the club)."""
    doc = DOC.read_text()
    conf = heredoc(doc, "tee /etc/mosquitto/conf.d/fairyboard.conf")
    acl = heredoc(doc, "tee /etc/mosquitto/fairyboard.acl").replace("/home/", f"/{CLUB}/")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fairyboard.acl").write_text(acl)
    passwd = folder / "fairyboard.passwd"
    passwd.touch()
    users = {}
    for line in re.findall(r"mosquitto_passwd (?:-c )?-b \S+ .*", doc):
        user, secret = shlex.split(line)[-2:]
        users[user] = secret
        subprocess.run(["mosquitto_passwd", "-b", str(passwd), user, secret], check=True)
    for user, secret in (more or {}).items():
        users[user] = secret
        subprocess.run(["mosquitto_passwd", "-b", str(passwd), user, secret], check=True)
    lines = [line.replace("/etc/mosquitto", str(folder)) for line in conf.splitlines()
             if not line.startswith(("listener", "allow_anonymous", "persistence"))]
    broker = Broker(folder, extra="allow_anonymous false\n" + "\n".join(lines)).start()
    return broker, users


class RefereeThread:
    """``serve`` on a thread until :meth:`stop` (the referee process, in the test)."""

    def __init__(self, port: int, users: dict[str, str], referee: Referee) -> None:
        self.referee = referee
        self.settings = BrokerSettings(port=port, club=CLUB, board="referee",
                                       username="referee", password=users["referee"])
        self._stop = threading.Event()
        self.thread = threading.Thread(target=serve, args=(self.settings, referee, self._stop),
                                       daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(5)


@dataclass
class LinkedFogBoard:
    """A player's own board on the broker with its own credentials: the views that
    arrive are shown on it, its attempts go out."""

    board: str
    port: int
    password: str
    seed: int
    mqtt: MqttLink = field(init=False)
    seat: RefereedSeat = field(init=False)
    player: FogPlayer | None = None

    def __post_init__(self) -> None:
        self.mqtt = MqttLink(BrokerSettings(port=self.port, club=CLUB, board=self.board,
                                            username=self.board, password=self.password))
        self.seat = RefereedSeat(self.mqtt, CLUB, self.board)

    def pump(self) -> None:
        """Take what arrived; the first view sets the board up."""
        import random

        for _, message in self.mqtt.receive():
            if not isinstance(message, SeatView):
                continue
            if self.player is None:
                self.player = FogPlayer(message.seat, message.game, message.options,
                                        message.position, random.Random(self.seed))
                self.seat.view = message
                continue
            self.seat.follow(self.player.sync, message)
        if self.player is not None:
            self.seat.send(self.player.sync)

    def close(self) -> None:
        self.mqtt.close()


def until(condition, *boards: LinkedFogBoard, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting on the broker")
        for b in boards:
            b.pump()
        time.sleep(0.002)
