"""The simulated board's physical objects: which object stands for which piece, and
what stands on each spot in a game position.

An object is named by its owner's colour and its kind (``"white-K"``, ``"black-T"``) — one
stone of a Tower is one object — and a game's off-board token by its name
(``Game.tokens``), which lies on its holder's token pad.  The simulated hand
(:mod:`controller.sensing.sim.hand`) and the page's drawing both use these names.
"""

from __future__ import annotations

from controller.layout import Layout
from controller.rules import Game, Piece, Position


def object_name(game: Game, piece: Piece) -> str:
    """Physical object for one piece (one stone of a Tower): owner colour + kind letter."""
    return f"{game.player_names[piece.owner].lower()}-{piece.kind}"


def position_objects(game: Game, pos: Position, layout: Layout) -> dict[int, list[str]]:
    """Spot -> objects (bottom first) of a game position, on the layout's cells and pads:
    a Tower of height n is n stones, hands and reserves lie on their pads, each token on
    its holder's token pad."""
    out: dict[int, list[str]] = {}
    for cell, piece in enumerate(pos.board):
        if piece is not None:
            out[cell] = [object_name(game, piece)] * max(1, piece.height)
    for role, stores in (("hand", pos.hands), ("reserve", pos.reserves)):
        for player, store in enumerate(stores):
            for kind, count in store.items():
                if count <= 0:
                    continue
                pad = pad_index(layout, role, player, kind)
                if pad is None:
                    raise ValueError(f"layout {layout.name} has no {role} pad of "
                                     f"{game.player_names[player]} for {kind}")
                out.setdefault(pad, []).extend(
                    [object_name(game, Piece(player, kind))] * count)
    for token in game.tokens:
        holder = pos.tokens.get(token.name)
        if holder is not None:
            pad = pad_index(layout, "token", holder, token.name)
            if pad is None:
                raise ValueError(f"layout {layout.name} has no {token.title} pad of "
                                 f"{game.player_names[holder]}")
            out.setdefault(pad, []).append(token.name)
    return out


def pad_index(layout: Layout, role: str, owner: int, piece: str | None) -> int | None:
    for i in range(layout.cell_count, len(layout.spots)):
        s = layout.spots[i]
        if s.role == role and s.owner == owner and (piece is None or s.piece == piece):
            return i
    return None


def supply_names(game: Game, pos: Position) -> list[str]:
    """Objects a player may need from the box: every kind of every player in the game's
    starting position, its reserves and hands (promotions, drops, reserve Knights), and
    the kinds that appear only by promotion (the game's ``promotion_kinds``: Gnu Qi's
    Wazir)."""
    start = game.start()
    extra = set(game.promotion_kinds)
    kinds: dict[int, set[str]] = {p: set(extra) for p in range(game.players)}
    for position in (start, pos):
        for piece in position.board:
            if piece is not None:
                kinds[piece.owner].add(piece.kind)
        for stores in (position.hands, position.reserves):
            for player, store in enumerate(stores):
                kinds[player].update(store)
    names = [object_name(game, Piece(p, k)) for p in sorted(kinds) for k in sorted(kinds[p])]
    names += [t.name for t in game.tokens if t.name in start.tokens or t.name in pos.tokens]
    return names


__all__ = ["object_name", "pad_index", "position_objects", "supply_names"]
