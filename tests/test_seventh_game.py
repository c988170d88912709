"""The test-only seventh game, King of the Hill (``tests/games/kingofthehill.py``, registered
by ``tests/conftest.py``): picked up by the registry, the command line, the engine and the
page with no edit outside its module and its data — the proof of ``docs/adding-a-game.md``."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

from controller import layout as layout_module
from controller.cli import main as cli_main
from controller.engine import Engine
from controller.rules import GAME_CLASSES, GAMES, get_game, register_game
from controller.rules.core import RulesError, Termination
from tests.games.kingofthehill import KingOfTheHill
from tests.support.service import make_config

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")

ROOT = Path(__file__).resolve().parent.parent
#: Ke4 wins at once; Kd4 is not legal (the Rook on d8), nothing else reaches the hill
WIN_IN_ONE = "3rk3/8/8/8/8/4K3/8/7R w - - 0 1"


def test_the_registry_knows_the_game() -> None:
    assert GAMES["kingofthehill"] is KingOfTheHill and KingOfTheHill in GAME_CLASSES
    game = get_game("kingofthehill")
    pos = game.parse_position(WIN_IN_ONE)
    pos.push(game.parse_move(pos, "Ke4"))
    outcome = game.outcome(pos)
    assert outcome == ((0,), "king on the hill") and game.legal_moves(pos) == []
    assert game.termination(outcome.reason) is Termination.VARIANT_WIN
    with pytest.raises(RulesError, match="name is taken"):
        register_game("tests.games.kingofthehill:KingOfTheHill")


def test_the_command_line_plays_it(capsys) -> None:
    assert cli_main(["moves", "--game", "kingofthehill", "--position", WIN_IN_ONE]) == 0
    assert "Ke4" in capsys.readouterr().out.split()
    assert cli_main(["show", "--game", "kingofthehill", "--position", WIN_IN_ONE,
                     "--moves", "Ke4"]) == 0
    assert "game over: 1-0 (king on the hill)" in capsys.readouterr().out


@pytest.mark.parametrize("level", [1, 4])
def test_the_computer_finds_the_winning_king_move(level: int) -> None:
    game = get_game("kingofthehill")
    pos = game.parse_position(WIN_IN_ONE)
    result = Engine(game, level=level).choose(pos)
    assert game.move_text(pos, result.move) == "Ke4"


@pytest.fixture
def hill_layouts(tmp_path, monkeypatch):
    """The shipped layouts, with ``kingofthehill`` added to the 8×8 board's games (data)."""
    folder = tmp_path / "layouts"
    shutil.copytree(layout_module.LAYOUTS_DIR, folder)
    square8 = folder / "square8.toml"
    text = square8.read_text(encoding="utf-8")
    old = 'games = ["luotuoqi", "laotzu", "chess"]'
    assert old in text
    square8.write_text(text.replace(old, old[:-1] + ', "kingofthehill"]'), encoding="utf-8")
    monkeypatch.setattr(layout_module, "LAYOUTS_DIR", folder)
    layout_module.load_layout.cache_clear()
    yield folder
    layout_module.load_layout.cache_clear()


def test_the_page_starts_plays_and_ends_it(hill_layouts, tmp_path) -> None:
    from controller.service import BoardService
    from controller.web.simulator import move_actions
    from tests.support.webtools import page_client

    svc = BoardService(make_config(tmp_path, layout="square8"))
    try:
        client = page_client(svc)
        games = client.get("/api/state").json()["games"]
        assert [g["name"] for g in games] == ["luotuoqi", "laotzu", "chess", "kingofthehill"]
        assert next(g for g in games if g["name"] == "kingofthehill")["title"] == (
            "King of the Hill")
        r = client.post("/api/new-game", json={"game": "kingofthehill"})
        assert r.status_code == 200, r.text
        assert client.post("/api/sim", json={"action": "arrange"}).json()["ok"]
        svc.step(0.1)
        for text in ["e3", "a6", "Ke2", "a5", "Kd3", "a4", "Kd4"]:
            move = svc.game.parse_move(svc.position, text)
            for action in move_actions(svc.game, svc.position, move, svc.layout):
                assert client.post("/api/sim", json=action).json()["ok"]
                svc.step(0.03)
            svc.step(0.1)
        state = client.get("/api/state").json()
        assert [m["text"] for m in state["moves"]] == ["e3", "a6", "Ke2", "a5", "Kd3", "a4",
                                                       "Kd4"]
        assert state["result"]["reason"] == "king on the hill"
        assert svc.journal.games()[-1].moves[-1] == "Kd4"
    finally:
        svc.close()


def test_nothing_outside_its_module_names_it() -> None:
    """The game lives in ``tests/games/`` and is registered by the tests only."""
    hits = [p for p in (ROOT / "controller").rglob("*") if p.is_file()
            and p.suffix in (".py", ".toml", ".js", ".html")
            and "kingofthehill" in p.read_text(encoding="utf-8", errors="replace")]
    assert hits == []
