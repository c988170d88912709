"""The board's connection to an MQTT broker (paho-mqtt, the Eclipse reference client).

paho runs its network loop in its own thread and reconnects by itself with back-off; what
arrives is put on a queue that the board loop drains (:meth:`MqttLink.receive`), so the
state machine is only ever touched from the board loop.  The session is persistent (the
user name is the client id, clean session off): QoS 1 messages sent while a board was
away are handed to it when it comes back.  A last will marks the board offline.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import socket
import ssl
import threading
from dataclasses import dataclass

from controller.link.messages import (
    LinkError,
    Message,
    Presence,
    check_name,
    decode,
    encode,
    presence_topic,
)

log = logging.getLogger("fairyboard.link")


@dataclass(frozen=True)
class BrokerSettings:
    host: str = "127.0.0.1"
    port: int = 1883
    club: str = "home"
    board: str = "board"
    username: str = ""
    password: str = ""
    #: a CA certificate file: connect with TLS and check the broker's certificate
    tls_ca: str = ""
    keepalive: int = 15


def _no_delay(client, userdata, sock) -> None:
    """Small messages go out at once: with Nagle's algorithm a PUBACK followed by the next
    move waits for the broker's delayed acknowledgement, about 40 ms per move."""
    with contextlib.suppress(OSError, AttributeError):  # not TCP (websocket, unix socket)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def client_id(settings: BrokerSettings) -> str:
    """The board's MQTT client id: its user name when it logs in (the broker's
    ``use_username_as_clientid`` sets the same), else ``fairyboard-CLUB-BOARD``."""
    return settings.username or f"fairyboard-{settings.club}-{settings.board}"


class MqttLink:
    """Publish and receive link messages; :attr:`connected` says whether the broker is
    reachable now (the page shows it)."""

    def __init__(self, settings: BrokerSettings, session: str | None = None) -> None:
        """``session``: the client id of a server worker's link bridge, which is no board
        (its login is the cluster's, it has no presence, and a clean session: a worker
        that died leaves nothing queued for itself)."""
        import paho.mqtt.client as mqtt

        check_name("link.club", settings.club)
        check_name("link.board", settings.board)
        self._is_board = session is None
        if self._is_board and settings.username and settings.username != settings.board:
            # the broker's ACL gives a user the topics of the board of its name alone
            raise LinkError(f"link.username {settings.username[:40]!r}: log in as the "
                            f"board's own name, {settings.board!r} (docs/link.md)")
        self.settings = settings
        self.inbox: queue.Queue[tuple[str, Message]] = queue.Queue()
        self.connected = False
        #: successful connections so far: a change tells the board loop the broker may
        #: have lost what it held (a restart without persistence) or this board is back
        self.connections = 0
        self.problems: list[str] = []  # refused messages, one line each (newest last)
        self._subscriptions: set[str] = set()
        self._lock = threading.Lock()
        # the client id is the user name: the documented broker binds the two
        # (use_username_as_clientid), so no login can take over another board's session
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                             client_id=session or client_id(settings),
                             clean_session=not self._is_board)
        if settings.username:
            client.username_pw_set(settings.username, settings.password or None)
        if settings.tls_ca:
            client.tls_set(ca_certs=settings.tls_ca, cert_reqs=ssl.CERT_REQUIRED)
        if self._is_board:
            client.will_set(presence_topic(settings.club, settings.board),
                            encode(Presence(settings.board, False)), qos=1, retain=True)
        client.reconnect_delay_set(min_delay=1, max_delay=30)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_socket_open = _no_delay
        self.client = client
        client.connect_async(settings.host, settings.port, keepalive=settings.keepalive)
        client.loop_start()

    # -- paho's thread -------------------------------------------------------------------
    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.warning("broker refused the connection", extra={"reason": str(reason_code)})
            return
        self.connected = True
        self.connections += 1
        log.info("link connected", extra={"broker": self.settings.host,
                                          "port": self.settings.port})
        with self._lock:
            topics = list(self._subscriptions)
        for topic in topics:  # a new broker (restarted without persistence) forgot them
            client.subscribe(topic, qos=1)
        if self._is_board:
            client.publish(presence_topic(self.settings.club, self.settings.board),
                           encode(Presence(self.settings.board, True)), qos=1, retain=True)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        if self.connected:
            log.warning("link disconnected; reconnecting", extra={"reason": str(reason_code)})
        self.connected = False

    def _on_message(self, client, userdata, msg) -> None:
        if not msg.payload:
            return  # a retained message was cleared
        try:
            message = decode(msg.payload)
        except LinkError as exc:
            self.problems.append(f"{msg.topic}: {exc}")
            del self.problems[:-20]
            log.warning("link message refused", extra={"topic": msg.topic,
                                                       "problem": str(exc)})
            return
        self.inbox.put((msg.topic, message))

    # -- the board loop ------------------------------------------------------------------
    def subscribe(self, topic: str) -> None:
        with self._lock:
            self._subscriptions.add(topic)
        self.client.subscribe(topic, qos=1)

    def unsubscribe(self, topic: str) -> None:
        with self._lock:
            self._subscriptions.discard(topic)
        self.client.unsubscribe(topic)

    def publish(self, topic: str, message: Message, retain: bool = False) -> None:
        """Queue ``message`` at QoS 1; paho resends it until the broker has it, across
        reconnections."""
        self.client.publish(topic, encode(message), qos=1, retain=retain)

    def clear(self, topic: str) -> None:
        """Remove a retained message."""
        self.client.publish(topic, b"", qos=1, retain=True)

    def receive(self) -> list[tuple[str, Message]]:
        out = []
        while True:
            try:
                out.append(self.inbox.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        """Say goodbye (offline, retained) and stop the network thread."""
        try:
            if self.connected and self._is_board:
                info = self.client.publish(
                    presence_topic(self.settings.club, self.settings.board),
                    encode(Presence(self.settings.board, False)), qos=1, retain=True)
                info.wait_for_publish(timeout=1.0)
            self.client.disconnect()
        finally:
            self.client.loop_stop()
