"""The board's voice in words: every move shape of every game said as a person would, never
the notation read aloud, and nothing hidden said to a player who may not know it."""

from __future__ import annotations

import random

import pytest

from controller.rules import GAMES, get_game
from controller.speech.words import (
    announce_move,
    heard_move,
    move_words,
    outcome_words,
    sentence,
)
from tests.support.moves import move_shapes


@pytest.mark.parametrize("name", list(GAMES))
def test_every_move_shape_is_said_in_words_not_notation(name):
    game, shapes = move_shapes(name)
    assert len(shapes) >= 2
    cells = game.geometry.cells
    for pos, move in shapes:
        words = move_words(game, pos, move)
        notation = game.move_text(pos, move)
        assert words.strip(), (notation, move)
        if len(notation) > 3:  # "e4" may stand in words ("Pawn e3 to e4")
            assert notation not in words, (notation, words)
        if move.target >= 0 and move.kind not in ("pass", "roll"):
            assert cells[move.target] in words, (notation, words)
        if move.piece is not None and move.kind not in ("pass", "roll"):
            name_of = game.piece_names.get(move.piece.kind) or game.piece_name(move.piece)
            assert name_of in words, (notation, words)


def _play(game, texts, position=None):
    pos = game.start() if position is None else game.parse_position(position)
    for t in texts:
        pos.push(game.parse_move(pos, t))
    return pos


def _said(game, pos, text, listener=None, who=""):
    move = game.parse_move(pos, text)
    after = pos.copy()
    after.push(move)
    return announce_move(game, pos, move, after, listener, who)


def test_worked_phrases_of_the_issue():
    lt = get_game("luotuoqi")
    assert _said(lt, lt.start(), "Mb1-c3") == "Mule b1 to c3"
    assert _said(lt, lt.start(), "Mb1-c3", who="The computer") == \
        "The computer plays Mule b1 to c3"
    ch = get_game("chess")
    pos = _play(ch, ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"])
    assert _said(ch, pos, "O-O") == "White castles: King e1 to g1, Rook h1 to f1"
    pos = _play(ch, ["e4", "a6", "e5", "d5"])
    assert _said(ch, pos, "exd6") == "Pawn e5 to d6, taking Pawn on d5"
    mate = _play(ch, ["f3", "e5", "g4"])
    assert _said(ch, mate, "Qh4#") == ("Queen d8 to h4, check. Checkmate. Black wins.")


def test_a_split_tower_says_the_whole_and_the_part():
    game, shapes = move_shapes("luotuoqi")
    splits = [(p, m) for p, m in shapes if m.kind == "split" and not m.captures
              and not m.token]
    pos, move = splits[0]
    whole = move.piece.height + move.left.height
    words = move_words(game, pos, move)
    cells = game.geometry.cells
    assert words == (f"Tower of {whole} on {cells[move.origin]}: {move.piece.height} "
                     f"to {cells[move.target]}")


def test_the_cube_is_handed_over_in_words():
    game, shapes = move_shapes("luotuoqi")
    pos, move = next((p, m) for p, m in shapes if m.token == "cube" and m.kind == "move")
    assert move_words(game, pos, move).endswith(", and hands over the Cube")


def test_a_drop_and_a_reserve_placement_name_the_player():
    lz = get_game("laotzu")
    _, shapes = move_shapes("laotzu")
    pos, move = next((p, m) for p, m in shapes if m.kind == "drop")
    words = move_words(lz, pos, move)
    player = lz.player_names[lz.ply_mover(pos)]
    assert words.startswith(f"{player} drops a {lz.piece_names[move.piece.kind]} on ")
    lotus, shapes = move_shapes("lotus39")
    pos, move = next((p, m) for p, m in shapes if m.kind == "place")
    assert "places the reserve Knight on" in move_words(lotus, pos, move)


def test_own_captures_say_own():
    game, shapes = move_shapes("kaleidochess")
    own = [(p, m) for p, m in shapes if m.captures
           and p.board[m.captures[0]] is not None
           and p.board[m.captures[0]].owner == game.ply_mover(p)]
    assert own
    pos, move = own[0]
    assert " takes own " in move_words(game, pos, move)


def _cells_named(game, text):
    words = set(text.replace(",", " ").replace(";", " ").replace(".", " ").split())
    return {c for c, name in enumerate(game.geometry.cells) if name in words}


def test_another_players_hidden_move_says_only_what_the_listener_may_know():
    """Fog of war: over seeded random games, every phrase the other player hears names only
    cells he saw before the move or sees after it, and enemy pieces only where he sees them;
    it equals the phrase built from his two views alone."""
    game = get_game("laotzu")
    rng = random.Random(11)
    checked = 0
    for _ in range(8):
        pos = game.start()
        for _ in range(90):
            moves = game.legal_moves(pos)
            if not moves:
                break
            move = rng.choice(moves)
            mover = game.ply_mover(pos)
            listener = 1 - mover
            after = pos.copy()
            after.push(move)
            before_v = game.player_view(pos, listener)
            after_v = game.player_view(after, listener)
            said = announce_move(game, pos, move, after, listener)
            core = said.split(". ")[0]
            assert core == sentence(heard_move(game, before_v, after_v))
            allowed = set(before_v.visible) | set(after_v.visible)
            assert _cells_named(game, core) <= allowed, (said, game.move_text(pos, move))
            enemy_names = {game.piece_names[p.kind] for _, p in after_v.enemies}
            for kind, piece_name in game.piece_names.items():
                hand_dropped = (dict(before_v.hands[mover]).get(kind, 0)
                                > dict(after_v.hands[mover]).get(kind, 0))
                if f" {piece_name} seen" in core:
                    assert piece_name in enemy_names, said
                if f"dropped a {piece_name}" in core:
                    assert hand_dropped, said
            pos = after
            checked += 1
    assert checked > 300


def test_the_game_end_is_said_with_the_winner():
    ch = get_game("chess")
    pos = _play(ch, ["f3", "e5", "g4", "Qh4#"])
    assert outcome_words(ch, ch.outcome(pos)) == "Checkmate. Black wins."
