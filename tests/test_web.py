"""The companion page's server: JSON API, live updates, and what a Lao Tzu viewer sees."""

from __future__ import annotations

import json
import re
import warnings

import pytest

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")

from controller.rules.laotzu import view
from controller.web.app import STATIC
from controller.web.page import page_state
from tests.support.service import page_service as make_service


def test_page_and_static_files_work_offline(client):
    page = client.get("/")
    assert page.status_code == 200 and "<svg id=\"board\"" in page.text
    for name in ("app.js", "style.css"):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and len(r.text) > 1000
    for path in STATIC.iterdir():  # no CDN, no remote font: the page works offline
        assert not re.search(r"(src|href)=\"https?://|url\(https?:|@import", path.read_text())


def test_layout_has_every_spot_outline(client, svc):
    data = client.get("/api/layout").json()
    assert len(data["spots"]) == len(svc.layout.spots) == 82
    a1 = data["spots"][0]
    assert a1["name"] == "a1" and len(a1["outline"]) == 4 and a1["fill"] == "#8c7d6a"
    cube = next(s for s in data["spots"] if s["role"] == "token" and s["owner"] == 0)
    assert cube["label"] == "Cube" and cube["kind"] == "pad"
    assert data["size"] == [410.0, 440.0]


@pytest.mark.parametrize("layout", ["kaleido89", "lotus39", "square9"])
def test_round_lotus_and_river_boards_are_drawn_from_mm_outlines(tmp_path, layout):
    from controller.layout import load_layout
    from controller.web.state import layout_json

    data = layout_json(load_layout(layout))
    shapes = {len(s["outline"]) for s in data["spots"] if s["kind"] == "cell"}
    if layout == "kaleido89":
        assert max(shapes) > 4  # ring segments: many points per outline
    if layout == "lotus39":
        assert {3, 4, 6} <= shapes  # triangles, squares, hexagons
    if layout == "square9":
        assert len(data["rivers"]) == 2


def test_state_and_health(client, svc):
    state = client.get("/api/state").json()
    assert state["game"]["name"] == "luotuoqi" and state["phase"] == "setup"
    assert state["sim"] is True and state["mover"] == 0 and state["moves"] == []
    assert len(state["leds"]) == len(svc.layout.spots)
    health = client.get("/health")
    assert health.status_code == 200
    h = health.json()
    assert h["status"] == "ok" and h["journal"].endswith(".jsonl")
    assert set(h["sensing"]) >= {"backend", "state", "last_frame_age_s"}
    assert "uptime_s" in h


def test_simulator_actions_and_errors(client, svc):
    r = client.post("/api/sim", json={"action": "lift", "spot": "e4"})
    assert r.status_code == 400 and r.json()["error"] == "nothing to lift on e4"
    r = client.post("/api/sim", content=b"{not json")
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]
    answer = client.post("/api/sim", json={"action": "arrange"}).json()
    assert answer["ok"] is True and answer["state"]["seq"] == svc.version  # fresh state
    svc.step(0.1)
    client.post("/api/sim", json={"action": "lift", "spot": "b1"})
    svc.step(0.05)
    state = client.get("/api/state").json()
    assert state["phase"] == "lifted" and [o["name"] for o in state["held"]] == ["white-M"]
    b1 = svc.layout.spot_index("b1")
    assert str(b1) not in state["pieces"]
    client.post("/api/sim", json={"action": "place", "spot": "c3"})
    svc.step(0.3)
    state = client.get("/api/state").json()
    assert state["moves"] == [{"player": 0, "text": "Mb1-c3"}] and state["mover"] == 1


def test_choice_new_game_and_resume_requests(client, svc, tmp_path):
    r = client.post("/api/choice", json={"index": 0})
    assert r.status_code == 400 and "no choice" in r.json()["error"]
    r = client.post("/api/choice", json={"index": "first"})
    assert r.status_code == 400
    r = client.post("/api/new-game", json={"game": "kaleidochess", "options": {"hue": 1}})
    assert r.status_code == 400 and "no option" in r.json()["error"]  # (nor a board switch)
    assert svc.layout.name == "square8"
    r = client.post("/api/resume", json={"resume": True})
    assert r.status_code == 400 and "no resumed game" in r.json()["error"]
    r = client.post("/api/new-game", json={"game": "laotzu", "options": {"castling": "chess480"},
                                           "setup": None})
    assert r.status_code == 200 and svc.game.name == "laotzu"
    assert svc.game_options["castling"] == "chess480"  # and both arrays drawn:
    assert set(svc.game_options) == {"castling", "seed"}
    games = client.get("/api/state").json()["games"]
    assert [g["name"] for g in games] == ["luotuoqi", "laotzu", "chess"]
    laotzu = next(g for g in games if g["name"] == "laotzu")
    assert {"name": "castling", "type": "str", "default": "chess960"} in laotzu["options"]


def test_answering_a_choice_over_the_api(client, svc):
    svc.sim_action({"action": "arrange"})
    svc.step(0.1)
    for a, b, n in (("d2", "e3", None), ("d7", "e6", None), ("d1", "d4", 3)):
        client.post("/api/sim", json={"action": "lift", "spot": a, "count": n})
        svc.step(0.05)
        client.post("/api/sim", json={"action": "place", "spot": b})
        svc.step(0.3)
    state = client.get("/api/state").json()
    assert state["phase"] == "choice"
    labels = [c["label"] for c in state["choice"]]
    assert labels == ["T3d1-d4", "T4d1-d4", "T5d1-d4", "T6d1-d4", "T7d1-d4"]
    pads = [svc.layout.spots[c["spot"]].name for c in state["choice"]]
    assert pads == [f"option-{k}" for k in range(1, 6)]
    r = client.post("/api/choice", json={"index": 2})
    assert r.status_code == 200
    svc.step(0.05)
    assert svc.plies[-1] == (0, "T5d1-d4")


def test_websocket_pushes_changes(client, svc):
    with client.websocket_connect("/ws") as ws:
        first = ws.receive_json()
        assert first["type"] == "state" and first["state"]["phase"] == "setup"
        client.post("/api/sim", json={"action": "arrange"})
        svc.step(0.1)
        seen = []
        for _ in range(5):
            msg = ws.receive_json()
            seen.append(msg)
            if msg["type"] == "state" and msg["state"]["phase"] == "turn":
                break
        assert seen[-1]["state"]["phase"] == "turn"
        ws.send_text(json.dumps({"type": "viewer", "viewer": 1}))
        assert ws.receive_json()["type"] == "state"


# -- Lao Tzu: the page shows one player's view, never more -----------------------------


def _hidden_cells(svc, player):
    return set(range(svc.layout.cell_count)) - set(view(svc.position, player).visible)


@pytest.mark.parametrize("player", [0, 1])
def test_laotzu_state_shows_one_view_only(tmp_path, player):
    svc = make_service(tmp_path, game="laotzu", white_array=518, black_array=518)
    try:
        svc.sim_action({"action": "arrange"})
        svc.step(0.1)
        svc.sim_action({"action": "lift", "spot": "e2"})
        svc.step(0.05)
        svc.sim_action({"action": "place", "spot": "e4"})
        svc.step(0.3)
        assert [t for _, t in svc.plies] == ["e4"]
        hidden = _hidden_cells(svc, player)
        assert hidden  # the enemy's back ranks at least
        for source in ("sim", "real"):
            if source == "real":
                svc.sim, sim = None, svc.sim  # as a physical board: pieces from the game
            state = page_state(svc, player)
            if source == "real":
                svc.sim = sim
            assert state["viewer"] == player and state["viewers"] == ["White", "Black"]
            assert set(state["fog"]) == hidden
            shown = {int(k) for k in state["pieces"]}
            assert not shown & hidden
            enemy = "black" if player == 0 else "white"
            visible_enemy = {c for c, p in view(svc.position, player).enemies}
            for k, objs in state["pieces"].items():
                k = int(k)
                if k < svc.layout.cell_count and any(o["colour"] == enemy for o in objs):
                    assert k in visible_enemy
            dark = {i for i, (_, op) in enumerate(state["leds"]) if op == 0}
            assert hidden <= dark
            last = {svc.layout.spot_index("e2"), svc.layout.spot_index("e4")}
            assert last <= dark  # where the last move went is not in anyone's view
            texts = [m["text"] for m in state["moves"]]
            assert texts == (["e4"] if player == 0 else [None])
            # nothing names the hidden arrays: no set-up text, no array numbers
            assert state["game"]["setup"] is None and state["game"]["options"] == {}
            assert svc.setup not in json.dumps(state)
    finally:
        svc.close()


def test_laotzu_board_output_only_for_the_player_it_serves(tmp_path):
    svc = make_service(tmp_path, game="laotzu", white_array=518, black_array=518)
    try:
        svc.sim_action({"action": "arrange"})
        svc.step(0.1)
        svc.sim_action({"action": "lift", "spot": "g1"})
        svc.step(0.05)
        white = page_state(svc, 0)
        black = page_state(svc, 1)
        lit = {i for i, (_, op) in enumerate(white["leds"]) if op > 0}
        assert {svc.layout.spot_index("f3"), svc.layout.spot_index("h3")} <= lit
        assert all(op == 0 for _, op in black["leds"])  # White's LEDs are not Black's
        assert black["message"] == ""
        assert page_state(svc, None)["viewer"] == 0  # default: the side to move
    finally:
        svc.close()


def test_draw_offer_and_resignation_from_the_page(client, svc, tmp_path):
    from controller.journal import Journal

    svc.sim_action({"action": "arrange"})
    svc.step(0.1)
    r = client.post("/api/command", json={"command": "accept draw"})
    assert r.status_code == 400 and "no draw offer" in r.json()["error"]
    assert client.post("/api/command", json={"command": "dance"}).status_code == 400
    assert client.post("/api/command", json={"command": "offer draw"}).status_code == 200
    assert "offers a draw" in client.get("/api/state").json()["message"]
    client.post("/api/sim", json={"action": "lift", "spot": "b1"})
    svc.step(0.05)
    client.post("/api/sim", json={"action": "place", "spot": "c3"})
    svc.step(0.3)
    assert client.post("/api/command", json={"command": "resign"}).status_code == 200
    state = client.get("/api/state").json()
    assert state["result"] == {"text": "1-0", "reason": "resignation", "winners": [0]}
    record = Journal(tmp_path / "journal").find(svc.game_id)
    assert (record.result, record.reason, record.moves) == ("1-0", "resignation", ["Mb1-c3"])
    r = client.post("/api/command", json={"command": "resign"})
    assert r.status_code == 400 and "over" in r.json()["error"]
