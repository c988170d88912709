"""Presentation: what the board shows, as a pure function of a snapshot of the machine's
state — :func:`compose` ``(Snapshot) -> Interaction``.

The machine (:mod:`controller.board.machine`) builds a :class:`Snapshot` after every
change and publishes the result when it differs from the last.  Nothing here changes the
machine: the snapshot holds values (the attempt, the game's progress, the last frame, the
message) and read-only queries (the reconciler's :class:`Picture`, the side to move's
:class:`~controller.sight.Sight`).  With hidden information the interaction is cut down to
what the player the board serves may know (:func:`_fogged`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from controller.board.attempt import Attempt, Progress
from controller.board.choices import Answers, move_label, own_cells
from controller.board.flow import PLAY
from controller.board.options import MORE, ROYAL
from controller.i18n.text import Text
from controller.interaction import NOT_A_MOVE, RESUMED_TEXT, ChoiceOption, Interaction
from controller.layout import Layout
from controller.reconcile import Effect, FrameLike, Key, PositionIndex, SensorView
from controller.rules.core import OFF_BOARD, Game, Move, Piece, PlayerView, Position
from controller.sight import Sight, viewer_spots


class Picture(Protocol):
    """The reconciler's read-only queries presentation needs (the committed position's
    index, the last move's amendments, how a frame differs from the expected picture)."""

    index: PositionIndex

    @property
    def amendable(self) -> tuple[Move, tuple[Move, ...]] | None: ...

    def deviation(self, frame: FrameLike, key: Key | None = None
                  ) -> tuple[frozenset[int], frozenset[int]]: ...

    def misfits(self, frame: FrameLike) -> tuple[frozenset[int], frozenset[int]]: ...


@dataclass(frozen=True)
class Snapshot:
    """The machine's state as :func:`compose` needs it."""

    phase: str
    game: Game
    layout: Layout
    view: SensorView
    position: Position  #: the committed position (read, never changed for good)
    picture: Picture
    sight: Sight  #: what the side to move may see of :attr:`position`
    answers: Answers
    frame: FrameLike | None  #: the last frame fed
    key: Key | None  #: its tracked occupancy
    attempt: Attempt
    progress: Progress
    guiding: bool  #: guidance one piece at a time (after a stable mismatch)
    message: str  #: what the machine has to say (empty: compose finds the words)

    @property
    def mover(self) -> int:
        return self.game.ply_mover(self.position)

    @property
    def fog(self) -> PlayerView | None:
        """The view of the player the board serves in a game with hidden information,
        else None."""
        return self.sight.view


# -- facts the machine shares -------------------------------------------------------------


def royal_cells(board: Sequence[Piece | None], player: int | None = None) -> list[int]:
    """Cells of the royal pieces (of ``player``, or of everyone)."""
    return [c for c, p in enumerate(board) if p is not None and p.kind == ROYAL
            and (player is None or p.owner == player)]


def effect_of(index: PositionIndex, move: Move) -> Effect | None:
    """What ``move`` does to the sensors (None: not a move of the index)."""
    try:
        return index.effects[index.moves.index(move)]
    except ValueError:
        return None


def move_spots(view: SensorView, move: Move) -> frozenset[int]:
    """Cells a move changed (and a token's pads when the move handed it over)."""
    cells = {move.origin, move.target, *(c for pair in move.also for c in pair)}
    cells.discard(OFF_BOARD)
    if move.token in view.pad_tokens:
        cells |= token_spots(view, move.token)
    return frozenset(cells)


# -- the interaction ----------------------------------------------------------------------


def compose(s: Snapshot) -> Interaction:
    """What the board shows in the state ``s``."""
    state = s.phase
    pos = s.position
    game = s.game
    progress = s.progress
    index = s.picture.index
    mover = s.mover
    base: dict[str, Any] = {"phase": state, "mover": mover}
    if pos.moves:
        base["last_move"] = move_spots(s.view, pos.moves[-1])
    if progress.started and _checked(s):
        base["check"] = frozenset(royal_cells(index.board, mover))
    if progress.low_time and state not in ("setup", "game_over"):
        base["low_time"] = frozenset(royal_cells(index.board, mover))
    if progress.hint is not None and state == "turn":
        base["hint_to"] = frozenset({progress.hint.target} if progress.hint.target >= 0
                                    else ())
        base["hint_from"] = move_spots(s.view, progress.hint) - base["hint_to"]
    base["active_pads"] = _active_pads(s)
    if state == "turn" and pos.moves and pos.moves[-1].kind == "roll":
        # after a die roll: the pieces that may move
        base["origins"] = frozenset(m.origin for m in index.moves if m.origin >= 0)
    if game.players > 2 or game.owner_colours:
        owners = {c: p.owner for c, p in enumerate(pos.board) if p is not None}
        if state == "game_over" and progress.outcome is not None and progress.outcome.winners:
            owners = {c: p for c, p in owners.items() if p in progress.outcome.winners}
        base["owners"] = owners  # at the end only the winners' pieces keep their colour
    message = s.message
    frame = s.frame
    if state == "turn":
        moves = index.moves
        if pos.moves and pos.moves[-1].kind == "roll" and not message:
            roll = pos.pop()
            try:
                rolled = game.long_move_text(pos, roll)
            finally:
                pos.push(roll)
            message = (Text("{rolled}: the only move is {move}", rolled=rolled,
                            move=game.move_text(pos, moves[0]))
                       if len(moves) == 1 else
                       Text("{rolled}: move one of the lit pieces", rolled=rolled))
        if len(moves) == 1 and moves[0].origin == OFF_BOARD and moves[0].captures:
            # the only move takes pieces off (a KaleidoChess player who cannot move is
            # out): mark them at once
            base["to_remove"] = frozenset(moves[0].captures)
            message = message or game.long_move_text(pos, moves[0])
    if state in ("setup", "correction", "takeback") and frame is not None:
        missing, extra = s.picture.deviation(frame)
        if state == "setup" and not missing and not extra:  # linear halls: a stack
            missing, extra = s.picture.misfits(frame)  # too low, a wrong colour
        base["missing"], base["extra"] = missing, extra
        if s.guiding and (missing or extra):
            spot = min(extra) if extra else min(missing)
            base["guide"] = spot
            message = _guide_text(s, spot, spot in extra)
        elif state == "setup":
            message = message or (Text("set up the position") if (missing or extra) else "")
        if state == "setup" and progress.resuming and not s.guiding:
            message = RESUMED_TEXT
        elif state == "correction" and not message:
            message = _not_a_move_text(s, missing, extra) or NOT_A_MOVE
    elif state in ("lifted", "settling"):
        a = s.attempt
        d = a.pending if state == "settling" and a.pending else a.decision
        if d is not None:
            base.update(origins=d.origins, to_remove=d.to_remove,
                        targets=d.targets if progress.targets else frozenset())
            pads = {t for t in d.targets
                    if t >= s.view.n_cells and s.layout.spots[t].role == "hand"}
            if not message and pads and frame is not None and any(
                    t < s.view.n_cells and frame.occupied[t] for t in d.targets):
                # the mover stands on its capture: the captured piece is wanted in hand
                message = _hand_pad_text(s, frozenset(pads))
            if d.to_remove and not message:  # who is knocked out
                message = _removal_message(s, d.to_remove)
            if len(d.origins) == 1:
                c = next(iter(d.origins))
                p = pos.board[c] if c < len(pos.board) else None
                if p is not None and p.height > 1:
                    base["height_display"] = (c, p.height)
    elif state == "choice" and s.attempt.choice is not None:
        message = _choice(s, base, message)
    elif state == "execute" and progress.execute is not None:
        m = progress.execute
        e = effect_of(index, m)
        if e is not None:
            view = s.view
            base["execute_from"] = view.spots(e.vacate & ~e.victims | e.source)
            base["execute_to"] = view.spots(e.goal) | ({m.origin} if m.origin == m.target
                                                       and m.origin >= 0 else set())
            base["to_remove"] = view.spots(e.victims)
            if frame is not None:
                missing, extra = s.picture.deviation(frame, e.key)
                moving = view.spots(e.vacate | e.arrive | e.touch)
                base["missing"] = missing - moving
                base["extra"] = extra - moving
        message = message or Text("execute {move}", move=move_label(game, pos, m))
    elif state == "game_over" and progress.outcome is not None:
        o = progress.outcome
        who = Text.join(", ", [game.player_names[w] for w in o.winners])
        message = (Text("{result} ({reason}): {who} wins", result=o.result, reason=o.reason,
                        who=who) if who else
                   Text("{result} ({reason})", result=o.result, reason=o.reason))
        if game.players > 2 and who:  # "1-0" / "winner 2" mean little with more players
            message = (Text("{who} wins ({reason})", who=who, reason=o.reason)
                       if len(o.winners) == 1 else
                       Text("{who} win ({reason})", who=who, reason=o.reason))
    elif state == "paused":
        message = Text("paused")
    fog = s.fog
    if progress.exchange is not None and state in PLAY and fog is None:
        # (with hidden information the promoting player swaps his piece unasked: the
        # board now serves his opponent, who may not learn where or what it became)
        message = message or _exchange_prompt(s, base, frame)
    if not message and progress.draw_offer is not None and state in PLAY:
        message = Text("{player} offers a draw", player=game.player_names[progress.draw_offer])
    if fog is not None:
        message = _fogged(s, base, fog, message)
    base["message"] = message
    return Interaction(**base)


def _choice(s: Snapshot, base: dict[str, Any], message: str) -> str:
    """The open choice: the current page of options on their spots, and its prompt."""
    c = s.attempt.choice
    assert c is not None
    pages = s.answers.pages(len(c.values))
    page = pages[c.page % len(pages)]
    spots = s.answers.spots(c, s.key, s.mover, own_cells(s.fog))
    opts = []
    for k, index in enumerate(page):
        if k >= len(spots):
            break
        if index is None:
            opts.append(ChoiceOption(MORE, None, spots[k], k))
        else:
            value = c.values[index]
            opts.append(ChoiceOption(c.labels[index],
                                     value if isinstance(value, Move) else None,
                                     spots[k], k))
    base["options"] = tuple(opts)
    base["targets"] = c.targets
    if s.answers.on == "pads" and len(pages) == 1 and all(
            isinstance(v, Move) and v.kind == "roll" for v in c.values):
        message = message or Text("roll the die and touch option pad 1–{count} for the "
                                  "face rolled", count=len(opts))
    options = Text.join(", ", [o.label for o in opts])
    if message or len(pages) == 1:
        return message or Text("choose: {options}", options=options)
    return Text("choose: {options} (page {page}/{pages})", options=options,
                page=c.page % len(pages) + 1, pages=len(pages))


def _fogged(s: Snapshot, base: dict[str, Any], fog: PlayerView, message: str) -> str:
    """Hidden information: the board serves the side to move and shows what he may know
    (``fog`` is his view).  A lifted piece shows his hints; the opponent's last move is
    not shown; everything stays on the cells he sees and the pads — except the
    corrections (missing, extra, guide): they are the physical board's difference from
    the picture it showed complete at the last commit, which both players saw (in
    set-up: occupancy only; see docs/laotzu.md).  "check", never by what."""
    visible = frozenset(fog.visible)
    allowed = viewer_spots(visible, s.view.n_cells, len(s.layout.spots))
    phase = base["phase"]
    base.update(viewer=fog.player, visible=visible if phase != "setup" else None,
                enemy_visible=frozenset(c for c, _ in fog.enemies))
    last = s.position.moves[-1] if s.position.moves else None
    if last is None or last.piece is None or last.piece.owner != fog.player:
        base.pop("last_move", None)
    a = s.attempt
    d = a.pending if phase == "settling" and a.pending else a.decision
    if phase in ("lifted", "settling") and d is not None and not d.placed \
            and len(d.origins) == 1:
        base["targets"] = base.get("targets", frozenset()) | _hints(s, next(iter(d.origins)))
    for name in ("origins", "targets", "to_remove", "execute_from", "execute_to",
                 "last_move", "check", "active_pads", "enemy_visible", "low_time",
                 "hint_from", "hint_to"):
        if name in base:
            base[name] = frozenset(base[name]) & allowed
    if "options" in base:
        base["options"] = tuple(o for o in base["options"] if o.spot in allowed)
    if base.get("height_display") is not None and base["height_display"][0] not in allowed:
        del base["height_display"]
    if "owners" in base:
        base["owners"] = {c: p for c, p in base["owners"].items() if c in allowed}
    if not message and phase == "turn" and fog.in_check and fog.turn == fog.player:
        message = Text("check")
    return message


def _hints(s: Snapshot, spot: int) -> frozenset[int]:
    """Where the viewer's piece lifted from ``spot`` (a cell, or his hand pad) may go,
    as far as he can know (:meth:`Sight.hints`): once per position and spot (the sight is
    the side to move's of the committed position, as the index is)."""
    memo = s.picture.index.memo
    hints = memo.get((_hints, spot))
    if hints is None:
        if spot < s.view.n_cells:
            hints = s.sight.hints(spot)
        else:
            pad = s.layout.spots[spot]
            hints = s.sight.hints(spot, pad.role, pad.owner, pad.piece)
        memo[(_hints, spot)] = hints
    return hints  # type: ignore[return-value]


def _exchange_prompt(s: Snapshot, base: dict[str, Any], frame: FrameLike | None) -> str:
    """Ask for the piece exchanged on its cell (Gnu Qi's Pawn -> Wazir): while the old
    piece stands there it blinks "take off"; once lifted, the cell asks for the new one."""
    cell = s.progress.exchange
    assert cell is not None
    piece = s.position.board[cell]
    name = s.layout.spots[cell].name
    what = Text("piece") if piece is None else s.game.piece_name(piece)
    off = frame is not None and not frame.occupied[cell]
    if base["phase"] == "turn":
        key = "missing" if off else "to_remove"
        base[key] = base.get(key, frozenset()) | {cell}
    if off:
        return Text("exchange the piece: put a {piece} on {cell}", piece=what, cell=name)
    return Text("exchange the piece on {cell} for a {piece}", piece=what, cell=name)


def token_spots(view: SensorView, token: str) -> set[int]:
    """The spots of a token's pads (one per player who may hold it)."""
    return {view.tracked[j] for (name, _), j in view.token_pads.items() if name == token}


def _facts(index: PositionIndex) -> tuple[frozenset[str], int, bool]:
    """The tokens (seen on pads) that moves may use, the sources of all moves (a mask of
    tracked spots), whether a die roll is due — once per position index, not per frame."""
    facts = index.memo.get(_facts)
    if facts is None:
        sources = 0
        for e in index.effects:
            sources |= e.source
        tokens = index.view.pad_tokens
        facts = index.memo[_facts] = (frozenset(m.token for m in index.moves
                                                if m.token in tokens), sources,
                                      any(m.kind == "roll" for m in index.moves))
    return facts  # type: ignore[return-value]


def _checked(s: Snapshot) -> bool:
    """Whether the side to move is in check, once per position index."""
    memo = s.picture.index.memo
    check = memo.get(_checked)
    if check is None:
        check = memo[_checked] = s.game.in_check(s.position, s.mover)
    return check  # type: ignore[return-value]


def _removal_message(s: Snapshot, to_remove: frozenset[int]) -> str:
    """The game's words while ``to_remove`` is marked to take off, decided by the moves
    that take them all: asked once per position and set of moves (the game may make each
    move to find out who is out; the victims lifted one by one leave the same moves)."""
    index = s.picture.index
    memo = index.memo
    moves = memo.get((_removal_message, to_remove))
    if moves is None:
        moves = memo[(_removal_message, to_remove)] = tuple(
            m for m in index.moves if to_remove <= set(m.captures))
    text = memo.get(moves)
    if text is None:
        text = memo[moves] = s.game.removal_message(s.position, list(moves))
    return text  # type: ignore[return-value]


def _active_pads(s: Snapshot) -> frozenset[int]:
    """Pads that may be used now: a usable token's holder's pad (or all its pads while
    the last move may still take it), reserve pads with a piece to place, the die pad."""
    view = s.view
    used, sources, roll = _facts(s.picture.index)
    pads = set()
    for token in used:
        j = view.token_pads.get((token, s.position.tokens.get(token)))
        if j is not None:
            pads.add(view.tracked[j])
    am = s.picture.amendable
    if am is not None:
        for token in {m.token for m in am[1]} & view.pad_tokens:
            pads |= token_spots(view, token)
    if s.progress.resuming:  # the question a resumed game asks: answered on the pads
        pads.update(view.option_pads)
    if s.progress.started and s.progress.outcome is None:  # a reserve piece may be placed now
        for j in view.reserve_pads.values():
            if sources >> j & 1:
                pads.add(view.tracked[j])
        if view.die_pad is not None and roll:
            pads.add(view.die_pad)  # a die roll is due
    return frozenset(pads)


def _not_a_move_text(s: Snapshot, missing: frozenset[int], extra: frozenset[int]) -> str:
    """A piece moved where it may not go: which move was seen, why it is not legal and
    what to do — said only when the picture is one piece moved from a cell to a cell
    (anything else: the lit cells say what is missing or extra)."""
    n = s.view.n_cells
    if len(missing) != 1 or len(extra) > 1:
        return ""
    a = next(iter(missing))
    pos = s.position
    if a >= n or pos.board[a] is None or (extra and next(iter(extra)) >= n):
        return ""
    game, spots = s.game, s.layout.spots
    fog = s.fog
    if fog is not None and fog.piece_at(a) is None:
        return ""  # never name a piece the player may not know
    piece = pos.board[a]
    name = piece_words(game, piece)
    cell = spots[a].name
    mover = game.ply_mover(pos)
    player = game.player_names[mover]
    if not extra:  # lifted and held: a piece that cannot move now
        if piece.owner != mover:
            return Text("it is {player}'s move: put the {piece} back on {cell}",
                        player=player, piece=name, cell=cell)
        if fog is None and not any(m.origin == a for m in s.picture.index.moves):
            return Text("the {piece} on {cell} has no legal move now: put it back on {cell}",
                        piece=name, cell=cell)
        return ""
    seen = dict(piece=name, cell=cell, to=spots[next(iter(extra))].name)
    if piece.owner != mover:
        return Text("{piece} {cell}–{to} is not a legal move: it is {player}'s move; put "
                    "it back on {cell}", player=player, **seen)
    if fog is not None:  # the reason may lie in what he cannot see
        return Text("{piece} {cell}–{to} is not a legal move: put it back on {cell}", **seen)
    if game.in_check(pos):
        return Text("{piece} {cell}–{to} is not a legal move: {player} is in check; put it "
                    "back on {cell}", player=player, **seen)
    if not any(m.origin == a for m in s.picture.index.moves):
        return Text("{piece} {cell}–{to} is not a legal move: it has no legal move now; put "
                    "it back on {cell}", **seen)
    return Text("{piece} {cell}–{to} is not a legal move: put it back on {cell} and lift "
                "it to see where it may go", **seen)


def _hand_pad_text(s: Snapshot, pads: frozenset[int]) -> str:
    """A capture that waits for the captured piece on the capturer's hand pad."""
    spot = s.layout.spots[min(pads)]
    owner = s.game.player_names[spot.owner] if spot.owner is not None else ""
    kind = s.game.piece_names.get(spot.piece or "", spot.piece or "piece")
    if not owner:
        return Text("put a {piece} from the box on its hand pad (a captured piece changes "
                    "colour)", piece=kind)
    return Text("put a {player} {piece} from the box on {player}'s {piece} hand pad (a "
                "captured piece changes colour)", player=owner, piece=kind)


def _guide_text(s: Snapshot, spot: int, extra: bool) -> str:
    """Guidance one piece at a time: what to do on ``spot``."""
    name = s.layout.spots[spot].name
    if extra:
        return Text("take the piece off {cell}", cell=name)
    pos = s.position
    if spot < s.view.n_cells:
        p = pos.board[spot]
        fog = s.fog
        # hidden: the cell, never what stands there
        if p is not None and fog is not None and fog.piece_at(spot) is None:
            return Text("put a piece on {cell}", cell=name)
        if p is not None:
            return Text("put the {piece} on {cell}", piece=piece_words(s.game, p), cell=name)
    return Text("put the piece back on {cell}", cell=name)


def piece_words(game: Game, piece: Piece) -> str:
    """A piece as the player says it: "White Rook", "Black Tower ×3" (never a letter; a
    stack as the page writes it)."""
    who = game.player_names[piece.owner] if piece.owner < game.players else ""
    kind = game.piece_names.get(piece.kind, piece.kind)
    named = Text("{player} {piece}", player=who, piece=kind) if who else kind
    return Text("{piece} ×{height}", piece=named, height=piece.height) if piece.height > 1 \
        else named
