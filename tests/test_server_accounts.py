"""The server's accounts through its pages and API, on loopback: CSRF on every form and
page request, cookie flags, the login rate limit, board tokens issued, used and revoked,
and no secret in any log or in the database."""

from __future__ import annotations

import logging
import re

import httpx
import pytest

from controller.server.accounts import MAX_FAILURES, Accounts
from controller.server.store import open_store
from tests.support.clubserver import FAST_HASHER, ClubServer

PASSWORD = "tr0ub4dor&3-horse"


@pytest.fixture
def club(tmp_path):
    server = ClubServer(tmp_path).start()
    yield server
    server.stop()


def _csrf(page: httpx.Response) -> str:
    found = re.search(r"name=csrf value='([^']+)'", page.text)
    assert found, page.text[:300]
    return found.group(1)


def _sign_up(club, name="alice") -> httpx.Client:
    browser = httpx.Client(base_url=club.url)
    token = _csrf(browser.get("/"))
    answer = browser.post("/signup", data={"name": name, "password": PASSWORD,
                                           "csrf": token})
    assert answer.status_code == 303, answer.text[:300]
    return browser


def test_signup_needs_the_forms_token_and_sets_safe_cookies(club):
    browser = httpx.Client(base_url=club.url)
    first = browser.get("/")
    assert "samesite=strict" in first.headers["set-cookie"].lower()
    refused = browser.post("/signup", data={"name": "alice", "password": PASSWORD})
    assert refused.status_code == 403 and "expired" in refused.text
    forged = browser.post("/signup", data={"name": "alice", "password": PASSWORD,
                                           "csrf": "guessed"})
    assert forged.status_code == 403
    assert club.server.store.account("alice") is None  # nothing done
    answer = browser.post("/signup", data={"name": "alice", "password": PASSWORD,
                                           "csrf": _csrf(first)})
    assert answer.status_code == 303
    cookie = next(v for k, v in answer.headers.multi_items()
                  if k == "set-cookie" and v.startswith("fb_session="))
    flags = {part.strip().lower() for part in cookie.split(";")}
    assert "httponly" in flags and "samesite=strict" in flags and "path=/" in flags
    assert "Logged in as <b>alice</b>" in browser.get("/").text


def test_bad_sign_ups_are_one_line(club):
    _sign_up(club)
    browser = httpx.Client(base_url=club.url)
    for name, password, words in (("alice", PASSWORD, "taken"), ("a", PASSWORD, "2 to 30"),
                                  ("zed", "short", "8 to")):
        answer = browser.post("/signup", data={"name": name, "password": password,
                                               "csrf": _csrf(browser.get("/"))})
        assert answer.status_code == 400 and words in answer.text


def test_logins_are_rate_limited(club):
    _sign_up(club)
    browser = httpx.Client(base_url=club.url)
    for _ in range(MAX_FAILURES):
        wrong = browser.post("/login", data={"name": "alice", "password": "wrong-guess",
                                             "csrf": _csrf(browser.get("/"))})
        assert wrong.status_code == 400 and "wrong name or password" in wrong.text
    blocked = browser.post("/login", data={"name": "alice", "password": PASSWORD,
                                           "csrf": _csrf(browser.get("/"))})
    assert blocked.status_code == 429 and "too many" in blocked.text  # even the right one


def test_shared_rate_limits_count_every_workers_wrong_passwords(tmp_path):
    """Cluster mode: two workers (two connections to one store) count each other's wrong
    passwords; each worker's own count would stay under the limit."""
    now = [1000.0]
    path = str(tmp_path / "s.sqlite3")
    workers = [Accounts(open_store(path), FAST_HASHER, clock=lambda: now[0], shared=True)
               for _ in range(2)]
    workers[0].sign_up("alice", PASSWORD)
    for i in range(MAX_FAILURES):
        with pytest.raises(ValueError, match="wrong"):
            workers[i % 2].log_in("alice", "nope-nope", f"10.0.0.{i}")
    for accounts in workers:
        with pytest.raises(ValueError, match="too many"):
            accounts.log_in("alice", PASSWORD, "10.0.0.9")
    now[0] += 61.0  # the window passes (and what passed is forgotten at the next failure)
    assert workers[1].log_in("alice", PASSWORD, "10.0.0.9")[1].account == "alice"
    with pytest.raises(ValueError, match="wrong"):
        workers[1].log_in("alice", "nope-nope", "10.0.0.9")
    assert workers[0].store._read("SELECT COUNT(*) FROM login_failures")[0][0] == 2


def test_the_rate_limit_window_passes(tmp_path):
    now = [0.0]
    accounts = Accounts(open_store(str(tmp_path / "s.sqlite3")), FAST_HASHER,
                        clock=lambda: now[0])
    accounts.sign_up("alice", PASSWORD)
    for _ in range(MAX_FAILURES):
        with pytest.raises(ValueError):
            accounts.log_in("alice", "nope-nope", "10.0.0.1")
    with pytest.raises(ValueError, match="too many"):
        accounts.log_in("alice", PASSWORD, "10.0.0.2")  # the name is limited too
    now[0] = 61.0
    value, session = accounts.log_in("alice", PASSWORD, "10.0.0.1")
    assert session.account == "alice" and accounts.session(value) == session
    # the product's own hasher (the library's recommended, slow parameters) is argon2id
    assert Accounts(accounts.store).hasher.hash("x").startswith("$argon2id$")


def test_board_tokens_issued_used_and_revoked(club):
    browser = _sign_up(club)
    devices = browser.get("/devices")
    assert browser.post("/devices", data={"name": "kitchen"}).status_code == 403
    for form in ("/seek", "/challenge/abc/accept", "/logout"):  # every form needs it
        assert browser.post(form, data={"variant": "gnuqi"}).status_code == 403
    made = browser.post("/devices", data={"name": "kitchen", "csrf": _csrf(devices)})
    token = re.search(r"class=token>(fbd_[A-Za-z0-9_-]+)<", made.text).group(1)
    board = httpx.Client(base_url=club.url, headers={"Authorization": f"Bearer {token}"})
    assert board.get("/api/account").json()["id"] == "alice"
    device = club.server.store.devices("alice")[0]
    assert browser.post(f"/devices/{device.id}/revoke", data={}).status_code == 403
    page = browser.get("/devices")
    assert browser.post(f"/devices/{device.id}/revoke",
                        data={"csrf": _csrf(page)}).status_code == 303
    assert board.get("/api/account").status_code == 401


def test_the_page_api_needs_the_csrf_header(club):
    browser = _sign_up(club)
    assert browser.get("/api/account").json()["id"] == "alice"  # a GET needs no token
    answer = browser.post("/api/board/seek", data={"days": "1", "variant": "gnuqi"})
    assert answer.status_code == 403 and "CSRF" in answer.json()["error"]
    csrf = _csrf(browser.get("/"))
    answer = browser.post("/api/board/seek", data={"days": "1", "variant": "gnuqi"},
                          headers={"X-CSRF-Token": csrf})
    assert answer.status_code == 200 and club.hub.seeks[0].account == "alice"


def test_no_secret_in_any_log_or_in_the_database(club, caplog, tmp_path):
    caplog.set_level(logging.DEBUG)
    browser = _sign_up(club)
    made = browser.post("/devices", data={"name": "b", "csrf": _csrf(browser.get("/devices"))})
    token = re.search(r"class=token>(fbd_[A-Za-z0-9_-]+)<", made.text).group(1)
    board = httpx.Client(base_url=club.url, headers={"Authorization": f"Bearer {token}"})
    board.get("/api/account")
    httpx.Client(base_url=club.url).post("/login", data={"name": "alice",
                                                         "password": "wrong-" + PASSWORD})
    session = browser.cookies["fb_session"]
    csrf = _csrf(browser.get("/"))
    secrets = [PASSWORD, token, session, csrf, club.server.store.account("alice").password_hash]
    # the server's own logs (the test's HTTP client logs the cookies it receives)
    logged = "\n".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records
                       if not r.name.startswith(("httpx", "httpcore")))
    assert "account created" in logged and "board token issued" in logged
    for secret in secrets:
        assert secret not in logged
    database = b"".join(p.read_bytes() for p in tmp_path.glob("server.sqlite3*"))
    for secret in (PASSWORD, token, session):
        assert secret.encode() not in database


def test_the_rate_limit_forgets_what_has_passed(tmp_path):
    now = [0.0]  # a quick hasher: 51 slow argon2 hashes prove nothing more here
    accounts = Accounts(open_store(str(tmp_path / "s.sqlite3")), FAST_HASHER,
                        clock=lambda: now[0])
    for i in range(50):
        with pytest.raises(ValueError):
            accounts.log_in(f"guess{i}", "nope-nope", f"10.0.{i}.1")
    assert len(accounts._failures) == 100
    now[0] = 61.0
    with pytest.raises(ValueError):
        accounts.log_in("guess0", "nope-nope", "10.0.0.1")
    assert len(accounts._failures) == 2  # the passed windows forgotten


def test_a_login_being_hashed_holds_up_no_game(club):
    """The password hash (argon2: tens of milliseconds by design, here held until the test
    lets it go) runs off the event loop: a game is played meanwhile."""
    import threading

    from tests.support.clubserver import challenge_game

    _sign_up(club, "alice").close()
    gid, api_b, api_c = challenge_game(club, club.player("bob"), club.player("carol"))
    entered, release = threading.Event(), threading.Event()
    real = club.server.accounts.hasher

    class SlowHasher:
        def verify(self, stored: str, password: str) -> bool:
            entered.set()
            release.wait(30)
            return real.verify(stored, password)

        def hash(self, password: str) -> str:
            return real.hash(password)

    club.server.accounts.hasher = SlowHasher()
    browser = httpx.Client(base_url=club.url, timeout=30)
    token = _csrf(browser.get("/"))
    answers = []
    login = threading.Thread(target=lambda: answers.append(browser.post("/login", data={
        "name": "alice", "password": PASSWORD, "csrf": token})), daemon=True)
    login.start()
    try:
        assert entered.wait(10)
        api_b.move(gid, "e2e4")  # answered while the login's hash is being made
        api_c.move(gid, "e7e5")
    finally:
        release.set()
        login.join(10)
    assert answers[0].status_code == 303 and "fb_session" in answers[0].cookies
    assert club.server.store.moves(gid) == ["e2e4", "e7e5"]
    browser.close()
