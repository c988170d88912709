"""What one running board sends its pages: the state per viewer and the LEDs a viewer may
see, built from the board's :class:`~controller.snapshot.BoardSnapshot`.

The state is cached per board version and viewer (many pages, one build); the parts that
change without a new version (clocks, LED glow, health, advice) are added to each answer.
"""

from __future__ import annotations

import weakref
from typing import Any

from controller.i18n import render
from controller.rules import GAMES
from controller.snapshot import BoardSnapshot
from controller.web.state import build_state, games_json, layout_json, visible_leds
from controller.web.texts import localise, localise_online


def _game_class(name: str) -> type:
    return GAMES[name]


class Page:
    """The page's view of one board service (anything with ``snapshot()``,
    ``page_viewer()`` and ``layout``)."""

    def __init__(self, service: Any) -> None:
        # weakly: the registry below keys pages by their service, and a page must not
        # keep its service (its simulator, its worker processes) alive
        self._service = weakref.ref(service)
        self._layout = service.layout
        self.layout_json = layout_json(service.layout)
        self.games = games_json(service.layout, _game_class)
        self._cache: dict[tuple[int, int | None, str], dict[str, Any]] = {}

    def follow_layout(self) -> None:
        """The simulated board switched to another printed board: draw that one."""
        layout = self.service.layout
        if layout is not self._layout:
            self._layout = layout
            self.layout_json = layout_json(layout)
            self.games = games_json(layout, _game_class)
            self._cache.clear()

    @property
    def service(self) -> Any:
        service = self._service()
        assert service is not None, "the page's service is gone"
        return service

    def state(self, viewer: int | None = None, lang: str = "en") -> dict[str, Any]:
        """The page's state for ``viewer`` (None: as the board serves), its words in
        language ``lang``."""
        self.follow_layout()
        viewer = self.service.page_viewer(viewer)
        snap: BoardSnapshot = self.service.snapshot()
        key = (snap.version, viewer, lang)
        cached = self._cache.get(key)
        if cached is None:
            if any(k[0] != snap.version for k in self._cache):
                self._cache.clear()
            built = self._cache.get((snap.version, viewer, ""))  # (every language's words)
            if built is None:
                built = dict(build_state(snap, viewer), games=self.games)
                self._cache[(snap.version, viewer, "")] = built
            cached = localise(built, lang)
            self._cache[key] = cached
        state = dict(cached, leds=visible_leds(snap, viewer), led_seq=snap.led_version,
                     clock=snap.clock, time_control=snap.time_control, link=snap.link,
                     advice=snap.advice, health=snap.health,
                     journal_problems=[render(p, lang) for p in snap.journal_problems],
                     problems=[render(p, lang) for p in snap.problems],
                     online=localise_online(snap.online, lang))
        if snap.failure is not None:  # only what the journal holds: no unwritten result
            state.update(phase="failed", message=render(snap.failure, lang), choice=[],
                         result=state["result"] if snap.ended else None)
        return state

    def leds(self, viewer: int | None = None) -> list[list[Any]]:
        """Per spot ``[colour, opacity]`` of the LEDs ``viewer`` may see."""
        viewer = self.service.page_viewer(viewer)
        return visible_leds(self.service.snapshot(), viewer)

    def clear(self) -> None:
        """Forget the cached states (benchmarks measure a build)."""
        self._cache.clear()


_PAGES: weakref.WeakKeyDictionary[Any, Page] = weakref.WeakKeyDictionary()


def page_for(service: Any) -> Page:
    """The one :class:`Page` of ``service`` (the app and tests share its cache)."""
    page = _PAGES.get(service)
    if page is None:
        page = _PAGES[service] = Page(service)
    return page


def page_state(service: Any, viewer: int | None = None, lang: str = "en") -> dict[str, Any]:
    """The page's state of ``service`` for ``viewer``, in language ``lang``."""
    return page_for(service).state(viewer, lang)


__all__ = ["Page", "page_for", "page_state"]
