"""What a position is worth to one player: data first.

Piece values and the few terms a game needs live in ``values.toml`` beside this file, one
table per game (keyed by the game's registry name, so adding a game adds data, not code; a
game made from another by subclassing, without a table of its own, takes its base's).
The evaluation is from the point of view of one player (the engine's *root* player) and
counts every opponent against him — with three or four players that is the "paranoid"
reading the search uses.

Terms (all in centipawns):

* material: ``values[kind]``, a stack or Tower ``per_height[kind] * height`` when given;
  pieces in hand (drops) and in reserve count as ``hand_factor`` × their value;
* ``castle``: per own piece standing on a cell tagged ``castle`` (KaleidoChess: holding
  castles is the goal);
* ``advance``: per rank a piece of a kind in ``advance_kinds`` has made toward the far side
  (boards with ranks: Pawns, Eaglets); ``advance_end`` the same in the endgame;
* ``centre``: per kind, the bonus at the board's centre, falling linearly to nothing at the
  cell farthest from it (distance between the cells' drawn centres, so it means the same
  on every board shape); negative keeps a piece away from the centre (the King in the
  middlegame); ``centre_end`` the same in the endgame;
* ``home``: per kind, a bonus for standing on its owner's home rank in the middlegame
  (the King behind his Pawns), or with a minus a penalty (undeveloped Knights, Bishops);
* ``shelter``: in the middlegame, per piece of an ``advance_kinds`` kind next to an own
  piece of a ``shelter_kinds`` kind (Pawns around the King);
* ``pair``: per kind, a bonus for holding two or more (the Bishop pair);
* ``check``: a penalty for being in check (a cheap stand-in for King safety);
* ``token``: per off-board token held (Lùotuoqí's Cube: a double move in hand).
* ``castle_threat`` and ``castle_loss`` (3–4 players; the search's evaluation,
  :meth:`Evaluator.exposure`, not :meth:`Evaluator.score`, which the greedy yardstick
  plays by): a player is out when his last castle piece goes, and every opponent moves
  before he does again.  When each of his castle pieces can be taken (the rules'
  ``cell_attacked``): when the opponents who move before he does again can take one
  each, ``castle_loss`` (as good as out); else ``castle_threat`` per opponent who can take one,
  beyond the castles he holds less one.  Best-reply search lets only one opponent move
  between two of his moves and stands pat at its horizon: it sees neither two opponents
  taking his last two castles in one round nor an attacker left standing.

Not a term but a fact the search uses: ``mate_only`` says the game ends, as far as a
capture sequence can tell, only by mate — so quiescence may stand pat before listing the
moves when the side to move is not in check (chess; not where taking a castle or a piece
ends the game).

Middlegame and endgame are blended by the material left on the board: the *phase* is the
value of the pieces other than ``advance_kinds`` and value-0 (royal) ones, relative to the
starting position's; a game that gives no ``*_end`` terms uses the same terms throughout.
Every term that depends on one piece and its cell only is folded into a per-piece table of
cell values, built once per piece, so the evaluation is one lookup per piece.
"""

from __future__ import annotations

import itertools
import math
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from controller.rules import Game, Piece, Position

VALUES_FILE = Path(__file__).with_name("values.toml")


@dataclass(frozen=True)
class Weights:
    """One game's evaluation data (see the module docstring)."""

    values: dict[str, int]
    per_height: dict[str, int] = field(default_factory=dict)
    hand_factor: float = 1.0
    castle: int = 0
    advance: int = 0
    advance_end: int | None = None
    advance_kinds: str = ""
    centre: dict[str, int] = field(default_factory=dict)
    centre_end: dict[str, int] | None = None
    home: dict[str, int] = field(default_factory=dict)
    shelter: int = 0
    shelter_kinds: str = ""
    pair: dict[str, int] = field(default_factory=dict)
    check: int = 0
    token: int = 0
    castle_threat: int = 0
    castle_loss: int = 0
    mate_only: bool = False


@cache
def _table() -> dict[str, Any]:
    return tomllib.loads(VALUES_FILE.read_text(encoding="utf-8"))


def table_for(game: Game) -> dict[str, Any] | None:
    """The game's table in ``values.toml``: its own name's, else the nearest base class's
    along its MRO (a game made from another, King of the Hill from chess, plays with the
    values of the game it is made from until it has a table of its own)."""
    tables = _table()
    for cls in type(game).__mro__:
        name = vars(cls).get("name")
        if name and name in tables:
            return tables[name]
    return None


def weights_for(game: Game) -> Weights:
    """The game's weights (:func:`table_for`); a game without a table, itself or by its
    base classes, gets equal values (1 pawn) per piece."""
    data = table_for(game)
    if data is None:
        return Weights(values={})
    end = data.get("centre_end")
    advance_end = data.get("advance_end")
    return Weights(values=dict(data.get("values", {})),
                   per_height=dict(data.get("per_height", {})),
                   hand_factor=float(data.get("hand_factor", 1.0)),
                   castle=int(data.get("castle", 0)), advance=int(data.get("advance", 0)),
                   advance_end=int(advance_end) if advance_end is not None else None,
                   advance_kinds=str(data.get("advance_kinds", "")),
                   centre=dict(data.get("centre", {})),
                   centre_end=dict(end) if end is not None else None,
                   home=dict(data.get("home", {})),
                   shelter=int(data.get("shelter", 0)),
                   shelter_kinds=str(data.get("shelter_kinds", "")),
                   pair=dict(data.get("pair", {})),
                   check=int(data.get("check", 0)), token=int(data.get("token", 0)),
                   castle_threat=int(data.get("castle_threat", 0)),
                   castle_loss=int(data.get("castle_loss", 0)),
                   mate_only=bool(data.get("mate_only", False)))


#: a piece's cell values: (middlegame per cell, endgame per cell, phase weight, whether a
#: term of more than one piece — shelter, pairs — looks at it)
CellValues = tuple[tuple[int, ...], tuple[int, ...], int, bool]


class Evaluator:
    """Static evaluation of positions of one game for a given player."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.w = weights_for(game)
        g = game.geometry
        self.cells = len(g.cells)
        self.castles = frozenset(g.tags.get("castle", ()))
        rank = g.attributes.get("rank")
        self.rank: tuple[int, ...] | None = tuple(rank) if rank is not None else None
        self.low = min(self.rank) if self.rank else 0
        self.high = max(self.rank) if self.rank else 0
        self.centrality = _centrality(g.centres)
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted({step[c] for step in g.steps.values() if step[c] >= 0}))
            for c in range(self.cells))
        self.tapered = self.w.centre_end is not None or self.w.advance_end is not None
        self._cells: dict[Piece, CellValues] = {}
        self.full_phase = 0
        if self.tapered:
            start = game.start()
            self.full_phase = sum(self._cell_values(p)[2] for p in start.board
                                  if p is not None)

    def piece_value(self, kind: str, height: int = 1) -> int:
        per = self.w.per_height.get(kind)
        if per is not None:
            return per * height
        return self.w.values.get(kind, 100) * (height if kind == "P" else 1)

    def material(self, pos: Position, player: int) -> int:
        """Material of ``player`` alone (board, hand and reserve)."""
        total = 0
        for piece in pos.board:
            if piece is not None and piece.owner == player:
                total += self.piece_value(piece.kind, piece.height)
        for store in (pos.hands[player], pos.reserves[player]):
            for kind, n in store.items():
                total += int(self.w.hand_factor * self.piece_value(kind) * n)
        return total

    def phase_material(self, pos: Position, player: int) -> int:
        """``player``'s pieces on the board that count for the phase (not Pawns, not the
        royal piece): near zero means a Pawn ending, where passing may be the best move."""
        total = 0
        for piece in pos.board:
            if piece is not None and piece.owner == player:
                total += self._cell_values(piece)[2]
        return total

    def _cell_values(self, piece: Piece) -> CellValues:
        """The piece's worth on every cell, middlegame and endgame, and its phase weight."""
        found = self._cells.get(piece)
        if found is not None:
            return found
        w = self.w
        kind = piece.kind
        value = self.piece_value(kind, piece.height)
        mg, eg = [value] * self.cells, [value] * self.cells
        centre = w.centre.get(kind, 0)
        end_centre = (w.centre_end if w.centre_end is not None else w.centre).get(kind, 0)
        advance = w.advance if kind in w.advance_kinds else 0
        end_advance = (w.advance_end if w.advance_end is not None else w.advance
                       ) if kind in w.advance_kinds else 0
        home = w.home.get(kind, 0)
        for c in range(self.cells):
            if c in self.castles:
                mg[c] += w.castle
                eg[c] += w.castle
            mg[c] += round(centre * self.centrality[c])
            eg[c] += round(end_centre * self.centrality[c])
            if self.rank is not None:
                r = self.rank[c]
                ranks = r - self.low if piece.owner == 0 else self.high - r
                mg[c] += advance * ranks
                eg[c] += end_advance * ranks
                if ranks == 0:
                    mg[c] += home
        phase = 0 if kind in w.advance_kinds else value
        marked = kind in w.pair or (bool(w.shelter) and kind in w.shelter_kinds)
        if self.game.players == 2 and piece.owner == 1:  # see score(): one signed sum
            mg, eg = [-v for v in mg], [-v for v in eg]
        found = (tuple(mg), tuple(eg), phase, marked)
        self._cells[piece] = found
        return found

    def score(self, pos: Position, player: int, in_check: bool | None = None) -> int:
        """Worth of ``pos`` for ``player`` minus the strongest opponent's, in centipawns.

        ``in_check``: whether the side to move is in check, when the caller knows it (the
        search does at every node; asking the rules again costs a King scan and an attack
        test, a fifth of an evaluation in Lùotuoqí)."""
        w = self.w
        players = self.game.players
        cells = self._cells
        marked: list[tuple[int, Piece]] = []
        phase = 0
        if players == 2:
            # two players: the tables carry Black's values negated, one sum is White's lead
            mg_sum = eg_sum = 0
            for c, piece in enumerate(pos.board):
                if piece:
                    mgs, egs, weight, mark = cells.get(piece) or self._cell_values(piece)
                    mg_sum += mgs[c]
                    eg_sum += egs[c]
                    phase += weight
                    if mark:
                        marked.append((c, piece))
            if marked:
                mg_add, eg_add = self._piece_terms(pos, marked)
                mg_sum += mg_add[0] - mg_add[1]
                eg_sum += eg_add[0] - eg_add[1]
            if self.tapered and self.full_phase:
                full = self.full_phase
                phase = min(phase, full)
                lead = (mg_sum * phase + eg_sum * (full - phase)) // full
            else:
                lead = mg_sum
            hands, reserves = pos.hands, pos.reserves
            if hands[0] or hands[1] or reserves[0] or reserves[1]:
                lead += self._off_board(pos, 0) - self._off_board(pos, 1)
            if w.token:
                for holder in pos.tokens.values():
                    if holder == 0:
                        lead += w.token
                    elif holder == 1:
                        lead -= w.token
            if w.check:
                mover = self.game.ply_mover(pos)
                if self.game.in_check(pos, mover) if in_check is None else in_check:
                    lead += -w.check if mover == 0 else w.check
            return lead if player == 0 else -lead
        else:
            mg, eg = [0] * players, [0] * players
            for c, piece in enumerate(pos.board):
                if piece:
                    mgs, egs, weight, mark = cells.get(piece) or self._cell_values(piece)
                    mg[piece.owner] += mgs[c]
                    eg[piece.owner] += egs[c]
                    phase += weight
                    if mark:
                        marked.append((c, piece))
        if marked:
            mg_add, eg_add = self._piece_terms(pos, marked)
            for p in range(players):
                mg[p] += mg_add[p]
                eg[p] += eg_add[p]
        if self.tapered and self.full_phase:
            phase = min(phase, self.full_phase)
            full = self.full_phase
            mine = [(mg[p] * phase + eg[p] * (full - phase)) // full for p in range(players)]
        else:
            mine = mg
        for p in range(players):
            mine[p] += self._off_board(pos, p)
        if w.token:
            for holder in pos.tokens.values():
                if 0 <= holder < players:
                    mine[holder] += w.token
        if w.check:
            mover = self.game.ply_mover(pos)
            if self.game.in_check(pos, mover) if in_check is None else in_check:
                mine[mover] -= w.check
        others = [mine[p] for p in range(players) if p != player]
        return mine[player] - (max(others) if others else 0)

    def exposure(self, pos: Position, player: int) -> int:
        """What the danger of losing his last castle pieces costs ``player`` (3–4 players;
        see the module docstring): 0 unless each of his castle pieces can be taken by an
        opponent still in.  Then, when each castle piece can be taken by another of the
        opponents who move before he does again (one move each), ``castle_loss``;
        else ``castle_threat`` per opponent who can take one, beyond his castles less
        one (to move, he can answer one of them)."""
        threat = self.w.castle_threat
        if not threat or self.game.players < 3:
            return 0
        board = pos.board
        held = [c for c in self.castles if (p := board[c]) is not None and p.owner == player]
        if not held:
            return 0
        out = self.game.out_players(pos)
        opponents = [p for p in range(self.game.players) if p != player and p not in out]
        attacked = self.game.cell_attacked
        takers: list[set[int]] = []
        for cell in held:
            by = {p for p in opponents if attacked(pos, cell, p)}
            if not by:
                return 0  # a castle piece no one can take this round: not out this round
            takers.append(by)
        mover = self.game.ply_mover(pos)
        if mover != player:
            # the opponents who move before he does again (paranoid search: those left
            # of this round; best-reply search's opponents' layer: all of them)
            first = {(mover + k) % self.game.players
                     for k in range((player - mover) % self.game.players)}
            if _distinct([by & first for by in takers]):
                return self.w.castle_loss
        return threat * max(0, len(set().union(*takers)) - len(held) + 1)

    def _off_board(self, pos: Position, player: int) -> int:
        """Pieces in ``player``'s hand and reserve."""
        total = 0
        for store in (pos.hands[player], pos.reserves[player]):
            for kind, n in store.items():
                total += int(self.w.hand_factor * self.piece_value(kind) * n)
        return total

    def _piece_terms(self, pos: Position, marked: list[tuple[int, Piece]],
                     ) -> tuple[list[int], list[int]]:
        """The terms of more than one piece, per player (middlegame, endgame): shelter
        and pairs."""
        w = self.w
        board = pos.board
        mg = [0] * self.game.players
        eg = [0] * self.game.players
        pairs: dict[tuple[int, str], int] = {}
        for c, piece in marked:
            owner, kind = piece.owner, piece.kind
            if kind in w.pair:
                pairs[owner, kind] = pairs.get((owner, kind), 0) + 1
            if w.shelter and kind in w.shelter_kinds:
                for n in self.neighbours[c]:
                    p = board[n]
                    if p is not None and p.owner == owner and p.kind in w.advance_kinds:
                        mg[owner] += w.shelter
        for (owner, kind), n in pairs.items():
            if n >= 2:
                mg[owner] += w.pair[kind]
                eg[owner] += w.pair[kind]
        return mg, eg


def _distinct(takers: list[set[int]]) -> bool:
    """Whether each set can give a different member (a castle piece each to a different
    opponent): tried in every order, there are at most five castles and three opponents."""
    if len(takers) > len(set().union(*takers)):
        return False
    return any(len(set(pick)) == len(pick) for pick in itertools.product(*takers))


def _centrality(centres: tuple[tuple[float, float], ...]) -> tuple[float, ...]:
    """Per cell: 1 at the board's centre (the mean of the cells' centres), 0 at the cell
    farthest from it, linear in the distance in between."""
    if not centres:
        return ()
    cx = sum(x for x, _ in centres) / len(centres)
    cy = sum(y for _, y in centres) / len(centres)
    dist = [math.hypot(x - cx, y - cy) for x, y in centres]
    far = max(dist) or 1.0
    return tuple(1.0 - d / far for d in dist)
