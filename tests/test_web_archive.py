"""The page's game archive (issue 30, Deliver 5): the journal's games listed, each chess
game downloaded as PGN that python-chess (a test-only oracle) reads back, replayed
position by position, reviewed through the engine's worker; hidden-information games
that have not ended are never sent; bad ids and damaged files are one line, never 500."""

from __future__ import annotations

import io
import time
import warnings

import chess
import chess.pgn
import pytest

from controller.journal import Journal
from controller.rules import get_game
from controller.sensing.sim.objects import position_objects
from controller.web.app import create_app
from controller.web.guard import Guard, policy_for

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.service(game="chess", layout="square8")
FOOLS = ["f3", "e5", "g4", "Qh4#"]


def _write(journal: Journal, name: str, moves: list[str], *, options=None, setup=None,
           end=None, seats=None, clock=None, players=None) -> str:
    """A game written through the journal as the board writes it; its id."""
    game = get_game(name, **(options or {}))
    pos = game.parse_position(setup) if setup else game.start()
    writer = journal.new_game(name, game.options, game.position_text(pos),
                              players or list(game.player_names), seats=seats, clock=clock)
    for text in moves:
        move = game.parse_move(pos, text)
        writer.move(game.move_text(pos, move), game.long_move_text(pos, move),
                    clock=[100.0] * game.players if clock else None)
        pos.push(move)
    if end:
        writer.end(*end)
    writer.close()
    return writer.path.stem


def _random_moves(name: str, plies: int, seed: int, **options) -> list[str]:
    import random

    rng = random.Random(seed)
    game = get_game(name, **options)
    pos = game.start()
    texts = []
    for _ in range(plies):
        moves = game.legal_moves(pos)
        if not moves or game.outcome(pos) is not None:
            break
        move = rng.choice(moves)
        texts.append(game.move_text(pos, move))
        pos.push(move)
    return texts


def test_the_list_names_every_game_its_players_result_and_moves(svc, client):
    journal = svc.journal
    fools = _write(journal, "chess", FOOLS, end=("0-1", "checkmate"),
                   seats={"computer": [1], "level": 4}, clock="5+3")
    other = _write(journal, "luotuoqi", _random_moves("luotuoqi", 6, 1))
    (journal.folder / "20200101-000000-chess.jsonl").write_bytes(b"\x00garbage\n")
    data = client.get("/api/games").json()
    by_id = {g["id"]: g for g in data["games"]}
    assert by_id[fools]["players"] == ["White", "fairyboard level 4"]
    assert (by_id[fools]["result"], by_id[fools]["reason"], by_id[fools]["moves"]) == (
        "0-1", "checkmate", 4)
    assert by_id[fools]["title"] == "Chess" and by_id[fools]["date"].count(":") == 2
    assert by_id[other]["moves"] == 6 and by_id[other]["result"] is None
    assert data["live"] == svc.game_id and svc.game_id in by_id  # the game on the board
    assert len(data["problems"]) == 1 and "20200101-000000-chess" in data["problems"][0]
    assert "\n" not in data["problems"][0]


def test_every_chess_game_downloads_as_pgn_that_python_chess_reads(svc, client):
    journal = svc.journal
    cases = [
        (_write(journal, "chess", FOOLS, end=("0-1", "checkmate"),
                seats={"computer": [0], "level": 6}, clock="5+3"), FOOLS, None),
        (_write(journal, "chess", ["Rd8#"], setup="6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
                end=("1-0", "checkmate")), ["Rd8#"], "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"),
    ]
    c960 = _random_moves("chess", 12, 5, chess960=True, array=17)
    cases.append((_write(journal, "chess", c960, options={"chess960": True, "array": 17}),
                  c960, None))
    for game_id, moves, fen in cases:
        r = client.get(f"/api/games/{game_id}.pgn")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("application/x-chess-pgn")
        assert f'filename="{game_id}.pgn"' in r.headers["content-disposition"]
        read = chess.pgn.read_game(io.StringIO(r.text))
        assert read is not None and not read.errors, read.errors if read else r.text
        board = read.board()
        if fen:
            assert read.headers["FEN"] == fen and read.headers["SetUp"] == "1"
        sans = []
        for move in read.mainline_moves():
            sans.append(board.san(move))
            board.push(move)
        assert sans == moves
    first = chess.pgn.read_game(io.StringIO(client.get(f"/api/games/{cases[0][0]}.pgn").text))
    assert first.headers["White"] == "fairyboard level 6"
    assert first.headers["TimeControl"] == "300+3" and first.headers["Variant"] == "Standard"
    third = chess.pgn.read_game(io.StringIO(client.get(f"/api/games/{cases[2][0]}.pgn").text))
    assert third.headers["Variant"] == "Chess960"


def test_a_variant_downloads_with_its_variant_tag_and_its_own_moves(svc, client):
    moves = _random_moves("luotuoqi", 8, 2)
    game_id = _write(svc.journal, "luotuoqi", moves)
    text = client.get(f"/api/games/{game_id}.pgn").text
    assert '[Variant "' in text and '[Result "*"]' in text
    for move in moves:
        assert "".join(move.split()) in text


def test_replay_gives_every_position_as_the_board_drawing_shows_pieces(svc, client):
    game_id = _write(svc.journal, "chess", FOOLS, end=("0-1", "checkmate"))
    data = client.get(f"/api/games/{game_id}/replay").json()
    assert [p["text"] for p in data["plies"]] == FOOLS
    assert [p["player"] for p in data["plies"]] == [0, 1, 0, 1]
    assert len(data["positions"]) == 5
    game = get_game("chess")
    pos = game.start()
    for move in FOOLS:
        pos.push(game.parse_move(pos, move))
    want = {str(i): [o["name"] for o in objs] for i, objs in data["positions"][-1].items()}
    assert want == {str(i): names for i, names in position_objects(game, pos, svc.layout).items()}
    h4 = svc.layout.spot_index("h4")
    assert data["positions"][-1][str(h4)][0]["name"] == "black-Q"
    assert str(h4) not in data["positions"][0]


def test_a_game_of_another_board_is_listed_and_downloaded_but_not_drawn(svc, client):
    game_id = _write(svc.journal, "gnuqi", _random_moves("gnuqi", 4, 3))
    r = client.get(f"/api/games/{game_id}/replay")
    assert r.status_code == 409 and "another board" in r.json()["error"]
    assert client.get(f"/api/games/{game_id}.pgn").status_code == 200


def test_an_unfinished_hidden_information_game_is_never_sent(svc, client):
    moves = _random_moves("laotzu", 6, 4, white_array=518, black_array=518)
    secret = _write(svc.journal, "laotzu", moves,
                    options={"white_array": 518, "black_array": 518})
    entry = next(g for g in client.get("/api/games").json()["games"] if g["id"] == secret)
    assert entry["hidden"] and "once it has ended" in entry["refused"]
    for path in (".pgn", "/replay", "/review", "/review.svg"):
        r = client.get(f"/api/games/{secret}{path}")
        assert r.status_code == 403, (path, r.status_code)
        assert set(r.json()) == {"error"} and "has not ended" in r.json()["error"]
        for text in moves:  # not one of its moves
            assert text not in r.text
    ended = _write(svc.journal, "laotzu", moves, end=("1/2-1/2", "agreement"),
                   options={"white_array": 518, "black_array": 518})
    r = client.get(f"/api/games/{ended}.pgn")
    assert r.status_code == 200 and "".join(moves[0].split()) in r.text
    r = client.get(f"/api/games/{ended}/review")  # from its full record, once ended
    assert r.status_code == 200 and r.json()["status"] in ("working", "ready")


@pytest.mark.parametrize(("game_id", "status"), [
    ("nope", 404), (".hidden", 404), ("..x", 404), ("a" * 200, 404), ("x%00y", 404),
    ("a b", 404), ("20261202-000000-chess", 404)])
def test_a_bad_id_is_one_line_never_a_server_error(client, game_id, status):
    for path in (".pgn", "/replay", "/review", "/review.svg"):
        r = client.get(f"/api/games/{game_id}{path}")
        assert r.status_code == status, (game_id, path, r.status_code, r.text)
        error = r.json()["error"]
        assert "\n" not in error and len(error) < 200


def test_a_damaged_file_is_one_line_and_a_torn_one_keeps_its_moves(svc, client):
    folder = svc.journal.folder
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "20200101-000000-chess.jsonl").write_bytes(b'{"type":"start"\n\xff\xfe')
    r = client.get("/api/games/20200101-000000-chess.pgn")
    assert r.status_code == 422 and "cannot be read" in r.json()["error"]
    game_id = _write(svc.journal, "chess", FOOLS)
    path = folder / f"{game_id}.jsonl"
    path.write_bytes(path.read_bytes() + b'{"type":"move","mo')  # a torn last record
    r = client.get(f"/api/games/{game_id}.pgn")
    assert r.status_code == 200 and "Qh4#" in r.text and "Damaged" in r.text


def test_the_review_comes_from_the_engine_and_marks_the_move_allowing_mate(svc, client):
    game_id = _write(svc.journal, "chess", FOOLS, end=("0-1", "checkmate"))
    first = client.get(f"/api/games/{game_id}/review.svg")
    assert first.status_code in (200, 202)
    assert first.headers["content-type"].startswith("image/svg+xml")
    deadline = time.monotonic() + 60
    while True:
        data = client.get(f"/api/games/{game_id}/review").json()
        if data["status"] != "working":
            break
        assert 0 <= data["done"] <= data["total"] == 5
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert data["status"] == "ready", data
    g4 = next(m for m in data["mistakes"] if m["ply"] == 3)
    assert g4["played"] == "g4" and g4["words"].startswith("g4 allows mate in 1")
    assert g4["marks"] and all(0 <= c < 64 for c in g4["marks"])
    assert str(svc.layout.spot_index("g2")) in g4["pieces"]  # the position before g4
    assert 'class="mistake"' in data["svg"] and 'data-ply="3"' in data["svg"]
    picture = client.get(f"/api/games/{game_id}/review.svg")
    assert picture.status_code == 200 and 'data-ply="3"' in picture.text


def test_no_review_is_judged_while_an_online_game_is_played(svc):
    from controller.journal import read_game
    from controller.reviewing import GameReviews

    asked = []
    online = [True]
    reviews = GameReviews(lambda *a: asked.append(a), online=lambda: online[0])
    game_id = _write(svc.journal, "chess", FOOLS, end=("0-1", "checkmate"))
    record = read_game(svc.journal.folder / f"{game_id}.jsonl")
    status = reviews.status(record)
    assert status["status"] == "waiting" and "online game" in status["reason"]
    assert asked == []


def test_the_archive_is_guarded_like_every_api_route(svc):
    policy = policy_for("0.0.0.0", [], [], svc.journal.folder.parent / "pairing-token")
    client = TestClient(Guard(create_app(svc), policy), base_url="http://127.0.0.1:8080")
    for path in ("/api/games", f"/api/games/{svc.game_id}.pgn"):
        r = client.get(path)
        assert r.status_code == 401 and "pair" in r.json()["error"]
    r = client.get("/api/games", headers={"X-Fairyboard-Token": policy.token})
    assert r.status_code == 200 and r.json()["live"] == svc.game_id


def test_a_job_done_at_once_neither_hangs_nor_loses_its_scores(tmp_path):
    """A worker answer ready before its callback is added (a fast job, a broken pool's
    exception) runs the callback at once, in the thread asking: no deadlock."""
    import threading
    from concurrent.futures import Future

    from controller.journal import read_game
    from controller.reviewing import GameReviews

    def at_once(function, *args):
        future: Future = Future()
        future.set_result(function(*args))
        return future

    journal = Journal(tmp_path)
    record = read_game(journal.folder / f"{_write(journal, 'chess', FOOLS)}.jsonl")
    reviews = GameReviews(at_once, online=lambda: False, nodes=300)
    seen: list[str] = []
    asking = threading.Thread(
        target=lambda: seen.extend(reviews.status(record)["status"] for _ in range(3)),
        daemon=True)
    asking.start()
    asking.join(30)
    assert not asking.is_alive(), "the review deadlocked"
    assert seen[-1] == "ready", seen

    def broken(function, *args):
        future: Future = Future()
        future.set_exception(RuntimeError("the worker died"))
        return future

    failing = GameReviews(broken, online=lambda: False)
    assert failing.status(record)["status"] == "working"
    failed = failing.status(record)
    assert failed["status"] == "failed" and "RuntimeError" in failed["reason"]
