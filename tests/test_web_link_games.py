"""Every open game but KaleidoChess to its end on two linked pages in Chromium (see
tests/support/linkgames.py; KaleidoChess with two, three and four players is in
tests/test_web_link_games_kaleido.py, so that two workers share the games).  The scripts
are short games of tests/support/linkplay.py's seeded player (``finishing_move``), fixed
here."""

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
#: ``random.Random(seed)``, the shortest found: seeds 66, 56, 839 and 71); the games of
#: one layout are next to each other (they share the boards)
GAMES = [
    ("luotuoqi", {}, "square8", ["Ee2-d3", "Mb8-a6", "T4d1-h5", "Ma6-b6", "T2h5xf7"]),
    ("chess", {}, "square8", ["g4", "e5", "f3", "Qh4#"]),
    ("gnuqi", {}, "square9", ["Kd2", "Be8", "Kc2", "Ca8", "Cd2", "Cb5#"]),
    ("lotus39", {}, "lotus39", ["g4", "exg4", "Acg3", "gxi3", "Axi3", "i4", "Ae5#"]),
]


@pytest.fixture(scope="module")
def boards(tmp_path_factory) -> Iterator[LinkedBoards]:
    with linked_boards(sync_api, tmp_path_factory) as linked:
        yield linked


@pytest.mark.parametrize(("name", "options", "layout", "script"), GAMES,
                         ids=[f"{g}-{o.get('players', 2)}" for g, o, _, _ in GAMES])
def test_two_pages_play_every_open_game_to_its_end(boards, name, options, layout, script):
    play_to_the_end(sync_api, boards, name, options, layout, script)
