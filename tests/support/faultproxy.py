"""A small TCP proxy between one MQTT client and the real broker that injects faults:
it cuts the connection, delays the stream, duplicates and reorders PUBLISH packets.

The proxy reads MQTT fixed headers (packet type, flags, remaining length) so that every
fault falls on a packet boundary and the stream stays a valid MQTT stream: a duplicated
QoS 1 PUBLISH goes out again with its DUP flag set (a legal redelivery), a reordered one
is held back until the packet after it has gone (or a few milliseconds have passed), a
cut loses the packet it falls on and closes both sides — the client reconnects and the
QoS 1 machinery (paho's resend, the broker's persistent session) has to recover it.  The
first packet each way (CONNECT, CONNACK) always passes untouched.

Faults are drawn from a seeded generator per connection and direction, so a run's faults
are the same sequence of decisions whatever the threads' timing.
"""

from __future__ import annotations

import contextlib
import random
import select
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass

PUBLISH = 3


def packet_length(buf: bytes | bytearray) -> int | None:
    """The length of the whole MQTT packet at the start of ``buf`` (fixed header, variable
    header and payload), or None while it is incomplete."""
    value, multiplier, i = 0, 1, 1
    while True:
        if i >= len(buf):
            return None
        byte = buf[i]
        value += (byte & 0x7F) * multiplier
        i += 1
        if not byte & 0x80:
            break
        multiplier *= 128
        if i > 4:
            raise ValueError("malformed MQTT remaining length")
    total = i + value
    return total if len(buf) >= total else None


def is_qos1_publish(packet: bytes) -> bool:
    return packet[0] >> 4 == PUBLISH and (packet[0] >> 1) & 3 == 1


def redelivery(packet: bytes) -> bytes:
    """The same PUBLISH with the DUP flag set (MQTT 3.1.1 §3.3.1.1)."""
    return bytes([packet[0] | 0x08]) + packet[1:]


@dataclass(frozen=True)
class Faults:
    """Chances per packet (``duplicate`` and ``reorder``: per QoS 1 PUBLISH)."""

    drop: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0
    reorder: float = 0.0
    delay_s: tuple[float, float] = (0.002, 0.03)
    #: a packet held back for reordering goes out after this long if nothing follows
    hold_s: float = 0.02


class _Connection:
    def __init__(self, client: socket.socket, upstream: socket.socket) -> None:
        self.client = client
        self.upstream = upstream
        self.closed = threading.Event()

    def close(self) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        for sock in (self.client, self.upstream):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()


class FaultProxy:
    """Listen on a free loopback port (:attr:`port`) and forward to the broker on
    ``upstream_port``, injecting ``faults`` while :attr:`active`.  :attr:`counts` counts
    the faults injected by kind (``drop``, ``duplicate``, ``delay``, ``reorder``); a
    :meth:`cut` from outside counts as a ``drop`` too."""

    def __init__(self, upstream_port: int, faults: Faults = Faults(), seed: int = 0) -> None:
        self.upstream_port = upstream_port
        self.faults = faults
        self.seed = seed
        self.active = True
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._connections: list[_Connection] = []
        self._accepted = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._stopping = False
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    @property
    def total(self) -> int:
        with self._lock:
            return sum(self.counts.values())

    def _count(self, kind: str) -> None:
        with self._lock:
            self.counts[kind] += 1

    def _accept(self) -> None:
        while not self._stopping:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port),
                                                    timeout=1.0)
            except OSError:  # the broker is down: the client finds the door shut
                client.close()
                continue
            for sock in (client, upstream):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.settimeout(None)
            conn = _Connection(client, upstream)
            with self._lock:
                self._accepted += 1
                index = self._accepted
                self._connections = [c for c in self._connections if not c.closed.is_set()]
                self._connections.append(conn)
            for direction, (src, dst) in enumerate(((client, upstream), (upstream, client))):
                rng = random.Random(f"{self.seed}/{index}/{direction}")
                thread = threading.Thread(target=self._pump, args=(conn, src, dst, rng),
                                          daemon=True)
                thread.start()

    def _pump(self, conn: _Connection, src: socket.socket, dst: socket.socket,
              rng: random.Random) -> None:
        buf = bytearray()
        held: bytes | None = None
        held_at = 0.0
        first = True
        f = self.faults
        try:
            while not conn.closed.is_set():
                ready, _, _ = select.select([src], [], [], f.hold_s if held else 0.5)
                if not ready:
                    if held is not None and time.monotonic() - held_at >= f.hold_s:
                        dst.sendall(held)
                        held = None
                    continue
                data = src.recv(65536)
                if not data:
                    break
                buf += data
                while (n := packet_length(buf)) is not None:
                    packet = bytes(buf[:n])
                    del buf[:n]
                    if first or not self.active:
                        first = False
                        dst.sendall(packet)
                        if held is not None:
                            dst.sendall(held)
                            held = None
                        continue
                    if rng.random() < f.drop:
                        self._count("drop")
                        return  # the packet is lost with the connection
                    if rng.random() < f.delay:
                        self._count("delay")
                        time.sleep(rng.uniform(*f.delay_s))
                    publish = is_qos1_publish(packet)
                    if publish and held is None and rng.random() < f.reorder:
                        self._count("reorder")
                        held, held_at = packet, time.monotonic()
                        continue
                    dst.sendall(packet)
                    if publish and rng.random() < f.duplicate:
                        self._count("duplicate")
                        dst.sendall(redelivery(packet))
                    if held is not None:
                        dst.sendall(held)
                        held = None
        except (OSError, ValueError):
            pass
        finally:
            conn.close()

    def cut(self) -> int:
        """Cut every open connection now (a dropped network); how many were cut."""
        with self._lock:
            live = [c for c in self._connections if not c.closed.is_set()]
        for conn in live:
            conn.close()
            self._count("drop")
        return len(live)

    def close(self) -> None:
        self._stopping = True
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        with contextlib.suppress(OSError):
            self._listener.close()
        self.active = False
        with self._lock:
            live = list(self._connections)
        for conn in live:
            conn.close()
