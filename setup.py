"""Build hooks; everything else about the package is in ``pyproject.toml``.

* The board data (``boards/`` at the top of the repository, where the design keeps it)
  ships inside the package as ``controller/boards``, so a plain ``pip install`` finds the
  shapes and layouts (``controller.geometry.BOARDS_DIR``), and the players' guides as
  ``controller/guides``.
* **Opt-in compiled build** (``FAIRYBOARD_COMPILE=1 pip install .``): the rules and the
  engine's search are compiled with Cython from the *same* ``.py`` files (typed by the
  ``.pxd`` files beside them, which plain Python never reads), each ``.so`` beside its
  ``.py``.  Without the variable nothing is compiled; when Cython or a C compiler is
  missing, or a module does not compile, the build says so in one line and that module
  stays pure Python (docs/performance.md, "Compiled build").
  ``FAIRYBOARD_COMPILE=controller.geometry,controller.rules.core`` compiles only those.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BOARDS = HERE / "boards"
#: the players' guides, served by the board's page at /guide/GAME
GUIDES = HERE / "docs" / "rules"

#: the modules a compiled build makes: the board geometry, every game's rules and the
#: engine's search with its evaluation (the registry, the page and the service stay Python)
COMPILED = (
    "controller.geometry",
    "controller.rules.core",
    "controller.rules.chess",
    "controller.rules.gnuqi",
    "controller.rules.kaleidochess",
    "controller.rules.laotzu",
    "controller.rules.laotzu_board",
    "controller.rules.laotzu_view",
    "controller.rules.lotus39",
    "controller.rules.luotuoqi",
    "controller.engine.evaluation",
    "controller.engine.fog",
    "controller.engine.search",
)

#: Cython's settings: Python semantics kept (integer overflow checked, negative indexes and
#: bounds as in Python); the ``.py`` files' annotations are not read as C types (a
#: ``float`` annotation would turn an ``int`` argument into a C double): only the ``.pxd``
#: files type
DIRECTIVES = {
    "language_level": 3,
    "annotation_typing": False,
    "binding": True,  # functions keep their signature and docstring (inspect, help())
    "embedsignature": False,
}


def say(line: str) -> None:
    print(f"fairyboard: {line}", file=sys.stderr)


def requested() -> list[str]:
    """The modules ``FAIRYBOARD_COMPILE`` asks for: none unless set (and not ``0``)."""
    value = os.environ.get("FAIRYBOARD_COMPILE", "").strip()
    if value in ("", "0"):
        return []
    if value == "1":
        return list(COMPILED)
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = sorted(set(names) - set(COMPILED))
    if unknown:
        say(f"FAIRYBOARD_COMPILE names no compiled module {', '.join(unknown)} "
            f"(one of {', '.join(COMPILED)}): ignored")
    return [name for name in names if name in COMPILED]


def extensions(names: list[str]) -> list:
    """One extension module per name, its source the plain ``.py`` (Cython translates it
    when ``build_ext`` runs, so that pip's first look at the build needs no Cython)."""
    from setuptools import Extension

    # no debugging information: it triples the compile time and the size of each module
    flags = [] if sys.platform == "win32" else ["-g0"]
    return [Extension(name, [str(Path(*name.split(".")).with_suffix(".py"))],
                      extra_compile_args=flags) for name in names]


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


class BuildExtOrPure(build_ext):
    """``build_ext`` where a module that does not compile (no C compiler, no Python
    headers) stays pure Python, said in one line, instead of failing the install."""

    def run(self) -> None:
        if not self.extensions:
            return
        try:
            from Cython.Build import cythonize
        except ImportError:
            say("FAIRYBOARD_COMPILE is set but Cython is not installed: pure Python installed")
            return
        translated = []
        for ext in self.extensions:  # one by one: a module Cython refuses stays pure alone
            try:  # the .c file replaces the .py source; setuptools' own Extension is kept
                (done,) = cythonize([ext], compiler_directives=DIRECTIVES, quiet=True)
            except Exception as err:
                say(f"Cython could not translate {ext.name} ({err.__class__.__name__}): "
                    "it stays pure Python")
                continue
            ext.sources = done.sources
            translated.append(ext)
        self.extensions = translated
        try:
            super().run()
        except Exception as err:  # no compiler at all: distutils fails before any module
            say(f"no C compiler ({err.__class__.__name__}: {str(err)[-160:]}): "
                "pure Python installed")

    def build_extensions(self) -> None:
        # a missing compiler or missing Python headers would fail every module: said once
        command = getattr(self.compiler, "compiler_so", None) or [""]
        if command[0] and shutil.which(command[0]) is None:
            say(f"no C compiler ({command[0]} not found): pure Python installed")
            return
        if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
            say("no Python headers (Python.h; python3-dev on Debian and Raspberry Pi OS): "
                "pure Python installed")
            return
        super().build_extensions()

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as err:
            say(f"{ext.name} did not compile ({err.__class__.__name__}; the compiler's "
                "messages are above): it stays pure Python")


def build_requires(names: list[str]) -> list[str]:
    """Cython for pip's isolated build: asked for only while pip asks what the build needs
    (``egg_info``, setuptools' PEP 517 hook) and only where Cython is not there already,
    so that no other command ever tries to fetch it."""
    if not names or sys.argv[-1:] != ["egg_info"]:
        return []
    try:
        import Cython  # noqa: F401
    except ImportError:
        return ["Cython>=3.0"]
    return []


if __name__ == "__main__":  # (setuptools runs this file as __main__; the benchmark and the
    # test import it for COMPILED and DIRECTIVES)
    COMPILE = requested()
    setup(
        cmdclass={"build_py": BuildPyWithBoards, "build_ext": BuildExtOrPure},
        ext_modules=extensions(COMPILE),
        # pip's isolated build installs Cython only when a compiled build is asked for
        setup_requires=build_requires(COMPILE),
    )
