"""The archive, the review and the settings on the page in a real browser (Debian's
Chromium driven by Playwright) against ``fairyboard run``: a short game played by dragging
pieces ends in mate; the review's graph appears with the losing move marked, and clicking
it shows the better move on the board drawing; the archive lists the game, downloads its
PGN (python-chess reads it back) and replays it move by move; a setting is saved to the
configuration file and a bad one is shown at its field, the file unchanged."""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

import pytest

from tests.support.webtools import CHROMIUM, browser_page, running_service

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
chess_pgn = pytest.importorskip("chess.pgn")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)",
                allow_module_level=True)

FOOLS = [("f2", "f3", "f3"), ("e7", "e5", "e5"), ("g2", "g4", "g4"), ("d8", "h4", "Qh4#")]


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    folder = tmp_path_factory.mktemp("archive")
    with running_service(folder, "[board]\nlayout = 'square8'\ngame = 'chess'\n"
                                 "computer_level = 6\n") as url:
        yield url, folder


@pytest.fixture(scope="module")
def page(service):
    url, _ = service
    with browser_page(sync_api, url) as page:
        yield page


def centre(page, spot: str) -> tuple[float, float]:
    box = page.locator(f"#board [data-name='{spot}']").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page, a: str, b: str) -> None:
    page.mouse.move(*centre(page, a))
    page.mouse.down()
    x, y = centre(page, b)
    page.mouse.move(x, y, steps=8)
    page.mouse.up()


def piece_on(page, spot: str) -> str | None:
    """The piece the board drawing shows on ``spot`` ("Black Q…"), from its title."""
    titles = page.evaluate("[...document.querySelectorAll('#board .pieces title')]"
                           ".map(t => t.textContent)")
    return next((t.split(": ", 1)[1] for t in titles if t.startswith(f"{spot}: ")), None)


def test_a_short_game_is_reviewed_listed_downloaded_and_replayed(page, service):
    expect = sync_api.expect
    page.locator("#arrange").click()
    expect(page.locator("#phase")).to_have_text("Waiting for a move", timeout=5000)
    for k, (a, b, text) in enumerate(FOOLS, start=1):
        drag(page, a, b)
        page.wait_for_function("n => document.querySelectorAll('#moves li').length >= n",
                               arg=k, timeout=5000)
        assert page.locator("#moves li span:last-child").all_inner_texts()[-1] == text

    # the review: the graph over the game, g4 (ply 3) marked as the move allowing mate
    review = page.locator("#review")
    expect(review).to_be_visible(timeout=5000)
    mark = page.locator("#review-graph .mistake[data-ply='3']")
    try:
        mark.wait_for(timeout=60_000)
    except sync_api.TimeoutError:
        pytest.fail(f"no graph: {page.locator('#review-status').inner_text()!r}; "
                    f"log: {(service[1] / 'service.log').read_text()[-3000:]}")
    assert page.locator("#review-graph svg polyline.curve").count() == 1
    assert "g4 allows mate in 1" in page.locator("#review-mistakes").inner_text()
    mark.click()
    expect(page.locator("#review-shown")).to_contain_text("g4 allows mate in 1")
    assert page.locator("#board .shown-mark").count() >= 1  # the better move, marked
    page.screenshot(path=str(service[1] / "review.png"), full_page=True)
    assert "White" in (piece_on(page, "g2") or "")
    assert piece_on(page, "h4") is None  # the position before g4: no Queen on h4 yet
    page.locator("#review-live").click()
    expect(page.locator("#board .shown-mark")).to_have_count(0)
    assert "Black" in (piece_on(page, "h4") or "")  # the live board again
    url, _ = service
    image = page.request.get(url.rstrip("/") + page.locator("#review-image").get_attribute("href"))
    assert image.ok and image.headers["content-type"].startswith("image/svg+xml")
    assert 'data-ply="3"' in image.text()

    # the archive: the game listed with its players, result and moves
    page.locator("#archive summary").click()
    row = page.locator("#archive-list tr.live")
    expect(row).to_contain_text("0-1", timeout=5000)
    expect(row).to_contain_text("4 plies")
    expect(row).to_contain_text("White – Black")
    with page.expect_download() as info:
        row.locator("a.pgn").click()
    text = Path(info.value.path()).read_text(encoding="utf-8")
    game = chess_pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    board = game.board()
    sans = []
    for move in game.mainline_moves():
        sans.append(board.san(move))
        board.push(move)
    assert sans == [t for _, _, t in FOOLS] and game.headers["Result"] == "0-1"

    # replay: from the end back to the start and on, the board drawing follows
    row.locator("button.replay").click()
    expect(page.locator("#replay-ply")).to_contain_text("ply 4 of 4")
    assert "Black" in (piece_on(page, "h4") or "")
    page.locator("#replay-first").click()
    expect(page.locator("#replay-ply")).to_contain_text("start")
    assert piece_on(page, "h4") is None and "Black" in (piece_on(page, "d8") or "")
    assert "White" in (piece_on(page, "g2") or "")
    page.locator("#replay-next").click()
    page.locator("#replay-next").click()
    page.locator("#replay-next").click()
    expect(page.locator("#replay-ply")).to_contain_text("ply 3 of 4: White g4")
    assert piece_on(page, "g2") is None and "White" in (piece_on(page, "g4") or "")
    page.locator("#replay-live").click()
    assert "Black" in (piece_on(page, "h4") or "")


def test_a_setting_is_saved_and_a_bad_one_shown_at_its_field(page, service):
    expect = sync_api.expect
    _, folder = service
    config = folder / "config.toml"
    page.locator("#settings summary").click()
    level = page.locator("#settings-form input[data-key='board.computer_level']")
    expect(level).to_have_value("6", timeout=5000)
    expect(page.locator(".setting[data-key='leds.brightness'] .applies")).to_have_text(
        "after the board restarts")
    level.fill("3")
    page.locator("#settings-save").click()
    expect(page.locator("#toast")).to_contain_text("Saved")
    assert tomllib.loads(config.read_text())["board"]["computer_level"] == 3
    before = config.read_bytes()
    page.locator("#settings-form input[data-key='leds.brightness']").fill("3")
    page.locator("#settings-save").click()
    error = page.locator(".setting[data-key='leds.brightness'] .field-error")
    expect(error).to_contain_text("0 to 1")
    expect(page.locator(".setting.invalid")).to_have_count(1)
    assert config.read_bytes() == before
    assert "pairing" in page.locator("#settings-secrets").inner_text().lower()


def rating_words(level: int) -> str:
    """What the page says for chess ``level`` in English: from the shipped data."""
    from controller.engine.ratings import level_ratings

    r = level_ratings("chess").get(level)
    if r is None:
        return ""
    words = f"under {r.about}" if r.under else f"about {r.about}"
    return words + ", approximate" if r.approximate else words


def test_the_levels_are_shown_by_their_rating(page):
    # the New game's level box and the settings' computer level (issue 33): the rating of
    # the chosen level in the chosen game, as controller/engine/ratings.toml has it
    expect = sync_api.expect
    page.evaluate("document.getElementById('new-game').open = true")
    expect(page.locator("#ng-level-rating")).to_have_text(rating_words(6))
    page.locator("#ng-level").fill("4")
    expect(page.locator("#ng-level-rating")).to_have_text(rating_words(4))
    assert rating_words(4) and rating_words(4) != rating_words(10)
    page.locator("#ng-level").fill("10")
    expect(page.locator("#ng-level-rating")).to_have_text(rating_words(10))
    page.locator("#ng-level").fill("6")
    page.evaluate("document.getElementById('new-game').open = false;"
                  "document.getElementById('settings').open = true")
    level = page.locator("#settings-form input[data-key='board.computer_level']")
    shown = page.locator(".setting[data-key='board.computer_level'] .level-rating")
    expect(shown).to_have_text(rating_words(int(level.input_value() or 0)), timeout=5000)
    level.fill("5")
    expect(shown).to_have_text(rating_words(5))
