"""The companion page in a real browser (Debian's Chromium driven by Playwright).

The service runs as ``fairyboard run`` in a subprocess with the simulated board; the test
plays by clicking and dragging on the drawn board like a person would: moves by drag and
by click-click, a Tower split through the "how many?" prompt, the board's choice answered
on the page, the Cube handed over between pads, a piece knocked over and put back.
Screenshots go to the test's temporary folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.webtools import CHROMIUM, browser_page, running_service

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)",
                allow_module_level=True)


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    folder = tmp_path_factory.mktemp("browser")
    with running_service(folder) as url:
        yield url, folder


@pytest.fixture(scope="module")
def page(service):
    url, _ = service
    with browser_page(sync_api, url) as page:
        yield page


def centre(page, spot: str) -> tuple[float, float]:
    box = page.locator(f"[data-name='{spot}']").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def click(page, spot: str) -> None:
    page.mouse.click(*centre(page, spot))


def drag(page, a: str, b: str) -> None:
    page.mouse.move(*centre(page, a))
    page.mouse.down()
    x, y = centre(page, b)
    page.mouse.move(x, y, steps=8)
    page.mouse.up()


def led(page, spot: str) -> str:
    """The colour the page shows for the LED under ``spot`` ("none" when dark)."""
    i = page.locator(f"[data-name='{spot}']").get_attribute("data-spot")
    return page.locator(f"[data-led='{i}']").get_attribute("fill")


def moves(page) -> list[str]:
    return page.locator("#moves li span:last-child").all_inner_texts()


def wait_moves(page, expected: list[str]) -> None:
    page.wait_for_function(
        "n => document.querySelectorAll('#moves li').length >= n", arg=len(expected),
        timeout=5000)
    assert moves(page) == expected


def test_play_on_the_simulated_board_in_chromium(page, service):
    url, folder = service
    expect = sync_api.expect
    page.click("#arrange")
    expect(page.locator("#phase")).to_have_text("Waiting for a move", timeout=5000)
    expect(page.locator("#turn-text")).to_have_text("White to move")
    page.screenshot(path=str(folder / "1-set-up.png"))

    # a move by drag, one by click-click
    drag(page, "d2", "e3")
    wait_moves(page, ["Ed2-e3"])
    # the board's voice: the move in words in the live region a screen reader reads
    expect(page.locator("#announcer > :last-child")).to_have_text("Eaglet d2 to e3",
                                                             timeout=5000)
    assert page.get_attribute("#announcer", "aria-live") == "polite"
    click(page, "d7")
    click(page, "e6")
    wait_moves(page, ["Ed2-e3", "Ed7-e6"])
    expect(page.locator("#announcer > :last-child")).to_have_text("Eaglet d7 to e6",
                                                             timeout=5000)

    # lift three stones of the Tower (the cell stays occupied: the sensors see nothing
    # yet) and put them down on d4: five splits fit, the board asks
    click(page, "d1")
    page.click("#count-popup button[data-count='3']")
    expect(page.locator("#held .chip")).to_have_count(3, timeout=5000)
    assert led(page, "option-1") == "none"
    click(page, "d4")
    expect(page.locator("#choice")).to_be_visible(timeout=5000)
    buttons = page.locator("#choice-options button")
    assert buttons.all_inner_texts() == [f"{k + 1}. T{k + 3}d1-d4" for k in range(5)]
    assert led(page, "option-1") != "none"  # the option pads light up too
    page.screenshot(path=str(folder / "2-choice.png"))
    buttons.nth(1).click()
    wait_moves(page, ["Ed2-e3", "Ed7-e6", "T4d1-d4"])
    expect(page.locator("#choice")).to_be_hidden()
    assert led(page, "option-1") == "none"

    # Black lifts a Mule: its targets light up
    assert led(page, "c6") == "none"
    click(page, "b8")
    expect(page.locator("#phase")).to_contain_text("legal targets", timeout=5000)
    page.wait_for_function(
        "i => document.querySelector(`[data-led='${i}']`).getAttribute('fill') !== 'none'",
        arg=page.locator("[data-name='c6']").get_attribute("data-spot"), timeout=5000)
    target, origin = led(page, "c6"), led(page, "b8")
    assert target != "none" and origin != "none" and target != origin
    assert led(page, "a6") == target and led(page, "d5") == "none"
    page.mouse.move(*centre(page, "c5"))
    page.screenshot(path=str(folder / "3-lifted.png"))
    click(page, "c6")
    wait_moves(page, ["Ed2-e3", "Ed7-e6", "T4d1-d4", "Mb8-c6"])

    # ... and hands the Cube over: the move becomes a Cube turn
    drag(page, "black-cube", "white-cube")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#moves li')].pop().innerText.includes('+cube')",
        timeout=5000)
    assert moves(page)[-1] == "Mb8-c6+cube"
    expect(page.locator("#turn-text")).to_have_text("Black to move")

    # knock a piece over onto its neighbour: the board shows what is wrong
    page.check("input[name=tool][value=knock]")
    drag(page, "h7", "h6")
    expect(page.locator("#phase")).to_contain_text("does not match", timeout=5000)
    page.wait_for_function(
        "i => document.querySelector(`[data-led='${i}']`).getAttribute('fill') !== 'none'",
        arg=page.locator("[data-name='h7']").get_attribute("data-spot"), timeout=5000)
    page.screenshot(path=str(folder / "4-knocked-over.png"))
    page.check("input[name=tool][value=move]")
    click(page, "h6")
    click(page, "h7")
    expect(page.locator("#phase")).to_have_text("Waiting for a move", timeout=5000)

    # the journal holds exactly what the page showed
    health = json.loads(page.evaluate("fetch('/health').then(r => r.text())"))
    lines = [json.loads(x) for x in Path(health["journal"]).read_text().splitlines()]
    from controller.journal import read_game

    assert read_game(Path(health["journal"])).moves == moves(page)
    assert lines[0]["type"] == "start"


def test_new_game_form_starts_another_game(page, service):
    expect = sync_api.expect
    page.click("#new-game summary")
    page.select_option("#ng-game", "laotzu")
    page.fill("#ng-options input[name=white_array]", "518")
    page.fill("#ng-options input[name=black_array]", "518")
    page.click("#new-game-form button[type=submit]")
    expect(page.locator("#game-title")).to_contain_text("Lao Tzu Chess", timeout=5000)
    expect(page.locator("#viewer-box")).to_be_visible()
    assert moves(page) == []
    page.click("#arrange")
    expect(page.locator("#phase")).to_have_text("Waiting for a move", timeout=5000)
    # hot seat: the side to move's view; the other half of the board is fog
    assert page.locator(".fog polygon").count() > 0
    fogged = page.locator(".fog polygon").count()
    page.check("input[name=viewer][value='1']")
    # the page redraws for Black's view (e2's light goes dark; waited for, not a fixed
    # 300 ms that a loaded machine outran), then the fog is as large: a symmetric start
    e2 = page.locator("[data-name='e2']").get_attribute("data-spot")
    expect(page.locator(f"[data-led='{e2}']")).to_have_attribute("fill", "none", timeout=5000)
    assert page.locator(".fog polygon").count() == fogged
    assert led(page, "e2") == "none"
