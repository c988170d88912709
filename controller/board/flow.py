"""The turn's flow: the declarative table that drives the board's ``transitions.Machine``
and the state diagram generated from it (``docs/board.md``).

The triggers of a turn are named after the reconciler's decisions
(:mod:`controller.reconcile`: ``idle``, ``wait``, ``commit``, ``choose``, ``confirm``,
``takeback``, ``mismatch``; an ``amend`` ends as ``commit`` or ``choose``), so the table
reads as what the board does with what it sees.  The machine dispatches a decision to its
handler through one mapping (``Board.TURN_DECISIONS``); each handler fires the trigger of its
decision.  The other triggers come from time, the settle gate, the menu and the caller.
"""

from __future__ import annotations

from controller.interaction import PHASES

#: states where the player is playing a turn on the board
PLAY = ["turn", "lifted", "settling", "correction", "takeback"]
_ALL_BUT_PAUSED = [s for s in PHASES if s != "paused"]

#: (trigger, source(s), destination, condition or None) — read top to bottom; for one
#: trigger the first row whose condition holds is taken.
TRANSITIONS: list[tuple[str, str | list[str], str, str | None]] = [
    # set-up verification
    ("board_ready", "setup", "game_over", "game_is_over"),
    ("board_ready", "setup", "turn", None),
    # a turn on the board, by the reconciler's decision
    ("idle", PLAY, "turn", None),
    ("wait", PLAY, "lifted", None),
    ("previewed", PLAY, "settling", None),
    ("commit", PLAY + ["choice", "execute", "game_over"], "game_over", "game_is_over"),
    ("commit", PLAY + ["choice", "execute", "game_over"], "turn", None),
    ("choose", PLAY + ["game_over"], "choice", None),
    ("confirm", PLAY + ["setup", "execute", "game_over"], "choice", None),
    ("mismatch", PLAY, "correction", None),
    # choices: answered, or the board moved on
    ("menu", PLAY + ["setup", "execute", "game_over"], "choice", None),
    ("choice_left", "choice", "setup", "not_started"),
    ("choice_left", "choice", "execute", "executing"),
    ("choice_left", "choice", "game_over", "game_is_over"),
    ("choice_left", "choice", "turn", None),
    # takebacks: the board restored to an earlier position, held still
    ("takeback", PLAY, "takeback", None),
    ("taken_back", PLAY + ["game_over"], "turn", None),
    # someone else's move shown on the board
    ("move_to_execute", PLAY + ["choice"], "execute", None),
    ("execute_cancelled", "execute", "turn", None),
    # end, restart, pause
    ("game_ended", PLAY + ["choice", "execute"], "game_over", None),
    ("game_reset", _ALL_BUT_PAUSED, "setup", None),
    ("game_reset", "paused", "setup", None),
    ("paused_by_user", _ALL_BUT_PAUSED, "paused", None),
    ("resumed", "paused", "setup", "not_started"),
    ("resumed", "paused", "game_over", "game_is_over"),
    ("resumed", "paused", "execute", "executing"),
    ("resumed", "paused", "turn", None),
]

def diagram(kind: str = "mermaid") -> str:
    """The state diagram generated from :data:`TRANSITIONS` (``mermaid`` or ``dot``).

    The five states of a turn in progress are drawn as one composite state ``playing``;
    a row from every state but ``paused`` starts at the node ``any``."""
    edges: list[tuple[str, str, str]] = []
    for trigger, sources, dest, cond in TRANSITIONS:
        label = trigger + (f" [{cond}]" if cond else "")
        src = [sources] if isinstance(sources, str) else list(sources)
        if set(src) == set(_ALL_BUT_PAUSED):
            src = ["any"]
        elif set(PLAY) <= set(src):
            src = ["playing", *(s for s in src if s not in PLAY)]
        edges.extend((a, dest, label) for a in src)
    if kind == "mermaid":
        lines = ["stateDiagram-v2", "    [*] --> setup",
                 "    state playing {", *(f"        {s}" for s in PLAY), "    }",
                 "    any : any state but paused"]
        lines += [f"    {a} --> {b} : {label}" for a, b, label in edges]
        return "\n".join(lines) + "\n"
    if kind == "dot":
        lines = ["digraph board {", "    rankdir=LR;", "    start [shape=point]; start -> setup;",
                 "    subgraph cluster_playing { label=playing; "
                 + " ".join(f"{s};" for s in PLAY) + " }",
                 '    any [label="any state but paused", shape=box, style=dashed];']
        lines += [f'    {a} -> {b} [label="{label}"];' for a, b, label in edges]
        return "\n".join(lines) + "\n}\n"
    raise ValueError(f"unknown diagram kind {kind!r} (mermaid, dot)")
