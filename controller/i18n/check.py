"""Whether the catalogues are whole: every text the product may show or say translated in
every language, with the same ``{placeholders}`` (a translation that drops or invents one
would fail, or say the wrong thing, at the moment it is shown)."""

from __future__ import annotations

import string

from controller.i18n.lang import LANGUAGES, catalogue
from controller.i18n.messages import all_messages, bare_script_texts, page_scripts


def _fields(text: str) -> set[str]:
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}
    except ValueError:  # an unbalanced brace: no field can be read
        return {"{"}


def catalogue_problems() -> list[str]:
    """One line per missing or broken translation (empty: every catalogue is whole)."""
    problems = []
    wanted = sorted(all_messages())
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


def page_problems() -> list[str]:
    """One line per string of the page's scripts that a person reads in English whatever
    the language (words written outside ``t(…)``; empty: none)."""
    return [f"{path.name}:{line}: English outside t(…): {text!r}"
            for path in page_scripts() for line, text in bare_script_texts(path)]
