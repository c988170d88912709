"""The page in real Chromium in every language (issue 34): chosen on the page and kept in
the browser, every visible text in that language — no English left but names and
notation — and no character drawn as a missing glyph (a "tofu" box)."""

from __future__ import annotations

import pytest

from controller.i18n import LANGUAGES, catalogue
from tests.support.webtools import chromium, playwright_or_skip, running_service

#: the visible text runs outside the board drawing (the board's cell names are names)
VISIBLE_TEXTS = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const e = n.parentElement, text = n.data.replace(/\\s+/g, " ").trim();
    if (!text || !e || e.closest("svg, script, style")) continue;
    const r = e.getBoundingClientRect(), style = getComputedStyle(e);
    if (!r.width || !r.height || style.visibility === "hidden") continue;
    out.push({ text, font: style.font });
  }
  for (const e of document.querySelectorAll("[title], [placeholder], [aria-label]")) {
    for (const a of ["title", "placeholder", "aria-label"]) {
      if (e.getAttribute(a)) out.push({ text: e.getAttribute(a), font: getComputedStyle(e).font });
    }
  }
  return out;
}"""

#: the characters of ``runs`` drawn in their element's font that look exactly like a
#: character no font has (U+10FFFD, a private-use code point): missing glyphs
TOFU = """(runs) => {
  const canvas = document.createElement("canvas");
  canvas.width = 64; canvas.height = 64;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  const picture = (ch, font) => {
    ctx.clearRect(0, 0, 64, 64); ctx.font = font; ctx.fillStyle = "#000";
    ctx.fillText(ch, 4, 44);
    return ctx.measureText(ch).width + ":" + ctx.getImageData(0, 0, 64, 64).data.join("");
  };
  const missing = new Set();
  for (const { text, font } of runs) {
    const small = font.replace(/\\d+(\\.\\d+)?px/, "32px");
    const tofu = picture("\\u{10FFFD}", small);
    for (const ch of new Set(text)) {
      if (ch.trim() && picture(ch, small) === tofu) missing.add(ch);
    }
  }
  return [...missing];
}"""


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    sync_api = playwright_or_skip()
    with running_service(tmp_path_factory.mktemp("languages")) as url, \
            chromium(sync_api) as browser:
        tab = browser.new_page(viewport={"width": 1280, "height": 1400})
        errors: list[str] = []
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.goto(url)
        tab.wait_for_selector("#turn-text:not(:empty)", timeout=15_000)
        tab.click("#tutorial-start")  # the guided first game's steps are shown too
        tab.wait_for_selector("#tutorial-steps li")
        yield tab
        assert errors == [], errors


def shown(tab, code: str) -> list[dict]:
    """Choose ``code`` on the page's selector (it reloads) and read what it shows."""
    tab.select_option("#language", code)
    # (while the page reloads there may be no document element yet)
    tab.wait_for_function("(code) => document.documentElement"
                          " && document.documentElement.dataset.texts === code",
                          arg=code, timeout=15_000)
    tab.wait_for_selector("#turn-text:not(:empty)", timeout=15_000)
    tab.evaluate("() => document.querySelectorAll('details').forEach((d) => d.open = true)")
    tab.wait_for_function("() => document.querySelectorAll('#legend span').length > 2")
    tab.wait_for_selector("#tutorial-steps li")
    # the sections drawn when opened: the settings, the game archive and a game's review
    tab.wait_for_selector("#settings-form .setting")
    tab.wait_for_selector("#archive-list tbody tr button.review")
    tab.click("#archive-list tbody tr button.review")
    tab.wait_for_selector("#review:not([hidden]) #review-status:not(:empty)")
    tab.wait_for_function("() => !document.getElementById('review-status').textContent"
                          ".endsWith('…')")
    return tab.evaluate(VISIBLE_TEXTS)


def test_the_tofu_check_can_fail(page):
    font = page.evaluate("() => getComputedStyle(document.body).font")
    assert page.evaluate(TOFU, [{"text": "\U0010fffd\U0010fffc", "font": font}])
    assert page.evaluate(TOFU, [{"text": "Schach 将死", "font": font}]) == []


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_the_page_in_each_language(page, code):
    english = {run["text"] for run in shown(page, "en")}
    assert "Keep playing" in page.content() and "LED colours" in english
    runs = shown(page, code)
    texts = {run["text"] for run in runs}
    assert page.evaluate("() => localStorage.getItem('fairyboard-language')") == code
    assert page.evaluate("() => document.documentElement.lang").startswith(code)
    assert page.evaluate(TOFU, runs) == [], code
    if code == "en":
        return
    cat = catalogue(code)
    # a text the English page shows is shown unchanged only when it is a name or
    # notation: its translation is itself, or it holds no word of the catalogue at all
    same = {m for m, s in cat.items() if m == s}
    left = sorted(t for t in texts & english if t not in same and any(
        c.isalpha() for c in t) and t not in LANGUAGES.values() and t != "fairyboard"
        and not t.startswith("#") and len(t) > 1)  # (a swatch's colour, a piece letter)
    assert left == [], (code, left)
    assert cat["LED colours"] in texts and cat["Waiting for a move"] not in english
    # the board drawing's pads with a value ("option 1") in the page's language too
    pads = page.evaluate("() => [...document.querySelectorAll('.pad-name')]"
                         ".map((e) => e.textContent)")
    assert cat["option {n}"].format(n=1) in pads, pads
    assert cat["option {n}"] == "option {n}" or "option 1" not in pads, pads  # (French: same)
    assert any(t.startswith(cat["Put every piece on its starting cell. On the simulated board: "
                                "press “Arrange the pieces”. On a real board: the red cells "
                                "want a piece."][:12]) for t in texts)
