"""Configuration validation and the power-cut-safe journal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from controller.cli import main
from controller.config import Config, ConfigError, apply_overrides, config_from_dict, load_config
from controller.journal import Journal, JournalError, export_record, read_game
from controller.rules import get_game

# --- configuration -------------------------------------------------------------------


def test_defaults_are_the_simulated_board_on_localhost():
    config = load_config(None)
    assert config.sensing.backend == "simulated" and config.leds.driver == "simulated"
    assert config.web.host == "127.0.0.1" and config.board.game == "luotuoqi"


def test_a_full_file_loads(tmp_path):
    path = tmp_path / "board.toml"
    path.write_text(textwrap.dedent("""
        [board]
        layout = "square9"
        game = "gnuqi"
        [sensing]
        backend = "gpio-matrix"
        row_pins = [5, 6, 13, 19, 26, 16, 20, 21, 12]
        column_pins = [17, 27, 22, 23, 24, 25, 4, 18, 15]
        settle_ms = 150
        [leds]
        driver = "neopixel-spi"
        brightness = 0.5
        palette = { target = [0, 40, 0] }
        [web]
        port = 9000
    """), encoding="utf-8")
    config = load_config(path)
    assert config.board.game == "gnuqi" and config.sensing.settle_ms == 150.0
    assert config.leds.palette == {"target": [0, 40, 0]} and config.web.port == 9000


@pytest.mark.parametrize("data,message", [
    ({"boards": {}}, "unknown section [boards]"),
    ({"board": {"colour": "red"}}, "unknown setting board.colour"),
    ({"leds": {"brightness": 3}}, "leds.brightness: expected a number from 0 to 1, got 3"),
    ({"leds": {"brightness": "high"}}, "leds.brightness: expected a number"),
    ({"sensing": {"backend": "usb"}}, "sensing.backend: expected one of simulated"),
    ({"web": {"port": 70000}}, "web.port: expected a number from 0 to 65535"),
    ({"web": {"enabled": "yes"}}, "web.enabled: expected true or false"),
    ({"sensing": {"backend": "gpio-matrix"}}, "sensing.row_pins and sensing.column_pins"),
    ({"sensing": {"row_pins": [1, "x"]}}, "sensing.row_pins[1]: expected a whole number"),
    ({"leds": {"palette": {"target": [0, 300, 0]}}}, "leds.palette.target"),
    ({"players": {"names": ["solo"]}}, "players.names: need at least two names"),
    ({"board": 5}, "board: expected a table"),
])
def test_invalid_settings_name_the_setting(data, message):
    with pytest.raises(ConfigError) as err:
        config_from_dict(data, "board.toml")
    assert message in str(err.value) and str(err.value).startswith("board.toml")


def test_bad_files(tmp_path):
    with pytest.raises(ConfigError, match="configuration file not found"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[board\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="bad.toml: not valid TOML"):
        load_config(bad)


def test_command_line_overrides():
    config = apply_overrides(Config(), layout="square9", game="gnuqi", web_port=9001,
                             web_host=None)
    assert (config.board.layout, config.board.game, config.web.port) == ("square9", "gnuqi", 9001)
    with pytest.raises(ConfigError, match="web.port"):
        apply_overrides(Config(), web_port=-5)


# --- journal -------------------------------------------------------------------------


def _play(journal, moves):
    game = get_game("luotuoqi")
    pos = game.start()
    writer = journal.new_game("luotuoqi", {}, game.position_text(pos), ["Ann", "Bo"], now=0)
    for text in moves:
        move = game.parse_move(pos, text)
        writer.move(game.move_text(pos, move), game.long_move_text(pos, move))
        pos.push(move)
    return writer, pos


def test_journal_round_trip_and_resume(tmp_path):
    journal = Journal(tmp_path)
    writer, pos = _play(journal, ["Ea2-b3", "Mb8-c6+cube", "Mg8-f6", "Mb1-c3"])
    writer.close()
    record = journal.unfinished()
    assert record is not None and record.moves[1] == "Mb8-c6+cube"
    game, replayed = record.replay()
    assert replayed.snapshot() == pos.snapshot()
    writer = journal.continue_game(record)
    writer.takeback(1)
    writer.end("1/2-1/2", "agreement")
    writer.close()
    record = journal.find(record.id)
    assert record.moves == ["Ea2-b3", "Mb8-c6+cube", "Mg8-f6"] and record.finished
    assert journal.unfinished() is None


def test_export_has_headers_and_numbered_moves(tmp_path):
    journal = Journal(tmp_path)
    writer, _ = _play(journal, ["Ea2-b3", "Mb8-c6+cube", "Mg8-f6", "Mb1-c3"])
    writer.end("1-0", "resignation")
    text = export_record(journal.games()[0])
    assert '[White "Ann"]' in text and '[Black "Bo"]' in text and '[Result "1-0"]' in text
    assert '[Variant "Lùotuoqí (Camel Chess)"]' in text and "[SetUp " not in text  # the start
    assert "1. Ea2-b3 Mb8-c6+cube Mg8-f6 2. Mb1-c3 1-0" in text


def test_torn_last_line_is_skipped_and_corruption_is_reported(tmp_path):
    journal = Journal(tmp_path)
    writer, _ = _play(journal, ["Ea2-b3", "Mb8-c6"])
    writer.close()
    path = journal.games()[0].path
    with open(path, "ab") as fh:
        fh.write(b'{"type":"move","mo')  # power cut in the middle of a write
    record = read_game(path)
    assert record.torn_tail and record.moves == ["Ea2-b3", "Mb8-c6"]
    path.write_bytes(path.read_bytes().replace(b'"Mb8-c6"', b'"Mb8-c6'))
    with pytest.raises(JournalError, match="line 3 is corrupt"):
        read_game(path)


def test_replaying_an_illegal_record_names_the_ply(tmp_path):
    journal = Journal(tmp_path)
    writer, _ = _play(journal, ["Ea2-b3"])
    writer.move("Ke8-e7")
    with pytest.raises(JournalError, match="ply 2: illegal move"):
        journal.games()[0].replay()


def test_sigkill_never_loses_an_acknowledged_move(tmp_path):
    """A writer process acknowledges each move on stdout after the journal call returns;
    killing it at a random moment must never lose an acknowledged move."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(os.getcwd())!r})
        from controller.journal import Journal
        from controller.rules import get_game
        game = get_game("luotuoqi")
        pos = game.start()
        w = Journal({str(tmp_path)!r}).new_game("luotuoqi", {{}}, game.position_text(pos), [])
        for i in range(400):
            moves = game.legal_moves(pos)
            if not moves:
                break
            m = moves[(i * 7) % len(moves)]
            w.move(game.move_text(pos, m))
            pos.push(m)
            print(i, flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    acknowledged = -1
    for line in proc.stdout:
        acknowledged = int(line)
        if acknowledged == 25:
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait()
    record = Journal(tmp_path).games()[0]
    assert len(record.moves) >= acknowledged + 1
    record.replay()  # every recorded move is legal in sequence


def test_games_cli(tmp_path, capsys):
    journal = Journal(tmp_path)
    _play(journal, ["Ea2-b3"])[0].close()
    assert main(["games", "list", "--journal", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    game_id = out.split()[0]
    assert "luotuoqi" in out and "unfinished" in out
    assert main(["games", "export", "--journal", str(tmp_path), game_id]) == 0
    assert "1. Ea2-b3 *" in capsys.readouterr().out
    assert main(["games", "export", "--journal", str(tmp_path), "nope"]) == 2
