"""The players' guides (``docs/rules``) as pages of the board's own web site.

A player with only the board and a phone can read how to play: ``/guide/GAME`` renders
the game's guide (Markdown, with markdown-it-py) inside a plain page in the companion
page's colours, ``/guide/images/NAME.svg`` serves its diagrams.  From a checkout the
guides are read from ``docs/rules``; an installed package carries them as
``controller/guides`` (the build hook in ``setup.py``).

Each guide is also written in the product's other languages as ``docs/rules/LANG/GAME.md``
(the same figures, from ``images/``).  The reader's language comes from ``?lang=`` or else
the browser's ``Accept-Language``; a guide not (yet) written in it is served in English
with a one-line note saying so.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from xml.sax.saxutils import escape

from markdown_it import MarkdownIt

from controller.i18n import LANGUAGES as I18N_LANGUAGES
from controller.i18n import Text, render

PACKAGE = Path(__file__).resolve().parents[1]
IMAGE_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*\.svg$")

#: the languages a guide is read in (its own Markdown file, or English with a note)
LANGUAGES = tuple(I18N_LANGUAGES)
#: the page's own few words (the catalogues translate them): back link, title ending, the
#: note when a guide is not written in the reader's language yet
BACK = Text("back to the board")
HOW_TO_PLAY = Text("how to play")
NOT_WRITTEN = Text("This guide is not written in that language yet: here it is in English.")


def guides_dir() -> Path:
    installed = PACKAGE / "guides"
    return installed if installed.is_dir() else PACKAGE.parent / "docs" / "rules"


@cache
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def reader_language(asked: str | None, accept: str | None) -> tuple[str, str | None]:
    """The language to serve and, when ``?lang=`` named none the product knows, the one
    line that says so.  ``asked`` is the query parameter, ``accept`` the browser's
    ``Accept-Language`` header (its best known language; ``zh-CN`` and the like are ``zh``)."""
    if asked and asked.strip():  # (an empty ?lang= asks for nothing)
        code = asked.strip().lower()
        if code in LANGUAGES:
            return code, None
        return "en", (f"There is no guide in the language {asked[:20]!r} "
                      f"(known: {', '.join(LANGUAGES)}): here it is in English.")
    choices: list[tuple[float, int, str]] = []
    for index, part in enumerate((accept or "")[:500].split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                continue
        code = tag.strip().lower().split("-")[0]
        if code in LANGUAGES and weight > 0:
            choices.append((-weight, index, code))
    return (min(choices)[2] if choices else "en"), None


def guide_html(game: str, title: str, lang: str = "en", note: str | None = None) -> str | None:
    """The guide of ``game`` (a registry name) as a whole HTML page in ``lang`` (English,
    with a note, when it is not written in that language); None without any guide."""
    if not re.fullmatch(r"[a-z0-9-]+", game):
        return None
    lang = lang if lang in LANGUAGES else "en"
    english = guides_dir() / f"{game}.md"
    path = guides_dir() / lang / f"{game}.md" if lang != "en" else english
    if not english.is_file():
        return None
    if not path.is_file():  # not translated yet: English, said in the reader's language
        note = note or render(NOT_WRITTEN, lang)
        path = english
    served = "en" if path == english else lang
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"\A\s*<!--.*?-->\s*", "", text, flags=re.S)  # a translator's note
    body = _markdown().render(text)
    # links to programmers' pages outside the guides are not pages of the board: keep the text
    body = re.sub(r'<a href="\.\./[^"]*">(.*?)</a>', r"\1", body)
    # a translation's figures are the English guide's (docs/rules/images, /guide/images)
    body = body.replace('src="../images/', 'src="images/')
    back, how = render(BACK, lang), render(HOW_TO_PLAY, lang)
    notice = f'<p class="note" lang="{lang}">{escape(note)}</p>\n' if note else ""
    return f"""<!doctype html>
<html lang="{served}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}: {escape(how)}</title>
<style>
body {{ font-family: system-ui, "DejaVu Sans", "Noto Sans CJK SC", "PingFang SC",
       "Microsoft YaHei", sans-serif; background: #1f1c1a; color: #ece6dc;
       max-width: 52rem; margin: 0 auto; padding: 1rem; line-height: 1.45; }}
a {{ color: #8cc4f0; }} img {{ max-width: 100%; background: #fff; border-radius: 6px; }}
table {{ border-collapse: collapse; font-size: .9rem; display: block; overflow-x: auto; }}
td, th {{ border: 1px solid #453f3a; padding: .25rem .45rem; vertical-align: top; }}
code {{ background: #2b2724; padding: 0 .2rem; border-radius: 3px; }}
.note {{ border-left: 3px solid #e0a040; padding-left: .6rem; }}
</style></head><body><nav><p lang="{lang}"><a href="/">&larr; {escape(back)}</a></p></nav>
<main>{notice}{body}</main></body></html>"""


def guide_image(name: str) -> Path | None:
    """A guide's diagram by file name (nothing outside the images folder)."""
    if not IMAGE_NAME.match(name):
        return None
    path = guides_dir() / "images" / name
    return path if path.is_file() else None
