"""The screen-reader mode's routes: a move typed in the game's notation or by its cells is
made on the simulated board by the simulated hand (the board learns it from its sensors
and announces it), text that fits several moves lists them and makes none, a real board is
shown the move like the computer's; the board as text answers from the viewer's sight
alone; bad input is one clear line."""

from __future__ import annotations

import pytest

from controller.keyboard import typed_moves
from controller.rules import get_game
from controller.sight import Sight
from controller.speech import describe
from tests.support.service import page_service
from tests.support.webtools import page_client


def _service(tmp_path, game, layout, **options):
    svc = page_service(tmp_path, game, layout=layout, **options)
    client = page_client(svc)
    assert client.post("/api/sim", json={"action": "arrange"}).json()["ok"]
    svc.step(0.2)
    assert svc.interaction.phase == "turn", svc.interaction
    return svc, client


def _type(client, svc, text, **extra):
    r = client.post("/api/access/move", json={"text": text, **extra})
    svc.step(2.0)  # the hand's actions, the settle, the commit
    return r


def _said(client):
    return [a["text"] for a in client.get("/api/state").json()["announcements"]
            if a["event"] in ("move", "game_over")]


@pytest.mark.parametrize("game, layout, typed, plies, words", [
    ("chess", "square8", ["e4", "e7 e5", "g1f3", "nc6"], ["e4", "e5", "Nf3", "Nc6"],
     ["Pawn e2 to e4", "Pawn e7 to e5", "Knight g1 to f3", "Knight b8 to c6"]),
    ("luotuoqi", None, ["e2 d3", "ec7-d6"], ["Ee2-d3", "Ec7-d6"],
     ["Eaglet e2 to d3", "Eaglet c7 to d6"]),
    ("kaleidochess", "kaleido89", ["8g 1d"], ["8G-1D"], None),
    ("lotus39", "lotus39", ["e3 e4"], ["e4"], None),
    ("gnuqi", "square9", ["b1 d2"], None, None),
])
def test_a_typed_move_is_made_by_the_hand_and_announced(tmp_path, game, layout, typed,
                                                         plies, words):
    svc, client = _service(tmp_path, game, layout)
    try:
        for text in typed:
            r = _type(client, svc, text)
            assert r.status_code == 200 and r.json()["ok"], r.json()
            assert r.json()["how"] == "hand"
        assert len(svc.plies) == len(typed)
        if plies:
            assert [t for _, t in svc.plies] == plies
        said = _said(client)
        assert len(said) == len(typed)
        if words:
            assert said == words
    finally:
        svc.close()


def test_text_that_fits_several_moves_lists_them_and_makes_none(tmp_path):
    svc, client = _service(tmp_path, "luotuoqi", None)
    try:
        assert _type(client, svc, "Ee2-d3").json()["ok"]
        game, pos = svc.game, svc.position
        text = "c7 d6"  # with the Cube handed over, or without
        fitting = sorted(game.move_text(pos, m) for m in game.legal_moves(pos)
                         if (m.origin, m.target) == (game.geometry.cell("c7"),
                                                     game.geometry.cell("d6")))
        assert len(fitting) > 1
        r = _type(client, svc, text)
        assert r.status_code == 200 and r.json()["ok"] is False
        assert sorted(r.json()["choices"]) == fitting
        assert "fits several moves" in r.json()["message"]
        assert len(svc.plies) == 1
        r = _type(client, svc, fitting[-1])  # one of them, typed as listed
        assert r.json()["ok"] and svc.plies[-1][1] == fitting[-1]
    finally:
        svc.close()


def test_in_lao_tzu_moves_typed_by_cells_are_those_of_the_players_view(tmp_path):
    svc, client = _service(tmp_path, "laotzu", "square8", seed="3")
    try:
        game = svc.game
        # a line that captures at once in fog (as the player knows it)
        for _ in range(12):
            view = Sight(game, svc.position).view
            takes = [m for m in view.moves() if m.captures and m in game.legal_moves(svc.position)]
            move = takes[0] if takes else next(m for m in view.moves()
                                                if m in game.legal_moves(svc.position))
            cells = game.geometry.cells
            text = view.move_text(move) if move.kind == "drop" else \
                f"{cells[move.origin]} {cells[move.target]}"
            r = _type(client, svc, text)
            if r.json().get("choices"):
                r = _type(client, svc, r.json()["choices"][0])
            assert r.status_code == 200 and r.json()["ok"], r.json()
            if takes:
                break
        assert any("x" in t for _, t in svc.plies)
    finally:
        svc.close()


def test_a_real_board_is_shown_the_typed_move_like_the_computers(tmp_path):
    svc, client = _service(tmp_path, "chess", "square8")
    try:
        sim, svc.sim = svc.sim, None  # the hand is not there: a real board's player
        try:
            r = client.post("/api/access/move", json={"text": "e4"})
        finally:
            svc.sim = sim
        assert r.json() == {"ok": True, "move": "e4", "how": "shown"}
        svc.step(0.1)
        assert svc.interaction.phase == "execute"
        said = client.get("/api/state").json()["announcements"]
        assert said[-1]["event"] == "execute"
        assert said[-1]["text"] == "Pawn e2 to e4. Make this move on the board"
        svc.sim = None
        try:
            r = client.post("/api/access/move", json={"text": "d4"})
        finally:
            svc.sim = sim
        assert r.status_code == 400 and "not waiting for a move" in r.json()["error"]
    finally:
        svc.close()


@pytest.mark.parametrize("body, line", [
    ({"text": "zz9"}, "no move fits 'zz9'"),
    ({"text": ""}, "'text' must be a text"),
    ({"text": 7}, "'text' must be a text"),
    ({"text": "e4" * 40}, "longer than 60"),
    ({"text": "e4", "viewer": 5}, "a player is a number 0..1"),
    ({"text": "e4", "as": "White"}, "unknown field 'as'"),
    ({"text": "e5"}, "no move fits 'e5'"),
])
def test_bad_typed_moves_are_one_clear_line(client, svc, body, line):
    assert client.post("/api/sim", json={"action": "arrange"}).json()["ok"]
    svc.step(0.2)
    r = client.post("/api/access/move", json=body)
    assert r.status_code == 400 and line in r.json()["error"], r.json()
    assert "\n" not in r.json()["error"]


pytestmark = pytest.mark.service(game="chess", layout="square8")


@pytest.mark.parametrize("body, line", [
    ({"ask": "where", "kind": "zebra"}, "No piece is called zebra"),
    ({"ask": "piece", "cell": "z9"}, "There is no cell z9"),
    ({"ask": "piece"}, "'cell' must be a text"),
    ({"ask": "weather"}, "expected"),
    ({"ask": "board", "lang": "klingon"}, "unknown language 'klingon'"),
    ({"ask": "board", "lang": 3}, "lang must be"),
])
def test_bad_questions_are_one_clear_line(client, body, line):
    r = client.post("/api/access/ask", json=body)
    assert r.status_code == 400 and line in r.json()["error"], r.json()


def test_a_bad_typed_move_is_said_in_the_pages_language(client):
    r = client.post("/api/access/move", json={"text": "e4", "viewer": 5},
                    headers={"Accept-Language": "de"})
    assert r.status_code == 400
    assert r.json()["error"] == "move: ein Spieler ist eine Zahl 0..1, erhalten '5'"


def test_the_board_as_text_in_chess(client, svc):
    ask = lambda **q: client.post("/api/access/ask", json=q).json()["text"]  # noqa: E731
    assert ask(ask="where", kind="Knights") == ("White: Knight on b1 and Knight on g1. "
                                                "Black: Knight on b8 and Knight on g8.")
    assert ask(ask="where", kind="N", owner=1) == "Black: Knight on b8 and Knight on g8."
    assert ask(ask="piece", cell="g1") == "White Knight on g1: can go to f3 and h3"
    assert ask(ask="piece", cell="b8") == ("Black Knight on b8: on Black's turn: "
                                           "can go to a6 and c6")
    assert ask(ask="piece", cell="e4") == "E4 is empty"
    assert ask(ask="piece", cell="a1") == "White Rook on a1: cannot move now"
    board = ask(ask="board")
    assert board.startswith("White to move. White: Rook on a1, Knight on b1")
    assert board.count(" on ") == 32
    assert ask(ask="where", kind="Springer", owner=0, lang="de") == (
        "Weiß: Springer auf b1 und Springer auf g1.")
    kinds = client.get("/api/access?lang=fr").json()["kinds"]
    assert {"kind": "N", "name": "Cavalier"} in kinds


def test_in_fog_the_answers_name_only_what_the_viewer_sees():
    game = get_game("laotzu", seed="3")
    pos = game.start()
    for _ in range(6):
        pos.push(game.legal_moves(pos)[0])
    for viewer in (0, 1):
        sight = Sight(game, pos, viewer)
        view = sight.view
        said = [describe.board_text(game, pos, sight)]
        said += [describe.piece_text(game, pos, sight, c)
                 for c in range(len(game.geometry.cells))]
        said += [describe.where_text(game, pos, sight, k, o)
                 for k in game.piece_names for o in (None, 0, 1)]
        for cell in sight.fog:
            name = game.geometry.cells[cell]
            assert describe.piece_text(game, pos, sight, cell) == f"You cannot see {name}"
        for text in said:
            for cell in sight.fog:  # a hidden cell is named only as out of sight
                name = game.geometry.cells[cell]
                if f" {name}" in f" {text}".replace(",", " ").replace(".", " "):
                    assert text == f"You cannot see {name}", text
        enemies = dict(view.enemies)
        hidden = [(c, p) for c, p in enumerate(pos.board)
                  if p is not None and p.owner != viewer and c not in enemies]
        assert hidden, "the test wants a hidden enemy piece"
        assert str(len(sight.fog)) + " cells out of sight" in said[0]


def test_typed_moves_never_guess():
    game = get_game("chess")
    pos = game.start()
    moves = game.legal_moves(pos)
    def text(m):
        return game.move_text(pos, m)
    assert [text(m) for m in typed_moves(game, pos, moves, "Nf3", text)] == ["Nf3"]
    assert [text(m) for m in typed_moves(game, pos, moves, "g1 f3", text)] == ["Nf3"]
    assert [text(m) for m in typed_moves(game, pos, moves, "f3", text)] == ["f3"]  # notation
    assert sorted(text(m) for m in typed_moves(game, pos, moves, "to f3", text)) == ["Nf3",
                                                                                     "f3"]
    assert typed_moves(game, pos, moves, "e2 e5", text) == []
    assert typed_moves(game, pos, moves, "", text) == []


def test_the_computers_move_to_make_may_be_typed_for_the_hand(tmp_path):
    from controller.opponent import Computer
    from controller.service import BoardService
    from tests.support.service import make_config, wait_for

    # the computer's moves not made by its own hand: the person makes them
    svc = BoardService(make_config(tmp_path, layout="square8", game="chess",
                                   simulated_hand_moves=False))
    try:
        svc.new_game("chess", {}, None, Computer(frozenset({1}), 1))
        client = page_client(svc)
        assert client.post("/api/sim", json={"action": "arrange"}).json()["ok"]
        svc.step(0.2)
        assert _type(client, svc, "e4").json()["ok"]
        wait_for(svc, lambda: svc.interaction.phase == "execute")
        shown = svc.game.move_text(svc.position, svc.board.progress.execute)
        r = client.post("/api/access/move", json={"text": "a7 a5" if shown != "a5" else "h6"})
        assert r.status_code == 400 and "no move fits" in r.json()["error"]
        r = _type(client, svc, shown)
        assert r.json()["ok"], r.json()
        assert [t for _, t in svc.plies] == ["e4", shown]
    finally:
        svc.close()
