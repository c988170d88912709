"""The installed product is the tested product: a wheel built from the checkout, installed
into a fresh virtual environment, run from a folder outside the checkout (the Pi guide
installs exactly that way: ``pip install /opt/fairyboard/src[pi]``).

It must hold every file the checkout's ``controller/`` holds (the engine's values, the
page, the board data, the players' guides), so from there it plays a whole game against
the computer on a clock with a hint and the coach, finds the computer's move in every
game, prints a board and serves the page.  The sdist holds every tracked source file.

One wheel, one sdist and one venv per module (built offline with this environment's
setuptools)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tarfile
import time
import venv
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from controller.layout import load_layout
from controller.rules import get_game
from controller.web.simulator import move_actions
from tests.support.moves import product_games

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "controller", "boards",
           "docs")
#: a back-rank position: White's Rd7?? lets Black mate with Re1# (the coach names it);
#: the hint, asked first, is a sound move
BACK_RANK = "4r1k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"


@dataclass
class Built:
    wheel: Path
    sdist: Path
    env: Path  # the venv the wheel is installed in


def _tracked(*folders: str) -> list[str]:
    """The files git tracks under ``folders`` (the checkout's own list, not the disk's)."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    out = subprocess.run(["git", "ls-files", "-z", "--", *folders], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return [name for name in out.split("\0") if name]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The wheel and the sdist of a copy of the checkout, and a fresh venv with the wheel
    installed; the dependencies come from this test run's own environment (a path entry,
    so no network is needed and none of its ``.pth`` files — an editable install of the
    checkout — are processed)."""
    work = tmp_path_factory.mktemp("install")
    source = work / "source"  # a copy: the build writes build/ and *.egg-info beside it
    source.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, source / name)
    wheels = work / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--no-index", "-w", str(wheels), str(source)],
                   check=True, capture_output=True, text=True)
    sdists = work / "sdist"
    sdists.mkdir()
    subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                    "build_meta.build_sdist(sys.argv[1])", str(sdists)],
                   cwd=source, check=True, capture_output=True, text=True)
    env_dir = work / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    wheel = next(wheels.glob("fairyboard-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                    "--quiet", "--no-deps", "--no-index", str(wheel)],
                   check=True, capture_output=True, text=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return Built(wheel, next(sdists.glob("fairyboard-*.tar.gz")), env_dir)


def _outside() -> dict[str, str]:
    """This environment without PYTHONPATH: the venv's programs import the wheel, never
    the checkout the tests run from."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _run(env_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(env_dir / "bin" / "fairyboard"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env=_outside())


# -- what the archives hold ------------------------------------------------------------------
def test_the_wheel_ships_every_data_file_of_the_package(built: Built) -> None:
    """Every non-Python file tracked under ``controller/`` (``engine/values.toml`` was
    missing: the Pi install could not play the computer), the board data as
    ``controller/boards`` and the players' guides as ``controller/guides``."""
    names = set(zipfile.ZipFile(built.wheel).namelist())
    data = [name for name in _tracked("controller") if not name.endswith(".py")]
    assert "controller/engine/values.toml" in data
    assert [name for name in data if name not in names] == []
    python = [name for name in _tracked("controller") if name.endswith(".py")]
    assert [name for name in python if name not in names] == []
    boards = ["controller/" + name for name in _tracked("boards") if name.endswith(".toml")]
    guides = ["controller/guides/" + name.removeprefix("docs/rules/")
              for name in _tracked("docs/rules") if name.endswith((".md", ".svg"))]
    assert boards and guides
    assert [name for name in boards + guides if name not in names] == []


def test_the_sdist_ships_every_tracked_source_file(built: Built) -> None:
    with tarfile.open(built.sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        names = {name.removeprefix(top + "/") for name in archive.getnames()}
    wanted = _tracked("controller", "boards", "docs/rules") + [
        "pyproject.toml", "setup.py", "MANIFEST.in", "README.md"]
    assert [name for name in wanted if name not in names] == []


# -- what the installed command does outside the checkout ----------------------------------
def test_the_wheel_ships_the_board_data(built: Built, tmp_path: Path) -> None:
    where = subprocess.run([str(built.env / "bin" / "python"), "-c",
                            "import controller.geometry as g; print(g.BOARDS_DIR)"],
                           cwd=tmp_path, check=True, capture_output=True, text=True,
                           env=_outside())
    boards = Path(where.stdout.strip())
    assert boards.is_relative_to(built.env) and (boards / "shapes" / "square9.toml").is_file()
    assert sorted(p.name for p in (boards / "layouts").glob("*.toml")) == sorted(
        p.name for p in (ROOT / "boards" / "layouts").glob("*.toml"))


def test_installed_command_plays_and_prints_outside_the_checkout(built: Built,
                                                                 tmp_path: Path) -> None:
    moves = _run(built.env, tmp_path, "moves", "--game", "gnuqi")
    assert moves.returncode == 0, moves.stderr
    assert len(moves.stdout.splitlines()) > 10
    out = tmp_path / "printed"
    printed = _run(built.env, tmp_path, "board", "print", "square8", "--out", str(out))
    assert printed.returncode == 0, printed.stderr
    written = [Path(line) for line in printed.stdout.splitlines()]
    assert written and all(p.is_file() for p in written)
    assert any(p.suffix == ".svg" for p in written)


def test_the_wheel_ships_the_players_guides(built: Built, tmp_path: Path) -> None:
    where = subprocess.run([str(built.env / "bin" / "python"), "-c",
                            "from controller.web.guides import guides_dir, guide_html; "
                            "print(guides_dir()); print(len(guide_html('gnuqi', 'Gnu Qi'))); "
                            "print('雏鹰' in guide_html('luotuoqi', 'Lùotuoqí', 'zh')); "
                            "print('Kamel' in guide_html('gnuqi', 'Gnu Qi', 'de'))"],
                           cwd=tmp_path, check=True, capture_output=True, text=True,
                           env=_outside())
    folder, size, chinese, german = where.stdout.split()
    assert Path(folder).is_relative_to(built.env) and int(size) > 1000
    assert (Path(folder) / "images" / "gnuqi-camel.svg").is_file()
    # the translations are in the wheel too (docs/rules/LANG/GAME.md, issue 34)
    assert (Path(folder) / "zh" / "luotuoqi.md").is_file() and chinese == german == "True"


def test_the_installed_voice_speaks_each_language_from_its_catalogue(built: Built,
                                                                     tmp_path: Path) -> None:
    """The catalogues are data files: the installed ``say`` reads them from the wheel."""
    said = {lang: _run(built.env, tmp_path, "say", "--game", "luotuoqi", "--move", "Mb1-c3",
                       "--lang", lang) for lang in ("en", "de", "zh")}
    assert all(r.returncode == 0 for r in said.values()), [r.stderr for r in said.values()]
    assert [said[k].stdout.strip() for k in ("en", "de", "zh")] == [
        "Mule b1 to c3", "Maultier (Mule) b1 nach c3", "骡b1到c3"]


@pytest.mark.parametrize("game", product_games())
def test_the_installed_computer_finds_a_move_in_every_game(built: Built, tmp_path: Path,
                                                           game: str) -> None:
    """``bestmove`` at a low level with a short time: the move is legal in the game."""
    found = _run(built.env, tmp_path, "bestmove", "--game", game, "--level", "2",
                 "--movetime", "0.1")
    assert found.returncode == 0, found.stderr
    rules = get_game(game)
    move = found.stdout.splitlines()[-1]
    assert rules.parse_move(rules.start(), move) in rules.legal_moves(rules.start())


# -- the service from the wheel: a whole game against the computer ------------------------
@contextlib.contextmanager
def _installed_service(env_dir: Path, folder: Path) -> Iterator[httpx.Client]:
    """``fairyboard run`` of the venv, started in ``folder`` (outside the checkout, no
    PYTHONPATH), on the simulated board; its page's client.  It must stop cleanly."""
    config = folder / "config.toml"
    config.write_text(f"[journal]\npath = '{folder / 'journal'}'\n[web]\nport = 0\n"
                      "[sensing]\nsettle_ms = 50\ndebounce_ms = 5\n")
    log = folder / "service.log"
    proc = subprocess.Popen([str(env_dir / "bin" / "fairyboard"), "run", "--config",
                             str(config)], cwd=folder, stdout=subprocess.DEVNULL,
                            stderr=log.open("w"),
                            env={**_outside(), "PYTHONUNBUFFERED": "1"})
    try:
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            for line in log.read_text().splitlines():
                with contextlib.suppress(ValueError):
                    record = json.loads(line)
                    if isinstance(record, dict) and record.get("msg") == "web page":
                        url = record["url"]
            if proc.poll() is not None:
                pytest.fail(f"the installed service exited: {log.read_text()}")
            time.sleep(0.05)
        assert url, log.read_text()
        with httpx.Client(base_url=url, timeout=10.0) as client:
            yield client
        assert "Traceback" not in log.read_text(), log.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0, log.read_text()


def _wait(client: httpx.Client, ok, what: str, timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    state: dict = {}
    while time.monotonic() < deadline:
        state = client.get("/api/state").json()
        if ok(state):
            return state
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}: {state}")


def _scanned(client: httpx.Client, scans: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while client.get("/health").json()["sensing"]["scans"] < scans:
        assert time.monotonic() < deadline, f"the board stopped scanning below {scans}"
        time.sleep(0.01)


def _post(client: httpx.Client, path: str, body: dict) -> dict:
    answer = client.post(path, json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_installed_service_plays_a_whole_game_against_the_computer(
        built: Built, tmp_path: Path) -> None:
    """From the wheel, outside the checkout: the page and its script and a guide are
    served; a game against the computer (level 2) on a 5+3 clock from a set-up; a hint
    names a move; with the coach on, the person's blunder lets the computer mate, and the
    coach names it.  The journal holds the game and the clocks."""
    with _installed_service(built.env, tmp_path) as client:
        page = client.get("/")
        assert page.status_code == 200 and "<html" in page.text.lower()
        for asset in ("/static/app.js", "/static/style.css", "/guide/chess"):
            got = client.get(asset)
            assert got.status_code == 200 and len(got.content) > 1000, asset
        _post(client, "/api/new-game", {"game": "chess", "setup": BACK_RANK, "clock": "5+3",
                                        "computer": {"players": [1], "level": 2}})
        _post(client, "/api/sim", {"action": "arrange"})
        state = _wait(client, lambda s: s["phase"] == "turn", "the pieces set up")
        assert state["computer"]["level"] == 2 and state["computer"]["names"] == ["Black"]
        _post(client, "/api/command", {"command": "hint"})
        state = _wait(client, lambda s: (s.get("advice") or {}).get("hint"), "the hint")
        game = get_game("chess")
        pos = game.parse_position(BACK_RANK)
        hint = game.parse_move(pos, state["advice"]["hint"])
        assert hint in game.legal_moves(pos)
        _post(client, "/api/command", {"command": "coach on"})
        _wait(client, lambda s: (s.get("advice") or {}).get("coach"), "the coach on")
        layout = load_layout("square8")
        blunder = game.parse_move(pos, "Rd7")
        for action in move_actions(game, pos, blunder, layout):
            scans = client.get("/health").json()["sensing"]["scans"]
            _post(client, "/api/sim", action)
            _scanned(client, scans + 4)  # the sensors saw this step before the next
        state = _wait(client, lambda s: s["result"] is not None, "the computer's mate")
        assert state["result"]["text"] == "0-1", state["result"]
        assert [m["text"] for m in state["moves"]] == ["Rd7", "Re1#"]
        state = _wait(client, lambda s: (s.get("advice") or {}).get("note"), "the coach")
        assert state["advice"]["note"]["ply"] == 1
        journal = Path(client.get("/health").json()["journal"])
    from controller.journal import read_game

    record = read_game(journal)
    assert record.moves == ["Rd7", "Re1#"] and record.result == "0-1"
    assert record.clock == "5+3" and all(c is not None for c in record.clocks)
    # the installed command exports it as PGN a chess program reads
    exported = _run(built.env, tmp_path, "games", "export", "--journal", str(journal.parent),
                    journal.stem)
    assert exported.returncode == 0, exported.stderr
    import chess.pgn  # test-only (GPL): the reader every chess program agrees with

    read = chess.pgn.read_game(io.StringIO(exported.stdout))
    assert read is not None and read.errors == []
    assert (read.headers["SetUp"], read.headers["FEN"]) == ("1", BACK_RANK)
    assert read.headers["TimeControl"] == "300+3" and read.headers["Result"] == "0-1"
    assert [node.san() for node in read.mainline()] == ["Rd7", "Re1#"]
    assert all(node.clock() is not None for node in read.mainline())
    assert read.end().board().is_checkmate()
