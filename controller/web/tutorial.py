"""The page's guided first game: steps that advance when the board shows them done.

Arrange the pieces, lift one, make a move, capture, then the game's own special move
(``Game.special_step``: a Tower split, a drop, the Wazir exchange, an own capture, a Pawn
off the home stack).  Progress is read from the real game — the board's phase and the
moves made since the walkthrough began — so it works the same on the simulated board and
on a physical one.  In a hidden-information game only the viewer's own moves count, so
the walkthrough never tells him what his opponent did.
"""

from __future__ import annotations

from typing import Any

from controller.i18n import Text
from controller.rules import Game, Move, Position

ARRANGE = Text("Put every piece on its starting cell. On the simulated board: press "
               "\u201cArrange the pieces\u201d. On a real board: the red cells want a piece.")
LIFT = Text("Lift one of your pieces: the cells it may go to light up blue. Put it back: "
            "nothing happened.")
MOVE = Text("Make a move: put the piece down on a lit cell. It appears under Moves.")
CAPTURE = Text("Capture: take the enemy piece off the board and put yours on its cell, in "
               "either order (play a few moves until a capture is possible).")
DONE = Text("That is the board. Every rule and gesture of this game is in its guide "
            "(How to play). Have a good game!")


def _special_done(game: Game, pos: Position, move: Move, mover: int) -> bool:
    step = game.special_step
    if step is None:
        return False
    if step.kind and move.kind != step.kind:
        return False
    if step.promotion and move.promotion != step.promotion:
        return False
    if step.leaves_part and (move.left is None or move.kind == "promote"):
        return False
    if step.own_capture:
        victims = [pos.board[c] for c in move.captures]
        if not any(v is not None and v.owner == mover for v in victims):
            return False
    return True


def progress(game: Game, pos: Position, phase: str, since: int,
             viewer: int | None) -> dict[str, Any]:
    """The walkthrough's steps with what is done, for moves made after ply ``since``."""
    moved = captured = special = False
    undone = pos.moves[since:] if since <= len(pos.moves) else []
    for _ in undone:
        pos.pop()
    redone = 0
    try:
        for move in undone:
            mover = game.ply_mover(pos)
            mine = not game.hidden_information or viewer is None or mover == viewer
            if mine and move.kind not in ("roll", "pass"):
                moved = True
                captured = captured or any(
                    pos.board[c] is not None and pos.board[c].owner != mover
                    for c in move.captures)
                special = special or _special_done(game, pos, move, mover)
            pos.push(move)
            redone += 1
    finally:  # the board's position is left exactly as it was, whatever happened
        for move in undone[redone:]:
            pos.push(move)
    arranged = phase != "setup" or moved
    lifted = phase in ("lifted", "settling", "choice") or moved
    steps = [("arrange", ARRANGE, arranged), ("lift", LIFT, lifted), ("move", MOVE, moved),
             ("capture", CAPTURE, captured)]
    if game.special_step is not None:
        steps.append(("special", game.special_step.text, special))
    current = next((i for i, (_, _, done) in enumerate(steps) if not done), len(steps))
    return {"steps": [{"name": n, "text": text, "done": done} for n, text, done in steps],
            "current": current, "finished": current == len(steps), "done_text": DONE}
