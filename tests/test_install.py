"""A plain (non-editable) install finds the board data: a wheel built from the checkout,
installed into a fresh virtual environment, plays and prints boards from a folder outside
the checkout (the Pi guide installs exactly that way)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "controller", "boards",
           "docs")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed; the dependencies come from this test run's
    own environment (a path entry, so no network is needed and none of its ``.pth`` files —
    an editable install of the checkout — are processed)."""
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
    return env_dir


def _run(env_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(env_dir / "bin" / "fairyboard"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_the_wheel_ships_the_board_data(installed: Path, tmp_path: Path) -> None:
    where = subprocess.run([str(installed / "bin" / "python"), "-c",
                            "import controller.geometry as g; print(g.BOARDS_DIR)"],
                           cwd=tmp_path, check=True, capture_output=True, text=True)
    boards = Path(where.stdout.strip())
    assert boards.is_relative_to(installed) and (boards / "shapes" / "square9.toml").is_file()
    assert sorted(p.name for p in (boards / "layouts").glob("*.toml")) == sorted(
        p.name for p in (ROOT / "boards" / "layouts").glob("*.toml"))


def test_installed_command_plays_and_prints_outside_the_checkout(installed: Path,
                                                                 tmp_path: Path) -> None:
    moves = _run(installed, tmp_path, "moves", "--game", "gnuqi")
    assert moves.returncode == 0, moves.stderr
    assert len(moves.stdout.splitlines()) > 10
    out = tmp_path / "printed"
    printed = _run(installed, tmp_path, "board", "print", "square8", "--out", str(out))
    assert printed.returncode == 0, printed.stderr
    written = [Path(line) for line in printed.stdout.splitlines()]
    assert written and all(p.is_file() for p in written)
    assert any(p.suffix == ".svg" for p in written)


def test_the_wheel_ships_the_players_guides(installed: Path, tmp_path: Path) -> None:
    where = subprocess.run([str(installed / "bin" / "python"), "-c",
                            "from controller.web.guides import guides_dir, guide_html; "
                            "print(guides_dir()); print(len(guide_html('gnuqi', 'Gnu Qi')))"],
                           cwd=tmp_path, check=True, capture_output=True, text=True)
    folder, size = where.stdout.split()
    assert Path(folder).is_relative_to(installed) and int(size) > 1000
    assert (Path(folder) / "images" / "gnuqi-camel.svg").is_file()
