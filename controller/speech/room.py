"""The board's voice as one room of the service: the announcer listening to the board, the
last announcements for the page, and the Pi's speaker when the owner turned it on.

The service hands it the board (again whenever it builds a new one) and three questions
it alone can answer — whose ears, which seats are not the person at the board, how much
time a player has — and reads :meth:`BoardVoice.json` into the page's snapshot."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.config import SpeechSettings
from controller.speech.announcer import Announcement, Announcer, Recent
from controller.speech.speaker import Speaker


class BoardVoice:
    """``listener``, ``who`` and ``remaining`` as :class:`Announcer` takes them;
    ``speaker`` builds the Pi's speaker (tests pass their own)."""

    def __init__(self, settings: SpeechSettings, *,
                 listener: Callable[[], int | None], who: Callable[[int], str],
                 remaining: Callable[[int], float | None],
                 speaker: Callable[..., Any] | None = None) -> None:
        self.settings = settings
        self.recent = Recent()
        self.speaker = ((speaker or Speaker)(volume=settings.volume, speed=settings.speed,
                                device=settings.device, sounds=settings.sounds,
                                words=settings.voice)
                        if settings.speaker else None)
        self._questions = (listener, who, remaining)
        self.announcer: Announcer | None = None

    def follow(self, board: Any) -> None:
        """Listen to ``board`` (the first, or a new one after the layout changed)."""
        if self.announcer is None:
            listener, who, remaining = self._questions
            # every event in words and sound: the page's live region always shows the
            # words; the Pi's speaker and the page each say what their owner turned on
            self.announcer = Announcer(board, self._say, lang=self.settings.language,
                                       listener=listener, who=who, remaining=remaining)
        elif self.announcer.board is not board:
            self.announcer.attach(board)

    def _say(self, item: Announcement) -> None:
        self.recent(item)
        if self.speaker is not None:
            self.speaker(item)

    def json(self) -> list[dict[str, Any]]:
        return self.recent.json()

    def close(self) -> None:
        if self.speaker is not None:
            self.speaker.close(timeout=0.5)
