"""The HTTP server's protocol: uvicorn's, closing connections that never say anything.

uvicorn times a connection out only *between* requests, so sockets opened and left silent
stay open for ever and use up the connection limit: 150 of them made the page and
``/health`` unreachable.  This protocol arms the same keep-alive time-out as soon as a
connection is made; the first byte of a request cancels it as usual.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol


class SilentClosingH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a time-out for connections that send nothing."""

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive, self.timeout_keep_alive_handler)
