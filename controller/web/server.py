"""The HTTP server's protocol: uvicorn's, with deadlines and room kept for new clients.

uvicorn times a connection out only *between* requests, and a request's headers may take
for ever: 110 connections sending a header byte every 2 s (slow-loris) held every one of
the server's connections and kept ``/health`` at 503 for as long as they liked — no
pairing code needed, the token is checked after the headers.  This protocol

* closes a connection that says nothing (the keep-alive time-out, armed at once);
* gives each request ``header_deadline_s`` for its headers and ``body_deadline_s`` for
  its body, however slowly the bytes trickle in (a deadline, not an idle time-out);
* keeps at most ``max_pending_per_client`` connections of one address still sending their
  request: a moment after a new one (time for its request to arrive) the oldest of them
  are closed (a browser needs a few, each for milliseconds);
* when the server is full, a request whose headers are complete closes the oldest
  connection still sending its own, so a complete request (a page, ``/health``) gets in.
"""

from __future__ import annotations

import contextlib
import socket
import time
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

#: a request's headers must be complete this long after the connection (or the previous
#: response); its body this long after its headers
HEADER_DEADLINE_S = 10.0
BODY_DEADLINE_S = 30.0
#: connections of one client address still sending their request
MAX_PENDING_PER_CLIENT = 8
#: a new connection's request normally arrives within this: only then are the oldest of
#: its address' waiting connections closed (never the one whose request just came)
ROOM_AFTER_S = 0.05

#: every connection still sending its request's headers, oldest first: (address, since)
_pending: dict[SilentClosingH11, tuple[str, float]] = {}


def no_delay(transport: Any) -> None:
    """Small writes sent at once (TCP_NODELAY) on a TCP connection. asyncio sets it only
    on sockets made with ``IPPROTO_TCP`` named, not on those accepted from a listening
    socket made with ``socket.socket()`` (a socket handed to the server): there a
    response's body waited for the client's delayed ACK of its headers, 40 ms on every
    request after a connection's first."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class SilentClosingH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with request deadlines and per-client room."""

    header_deadline_s = HEADER_DEADLINE_S
    body_deadline_s = BODY_DEADLINE_S
    max_pending_per_client = MAX_PENDING_PER_CLIENT

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        no_delay(transport)
        self._deadline: Any = None
        self._seen_cycle: Any = None
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive, self.timeout_keep_alive_handler)
        self._await_request()
        self.loop.call_later(ROOM_AFTER_S, self._make_room)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        _pending.pop(self, None)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        limit = self.limit_concurrency
        if (self in _pending and limit is not None and len(self.connections) >= limit
                and (b"\r\n\r\n" in data or b"\n\n" in data)):  # headers complete
            for p in [p for p in _pending if p is not self
                      and p.server_state is self.server_state][:len(self.connections)
                                                               - limit + 1]:
                p._close()
        super().data_received(data)
        if self not in self.connections:  # upgraded to a websocket (or closed): not ours
            self._cancel_deadline()
            _pending.pop(self, None)
            return
        cycle = self.cycle
        if cycle is not None and cycle is not self._seen_cycle:  # the headers are in
            self._seen_cycle = cycle
            _pending.pop(self, None)
            if cycle.more_body:
                self._arm(self.body_deadline_s)
            else:
                self._cancel_deadline()
        elif cycle is not None and not cycle.more_body and self not in _pending:
            self._cancel_deadline()  # the body is complete

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._seen_cycle = self.cycle
            self._await_request()  # the next request on this connection, if any

    # -- deadlines and room --------------------------------------------------------------
    def _await_request(self) -> None:
        client = self.client[0] if self.client else "?"
        _pending[self] = (client, time.monotonic())
        self._arm(self.header_deadline_s)

    def _arm(self, seconds: float) -> None:
        self._cancel_deadline()
        self._deadline = self.loop.call_later(seconds, self._close)

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _close(self) -> None:
        """Too slow, or the oldest in the way of a new client: the connection ends."""
        self._cancel_deadline()
        _pending.pop(self, None)
        # no longer counted at once: the request that made room must not find it full
        self.connections.discard(self)
        if not self.transport.is_closing():
            self.transport.close()

    def _make_room(self) -> None:
        if self not in _pending:
            return
        client = _pending[self][0]
        mine = [p for p, (c, _) in _pending.items() if c == client]  # oldest first
        for p in mine[:max(0, len(mine) - self.max_pending_per_client)]:
            p._close()
