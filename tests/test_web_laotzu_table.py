"""Lao Tzu against the computer with the simulated hand off, on the page in real Chromium:
the table holds the person's view only (``controller/fogtable.py``).  The page tells him
what to put on and take off after the computer's move and never shows the move itself:
no "make this move", no execute phase, no lit or named cell where a hidden computer piece
stands, the computer's moves "(hidden)" in the list."""

from __future__ import annotations

import json
import re

import pytest

from controller.rules.laotzu import LaoTzu
from tests.support.computerpage import computer_pages
from tests.support.webtools import playwright_or_skip

COMPUTER, PERSON = 0, 1
PLIES = 6
KIND = {name: kind for kind, name in LaoTzu.piece_names.items()}
PUT = re.compile(r"put the (White|Black) (\w+)(?: ×\d+)? on (\S+)")
OFF = re.compile(r"take the piece off (\S+)")


@pytest.fixture(scope="module")
def cp(tmp_path_factory):
    sync_api = playwright_or_skip()
    with computer_pages(sync_api, tmp_path_factory.mktemp("table"), ["square8"],
                        config="simulated_hand_moves = false\n") as pages:
        yield pages["square8"]


def _follow(cp) -> int:
    """Do what the page's message asks until the board is ready; the steps taken."""
    steps = 0
    for _ in range(80):
        cp.page.wait_for_timeout(150)
        s = cp.page.evaluate("() => ({phase: ui.state.phase, message: ui.state.message})")
        if s["phase"] != "setup":
            return steps
        put, off = PUT.search(s["message"]), OFF.search(s["message"])
        if put:
            colour = "white" if put.group(1) == "White" else "black"
            cp.gestures([{"action": "take", "object": f"{colour}-{KIND[put.group(2)]}"},
                         {"action": "place", "spot": put.group(3)}])
        elif off:
            cp.gestures([{"action": "lift", "spot": off.group(1)}, {"action": "set_aside"}])
        else:
            continue
        steps += 1
        # the next step is read once this one is taken in (a loaded machine answered late:
        # the same step done twice lifted the reserve's Pawn, "put the piece back")
        cp.page.wait_for_function("(m) => ui.state.phase !== 'setup' || ui.state.message !== m",
                                  arg=s["message"], timeout=10_000)
    raise AssertionError(f"the board never got ready: {s}")


def test_the_page_guides_the_person_and_never_shows_the_computers_move(cp):
    from controller.web.simulator import move_actions

    cp.new_game("laotzu", {"seed": "11"}, ["White"], level=1)
    cp.page.evaluate("() => { window.__ws.length = 0; }")
    guided = 0
    for _ in range(40):
        guided += _follow(cp)
        n = cp.turn()["plies"]
        if n >= PLIES or cp.turn()["result"] is not None:
            break
        game, pos, _ = cp.game(n)
        if game.ply_mover(pos) == COMPUTER:
            cp.wait("S.moves.length > arg", n)
            continue
        table = game.parse_view(game.position_text(game.view_position(pos, PERSON)))
        move = game.board_moves(table)[0]
        cp.gestures(move_actions(game, table, move, cp.layout))
        cp.wait("S.moves.length > arg || S.phase === 'setup'", n, timeout=10_000)
        cp.page.wait_for_timeout(2000)  # (a Rook beside its King may still castle)
    assert cp.turn()["plies"] >= 3
    assert guided > 0  # the computer's pieces came into (or out of) sight, and he was told
    game, first, _ = cp.game(0)
    positions = [first.copy()]
    for move in cp.game()[2]:
        first.push(move)
        positions.append(first.copy())
    cells = game.geometry.cells
    states = [json.loads(m) for m in cp.page.evaluate("() => window.__ws")]
    states = [s.get("state", s) for s in states if isinstance(s, dict)]
    checked = 0
    for state in states:
        if "moves" not in state or "phase" not in state:
            continue
        checked += 1
        pos = positions[min(len(state["moves"]), len(positions) - 1)]
        assert state["phase"] != "execute", state["message"]
        assert "make this move" not in state["message"].lower()
        assert "execute" not in state["message"].lower()
        hidden = {c for c in range(len(cells)) if c not in
                  set(game.player_view(pos, PERSON).visible)
                  and pos.board[c] is not None and pos.board[c].owner == COMPUTER}
        lit = {i for i, (_, op) in enumerate(state["leds"]) if op > 0 and i < len(cells)}
        assert not lit & hidden, [cells[c] for c in lit & hidden]
        named = {cells.index(w) for w in state["message"].replace(",", " ").split()
                 if w in cells}
        assert not named & hidden, state["message"]
        for m in state["moves"]:
            assert (m["text"] is None) == (m["player"] == COMPUTER), m
    assert checked > 5
    shown = cp.shown_moves()
    assert shown[0] == "(hidden)", shown


def test_take_back_on_the_page_guides_the_pieces_back_and_says_so(cp):
    """The page's Take back (shown only on the view table): his last move and the
    computer's reply go, the journal follows, the board guides him back and the live
    region says each step in words ("Take Black's Knight off f6")."""
    from controller.web.simulator import move_actions

    cp.new_game("laotzu", {"seed": "12"}, ["White"], level=1)
    assert cp.page.locator("#take-back").is_visible()
    for _ in range(20):
        _follow(cp)
        n = cp.turn()["plies"]
        game, pos, _ = cp.game(n)
        if game.ply_mover(pos) == COMPUTER:
            cp.wait("S.moves.length > arg", n)
            continue
        if n >= 3:
            break
        table = game.parse_view(game.position_text(game.view_position(pos, PERSON)))
        cp.gestures(move_actions(game, table, game.board_moves(table)[0], cp.layout))
        cp.wait("S.moves.length > arg || S.phase === 'setup'", n, timeout=10_000)
        cp.page.wait_for_timeout(2000)  # (a Rook beside its King may still castle)
    n = cp.turn()["plies"]
    assert n >= 3
    cp.page.click("#take-back")
    cp.wait("S.moves.length === arg", n - 2)
    game, pos, _ = cp.game()
    assert len(pos.moves) == n - 2 and game.ply_mover(pos) == PERSON
    cp.wait("S.phase === 'setup' || S.phase === 'turn'")
    said = cp.page.locator("#announcer > :last-child").inner_text()
    assert re.match(r"(Put|Take) (White|Black)'s \w+ (on|off) [a-h][1-8]$", said), said
    _follow(cp)
    assert cp.state()["phase"] == "turn"
