"""Shared test configuration: Hypothesis profiles and the service fixtures.

CI (the ``CI`` environment variable is set) runs every property test **derandomized**:
the same examples on every run, so a landing is never blocked by chance.  Elsewhere the
``dev`` profile draws fresh examples each run (and keeps failures in the local example
database), which is how new failures are found; long random exploration lives in
``benchmarks/soak.py``.  Known failures stay as ``@example``s or regression tests.

``svc`` is a running :class:`BoardService` on the simulated board (closed afterwards),
built by :func:`tests.support.service.page_service` from the test's ``service`` mark, e.g.
``pytestmark = pytest.mark.service(game="gnuqi", layout="square9")``; ``client`` is a
Starlette test client of the page's app over ``svc``.  Rigs and simulated humans live in
``tests/support/``.

The test-only seventh game (``tests/games/kingofthehill.py``) is registered here, before
any test module reads the registry, so every test that takes its games from the registry
plays it too (``docs/adding-a-game.md``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from controller.rules import register_game
from tests.games.kingofthehill import KingOfTheHill
from tests.support.service import page_service

register_game(KingOfTheHill)

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          database=None)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                      or ("ci" if os.environ.get("CI") else "dev"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "service(game, layout, seed, scan_hz, **options): "
                            "how the `svc` fixture builds its service")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker, the files longest first (``tests/file-times.txt``): xdist hands
    them out in the workers' order, and a long file started last would end the run alone
    (``tests/support/filetimes.py``).  A run in one process keeps the files' order."""
    if not hasattr(config, "workerinput"):
        return
    from tests.support.filetimes import load, longest_first

    order = longest_first([item.nodeid for item in items], load())
    items[:] = [items[i] for i in order]


@pytest.fixture
def svc(request: pytest.FixtureRequest, tmp_path):
    mark = request.node.get_closest_marker("service")
    service = page_service(tmp_path, **(mark.kwargs if mark else {}))
    yield service
    service.close()


@pytest.fixture
def client(svc):
    from tests.support.webtools import page_client

    return page_client(svc)


@pytest.fixture(scope="module")
def sync_api():
    """``playwright.sync_api`` for a module's browser tests (skipped without Chromium)."""
    from tests.support.webtools import playwright_or_skip

    return playwright_or_skip()


@pytest.fixture(scope="module")
def browser(sync_api):
    """The test process's shared Chromium (``shared_chromium`` in
    ``tests/support/webtools.py``)."""
    from tests.support.webtools import shared_chromium

    return shared_chromium(sync_api)


@pytest.fixture(scope="module", autouse=True)
def close_pages():
    """After each test file, the pages it left open in the shared Chromium are closed
    (they would go on polling and drawing through the next files)."""
    yield
    from tests.support import webtools

    webtools.close_pages()


def _drives_chromium(item: pytest.Item) -> bool:
    """Whether ``item``'s file drives Chromium: every way to it takes Playwright's
    ``sync_api`` (``tests/support/webtools.py``), so the file names it."""
    path = Path(str(item.fspath))
    if path not in _CHROMIUM_FILES:
        _CHROMIUM_FILES[path] = "sync_api" in path.read_text(encoding="utf-8")
    return _CHROMIUM_FILES[path]


_CHROMIUM_FILES: dict[Path, bool] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    """The shared Chromium is kept from one browser file to the next, and stopped before
    a file that does not drive it: while Playwright's sync API runs, its event loop is
    this thread's running loop, and a test's own ``asyncio.run`` would fail."""
    yield
    if nextitem is None or (nextitem.fspath != item.fspath and not _drives_chromium(nextitem)):
        from tests.support import webtools

        webtools.stop_chromium()


@pytest.fixture
def expect(sync_api):
    return sync_api.expect


@pytest.fixture
def broker(tmp_path):
    """A real Mosquitto on a free loopback port (stopped afterwards)."""
    from tests.support.broker import Broker

    folder = tmp_path / "broker"
    folder.mkdir()
    running = Broker(folder).start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Two ``fairyboard server --cluster`` workers on real PostgreSQL and Mosquitto (one
    set per test module: ``tests/support/cluster.py``)."""
    from tests.support.cluster import Cluster

    c = Cluster(tmp_path_factory.mktemp("cluster"))
    yield c
    c.stop()
