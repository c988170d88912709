"""The voice's languages: every text it may say is translated in every catalogue with the
same placeholders, the template file is up to date, and every move shape of every game is
said in every language without a gap or an English word left where a name belongs."""

from __future__ import annotations

import pytest
from babel.messages.pofile import read_po

from controller.i18n.check import catalogue_problems
from controller.i18n.lang import LANGUAGES, LOCALE_DIR, LanguageError, speaking, translate
from controller.i18n.messages import all_messages
from controller.rules import GAMES, get_game
from controller.speech.messages import spoken_messages
from controller.speech.words import move_words, outcome_words
from tests.support.moves import move_shapes


def test_every_catalogue_translates_every_text_with_its_placeholders():
    assert catalogue_problems() == []


def test_the_template_file_lists_exactly_what_the_product_may_show_or_say():
    with (LOCALE_DIR / "messages.pot").open("rb") as f:
        ids = {m.id for m in read_po(f) if m.id}
    assert ids == all_messages(), "run scripts/i18n extract"
    assert spoken_messages() <= ids


def test_a_move_in_each_language():
    game = get_game("luotuoqi")
    pos = game.start()
    move = game.parse_move(pos, "Mb1-c3")
    said = {}
    for code in LANGUAGES:
        with speaking(code):
            said[code] = move_words(game, pos, move)
    assert said["en"] == "Mule b1 to c3"
    assert said["de"] == "Maultier (Mule) b1 nach c3"
    assert said["fr"] == "Mulet (Mule) b1 en c3"
    assert said["zh"] == "骡b1到c3"
    assert len(set(said.values())) == len(LANGUAGES)


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_every_move_shape_of_every_game_is_said_in_each_language(code):
    for name in GAMES:
        game, shapes = move_shapes(name, games=4, plies=100)
        english_names = set(game.piece_names.values())
        names = dict(spoken_name_pairs(code))
        for pos, move in shapes:
            with speaking(code):
                words = move_words(game, pos, move)
            assert words and "{" not in words, (code, words)
            with speaking(code):
                piece = translate(game.piece_names.get(move.piece.kind, ""))
            if move.piece is not None and move.kind not in ("pass", "roll") and piece:
                assert piece in words, (code, words)
            for english in english_names:
                translated = names.get(english, english)
                if translated != english and f"({english})" not in translated:
                    assert f" {english} " not in f" {words} ", (code, english, words)


def spoken_name_pairs(code):
    with speaking(code):
        return [(m, translate(m)) for m in spoken_messages()]


def test_the_end_of_a_game_in_chinese_uses_its_own_punctuation():
    game = get_game("chess")
    pos = game.start()
    for text in ["f3", "e5", "g4", "Qh4#"]:
        pos.push(game.parse_move(pos, text))
    with speaking("zh"):
        assert outcome_words(game, game.outcome(pos)) == "将死。黑方获胜。"


def test_an_unknown_language_is_one_clear_error():
    with pytest.raises(LanguageError, match="unknown language 'klingon'"), speaking("klingon"):
        pass
