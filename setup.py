"""Build hook: the board data (``boards/`` at the top of the repository, where the design
keeps it) ships inside the package as ``controller/boards``, so a plain ``pip install``
finds the shapes and layouts (``controller.geometry.BOARDS_DIR``).  Everything else about
the package is in ``pyproject.toml``."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

BOARDS = Path(__file__).resolve().parent / "boards"


class BuildPyWithBoards(build_py):
    """``build_py`` that also copies ``boards/**/*.toml`` to ``controller/boards``."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads boards/ from the checkout
            return
        target = Path(self.build_lib) / "controller" / "boards"
        for source in sorted(BOARDS.rglob("*.toml")):
            dest = target / source.relative_to(BOARDS)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)


setup(cmdclass={"build_py": BuildPyWithBoards})
