"""The product's languages: one gettext catalogue per language (``locale/<code>.po``, read
with Babel) for everything a person reads or hears — the page, the board's messages,
errors and guidance, the LED legend, the games' and pieces' names and the voice's words —
and the language words are being built in.

A text is built in the language of the context it is built in (:func:`speaking`), so the
page of a German reader and the Pi's English speaker can be told the same move at once.
English is the source language: its texts are the catalogues' message ids, so English needs
no catalogue and a message missing from a catalogue stays English (the catalogue test fails
on it first).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent / "locale"

#: language code -> (its own name, the espeak-ng voice that speaks it)
LANGUAGES: dict[str, tuple[str, str]] = {
    "en": ("English", "en-gb"),
    "de": ("Deutsch", "de"),
    "fr": ("Français", "fr-fr"),
    "es": ("Español", "es"),
    "it": ("Italiano", "it"),
    "zh": ("中文", "cmn"),
}

_current: contextvars.ContextVar[str] = contextvars.ContextVar("language", default="en")


class LanguageError(ValueError):
    """An unknown language code (one line names the known ones)."""


def check_language(code: str) -> str:
    """``code`` when the product speaks it, else :class:`LanguageError`."""
    if not isinstance(code, str) or code not in LANGUAGES:
        raise LanguageError(f"unknown language {str(code)[:20]!r} "
                            f"(known: {', '.join(LANGUAGES)})")
    return code


@cache
def catalogue(code: str) -> dict[str, str]:
    """The translations of language ``code`` (message id -> text); empty for English."""
    check_language(code)
    path = LOCALE_DIR / f"{code}.po"
    if code == "en" or not path.is_file():
        return {}
    from babel.messages.pofile import read_po  # only a board that speaks another language

    with path.open("rb") as f:
        cat = read_po(f, locale=code)
    return {m.id: m.string for m in cat if m.id and m.string and not m.fuzzy}


@contextmanager
def speaking(code: str) -> Iterator[None]:
    """Build the words inside the block in language ``code``."""
    token = _current.set(check_language(code))
    try:
        yield
    finally:
        _current.reset(token)


def language() -> str:
    """The language words are being built in now."""
    return _current.get()


def translate(text: str) -> str:
    """``text`` (an English template or name) in the current language."""
    code = _current.get()
    if code == "en":
        return text
    return catalogue(code).get(text, text)


def voice(code: str) -> str:
    """The espeak-ng voice of language ``code``."""
    return LANGUAGES[check_language(code)][1]
