"""Texts said later in a language not yet known: the board composes its messages once,
in English, for every page and the Pi alike; each page reads them in its own language.

A :class:`Text` is the English string (so logs, tests and ``in`` checks read it as before)
that remembers its template and its values; :func:`render` says it in another language:
the template through the catalogue, each value rendered too (a value that is a name the
catalogue knows — a player, a piece, a reason — is translated; cell names and notation are
not in it and stay as they are).
"""

from __future__ import annotations

from typing import Any

from controller.i18n.lang import speaking, translate


class Text(str):
    """``template.format(**values)`` in English, able to be said in another language.
    The template is a catalogue message id (``scripts/i18n extract`` finds every
    ``Text("…")`` written in the product's modules)."""

    template: str
    values: dict[str, Any]
    literal: bool

    def __new__(cls, template: str, /, **values: Any) -> Text:
        self = super().__new__(cls, template.format(**values) if values else template)
        self.template, self.values, self.literal = template, values, False
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.template, self.values, self.literal))

    @classmethod
    def join(cls, separator: str, parts: list[Any]) -> Text:
        """``separator.join(parts)`` whose parts are rendered each (the separator is not
        a sentence to translate)."""
        names = [f"p{k}" for k in range(len(parts))]
        template = separator.replace("{", "{{").replace("}", "}}").join(
            "{" + n + "}" for n in names)
        text = cls(template, **dict(zip(names, parts, strict=True)))
        text.literal = True
        return text


def _rebuild(template: str, values: dict[str, Any], literal: bool) -> Text:
    text = Text(template, **values)
    text.literal = literal
    return text


def _said(value: Any) -> Any:
    if isinstance(value, Text):
        template = value.template if value.literal else translate(value.template)
        values = {k: _said(v) for k, v in value.values.items()}
        try:
            return template.format(**values) if values else template
        except (KeyError, IndexError, ValueError):  # a broken translation: the English
            return str(value)
    if isinstance(value, str):
        return translate(value)
    return value


def text_of(exc: BaseException) -> str:
    """An error's one line, as the :class:`Text` it was raised with when it was one (so a
    page can still read it in its own language; ``str(exc)`` would keep only the
    English)."""
    if len(exc.args) == 1 and isinstance(exc.args[0], Text):
        return exc.args[0]
    return str(exc)


def render(value: Any, code: str) -> str:
    """``value`` (a :class:`Text`, a plain message or a name) in language ``code``."""
    if not value:
        return "" if value is None else str(value)
    if code == "en":
        return str(value)
    with speaking(code):
        return str(_said(value))
