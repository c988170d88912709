"""Whole games of every variant through the fairyboard server between two (three, four)
Board API clients: each game to its end by the rules, its record in the store replayed by
the rules; KaleidoChess with 3 and 4 seats and the server's dice (a game on PostgreSQL:
tests/test_server_postgres.py)."""

from __future__ import annotations

import pytest

from controller.rules import get_game
from tests.support.clubserver import ClubServer, challenge_game, play, seek_together


@pytest.fixture
def club(tmp_path):
    server = ClubServer(tmp_path).start()
    yield server
    server.stop()


@pytest.mark.parametrize("variant, seed", [
    ("luotuoqi", 5), ("gnuqi", 1), ("kaleidochess", 1), ("lotus39", 1),
    ("lotus39-modern", 1), ("chess960", 1)])
def test_a_whole_game_of_each_variant(club, variant, seed):
    a, b = club.player("alice"), club.player("bob")
    gid, api_a, api_b = challenge_game(club, a, b, variant)
    seats = play(club, [api_a, api_b], gid, seed)
    g = club.hub.games[gid]
    assert g.ended and seats[0].final["status"] == g.status
    assert club.server.store.moves(gid) == g.moves  # every ply stored, once
    game = get_game(g.name, **g.options)
    pos = game.parse_position(g.initial)
    for text in g.moves:
        pos.push(game.parse_move(pos, text))  # the server's record replays by the rules
    if g.status not in ("resign",):
        assert game.outcome(pos) is not None


@pytest.mark.parametrize("options", [{"players": 3}, {"players": 4, "dice": True},
                                     {"dice": True}])
def test_kaleidochess_with_three_and_four_seats_and_dice(club, options):
    players = [club.player(n) for n in ("ann", "ben", "cat", "dan")[:options.get("players", 2)]]
    gid, apis = seek_together(club, [t for _, t in players], "kaleidochess", options)
    seats = play(club, apis, gid)
    g = club.hub.games[gid]
    assert g.ended
    if options.get("dice"):
        assert any(m.startswith("die:") for m in g.moves)  # the server rolled
    assert len(seats[0].lines[0]["seats"]) == len(players)
    assert len(seats[0].final["times"]) == len(players)


def test_two_chess960_seeks_meet_and_the_array_is_drawn_for_the_game(club):
    players = [club.player(n) for n in ("ann", "ben")]
    gid, apis = seek_together(club, [t for _, t in players], "chess960", {})
    g = club.hub.games[gid]
    assert g.options["chess960"] and 0 <= g.options["array"] < 960
    full = next(apis[0].stream_game(gid))
    assert full["variant"]["key"] == "chess960"
    assert full["initialFen"] == get_game("chess", **g.options).position_text(
        get_game("chess", **g.options).start())
