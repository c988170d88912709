"""Shared by the browser tests: the service as a real process, and Debian's Chromium.

``fairyboard run`` is started in a subprocess on an ephemeral port (the URL is read from
its structured log); Chromium is driven by Playwright with the flags this closed network
needs.  Browser tests skip with the reason when Chromium or Playwright is missing; CI
installs both.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
#: the repository, the services' working folder: from there ``python -m controller.cli``
#: imports this checkout's controller (from ``tests/`` an editable install's finder could
#: import another checkout's: a worktree sharing a venv served main's page)
ROOT = Path(__file__).resolve().parents[2]


#: this test process's Playwright and Chromium (:func:`shared_chromium`)
_SHARED: dict[str, Any] = {}


def shared_chromium(sync_api: Any) -> Any:
    """This test process's one Chromium, launched on first use and kept from one browser
    file to the next (stopped before a file that does not drive it, whose own
    ``asyncio.run`` Playwright's running event loop would refuse: ``tests/conftest.py``).
    Every browser test opens its pages in it (each page its own context: no cookies or
    storage shared), and the contexts a test file leaves open are closed after it.
    Launching Chromium and Playwright's driver costs about a CPU second; a run did it
    some fifty times.  Playwright's sync API runs once per thread, so no test starts its
    own."""
    browser = _SHARED.get("browser")
    if browser is None or not browser.is_connected():
        if "playwright" not in _SHARED:
            _SHARED["playwright"] = sync_api.sync_playwright().start()
        browser = _SHARED["playwright"].chromium.launch(executable_path=str(CHROMIUM),
                                                        args=CHROMIUM_ARGS)
        _SHARED["browser"] = browser
    return browser


def close_pages() -> None:
    """Close every page and context of the shared Chromium (a test file's leftovers)."""
    browser = _SHARED.get("browser")
    if browser is not None and browser.is_connected():
        for context in list(browser.contexts):
            context.close()


def stop_chromium() -> None:
    """The shared Chromium and Playwright's driver stopped (before a file that does not
    drive Chromium, and at the end of the run); the next browser file launches them
    again."""
    browser, playwright = _SHARED.pop("browser", None), _SHARED.pop("playwright", None)
    if browser is not None and browser.is_connected():
        browser.close()
    if playwright is not None:
        playwright.stop()


def playwright_or_skip() -> Any:
    """``playwright.sync_api``, or skip the test when the browser cannot run here."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    return pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


@contextlib.contextmanager
def running_service(folder: Path, config_toml: str = "") -> Iterator[str]:
    """Run ``fairyboard run`` with a journal in ``folder`` and short settle times; yields
    the page URL.  The service must exit cleanly (status 0) on SIGTERM afterwards."""
    config = folder / "config.toml"
    config.write_text(f"[journal]\npath = '{folder / 'journal'}'\n[web]\nport = 0\n"
                      f"[sensing]\nsettle_ms = 50\ndebounce_ms = 5\n{config_toml}")
    log = folder / "service.log"
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config",
                             str(config)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=log.open("w"), env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        url = None
        deadline = time.monotonic() + 60  # (a loaded machine takes a while to start it)
        while url is None and time.monotonic() < deadline:
            for line in log.read_text().splitlines():
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if record.get("msg") == "web page":
                    url = record["url"]
            if proc.poll() is not None:
                pytest.fail(f"service exited: {log.read_text()}")
            time.sleep(0.05)
        assert url, log.read_text()
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0


@contextlib.contextmanager
def running_services(*services: tuple[Path, str]) -> Iterator[Callable[[], list[str]]]:
    """``running_service`` for each (folder, configuration), started side by side in
    threads while the test goes on (launching Chromium, say: each takes a second or two);
    yields a function that waits for their page URLs.  On leaving, every service that
    started is stopped, side by side too, and each must exit cleanly."""
    managers = [running_service(folder, config) for folder, config in services]
    pool = ThreadPoolExecutor(max(1, len(managers)))
    starts = [pool.submit(manager.__enter__) for manager in managers]

    def urls() -> list[str]:
        wait(starts)
        return [start.result() for start in starts]

    try:
        yield urls
    finally:
        wait(starts)
        stops = [pool.submit(manager.__exit__, None, None, None)
                 for manager, start in zip(managers, starts, strict=True)
                 if start.exception() is None]
        pool.shutdown()
        for stop in stops:
            stop.result()


@contextlib.contextmanager
def browser_page(sync_api: Any, url: str, width: int = 1280, height: int = 860) -> Iterator[Any]:
    """A page of the shared Chromium on ``url``, live (websocket connected); fails on
    any page error."""
    with live_page(sync_api, shared_chromium(sync_api), url, width, height) as page:
        yield page


@contextlib.contextmanager
def live_page(sync_api: Any, browser: Any, url: str, width: int = 1280,
              height: int = 860) -> Iterator[Any]:
    """A new page of a running Chromium ``browser`` on ``url``, live (websocket
    connected), closed afterwards; fails on any page error."""
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(url)
        sync_api.expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
        yield page
    finally:
        page.close()
    assert errors == [], errors


@contextlib.contextmanager
def chromium(sync_api: Any) -> Iterator[Any]:
    """The shared Chromium (for a module fixture: its tests open their pages with
    :func:`live_page`)."""
    yield shared_chromium(sync_api)


def api_json(page: Any, address: str) -> Any:
    """GET ``address`` with the page's request context, as JSON.  A kept-alive connection
    the service closes as idle (after 5 s) just as a request goes out on it is reset: the
    GET is asked again on a new connection, as a browser does (a loaded machine's pauses
    reached 5 s)."""
    for attempt in range(3):
        try:
            return page.request.get(address).json()
        except Exception as e:  # playwright's Error: only the reset is asked again
            if "ECONNRESET" not in str(e) or attempt == 2:
                raise
    raise AssertionError("unreachable")


def page_client(service: Any) -> Any:
    """A Starlette test client of the page's app over a service (no guard: loopback)."""
    import warnings

    with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from controller.web.app import create_app

    return TestClient(create_app(service))
