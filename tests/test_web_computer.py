"""Playing the computer through the page, in real Chromium, for every game and player
count (dice included): the game started from the page's New-game dialog with the
computer (level 1) in one or more seats, the person's moves made with the page's
simulator controls, the die's faces entered on the page (as from a real die: chosen by
the script, so every run plays the same game; the page's virtual die is random, its
button is tested in test_web_kaleidochess), and the computer's moves shown with the
execute flow and made by the simulated hand.

What the person sees is checked at every ply: the move list is the game's record (the
journal), the computer's thinking shows on the status line and is gone once its move is
made, its move is named and its starting spot lit while the board waits for it.  A game
runs until it ends or the computer has moved three times.

One Chromium serves every case; one service per board layout starts each game anew.
"""

from __future__ import annotations

import random

import pytest

from controller.rules import Game, Position
from tests.support.computerpage import EXECUTE, THINKING, ComputerPage, computer_pages
from tests.support.service import not_losing_at_once, safe_moves
from tests.support.webtools import playwright_or_skip

#: computer moves per game at least (unless the game ends first)
COMPUTER_MOVES = 3
#: plies per game at most (a stuck game fails rather than running on)
PLY_LIMIT = 40

#: (layout, game, options, the computer's seats)
CASES = [
    ("square8", "luotuoqi", {}, ["Black"]),
    ("square8", "laotzu", {"seed": "7"}, ["White"]),
    ("square8", "chess", {}, ["Black"]),
    ("square9", "gnuqi", {}, ["Black"]),
    ("kaleido89", "kaleidochess", {}, ["White"]),
    ("kaleido89", "kaleidochess", {"players": 3}, ["Red"]),
    ("kaleido89", "kaleidochess", {"players": 4}, ["White", "Black"]),
    ("kaleido89", "kaleidochess", {"dice": True}, ["Black"]),
    ("lotus39", "lotus39", {}, ["White"]),
    ("lotus39", "lotus39-modern", {}, ["Black"]),
]
LAYOUTS = list(dict.fromkeys(layout for layout, *_ in CASES))


def _case_id(case) -> str:
    _, game, options, seats = case
    opts = "-".join(f"{k}{v}" for k, v in options.items() if k != "seed")
    return "-".join(filter(None, [game, opts, "+".join(seats)]))


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    sync_api = playwright_or_skip()
    with computer_pages(sync_api, tmp_path_factory.mktemp("computer"), LAYOUTS) as pages:
        yield pages


def _face(rng: random.Random, game: Game, pos: Position, computer: bool) -> int:
    """The die's face: any for the computer; for a person one that leaves him a safe
    move (a die allowing only a losing move would end the game early)."""
    faces = []
    for roll in game.legal_moves(pos):
        pos.push(roll)
        if computer or safe_moves(game, pos):
            faces.append(int(roll.token.split(":")[1]))
        pos.pop()
    return rng.choice(faces)


def _shown_record(game: Game, start: Position, moves: list,
                  person: int | None) -> list[tuple[int, str]]:
    """The move list the person should see: (player, text) per ply in its player's
    notation; with hidden information the other players' plies are hidden."""
    pos = start.copy()
    shown = []
    for move in moves:
        player = game.ply_mover(pos)
        text = game.player_move_text(pos, move)
        shown.append((player, text if not game.hidden_information or player == person
                      else "(hidden)"))
        pos.push(move)
    return shown


def check_computer_ply(cp: ComputerPage, game: Game, before: Position, move,
                       first: bool, again: bool) -> None:
    """What the page showed while the computer made ``move`` in ``before``."""
    n = len(before.moves)
    seen = [e for e in cp.seen() if e["plies"] == n]
    thinking = [e for e in seen if THINKING in e["phase"]]
    executing = [e for e in seen if e["phase"] == EXECUTE]
    # once made, nobody thinks any longer (unless the computer moves ``again``)
    after = [e for e in cp.seen() if e["plies"] == n + 1]
    assert after and (again or THINKING not in after[0]["phase"]), after[:2]
    if first:  # its worker starts: the status line says so for a while
        assert thinking, seen
    assert all("(level 1)" in e["phase"] for e in thinking), thinking
    # shown with the execute flow, named, where it starts lit — before it was made
    assert executing, seen
    if game.hidden_information:  # the person sees the phase, not the hidden move
        assert all(e["message"] == "" for e in executing), executing
        return
    label = game.move_text(before, move)
    assert any(label in e["message"] for e in executing), (label, executing)
    cells = game.geometry.cells
    if 0 <= move.origin != move.target:
        assert any(cells[move.origin] in e["lit"].split() for e in executing), (
            cells[move.origin], executing)


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_a_game_against_the_computer_from_the_page(pages, case):
    layout, name, options, seats = case
    cp = pages[layout]
    first_of_service = not getattr(cp, "computer_moved", False)
    cp.new_game(name, options, seats, level=1)
    game, pos, _ = cp.game()
    computer = {game.player_names.index(s) for s in seats}
    people = [p for p in range(game.players) if p not in computer]
    person = people[0] if game.hidden_information else None
    rng = random.Random(f"{name} {options}")
    computer_plies = 0
    following = None  # the computer's next ply, when it moves again at once (the Cube)
    while len(pos.moves) < PLY_LIMIT and computer_plies < COMPUTER_MOVES:
        turn = cp.turn()
        if turn["result"] is not None:
            break
        n = turn["plies"] if following is None else following
        following = None
        game, pos, _ = cp.game(n)
        if turn["die"]:  # a person rolls, for the computer's seat too
            cp.enter_face(_face(rng, game, pos, game.ply_mover(pos) in computer))
            continue
        mover = game.ply_mover(pos)
        if mover in computer:
            cp.wait("S.moves.length > arg", n)
            game, after, moves = cp.game(n + 1)
            again = game.ply_mover(after) in computer
            check_computer_ply(cp, game, pos, moves[-1],
                               first=first_of_service and computer_plies == 0, again=again)
            cp.computer_moved = True
            computer_plies += 1
            if again:  # the hand makes its next ply at once: the board is checked after it
                following = n + 1
                continue
            cp.wait_board_shows(game, after, person)  # the simulated hand is done
            continue
        cp.play(game, pos, rng.choice(not_losing_at_once(game, pos)))
    game, pos, moves = cp.game()
    state = cp.state()
    assert state["result"] is not None or computer_plies >= COMPUTER_MOVES, state["message"]
    assert computer_plies >= 1
    # the person's move list is the journal's record, ply by ply
    start = cp.game(0)[1]
    shown = _shown_record(game, start, moves, person)
    assert cp.shown_moves() == [text for _, text in shown]
    assert [m["player"] for m in state["moves"]] == [player for player, _ in shown]
