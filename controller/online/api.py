"""The Board API over HTTP: lichess's published API for physical boards, which the
fairyboard server offers in the same shape.

* A personal token with the scope ``board:play`` goes in every request's ``Authorization:
  Bearer`` header and nowhere else (never logged, never in an error line).
* Streams are NDJSON: one JSON object a line, empty lines as keep-alives
  (:meth:`BoardApi.stream_events`, :meth:`BoardApi.stream_game`, and a real-time seek,
  which stays open while the server looks for an opponent).
* One request at a time (lichess asks it of every client), and after an HTTP 429 nothing
  at all for a full minute (:data:`RATE_LIMIT_WAIT_S`).

httpx is the HTTP client: well kept, both plain requests and streamed responses with
separate connect/read timeouts on one connection pool, and a transport that tests replace.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx

from controller.i18n import Text

log = logging.getLogger(__name__)

#: lichess's rule: after a 429, wait a full minute before the next request
RATE_LIMIT_WAIT_S = 60.0
#: a stream with no line (not even a keep-alive) for this long is taken for lost
STREAM_SILENCE_S = 20.0
#: plain requests: connect and answer within this
REQUEST_TIMEOUT_S = 15.0


class OnlineError(ConnectionError):
    """A request the server refused or could not answer (one line, no token in it: a
    :class:`~controller.i18n.Text`, read on each page in its language)."""


class Unauthorized(OnlineError):
    """401: the token is wrong, revoked or lacks the scope ``board:play``."""


class RateLimited(OnlineError):
    """429: too many requests; nothing is sent for :data:`RATE_LIMIT_WAIT_S`."""


class StreamLost(OnlineError):
    """A stream ended or fell silent: the caller reconnects and reads the state again."""


class Hangup:
    """Closes an open stream at once from another thread: a seek withdrawn without
    waiting for the server's next line (a blocked read returns, the connection closes,
    and the server, seeing it closed, drops the seek).  Where the transport shows no
    socket, the stream still ends at its next line (its ``stop``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self.called = False

    def attach(self, response: httpx.Response) -> None:
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        with self._lock:
            self._socket = sock if isinstance(sock, socket.socket) else None
            if self.called:
                self._shut()

    def detach(self) -> None:
        """The stream is over: its socket is no longer this one's to close."""
        with self._lock:
            self._socket = None

    def __call__(self) -> None:
        with self._lock:
            self.called = True
            self._shut()

    def _shut(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)


def _reason(response: httpx.Response) -> str:
    try:
        body = response.json()
        if isinstance(body, Mapping) and body.get("error"):
            return str(body["error"])[:200]
    except (ValueError, json.JSONDecodeError):
        pass
    return response.reason_phrase or f"HTTP {response.status_code}"


def _with_options(form: dict[str, str], options: Mapping[str, Any] | None) -> dict[str, str]:
    """A seek's or challenge's form with the game's options (sent only when some are
    chosen: lichess knows no such field)."""
    return {**form, "options": json.dumps(dict(options))} if options else form


class BoardApi:
    """The Board API of the server at ``base_url`` for the owner of ``token``.

    ``sleep`` and ``rate_limit_wait_s`` are the clock the rate-limit rule waits on (tests
    shorten the minute; the product never does)."""

    def __init__(self, base_url: str, token: str, *,
                 transport: httpx.BaseTransport | None = None,
                 rate_limit_wait_s: float = RATE_LIMIT_WAIT_S,
                 silence_s: float = STREAM_SILENCE_S,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not token or any(c.isspace() for c in token):
            raise OnlineError(Text("the token is empty or has spaces in it"))
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {token}",
                         "Accept": "application/json, application/x-ndjson"}
        timeout = httpx.Timeout(REQUEST_TIMEOUT_S, read=silence_s)
        self._http = httpx.Client(base_url=self.base_url, headers=self._headers,
                                  timeout=timeout, transport=transport)
        self._lane = threading.Lock()  # one request at a time
        self._quiet_until = 0.0
        self.rate_limit_wait_s = rate_limit_wait_s
        self._sleep = sleep
        self._clock = clock

    def close(self) -> None:
        self._http.close()

    # -- plumbing -----------------------------------------------------------------------
    def _wait_for_lane(self) -> None:
        wait = self._quiet_until - self._clock()
        if wait > 0:
            self._sleep(wait)

    def _check_open(self, what: str, problem: type[OnlineError]) -> None:
        """A request after :meth:`close` (a room closing while a thread of it still asks)
        is the link's problem in one line, not the HTTP client's error."""
        if self._http.is_closed:
            raise problem(Text("{what}: the server cannot be reached ({error})", what=what,
                               error="closed"))

    def _check(self, response: httpx.Response, what: str) -> None:
        if response.status_code == 429:
            self._quiet_until = self._clock() + self.rate_limit_wait_s
            log.warning("online: rate limited; waiting %.0f s", self.rate_limit_wait_s)
            raise RateLimited(Text("{what}: too many requests (waiting {seconds} s before the "
                                   "next one)", what=what,
                                   seconds=f"{self.rate_limit_wait_s:.0f}"))
        if response.status_code == 401:
            raise Unauthorized(Text("{what}: the server refused the token (revoked, mistyped, "
                                    "or without the board:play scope)", what=what))
        if response.status_code >= 400:
            raise OnlineError(Text("{what}: {reason} (HTTP {status})", what=what,
                                   reason=_reason(response), status=response.status_code))

    def request(self, method: str, path: str, what: str,
                data: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """One plain request; its JSON answer (``{}`` for none)."""
        with self._lane:
            self._wait_for_lane()
            self._check_open(what, OnlineError)
            try:
                try:
                    response = self._http.request(method, path, data=data)
                except httpx.RemoteProtocolError:
                    # a kept-alive connection the server closed as idle just as this went
                    # out on it: asked once more, on a new connection (a move the server
                    # did take is refused the second time, and the seat reads the game)
                    response = self._http.request(method, path, data=data)
            except httpx.HTTPError as exc:
                raise OnlineError(Text("{what}: the server cannot be reached ({error})",
                                       what=what, error=type(exc).__name__)) from None
            except RuntimeError:  # (closed meanwhile, by another thread)
                self._check_open(what, OnlineError)
                raise
            self._check(response, what)
        try:
            body = response.json() if response.content else {}
        except ValueError:
            return {}
        return body if isinstance(body, dict) else {"answer": body}

    def stream(self, method: str, path: str, what: str,
               data: Mapping[str, Any] | None = None,
               stop: Callable[[], bool] | None = None,
               hangup: Hangup | None = None) -> Iterator[dict[str, Any]]:
        """The JSON objects of an NDJSON stream; :class:`StreamLost` when it ends, breaks or
        falls silent.  Opening it takes the lane; reading does not (a stream stays open for
        a whole game).  ``stop`` is asked at every line, keep-alives included: once it says
        so the connection is closed and the stream ends quietly (closing a seek's stream is
        how a seek is withdrawn, and a seek sends nothing but keep-alives); ``hangup``
        closes it at once, whenever it is called."""
        with self._lane:
            self._wait_for_lane()
            self._check_open(what, StreamLost)
            try:
                cm = self._http.stream(method, path, data=data)
                response = cm.__enter__()
            except httpx.HTTPError as exc:
                raise StreamLost(Text("{what}: the server cannot be reached ({error})",
                                      what=what, error=type(exc).__name__)) from None
            except RuntimeError:  # (closed meanwhile, by another thread)
                self._check_open(what, StreamLost)
                raise
            try:
                if response.status_code >= 400:
                    response.read()
                    self._check(response, what)
            except BaseException:
                cm.__exit__(None, None, None)
                raise
        if hangup is not None:
            hangup.attach(response)
        try:
            for line in response.iter_lines():
                if stop is not None and stop():
                    return  # (the connection is closed below: the server notices)
                if not line.strip():
                    continue  # keep-alive
                try:
                    item = json.loads(line)
                except json.JSONDecodeError:
                    log.warning("online: %s sent a line that is not JSON (skipped)", what)
                    continue
                if isinstance(item, dict):
                    yield item
        except httpx.HTTPError as exc:
            raise StreamLost(Text("{what}: the stream broke ({error})", what=what,
                                  error=type(exc).__name__)) from None
        finally:
            if hangup is not None:
                hangup.detach()  # (a connection the pool keeps is another's next)
            cm.__exit__(None, None, None)
        raise StreamLost(Text("{what}: the server closed the stream", what=what))

    # -- the Board API --------------------------------------------------------------------
    def account(self) -> dict[str, Any]:
        """The token's owner (``id``, ``username``): checks the token before playing."""
        return self.request("GET", "/api/account", Text("account"))

    def stream_events(self, stop: Callable[[], bool] | None = None
                      ) -> Iterator[dict[str, Any]]:
        """``gameStart``, ``gameFinish``, ``challenge``, ``challengeCanceled``,
        ``challengeDeclined``: everything that concerns the token's owner (until ``stop``,
        asked at every line)."""
        return self.stream("GET", "/api/stream/event", Text("event stream"), stop=stop)

    def seek(self, minutes: float, increment: int, *, rated: bool = False,
             color: str = "random", variant: str = "standard",
             options: Mapping[str, Any] | None = None,
             stop: Callable[[], bool] | None = None,
             hangup: Hangup | None = None) -> Iterator[dict[str, Any]]:
        """A real-time seek: the server keeps it while this stream is open, and withdraws it
        when the board closes the stream (``hangup`` at once; ``stop`` at the next line).
        ``options``: the game's options (the fairyboard server's extension: players,
        dice…)."""
        return self.stream("POST", "/api/board/seek", Text("seek"), data=_with_options({
            "time": f"{minutes:g}", "increment": str(increment),
            "rated": "true" if rated else "false", "color": color, "variant": variant},
            options), stop=stop, hangup=hangup)

    def seek_correspondence(self, days: int, *, rated: bool = False,
                            color: str = "random", variant: str = "standard",
                            options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return self.request("POST", "/api/board/seek", Text("seek"), data=_with_options({
            "days": str(days), "rated": "true" if rated else "false", "color": color,
            "variant": variant}, options))

    def challenge(self, username: str, minutes: float, increment: int, *,
                  rated: bool = False, color: str = "random",
                  variant: str = "standard",
                  options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        if not username or "/" in username or len(username) > 30:
            raise OnlineError(Text("no such player name: {name}", name=repr(username[:30])))
        return self.request("POST", f"/api/challenge/{username}", Text("challenge"),
                            data=_with_options({
                                "clock.limit": str(int(minutes * 60)),
                                "clock.increment": str(increment),
                                "rated": "true" if rated else "false", "color": color,
                                "variant": variant}, options))

    def open_challenge(self, minutes: float, increment: int, *, variant: str = "standard",
                       options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """An open challenge (the challenge API): anyone with its ``url`` may take it."""
        return self.request("POST", "/api/challenge/open", Text("open challenge"),
                            data=_with_options({
                                "clock.limit": str(int(minutes * 60)),
                                "clock.increment": str(increment), "variant": variant},
                                options))

    def accept_challenge(self, challenge_id: str) -> None:
        self.request("POST", f"/api/challenge/{challenge_id}/accept", Text("accept challenge"))

    def decline_challenge(self, challenge_id: str) -> None:
        self.request("POST", f"/api/challenge/{challenge_id}/decline", Text("decline challenge"))

    def stream_game(self, game_id: str, stop: Callable[[], bool] | None = None
                    ) -> Iterator[dict[str, Any]]:
        """``gameFull`` first, then ``gameState``, ``chatLine`` and ``opponentGone`` (until
        ``stop``, asked at every line: a closed seat lets its stream go at the next
        keep-alive)."""
        return self.stream("GET", f"/api/board/game/stream/{game_id}", Text("game stream"),
                           stop=stop)

    def move(self, game_id: str, uci: str, offering_draw: bool = False) -> None:
        path = f"/api/board/game/{game_id}/move/{uci}"
        if offering_draw:
            path += "?offeringDraw=true"
        self.request("POST", path, Text("move {move}", move=uci))

    def abort(self, game_id: str) -> None:
        self.request("POST", f"/api/board/game/{game_id}/abort", Text("abort"))

    def resign(self, game_id: str) -> None:
        self.request("POST", f"/api/board/game/{game_id}/resign", Text("resign"))

    def draw(self, game_id: str, accept: bool = True) -> None:
        """Offer or accept a draw (``accept``), or decline one."""
        self.request("POST", f"/api/board/game/{game_id}/draw/{'yes' if accept else 'no'}",
                     Text("draw"))

    def takeback(self, game_id: str, accept: bool = True) -> None:
        """Propose or accept a takeback (``accept``), or decline one."""
        self.request("POST",
                     f"/api/board/game/{game_id}/takeback/{'yes' if accept else 'no'}",
                     Text("takeback"))

    def claim_victory(self, game_id: str) -> None:
        self.request("POST", f"/api/board/game/{game_id}/claim-victory", Text("claim victory"))

    def chat(self, game_id: str, text: str, room: str = "player") -> None:
        """A line in the game's chat (``room``: ``player`` — the opponent reads it)."""
        self.request("POST", f"/api/board/game/{game_id}/chat", Text("chat"),
                     data={"room": room, "text": text})
