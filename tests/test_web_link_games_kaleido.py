"""KaleidoChess with two, three and four players to its end on two linked pages in
Chromium, the seats alternating between the boards (see tests/support/linkgames.py; the
other open games are in tests/test_web_link_games.py).  The scripts are short games of
tests/support/linkplay.py's seeded player (``finishing_move``), fixed here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.linkgames import LinkedBoards, linked_boards, play_to_the_end
from tests.support.webtools import CHROMIUM

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)",
                allow_module_level=True)

#: (game, options, layout, the plies of a short game: ``finishing_move`` with
#: ``random.Random(seed)``, the shortest found: seeds 139, 4 and 0)
GAMES = [
    ("kaleidochess", {"players": 2}, "kaleido89", ["2J+2G", "5G+5K", "2K-3H", "5J-5B"]),
    ("kaleidochess", {"players": 3}, "kaleido89", ["1H+1G", "3J+3K", "5K-6G", "1J-8C"]),
    ("kaleidochess", {"players": 4}, "kaleido89", ["1G+2K", "3J-4J", "5J+5G", "7J+7H"]),
]


@pytest.fixture(scope="module")
def boards(tmp_path_factory) -> Iterator[LinkedBoards]:
    with linked_boards(sync_api, tmp_path_factory) as linked:
        yield linked


@pytest.mark.parametrize(("name", "options", "layout", "script"), GAMES,
                         ids=[f"{g}-{o.get('players', 2)}" for g, o, _, _ in GAMES])
def test_two_pages_play_kaleidochess_to_its_end(boards, name, options, layout, script):
    play_to_the_end(sync_api, boards, name, options, layout, script)
