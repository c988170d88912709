"""Each of the five variants played to a rules end in real Chromium on the server's play
page: two players, each in a browser context of their own, meet by a challenge from the
lobby and click a short line's moves on the drawn board (answering the page's question
where several moves share the cells clicked), until both pages show the result; the
server's game ended with the rules' outcome.  Lao Tzu's arrays are drawn by the server's
referee (never chosen): its line is a helpmate the rules find from the drawn position, and
neither page ever draws a piece its seat cannot see.  One server and one browser."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from controller.layout import layout_playing, load_layout
from controller.rules import Game, Move, Position, get_game
from controller.server.seatboard import move_spots
from tests.support.clubserver import ClubServer
from tests.test_server_play_page import Player, _meet_by_challenge
from tests.test_web_access_games import LINES
from tests.test_web_access_keyboard import LUOTUOQI_LINE

#: the referee's seed (``test-6``): its first Lao Tzu game's drawn arrays (White 366,
#: Black 183) admit a helpmate in four plies, found in well under a second
REFEREE_SEED = 6
LAOTZU_PLIES = 4


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    server = ClubServer(tmp_path_factory.mktemp("club")).start(dice_seed=REFEREE_SEED)
    yield server
    server.stop()


def _spot(player: Player, i: int):
    return player.page.locator(f"#board polygon.spot[data-spot='{i}']")


def _click(player: Player, game: Game, pos: Position, move: Move,
           offered: list[Move], label: Callable[[Move], str]) -> bool:
    """``move`` clicked as its seat's page draws it: the cell left, the cell reached and,
    if other offered moves share those spots, the page's button for ``move`` (True: the
    page asked)."""
    layout = load_layout(layout_playing(game.name))
    spots = move_spots(game, layout, pos, move)
    assert None not in spots, move  # (the lines hold no pass)
    same = [m for m in offered if move_spots(game, layout, pos, m) == spots]
    assert move in same, move
    for spot, cell in zip(spots, (move.origin, move.target), strict=True):
        if 0 <= cell < len(game.geometry.cells):  # the spot drawn is the rules' cell
            assert _spot(player, spot).get_attribute("data-name") == game.geometry.cells[cell]
        _spot(player, spot).click()
    if len(same) > 1:
        player.page.locator("#choice-options button", has_text=re.compile(
            f"^{re.escape(label(move))}$")).click()
    return len(same) > 1


def _finish(club, expect, players, gid, game: Game, pos: Position) -> None:
    outcome = game.outcome(pos)
    assert outcome is not None and outcome.winners
    for p in players:
        expect(p.page.locator("#status")).to_contain_text(f"game over: {outcome.result}")
    g = club.hub.games[gid]
    assert len(g.moves) == len(pos.moves)
    assert (g.result, g.reason, g.winners) == (outcome.result, str(outcome.reason),
                                               outcome.winners)
    for p in players:
        p.close()


def _line(name: str) -> list[str]:
    return LUOTUOQI_LINE if name == "luotuoqi" else [n for _, n in LINES[name]]


@pytest.mark.parametrize("name", ["luotuoqi", "gnuqi", "kaleidochess", "lotus39"])
def test_a_variants_line_clicked_to_its_end(club, browser, expect, name):
    white, black = Player(browser, club, f"{name}w"), Player(browser, club, f"{name}b")
    gid = _meet_by_challenge(club, expect, white, black, name)
    game = get_game(name, **club.hub.games[gid].options)
    pos = game.start()
    asked = 0
    for k, text in enumerate(_line(name)):
        for p in (white, black):
            p.wait_ply(k)
        move = game.parse_move(pos, text)
        offered = [m for m in game.legal_moves(pos) if m.kind != "roll"]
        asked += _click((white, black)[game.ply_mover(pos)], game, pos, move, offered,
                        lambda m, at=pos: game.move_text(at, m))
        pos.push(move)
    if name == "luotuoqi":  # Black with or without the Cube, a Tower's split: asked
        assert asked == 5, asked
    _finish(club, expect, (white, black), gid, game, pos)


def _helpmate(game: Game, pos: Position, plies: int) -> list[Move] | None:
    """Moves, both sides' legal ones, that end the game in exactly ``plies`` plies."""
    if game.outcome(pos) is not None:
        return [] if plies == 0 else None
    if plies == 0:
        return None
    for move in game.legal_moves(pos):
        after = pos.copy()
        after.push(move)
        rest = _helpmate(game, after, plies - 1)
        if rest is not None:
            return [move, *rest]
    return None


def _drawn_cells(player: Player, cells: set[str]) -> set[str]:
    titles = player.page.locator("#board .pieces > g > title").all_text_contents()
    return {t for t in titles if t in cells}


def test_a_lao_tzu_game_from_the_drawn_arrays_clicked_to_mate_in_the_fog(
        club, browser, expect):
    white, black = Player(browser, club, "laotzuw"), Player(browser, club, "laotzub")
    gid = _meet_by_challenge(club, expect, white, black, "laotzu")
    refereed = club.hub.referee.games[gid]
    game = get_game("laotzu", **refereed.options)
    pos = game.start()
    assert game.position_text(pos) == game.position_text(refereed.pos)
    line = _helpmate(game, pos, LAOTZU_PLIES)
    assert line is not None, f"no helpmate in {LAOTZU_PLIES} in {refereed.options}"
    names = game.geometry.cells
    cells = set(names)
    players = (white, black)
    for k in range(len(line) + 1):
        for p in players:
            p.wait_ply(k)
        for seat, p in enumerate(players):  # only the seat's own view is drawn
            view = game.view_position(pos, seat)
            seen = {names[c] for c, piece in enumerate(view.board) if piece is not None}
            assert _drawn_cells(p, cells) == seen, (k, seat)
            hidden = {names[c] for c, piece in enumerate(pos.board)
                      if piece is not None} - seen
            assert hidden and not _drawn_cells(p, cells) & hidden
        if k == len(line):
            break
        move, seat = line[k], game.ply_mover(pos)
        view = game.view_position(pos, seat)
        text = game.long_move_text(pos, move)
        mine = [m for m in game.board_moves(view) if game.long_move_text(view, m) == text]
        assert len(mine) == 1, text
        _click(players[seat], game, view, mine[0], game.board_moves(view),
               lambda m, at=view: game.player_move_text(at, m))
        pos.push(move)
    _finish(club, expect, players, gid, game, pos)
