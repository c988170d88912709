"""The review after the game (issue 33, Deliver 4): per-position scores become the curve,
the mistakes with the better move and the picture — pure, from hand-made scores — and
the engine's scores of a real game (fool's mate) mark the losing move."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from controller.journal import Journal, read_game
from controller.review import (
    DECIDED,
    Ply,
    PositionScore,
    chances,
    placeholder_svg,
    review_of,
    review_svg,
)
from controller.reviewing import record_plies, score_position
from controller.rules import GAMES, get_game

TWO = ("White", "Black")


def _plies(*movers: int) -> list[Ply]:
    return [Ply(m, f"m{k}", f"l{k}") for k, m in enumerate(movers)]


def test_chances_are_even_at_zero_one_sided_with_a_pawn_and_whole_with_mate() -> None:
    assert chances(0) == 0
    assert 0.15 < chances(100) < 0.2 and 0.45 < chances(300) < 0.55
    assert chances(-100) == pytest.approx(-chances(100))
    assert chances(5, mate=3) == 1 and chances(5, mate=-2) == -1
    assert chances(DECIDED, mate=0) == 1 and chances(-DECIDED, mate=0) == -1
    assert chances(0, mate=0) == 0  # a drawn end


def test_two_players_have_one_line_of_whites_chances() -> None:
    # White +50, then Black to move sees -50 for himself (= White +50), then White +300
    scores = [PositionScore(0, 50, best="l0"), PositionScore(1, -50, best="l1"),
              PositionScore(0, 300, best="x")]
    review = review_of(TWO, _plies(0, 1), scores)
    assert len(review.lines) == 1
    (line,) = review.lines
    assert [k for k, _ in line] == [0, 1, 2]
    assert line[0][1] == pytest.approx(chances(50)) and line[1][1] == pytest.approx(chances(50))
    assert line[2][1] == pytest.approx(chances(300))
    assert review.mistakes == ()  # every move was the engine's own


def test_a_move_that_throws_the_game_away_is_a_mistake_with_the_better_move() -> None:
    # Black is even (0); his move lets White mate in 1 (White to move: mate 1)
    scores = [PositionScore(0, 0, best="l0"), PositionScore(1, 0, best="e7e5", best_text="e5"),
              PositionScore(0, 999_999, mate=1, best="d8h4", best_text="Qh4#")]
    review = review_of(TWO, _plies(0, 1), scores)
    (m,) = review.mistakes
    assert (m.ply, m.mover, m.played, m.better, m.better_text) == (2, 1, "m1", "e7e5", "e5")
    assert m.loss == DECIDED and m.drop == pytest.approx(1.0)
    assert m.words == "m1 allows mate in 1 — e5 was better"


def test_a_small_loss_or_one_in_a_decided_game_is_no_mistake() -> None:
    small = [PositionScore(0, 0, best="a"), PositionScore(1, 0, best="b"),
             PositionScore(0, 100, best="c")]  # Black loses one pawn: below the margin
    assert review_of(TWO, _plies(0, 1), small, margin=150).mistakes == ()
    # below the margin's 80 too: a pawn from even costs under MIN_DROP of the chances
    assert review_of(TWO, _plies(0, 1), small, margin=80).mistakes == ()
    worse = [*small[:2], PositionScore(0, 250, best="c")]
    assert [m.loss for m in review_of(TWO, _plies(0, 1), worse).mistakes] == [250]
    decided = [PositionScore(0, 1200, best="a"), PositionScore(1, -1200, best="b"),
               PositionScore(0, 1500, best="c")]  # 12 pawns down become 15: still lost
    assert review_of(TWO, _plies(0, 1), decided).mistakes == ()


def test_the_same_player_moving_twice_keeps_his_own_sign() -> None:
    # a Cube turn: White moves twice; the second position is White's again
    scores = [PositionScore(0, 0, best="a"), PositionScore(0, -400, best="b"),
              PositionScore(1, 400, best="c")]
    review = review_of(TWO, _plies(0, 0), scores)
    assert [(m.ply, m.loss) for m in review.mistakes] == [(1, 400)]
    assert review.lines[0][1][1] == pytest.approx(chances(-400))  # White's own score, kept


def test_three_players_each_have_their_own_line_from_their_turns() -> None:
    players = ("White", "Red", "Black")
    scores = [PositionScore(0, 10, best="a"), PositionScore(1, 20, best="b"),
              PositionScore(2, 30, best="c"), PositionScore(0, -600, best="d"),
              PositionScore(1, 25, best="e")]
    review = review_of(players, _plies(0, 1, 2, 0), scores)
    assert [[k for k, _ in line] for line in review.lines] == [[0, 3], [1, 4], [2]]
    # White's own line fell from +10 to -600 between his turns: his first move
    assert [(m.ply, m.mover) for m in review.mistakes] == [(1, 0)]


def test_scores_and_plies_must_match() -> None:
    with pytest.raises(ValueError, match="3 scores for 1 plies"):
        review_of(TWO, _plies(0), [PositionScore(0, 0)] * 3)


def test_the_picture_is_svg_with_the_curve_and_each_mistake_clickable() -> None:
    scores = [PositionScore(0, 0, best="l0"), PositionScore(1, 0, best="e7e5", best_text="e5"),
              PositionScore(0, 999_999, mate=1, best="d8h4")]
    svg = review_svg(review_of(TWO, _plies(0, 1), scores), "Chess · g1")
    root = ET.fromstring(svg)  # well-formed
    ns = {"s": "http://www.w3.org/2000/svg"}
    assert len(root.findall(".//s:polyline[@class='curve']", ns)) == 1
    (mark,) = root.findall(".//s:g[@class='mistake']", ns)
    assert mark.get("data-ply") == "2" and mark.get("data-better") == "e7e5"
    assert "allows mate in 1" in mark.find("s:title", ns).text
    assert "2 plies · 1 mistake" in svg
    # the curve ends at the top (White mates) and starts in the middle
    points = root.find(".//s:polyline", ns).get("points").split()
    ys = [float(p.split(",")[1]) for p in points]
    assert ys[0] == pytest.approx(100.0) and ys[-1] < ys[0] - 50


def test_the_picture_escapes_names_and_the_placeholder_says_why() -> None:
    players = ("<White>", "Red & co", "Black", "Green")
    scores = [PositionScore(p % 4, 0) for p in range(5)]
    svg = review_svg(review_of(players, _plies(0, 1, 2, 3), scores), "a <b>")
    ET.fromstring(svg)
    assert "<White>" not in svg and "&lt;White&gt;" in svg
    assert len(re.findall(r'class="curve"', svg)) == 4
    text = placeholder_svg("The engine is judging: 3 of 9 positions")
    assert "3 of 9" in ET.fromstring(text).find("{http://www.w3.org/2000/svg}text").text


def test_the_engine_marks_the_move_that_allows_fools_mate(tmp_path) -> None:
    game = get_game("chess")
    pos = game.start()
    writer = Journal(tmp_path).new_game("chess", {}, game.position_text(pos), list(TWO))
    for text in ("f3", "e5", "g4", "Qh4#"):
        move = game.parse_move(pos, text)
        writer.move(game.move_text(pos, move), game.long_move_text(pos, move))
        pos.push(move)
    writer.end("0-1", "checkmate")
    writer.close()
    record = read_game(writer.path)
    _, plies = record_plies(record)
    assert [p.text for p in plies] == ["f3", "e5", "g4", "Qh4#"]
    scores = [score_position("chess", {}, record.setup, record.moves[:k], nodes=1500)
              for k in range(len(plies) + 1)]
    assert scores[-1] == PositionScore(0, -DECIDED, 0)  # White is mated: the game is over
    assert scores[3].mate == 1 and scores[3].best_text == "Qh4#"
    review = review_of(TWO, plies, scores)
    assert 3 in [m.ply for m in review.mistakes]  # g4 allows mate in one
    g4 = next(m for m in review.mistakes if m.ply == 3)
    assert g4.words.startswith("g4 allows mate in 1 — ") and g4.better != "g2g4"
    assert review.lines[0][-1][1] == -1.0  # Black won


GAME_CASES = [(name, {}) for name in sorted(GAMES) if name != "laotzu"] + [
    ("laotzu", {"white_array": 518, "black_array": 100}),
    ("kaleidochess", {"players": 3}), ("kaleidochess", {"players": 4})]


@pytest.mark.parametrize(("name", "options"), GAME_CASES,
                         ids=[f"{n}-{o.get('players', '')}" for n, o in GAME_CASES])
def test_every_game_is_reviewed_from_its_full_record(tmp_path, name, options) -> None:
    """Every game of the registry (the test-only seventh too; Lao Tzu from the whole
    position, as once it has ended): the engine scores each position, the curve has a
    line per player for more than two and every point inside -1..1."""
    import random

    game = get_game(name, **options)
    pos = game.start()
    writer = Journal(tmp_path).new_game(name, game.options, game.position_text(pos),
                                        list(game.player_names))
    rng = random.Random(7)
    for _ in range(6):
        moves = game.legal_moves(pos)
        if not moves or game.outcome(pos) is not None:
            break
        move = rng.choice(moves)
        writer.move(game.move_text(pos, move), game.long_move_text(pos, move))
        pos.push(move)
    writer.close()
    record = read_game(writer.path)
    _, plies = record_plies(record)
    scores = [score_position(name, game.options, record.setup, record.moves[:k], nodes=300)
              for k in range(len(plies) + 1)]
    assert [s.mover for s in scores[:-1]] == [p.mover for p in plies]
    assert all(s.best for s in scores[:-1])  # a move to show in every open position
    review = review_of(game.player_names, plies, scores)
    assert len(review.lines) == (1 if game.players == 2 else game.players)
    assert all(-1 <= v <= 1 for line in review.lines for _, v in line)
    # each position is a point of exactly one line (its mover's, or White's for two)
    assert sum(len(line) for line in review.lines) == len(scores)
    ET.fromstring(review_svg(review, game.title))
