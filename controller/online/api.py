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

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx

log = logging.getLogger(__name__)

#: lichess's rule: after a 429, wait a full minute before the next request
RATE_LIMIT_WAIT_S = 60.0
#: a stream with no line (not even a keep-alive) for this long is taken for lost
STREAM_SILENCE_S = 20.0
#: plain requests: connect and answer within this
REQUEST_TIMEOUT_S = 15.0


class OnlineError(ConnectionError):
    """A request the server refused or could not answer (one line, no token in it)."""


class Unauthorized(OnlineError):
    """401: the token is wrong, revoked or lacks the scope ``board:play``."""


class RateLimited(OnlineError):
    """429: too many requests; nothing is sent for :data:`RATE_LIMIT_WAIT_S`."""


class StreamLost(OnlineError):
    """A stream ended or fell silent: the caller reconnects and reads the state again."""


def _reason(response: httpx.Response) -> str:
    try:
        body = response.json()
        if isinstance(body, Mapping) and body.get("error"):
            return str(body["error"])[:200]
    except (ValueError, json.JSONDecodeError):
        pass
    return response.reason_phrase or f"HTTP {response.status_code}"


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
            raise OnlineError("the token is empty or has spaces in it")
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

    def _check(self, response: httpx.Response, what: str) -> None:
        if response.status_code == 429:
            self._quiet_until = self._clock() + self.rate_limit_wait_s
            log.warning("online: rate limited; waiting %.0f s", self.rate_limit_wait_s)
            raise RateLimited(f"{what}: too many requests (waiting "
                              f"{self.rate_limit_wait_s:.0f} s before the next one)")
        if response.status_code == 401:
            raise Unauthorized(f"{what}: the server refused the token (revoked, mistyped, "
                               "or without the board:play scope)")
        if response.status_code >= 400:
            raise OnlineError(f"{what}: {_reason(response)} (HTTP {response.status_code})")

    def request(self, method: str, path: str, what: str,
                data: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """One plain request; its JSON answer (``{}`` for none)."""
        with self._lane:
            self._wait_for_lane()
            try:
                response = self._http.request(method, path, data=data)
            except httpx.HTTPError as exc:
                raise OnlineError(f"{what}: the server cannot be reached "
                                  f"({type(exc).__name__})") from None
            self._check(response, what)
        try:
            body = response.json() if response.content else {}
        except ValueError:
            return {}
        return body if isinstance(body, dict) else {"answer": body}

    def stream(self, method: str, path: str, what: str,
               data: Mapping[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """The JSON objects of an NDJSON stream, keep-alives skipped; :class:`StreamLost`
        when it ends, breaks or falls silent.  Opening it takes the lane; reading does not
        (a stream stays open for a whole game)."""
        with self._lane:
            self._wait_for_lane()
            try:
                cm = self._http.stream(method, path, data=data)
                response = cm.__enter__()
            except httpx.HTTPError as exc:
                raise StreamLost(f"{what}: the server cannot be reached "
                                 f"({type(exc).__name__})") from None
            try:
                if response.status_code >= 400:
                    response.read()
                    self._check(response, what)
            except BaseException:
                cm.__exit__(None, None, None)
                raise
        try:
            for line in response.iter_lines():
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
            raise StreamLost(f"{what}: the stream broke ({type(exc).__name__})") from None
        finally:
            cm.__exit__(None, None, None)
        raise StreamLost(f"{what}: the server closed the stream")

    # -- the Board API --------------------------------------------------------------------
    def account(self) -> dict[str, Any]:
        """The token's owner (``id``, ``username``): checks the token before playing."""
        return self.request("GET", "/api/account", "account")

    def stream_events(self) -> Iterator[dict[str, Any]]:
        """``gameStart``, ``gameFinish``, ``challenge``, ``challengeCanceled``,
        ``challengeDeclined``: everything that concerns the token's owner."""
        return self.stream("GET", "/api/stream/event", "event stream")

    def seek(self, minutes: float, increment: int, *, rated: bool = False,
             color: str = "random", variant: str = "standard") -> Iterator[dict[str, Any]]:
        """A real-time seek: the server keeps it while this stream is open."""
        return self.stream("POST", "/api/board/seek", "seek", data={
            "time": f"{minutes:g}", "increment": str(increment),
            "rated": "true" if rated else "false", "color": color, "variant": variant})

    def seek_correspondence(self, days: int, *, rated: bool = False,
                            color: str = "random", variant: str = "standard") -> dict[str, Any]:
        return self.request("POST", "/api/board/seek", "seek", data={
            "days": str(days), "rated": "true" if rated else "false", "color": color,
            "variant": variant})

    def challenge(self, username: str, minutes: float, increment: int, *,
                  rated: bool = False, color: str = "random",
                  variant: str = "standard") -> dict[str, Any]:
        if not username or "/" in username or len(username) > 30:
            raise OnlineError(f"no such player name: {username[:30]!r}")
        return self.request("POST", f"/api/challenge/{username}", "challenge", data={
            "clock.limit": str(int(minutes * 60)), "clock.increment": str(increment),
            "rated": "true" if rated else "false", "color": color, "variant": variant})

    def accept_challenge(self, challenge_id: str) -> None:
        self.request("POST", f"/api/challenge/{challenge_id}/accept", "accept challenge")

    def decline_challenge(self, challenge_id: str) -> None:
        self.request("POST", f"/api/challenge/{challenge_id}/decline", "decline challenge")

    def stream_game(self, game_id: str) -> Iterator[dict[str, Any]]:
        """``gameFull`` first, then ``gameState``, ``chatLine`` and ``opponentGone``."""
        return self.stream("GET", f"/api/board/game/stream/{game_id}", "game stream")

    def move(self, game_id: str, uci: str, offering_draw: bool = False) -> None:
        path = f"/api/board/game/{game_id}/move/{uci}"
        if offering_draw:
            path += "?offeringDraw=true"
        self.request("POST", path, f"move {uci}")

    def abort(self, game_id: str) -> None:
        self.request("POST", f"/api/board/game/{game_id}/abort", "abort")

    def resign(self, game_id: str) -> None:
        self.request("POST", f"/api/board/game/{game_id}/resign", "resign")

    def draw(self, game_id: str, accept: bool = True) -> None:
        """Offer or accept a draw (``accept``), or decline one."""
        self.request("POST", f"/api/board/game/{game_id}/draw/{'yes' if accept else 'no'}",
                     "draw")

    def takeback(self, game_id: str, accept: bool = True) -> None:
        """Propose or accept a takeback (``accept``), or decline one."""
        self.request("POST",
                     f"/api/board/game/{game_id}/takeback/{'yes' if accept else 'no'}",
                     "takeback")

    def claim_victory(self, game_id: str) -> None:
        self.request("POST", f"/api/board/game/{game_id}/claim-victory", "claim victory")
