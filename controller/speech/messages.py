"""Every text the voice may say, for the catalogues: the templates written in
``controller/speech/`` (found by Babel's extractor, keyword ``_``) and the names the games
give it (pieces, players for every player count, stacks, tokens) and the spoken reasons.

Used by ``scripts/i18n`` (writes ``locale/messages.pot`` and updates each catalogue) and by
the catalogue test, which fails when any catalogue lacks one of them."""

from __future__ import annotations

from pathlib import Path

from controller.rules import GAME_CLASSES, get_game
from controller.speech.words import EVENT_WORDS, REASON_WORDS

HERE = Path(__file__).resolve().parent


def template_messages() -> set[str]:
    """The templates passed to ``_`` in this package's modules."""
    from babel.messages.extract import extract_from_file  # a developer's tool

    found: set[str] = set()
    for path in sorted(HERE.glob("*.py")):
        for _lineno, message, _comments, _context in extract_from_file(
                "python", str(path), keywords={"_": None}):
            if isinstance(message, str):
                found.add(message)
    return found


def game_messages() -> set[str]:
    """The names the registered games give the voice."""
    found: set[str] = set()
    for cls in GAME_CLASSES:
        found |= set(cls.piece_names.values())
        found.add(cls.stack_words)
        counts = [None]
        for spec in cls.option_specs:
            if spec.name == "players" and spec.choices:
                counts = list(spec.choices)
        for count in counts:
            game = get_game(cls.name) if count is None else get_game(cls.name, players=count)
            found |= set(game.player_names)
            # tokens travel with moves: the first two plies show every token a game has
            pos = game.start()
            for first in game.legal_moves(pos)[:40]:
                found |= {m.token.title() for m in [first] if m.token and ":" not in m.token}
                pos.push(first)
                found |= {m.token.title() for m in game.legal_moves(pos)
                          if m.token and ":" not in m.token}
                pos.pop()
    return found


def spoken_messages() -> set[str]:
    """Every message a catalogue must translate."""
    return (template_messages() | game_messages() | set(REASON_WORDS.values())
            | set(EVENT_WORDS.values()))
