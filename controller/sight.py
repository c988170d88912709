"""What one viewer may see: the one place that decides it, for the board, its LEDs and the
web page alike.

In a game with hidden information (:attr:`Game.hidden_information`, Lao Tzu's fog of war)
a player may know only his :class:`~controller.rules.core.PlayerView`, built by the game's
``player_view`` hook.  Every output a player sees is cut down here:

* :class:`Sight` holds one viewer's view of one position: the cells he sees, the spots
  whose lights and pieces may show (:func:`viewer_spots`), the fogged cells, the notation
  of a move as he may be told it, and whether a message names a cell he cannot see;
* :func:`viewer_spots` is the rule shared by the board's interaction, the LED scene and
  the page: the visible cells (his own pieces are among them) and every pad (hands are
  public, option pads are his own controls).

A game that hides nothing gets a Sight that allows everything (``view is None``).
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.rules.core import Game, Move, PlayerView, Position


def viewer_spots(visible: Iterable[int], cell_count: int, spot_count: int) -> frozenset[int]:
    """Spots that may show anything to a viewer who sees the cells ``visible``: those cells
    and every pad (``cell_count`` .. ``spot_count - 1``)."""
    return frozenset(visible) | frozenset(range(cell_count, spot_count))


class Sight:
    """One viewer's sight of one position (``viewer`` None: the player who makes the next
    ply).  ``view`` is None when the game hides nothing; then everything may be seen."""

    def __init__(self, game: Game, pos: Position, viewer: int | None = None):
        self.game = game
        if viewer is None or not 0 <= viewer < game.players:
            viewer = game.ply_mover(pos)
        self.viewer: int = viewer
        self.view: PlayerView | None = (game.player_view(pos, viewer)
                                        if game.hidden_information else None)
        cells = game.geometry.cells
        #: cells the viewer sees (None: all)
        self.visible: frozenset[int] | None = (None if self.view is None
                                               else frozenset(self.view.visible))
        #: cells hidden from the viewer
        self.fog: tuple[int, ...] = (() if self.visible is None else
                                     tuple(c for c in range(len(cells))
                                           if c not in self.visible))
        self._fog_names = frozenset(cells[c] for c in self.fog)

    @property
    def hides(self) -> bool:
        """Whether anything is hidden from this viewer."""
        return self.view is not None

    def spots(self, spot_count: int) -> frozenset[int] | None:
        """Spots of a layout with ``spot_count`` spots (cells first) that may show anything
        to the viewer (:func:`viewer_spots`); None when nothing is hidden."""
        if self.visible is None:
            return None
        return viewer_spots(self.visible, len(self.game.geometry.cells), spot_count)

    def names_hidden_cell(self, text: str) -> bool:
        """Whether ``text`` names a cell the viewer cannot see (such a message is not his)."""
        if not self._fog_names:
            return False
        words = set(text.replace(",", " ").replace(":", " ").split())
        return bool(words & self._fog_names)

    def move_text(self, pos: Position, move: Move) -> str:
        """A move of ``pos`` as the viewer may be told it before it is made: from his view
        with hidden information (no check mark, nothing a hidden piece decides), otherwise
        in the game's notation."""
        if self.view is None:
            return self.game.move_text(pos, move)
        return self.view.move_text(move)

    def hints(self, spot: int, pad_role: str | None = None, pad_owner: int | None = None,
              pad_piece: str | None = None) -> frozenset[int]:
        """Where the viewer's piece lifted from ``spot`` (a cell, or his hand pad described
        by ``pad_role``/``pad_owner``/``pad_piece``) may go, as far as he can know."""
        v = self.view
        if v is None:
            return frozenset()
        if pad_role is None:
            return v.targets(spot) if any(c == spot for c, _ in v.own) else frozenset()
        if pad_role == "hand" and pad_owner == v.player and pad_piece:
            return v.drop_targets(pad_piece)
        return frozenset()
