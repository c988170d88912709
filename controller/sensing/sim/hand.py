"""The simulated hand: human actions on the simulated board, and the actions that carry
out a move as a player would.

Every action changes the physical truth of :class:`~controller.sensing.sim.board.SimulatedBoard`
only; the board service learns about it the way it learns about a real board — through the
emulated electronics, the scanner code and the sensing pipeline.  Nothing here tells the
state machine what happened.  The page's simulator (``POST /api/sim``) and the hand that
makes the computer's moves on the simulated board both act through :func:`perform`.

Actions, spots by name:

* ``{"action": "lift", "spot": "e2", "count": 1}`` — the top ``count`` objects (all if
  omitted) into the hand;
* ``{"action": "place", "spot": "e4", "count": 1}`` — the last ``count`` held objects;
* ``{"action": "slide", "path": ["a1", "a2", "a3"]}`` — drag a pile over the board;
* ``{"action": "set_aside"}`` — held objects into the box (a captured piece);
* ``{"action": "take", "object": "white-M"}`` — an object from the box into the hand;
* ``{"action": "knock_over", "spot": "d4", "onto": "d5"}`` (``onto`` null: off the board);
* ``{"action": "off_centre", "spot": "d4", "toward": "d5"}``;
* ``{"action": "bounce", "spot": "d4"}`` — contact bounce / a wobble;
* ``{"action": "arrange"}`` — put every object where the game expects it (set-up aid);
* ``{"action": "restore", "plies": 2}`` — set up the earlier position after the game's
  first ``plies`` plies, as a person restores it to take moves back (the page's "Accept"
  of a linked board's takeback request);
* ``{"action": "clear"}`` — empty the board, the pads and the hand.
"""

from __future__ import annotations

from typing import Any

from controller.sensing.sim.objects import object_name, position_objects

ACTIONS = ("lift", "place", "slide", "set_aside", "take", "knock_over", "off_centre",
           "bounce", "arrange", "restore", "clear")


class SimActionError(ValueError):
    """A simulator action that cannot be done; the message says why."""


def _spot(sim: Any, data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise SimActionError(f"{data.get('action')}: '{key}' must name a spot, got {value!r}")
    try:
        return sim.index(value)
    except (KeyError, IndexError) as exc:
        raise SimActionError(str(exc.args[0] if exc.args else exc)) from None


#: longest slide the page may ask for, and longest rest on each passed spot (seconds of
#: simulated time, which the board loop spends while the request runs)
MAX_PATH = 24
MAX_DWELL_S = 0.5


def _number(data: dict[str, Any], key: str, low: float, high: float,
            default: float | None) -> float | None:
    """An optional finite number in [low, high] (JSON's ``true`` is not a number)."""
    value = data.get(key)
    if value is None:
        return default
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not low <= value <= high):
        raise SimActionError(f"{data.get('action')}: '{key}' must be a number from {low} "
                             f"to {high}, got {value!r}"[:160])
    return float(value)


def _count(data: dict[str, Any]) -> int | None:
    count = data.get("count")
    if count is None:
        return None
    if isinstance(count, bool) or not isinstance(count, int):
        raise SimActionError(f"{data.get('action')}: 'count' must be a whole number, "
                             f"got {count!r}")
    return count


def arrange(sim: Any, game: Any, pos: Any, layout: Any) -> None:
    """Clear the simulated board and put down the objects of ``pos`` (a set-up aid)."""
    objects = position_objects(game, pos, layout)
    sim.clear()
    sim.aside.clear()  # the box is put away too: captured pieces do not pile up game after game
    for spot, names in sorted(objects.items()):
        sim.put(spot, names)


def restore(sim: Any, service: Any, plies: int) -> None:
    """Set up the position of the game after its first ``plies`` plies: the board's own
    takeback gesture (an earlier position, held still), done in one go."""
    game, moves = service.game, service.expected_position().moves
    if not 0 <= plies < len(moves):
        raise SimActionError(f"restore: 'plies' must be from 0 to {len(moves) - 1} "
                             f"(the moves made so far), got {plies}")
    earlier = game.parse_position(service.setup)
    for move in moves[:plies]:
        earlier.push(move)
    arrange(sim, game, earlier, service.layout)


def take_from_box(sim: Any, name: str) -> None:
    """Into the hand: the object from the box if one lies there, else a spare one."""
    for k, thing in enumerate(sim.aside):
        if thing.name == name:
            del sim.aside[k]
            thing.lying = False
            sim.hand.append(thing)
            sim.revision += 1
            sim.log.append((sim.now, f"take {name} from the box"))
            return
    sim.take(name)


def move_actions(game: Any, pos: Any, move: Any, layout: Any) -> list[dict[str, Any]]:
    """The human actions that carry out the legal ``move`` of ``pos`` on the board, the
    way a player would: victims taken off first, then the moving stones (a split lifts
    only its part; castling lifts both pieces, then places both), a piece that changes
    kind swapped on its cell, a token handed over last (from its pad to its new
    holder's).  (Demos, tests and the
    benchmark use it.)"""
    from controller.rules import Piece

    def name(spot: int) -> str:
        return layout.spots[spot].name

    out: list[dict[str, Any]] = []
    mover = game.ply_mover(pos)
    for cell in move.captures:
        if pos.board[cell] is not None:  # (not the empty field a vanishing piece lands on)
            out += [{"action": "lift", "spot": name(cell)}, {"action": "set_aside"}]
    before = pos.board[move.origin] if move.origin >= 0 else None
    together = bool(move.also) and 0 <= move.origin != move.target >= 0
    if move.kind == "promote":  # in place: the old piece out, the new one in
        new = move.piece
        out += [{"action": "lift", "spot": name(move.origin)}, {"action": "set_aside"}]
        out += [{"action": "take", "object": object_name(game, Piece(new.owner, new.kind))}
                for _ in range(new.height)]
        out.append({"action": "place", "spot": name(move.origin)})
    elif move.kind in ("drop", "place"):
        role = "hand" if move.kind == "drop" else "reserve"
        pad = next(s for s in layout.spots if s.role == role and s.owner == mover
                   and s.piece == move.piece.kind)
        out += [{"action": "lift", "spot": pad.name, "count": 1},
                {"action": "place", "spot": name(move.target)}]
    elif together:
        # castling with a King that moves: both pieces in the hand first, then both down,
        # the Rook first (the last held) — one piece at a time would set the King on the
        # Rook's cell when that is its target (Chess960, Lao Tzu set-ups) or swap cells
        lifted = [(move.origin, move.target, before.height)]
        lifted += [(a, b, pos.board[a].height) for a, b in move.also]
        out += [{"action": "lift", "spot": name(a), "count": n} for a, _, n in lifted]
        out += [{"action": "place", "spot": name(b), "count": n}
                for _, b, n in reversed(lifted)]
    elif move.origin >= 0 and move.target >= 0:
        count = before.height - (move.left.height if move.left is not None else 0)
        out += [{"action": "lift", "spot": name(move.origin), "count": count},
                {"action": "place", "spot": name(move.target)}]
        if move.kind == "merge":  # the target Tower lifted once (tapped): it was seen
            out += [{"action": "lift", "spot": name(move.target)},  # empty, so a merge
                    {"action": "place", "spot": name(move.target)}]  # and not a capture
        if move.piece is None:  # it lands, then leaves with its player (KaleidoChess: out)
            out += [{"action": "lift", "spot": name(move.target)}, {"action": "set_aside"}]
        if (move.piece is not None and before is not None
                and move.piece.kind != before.kind):  # Pawn -> Wazir, Pawn -> Queen
            out += [{"action": "lift", "spot": name(move.target)}, {"action": "set_aside"},
                    {"action": "take", "object": object_name(game, move.piece)},
                    {"action": "place", "spot": name(move.target)}]
    if not together:  # (a King that stays: only its Rook moves)
        for a, b in move.also:
            out += [{"action": "lift", "spot": name(a)}, {"action": "place", "spot": name(b)}]
    # a captured piece changes colour (Lao Tzu, Crazyhouse): one of the capturer's colour
    # of that kind (a Pawn for a promoted piece) goes from the box onto his hand pad
    hands = [dict(h) for h in pos.hands]
    holder = pos.tokens.get(move.token) if move.token else None
    pos.push(move, record=False)
    gained = {k: n - hands[mover].get(k, 0) for k, n in pos.hands[mover].items()}
    new_holder = pos.tokens.get(move.token) if move.token else None
    pos.pop()
    for kind, n in gained.items():
        pad = next((s for s in layout.spots if s.role == "hand" and s.owner == mover
                    and s.piece == kind), None)
        if pad is not None and move.kind != "drop":
            out += [{"action": "take", "object": object_name(game, Piece(mover, kind))},
                    {"action": "place", "spot": pad.name}] * max(0, n)
    pads = {s.owner: s.name for s in layout.spots
            if s.role == "token" and s.piece == move.token and move.token}
    if holder != new_holder and holder in pads and new_holder in pads:
        out += [{"action": "lift", "spot": pads[holder]},
                {"action": "place", "spot": pads[new_holder]}]
    return out


def perform(service: Any, data: dict[str, Any]) -> None:
    """Carry out one action on ``service.sim``; ``SimActionError`` says what is wrong."""
    sim = service.sim
    action = data.get("action")
    if action not in ACTIONS:
        raise SimActionError(f"unknown simulator action {action!r} (one of {', '.join(ACTIONS)})")
    try:
        if action == "lift":
            sim.lift(_spot(sim, data, "spot"), _count(data))
        elif action == "place":
            sim.place(_spot(sim, data, "spot"), _count(data))
        elif action == "slide":
            path = data.get("path")
            if not isinstance(path, list) or not 2 <= len(path) <= MAX_PATH:
                raise SimActionError(f"slide: 'path' must list 2 to {MAX_PATH} spots")
            spots = [_spot(sim, {"action": "slide", "spot": p}, "spot") for p in path]
            sim.slide(spots, dwell_s=_number(data, "dwell_s", 0.0, MAX_DWELL_S, 0.05))
        elif action == "set_aside":
            sim.set_aside(_count(data))
        elif action == "take":
            name = data.get("object")
            if not isinstance(name, str) or not name:
                raise SimActionError("take: 'object' must name an object, e.g. 'white-M'")
            take_from_box(sim, name)
        elif action == "knock_over":
            onto = data.get("onto")
            sim.knock_over(_spot(sim, data, "spot"),
                           None if onto is None else _spot(sim, data, "onto"))
        elif action == "off_centre":
            sim.off_centre(_spot(sim, data, "spot"), _spot(sim, data, "toward"),
                           _number(data, "amount", 0.0, 1.0, None))
        elif action == "bounce":
            sim.bounce(_spot(sim, data, "spot"))
        elif action == "arrange":
            arrange(sim, service.game, service.expected_position(), service.layout)
        elif action == "restore":
            plies = data.get("plies")
            if isinstance(plies, bool) or not isinstance(plies, int):
                raise SimActionError(f"restore: 'plies' must be a whole number, got {plies!r}")
            restore(sim, service, plies)
        elif action == "clear":
            sim.clear()
    except SimActionError:
        raise
    except (ValueError, IndexError) as exc:  # (a Text kept: the page translates it)
        raise SimActionError(exc.args[0] if len(exc.args) == 1 else str(exc)) from None
