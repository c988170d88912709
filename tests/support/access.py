"""Shared by the accessibility tests: the page played from the keyboard alone, axe-core
(the npm package, pinned in ``tests/support/axe/package.json``) injected into a Chromium
page, and Chromium's own accessibility tree read over the DevTools protocol.

``scripts/test`` installs axe-core from the npm registry; a test run without it installs
it here (``npm ci``), and skips with the reason when npm cannot.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.rules import get_game
from controller.speech.words import announce_move
from tests.support.webtools import api_json, browser_page, running_service

AXE_DIR = Path(__file__).resolve().parent / "axe"
AXE_JS = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
#: the impacts a page may not have at all
FORBIDDEN = ("serious", "critical")


def pinned_version() -> str:
    return json.loads((AXE_DIR / "package.json").read_text())["dependencies"]["axe-core"]


def axe_or_skip() -> Path:
    """The path of axe.min.js at the pinned version, installed first when missing."""
    package = AXE_JS.parent / "package.json"
    installed = json.loads(package.read_text())["version"] if package.exists() else None
    if installed != pinned_version():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed (apt-get install npm): no axe-core")
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                              cwd=AXE_DIR, capture_output=True, text=True, timeout=180,
                              check=False)
        if done.returncode != 0 or not AXE_JS.exists():
            pytest.skip(f"npm could not install axe-core: {done.stderr.strip()[-200:]}")
    return AXE_JS


def axe_problems(page: Any, what: str) -> list[str]:
    """axe-core's serious and critical violations on ``page`` now, one line each
    (``what`` names the page and its state in the line)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_or_skip()))
    result = page.evaluate("async () => { const r = await axe.run(document, "
                           "{resultTypes: ['violations']}); return r.violations.map(v => "
                           "({id: v.id, impact: v.impact, help: v.help, nodes: "
                           "v.nodes.slice(0, 3).map(n => n.target.join(' '))})); }")
    return [f"{what}: {v['impact']} {v['id']} ({v['help']}) at {', '.join(v['nodes'])}"
            for v in result if v["impact"] in FORBIDDEN]


def live_region_text(page: Any, element_id: str) -> str:
    """What Chromium's accessibility tree holds for the live region ``element_id`` (it
    must be one: ``live`` polite or assertive): the names of the texts under its node."""
    return " ".join(live_region_texts(page, element_id))


def heard(page: Any) -> list[str]:
    """The announcements the board's log (``#announcer``) holds in Chromium's
    accessibility tree, oldest first (it keeps the newest few)."""
    return live_region_texts(page, "announcer")


def newest_heard(page: Any) -> str:
    """The newest announcement in the board's log ("" before the first)."""
    said = heard(page)
    return said[-1] if said else ""


def live_region_texts(page: Any, element_id: str) -> list[str]:
    """The texts under the live region ``element_id`` in Chromium's accessibility tree,
    in document order."""
    cdp = page.context.new_cdp_session(page)
    try:
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        found = cdp.send("DOM.querySelector", {"nodeId": root, "selector": f"#{element_id}"})
        backend = cdp.send("DOM.describeNode", {"nodeId": found["nodeId"]})["node"][
            "backendNodeId"]
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    by_id = {n["nodeId"]: n for n in nodes}
    region = next(n for n in nodes if n.get("backendDOMNodeId") == backend)
    live = {p["name"]: (p.get("value") or {}).get("value")
            for p in region.get("properties", [])}
    assert live.get("live") in ("polite", "assertive"), live
    texts, todo = [], list(region.get("childIds", []))
    while todo:
        node = by_id.get(todo.pop(0))
        if node is None:
            continue
        if (node.get("role") or {}).get("value") == "StaticText":
            texts.append((node.get("name") or {}).get("value", ""))
        else:
            todo = list(node.get("childIds", [])) + todo
    return [t for t in texts if t]


#: every kind of control the Tab key must reach
FOCUSABLE = ("a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])")


@contextlib.contextmanager
def open_site(folder: Path, sync_api: Any, extra: str = "") -> Iterator[tuple[Any, str]]:
    """The service (chess on the 8×8 board) and one Chromium page on it: (page, url);
    ``extra`` is more of the configuration file (its own tables)."""
    config = "[board]\ngame = 'chess'\nlayout = 'square8'\n" + extra
    with running_service(folder, config) as url, browser_page(sync_api, url) as page:
        yield page, url.rstrip("/")


def new_game(page, url, game, **options):
    r = page.request.post(f"{url}/api/new-game", data={"game": game, "options": options})
    assert r.ok, r.text()
    deadline = time.monotonic() + 10
    while page.evaluate("() => document.getElementById('game-title').textContent") == "" or \
            get_game(game).title not in page.locator("#game-title").inner_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert page.request.post(f"{url}/api/sim", data={"action": "arrange"}).ok
    wait_until(lambda: api_json(page, f"{url}/api/state")["phase"] == "turn", "set up")


def wait_until(done, what, seconds=15.0):
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, what() if callable(what) else what
        time.sleep(0.05)


def tab_to(page, element_id, limit=120):
    """Press Tab until ``element_id`` has the focus (it must be reachable so)."""
    for _ in range(limit):
        if page.evaluate("() => document.activeElement && document.activeElement.id") == \
                element_id:
            return
        page.keyboard.press("Tab")
    pytest.fail(f"#{element_id} is not reached with the Tab key")


def screen_reader_mode(page):
    if not page.is_checked("#access-on"):
        tab_to(page, "access-on")
        page.keyboard.press("Space")
    wait_until(lambda: page.evaluate("() => document.activeElement.id") == "access-move",
          "the move box has the focus")


def play_by_keyboard(page, url, game_name, texts, **options):
    """Type each move; each announcement must reach the live region's accessibility node."""
    game = get_game(game_name, **options)
    pos = game.start()
    screen_reader_mode(page)
    heard = []
    for text in texts:
        move = game.parse_move(pos, text)
        after = pos.copy()
        after.push(move)
        expected = announce_move(game, pos, move, after)
        page.keyboard.type(text)
        page.keyboard.press("Enter")
        wait_until(lambda: newest_heard(page) == expected,  # noqa: B023
              lambda: f"{text}: {expected!r} in the accessibility tree, got "  # noqa: B023
                      f"{heard(page)!r} (the mode says "
                      f"{live_region_text(page, 'access-answer')!r})")
        heard.append(expected)
        pos = after
    return heard


def play_one(page, game, text):
    pos = game.start()
    for done in state_moves(page):
        pos.push(game.parse_move(pos, done))
    screen_reader_mode(page)
    move = game.parse_move(pos, text)
    after = pos.copy()
    after.push(move)
    expected = announce_move(game, pos, move, after)
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    wait_until(lambda: newest_heard(page) == expected,
          lambda: f"{text}: {expected!r} in the accessibility tree, not "
                  f"{heard(page)!r} (the mode says "
                  f"{live_region_text(page, 'access-answer')!r})")
    return [expected]


def state_moves(page):
    return [m["text"] for m in page.evaluate(
        "async () => (await (await fetch('/api/state')).json()).moves")]
