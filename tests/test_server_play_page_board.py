"""The play page's drawn board from the server (``/api/board/game/{id}/board``, no
browser): every game's pieces and moves on the spots of its printed board, each move's
text taken by the server, a hidden-information seat told only its view, a watcher the
club view, and bad requests one line each."""

from __future__ import annotations

import re

import httpx
import pytest

from controller.rules import GAMES, get_game
from controller.server.seatboard import layout_data
from tests.support.clubserver import ClubServer, challenge_game, seek_together


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    server = ClubServer(tmp_path_factory.mktemp("club")).start()
    server.players = [server.player(name) for name in ("ann", "ben", "cid", "dan", "eve")]
    yield server
    server.stop()


def _get(club, token: str, path: str) -> httpx.Response:
    return httpx.get(club.url + path, headers={"Authorization": f"Bearer {token}"},
                     timeout=5)


def _board(club, token: str, gid: str) -> dict:
    answer = _get(club, token, f"/api/board/game/{gid}/board")
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.mark.parametrize("name", [n for n in GAMES if n != "kaleidochess"] + ["kaleido4"])
def test_every_games_board_and_moves_are_on_its_printed_board(club, name):
    """The seat to move is offered exactly its legal moves (the server's die rolls
    excepted), each between spots of the layout, and the first one is played as sent."""
    a, b, c, d = club.players[:4]
    if name == "kaleido4":
        gid, _ = seek_together(club, [t for _, t in (a, b, c, d)], "kaleidochess",
                               {"players": 4})
    else:
        gid, _, _ = challenge_game(club, a, b, name)
    g = club.hub.games[gid]
    by_seat = [dict(club.players)[account] for account in g.seats]
    game = g.game
    mover = g.turn
    data = _board(club, by_seat[mover], gid)
    assert data["seat"] == mover and data["ply"] == g.ply
    assert data["moves"]
    if data["layout"] is None:  # a game no printed board plays (the test-only seventh)
        assert name == "kingofthehill" and data["pieces"] == {}
        assert {(m["from"], m["to"]) for m in data["moves"]} == {(None, None)}
    else:
        layout = layout_data(data["layout"])
        spots = len(layout["spots"])
        assert all(0 <= int(i) < spots for i in data["pieces"])
        for m in data["moves"]:
            assert m["from"] is None or 0 <= m["from"] < spots
            assert m["to"] is None or 0 <= m["to"] < layout["cell_count"]
    if not game.hidden_information:
        legal = [mv for mv in game.legal_moves(g.pos) if mv.kind != "roll"]
        assert len(data["moves"]) == len(legal)
        if data["layout"] is not None:
            assert {mv.origin for mv in legal if mv.origin >= 0} <= {
                int(i) for i in data["pieces"]}
    other = (mover + 1) % len(by_seat)
    assert _board(club, by_seat[other], gid)["moves"] == []  # not its turn
    api = club.client(by_seat[mover])
    for m in data["moves"]:  # (a refereed seat's move may be refused: the next one)
        try:
            api.move(gid, m["text"])
            break
        except Exception as exc:  # noqa: BLE001 - the referee's refusal
            assert "illegal move" in str(exc)
    assert g.ply >= 1
    after = _board(club, by_seat[other], gid)
    assert after["ply"] == g.ply
    if not game.hidden_information:
        assert after["notation"][0] == data["moves"][[m["text"] for m in data["moves"]]
                                                     .index(g.moves[0])]["label"]
    api.resign(gid)


def test_a_hidden_seat_and_a_watcher_are_told_only_what_they_may_know(club):
    a, b, c = club.players[:3]
    gid, api_a, _ = challenge_game(club, a, b, "laotzu")
    g = club.hub.games[gid]
    refereed = club.hub.referee.games[gid]
    game = get_game("laotzu", **refereed.options)
    api_a.move(gid, "e2e4")
    black = _board(club, b[1], gid)
    view = game.view_position(refereed.pos, 1)
    assert black["position"] == game.position_text(view)
    assert {int(i) for i in black["pieces"] if int(i) < 64} == {
        c for c, p in enumerate(view.board) if p is not None}
    assert black["notation"] is None and "e2e4" not in str(black)
    assert {m["text"] for m in black["moves"]} == {
        game.long_move_text(view, mv) for mv in game.board_moves(view)}
    assert black["fog"] and 28 not in {int(i) for i in black["pieces"]}  # e4 unseen
    watcher = _board(club, c[1], gid)
    assert watcher["seat"] is None and watcher["pieces"] == {} and watcher["moves"] == []
    assert watcher["notation"] == [] and watcher["position"] == ""
    club.client(b[1]).resign(gid)
    assert _board(club, c[1], gid)["notation"] == g.moves == refereed.moves


@pytest.mark.parametrize("path", ["/api/board/game/nosuch/board",
                                  "/api/board/game/" + "x" * 300 + "/board",
                                  "/api/board/game/nosuch/watch",
                                  "/api/layout/nosuch", "/api/layout/%2E%2E"])
def test_bad_requests_are_one_line(club, path):
    answer = _get(club, club.players[0][1], path)
    assert 400 <= answer.status_code < 500, answer.text
    assert answer.json()["error"] and "\n" not in answer.json()["error"]


def test_a_request_without_a_session_is_refused(club):
    answer = httpx.get(club.url + "/api/layout/square8", timeout=5)
    assert answer.status_code == 401


def _browser(club, name: str) -> tuple[httpx.Client, str]:
    """A logged-in browser (its session cookie) and its lobby's CSRF token."""
    client = httpx.Client(base_url=club.url)
    pre = re.search(r"name=csrf value='([^']+)'", client.get("/").text).group(1)
    assert client.post("/signup", data={"name": name, "password": "a long password",
                                        "csrf": pre}).status_code == 303
    csrf = re.search(r"name=csrf value='([^']+)'", client.get("/").text).group(1)
    return client, csrf


def test_the_lobby_forms_keep_each_games_options_and_need_the_token(club):
    kim, csrf = _browser(club, "kim")
    lee, lee_csrf = _browser(club, "lee")
    seek = {"variant": "kaleidochess", "time": "5", "increment": "0",
            "option.players": "3", "option.dice": "true", "option.chess960": "true"}
    for path in ("/seek", "/challenge", "/seek/x/cancel", "/seek/x/join",
                 "/challenge/x/cancel"):
        assert kim.post(path, data=seek).status_code == 403  # no CSRF token
    assert kim.post("/seek", data={**seek, "csrf": csrf}).status_code == 303
    mine = next(s for s in club.hub.seeks if s.account == "kim")
    assert mine.options["players"] == 3 and mine.options["dice"] is True
    assert "chess960" not in mine.options  # (chess's option: not KaleidoChess's)
    assert lee.post(f"/seek/{mine.id}/cancel", data={"csrf": lee_csrf}).status_code == 404
    assert kim.post(f"/seek/{mine.id}/cancel", data={"csrf": csrf}).status_code == 303
    assert mine not in club.hub.seeks
    bad = kim.post("/seek", data={"variant": "luotuoqi", "option.stone_budget": "lots",
                                  "csrf": csrf})
    assert bad.status_code == 400 and "stone_budget must be a whole number" in bad.text
    answer = kim.post("/challenge", data={"variant": "chess", "opponent": "Lee",
                                          "color": "black", "option.chess960": "true",
                                          "csrf": csrf})
    assert answer.status_code == 303
    c = next(c for c in club.hub.challenges.values() if c.challenger == "kim")
    assert (c.dest, c.color, c.options["chess960"]) == ("lee", "black", True)
    assert f"/challenge/{c.id}/accept" in lee.get("/").text
    assert kim.post(f"/challenge/{c.id}/cancel", data={"csrf": csrf}).status_code == 303
    assert c.id not in club.hub.challenges
