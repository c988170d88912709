"""The Pi's speaker: announcements played in order on a thread of their own, so the board
loop never waits for a sound card or the speech program.

A queue of at most :data:`QUEUE` announcements: when the player makes moves faster than they
can be said, the oldest unsaid words are dropped (the newest matter; the sounds are kept
short).  A speaker that fails (no sound card, no espeak-ng) is logged once with the reason
and then only counted, and the board plays on silently."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

from controller.speech import sounds, voice
from controller.speech.announcer import Announcement

log = logging.getLogger(__name__)

#: announcements waiting at most
QUEUE = 8


class Speaker:
    """Plays announcements through ALSA ``device`` (sounds at ``volume``) and espeak-ng."""

    def __init__(self, *, volume: float = 0.6, speed: int = 160, device: str = "default",
                 sounds: bool = True, words: bool = True,
                 play: Callable[[bytes, str], None] = voice.play_wav,
                 speak: Callable[[str, str, int, str], None] = voice.speak) -> None:
        self.volume = volume
        self.sounds = sounds
        self.words = words
        self.speed = speed
        self.device = device
        self._play = play
        self._speak = speak
        self._queue: queue.Queue[Announcement | None] = queue.Queue(QUEUE)
        self.failures: dict[str, int] = {}
        self.dropped = 0
        self._thread = threading.Thread(target=self._run, name="speaker", daemon=True)
        self._thread.start()

    def __call__(self, item: Announcement) -> None:
        """Queue ``item`` (never blocks: a full queue drops its oldest)."""
        while True:
            try:
                self._queue.put_nowait(item)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                    self.dropped += 1
                except queue.Empty:
                    pass

    def close(self, timeout: float = 2.0) -> None:
        """Stop after what is queued (waits at most ``timeout`` seconds)."""
        self(None)  # type: ignore[arg-type]
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            self._say(item)

    def _say(self, item: Announcement) -> None:
        if item.sound and self.sounds:
            self._guard("sound", lambda: self._play(
                sounds.wav_bytes(item.sound, self.volume), self.device))
        if item.text and self.words:
            self._guard("voice", lambda: self._speak(item.text, item.lang, self.speed,
                                                     self.device))

    def _guard(self, what: str, action: Callable[[], None]) -> None:
        try:
            action()
        except Exception as exc:  # the board must play on
            count = self.failures.get(what, 0) + 1
            self.failures[what] = count
            if count == 1:
                log.warning("speaker %s failed: %s (the board plays on silently; further "
                            "failures are only counted)", what, exc,
                            exc_info=not isinstance(exc, OSError))
