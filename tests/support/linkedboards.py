"""A board linked over MQTT to the server's club broker, as the linked-board tests drive
it (``tests/test_server_linkbridge.py``, ``tests/test_server_cluster_linkbridge.py``): its
device login, its refereed seat, everything its login receives kept."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from controller.link.client import BrokerSettings, MqttLink
from controller.link.messages import ROOT, Attempt, LinkError, SeatView, decode, seat_topic
from controller.link.remote import RefereedSeat
from tests.support.fog import FogPlayer

CLUB = "server"


def wait(condition, pump=None, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        if pump is not None:
            pump()
        time.sleep(0.002)


@dataclass
class LinkedBoard:
    """A board on the club's broker with its device credentials; everything its login
    receives (it subscribes to all the club's topics it may read) is kept."""

    device: str
    token: str
    port: int
    mqtt: MqttLink = field(init=False)
    seat: RefereedSeat = field(init=False)
    received: list[bytes] = field(default_factory=list)
    views: list[SeatView] = field(default_factory=list)
    player: FogPlayer | None = None

    def __post_init__(self) -> None:
        self.mqtt = MqttLink(BrokerSettings(port=self.port, club=CLUB, board=self.device,
                                            username=self.device, password=self.token))
        inner = self.mqtt.client.on_message

        def spy(client, userdata, msg) -> None:
            self.received.append(bytes(msg.payload))
            inner(client, userdata, msg)

        self.mqtt.client.on_message = spy
        self.seat = RefereedSeat(self.mqtt, CLUB, self.device)
        self.mqtt.subscribe(f"{ROOT}/{CLUB}/#")

    def pump(self, fog: bool = False) -> None:
        for _, message in self.mqtt.receive():
            if not isinstance(message, SeatView):
                continue
            self.views.append(message)
            if not fog:
                continue
            if self.player is None:
                self.player = FogPlayer(message.seat, message.game, message.options,
                                        message.position, random.Random(3))
                self.seat.view = message
            else:
                self.seat.follow(self.player.sync, message)
        if self.player is not None:
            self.seat.send(self.player.sync)

    def attempt(self, ply: int, move: str) -> None:
        view = self.views[-1]
        self.mqtt.publish(seat_topic(CLUB, self.device, "attempt"),
                          Attempt(view.game_id, ply, view.seat, move))

    def close(self) -> None:
        self.mqtt.close()


def assert_views_only(board: LinkedBoard, game, moves: list[str], options: dict) -> None:
    """Every payload the board's login received is one of its seat's views at some ply
    (its presence aside): no enemy piece it cannot see, no hidden option, no move."""
    replay = game.start()
    views, secrets = set(), set()
    for ply in range(len(moves) + 1):
        view = game.position_text(game.view_position(replay, 0))
        views.add(view)
        if game.position_text(replay).split("[")[0] != view.split("[")[0]:
            secrets.add(game.position_text(replay).split("[")[0])
        if ply < len(moves):
            replay.push(game.parse_move(replay, moves[ply]))
    assert secrets and board.received
    seen = 0
    for payload in board.received:
        text = payload.decode()
        assert options["seed"] not in text
        assert not any(s in text for s in secrets)
        assert not any(m in text for m in moves if len(m) > 3)
        try:
            message = decode(payload)
        except LinkError:
            raise AssertionError(f"an unreadable payload: {text[:80]}") from None
        if isinstance(message, SeatView):
            assert message.seat == 0 and message.position in views
            assert "seed" not in message.options
            seen += 1
        else:
            assert message.type == "presence", text[:80]
    assert seen >= 3
