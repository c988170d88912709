"""The players' guides (``docs/rules``) as pages of the board's own web site.

A player with only the board and a phone can read how to play: ``/guide/GAME`` renders
the game's guide (Markdown, with markdown-it-py) inside a plain page in the companion
page's colours, ``/guide/images/NAME.svg`` serves its diagrams.  From a checkout the
guides are read from ``docs/rules``; an installed package carries them as
``controller/guides`` (the build hook in ``setup.py``).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from xml.sax.saxutils import escape

from markdown_it import MarkdownIt

PACKAGE = Path(__file__).resolve().parents[1]
IMAGE_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*\.svg$")


def guides_dir() -> Path:
    installed = PACKAGE / "guides"
    return installed if installed.is_dir() else PACKAGE.parent / "docs" / "rules"


@cache
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def guide_html(game: str, title: str) -> str | None:
    """The guide of ``game`` (a registry name) as a whole HTML page; None without one."""
    path = guides_dir() / f"{game}.md"
    if not re.fullmatch(r"[a-z0-9-]+", game) or not path.is_file():
        return None
    body = _markdown().render(path.read_text(encoding="utf-8"))
    # links to programmers' pages outside the guides are not pages of the board: keep the text
    body = re.sub(r'<a href="\.\./[^"]*">(.*?)</a>', r"\1", body)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}: how to play</title>
<style>
body {{ font-family: system-ui, "DejaVu Sans", "Noto Sans CJK SC", "PingFang SC",
       "Microsoft YaHei", sans-serif; background: #1f1c1a; color: #ece6dc;
       max-width: 52rem; margin: 0 auto; padding: 1rem; line-height: 1.45; }}
a {{ color: #8cc4f0; }} img {{ max-width: 100%; background: #fff; border-radius: 6px; }}
table {{ border-collapse: collapse; font-size: .9rem; display: block; overflow-x: auto; }}
td, th {{ border: 1px solid #453f3a; padding: .25rem .45rem; vertical-align: top; }}
code {{ background: #2b2724; padding: 0 .2rem; border-radius: 3px; }}
</style></head><body><p><a href="/">&larr; back to the board</a></p>
{body}</body></html>"""


def guide_image(name: str) -> Path | None:
    """A guide's diagram by file name (nothing outside the images folder)."""
    if not IMAGE_NAME.match(name):
        return None
    path = guides_dir() / "images" / name
    return path if path.is_file() else None
