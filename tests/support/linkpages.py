"""Pages in Chromium for linked games: the boards' configurations, clicks on the drawn
board, the move list, and one browser with a live page per service."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from tests.support.webtools import chromium


def link_config(name: str, port: int, club: str = "web", extra: str = "") -> str:
    """A board's configuration on the test broker (``extra``: more TOML before it)."""
    return (f"{extra}[link]\nbroker = '127.0.0.1'\nport = {port}\nclub = '{club}'\n"
            f"board = '{name}'\n")


def click(page: Any, spot: str) -> None:
    """A click in the middle of a drawn spot (as a person's finger on the page)."""
    box = page.locator(f"[data-name='{spot}']").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def moves(page: Any) -> list[str]:
    """The page's move list, as shown."""
    return page.locator("#moves li span:last-child").all_inner_texts()


def wait_moves(page: Any, n: int, at_least: bool = False) -> None:
    """Until the page's move list holds ``n`` moves (or more, ``at_least``)."""
    test = ">=" if at_least else "==="
    page.wait_for_function(f"n => document.querySelectorAll('#moves li').length {test} n",
                           arg=n, timeout=15_000)


@contextlib.contextmanager
def live_pages(sync_api: Any, urls: dict[str, str] | Callable[[], dict[str, str]]
               ) -> Iterator[dict[str, Any]]:
    """One Chromium with a live page (websocket connected) per board's URL; fails on any
    page error.  ``urls`` may be a function, asked once Chromium is up (the services
    start meanwhile: see ``running_services``)."""
    with chromium(sync_api) as browser:
        if callable(urls):
            urls = urls()
        errors: list[str] = []
        pages = {}
        for name, url in urls.items():
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            sync_api.expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
            pages[name] = page
        yield pages
        assert errors == [], errors


def start_linked_chess(asking: Any, pages: list[Any]) -> None:
    """A chess game started from ``asking``'s page with Black on the board 'beta' (the
    page's own API); every page in ``pages`` shows the linked start, is arranged and
    waits for a move."""
    from playwright.sync_api import expect

    answer = asking.evaluate(
        """() => fetch('/api/new-game', {method: 'POST',
             headers: {'Content-Type': 'application/json'},
             body: JSON.stringify({game: 'chess', remote: {'1': 'beta'}})})
           .then(r => r.json())""")
    assert answer["ok"], answer
    for page in pages:
        page.wait_for_function(
            "() => fetch('/api/state').then(r => r.json()).then("
            "s => s.link && s.link.game_id !== null && s.game.name === 'chess')",
            timeout=15_000, polling=200)
        page.click("#arrange")
        expect(page.locator("#phase")).to_have_text("Waiting for a move", timeout=5000)
