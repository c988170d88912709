"""Every text a catalogue must translate, found where it is written: the voice's words
(:func:`controller.speech.messages.spoken_messages`), the templates passed to ``Text`` or
``_`` in the product's modules (the board's messages, errors and guidance), the page's
texts (``index.html``'s and ``club.html``'s words, every ``t("…")`` in the page's scripts)
the games' own words (titles, options) and the settings' help lines.

Used by ``scripts/i18n`` (writes ``locale/messages.pot`` and updates each catalogue) and by
the catalogue test, which fails when any catalogue lacks one of them."""

from __future__ import annotations

import ast
import re
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

CONTROLLER = Path(__file__).resolve().parent.parent
STATIC = CONTROLLER / "web" / "static"
#: the club server's own page scripts (its pages' words are ``_("…")`` in ``pages.py``)
SERVER_STATIC = CONTROLLER / "server" / "static"
#: the attributes of the page's elements that people read (or hear from a screen reader)
READ_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")
#: the calls whose first text is a catalogue message (the club server's refusals too: a
#: page's request is answered in the page's language)
KEYWORDS = ("_", "Text", "ServiceError", "RequestError", "PlayError", "AccountError")
#: text that is a name or a symbol, never translated (the product's name, arrows)
_NOT_WORDS = re.compile(r"^[^A-Za-z]*$|^fairyboard$")


def code_messages() -> set[str]:
    """The templates passed to ``Text`` (or the voice's ``_``) in the product's modules, and
    the fixed lines of the errors a page is answered with (a plain message the catalogue
    knows is translated whole)."""
    found: set[str] = set()
    for path in sorted(CONTROLLER.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if not any(f"{word}(" in source for word in KEYWORDS):
            continue
        # the syntax tree, not Babel's extractor: it reads no call inside an f-string
        for node in ast.walk(ast.parse(source, str(path))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            first = node.args[0]
            if (name in KEYWORDS and isinstance(first, ast.Constant)
                    and isinstance(first.value, str) and first.value):
                found.add(first.value)
    return found


class _PageWords(HTMLParser):
    """The words of a page: its text runs and the attributes read aloud."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.words: set[str] = set()
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            if name in READ_ATTRIBUTES and value:
                self._add(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._add(data)

    def _add(self, text: str) -> None:
        text = " ".join(text.split())
        if text and not _NOT_WORDS.match(text):
            self.words.add(text)


def html_words(path: Path) -> set[str]:
    """The words a person reads in one page file (its text runs, whitespace folded as the
    page's ``i18n.js`` folds them)."""
    parser = _PageWords()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.words


#: the page scripts' calls whose first text is a catalogue message
SCRIPT_KEYWORDS = ("t", "N_")
#: a JS string literal that reads as words to a person (not a class list, an id, a
#: selector): three words in a row, or a capitalised word and another
_SENTENCE = re.compile(r"[A-Za-z']{2,} [A-Za-z']+ [A-Za-z']{2,}|(?:^|[\s(])[A-Z][a-z]+ [a-z]+")
_PUNCT_BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^")


_ESCAPE = re.compile(r"\\(u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|.)", re.S)
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def _unescape(raw: str) -> str:
    """A JS string literal's text (its escapes read)."""
    def one(m: re.Match[str]) -> str:
        e = m.group(1)
        if e[0] in "ux" and len(e) > 1:
            return chr(int(e[1:].strip("{}"), 16))
        return _ESCAPED.get(e, e)
    return _ESCAPE.sub(one, raw)


def script_tokens(source: str) -> list[tuple[str, str, int]]:
    """The tokens of a page script that matter to its texts: ``("name", word, line)``,
    ``("punct", character, line)`` and ``("str", text, line)`` — a quoted string's text,
    or each fixed part of a template literal (whose ``${…}`` is read as code again);
    comments and regular expressions are skipped.  (Babel's extractor reads only the
    outermost call of a line and no template literal: a ``t("…")`` nested in another, or
    in a template, would be missed.)"""
    out: list[tuple[str, str, int]] = []
    k, n, line = 0, len(source), 1
    braces: list[int] = []  # per open ${: the depth of { inside it
    last = ""  # the last significant token (a "/" after it starts a regex or divides)

    def template(k: int) -> int:
        """Read a template literal's text from ``k`` to its end or to a ``${`` (then the
        code inside is read on, and its ``}`` comes back here)."""
        nonlocal line
        text: list[str] = []
        while k < n:
            c = source[k]
            if c == "\\":
                text.append(source[k:k + 2])
                k += 2
                continue
            if c == "`":
                out.append(("str", _unescape("".join(text)), line))
                return k + 1
            if c == "$" and source[k + 1:k + 2] == "{":
                out.append(("str", _unescape("".join(text)), line))
                braces.append(0)
                return k + 2
            line += c == "\n"
            text.append(c)
            k += 1
        return k

    while k < n:
        c = source[k]
        if c == "\n":
            line += 1
            k += 1
        elif c.isspace():
            k += 1
        elif source.startswith("//", k):
            k = source.find("\n", k)
            k = n if k < 0 else k
        elif source.startswith("/*", k):
            end = source.find("*/", k + 2)
            end = n if end < 0 else end + 2
            line += source.count("\n", k, end)
            k = end
        elif c in "'\"":
            j = k + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            raw = source[k + 1:j]
            out.append(("str", _unescape(raw), line))
            k, last = j + 1, "str"
        elif c == "`":
            k, last = template(k + 1), "str"
        elif c == "/" and (last in _PUNCT_BEFORE_REGEX or last in ("", "return", "typeof")):
            j, in_class = k + 1, False  # a regular expression: skipped
            while j < n and source[j] != "\n" and (source[j] != "/" or in_class):
                if source[j] == "\\":
                    j += 1
                elif source[j] in "[]":
                    in_class = source[j] == "["
                j += 1
            k, last = j + 1, "regex"
        elif c.isalnum() or c in "_$":
            j = k
            while j < n and (source[j].isalnum() or source[j] in "_$"):
                j += 1
            word = source[k:j]
            out.append(("name", word, line))
            k, last = j, word
        else:
            if c == "{" and braces:
                braces[-1] += 1
            elif c == "}" and braces:
                if braces[-1] == 0:  # the end of a template's ${…}: its text goes on
                    braces.pop()
                    k, last = template(k + 1), "str"
                    continue
                braces[-1] -= 1
            out.append(("punct", c, line))
            k, last = k + 1, c
    return out


def _calls(tokens: list[tuple[str, str, int]]) -> list[bool]:
    """Per token: whether it is inside the parentheses of a ``t(…)``/``N_(…)`` call."""
    inside, stack = [], []
    for k, (kind, value, _line) in enumerate(tokens):
        if kind == "punct" and value == "(":
            before = tokens[k - 1] if k else ("", "", 0)
            stack.append(before[0] == "name" and before[1] in SCRIPT_KEYWORDS)
        elif kind == "punct" and value == ")" and stack:
            stack.pop()
        inside.append(any(stack))
    return inside


def script_messages(path: Path) -> set[str]:
    """The texts passed to ``t("…")`` (or marked ``N_("…")``) in one of the page's scripts,
    wherever the call is (nested in another call, in a template literal)."""
    from babel.messages.extract import extract_from_file

    found = {message for _l, message, _c, _x in extract_from_file(
        "javascript", str(path), keywords=dict.fromkeys(SCRIPT_KEYWORDS))
        if isinstance(message, str) and message}
    tokens = script_tokens(path.read_text(encoding="utf-8"))
    return found | {tokens[k + 2][1] for k in range(len(tokens) - 3)
            if tokens[k][0] == "name" and tokens[k][1] in SCRIPT_KEYWORDS
            and tokens[k + 1][1] == "(" and tokens[k + 2][0] == "str" and tokens[k + 2][1]
            and tokens[k + 3][1] in ",)"}


def bare_script_texts(path: Path) -> list[tuple[int, str]]:
    """The strings of a page script that read as English words but are not said through
    ``t(…)`` (line, text): a person reading another language would see them in English.
    A string inside a ``t(…)`` call's parentheses is a template or a value (a name, a
    notation, JSON)."""
    tokens = script_tokens(path.read_text(encoding="utf-8"))
    return [(line, text) for (kind, text, line), inside in zip(tokens, _calls(tokens),
                                                               strict=True)
            if kind == "str" and not inside and _SENTENCE.search(text)]


def page_scripts() -> list[Path]:
    """The page scripts a person reads: the companion page's and the club server's."""
    return sorted(STATIC.glob("*.js")) + sorted(SERVER_STATIC.glob("*.js"))


def page_messages() -> set[str]:
    """Every text of the page, the club page and the server's page scripts."""
    found: set[str] = set()
    for path in sorted(STATIC.glob("*.html")):
        found |= html_words(path)
    for path in page_scripts():
        found |= script_messages(path)
    return found


def game_texts() -> set[str]:
    """The games' own words the page shows: titles, option names, why a game ended, the
    guided first game's special step."""
    from controller.rules import GAME_CLASSES
    from controller.rules.core import Termination

    found: set[str] = {str(t) for t in Termination}
    for cls in GAME_CLASSES:
        if not cls.__module__.startswith("controller."):
            continue  # (a game registered by the tests is not the product's)
        found.add(cls.title)
        found |= {spec.name for spec in cls.option_specs}
        found |= set(cls.endings) | set(cls.reason_text.values())
        found |= {w for token in cls.tokens for w in (token.title, f"the {token.title}")}
        if cls.special_step is not None:  # the guided first game's last step
            found.add(cls.special_step.text)
    return found


def settings_help() -> set[str]:
    """The owner's settings' help lines the Settings section shows (the ``#:`` comments
    above each setting in ``controller/config.py``)."""
    from controller.config import Config
    from controller.settings import describe

    return {item["help"] for item in describe(Config()) if item["help"]}


@cache
def all_messages() -> frozenset[str]:
    """Every message a catalogue must translate."""
    from controller.speech.messages import spoken_messages

    return frozenset(spoken_messages() | code_messages() | page_messages() | game_texts()
                     | settings_help())
