"""Accounts, sessions and boards' tokens: the security of the server in one place.

* Passwords are hashed with argon2id (argon2-cffi, its recommended parameters); the store
  never sees a password.
* Logins are rate-limited: :data:`MAX_FAILURES` wrong passwords for one name or from one
  address within :data:`FAILURE_WINDOW_S` make every further try wait until the window has
  passed (the right password too, so guessing cannot go on).  Several workers on one
  store (cluster mode) count them in the store, so each wrong password counts on all.
* A session is a random cookie value (the store keeps its SHA-256) with its own CSRF token
  that every form and every state-changing request from the page carries.
* A board's token (``fbd_…``) is shown once when issued from the page; the store keeps its
  SHA-256 only, and revoking it stops the board at its next request.  The same token is
  the board's password at the club's MQTT broker: the store keeps the broker's own hash of
  it too, and whoever listens (:mod:`controller.server.broker`) is told when the boards
  change.

Nothing secret is ever logged: log lines name accounts and device ids, never a password,
a token, a cookie or a hash.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from controller.i18n import Text
from controller.server.broker import broker_hash
from controller.server.store import Conflict, Store

log = logging.getLogger("fairyboard.server.accounts")

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{1,29}")
MIN_PASSWORD = 8
MAX_PASSWORD = 256
MAX_FAILURES = 5
FAILURE_WINDOW_S = 60.0
SESSION_S = 30 * 24 * 3600.0
TOKEN_PREFIX = "fbd_"
MAX_DEVICE_NAME = 40


class AccountError(ValueError):
    """A sign-up, login or token request refused: one line for the person."""


class TooManyTries(AccountError):
    """Logins for this name or from this address wait until the window has passed."""


def digest(secret: str) -> str:
    """SHA-256 of a random secret (tokens and session values have 256 bits: no salt or
    slow hash is needed, unlike a password)."""
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class Session:
    account: str
    csrf: str


class Accounts:
    """Sign-up, login, sessions and device tokens on ``store``; ``clock`` is the rate
    limit's (tests move it); ``shared``: wrong passwords counted in the store, for every
    worker on it (cluster mode; its clock then must be the same on all: seconds since the
    epoch)."""

    def __init__(self, store: Store, hasher: PasswordHasher | None = None,
                 clock=None, shared: bool = False) -> None:
        self.store = store
        self.shared = shared
        clock = clock or (time.time if shared else time.monotonic)
        self.hasher = hasher or PasswordHasher()
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._swept_at = clock()
        #: called after a token is issued (device id, token) or revoked (device id, None):
        #: the broker's logins follow the store
        self.device_listeners: list[Callable[[str, str | None], None]] = []

    # -- sign-up and login -------------------------------------------------------------
    def sign_up(self, name: str, password: str) -> str:
        """A new account; its id (the name in lower case)."""
        if not NAME.fullmatch(name or ""):
            raise AccountError("a name is 2 to 30 letters, digits, - or _, starting with a "
                               "letter or digit")
        if not MIN_PASSWORD <= len(password or "") <= MAX_PASSWORD:
            raise AccountError(Text("a password has {low} to {high} characters",
                                    low=MIN_PASSWORD, high=MAX_PASSWORD))
        try:
            account = self.store.add_account(name, self.hasher.hash(password))
        except Conflict:
            raise AccountError(Text("the name {name} is taken", name=name)) from None
        log.info("account created", extra={"account": account.id})
        return account.id

    def _recent(self, key: str) -> int:
        """Wrong passwords for ``key`` within the window (a key whose window has passed is
        forgotten, and every key once a window, so guessing from many addresses cannot
        fill the memory)."""
        if self.shared:
            return self.store.login_failures(key, self._clock() - FAILURE_WINDOW_S)
        tries = self._failures.get(key)
        if tries is None:
            return 0
        now = self._clock()
        while tries and tries[0] <= now - FAILURE_WINDOW_S:
            tries.popleft()
        if not tries:
            del self._failures[key]
        return len(tries)

    def _failed(self, key: str) -> None:
        now = self._clock()
        if now - self._swept_at >= FAILURE_WINDOW_S:  # once a window: forget what passed
            self._swept_at = now
            if self.shared:
                self.store.forget_login_failures(now - FAILURE_WINDOW_S)
            for stale in list(self._failures):
                self._recent(stale)
        if self.shared:
            self.store.add_login_failure([key], now)
            return
        self._failures.setdefault(key, deque()).append(now)

    def log_in(self, name: str, password: str, address: str) -> tuple[str, Session]:
        """A new session for the right password: (cookie value, session)."""
        keys = (f"name:{(name or '').lower()}", f"address:{address}")
        if any(self._recent(k) >= MAX_FAILURES for k in keys):
            log.warning("login refused: too many tries", extra={"address": address})
            raise TooManyTries(Text("too many wrong passwords: wait {seconds} s",
                                    seconds=f"{FAILURE_WINDOW_S:.0f}"))
        account = self.store.account(name or "") if NAME.fullmatch(name or "") else None
        ok = False
        if account is not None:
            try:
                ok = self.hasher.verify(account.password_hash, password or "")
            except (VerificationError, InvalidHashError):
                ok = False
        else:
            self.hasher.hash(password or "")  # the same time whether the name exists or not
        if not ok:
            for k in keys:
                self._failed(k)
            log.info("login failed", extra={"address": address})
            raise AccountError("wrong name or password")
        value = secrets.token_urlsafe(32)
        session = Session(account.id, secrets.token_urlsafe(32))
        self.store.add_session(digest(value), account.id, session.csrf,
                               time.time() + SESSION_S)
        log.info("logged in", extra={"account": account.id})
        return value, session

    def session(self, value: str | None) -> Session | None:
        if not value:
            return None
        found = self.store.session(digest(value))
        return Session(*found) if found else None

    def log_out(self, value: str) -> None:
        self.store.end_session(digest(value))

    @staticmethod
    def csrf_ok(session: Session | None, sent: str | None) -> bool:
        return bool(session and sent and hmac.compare_digest(session.csrf, sent))

    # -- boards' tokens ------------------------------------------------------------------
    def issue_token(self, account: str, device_name: str) -> tuple[str, str]:
        """A new token for one of ``account``'s boards: (device id, token shown once)."""
        device_name = " ".join((device_name or "").split())[:MAX_DEVICE_NAME] or "board"
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        device_id = secrets.token_hex(6)
        self.store.add_device(device_id, account, device_name, digest(token),
                              broker_hash(token))
        log.info("board token issued", extra={"account": account, "device": device_id})
        self._devices_changed(device_id, token)
        return device_id, token

    def revoke(self, account: str, device_id: str) -> bool:
        done = self.store.revoke_device(device_id, account)
        if done:
            log.info("board token revoked", extra={"account": account, "device": device_id})
            self._devices_changed(device_id, None)
        return done

    def _devices_changed(self, device_id: str, token: str | None) -> None:
        for listener in self.device_listeners:
            try:
                listener(device_id, token)
            except Exception:  # the token is made or revoked whatever the broker does
                log.exception("the boards' broker logins could not be updated")

    def token_account(self, token: str | None) -> str | None:
        """The account a board's token plays for (None: unknown or revoked)."""
        if not token or not token.startswith(TOKEN_PREFIX) or len(token) > 100:
            return None
        return self.store.device_account(digest(token))
