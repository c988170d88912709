"""What the companion page is sent: the layout drawing data and the live state as JSON.

Everything the page shows is built here from a :class:`~controller.snapshot.BoardSnapshot`
(a frozen value the service takes): the game position, the board state machine's
:class:`~controller.interaction.Interaction`, the LED frame and (with the simulated
board) the physical truth of the simulator.  What a viewer may see is decided
by :class:`controller.sight.Sight` (built from the game's ``player_view`` hook), as for
the board and its LEDs: in a game with hidden information the page never shows more than
the chosen player may know.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from controller.i18n import Text
from controller.layout import Layout, token_title
from controller.leds.palette import RGB, Palette
from controller.leds.scene import dark_cells
from controller.rules import GAMES, Game, Piece, PlayerView, Position, token_named
from controller.sensing.sim.objects import (
    object_name,
    pad_index,
    position_objects,
    supply_names,
)
from controller.sight import Sight
from controller.snapshot import BoardSnapshot
from controller.web.tutorial import progress as tutorial_progress

#: cell and pad colours of the drawing (those of the printed board pictures)
LIGHT, DARK, PLAIN, PAD = "#c9bda8", "#8c7d6a", "#b9ad98", "#6b625a"
TAG_FILLS = {"castle": "#b3a283", "town": "#a7b08f", "hexagon": "#c9bda8",
             "triangle": "#a99a84", "square": "#b9ad98"}

# ---------------------------------------------------------------------------------
# hidden information


def player_view(game: Game, pos: Position, player: int) -> PlayerView | None:
    """The player's view (the game's ``player_view`` hook; None when nothing is hidden)."""
    return game.player_view(pos, player)


def has_hidden_information(game: Game) -> bool:
    return game.hidden_information


# ---------------------------------------------------------------------------------
# objects: what stands on a spot, by name ("white-K", "black-T", a game's token)


def object_json(name: str, lying: bool = False) -> dict[str, Any]:
    token = token_named(name)
    if token is not None:  # drawn in its own colours (the page's table, by its name)
        return {"name": name, "colour": name, "kind": "token", "title": token.title,
                "lying": lying}
    colour, _, kind = name.partition("-")
    return {"name": name, "colour": colour if kind else "other", "kind": kind or name[:2],
            "lying": lying}


# ---------------------------------------------------------------------------------
# layout


def _spot_label(spot) -> str:
    if spot.role == "token":
        return token_title(spot.piece)
    if spot.role == "hand":
        return Text("hand {piece}", piece=spot.piece)
    if spot.role == "reserve":
        return Text("reserve {piece}", piece=spot.piece)
    if spot.role == "option":
        return Text("option {n}", n=spot.name.replace("option-", ""))
    return spot.name.replace("-", " ")


def layout_json(layout: Layout) -> dict[str, Any]:
    """Drawing data: every spot's outline in mm (cells first, then pads) and its LED."""
    g = layout.geometry
    dark = dark_cells(layout)
    spots = []
    for i, s in enumerate(layout.spots):
        if s.kind == "pad":
            fill = PAD
        elif g.kind == "grid":
            fill = DARK if i in dark else LIGHT
        else:
            fill = next((TAG_FILLS[t] for t in TAG_FILLS if i in g.tags.get(t, ())), PLAIN)
        spots.append({
            "name": s.name, "kind": s.kind, "role": s.role, "owner": s.owner,
            "piece": s.piece, "outline": [list(p) for p in s.outline_mm],
            "centre": list(s.centre_mm), "led": s.led, "led_mm": list(s.led_mm),
            "fill": fill, "label": (label := _spot_label(s)),
            # a label with a value: its template and values, for the page's t(…)
            **({"words": {"text": label.template, "values": label.values}}
               if isinstance(label, Text) and label.values else {}),
        })
    rivers = []
    if g.kind == "grid" and g.rivers:
        ox, oy = layout.origin_mm
        for k in g.rivers:
            y = oy + k * layout.scale_mm
            rivers.append([ox, y, ox + g.files * layout.scale_mm, y])
    return {"name": layout.name, "title": layout.title, "shape": layout.shape,
            "size": list(layout.size_mm), "cell_count": layout.cell_count,
            "spots": spots, "rivers": rivers, "games": list(layout.games)}


# ---------------------------------------------------------------------------------
# games and their options (the new-game form)


def game_options(game_class: type[Game]) -> list[dict[str, Any]]:
    """The declared options of a game class (:attr:`Game.option_specs`) for the form."""
    return [{"name": o.name, "type": o.kind.__name__, "default": o.default}
            for o in game_class.option_specs]


def level_ratings_json(game: str) -> dict[str, dict[str, Any]]:
    """The computer's levels in ``game`` as a player reads them: each rated level's
    rating (``about``) and whether it is only approximate (``controller/engine/ratings.py``,
    the numbers' one home)."""
    from controller.engine.ratings import level_ratings

    return {str(level): {"about": r.about, "approximate": r.approximate, "under": r.under}
            for level, r in level_ratings(game).items()}


def games_json(layout: Layout, load: Callable[[str], type]) -> list[dict[str, Any]]:
    """The games this board can play (``layout.games``) that are implemented."""
    out = []
    for name in layout.games:
        if name not in GAMES:
            continue
        try:
            cls = load(name)
        except Exception:  # a game still being written must not break the page
            continue
        out.append({"name": name, "title": cls.title, "provisional": cls.provisional,
                    "options": game_options(cls), "ratings": level_ratings_json(name)})
    return out


@functools.cache
def other_games(layout: str) -> list[dict[str, Any]]:
    """The games this layout does not play, each with the shipped board made for it (the
    simulated board switches to that board for a new game of it)."""
    from controller.layout import layout_names, load_layout

    known = set(load_layout(layout).games)
    out = []
    for name in layout_names():
        board = load_layout(name)
        for g in games_json(board, lambda n: GAMES[n]):
            if g["name"] not in known:
                known.add(g["name"])
                out.append(dict(g, layout=name, board=board.title))
    return out


# ---------------------------------------------------------------------------------
# the live state


def hex_colour(c: RGB) -> str:
    return f"#{c[0]:02x}{c[1]:02x}{c[2]:02x}"


def palette_json(palette: Palette) -> list[tuple[str, str]]:
    return [(name, hex_colour(c)) for name, c in palette.swatches()]


class _Sight:
    """Who looks at the page, and what of the board's output that viewer may see
    (:class:`controller.sight.Sight`, plus: the board serves the side to move, so another
    viewer sees none of its output)."""

    def __init__(self, snap: BoardSnapshot, viewer: int | None):
        game: Game = snap.game
        pos: Position = snap.position
        it = snap.interaction
        self.view: Any = None
        self.viewer: int | None = None
        self.allowed: set[int] | None = None  # spots whose LEDs may show; None: all
        self.show_board_output = True  # choices, messages
        if not game.hidden_information:
            return
        sight = Sight(game, pos, viewer)
        self.sight = sight
        self.viewer = sight.viewer
        self.view = sight.view
        layout: Layout = snap.layout
        # the board serves the side to move (single board: its LEDs show that player's
        # view); another viewer sees none of it
        serves = it.viewer if it.viewer is not None else game.ply_mover(pos)
        self.show_board_output = serves == sight.viewer
        spots = sight.spots(len(layout.spots))
        self.allowed = set(spots or ()) if self.show_board_output else set()
        self.fog = list(sight.fog)

    def message(self, text: str) -> str:
        """A message naming a cell the viewer cannot see is not shown."""
        if self.view is None:
            return text
        if not self.show_board_output:
            return ""
        return "" if self.sight.names_hidden_cell(text) else text

#: LED roles a hidden-information view never shows: where the opponent's last move
#: went is not part of what a player may know (only what is visible now)
HIDDEN_ROLES = frozenset({"last_move"})


def visible_leds(snap: BoardSnapshot, viewer: int | None = None) -> list[list[Any]]:
    """Per spot ``[colour, opacity]`` of the LEDs the viewer may see (dark otherwise)."""
    sight = _Sight(snap, viewer)
    leds = list(snap.glow)
    if sight.allowed is None:
        return leds
    allowed = set(sight.allowed)
    if snap.led_roles is not None:
        spot_at_led = snap.layout.led_spots()
        allowed -= {spot_at_led[k] for k, role in enumerate(snap.led_roles)
                    if role in HIDDEN_ROLES}
    return [c if i in allowed else ["#000000", 0.0] for i, c in enumerate(leds)]


def _seen(pile: list[dict[str, Any]], visible: bool, colour: str) -> list[dict[str, Any]]:
    """What the viewer sees of a simulated pile: all of it on a cell he sees; on a fogged
    cell only his own objects on top — a piece he put there himself (a refused drop),
    which he must see to take back, never what lies under it."""
    if visible:
        return pile
    k = len(pile)
    while k and pile[k - 1]["colour"] == colour:
        k -= 1
    return pile[k:]


def build_state(snap: BoardSnapshot, viewer: int | None = None) -> dict[str, Any]:
    """The page's state for one viewer (``None``: the side to move in a hidden-information
    game, everything otherwise), from the board's snapshot."""
    game: Game = snap.game
    pos: Position = snap.position
    layout: Layout = snap.layout
    it = snap.interaction
    outcome = snap.outcome
    sight = _Sight(snap, viewer)
    view = sight.view
    viewer = sight.viewer
    mover = game.ply_mover(pos) if outcome is None else None

    # pieces: the simulator's physical truth, or the game position for a real board
    sim = snap.sim
    if sim is not None:
        pieces = {i: [object_json(name, lying) for name, lying in pile]
                  for i, pile in enumerate(sim.piles) if pile}
        held = [object_json(n) for n in sim.held]
        boxed: dict[str, int] = {}
        for name in sim.set_aside:
            boxed[name] = boxed.get(name, 0) + 1
        names = list(snap.supply) + [n for n in boxed if n not in snap.supply]
        supply = [dict(object_json(n), in_box=boxed.get(n, 0)) for n in names]
    else:
        pieces = {i: [object_json(n) for n in objs]
                  for i, objs in position_objects(game, pos, layout).items()}
        held, supply = [], []

    fog: list[int] = []
    check = bool(outcome is None and game.in_check(pos))
    result = outcome
    if view is not None:
        fog = sight.fog
        # a real board, or a viewer the board is not serving (the other player's moves
        # under way are not his to watch): only what the view knows
        if sim is None or not sight.show_board_output:
            pieces = {}
            for cell, piece in (*view.own, *view.enemies):
                pieces[cell] = [object_json(object_name(game, piece))] * max(1, piece.height)
            for player, hand in enumerate(view.hands):
                for kind, count in hand:
                    pad = pad_index(layout, "hand", player, kind)
                    if pad is not None:
                        pieces[pad] = [object_json(object_name(game, Piece(player, kind)))
                                       ] * count
        else:
            visible = set(view.visible)
            pieces = {i: p for i, p in ((i, _seen(p, i >= layout.cell_count or i in visible,
                                                  game.player_names[viewer].lower()))
                                        for i, p in pieces.items()) if p}
        check = bool(view.in_check)
        result = view.result
        if not sight.show_board_output:  # the other player's hand (or the computer's
            held = []                    # making its move) holds what he may not see

    moves = [{"player": player, "text": text if view is None or player == viewer else None}
             for player, text in snap.plies]

    choice = []
    if sight.show_board_output:
        on_pads = {o.label: o for o in it.options}
        for k, label in enumerate(snap.choice_labels):
            o = on_pads.get(label)
            choice.append({"index": k, "label": label,
                           "spot": o.spot if o is not None else None,
                           "colour": hex_colour(snap.palette.option(o.slot))
                           if o is not None else "#777777"})

    options, setup = snap.options, snap.setup
    if view is not None:  # the set-up and the array numbers show the hidden back ranks
        options = {k: v for k, v in options.items() if k not in game.hidden_options}
        setup = None
    return {
        "seq": snap.version,
        "game": {"name": game.name, "title": game.title, "provisional": game.provisional,
                 "players": list(game.player_names), "options": options,
                 "pieces": dict(game.piece_names),
                 "setup": setup, "id": snap.game_id},
        # the simulated board can be any printed board: the games of the other layouts
        "layout": layout.name,
        "other_games": other_games(layout.name) if snap.sim is not None else [],
        "tutorial": (None if snap.tutorial_since is None else
                     tutorial_progress(game, pos, it.phase, snap.tutorial_since, viewer)),
        "computer": dict(snap.computer),
        "phase": it.phase,
        "message": sight.message(it.message),
        "mover": mover,
        "check": check,
        "result": (None if result is None else
                   {"text": result.result, "reason": result.reason,
                    "winners": list(result.winners)}),
        "moves": moves,
        "pieces": pieces,
        "fog": fog,
        "viewer": viewer,
        "viewers": list(game.player_names) if view is not None else None,
        "choice": choice,
        # what the open question is: "moves" (several fit), "confirm", "amend", "menu"
        "choice_kind": snap.choice_kind if choice else None,
        "die": snap.die_expected,
        # the voice's last words; in fog of war only those made for this page's player
        # (or for anybody), whoever the board's listener was when they were said
        "announcements": [a for a in snap.announcements if not game.hidden_information
                          or a.get("ears") in (None, viewer)],
        # players already out of the game (KaleidoChess with three or four players)
        "out": [game.player_names[p] for p in game.out_players(pos)],
        "sim": sim is not None,
        "held": held,
        "supply": supply,
        "resume": snap.resume_offer,
        "palette": palette_json(snap.palette),
    }


__all__ = [
    "build_state", "games_json", "has_hidden_information", "layout_json", "object_json",
    "object_name", "player_view", "position_objects", "supply_names", "visible_leds",
]
