"""Every bad setting or argument is one clear line (issue 37, Found 9).

A seeded fuzz of every setting of the configuration with every TOML value type (and
deep nesting, huge numbers, NaN, format placeholders, host names with a typo), of the
configuration file's text (cut, flipped, nested 5,000 deep, a FIFO, ``/dev/zero``), and
of every subcommand's arguments: the answer is the configuration or ``ConfigError`` with
one line; a command ends with status 0, 1 or 2 and never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import io
import logging
import os
import random
from pathlib import Path
from typing import get_type_hints

import pytest

from controller import cli
from controller.config import Config, ConfigError, calibration_path, config_from_dict, load_config
from tests.test_web_fuzz import Tracebacks

SEED = 37
VALUES = [None, True, False, 0, 1, -1, 3, 8080, 70000, 2**63 - 1, -(2**63), 0.5, -0.0,
          float("nan"), float("inf"), 1e308, "", " ", "x", "auto", "{layout}", "{layout.x}",
          "{0}", "{}", "{layout!z}", "{layout:>{w}}", "{layout[0]}", "é♞", "\x00", "a" * 5000,
          "local..host", "localhost", "127.0.0.1", "::1", "-broker", "a" * 64 + ".local",
          "broker.local.", "3+2", "chess", "square8", "GRB", "json", "debug", "serial",
          datetime.datetime(2026, 1, 1), datetime.date(2026, 1, 1), datetime.time(1, 2),
          [], [1, 2], ["White"], ["a", 1], [[[]]], {}, {"a": 1}, {"players": 3},
          {"dice": "yes"}, {"Threads": [1]}]


def _deep(n: int):
    value: object = 1
    for i in range(n):
        value = [value] if i % 2 else {"a": value}
    return value


def _settings() -> list[tuple[str, str]]:
    out = []
    for section in dataclasses.fields(Config):
        hints = get_type_hints(section.default_factory)  # type: ignore[arg-type]
        out += [(section.name, key) for key in hints]
    return out


def _one_line(exc: Exception) -> None:
    text = str(exc)
    assert text and "\n" not in text and "Traceback" not in text, text


def test_every_setting_with_every_value_type_is_a_config_or_one_line():
    rng = random.Random(SEED)
    settings = _settings()
    accepted = refused = 0
    for section, key in settings:
        for value in VALUES + [_deep(12), _deep(200)]:
            try:
                config = config_from_dict({section: {key: value}}, "fuzz.toml")
            except ConfigError as exc:
                _one_line(exc)
                refused += 1
                continue
            calibration_path(config, "square8")  # what start-up derives must work too
            accepted += 1
    for _ in range(1500):  # several settings at once, some sections not tables at all
        data: dict = {}
        for _ in range(rng.randrange(1, 5)):
            section, key = rng.choice(settings)
            if rng.random() < 0.03:
                data[section] = rng.choice(VALUES)
            elif isinstance(data.setdefault(section, {}), dict):
                data[section][key] = rng.choice(VALUES)
        try:
            calibration_path(config_from_dict(data, "fuzz.toml"), "square8")
        except ConfigError as exc:
            _one_line(exc)
    assert accepted > 100 and refused > 1000, (accepted, refused)


@pytest.mark.parametrize("text, says", [
    ("x = " + "[" * 5000 + "]" * 5000, "nested too deeply"),
    ("[board]\noptions = {a = " + "{a = " * 3000 + "1" + "}" * 3001, "nested too deeply"),
    ("[board]\noptions = {a = " + "[" * 200 + "1" + "]" * 200 + "}", "nested deeper than"),
    ("[engine]\nuci_options = {a = " + "[" * 2000 + "1" + "]" * 2000 + "}", "nested"),
    ('[sensing]\ncalibration = "{layout.x}"', "only {layout}"),
    ('[sensing]\ncalibration = "{layout:{x}}"', "only {layout}"),
    ('[link]\nbroker = "local..host"', "not a host name"),
    ('[link]\nbroker = "' + "b" * 70 + '.local"', "not a host name"),
    ('[link]\nbroker = "mqtt://broker"', "not a host name"),
    ("[link]\nport = 0", "link.port"),
    ("[link]\nport = 70000", "link.port"),
    ('[link]\nclub = ""', "link.club"),
])
def test_issue_37_configurations_are_one_line(tmp_path, text, says):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    _one_line(refused.value)
    assert says in str(refused.value)


def test_files_that_are_not_configurations(tmp_path):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'[players]\nnames = ["J\xf6rg", "Ann"]\n')
    huge = tmp_path / "huge.toml"
    huge.write_text("# " + "x" * (2 << 20))
    for path in (fifo, Path("/dev/zero"), tmp_path, latin, huge, tmp_path / "missing.toml"):
        with pytest.raises(ConfigError) as refused:
            load_config(path)  # a FIFO or /dev/zero hung, the others were tracebacks
        _one_line(refused.value)


def test_a_mangled_configuration_file_is_a_config_or_one_line(tmp_path):
    rng = random.Random(SEED)
    good = (b'[board]\ngame = "chess"\nlayout = "square8"\noptions = {}\nclock = "3+2"\n'
            b'[link]\nbroker = "broker.local"\nport = 1883\nclub = "home"\n'
            b'[sensing]\ncalibration = "~/cal-{layout}.json"\n[web]\nport = 8080\n'
            b'[players]\nnames = ["White", "Black"]\n')
    path = tmp_path / "config.toml"
    for _ in range(800):
        raw = bytearray(good)
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(len(raw))
            roll = rng.random()
            if roll < 0.3:
                raw[at] = rng.randrange(256)
            elif roll < 0.5:
                del raw[at:at + rng.randrange(1, 20)]
            elif roll < 0.8:
                raw[at:at] = rng.choice([b"[", b"{", b'"', b".", b"=", b"\n", b"{layout.",
                                         b"\x00", b"..", b"-", b"[[", b"inf", b"nan"])
            else:
                raw = raw[:at]
        path.write_bytes(bytes(raw))
        try:
            calibration_path(load_config(path), "square8")
        except ConfigError as exc:
            _one_line(exc)


# -- the command line ------------------------------------------------------------------
ARG_VALUES = ["", "x", "chess", "luotuoqi", "laotzu", "kaleidochess", "lotus39", "gnuqi",
              "Chess", "square8", "square9", "nosuch", "0", "1", "-1", "2", "70000", "1e9",
              "nan", "e2e4", "e4", "White", "Black", "9", "a" * 300, "players=3",
              "dice=true", "bogus=1", "=", "{layout.x}", "local..host", "é♞"]
#: per subcommand: options whose values must stay small for the fuzz to stay fast
SMALL = {"--depth": ["0", "1", "-1", "x"], "--level": ["1", "1", "0", "11", "x"],
         "--max-plies": ["0", "1", "2", "-1"], "--movetime": ["0.01", "-1", "0", "x"],
         "--players": ["2", "3", "0", "9", "x"]}
#: values each option is meant to have, so the fuzz reaches past the first check
MEANT = {"--game": ["chess", "luotuoqi", "laotzu", "gnuqi", "lotus39", "kaleidochess"],
         "--layout": ["square8", "square9"], "--player": ["White", "Black"],
         "--log-format": ["text"], "--seed": ["1"]}
#: subcommands that take seconds when their arguments are right: fuzzed fewer times
TRIES = {"selftest": 2, "board print": 3, "calibrate": 6, "run": 6}


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    out = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                deeper = _subcommands(sub)
                out.update({f"{name} {k}": v for k, v in deeper.items()} if deeper
                           else {name: sub})
    return out


def _argv(rng: random.Random, name: str, sub: argparse.ArgumentParser, files: list[str],
          out: str) -> list[str]:
    argv = name.split()
    for action in sub._actions:
        if not action.option_strings and action.nargs != 0 and rng.random() < 0.9:
            argv.append(rng.choice(ARG_VALUES))  # a positional one (a layout, a game id)
        if not action.option_strings or "--help" in action.option_strings:
            continue
        flag = action.option_strings[-1]
        # the options that bound a search are always given (their defaults take seconds)
        skip = 0.0 if flag in SMALL and flag != "--players" else 0.2 if flag in (
            "--game", "--config") else 0.7
        if rng.random() < skip:
            continue
        argv.append(flag)
        if action.nargs == 0:
            continue
        if flag in ("--config", "--batch"):
            argv.append(files[-1] if rng.random() < 0.5 else rng.choice(files))
        elif flag in MEANT and rng.random() < 0.7:
            argv.append(rng.choice(MEANT[flag]))
        elif flag in ("--out", "--journal"):
            # not the FIFO: writing to a named pipe waits for its reader, as it should
            argv.append(out if rng.random() < 0.8 else rng.choice(
                [f for f in files if not f.endswith("fifo.toml")]))
        elif flag in SMALL:
            argv.append(rng.choice(SMALL[flag]))
        elif action.choices:
            argv.append(rng.choice(list(action.choices) + ["bogus"]))
        else:
            argv.append(rng.choice(ARG_VALUES))
    return argv


def test_every_subcommand_fuzzed_ends_with_a_status_and_no_traceback(tmp_path, monkeypatch):
    import controller.link.referee as referee
    import controller.process as service  # fairyboard run: the process
    import controller.server.app as club_server  # fairyboard server

    async def served(svc, sock, *rest) -> int:  # start-up is checked; serving is not the fuzz's
        return 0

    monkeypatch.setattr(service, "_serve", served)
    monkeypatch.setattr(referee, "serve", lambda *args, **kwargs: None)
    # the server's start-up (its store opened and migrated) is checked; serving is not
    monkeypatch.setattr(club_server, "serve", lambda data, host="", port=0, database=None,
                        sock=None, broker_port=None, cluster=None, use_referees=False,
                        link_boards=False:
                        club_server.build(data, database))
    monkeypatch.setattr(service, "setup_logging", lambda *a, **k: _NullHandler())
    monkeypatch.chdir(tmp_path)  # `backup` without --out writes into the current folder
    rng = random.Random(SEED)
    files = []
    for i, text in enumerate(['[board]\ngame = "chess"\n', "x = " + "[" * 3000,
                              '[sensing]\ncalibration = "{layout.x}"\n',
                              '[link]\nbroker = "local..host"\n', "[board]\ngame = 3\n",
                              f'[journal]\npath = "{tmp_path / "j"}"\n[web]\nenabled = false\n'
                              '[board]\ngame = "chess"\n']):
        path = tmp_path / f"c{i}.toml"
        path.write_text(text)
        files.append(str(path))
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    files += [str(fifo), "/dev/zero", str(tmp_path), str(tmp_path / "missing.toml"),
              files[-1]]  # last: a configuration that works
    subs = _subcommands(cli.build_parser())
    statuses: dict[str, set] = {name: set() for name in subs}
    caught = Tracebacks()
    logging.getLogger().addHandler(caught)
    for name, sub in subs.items():
        for _ in range(TRIES.get(name, 25)):
            argv = _argv(rng, name, sub, files, str(tmp_path / "out"))
            # files in the test's folder, never the owner's; no port others use
            if name == "run":
                argv += ["--journal", str(tmp_path / "journal"), "--web-port", "0",
                         "--web-host", "127.0.0.1"]
            elif name == "referee":
                argv += ["--journal", str(tmp_path / "referee.json")]
            elif name == "calibrate":
                argv += ["--out", str(tmp_path / "calibration.json")]
            elif name == "server":
                argv += ["--data", str(tmp_path / "server")]
            stdout, stderr = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                try:
                    status = cli.main(argv)
                except SystemExit as exit_:  # argparse: status 2 and its usage line
                    status = exit_.code
                except Exception as exc:
                    pytest.fail(f"fairyboard {argv!r} raised {exc!r}")
            assert status in (0, 1, 2), (argv, status)
            assert "Traceback" not in stderr.getvalue(), (argv, stderr.getvalue())
            statuses[name].add(status)
            assert not caught.records, (argv, [r.getMessage() for r in caught.records])
    logging.getLogger().removeHandler(caught)
    assert all(statuses.values()), statuses
    assert 0 in statuses["run"] and 0 in statuses["moves"] and 2 in statuses["referee"], statuses


class _NullHandler:
    """What ``setup_logging`` returns, so ``run`` in the fuzz leaves the root logger be."""


@pytest.mark.parametrize("extra, says", [(["--port", "0"], "--port"),
                                         (["--port", "70000"], "--port"),
                                         (["--club", ""], "--club"),
                                         (["--broker", "local..host"], "not a host name")])
def test_the_referee_refuses_a_port_a_club_and_a_broker_it_cannot_use(tmp_path, capsys,
                                                                     monkeypatch, extra,
                                                                     says):
    import controller.link.referee as referee

    monkeypatch.setattr(referee, "serve", lambda *args, **kwargs: None)
    argv = ["referee", "--broker", "localhost", "--journal", str(tmp_path / "r.json")]
    assert cli.main(argv + extra) == 2  # accepted before (port 0, 70000, club "")
    assert says in capsys.readouterr().err
