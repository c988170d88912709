"""Whether the catalogues are whole: every text the voice may say translated in every
language, with the same ``{placeholders}`` (a translation that drops or invents one would
fail, or say the wrong thing, at the moment it is spoken)."""

from __future__ import annotations

import string

from controller.speech.lang import LANGUAGES, catalogue
from controller.speech.messages import spoken_messages


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def catalogue_problems() -> list[str]:
    """One line per missing or broken translation (empty: every catalogue is whole)."""
    problems = []
    wanted = sorted(spoken_messages())
    for code in LANGUAGES:
        if code == "en":
            continue
        cat = catalogue(code)
        for mid in wanted:
            text = cat.get(mid)
            if not text:
                problems.append(f"{code}: no translation of {mid!r}")
            elif _fields(text) != _fields(mid):
                problems.append(f"{code}: {mid!r} has the placeholders "
                                f"{sorted(_fields(text))}, not {sorted(_fields(mid))}")
    return problems
