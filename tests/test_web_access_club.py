"""The club's pages for a player who cannot see them, in real Chromium: the linked boards'
club view (``/club``, a board's spectators' page) with a linked game played to its end on
it (from the keyboard, on both boards), and the
fairyboard server's own pages (sign-up, lobby, board tokens, a game's play page) — axe-core
finds nothing serious or critical on any of them; the club view in German leaves no
English text but names and notation."""

from __future__ import annotations

import contextlib
import threading

import pytest

from controller.i18n import catalogue
from tests.support.access import axe_or_skip, axe_problems, wait_until
from tests.support.broker import Broker
from tests.support.clubserver import ClubServer
from tests.support.linkpages import link_config
from tests.support.webtools import (
    api_json,
    playwright_or_skip,
    running_service,
)
from tests.test_web_languages import TOFU, VISIBLE_TEXTS

sync_api = playwright_or_skip()


@pytest.fixture(scope="module")
def browser(browser):
    """The module's Chromium (``tests/conftest.py``), once axe-core is there to inject."""
    axe_or_skip()
    return browser


@contextlib.contextmanager
def _tab(browser):
    # (the server's pages forbid inline scripts: axe-core is injected past their policy)
    context = browser.new_context(viewport={"width": 1280, "height": 860}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield page
    finally:
        context.close()
    assert errors == [], errors


def _club_texts(page, code):
    """Choose ``code`` on the club page (it reloads) and read what it shows."""
    page.select_option("#language", code)
    page.wait_for_function("(code) => document.documentElement"
                           " && document.documentElement.dataset.texts === code",
                           arg=code, timeout=15_000)
    page.wait_for_selector(".club-game .club-result", timeout=15_000)
    return page.evaluate(VISIBLE_TEXTS)


def _phase(page, url):
    return api_json(page, f"{url}/api/state")["phase"]


def _play_fools_mate(page, alpha, beta):
    """The linked game to its end from the keyboard: each move typed on its player's board,
    then typed again on the other board, which shows it to be made."""
    for url in (alpha, beta):
        wait_until(lambda u=url: api_json(page, f"{u}/api/state")["game"]["name"]
                   == "chess" and _phase(page, u) == "setup", "the linked game on each board")
        assert page.request.post(f"{url}/api/sim", data={"action": "arrange"}).ok
    for ply, text in enumerate(["f3", "e5", "g4", "Qh4#"], start=1):
        here, there = (alpha, beta) if ply % 2 else (beta, alpha)
        for url, phase in ((here, "turn"), (there, "execute")):
            wait_until(lambda u=url, p=phase: _phase(page, u) == p,  # noqa: B023
                       lambda u=url, p=phase: f"{u}: {p}, not {_phase(page, u)}")  # noqa: B023
            r = page.request.post(f"{url}/api/access/move", data={"text": text})
            assert r.ok and r.json()["ok"], r.text()
            wait_until(lambda u=url, n=ply: len(  # noqa: B023
                api_json(page, f"{u}/api/state")["moves"]) == n, f"{text} made")


def test_the_club_view_of_a_linked_game_is_axe_clean_and_german(tmp_path_factory, browser):
    folder = tmp_path_factory.mktemp("club")
    for name in ("broker", "alpha", "beta"):
        (folder / name).mkdir()
    broker = Broker(folder / "broker").start()
    try:
        with running_service(folder / "alpha", link_config("alpha", broker.port)) as url, \
                running_service(folder / "beta", link_config("beta", broker.port)) as other, \
                _tab(browser) as page:
            url, other = url.rstrip("/"), other.rstrip("/")
            page.goto(url + "/")
            wait_until(lambda: (api_json(page, f"{url}/api/state").get("link")
                                or {}).get("connected"), "alpha on the broker")
            r = page.request.post(f"{url}/api/new-game",
                                  data={"game": "chess", "remote": {"1": "beta"}})
            assert r.ok and r.json()["ok"], r.text()
            _play_fools_mate(page, url, other)
            wait_until(lambda: any(g["result"] for g in
                                   api_json(page, f"{url}/api/club")["games"]),
                       "the linked game's end in the club")
            page.goto(url + "/club")  # (in the board's language: English)
            page.wait_for_selector(".club-game .club-result", timeout=15_000)
            assert axe_problems(page, "the club view") == []
            english = {run["text"] for run in page.evaluate(VISIBLE_TEXTS)}
            assert "The club's games" in english, english
            runs = _club_texts(page, "de")
            texts = {run["text"] for run in runs}
            assert page.evaluate(TOFU, runs) == []
            cat = catalogue("de")
            same = {m for m, s in cat.items() if m == s}
            (shown,) = api_json(page, f"{url}/api/club")["games"]
            notation = " ".join(shown["moves"])  # (the moves are notation in every language)
            assert shown["result"] == "0-1" and notation in english
            left = sorted(t for t in texts & english if t not in same
                          and any(c.isalpha() for c in t) and t not in ("fairyboard", notation))
            assert left == [], left
            assert cat["The club's games"] in texts
            assert axe_problems(page, "the club view in German") == []
    finally:
        broker.stop()


def test_the_servers_pages_are_axe_clean(tmp_path_factory, browser):
    club = ClubServer(tmp_path_factory.mktemp("server")).start()
    try:
        _, token = club.player("bob")
        board = club.client(token)
        with _tab(browser) as page:
            page.goto(club.url)
            problems = axe_problems(page, "the server's home page")
            signup = page.locator("form[action='/signup']")
            signup.locator("input[name=name]").fill("carol")
            signup.locator("input[name=password]").fill("a long password")
            signup.locator("button").click()
            sync_api.expect(page.locator("body")).to_contain_text("Logged in as carol")
            problems += axe_problems(page, "the lobby")
            page.goto(club.url + "/devices")
            problems += axe_problems(page, "the board tokens")
            page.goto(club.url)
            page.select_option("select[name=variant]", "chess")
            page.get_by_role("button", name="Seek", exact=True).click()
            sync_api.expect(page.locator("body")).to_contain_text("carol")
            found: list[str] = []

            def seek() -> None:
                for line in board.seek(10, 5):
                    if "gameId" in line:
                        found.append(line["gameId"])
                        return
            waiting = threading.Thread(target=seek, daemon=True)
            waiting.start()
            waiting.join(10)
            assert found, "the board's seek met no one"
            page.wait_for_url(f"**/play/{found[0]}", timeout=10_000)  # the lobby opens it
            page.wait_for_selector("#status:not(:empty)", timeout=10_000)
            problems += axe_problems(page, "the play page")
            assert problems == []
    finally:
        club.stop()
