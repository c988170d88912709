"""The computer's worker fails in a real install (issue 30, Found 1: the engine's values
file missing from the package), in real Chromium: the page says in words what failed and
what to do, and the game goes on as two people.

The service runs from a copy of the package without ``controller/engine/values.toml``,
so its worker process fails as a broken install's does (nothing is patched)."""

from __future__ import annotations

import contextlib
import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import tests.support.webtools as webtools
from controller.layout import load_layout
from controller.rules import get_game
from tests.support.computerpage import ComputerPage
from tests.support.webtools import playwright_or_skip

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def broken_install(tmp_path, monkeypatch):
    """A copy of the product whose engine has lost its values file."""
    copy = tmp_path / "install"
    copy.mkdir()
    for part in ("controller", "boards"):
        shutil.copytree(ROOT / part, copy / part,
                        ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "controller" / "engine" / "values.toml").unlink()
    shutil.copytree(ROOT / "tests", copy / "tests", ignore=shutil.ignore_patterns(
        "__pycache__", "data"))
    monkeypatch.setattr(webtools, "ROOT", copy)  # ``fairyboard run`` from the copy
    return copy


def test_the_page_says_the_computer_failed_and_the_game_goes_on_as_two_people(
        tmp_path, broken_install):
    sync_api = playwright_or_skip()
    folder = tmp_path / "service"
    folder.mkdir()
    config = ("[board]\nlayout = 'square8'\ngame = 'chess'\ncomputer = ['White']\n"
              "computer_level = 1\n")
    with webtools.chromium(sync_api) as browser, contextlib.ExitStack() as stack:
        url = stack.enter_context(webtools.running_service(folder, config))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        sync_api.expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
        page.wait_for_function("() => !!ui.state && !!ui.state.game", timeout=10_000)
        cp = ComputerPage(page, url, load_layout("square8"), sync_api.expect)
        page.evaluate("() => fetch('/api/sim', {method: 'POST', headers: "
                      "{'Content-Type': 'application/json'}, "
                      "body: JSON.stringify({action: 'arrange'})})")
        # the computer (White) is to move: its worker fails, and the page says so
        problem = page.locator("#journal-problems")
        sync_api.expect(problem).to_contain_text("The computer stopped working",
                                                 timeout=30_000)
        text = problem.inner_text()
        assert "play on as two players" in text and "start a new game" in text, text
        assert "Traceback" not in text
        with pytest.raises(urllib.error.HTTPError) as answer:  # 503: degraded
            urllib.request.urlopen(cp.url + "/health", timeout=10)
        health = json.loads(answer.value.read())
        assert health["status"] == "degraded" and health["problems"], health
        # the person makes White's move and then Black's: two people play on
        game = get_game("chess")
        pos = game.start()
        for text in ("e4", "e5"):
            move = game.parse_move(pos, text)
            cp.play(game, pos, move)
            pos.push(move)
        assert cp.shown_moves()[:2] == ["e4", "e5"], cp.shown_moves()
        assert cp.state()["computer"]["seats"] == [], cp.state()["computer"]
        assert errors == [], errors

