"""The fairyboard server's pages in their reader's language, in real Chromium: a German
browser (its Accept-Language) is shown the login, the lobby and the play page in German,
its scripts' words too (the status, a refused move's line from the server's API); the
language menu switches the pages to English and to Chinese (kept in the ``lang`` cookie);
no English word is left on them outside names and notation, the Chinese is drawn (no
missing glyph), and the German lobby is axe-clean.  One server and one browser for the
module."""

from __future__ import annotations

import re
import threading

import pytest

from controller.i18n import LANGUAGES, catalogue
from controller.rules import GAMES
from tests.support.access import axe_or_skip, axe_problems
from tests.support.clubserver import ClubServer
from tests.support.webtools import playwright_or_skip
from tests.test_web_languages import TOFU

sync_api = playwright_or_skip()
PASSWORD = "correct horse"

#: the texts a person reads (names and notation left out: the players, the moves, the
#: position as text, a board's token)
READ_TEXTS = """() => {
  const out = [];
  const skip = "svg, script, style, code, #players, #moves, #position, .token";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const e = n.parentElement, text = n.data.replace(/\\s+/g, " ").trim();
    if (!text || !e || e.closest(skip)) continue;
    const r = e.getBoundingClientRect(), style = getComputedStyle(e);
    if (!r.width || !r.height || style.visibility === "hidden") continue;
    out.push({ text, font: style.font });
  }
  for (const e of document.querySelectorAll("[placeholder], [aria-label], [title]")) {
    if (e.closest(skip)) continue;
    for (const a of ["title", "placeholder", "aria-label"]) {
      if (e.getAttribute(a)) out.push({ text: e.getAttribute(a), font: getComputedStyle(e).font });
    }
  }
  out.push({ text: document.title, font: "16px sans-serif" });
  return out;
}"""


def _names() -> set[str]:
    """Words that are names in every language: the games' titles as each catalogue has
    them, the languages' own names, the product, the players and the options' values."""
    words = {"fairyboard", "anna", "bob", "chess960", "chess480"}
    for cls in GAMES.values():
        for code in LANGUAGES:
            words |= set(_words(catalogue(code).get(cls.title, cls.title)))
    for name, _voice in LANGUAGES.values():
        words |= set(_words(name))
    return words


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-zÀ-ÿ]{2,}", text)


def _read(page) -> list[dict]:
    return page.evaluate(READ_TEXTS)


def _english_left(translated: list[dict], english: list[dict]) -> set[str]:
    """The words of the English page still on the translated one (names aside)."""
    said = {w for run in english for w in _words(run["text"])}
    return {w for run in translated for w in _words(run["text"])} & said - _names()


def _latin_left(runs: list[dict]) -> set[str]:
    """Latin words on a Chinese page that are not names."""
    return {w for run in runs for w in _words(run["text"])} - _names()


def _choose(page, name: str, code: str) -> None:
    """The language menu's link for ``code`` (named ``name``); the page comes back in it."""
    page.locator("nav.languages a", has_text=name).click()
    # (between the two pages there is no document element: the check waits for it)
    page.wait_for_function("(code) => document.documentElement"
                           " && document.documentElement.lang.startsWith(code)", arg=code)
    page.wait_for_load_state()


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    server = ClubServer(tmp_path_factory.mktemp("club")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser(browser):
    """The module's Chromium (``tests/conftest.py``), once axe-core is there to inject."""
    axe_or_skip()
    return browser


@pytest.fixture(scope="module")
def anna(browser, club):
    """A German reader (her browser's Accept-Language), logged in from the German home
    page; axe is injected past the server's script policy."""
    club.player("anna", PASSWORD)
    context = browser.new_context(locale="de-DE", bypass_csp=True,
                                  viewport={"width": 1280, "height": 860})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(club.url)
    assert page.locator("html").get_attribute("lang") == "de"
    login = page.locator("form[action='/login']")
    login.locator("input[name=name]").fill("anna")
    login.locator("input[name=password]").fill(PASSWORD)
    login.get_by_role("button", name="Anmelden").click()
    page.locator("text=Angemeldet als").wait_for()
    yield page
    context.close()
    assert errors == [], errors


def test_the_lobby_in_german_english_and_chinese(anna, club):
    german = _read(anna)
    assert any(run["text"] == "Offene Gesuche" for run in german)
    assert axe_problems(anna, "the German lobby") == []
    _choose(anna, "English", "en")
    english = _read(anna)
    assert any(run["text"] == "Open seeks" for run in english)
    assert _english_left(german, english) == set()
    _choose(anna, "中文", "zh")
    chinese = _read(anna)
    assert any(run["text"] == "公开的约战" for run in chinese)
    assert _latin_left(chinese) == set()
    assert anna.evaluate(TOFU, chinese) == []
    _choose(anna, "Deutsch", "de")
    assert anna.locator("h1").inner_text() == "Spielsaal"


def test_the_play_page_in_german_english_and_chinese(anna, club):
    _, token = club.player("bob", PASSWORD)
    bob = club.client(token)
    anna.goto(club.url)
    anna.select_option("select[name=variant]", "chess")
    anna.select_option("select[name=color]", "black")
    anna.get_by_role("button", name="Gegner suchen", exact=True).click()
    anna.locator("#seeks tr", has_text="anna").wait_for()
    found: list[str] = []

    def seek() -> None:
        for line in bob.seek(10, 5):
            if "gameId" in line:
                found.append(line["gameId"])
                return
    waiting = threading.Thread(target=seek, daemon=True)
    waiting.start()
    waiting.join(10)
    assert found, "bob's seek met no one"
    anna.wait_for_url(f"**/play/{found[0]}", timeout=10_000)  # the lobby opens it
    status = anna.locator("#status")
    sync_api.expect(status).to_contain_text("warte auf deinen Zug")  # bob (White) is to move
    # a move refused by the server's API: its line in the page's language
    anna.locator("#move input[name=move]").fill("e5")
    anna.get_by_role("button", name="Ziehen", exact=True).click()
    sync_api.expect(anna.locator("#problem")).to_have_text("du bist nicht am Zug")
    german = _read(anna)
    _choose(anna, "English", "en")
    sync_api.expect(status).to_contain_text("waiting")
    english = _read(anna)
    assert _english_left(german, english) == set()
    _choose(anna, "中文", "zh")
    sync_api.expect(status).to_contain_text("等待轮到你")
    anna.locator("#board[data-ply='0']").wait_for(state="attached")
    chinese = _read(anna)
    assert _latin_left(chinese) == set()
    assert anna.evaluate(TOFU, chinese) == []
    _choose(anna, "Deutsch", "de")


def _get(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    """One GET without following a redirect: (status, headers, body)."""
    import urllib.error
    import urllib.request

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None
    opener = urllib.request.build_opener(Stay)
    try:
        with opener.open(urllib.request.Request(url, headers=headers), timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def test_an_api_error_is_in_the_pages_language_and_a_boards_in_english(club):
    url = f"{club.url}/api/account"
    assert _get(url, {"Cookie": "lang=de"})[2] == '{"error":"Dieses Token gibt es nicht"}'
    assert _get(url, {"Accept-Language": "zh-CN,zh;q=0.9"})[2] == '{"error":"没有这个令牌"}'
    assert _get(url, {"Accept-Language": "nl, en;q=0.5"})[2] == '{"error":"No such token"}'
    # a board (its token) reads English, whatever the header says
    board = {"Authorization": "Bearer fbd_nothing", "Accept-Language": "de"}
    assert _get(url, board)[2] == '{"error":"No such token"}'


def test_the_language_menu_keeps_a_known_language_and_stays_on_this_server(club):
    status, headers, _ = _get(f"{club.url}/lang/it?back=/devices", {})
    assert status == 303 and headers["location"] == "/devices"
    assert headers["set-cookie"].startswith("lang=it;")
    for away in ("//example.org/", "https://example.org/", "/\\example.org"):
        status, headers, _ = _get(f"{club.url}/lang/fr?back={away}", {})
        assert status == 303 and headers["location"] == "/", away
    status, headers, body = _get(f"{club.url}/lang/xx", {"Accept-Language": "de"})
    assert status == 404 and "Diese Sprache gibt es nicht" in body
    assert "set-cookie" not in {k.lower() for k in headers}


def test_a_refusal_with_values_is_said_in_the_pages_language(club):
    """The server's refusals that carry a value (a taken name, a password's length) keep
    the value and say the words in the reader's language (they were English in all)."""
    import re

    import httpx

    club.player("berta", PASSWORD)
    browser = httpx.Client(base_url=club.url, cookies={"lang": "de"})
    csrf = re.search(r"name=csrf value='([^']+)'", browser.get("/").text).group(1)
    taken = browser.post("/signup", data={"name": "berta", "password": PASSWORD,
                                          "csrf": csrf})
    assert "der Name berta ist vergeben" in taken.text
    csrf = re.search(r"name=csrf value='([^']+)'", taken.text).group(1)
    short = browser.post("/signup", data={"name": "carla", "password": "x", "csrf": csrf})
    assert "ein Passwort hat 8 bis 256 Zeichen" in short.text
