"""Moves and board events in words, as a person says them — built from the :class:`Move`
(every effect is spelt out there), the game's piece names and the cells' names, never by
reading the notation's letters aloud.

Pure: no I/O and no clock.  Two kinds of phrase:

* :func:`move_words` — a move told by someone who may know all of it (a game that hides
  nothing, or a player's own move in one that does);
* :func:`heard_move` — another player's move in a game with hidden information, built
  from the listener's views before and after it and *nothing else*: it cannot say what
  the listener may not know, because it is never given it.

Templates go through :func:`controller.i18n.lang.translate` so a catalogue can say them
in another language; cell names and numbers are spoken by the voice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from controller.i18n.lang import translate
from controller.rules.core import Game, Move, Outcome, Piece, PlayerView, Position

_ = translate


#: what the voice says for the board's events that are not moves (event -> words)
EVENT_WORDS: dict[str, str] = {
    "computer": "The computer",
    "opponent": "Your opponent",
    "choice": "Several moves fit: choose one on the option pads",
    "illegal": "Illegal move",
    "mismatch": "The board does not match the game",
    "execute": "Make this move on the board",
}


def event_words(event: str) -> str:
    """The words for a board event of :data:`EVENT_WORDS`, in the current language."""
    return _(EVENT_WORDS[event])


def piece_words(game: Game, piece: Piece) -> str:
    """A piece by its name, with its height when it is a stack ("Tower of 3")."""
    name = game.piece_names.get(piece.kind) or game.piece_name(piece)
    if piece.height > 1:
        return _(game.stack_words).format(name=_(name), count=piece.height)
    return _(name)


def _cells(game: Game, cells: Iterable[int]) -> str:
    names = [game.geometry.cells[c] for c in cells]
    if len(names) <= 1:
        return "".join(names)
    return _("{first} and {last}").format(first=", ".join(names[:-1]), last=names[-1])


def _captured(game: Game, pos: Position, mover: int, cells: Sequence[int],
              known: frozenset[int] | None) -> str:
    """What a move takes, by name where the speaker may know it (``known`` None: all)."""
    parts = []
    for c in cells:
        victim = pos.board[c]
        where = game.geometry.cells[c]
        if victim is None or (known is not None and c not in known):
            parts.append(_("on {cell}").format(cell=where))
        elif victim.owner == mover:
            parts.append(_("own {piece} on {cell}").format(
                piece=piece_words(game, victim), cell=where))
        else:
            parts.append(_("{piece} on {cell}").format(
                piece=piece_words(game, victim), cell=where))
    if len(parts) == 1:
        return parts[0]
    return _("{first} and {last}").format(first=", ".join(parts[:-1]), last=parts[-1])


def move_words(game: Game, pos: Position, move: Move,
               known: frozenset[int] | None = None) -> str:
    """``move`` of ``pos`` (before it is made) in words: "Mule b1 to c3", "Tower of 3 on
    d1: Tower of 2 to d4", "White drops a Knight on e5".  ``known`` limits the cells whose
    pieces may be named (a hidden-information game's mover sees only his view)."""
    cells = game.geometry.cells
    mover = game.ply_mover(pos)
    player = _(game.player_names[mover])
    origin = cells[move.origin] if move.origin >= 0 else ""
    target = cells[move.target] if move.target >= 0 else ""
    piece = move.piece
    kind = move.kind
    if kind == "roll":
        return _("{player} rolls a {number}").format(
            player=player, number=move.token.partition(":")[2])
    if kind == "pass":
        text = _("{player} passes").format(player=player)
        if move.captures:
            text += _(", and the pieces on {cells} leave the board").format(
                cells=_cells(game, move.captures))
        return text
    if kind == "drop":
        text = _("{player} drops a {piece} on {cell}").format(
            player=player, piece=piece_words(game, piece), cell=target)
    elif kind == "place":
        text = _("{player} places the reserve {piece} on {cell}").format(
            player=player, piece=piece_words(game, piece), cell=target)
    elif kind == "castle":
        rooks = "; ".join(_("{piece} {origin} to {target}").format(
            piece=piece_words(game, pos.board[a]) if pos.board[a] else "",
            origin=cells[a], target=cells[b]) for a, b in move.also)
        text = _("{player} castles: {piece} {origin} to {target}, {rooks}").format(
            player=player, piece=piece_words(game, piece), origin=origin, target=target,
            rooks=rooks)
    elif move.origin == move.target:  # a piece changes in place (promotion, exchange)
        before = pos.board[move.origin]
        text = _("{piece} on {cell} becomes a {new}").format(
            piece=piece_words(game, before) if before else "", cell=origin,
            new=piece_words(game, piece))
    else:
        before = pos.board[move.origin]
        there = pos.board[move.target] if move.target >= 0 else None
        moving = piece
        if move.promotion and before is not None:
            moving = before._replace(height=piece.height)
        if kind == "merge" and there is not None and there.owner == piece.owner:
            moving = piece._replace(height=piece.height - there.height)
        elif before is not None and move.left is None and not move.promotion:
            moving = before
        if move.left is not None and before is not None:  # part of a stack leaves it
            head = _("{whole} on {origin}: {count}").format(
                whole=piece_words(game, before), origin=origin, count=moving.height)
        else:
            head = _("{piece} {origin}").format(piece=piece_words(game, moving), origin=origin)
        if kind == "merge" and there is not None:
            text = _("{head} onto the {other} on {target}, making a {result}").format(
                head=head, other=piece_words(game, there), target=target,
                result=piece_words(game, piece))
        elif move.captures == (move.target,):
            text = _("{head} takes {victim}").format(
                head=head, victim=_captured(game, pos, mover, move.captures, known))
        elif move.captures:
            text = _("{head} to {target}, taking {victims}").format(
                head=head, target=target,
                victims=_captured(game, pos, mover, move.captures, known))
        else:
            text = _("{head} to {target}").format(head=head, target=target)
        if move.promotion:
            text += _(", becomes a {new}").format(new=piece_words(game, piece))
    if move.token:
        text += _(", and hands over the {token}").format(token=_(move.token.title()))
    return text


def guide_words(game: Game, cell: str, piece: Piece | None, put: bool,
                pad: bool = False) -> str:
    """One step of the board's guidance to a position it was handed (a board that holds
    a player's view: the referee's pieces coming into and going out of his sight): "Put
    Black's Knight on e5", "Take Black's Pawn off d4", "Take the piece off d4" (``piece``
    None: what stands there is not known).  ``pad``: ``cell`` is the piece's hand pad."""
    if piece is None:
        return (_("Put a piece on {cell}") if put else _("Take the piece off {cell}")).format(
            cell=cell)
    named = dict(player=_(game.player_names[piece.owner]) if piece.owner < game.players
                 else "", piece=piece_words(game, piece))
    if pad:
        return (_("Put {player}'s {piece} on its hand pad") if put else
                _("Take {player}'s {piece} off its hand pad")).format(**named)
    return (_("Put {player}'s {piece} on {cell}") if put else
            _("Take {player}'s {piece} off {cell}")).format(cell=cell, **named)


def heard_move(game: Game, before: PlayerView, after: PlayerView) -> str:
    """Another player's move in words for the listener whose views ``before`` and
    ``after`` it are — only what the two views show: that the player moved, drops from
    the public hands, the listener's own pieces taken, enemy pieces newly in sight, and
    check (announced to both).  Never handed the position, so it cannot leak it."""
    cells = game.geometry.cells
    mover = before.turn
    player = _(game.player_names[mover])
    parts = [_("{player} has moved").format(player=player)]
    hand_before = dict(before.hands[mover])
    hand_after = dict(after.hands[mover])
    seen_before = dict(before.enemies)
    seen_after = dict(after.enemies)
    for kind, count in sorted(hand_before.items()):
        if hand_after.get(kind, 0) < count:
            piece = Piece(mover, kind)
            dropped_on = [c for c, p in seen_after.items()
                          if p == piece and seen_before.get(c) != piece]
            if dropped_on:
                parts.append(_("{player} dropped a {piece} on {cell}").format(
                    player=player, piece=piece_words(game, piece), cell=cells[dropped_on[0]]))
            else:
                parts.append(_("{player} dropped a {piece} out of sight").format(
                    player=player, piece=piece_words(game, piece)))
    own_after = dict(after.own)
    for cell, piece in sorted(before.own):
        if own_after.get(cell) != piece:
            parts.append(_("your {piece} on {cell} was taken").format(
                piece=piece_words(game, piece), cell=cells[cell]))
    for cell, piece in sorted(seen_after.items()):
        if seen_before.get(cell) != piece:
            parts.append(_("{player} {piece} seen on {cell}").format(
                player=player if piece.owner == mover else _(game.player_names[piece.owner]),
                piece=piece_words(game, piece), cell=cells[cell]))
    if after.in_check and after.result is None:
        parts.append(_("check"))
    return "; ".join(parts)


def announce_move(game: Game, pos: Position, move: Move, after: Position,
                  listener: int | None = None, who: str = "") -> str:
    """The announcement of ``move`` (made from ``pos``, giving ``after``) for
    ``listener``: his own move, or another player's as far as he may know it; "check" and
    the game's end appended.  ``who`` names the mover when it is not the player's colour
    ("The computer")."""
    mover = game.ply_mover(pos)
    if game.hidden_information and listener is not None and listener != mover:
        text = heard_move(game, game.player_view(pos, listener),
                          game.player_view(after, listener))
    else:
        known = None
        if game.hidden_information:
            known = frozenset(game.player_view(pos, mover).visible)
        text = move_words(game, pos, move, known)
        if who:
            text = _("{who} plays {move}").format(who=who, move=text)
        if game.in_check(after) and not game.hidden_information:
            text += _(", check")
    ending = game.outcome(after)
    if ending is not None:
        text = _("{move}. {ending}").format(move=text, ending=outcome_words(game, ending))
    return sentence(text)


def sentence(text: str) -> str:
    """``text`` as a sentence: a capital first letter (a phrase may begin with a piece)."""
    return text[:1].upper() + text[1:] if text else text


#: why a game ended, as said aloud (by the reason's text; a game's own spelling of a
#: reason, or a reason not listed here, is said as it is written)
REASON_WORDS: dict[str, str] = {
    "checkmate": "Checkmate",
    "stalemate": "Stalemate",
    "fifty-move": "The move rule",
    "fifty-move rule": "The move rule",
    "repetition": "Repetition",
    "threefold repetition": "Repetition",
    "insufficient-material": "Insufficient material",
    "bare kings": "Bare Kings",
    "capitulation": "The last castle given up",
    "no castle left": "The last castle taken",
    "last player left": "One player left",
    "blocked": "No move left",
    "move cap": "The move limit",
    "resignation": "Resignation",
    "time forfeit": "Time is up",
    "timeout vs insufficient material": "Time is up, but nobody could win",
    "agreement": "Agreement",
    "abandoned": "The game was abandoned",
}


def outcome_words(game: Game, outcome: Outcome) -> str:
    """How the game ended: "Checkmate. White wins." / "Repetition. The game is drawn."."""
    reason = str(outcome.reason)
    reason = sentence(_(REASON_WORDS.get(reason, reason)))
    if not outcome.winners:
        return _("{reason}. The game is drawn.").format(reason=reason)
    names = [_(game.player_names[w]) for w in outcome.winners]
    if len(names) == 1:
        return _("{reason}. {player} wins.").format(reason=reason, player=names[0])
    return _("{reason}. {players} win.").format(
        reason=reason, players=_("{first} and {last}").format(
            first=", ".join(names[:-1]), last=names[-1]))


def time_words(game: Game, player: int, seconds: float) -> str:
    """A low-time warning: "White: 30 seconds left"."""
    name = _(game.player_names[player])
    if seconds >= 60:
        return _("{player}: {minutes} minutes left").format(
            player=name, minutes=int(seconds // 60))
    return _("{player}: {seconds} seconds left").format(player=name, seconds=int(seconds))
