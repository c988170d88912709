"""The page's online forms' games (issue 36), without a browser: ``GET /api/online`` lists
the games the connected server plays and this board's layout can, each with its declared
options (lichess: chess and Chess960 only — it lists no ``variants`` in its account
answer); a seek or challenge from the routes carries the game's options to the real
fairyboard server; a bad game or option is one line (400, no traceback); an incoming
challenge shows its game's title and options, and one this layout cannot play its reason
(and Accept is refused)."""

from __future__ import annotations

import json

import pytest

from controller.online.room import ACCEPT_CHALLENGE
from controller.online.token import save_token
from controller.service import BoardService
from tests.support.clubserver import ClubServer
from tests.support.lichess import FakeLichess
from tests.support.online import OWNER, online_config, pump
from tests.support.service import make_config
from tests.support.webtools import page_client

_players = iter(range(1000))


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    server = ClubServer(tmp_path_factory.mktemp("club")).start()
    yield server
    server.stop()


def _service(tmp_path, club, fixed_layout: bool = False, **board) -> tuple[BoardService, str]:
    """The board service with a new account's token on the club's server; ``fixed_layout``:
    a board whose printed layout is the configured one only (as a physical board's)."""
    name = f"owner{next(_players)}"
    _, token = club.player(name)
    config = make_config(tmp_path, **board)
    config.online.server = club.url
    save_token(tmp_path / "online-token", token)
    svc = BoardService(config)
    if fixed_layout:
        svc._simulated_layout_for = lambda game: None  # (the simulated board could be any)
    pump(svc, lambda: svc.online.me == name)
    return svc, name


def test_the_forms_offer_every_game_of_the_server_with_its_options(tmp_path, club):
    svc, _ = _service(tmp_path, club)
    try:
        games = {g["name"]: g for g in page_client(svc).get("/api/online").json()["games"]}
        assert set(games) == {"chess", "luotuoqi", "laotzu", "gnuqi", "kaleidochess",
                              "lotus39", "lotus39-modern"}
        kaleido = {o["name"]: o for o in games["kaleidochess"]["options"]}
        assert kaleido["players"]["choices"] == [2, 3, 4] and kaleido["dice"]["type"] == "bool"
        assert [o["name"] for o in games["laotzu"]["options"]] == ["castling"]  # none drawn
        assert [o["name"] for o in games["chess"]["options"]] == ["chess960", "array"]
    finally:
        svc.close()


def test_a_board_printed_for_chess_offers_its_layouts_games_only(tmp_path, club):
    svc, _ = _service(tmp_path, club, fixed_layout=True)
    try:
        games = page_client(svc).get("/api/online").json()["games"]
        assert {g["name"] for g in games} == set(svc.layout.games) == {
            "chess", "luotuoqi", "laotzu"}  # (its printed board's games: not Gnu Qi's)
    finally:
        svc.close()


def test_on_lichess_the_forms_offer_chess_and_chess960_only(tmp_path):
    server = FakeLichess({"tok-owner": OWNER}).start()
    svc = BoardService(online_config(tmp_path, server))
    client = page_client(svc)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        games = client.get("/api/online").json()["games"]
        assert [(g["name"], [o["name"] for o in g["options"]]) for g in games] == [
            ("chess", ["chess960"])]
        for body, says in (({"variant": "kaleidochess"}, "variant: one of standard, chess960"),
                           ({"variant": "chess", "options": {"chess960": True, "array": 5}},
                            "takes no game options (array)")):
            answer = client.post("/api/online/seek", json={"minutes": 10, **body})
            assert answer.status_code == 400 and says in answer.json()["error"]
        answer = client.post("/api/online/seek", json={
            "minutes": 10, "increment": 5, "variant": "chess", "options": {"chess960": True}})
        assert answer.status_code == 200, answer.text
        pump(svc, lambda: bool(server.seeks))
        assert server.seeks[-1]["variant"] == "chess960" and "options" not in server.seeks[-1]
    finally:
        svc.close()
        server.stop()


@pytest.mark.parametrize(("body", "says"), [
    ({"variant": "atomic"}, "variant: one of standard, chess960, luotuoqi"),
    ({"variant": "kaleidochess", "options": {"players": 7}},
     "players must be one of 2, 3, 4, got 7"),
    ({"variant": "kaleidochess", "options": {"wind": 1}}, "has no option 'wind'"),
    ({"variant": "kaleidochess", "options": [3]}, "options must be an object"),
    ({"variant": "laotzu", "options": {"seed": 4}}, "seed: drawn by the server"),
    ({"variant": "chess", "options": {"array": 3}}, "array needs chess960 = true"),
    ({"variant": "gnuqi", "name": "x"}, "Gnu Qi: layout"),
])
def test_a_bad_game_or_option_is_one_line(tmp_path, club, body, says):
    svc, name = _service(tmp_path, club, fixed_layout="name" in body)
    client = page_client(svc)
    try:
        route = "/api/online/challenge" if "name" in body else "/api/online/seek"
        answer = client.post(route, json={"minutes": 10, "increment": 5, **body})
        assert answer.status_code == 400, answer.text
        error = answer.json()["error"]
        assert says in error and "\n" not in error and "Traceback" not in answer.text
        assert not any(s.account == name for s in club.hub.seeks)
    finally:
        svc.close()


def test_a_seek_carries_the_games_options_to_the_server(tmp_path, club):
    svc, name = _service(tmp_path, club, game="kaleidochess", layout="kaleido89")
    client = page_client(svc)
    try:
        answer = client.post("/api/online/seek", json={
            "minutes": 10, "increment": 5, "variant": "kaleidochess",
            "options": {"players": 3, "dice": True, "move_cap": None}})
        assert answer.status_code == 200, answer.text
        seeking = answer.json()["online"]["seeking"]
        assert seeking["title"] == "KaleidoChess"
        assert seeking["options"] == {"players": 3, "dice": True}
        pump(svc, lambda: any(s.account == name for s in club.hub.seeks))
        seek = next(s for s in club.hub.seeks if s.account == name)
        assert (seek.name, seek.options["players"], seek.options["dice"]) == (
            "kaleidochess", 3, True)
    finally:
        svc.close()


def test_incoming_challenges_show_their_game_and_why_one_cannot_be_played(tmp_path, club):
    svc, name = _service(tmp_path, club, fixed_layout=True)
    client = page_client(svc)
    _, token = club.player(f"rival{next(_players)}")
    rival = club.client(token)
    try:
        for variant, options in (("gnuqi", {}), ("chess960", {}), ("kaleidochess",
                                                                     {"dice": True})):
            rival.request("POST", f"/api/challenge/{name}", "challenge", data={
                "variant": variant, "clock.limit": "600", "clock.increment": "5",
                "options": json.dumps(options)})
        pump(svc, lambda: len(svc.online.challenges) == 3)
        shown = {c["title"]: c for c in client.get("/api/online").json()["challenges"]}
        assert set(shown) == {"Gnu Qi", "Chess960", "KaleidoChess"}
        assert shown["KaleidoChess"]["options"] == {"dice": True}
        assert shown["Chess960"]["options"] == {}  # (its title says it)
        assert shown["Chess960"]["problem"] is None and shown["Chess960"]["clock"] == "10+5"
        assert "not made for gnuqi" in shown["Gnu Qi"]["problem"]
        answer = client.post("/api/online/answer", json={"challenge": shown["Gnu Qi"]["id"],
                                                         "accept": True})
        assert answer.status_code == 400 and "Gnu Qi: layout" in answer.json()["error"]
        svc.online.from_board(ACCEPT_CHALLENGE)  # the pads: the oldest it can play
        pump(svc, lambda: shown["Chess960"]["id"] not in club.hub.challenges)
        assert shown["Gnu Qi"]["id"] in club.hub.challenges
        assert client.post("/api/online/answer", json={
            "challenge": shown["Gnu Qi"]["id"], "accept": False}).status_code == 200
        pump(svc, lambda: shown["Gnu Qi"]["id"] not in club.hub.challenges)  # declined there
    finally:
        rival.close()
        svc.close()
