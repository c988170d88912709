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
#: the players' guides, served by the board's page at /guide/GAME
GUIDES = Path(__file__).resolve().parent / "docs" / "rules"


class BuildPyWithBoards(build_py):
    """``build_py`` that also copies ``boards/**/*.toml`` to ``controller/boards`` and the
    players' guides (``docs/rules``) to ``controller/guides``."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads boards/ from the checkout
            return
        for folder, pattern, target in (
                (BOARDS, "*.toml", "boards"), (GUIDES, "*.md", "guides"),
                (GUIDES, "*.svg", "guides")):
            for source in sorted(folder.rglob(pattern)):
                dest = Path(self.build_lib) / "controller" / target / source.relative_to(folder)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, dest)


setup(cmdclass={"build_py": BuildPyWithBoards})
