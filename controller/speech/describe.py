"""The board as text on demand, for a player who cannot see it: "where are my Towers?",
"what can the Mule on c3 do?", the whole board read out.

Pure: every answer is built from one viewer's :class:`~controller.sight.Sight` — in a game
with hidden information only his own pieces, the enemy pieces he sees, the public hands
and where his own pieces may go as far as he can know; a hidden cell is never named with
what stands on it, and an enemy piece's moves are never worked out from the true position
(that would tell which hidden cells block it).  Templates go through the voice's
catalogues (:func:`controller.i18n.lang.translate`), like the spoken moves.
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.i18n.lang import translate
from controller.rules.core import Game, Move, Piece, Position, RulesError
from controller.sight import Sight
from controller.speech.words import piece_words, sentence

_ = translate


class DescribeError(ValueError):
    """A question the board cannot answer as asked (an unknown piece or cell): one line."""


def _join(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return _("{first} and {last}").format(first=", ".join(parts[:-1]), last=parts[-1])


def known_pieces(game: Game, pos: Position, sight: Sight) -> list[tuple[int, Piece]]:
    """The pieces the viewer may know of, by cell: all of them in a game that hides
    nothing; his own and the enemy pieces he sees otherwise."""
    if sight.view is None:
        return [(c, p) for c, p in enumerate(pos.board) if p is not None]
    return sorted([*sight.view.own, *sight.view.enemies])


def cell_of(game: Game, text: str) -> int:
    """The cell named ``text`` (any letter case), or :class:`DescribeError`."""
    wanted = text.strip().casefold()
    for i, name in enumerate(game.geometry.cells):
        if name.casefold() == wanted:
            return i
    raise DescribeError(_("There is no cell {cell} on this board").format(cell=text.strip()[:12]))


def kind_of(game: Game, text: str) -> str:
    """The piece kind a player means by ``text``: its letter, or its name in English or
    in the current language, singular or plural ("T", "Tower", "Towers", "Turm")."""
    wanted = text.strip().casefold()
    names = dict(game.piece_names)
    for kind in names:
        if kind.casefold() == wanted:
            return kind
    for kind, name in names.items():
        for said in {name, _(name)}:
            said = said.casefold()
            if wanted in (said, said + "s", said + "es") or (
                    "(" in said and wanted == said.split("(")[0].strip()):
                return kind
    raise DescribeError(_("No piece is called {name} in this game (pieces: {names})").format(
        name=text.strip()[:20], names=", ".join(_(n) for n in names.values())))


def _at(game: Game, piece: Piece, cell: int) -> str:
    return _("{piece} on {cell}").format(piece=piece_words(game, piece),
                                         cell=game.geometry.cells[cell])


def where_text(game: Game, pos: Position, sight: Sight, kind: str,
               owner: int | None = None) -> str:
    """Where ``owner``'s pieces of ``kind`` stand as far as the viewer may know, and how
    many wait in a hand.  ``owner`` None: the viewer's own in a game with hidden
    information, every player's otherwise (one board shared by all)."""
    if owner is None and not sight.hides:
        return " ".join(where_text(game, pos, sight, kind, player)
                        for player in range(game.players))
    owner = sight.viewer if owner is None else owner
    player = _(game.player_names[owner])
    name = _(game.piece_names.get(kind, kind))
    found = [_at(game, p, c) for c, p in known_pieces(game, pos, sight)
             if p.owner == owner and p.kind == kind]
    in_hand = dict(pos.hands[owner]).get(kind, 0) if owner < len(pos.hands) else 0
    if found:
        text = _("{player}: {pieces}").format(player=player, pieces=_join(found))
    elif sight.hides and owner != sight.viewer:
        text = _("{player} has no {name} in sight").format(player=player, name=name)
    else:
        text = _("{player} has no {name} on the board").format(player=player, name=name)
    if in_hand:
        text += _("; {count} in hand").format(count=in_hand)
    return sentence(text) + "."


def _reach(game: Game, pos: Position, moves: Iterable[Move], cell: int) -> tuple[list[int],
                                                                                 list[int]]:
    """The cells the piece on ``cell`` may go to quietly and those where it takes."""
    go: set[int] = set()
    take: set[int] = set()
    for m in moves:
        if m.origin != cell or m.target < 0:
            continue
        (take if m.captures else go).add(m.target)
    return sorted(go - take), sorted(take)


def piece_text(game: Game, pos: Position, sight: Sight, cell: int) -> str:
    """What stands on ``cell`` and what it can do, as far as the viewer may know: for his
    own piece on his turn its moves (from his view with hidden information); for another
    player's piece in a game that hides nothing what it could do on its owner's turn."""
    cells = game.geometry.cells
    where = cells[cell]
    if sight.visible is not None and cell not in sight.visible:
        return sentence(_("You cannot see {cell}").format(cell=where))
    piece = sight.view.piece_at(cell) if sight.view is not None else pos.board[cell]
    if piece is None:
        return sentence(_("{cell} is empty").format(cell=where))
    head = _("{player} {piece} on {cell}").format(
        player=_(game.player_names[piece.owner]), piece=piece_words(game, piece), cell=where)
    mover = game.ply_mover(pos)
    if sight.view is not None:
        if piece.owner != sight.viewer:
            return sentence(head)
        moves = sight.view.moves() if mover == sight.viewer else []
        if mover != sight.viewer:
            return sentence(_("{head}: it moves on {player}'s turn").format(
                head=head, player=_(game.player_names[piece.owner])))
        go, take = _reach(game, pos, moves, cell)
    elif piece.owner == mover:
        go, take = _reach(game, pos, game.legal_moves(pos), cell)
    else:
        turned = _turned(game, pos, piece.owner)
        if turned is None:
            return sentence(_("{head}: it moves on {player}'s turn").format(
                head=head, player=_(game.player_names[piece.owner])))
        go, take = _reach(game, turned, game.legal_moves(turned), cell)
        head = _("{head}: on {player}'s turn").format(
            head=head, player=_(game.player_names[piece.owner]))
    parts = []
    if go:
        parts.append(_("can go to {cells}").format(cells=_join([cells[c] for c in go])))
    if take:
        parts.append(_("can take on {cells}").format(cells=_join([cells[c] for c in take])))
    if not parts:
        return sentence(_("{head}: cannot move now").format(head=head))
    return sentence(_("{head}: {moves}").format(head=head, moves="; ".join(parts)))


def _turned(game: Game, pos: Position, player: int) -> Position | None:
    """``pos`` with ``player`` to move (to say what his piece threatens), or None when
    the game's turn is more than whose turn it is (a pending second move, a die)."""
    other = pos.copy()
    other.turn = player
    try:
        if game.ply_mover(other) != player or game.outcome(pos) is not None:
            return None
        return other
    except RulesError:
        return None


def board_text(game: Game, pos: Position, sight: Sight) -> str:
    """The whole board as far as the viewer may know it: whose turn, every player's
    pieces by cell, the hands, the cells out of sight, check."""
    mover = game.ply_mover(pos)
    lines = [sentence(_("{player} to move").format(player=_(game.player_names[mover])))]
    pieces = known_pieces(game, pos, sight)
    for player in range(game.players):
        mine = [_at(game, p, c) for c, p in pieces if p.owner == player]
        name = _(game.player_names[player])
        if mine:
            lines.append(sentence(_("{player}: {pieces}").format(player=name,
                                                               pieces=_join(mine))))
        elif sight.hides and player != sight.viewer:
            lines.append(sentence(_("{player}: nothing in sight").format(player=name)))
        hand = [(k, n) for k, n in sorted(dict(pos.hands[player]).items()) if n]
        if hand:
            lines.append(sentence(_("{player}'s hand: {pieces}").format(
                player=name, pieces=_join([f"{n} × {piece_words(game, Piece(player, k))}"
                                           for k, n in hand]))))
    if sight.fog:
        lines.append(sentence(_("{count} cells out of sight").format(count=len(sight.fog))))
    check = (sight.view.in_check if sight.view is not None
             else game.in_check(pos))
    if check and game.outcome(pos) is None:
        lines.append(sentence(_("check")))
    return ". ".join(line.rstrip(".") for line in lines) + "."
