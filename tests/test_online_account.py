"""The owner's online account: the token kept readable by the owner only, written whole,
shown masked, never on the command line nor in a log line; checked against the server."""

from __future__ import annotations

import io
import logging
import os
import stat

import pytest

from controller.cli import main
from controller.config import ConfigError, config_from_dict
from controller.online.token import TokenError, load_token, masked, save_token
from tests.support.lichess import FakeLichess

TOKEN = "lip_abcdefghijklmnop1234"


def test_the_token_file_is_the_owners_alone(tmp_path):
    path = tmp_path / "cfg" / "token"
    save_token(path, TOKEN + "\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_token(path) == TOKEN
    os.chmod(path, 0o644)
    with pytest.raises(TokenError, match=f"others may read this token; chmod 600 {path}"):
        load_token(path)
    with pytest.raises(TokenError, match="no token saved"):
        load_token(tmp_path / "missing")
    with pytest.raises(TokenError, match="that is not a token"):
        save_token(path, "two words")


def test_a_token_is_shown_masked():
    assert masked(TOKEN) == "••••••••1234"
    assert TOKEN[:-4] not in masked(TOKEN)


@pytest.fixture
def server():
    running = FakeLichess({TOKEN: "owner"}).start()
    yield running
    running.stop()


def _config(tmp_path, server_url):
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[online]\nserver = "{server_url}"\n'
                   f'token_file = "{tmp_path / "token"}"\n')
    return cfg


def test_save_and_check_the_token_from_the_command_line(tmp_path, server, monkeypatch,
                                                        capsys, caplog):
    caplog.set_level(logging.DEBUG)
    cfg = _config(tmp_path, server.url)
    monkeypatch.setattr("sys.stdin", io.StringIO(TOKEN + "\n"))
    assert main(["online", "token", "--config", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert "••••••••1234 saved" in out and TOKEN not in out
    assert main(["online", "check", "--config", str(cfg)]) == 0
    assert "playing as owner" in capsys.readouterr().out
    assert TOKEN not in caplog.text


def test_a_revoked_token_is_one_line_and_exit_2(tmp_path, server, capsys):
    cfg = _config(tmp_path, server.url)
    save_token(tmp_path / "token", "lip_revoked_0000")
    assert main(["online", "check", "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "refused the token" in err and err.count("\n") == 1 and "lip_revoked" not in err


def test_a_plain_http_server_elsewhere_is_refused():
    with pytest.raises(ConfigError, match="online.server: expected an https:// address"):
        config_from_dict({"online": {"server": "http://example.org"}})
