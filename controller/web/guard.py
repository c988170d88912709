"""Who may use the board's page: the checks in front of every request and websocket.

A browser lets any web page send requests to ``http://127.0.0.1:8080`` and open websockets
to it, and a hostile DNS name can be pointed at the board's address (DNS rebinding).  So,
before the app sees anything:

* **Host** must name this board: ``localhost``, a loopback address, an address literal
  when the page is served to the network (a rebinding attack needs a DNS name), this
  machine's host name (and ``NAME.local``), or a name in ``web.allowed_hosts``;
* **Origin**, when the browser sends one (it always does for websockets and cross-site
  requests), must be the page's own origin or one in ``web.allowed_origins``;
* **POST** bodies must be JSON (``Content-Type: application/json``) of known length and at
  most ``MAX_BODY`` bytes;
* when the page is served beyond loopback, a **pairing token** is required: printed in
  the log at start, entered once per browser (``/?token=…`` sets a cookie), or sent as
  ``X-Fairyboard-Token`` by scripts;
* at most ``MAX_WEBSOCKETS`` pages are connected at once: one more closes the page that
  has been quiet longest (32 idle sockets never lock a new page out);
* ``MAX_WRONG_CODES`` wrong pairing codes from one address within ``WRONG_CODE_WINDOW_S``
  make it wait (429) until the window has passed.

A refused request gets one line of JSON and a 4xx status; a refused websocket is closed
before it is accepted.  Nothing refused reaches the board.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import secrets
import socket
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "ip6-localhost"})
MAX_BODY = 64 * 1024
MAX_WEBSOCKETS = 32
MAX_WRONG_CODES = 5
WRONG_CODE_WINDOW_S = 60.0
COOKIE = "fairyboard_token"
HEADER = "x-fairyboard-token"


def is_loopback(host: str) -> bool:
    """Whether a bind address or host name is this machine only."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _split_host(value: str) -> str:
    """``Host`` header value → host name without port, lower case (IPv6 unbracketed)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def load_token(path: Path) -> str:
    """The pairing token kept in ``path`` (made on first use, readable by the owner only),
    so a phone paired once stays paired after a restart."""
    try:
        token = path.read_text(encoding="ascii").strip()
        if len(token) >= 8:
            return token
    except OSError:
        pass
    token = secrets.token_urlsafe(9)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(token + "\n", encoding="ascii")
    path.chmod(0o600)
    return token


@dataclass(frozen=True)
class WebPolicy:
    """What the guard lets through (see the module docstring)."""

    loopback: bool
    allowed_hosts: frozenset[str] = frozenset()
    allowed_origins: frozenset[str] = frozenset()
    token: str | None = None
    max_body: int = MAX_BODY
    max_websockets: int = MAX_WEBSOCKETS
    machine_names: frozenset[str] = field(default_factory=lambda: _machine_names())

    def host_ok(self, host: str) -> bool:
        name = _split_host(host)
        if not name:
            return False
        if name in LOOPBACK_NAMES or name in self.allowed_hosts or is_loopback(name):
            return True
        if self.loopback:
            return False
        return _is_address(name) or name in self.machine_names

    def origin_ok(self, origin: str, host: str) -> bool:
        if origin in self.allowed_origins:
            return True
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()


def _machine_names() -> frozenset[str]:
    name = socket.gethostname().lower()
    return frozenset({name, name + ".local", name.split(".")[0]})


def policy_for(host: str, allowed_hosts: list[str], allowed_origins: list[str],
               token_path: Path | None) -> WebPolicy:
    """The policy of a page bound to ``host``: a pairing token only beyond loopback."""
    loopback = is_loopback(host)
    token = None if loopback or token_path is None else load_token(token_path)
    return WebPolicy(loopback=loopback,
                     allowed_hosts=frozenset(h.lower() for h in allowed_hosts),
                     allowed_origins=frozenset(o.rstrip("/") for o in allowed_origins),
                     token=token)


PAIRING_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>fairyboard: pair</title>
<style>body{font-family:system-ui,sans-serif;background:#1f1c1a;color:#ece6dc;max-width:30rem;
margin:3rem auto;padding:1rem}input,button{font:inherit;padding:.3rem .5rem}</style></head>
<body><h1>fairyboard</h1><p>This board's page is open to the network, so it asks for its
pairing code once per browser. The code is in the board's log
(<code>journalctl -u fairyboard | grep pairing</code>) and printed when it starts.</p>
<form method="get" action="/"><input name="token" autocomplete="off" autofocus
placeholder="pairing code"> <button>Pair</button></form></body></html>"""


class Guard:
    """ASGI middleware applying a :class:`WebPolicy` in front of the page's app."""

    def __init__(self, app: Any, policy: WebPolicy) -> None:
        self.app = app
        self.policy = policy
        self.websockets = 0
        #: open pages: the event that closes each, by when its page last said something
        self._pages: dict[asyncio.Event, float] = {}
        #: wrong pairing codes per client address: the times of the recent ones
        self._wrong: dict[str, list[float]] = {}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        problem, status = self._problem(scope, headers)
        client = (scope.get("client") or ("?", 0))[0]
        if problem is None and self.policy.token and self._throttled(client):
            problem, status = ("too many wrong pairing codes from this address: wait a "
                               "minute"), 429
        if problem is None and scope["type"] == "http" and self.policy.token:
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = query.get("token", [""])[0]
            if scope["path"] == "/" and given:
                if hmac.compare_digest(given, self.policy.token):
                    await self._redirect_with_cookie(send)
                    return
                self._wrong_code(client)
                problem, status = "wrong pairing code", 401
            elif not self._paired(headers, client):
                if scope["path"] == "/" and scope["method"] == "GET":
                    await self._html(send, 401, PAIRING_PAGE)
                    return
                problem, status = "pair this browser first: open the page and enter the " \
                                  "pairing code from the board's log", 401
        elif problem is None and scope["type"] == "websocket" and self.policy.token \
                and not self._paired(headers, client):
            problem = "not paired"
        if problem is not None:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008, "reason": problem})
            else:
                await self._json(send, status, {"error": problem})
            return
        if scope["type"] == "websocket":
            if self.websockets >= self.policy.max_websockets:
                if not self._pages:
                    await send({"type": "websocket.close", "code": 1013,
                                "reason": "too many pages open"})
                    return
                quietest = min(self._pages, key=self._pages.__getitem__)
                quietest.set()  # that page is closed; it may come back later
                self._pages.pop(quietest)
            closing = asyncio.Event()
            self._pages[closing] = time.monotonic()
            self.websockets += 1
            try:
                await self.app(scope, self._closable(receive, closing), send)
            finally:
                self.websockets -= 1
                self._pages.pop(closing, None)
            return
        await self.app(scope, self._limited(receive), send)

    def _problem(self, scope: dict, headers: dict[str, str]) -> tuple[str | None, int]:
        host = headers.get("host", "")
        if not self.policy.host_ok(host):
            return f"this board does not answer to the name {host[:60]!r}", 421
        origin = headers.get("origin")
        if origin is not None and origin != "null" and not self.policy.origin_ok(origin, host):
            return "requests from another web site are refused", 403
        if origin == "null":
            return "requests from another web site are refused", 403
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD"):
            ctype = headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype != "application/json":
                return "request body must be JSON (Content-Type: application/json)", 415
            length = headers.get("content-length")
            if length is None or not length.isdigit():
                return "request body must have a Content-Length", 411
            if int(length) > self.policy.max_body:
                return f"request body over {self.policy.max_body} bytes", 413
        return None, 0

    def _closable(self, receive: Any, closing: asyncio.Event) -> Any:
        """``receive`` of a page that ends as a disconnect once ``closing`` is set; each
        message from the page makes it the latest to have spoken."""

        async def wrapped() -> dict:
            if not closing.is_set():
                message = asyncio.ensure_future(receive())
                closed = asyncio.ensure_future(closing.wait())
                await asyncio.wait({message, closed}, return_when=asyncio.FIRST_COMPLETED)
                closed.cancel()
                if message.done():
                    if closing in self._pages:
                        self._pages[closing] = time.monotonic()
                    return message.result()
                message.cancel()
            return {"type": "websocket.disconnect", "code": 1013}
        return wrapped

    def _throttled(self, client: str) -> bool:
        now = time.monotonic()
        recent = [t for t in self._wrong.get(client, []) if now - t < WRONG_CODE_WINDOW_S]
        if recent:
            self._wrong[client] = recent
        else:
            self._wrong.pop(client, None)
        return len(recent) >= MAX_WRONG_CODES

    def _wrong_code(self, client: str) -> None:
        if len(self._wrong) > 10_000:  # a flood of addresses: forget the oldest
            self._wrong.pop(next(iter(self._wrong)))
        self._wrong.setdefault(client, []).append(time.monotonic())

    def _paired(self, headers: dict[str, str], client: str = "?") -> bool:
        token = self.policy.token
        assert token is not None
        given = headers.get(HEADER, "")
        if not given and "cookie" in headers:
            jar = SimpleCookie()
            try:
                jar.load(headers["cookie"])
            except Exception:
                return False
            given = jar[COOKIE].value if COOKIE in jar else ""
        if not given:
            return False
        if hmac.compare_digest(given, token):
            return True
        self._wrong_code(client)  # a guess, from a script or a forged cookie
        return False

    def _limited(self, receive: Any) -> Any:
        """``receive`` that refuses a body longer than announced or than the limit."""
        seen = 0
        limit = self.policy.max_body

        async def wrapped() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise ValueError(f"request body over {limit} bytes")
            return message
        return wrapped

    async def _json(self, send: Any, status: int, data: dict) -> None:
        body = json.dumps(data).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def _html(self, send: Any, status: int, page: str) -> None:
        body = page.encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"text/html; charset=utf-8"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def _redirect_with_cookie(self, send: Any) -> None:
        cookie = (f"{COOKIE}={self.policy.token}; Path=/; HttpOnly; SameSite=Strict; "
                  "Max-Age=31536000")
        await send({"type": "http.response.start", "status": 303,
                    "headers": [(b"location", b"/"), (b"set-cookie", cookie.encode()),
                                (b"content-length", b"0")]})
        await send({"type": "http.response.body", "body": b""})
