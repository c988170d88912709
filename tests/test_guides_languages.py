"""The players' guides in the product's six languages (issue 34): every translation of
``docs/rules/GAME.md`` has the English guide's sections, figures, tables and example
moves (notation is never translated); ``/guide/GAME`` serves it by ``?lang=`` or the
browser's Accept-Language, and English with a one-line note when a guide is missing in
the language asked for; Chinese is drawn with a CJK font in real Chromium."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
from markdown_it import MarkdownIt

from controller.i18n import render
from controller.web import guides
from controller.web.guides import LANGUAGES, guide_html, reader_language

RULES = Path(__file__).resolve().parent.parent / "docs" / "rules"
GAMES = ("README", "chess", "laotzu", "luotuoqi", "gnuqi", "kaleidochess", "lotus39")
#: the guides translated so far, in the order of the task (issue 34 part C)
TRANSLATED = GAMES
OTHER = [lang for lang in LANGUAGES if lang != "en"]


def _shape(text: str) -> dict[str, object]:
    """What a translation must keep: heading levels in order, figures, table rows, list
    items, paragraphs, links' targets, the multiset of code spans (the example moves) and
    how many things are in bold and in italics.
    A translator's note (an HTML comment at the top) is not part of the guide."""
    text = re.sub(r"\A\s*<!--.*?-->\s*", "", text, flags=re.S)
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    inline = [child for token in tokens if token.type == "inline"
              for child in token.children or []]
    return {
        "headings": [token.tag for token in tokens if token.type == "heading_open"],
        "figures": [child.attrs["src"].removeprefix("../") for child in inline
                    if child.type == "image"],
        "table rows": sum(token.type == "tr_open" for token in tokens),
        "list items": sum(token.type == "list_item_open" for token in tokens),
        "paragraphs": sum(token.type == "paragraph_open" for token in tokens),
        "links": [re.sub(r"^(\.\./)+", "", str(child.attrs["href"])) for child in inline
                  if child.type == "link_open"],
        "code": Counter(child.content for child in inline if child.type == "code_inline"),
        "bold, italic": (sum(child.type == "strong_open" for child in inline),
                         sum(child.type == "em_open" for child in inline)),
    }


@pytest.mark.parametrize("lang", OTHER)
@pytest.mark.parametrize("game", TRANSLATED)
def test_each_translation_has_the_english_guides_shape(game: str, lang: str) -> None:
    english = _shape((RULES / f"{game}.md").read_text(encoding="utf-8"))
    path = RULES / lang / f"{game}.md"
    assert path.is_file(), f"{path} is missing"
    translated = _shape(path.read_text(encoding="utf-8"))
    for key, value in english.items():
        assert translated[key] == value, f"{lang}/{game}.md: {key}"


@pytest.mark.parametrize("lang", OTHER)
def test_every_translation_is_of_a_guide_and_its_figures_exist(lang: str) -> None:
    """No stray file in a language folder, and each figure is one of the shared images."""
    assert sorted(p.stem for p in (RULES / lang).glob("*.md")) == sorted(TRANSLATED)
    for path in (RULES / lang).glob("*.md"):
        for src in _shape(path.read_text(encoding="utf-8"))["figures"]:  # type: ignore[union-attr]
            assert (RULES / src).is_file(), (path, src)


def test_a_translation_is_not_the_english_text() -> None:
    """A translated paragraph differs from the English one (no copy passed off as done)."""
    for game in TRANSLATED:
        english = set((RULES / f"{game}.md").read_text(encoding="utf-8").split("\n\n"))
        for lang in OTHER:
            paragraphs = (RULES / lang / f"{game}.md").read_text(encoding="utf-8").split("\n\n")
            prose = [p for p in paragraphs if not p.startswith(("!", "|", "<!--"))]
            same = [p for p in prose if p in english]
            assert len(same) <= 1, (lang, game, same)  # (a title may stay a name)


def test_the_reader_language_comes_from_the_query_or_the_browser() -> None:
    assert reader_language("de", "fr") == ("de", None)
    assert reader_language(None, "fr-CH, fr;q=0.9, en;q=0.8") == ("fr", None)
    assert reader_language(None, "ja, zh-CN;q=0.7, it;q=0.5") == ("zh", None)
    assert reader_language(None, "en;q=0.2, es;q=0.9") == ("es", None)
    assert reader_language(None, "it;q=0, de") == ("de", None)
    assert reader_language(None, "ja, ko") == ("en", None)
    assert reader_language(None, None) == ("en", None)
    assert reader_language("", "it") == reader_language(" ", "it") == ("it", None)
    assert reader_language("ZH", None) == ("zh", None)
    assert reader_language(None, "de;q=x, ;;,,") == ("en", None)
    lang, note = reader_language("klingon", "de")
    assert lang == "en" and note and "'klingon'" in note and "zh" in note


@pytest.mark.parametrize("lang", OTHER)
def test_the_page_serves_each_guide_in_each_language(client, lang: str) -> None:
    from controller.rules import GAMES as REGISTRY

    for game in TRANSLATED:
        if game not in REGISTRY:
            continue
        text = (RULES / lang / f"{game}.md").read_text(encoding="utf-8")
        heading = re.search(r"^# (.+)$", text, re.M)
        assert heading, game
        for got in (client.get(f"/guide/{game}?lang={lang}"),
                    client.get(f"/guide/{game}", headers={"Accept-Language": lang})):
            assert got.status_code == 200, got.text
            assert "Accept-Language" in got.headers["vary"]  # (a cache keeps one per language)
            assert f'<html lang="{lang}">' in got.text
            back = render(guides.BACK, lang)
            assert back in got.text and back != "back to the board"
            assert heading.group(1).split("*")[0].strip()[:12] in got.text, (game, lang)
            assert 'src="images/' in got.text and "../images" not in got.text
        english = client.get(f"/guide/{game}")
        assert '<html lang="en">' in english.text and heading.group(1) not in english.text


def test_an_unknown_language_is_english_with_one_line_saying_so(client) -> None:
    got = client.get("/guide/chess?lang=" + "x" * 300)
    assert got.status_code == 200 and '<html lang="en">' in got.text
    assert got.text.count('class="note"') == 1 and "known: en, de, fr, es, it, zh" in got.text


def test_a_guide_not_yet_translated_falls_back_to_english_with_a_note(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "de").mkdir()
    (tmp_path / "chess.md").write_text("# Chess\n\nKing one square.\n", encoding="utf-8")
    (tmp_path / "gnuqi.md").write_text("# Gnu Qi\n\nThe Gnu leaps.\n", encoding="utf-8")
    (tmp_path / "de" / "chess.md").write_text("# Schach\n\n![x](../images/a.svg)\n",
                                              encoding="utf-8")
    monkeypatch.setattr(guides, "guides_dir", lambda: tmp_path)
    german = guide_html("chess", "Chess", "de")
    assert german and "Schach" in german and 'src="images/a.svg"' in german
    assert 'class="note"' not in german
    missing = guide_html("gnuqi", "Gnu Qi", "de")
    assert missing and "The Gnu leaps." in missing and '<html lang="en">' in missing
    assert missing.count('class="note"') == 1 and "noch nicht auf Deutsch" in missing
    assert guide_html("nothing", "Nothing", "de") is None


#: marks each element whose own text has Han characters with their number
MARK_HAN = """() => { let total = 0;
  for (const el of document.body.querySelectorAll("*")) {
    let own = 0;
    for (const n of el.childNodes)
      if (n.nodeType === 3) own += (n.data.match(/[\\u4e00-\\u9fff]/g) || []).length;
    if (own) { el.dataset.han = own; total += own; }
  }
  return total; }"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any, str]]:
    """The service as a real process and a Chromium: (Playwright's API, browser, URL)."""
    from tests.support.webtools import chromium, playwright_or_skip, running_service

    sync_api = playwright_or_skip()
    with running_service(tmp_path_factory.mktemp("guides")) as url, \
            chromium(sync_api) as browser:
        yield sync_api, browser, url


def test_the_chinese_guides_are_drawn_with_a_cjk_font_not_boxes(served) -> None:
    """Every Han character of each Chinese guide is a glyph of a CJK font (Chromium names
    the fonts it drew an element's own text with; without one they are DejaVu's boxes)."""
    _, browser, url = served
    page = browser.new_page()
    cdp = page.context.new_cdp_session(page)
    for game in [game for game in TRANSLATED if game != "README"]:
        page.goto(urljoin(url, f"/guide/{game}?lang=zh"))
        han = page.evaluate(MARK_HAN)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        nodes = cdp.send("DOM.querySelectorAll",
                         {"nodeId": root, "selector": "[data-han]"})["nodeIds"]
        cjk = 0
        for node in nodes:
            for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]:
                if "CJK" in font["familyName"] + font.get("postScriptName", ""):
                    cjk += font["glyphCount"]
        assert han > 100 and cjk >= han, (game, han, cjk)
    page.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_emphasis_is_left_as_asterisks(lang: str) -> None:
    """CommonMark does not close ``**…：**`` before a Han character (a full-width colon
    or quote inside the bold): the page showed the asterisks."""
    for game in TRANSLATED:
        if game == "README":
            continue
        page = guide_html(game, game, lang)
        assert page is not None
        text = re.sub(r"<code>.*?</code>", "", page.split("<body>", 1)[1], flags=re.S)
        assert re.findall(r".{0,20}\*.{0,20}", text) == [], (lang, game)


def test_the_pages_guide_link_asks_for_the_pages_language(served) -> None:
    """The page's "How to play" link carries the page's language (static/guidelang.js
    reads ``window.fairyboardLanguage``, static/i18n.js: the reader's choice, else the
    board's language); the link then opens the guide in it."""
    sync_api, browser, url = served
    for lang in (None, "de", "zh"):
        context = browser.new_context()
        if lang:  # the reader's choice on the Language selector, kept in the browser
            context.add_init_script(f"localStorage.setItem('fairyboard-language', {lang!r});")
        page = context.new_page()
        page.goto(url)
        sync_api.expect(page.locator("#connection.live")).to_be_visible(timeout=10_000)
        want = f"/guide/luotuoqi?lang={lang or 'en'}"
        sync_api.expect(page.locator("#guide-link")).to_have_attribute("href", want)
        got = page.request.get(urljoin(url, want))
        assert got.ok and f'<html lang="{lang or "en"}">' in got.text()
        context.close()
