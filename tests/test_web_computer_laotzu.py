"""Lao Tzu Chess against the computer on the page, in real Chromium: at no point does
the page show the person anything of the computer's hidden pieces.

The game is started from the New-game dialog (the computer plays White at level 1), the
person (Black) moves with the page's simulator controls and asks for a hint; the
computer thinks, its move is shown on the board and made by the simulated hand.  Then
everything the page received — every websocket message, every body it fetched — and
every change of its drawing (the pieces drawn, the hand, the fog, the lit spots, the
move list) is checked against the person's view of the game at that ply (the true game
is read from the journal): the page always shows the person's view, never the
computer's; no hidden cell holds a piece, no enemy piece stands where the view has none,
no hidden cell is lit or named, the computer's moves are "(hidden)", and neither the
set-up nor the hidden options are sent.
"""

from __future__ import annotations

import json
import random

import pytest

from controller.rules import Game, Position
from tests.support.computerpage import ComputerPage, computer_pages
from tests.support.webtools import playwright_or_skip

#: plies to play (the computer moves half of them)
PLIES = 12
COMPUTER, PERSON = 0, 1


@pytest.fixture(scope="module")
def cp(tmp_path_factory):
    sync_api = playwright_or_skip()
    with computer_pages(sync_api, tmp_path_factory.mktemp("laotzu"), ["square8"]) as pages:
        yield pages["square8"]


def _positions(cp: ComputerPage) -> tuple[Game, list[Position]]:
    """The game and its position after each ply (the journal's truth)."""
    game, pos, moves = cp.game(0)
    game, _, moves = cp.game()
    positions = [pos.copy()]
    for move in moves:
        pos.push(move)
        positions.append(pos.copy())
    return game, positions


def _pick(rng: random.Random, game: Game, pos: Position):
    """The person's move: legal, with a taste for captures and drops."""
    legal = game.legal_moves(pos)
    special = [m for m in legal if m.captures or m.kind == "drop"]
    return rng.choice(special) if special and rng.random() < 0.6 else rng.choice(legal)


def check_state(state: dict, game: Game, positions: list[Position], cells: list[str],
                cell_count: int) -> None:
    """One state the page received, against the person's view at its ply."""
    n = len(state["moves"])
    pos = positions[n]
    assert state["viewer"] == PERSON, ("the page shows the computer's view", n)
    v = game.player_view(pos, PERSON)
    hidden = set(range(cell_count)) - set(v.visible)
    seen_enemies = {c for c, _ in v.enemies}
    assert set(state["fog"]) == hidden, n
    for spot, objects in state["pieces"].items():
        c = int(spot)
        if c >= cell_count:
            continue  # pads: the hands are public
        assert c not in hidden, (cells[c], objects)
        if any(o["colour"] == "white" and not o["lying"] for o in objects):
            assert c in seen_enemies, ("an enemy piece the view has not", cells[c], n)
    if state["mover"] != PERSON:  # the computer's hand is not the person's to watch
        assert not [o for o in state["held"] if o["colour"] == "white"], (state["held"], n)
    lit = {i for i, (_, op) in enumerate(state["leds"]) if op > 0}
    assert not lit & hidden, [cells[c] for c in lit & hidden]
    for m in state["moves"]:
        assert (m["text"] is None) == (m["player"] == COMPUTER), m
    assert state["game"]["setup"] is None
    assert not set(state["game"]["options"]) & set(game.hidden_options)
    named = {cells.index(w) for w in state["message"].replace(",", " ").split()
             if w in cells}
    assert not named & hidden, state["message"]
    # the voice names only cells the person has seen (a phrase may be about the ply just
    # made, whose cells he saw before it) — or sees once the computer's move he is told to
    # make is made: "White Pawn seen on f4" comes while that move is not yet in the list
    upto = n + 1
    if n + 1 < len(positions) and game.ply_mover(pos) == COMPUTER:
        upto = n + 2
    ever = set().union(*(game.player_view(p, PERSON).visible for p in positions[:upto]))
    for said in state["announcements"]:
        words = said["text"].replace(",", " ").replace(";", " ").replace(".", " ").split()
        named = {cells.index(w) for w in words if w in cells}
        assert named <= ever, (said, [cells[c] for c in named - ever])


def check_leds(leds: list, state: dict, game: Game, positions: list[Position],
               cells: list[str], cell_count: int) -> None:
    v = game.player_view(positions[len(state["moves"])], PERSON)
    lit = {i for i, (_, op) in enumerate(leds) if op > 0 and i < cell_count}
    assert lit <= set(v.visible), [cells[c] for c in lit - set(v.visible)]


def check_drawing(entry: dict, game: Game, positions: list[Position], cells: list[str],
                  cell_count: int) -> None:
    """One moment of the page's drawing: the piles drawn (their titles), the hand, the
    fog, the lit spots and the move list."""
    n = entry["plies"]
    v = game.player_view(positions[n], PERSON)
    hidden = set(range(cell_count)) - set(v.visible)
    seen_enemies = {cells[c] for c, _ in v.enemies}
    assert entry["fog"] == len(hidden), entry
    for title in filter(None, entry["piles"].split("\n")):
        spot, _, objects = title.partition(": ")
        if spot in cells:
            assert cells.index(spot) not in hidden, title
            if "White" in objects:
                assert spot in seen_enemies, (title, n)
    if entry["mover"] != PERSON:
        assert "White" not in entry["held"], entry
    assert not {w for w in entry["lit"].split() if w in cells and cells.index(w) in hidden}
    movers = [game.ply_mover(p) for p in positions[:n]]
    shown = list(filter(None, entry["moves"].split("\n")))
    assert [t == "(hidden)" for t in shown] == [m == COMPUTER for m in movers], entry


def test_laotzu_against_the_computer_shows_only_the_persons_view(cp):
    cp.new_game("laotzu", {"seed": "11"}, ["White"], level=1)
    cp.page.evaluate("() => { window.__ws.length = 0; window.__fetched.length = 0; }")
    rng = random.Random(11)
    hinted = False
    for _ in range(60):
        turn = cp.turn()
        n = turn["plies"]
        if turn["result"] is not None or n >= PLIES:
            break
        game, pos, _ = cp.game(n)
        if game.ply_mover(pos) == COMPUTER:
            cp.wait("S.moves.length > arg", n)
            game, after, _ = cp.game(n + 1)
            cp.wait_board_shows(game, after, PERSON)  # the hand is done
            continue
        if not hinted:  # the hint comes from the person's view only
            cp.page.click("#advice-box [data-command=hint]")
            cp.wait("S.advice && S.advice.hint")
            view = game.player_view(pos, PERSON)  # one of his tries, as his view says it
            assert cp.state()["advice"]["hint"] in {view.move_text(t) for t in view.moves()}
            hinted = True
        cp.play(game, pos, _pick(rng, game, pos))
    # "View as" offers the person's own view only; asked for the computer's, the
    # service answers with the person's
    values = cp.page.locator("input[name=viewer]").evaluate_all("l => l.map((x) => x.value)")
    assert values == ["auto", str(PERSON)], values
    asked = cp.page.evaluate("fetch('/api/state?viewer=0').then((r) => r.json())")
    assert asked["viewer"] == PERSON
    # what the page received and drew first, the journal after: the computer goes on
    # moving meanwhile, and the service writes a move to the journal before it tells the
    # page, so the journal then holds every ply the page has seen
    received = cp.page.evaluate("() => window.__ws")
    fetched = cp.page.evaluate("() => window.__fetched")
    drawn = cp.seen()
    game, positions = _positions(cp)
    assert len(positions) > PLIES or cp.turn()["result"] is not None
    assert hinted
    cells = list(game.geometry.cells)
    count = cp.layout.cell_count
    states = 0
    last_state = None
    for text in received:
        message = json.loads(text)
        if message["type"] == "state":
            last_state = message["state"]
            check_state(last_state, game, positions, cells, count)
            states += 1
        elif last_state is not None:
            check_leds(message["leds"], last_state, game, positions, cells, count)
    for _url, body in fetched:
        data = json.loads(body)
        if isinstance(data, dict) and "state" in data:
            check_state(data["state"], game, positions, cells, count)
            states += 1
    for entry in drawn:
        check_drawing(entry, game, positions, cells, count)
    assert states > 2 * PLIES and len(drawn) > 2 * PLIES, (states, len(drawn))
