"""The owner's settings on the page (issue 30, Deliver 7): read from the configuration
file, saved with the file's own validation (a bad value names its field and changes
nothing), atomically; secrets only masked; a POST from another web site refused."""

from __future__ import annotations

import os
import stat
import tomllib
import warnings

import pytest

from controller.web.app import create_app
from controller.web.guard import Guard, policy_for

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.service(game="chess", layout="square8")
OWN = "http://127.0.0.1:8080"
FILE = """# the owner's board
[board]
game = "chess"   # the usual game
computer_level = 6

[leds]
brightness = 0.3
"""


@pytest.fixture
def config_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(FILE)
    return path


def _client(svc, path):
    policy = policy_for("127.0.0.1", [], [], None)
    return TestClient(Guard(create_app(svc, path), policy), base_url=OWN)


def test_the_settings_come_from_the_file_with_when_each_takes_effect(svc, config_file):
    data = _client(svc, config_file).get("/api/settings").json()
    by_key = {s["key"]: s for s in data["settings"]}
    for key in ("board.game", "board.computer_level", "board.clock", "leds.brightness",
                "speech.language", "speech.volume", "board.options"):
        assert key in by_key
    assert by_key["board.computer_level"]["value"] == 6
    assert (by_key["board.computer_level"]["min"], by_key["board.computer_level"]["max"]) == (1, 10)
    assert by_key["leds.brightness"]["applies"] == "restart"
    assert by_key["speech.volume"]["applies"] == "now"
    assert by_key["players.names"]["applies"] == "next game"
    assert "en" in by_key["speech.language"]["choices"]
    assert data["saveable"] and data["file"] == "config.toml" and "restart" in data["restart"]


def test_a_change_is_saved_in_its_line_and_the_rest_of_the_file_kept(svc, config_file):
    client = _client(svc, config_file)
    r = client.post("/api/settings", json={"changes": {"board.computer_level": 3,
                                                       "speech.volume": 0.25}})
    assert r.status_code == 200, r.text
    assert r.json()["applied"] == ["speech.volume"]
    assert r.json()["after_restart"] == ["board.computer_level"]
    text = config_file.read_text()
    assert "computer_level = 3" in text and "# the usual game" in text
    assert tomllib.loads(text)["speech"]["volume"] == 0.25
    assert svc.config.speech.volume == 0.25  # the page's sounds at once
    assert svc.config.board.computer_level == 6  # the running board: after a restart
    again = {s["key"]: s["value"] for s in client.get("/api/settings").json()["settings"]}
    assert again["board.computer_level"] == 3
    assert not list(config_file.parent.glob("*.tmp"))  # replaced whole, nothing left


@pytest.mark.parametrize(("changes", "field", "words"), [
    ({"leds.brightness": 3}, "leds.brightness", "0 to 1"),
    ({"board.computer_level": 11}, "board.computer_level", "1 to 10"),
    ({"board.clock": "soon"}, "board.clock", "clock"),
    ({"speech.language": "xx"}, "speech.language", "en"),
    ({"board.game": "poker"}, "board.game", "poker"),
    ({"web.host": "0.0.0.0"}, "web.host", "not a setting the page may change"),
])
def test_a_bad_value_names_its_field_and_changes_nothing(svc, config_file, changes, field,
                                                        words):
    before = config_file.read_bytes()
    r = _client(svc, config_file).post("/api/settings", json={"changes": changes})
    assert r.status_code == 400
    body = r.json()
    assert body["field"] == field and words in body["error"] and "\n" not in body["error"]
    assert config_file.read_bytes() == before


@pytest.mark.parametrize("body", ['{"changes": {}}', "[1]", "not json", '{"other": 1}',
                                  '{"changes": [1, 2]}'])
def test_a_malformed_request_is_one_line(svc, config_file, body):
    r = _client(svc, config_file).post("/api/settings", content=body,
                                       headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "\n" not in r.json()["error"]


def test_without_a_configuration_file_nothing_is_saved(svc):
    r = _client(svc, None).post("/api/settings", json={"changes": {"leds.brightness": 0.5}})
    assert r.status_code == 409 and "--config" in r.json()["error"]
    assert _client(svc, None).get("/api/settings").json()["saveable"] is False


def test_a_post_from_another_web_site_is_refused(svc, config_file):
    before = config_file.read_bytes()
    r = _client(svc, config_file).post("/api/settings", headers={"Origin": "https://evil.example"},
                                       json={"changes": {"leds.brightness": 1.0}})
    assert r.status_code == 403 and config_file.read_bytes() == before


def test_secrets_are_shown_masked_and_the_online_token_saved_privately(svc, config_file,
                                                                       tmp_path):
    code = "pairing-code-abcdef123"
    (svc.journal.folder.parent / "pairing-token").write_text(code + "\n")
    svc.config.online.token_file = str(tmp_path / "online-token")
    client = _client(svc, config_file)
    r = client.post("/api/settings/online-token", json={"token": "lip_secretsecret9876"})
    assert r.status_code == 200 and r.json()["online_token"].endswith("9876")
    assert "secretsecret" not in r.text
    saved = tmp_path / "online-token"
    assert saved.read_text().strip() == "lip_secretsecret9876"
    assert stat.S_IMODE(os.stat(saved).st_mode) == 0o600
    page = client.get("/api/settings")
    assert code not in page.text and "secretsecret" not in page.text
    assert page.json()["pairing"]["masked"].endswith("f123")
    assert page.json()["online_token"].endswith("9876")
    bad = client.post("/api/settings/online-token", json={"token": "two words"})
    assert bad.status_code == 400 and bad.json()["field"] == "online_token"
    assert saved.read_text().strip() == "lip_secretsecret9876"


def test_a_new_pairing_code_is_made_for_the_next_start(svc, config_file):
    path = svc.journal.folder.parent / "pairing-token"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("old-code-123456\n")
    r = _client(svc, config_file).post("/api/settings/pairing", json={"renew": True})
    assert r.status_code == 200 and "restart" in r.json()["applies"]
    new = path.read_text().strip()
    assert new != "old-code-123456" and len(new) >= 8 and new not in r.text
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
