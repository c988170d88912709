"""A game's review after it is played, as a picture: pure, from per-position evaluations.

The engine judges every position of a game once (:class:`PositionScore`: the best move
there and its score, from the view of the player to move — made by
:mod:`controller.reviewing` in the engine's worker).  From those alone this module makes

* the **curve** (:func:`review_of`): for two players one line, White's winning chances
  (``+1`` White wins, ``-1`` Black wins) after every ply — the picture chess players
  know; for three or four players (KaleidoChess) **one line per player**: each player's
  own chances at each of his turns, so a drop in a player's own line between two of his
  turns is what his move (and the others' replies) cost him;
* the **mistakes**: a ply after which its mover's score is at least ``margin``
  centipawns below the best move's *and* his winning chances fall by at least
  :data:`MIN_DROP` (a 12-pawn lead become 10 is not a mistake), each with the better
  move and the coach's words (``"Qd4 allows mate in 3 — Qxa4 was better"``);
* the **picture** (:func:`review_svg`): the curve over the whole game, each mistake a
  red dot, numbered, that a page can click (``data-ply``).

Winning chances are ``2 / (1 + exp(-cp / 272)) - 1`` (a pawn up is about +0.18, three
pawns +0.5; lichess's curve); a mate seen is ±1 outright.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from controller.coach import Advice, review_words
from controller.i18n import Text, render

#: a ply is a mistake when its mover's winning chances (-1..1) fall by at least this
MIN_DROP = 0.2
#: the centipawn score of a won (lost) position with no move left: beyond every search score
DECIDED = 100_000
#: the curve's scale: centipawns per unit of the logistic
SCALE_CP = 272.0
#: the players' line colours (seat order: White, Black / White, Red, Black, Green)
TWO_COLOURS = ("#e8e2d6", "#2c2724")
MANY_COLOURS = ("#b8b0a2", "#c63a2f", "#2c2724", "#2f8c57")


@dataclass(frozen=True)
class PositionScore:
    """The engine on one position: who is to move, the score for him (centipawns),
    plies to mate (positive: he mates; negative: he is mated; ``0``: the game is over),
    the best move (long notation, and as the move list shows it; empty when the game is
    over)."""

    mover: int
    score: int
    mate: int | None = None
    best: str = ""
    best_text: str = ""


@dataclass(frozen=True)
class Ply:
    """One ply of the game as the review reads it: who made it and its texts."""

    mover: int
    text: str
    long: str


@dataclass(frozen=True)
class Mistake:
    """A ply whose mover lost ``loss`` centipawns against the better move."""

    ply: int  #: 1-based
    mover: int
    played: str
    better: str  #: long notation (the board drawing shows it)
    better_text: str
    loss: int
    drop: float  #: winning chances lost (0..2)
    words: str


@dataclass(frozen=True)
class Review:
    """The curve (per line: ``(ply, chances)`` points, ply 0 = the start) and the
    mistakes.  ``lines[k]`` is White's chances for two players, player ``k``'s for more."""

    players: tuple[str, ...]
    lines: tuple[tuple[tuple[int, float], ...], ...]
    mistakes: tuple[Mistake, ...]
    plies: int


def chances(score: int, mate: int | None = None) -> float:
    """A score as winning chances -1..1 (a mate seen: ±1; ``mate == 0``, the game over:
    the score says who won)."""
    if mate:
        return 1.0 if mate > 0 else -1.0
    if abs(score) >= DECIDED:
        return math.copysign(1.0, score)
    return 2.0 / (1.0 + math.exp(-score / SCALE_CP)) - 1.0


def _for(player: int, at: PositionScore, two: bool) -> tuple[int, int | None]:
    """``at``'s score from ``player``'s view: itself for its own mover; negated for the
    other of two players (with more, only a player's own turns are scored)."""
    if at.mover == player or not two:
        return at.score, at.mate
    return -at.score, None if at.mate is None else -at.mate


def review_of(players: Sequence[str], plies: Sequence[Ply],
              scores: Sequence[PositionScore], margin: int = 150) -> Review:
    """The review of a game of ``plies`` from ``scores`` (one per position: before each
    ply and after the last, ``len(plies) + 1``)."""
    if len(scores) != len(plies) + 1:
        raise ValueError(f"review: {len(scores)} scores for {len(plies)} plies (expected "
                         f"one per position, {len(plies) + 1})")
    two = len(players) == 2
    if two:
        line = tuple((k, chances(*_for(0, s, True))) for k, s in enumerate(scores))
        lines: tuple[tuple[tuple[int, float], ...], ...] = (line,)
    else:
        lines = tuple(tuple((k, chances(s.score, s.mate)) for k, s in enumerate(scores)
                            if s.mover == p) for p in range(len(players)))
    mistakes = []
    for k, ply in enumerate(plies):
        before = scores[k]
        if before.mover != ply.mover or not before.best or before.best == ply.long:
            continue
        after = _after(ply.mover, scores, k + 1, two)
        if after is None:
            continue
        score, mate = after
        loss = before.score - score
        drop = chances(before.score, before.mate) - chances(score, mate)
        if loss >= margin and drop >= MIN_DROP:
            advice = Advice(best=before.best, score=before.score, played=ply.long,
                            played_score=score, best_text=before.best_text,
                            played_text=ply.text, mate=before.mate,
                            played_mate=None if mate == 0 else mate)
            mistakes.append(Mistake(k + 1, ply.mover, ply.text, before.best,
                                    before.best_text or before.best, min(loss, DECIDED),
                                    round(drop, 3), review_words(advice)))
    return Review(tuple(players), lines, tuple(mistakes), len(plies))


def _after(player: int, scores: Sequence[PositionScore], start: int,
           two: bool) -> tuple[int, int | None] | None:
    """The player's score after his move: the next position (two players), or the next
    position where he is to move again, or the last one (more players)."""
    if two:
        return _for(player, scores[start], True)
    for at in scores[start:]:
        if at.mover == player:
            return at.score, at.mate
    return None


# -- the picture ------------------------------------------------------------------------
WIDTH, HEIGHT = 600.0, 200.0
PAD_X, PAD_Y = 48.0, 16.0


def _x(ply: int, plies: int) -> float:
    return PAD_X + (WIDTH - PAD_X - 8) * (ply / max(1, plies))


def _y(value: float) -> float:
    return PAD_Y + (HEIGHT - 2 * PAD_Y) * (1 - value) / 2


def review_svg(review: Review, title: str = "", lang: str = "en") -> str:
    """The review as a standalone SVG: the curve over the whole game (up: White better,
    for two players; each player's own line for more), the middle line even, each
    mistake a numbered red dot with its words as a tooltip and ``data-ply``.  Its words
    are in language ``lang`` (the reader's)."""
    def said(text: object) -> str:
        return escape(render(text, lang))

    two = len(review.players) == 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH:g} {HEIGHT:g}" '
           f'class="review-graph" role="img" aria-label="{said(_label(review, title))}">',
           f'<rect x="0" y="0" width="{WIDTH:g}" height="{HEIGHT:g}" rx="6" fill="#3a3532"/>']
    if title:
        out.append(f'<title>{said(title)}</title>')
    mid = _y(0)
    out.append(f'<line x1="{PAD_X:g}" y1="{mid:.1f}" x2="{WIDTH - 8:g}" y2="{mid:.1f}" '
               'stroke="#8a817a" stroke-width="1" stroke-dasharray="4 3"/>')
    for value, label in ((1, "wins") if two else (1, "+"), (-1, "wins") if two else (-1, "−")):
        who = (review.players[0] if value > 0 else review.players[1]) if two else label
        out.append(f'<text x="4" y="{_y(value * 0.88) + 5:.1f}" font-size="15" '
                   f'fill="#d8d0c4" font-family="sans-serif">{said(who)}</text>')
    if two and review.lines and review.lines[0]:
        line = review.lines[0]
        pts = " ".join(f"{_x(k, review.plies):.1f},{_y(v):.1f}" for k, v in line)
        first, last = line[0][0], line[-1][0]
        area = (f"{_x(first, review.plies):.1f},{mid:.1f} {pts} "
                f"{_x(last, review.plies):.1f},{mid:.1f}")
        out.append(f'<polygon points="{area}" fill="{TWO_COLOURS[0]}" fill-opacity="0.35"/>')
        out.append(f'<polyline class="curve" data-player="0" points="{pts}" fill="none" '
                   f'stroke="{TWO_COLOURS[0]}" stroke-width="2"/>')
    else:
        for p, line in enumerate(review.lines):
            if not line:
                continue
            pts = " ".join(f"{_x(k, review.plies):.1f},{_y(v):.1f}" for k, v in line)
            colour = MANY_COLOURS[p % len(MANY_COLOURS)]
            out.append(f'<polyline class="curve" data-player="{p}" points="{pts}" '
                       f'fill="none" stroke="{colour}" stroke-width="2"><title>'
                       f'{said(review.players[p])}</title></polyline>')
    for n, m in enumerate(review.mistakes, start=1):
        x = _x(m.ply, review.plies)
        y = _y(_point(review, m.ply, m.mover))
        out.append(f'<g class="mistake" data-ply="{m.ply}" data-better="{escape(m.better)}" '
                   f'tabindex="0" style="cursor:pointer"><title>{m.ply}. '
                   f'{said(m.words)}</title>'
                   f'<circle cx="{x:.1f}" cy="{y:.1f}" r="9" fill="#d0432f" '
                   f'stroke="#fff4ee" stroke-width="1.2"/>'
                   f'<text x="{x:.1f}" y="{y + 4:.1f}" font-size="12" fill="#fff" '
                   f'text-anchor="middle" font-family="sans-serif">{n}</text></g>')
    out.append(f'<text x="{WIDTH - 8:g}" y="{HEIGHT - 3:g}" font-size="13" fill="#bdb4a8" '
               f'text-anchor="end" font-family="sans-serif">'
               f'{said(_counts(review))}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _point(review: Review, ply: int, mover: int) -> float:
    """Where a mistake's dot sits: on the line after the ply (its mover's line)."""
    line = review.lines[0] if len(review.players) == 2 else review.lines[mover]
    later = [v for k, v in line if k >= ply]
    return later[0] if later else (line[-1][1] if line else 0.0)


def _counts(review: Review) -> Text:
    plies = (Text("1 ply") if review.plies == 1
             else Text("{count} plies", count=review.plies))
    mistakes = (Text("1 mistake") if len(review.mistakes) == 1
                else Text("{count} mistakes", count=len(review.mistakes)))
    return Text.join(" · ", [plies, mistakes])


def _label(review: Review, title: object) -> Text:
    words = Text("evaluation over {plies} plies, {mistakes} mistakes",
                 plies=review.plies, mistakes=len(review.mistakes))
    return Text("{game}: {words}", game=title, words=words) if title else words


def placeholder_svg(text: str) -> str:
    """A picture saying why there is no graph yet (the review is being made)."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH:g} {HEIGHT:g}" '
            f'role="img" aria-label="{escape(text)}"><rect width="{WIDTH:g}" '
            f'height="{HEIGHT:g}" rx="6" fill="#3a3532"/><text x="{WIDTH / 2:g}" '
            f'y="{HEIGHT / 2:g}" font-size="13" fill="#d8d0c4" text-anchor="middle" '
            f'font-family="sans-serif">{escape(text)}</text></svg>\n')


__all__ = ["DECIDED", "MIN_DROP", "Mistake", "Ply", "PositionScore", "Review", "chances",
           "placeholder_svg", "review_of", "review_svg"]
