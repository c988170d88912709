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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parent.parent


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
        deadline = time.monotonic() + 20
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
def browser_page(sync_api: Any, url: str, width: int = 1280, height: int = 860) -> Iterator[Any]:
    """A Chromium page on ``url``, live (websocket connected); fails on any page error."""
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        sync_api.expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
        yield page
        assert errors == [], errors
        browser.close()


def page_client(service: Any) -> Any:
    """A Starlette test client of the page's app over a service (no guard: loopback)."""
    import warnings

    with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from controller.web.app import create_app

    return TestClient(create_app(service))
