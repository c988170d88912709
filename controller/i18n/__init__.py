"""One translation machinery for the whole product: the languages and their catalogues
(:mod:`.lang`), texts said later in the reader's language (:mod:`.text`), every message a
catalogue must hold (:mod:`.messages`) and whether each catalogue holds them
(:mod:`.check`). Translators: docs/languages.md."""

from controller.i18n.lang import (
    LANGUAGES,
    LOCALE_DIR,
    LanguageError,
    catalogue,
    check_language,
    language,
    speaking,
    translate,
    voice,
)
from controller.i18n.text import Text, render, text_of

__all__ = ["LANGUAGES", "LOCALE_DIR", "LanguageError", "Text", "catalogue", "check_language",
           "language", "render", "speaking", "text_of", "translate", "voice"]
