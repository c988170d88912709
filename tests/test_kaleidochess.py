"""KaleidoChess rules: the worked examples of kaleidochess.md §9 and DECISIONS.md."""

from __future__ import annotations

import random
from collections import deque

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.cli import main as cli_main
from controller.rules import IllegalMoveError, PositionError, RulesError, get_game
from controller.rules.core import Move, Piece
from controller.rules.kaleidochess import (
    DICE_TABLE,
    KINDS,
    PIECE_TYPES,
    G,
    KaleidoChess,
    destinations,
    enumerate_paths,
)

RING = G.attributes["ring"]
LETTER = G.attributes["letter"]
CENTRE = G.cell("00")
NON_WIZARDS = [k for k in KINDS if k != "W"]


def cell(name: str) -> int:
    return G.cell(name)


def names(cells) -> set[str]:
    return {G.cells[c] for c in cells}


def alone(kind: str, field: str) -> list[Piece | None]:
    board: list[Piece | None] = [None] * len(G.cells)
    board[cell(field)] = Piece(0, kind)
    return board


def empty_destinations(kind: str, field: str) -> set[str]:
    return names(destinations(alone(kind, field), cell(field)))


def position(game: KaleidoChess, pieces: str, turn: str = "w", rest: str = "- - - 0 1"):
    """A position from ``"1J=wW 5J=bW …"`` (spaces allowed) and the remaining parts."""
    return game.parse_position(f"{','.join(pieces.split())} {turn} {rest}")


def reference_destinations(board: list[Piece | None], origin: int) -> set[int]:
    """The reference algorithm of kaleidochess.md §4.6, written out literally."""
    pt = PIECE_TYPES[board[origin].kind]
    result: set[int] = set()

    def dfs(path: list[int], changes: int) -> None:
        cur = path[-1]
        if len(path) - 1 == pt.steps:
            if cur != origin:
                result.add(cur)
            return
        for nxt in G.side[cur] + (G.corner[cur] if pt.flies else ()):
            if nxt in path:
                continue
            c = changes + (RING[nxt] != RING[cur])
            if not pt.ring_free and c > 1:
                continue
            is_last = len(path) == pt.steps
            if not pt.flies and not is_last and board[nxt] is not None:
                continue
            dfs(path + [nxt], c)

    dfs([origin], 0)
    return result


# --- §9.2: the whole table of empty-board destination counts ---------------------------

COLUMNS = "WDREVLTHP"  # wizard dragon roc eagle raven elephant tiger horse pawn
COUNTS = {
    "00": (40, 8, 8, 8, 8, 8, 8, 8, 8),
    "A": (45, 18, 15, 11, 7, 14, 13, 9, 5),
    "B": (43, 19, 15, 11, 7, 12, 10, 7, 4),
    "C": (43, 19, 15, 11, 7, 12, 10, 7, 4),
    "D": (37, 23, 18, 13, 8, 17, 13, 9, 5),
    "E": (37, 23, 18, 13, 8, 17, 13, 9, 5),
    "F": (30, 19, 15, 11, 7, 13, 10, 7, 4),
    "G": (28, 19, 15, 11, 7, 14, 11, 8, 5),
    "H": (30, 19, 15, 11, 7, 13, 10, 7, 4),
    "I": (23, 11, 9, 7, 5, 6, 5, 4, 3),
    "J": (25, 11, 9, 7, 5, 6, 5, 4, 3),
    "K": (23, 11, 9, 7, 5, 6, 5, 4, 3),
}
SUMS = {"W": 2952, "D": 1544, "R": 1232, "E": 912, "V": 592,
        "L": 1048, "T": 848, "H": 608, "P": 368}


@pytest.mark.parametrize("kind", COLUMNS)
def test_empty_board_counts_from_every_field(kind: str) -> None:
    col = COLUMNS.index(kind)
    total = 0
    for c, field in enumerate(G.cells):
        n = len(destinations(alone(kind, field), c))
        assert n == COUNTS[LETTER[c] or "00"][col], (kind, field)
        total += n
    assert total == SUMS[kind]


def test_pawn_and_raven_sums_are_contact_counts() -> None:
    side = sum(map(len, G.side)) // 2
    corner = sum(map(len, G.corner)) // 2
    assert (side, corner) == (184, 112)
    assert SUMS["P"] == 2 * side and SUMS["V"] == 2 * (side + corner)


# --- §9.2: other model-specific examples ---------------------------------------------


def test_wizard_1B_to_2F_on_empty_board() -> None:
    assert "2F" in empty_destinations("W", "1B")
    assert (cell("1B"), cell("1C"), cell("1E"), cell("2F")) in set(
        enumerate_paths(cell("1B"), 3, True, True))


def test_from_the_centre() -> None:
    ring1 = {f"{s}A" for s in range(1, 9)}
    for kind in NON_WIZARDS:
        assert empty_destinations(kind, "00") == ring1
    rings_1_to_3 = {G.cells[c] for c in range(len(G.cells)) if 1 <= RING[c] <= 3}
    assert len(rings_1_to_3) == 40
    assert empty_destinations("W", "00") == rings_1_to_3


def test_pieces_on_1J() -> None:
    assert empty_destinations("P", "1J") == {"1G", "1I", "1K"}
    assert empty_destinations("V", "1J") == {"1F", "1G", "1H", "1I", "1K"}
    assert empty_destinations("H", "1J") == {"1F", "1H", "2I", "8K"}
    assert empty_destinations("E", "1J") == {"1F", "1G", "1H", "2F", "2I", "8H", "8K"}


def test_dragon_on_1A() -> None:
    expected = {"00", "1B", "1C", "2B", "2C", "3B", "3C", "4B", "4C", "5A", "5B", "5C",
                "6B", "6C", "7B", "7C", "8B", "8C"}
    assert empty_destinations("D", "1A") == expected


def test_lone_wizard_on_outer_castle_reaches_no_castle() -> None:
    castles = names(G.tags["castle"])
    for home in ("1J", "3J", "5J", "7J"):
        assert not empty_destinations("W", home) & castles


def test_perft_2_agrees_with_the_reference_algorithm() -> None:
    game = KaleidoChess()
    pos = game.start()
    total = 0
    for move in game.legal_moves(pos):
        pos.push(move, record=False)
        ban = pos.state.get(f"ban{pos.turn}")
        if not any(pos.board[c] and pos.board[c].owner == 0 for c in G.tags["castle"]):
            pos.pop()  # White gave up his only castle (the wizard moved): game over
            continue
        total += sum(len(reference_destinations(pos.board, c) - {ban[1] if ban and ban[0] == c
                                                                 else -1})
                     for c, p in enumerate(pos.board) if p and p.owner == pos.turn)
        pos.pop()
    assert total == game.perft(pos, 2)


def test_130_first_moves_with_the_provisional_setup() -> None:
    game = KaleidoChess()
    pos = game.start()
    moves = game.legal_moves(pos)
    assert len(moves) == 130
    assert len({(m.origin, m.target) for m in moves}) == 130


# --- §9.1: certain examples --------------------------------------------------------------


def test_ring_reach() -> None:
    for kind in NON_WIZARDS:
        for c, field in enumerate(G.cells):
            for t in destinations(alone(kind, field), c):
                assert abs(RING[t] - RING[c]) <= 1, (kind, field, G.cells[t])
    assert any(RING[t] == 2 for t in destinations(alone("W", "1J"), cell("1J")))


def test_leaving_the_centre() -> None:
    for kind in NON_WIZARDS:
        pt = PIECE_TYPES[kind]
        for path in enumerate_paths(CENTRE, pt.steps, pt.flies, pt.ring_free):
            assert all(RING[c] == 1 for c in path[1:]), (kind, path)
    # the dragon flies out and then three steps along ring 1
    dragon_paths = list(enumerate_paths(CENTRE, 4, True, False))
    assert dragon_paths and all(len(p) == 5 for p in dragon_paths)


def test_entering_the_centre() -> None:
    for kind in NON_WIZARDS:
        pt = PIECE_TYPES[kind]
        for start in range(1, len(G.cells)):
            for path in enumerate_paths(start, pt.steps, pt.flies, pt.ring_free):
                if CENTRE in path:
                    assert path[-1] == CENTRE and all(RING[c] == 1 for c in path[:-1])
    for kind in "PHE":
        for c, field in enumerate(G.cells):
            if CENTRE in destinations(alone(kind, field), c):
                assert RING[c] == 1


def test_race_to_the_centre() -> None:
    outer = [c for c in range(len(G.cells)) if RING[c] == 5]
    for kind in NON_WIZARDS:  # breadth-first over empty-board moves
        dist = {c: 0 for c in outer}
        queue = deque(outer)
        while queue:
            c = queue.popleft()
            for t in destinations(alone(kind, G.cells[c]), c):
                if t not in dist:
                    dist[t] = dist[c] + 1
                    queue.append(t)
        assert dist[CENTRE] >= 5, kind
    # the wizard: never in one move, always in two (it flies, so nothing stands in the way)
    full = [Piece(1, "P")] * len(G.cells)
    for c in outer:
        board = list(full)
        board[c] = Piece(0, "W")
        first = destinations(board, c)
        assert CENTRE not in first
        assert any(RING[d] == 2 and CENTRE in destinations(alone("W", G.cells[d]), d)
                   for d in first)


def test_pawns_and_flyers_cannot_be_blocked() -> None:
    # every field of the board occupied: pawns and flyers still have at least two moves
    for kind in "PWDREV":
        for c in range(len(G.cells)):
            board = [Piece(1, "T")] * len(G.cells)
            board[c] = Piece(0, kind)
            assert len(destinations(board, c)) >= 2, (kind, G.cells[c])
    # an army of a horse only can be blocked; that player loses (2 players)
    game = KaleidoChess()
    pos = position(game, "1G=bT 1I=bT 1J=wH 1K=bT 5J=bW")
    assert game.legal_moves(pos) == []
    assert game.outcome(pos) == (
        (1,), "blocked")
    # the same army plus one pawn is not blocked
    pos = position(game, "1G=bT 1I=bT 1J=wH 1K=bT 5J=bW 3A=wP")
    assert game.legal_moves(pos) and game.outcome(pos) is None


def test_surrounded_walkers() -> None:
    for kind in "HTL":
        board = [None] * len(G.cells)
        board[cell("1J")] = Piece(0, kind)
        for f in ("1G", "1I", "1K"):
            board[cell(f)] = Piece(f == "1G", "P")
        assert destinations(board, cell("1J")) == []
    board[cell("1J")] = Piece(0, "P")
    assert names(destinations(board, cell("1J"))) == {"1G", "1I", "1K"}


def test_exact_length() -> None:
    board = [None] * len(G.cells)
    for f in ("1A", "3A", "6A"):
        board[cell(f)] = Piece(1, "P")
    for kind, expected in (("L", set()), ("T", {"1A", "3A", "6A"}),
                           ("H", {"1A", "3A", "4A", "5A", "6A", "7A", "8A"})):
        board[CENTRE] = Piece(0, kind)
        assert names(destinations(board, CENTRE)) == expected, kind


def test_take_back_rule() -> None:
    game = KaleidoChess()
    pos = position(game, "1D=wR 1J=wW 3A=wP 5J=bW 5A=bP")
    pos.push(game.parse_move(pos, "1D-1C"))
    pos.push(game.parse_move(pos, "5A-4A"))
    texts = {game.move_text(pos, m) for m in game.legal_moves(pos)}
    assert "1C-1D" not in texts  # the exact reverse is banned on the next turn
    assert "1C-2E" in texts  # the roc may go elsewhere
    with pytest.raises(IllegalMoveError):
        game.parse_move(pos, "1C-1D")
    pos.push(game.parse_move(pos, "3A-3B"))  # another White move in between …
    pos.push(game.parse_move(pos, "4A-4B"))  # (4A-5A would be his take-back)
    assert "1C-1D" in {game.move_text(pos, m) for m in game.legal_moves(pos)}


def test_take_back_ban_is_for_that_piece_only() -> None:
    game = KaleidoChess()
    pos = position(game, "1D=wR 1B=wV 1J=wW 5J=bW 5A=bP")
    pos.push(game.parse_move(pos, "1D-1C"))
    pos.push(game.parse_move(pos, "5A-4A"))
    texts = {game.move_text(pos, m) for m in game.legal_moves(pos)}
    assert "1B-1D" in texts and "1C-1D" not in texts  # another piece may move to X
    assert game.position_text(pos).split()[4] == "w:1C-1D,b:4A-5A"


def test_take_back_ban_ends_when_the_piece_is_captured() -> None:
    game = KaleidoChess()
    pos = position(game, "1D=wR 1J=wW 5J=bW 3A=bE")
    pos.push(game.parse_move(pos, "1D-1C"))
    assert game.position_text(pos).split()[4] == "w:1C-1D"
    pos.push(game.parse_move(pos, "3A+1C"))
    assert game.position_text(pos).split()[4] == "b:1C-3A"


def test_own_capture() -> None:
    game = KaleidoChess()
    pos = position(game, "1B=wW 2F=wV 00=wP 5J=bW")
    move = game.parse_move(pos, "1B+2F")
    assert move.captures == (cell("2F"),) and move.piece == Piece(0, "W")
    assert game.long_move_text(pos, move) == "wizard from 1B knocks out own raven at 2F"
    pos.push(move)
    assert pos.board[cell("2F")] == Piece(0, "W") and pos.board[cell("1B")] is None
    assert game.outcome(pos) is None


def test_own_capture_on_a_castle_keeps_it() -> None:
    game = KaleidoChess()
    pos = position(game, "1J=wW 1K=wV 5J=bW")
    pos.push(game.parse_move(pos, "1K+1J"))
    assert game.outcome(pos) is None and pos.board[cell("1J")] == Piece(0, "V")


def test_capitulation() -> None:
    game = KaleidoChess()
    pos = position(game, "1J=wW 5J=bW 1A=wP", turn="b")
    moves = game.legal_moves(pos)
    assert moves and all(m.origin == cell("5J") for m in moves)
    for m in moves:
        pos.push(m)
        assert game.outcome(pos) == ((0,), "capitulation")
        assert game.legal_moves(pos) == []
        pos.pop()


def test_castle_taken() -> None:
    game = KaleidoChess()
    pos = position(game, "1J=wW 5J=bW 5G=wV")
    pos.push(game.parse_move(pos, "5G+5J"))
    assert game.outcome(pos) == ((0,), "no castle left")


# --- notation ---------------------------------------------------------------------------


def test_notation_and_long_form() -> None:
    game = KaleidoChess()
    pos = position(game, "1B=wW 1J=wR 5J=bW")
    move = game.parse_move(pos, "1B-2F")
    assert game.long_move_text(pos, move) == "wizard from 1B goes to 2F"
    assert game.parse_move(pos, "wizard from 1B goes to 2F") == move
    pos = position(game, "1B=wW 1J=wR 5J=bW 2F=bV")
    move = game.parse_move(pos, "1B+2F")
    assert game.long_move_text(pos, move) == "wizard from 1B knocks out raven at 2F"
    with pytest.raises(IllegalMoveError):
        game.parse_move(pos, "1B-2F")
    pos = position(game, "00=wD 1J=wR 5J=bW")
    assert {game.move_text(pos, m) for m in game.legal_moves(pos) if m.origin == CENTRE} == {
        f"00-{s}A" for s in range(1, 9)}


# --- position text ----------------------------------------------------------------------


def test_start_position_text() -> None:
    game = KaleidoChess()
    text = game.position_text(game.start())
    assert text.endswith(" w - - - 0 1")
    assert "1J=wW" in text and "5J=bW" in text and "1G=wD" in text and "5G=bD" in text
    assert game.position_text(game.parse_position(text)) == text


@pytest.mark.parametrize("text, problem", [
    ("1A=wW,5A=bW w - - - 0 1", "castle"),
    ("1J=wW,5J=bW w - - -", "7 parts"),
    ("1J=wW,5J=bX w - - - 0 1", "piece"),
    ("1J=wW,5J=rW w - - - 0 1", "colour"),
    ("1J=wW,9J=bW w - - - 0 1", "field"),
    ("1J=wW,1J=bW w - - - 0 1", "twice"),
    ("1J=wW,5J=bW w - 3 - 0 1", "dice"),
    ("1J=wW,5J=bW w - - w:2D-1D 0 1", "no piece"),
    ("1J=wW,5J=bW w b - - 0 1", "out"),
    ("1J=wW,5J=bW w - - - x 1", "counters"),
])
def test_bad_position_texts(text: str, problem: str) -> None:
    with pytest.raises(PositionError, match=problem):
        KaleidoChess().parse_position(text)


def test_bad_multiplayer_position_texts() -> None:
    game = KaleidoChess(players=3)
    with pytest.raises(PositionError, match="holds no castle"):
        game.parse_position("1J=wW,3J=rW,5A=bW w - - - 0 1")
    with pytest.raises(PositionError, match="is out but has pieces"):
        game.parse_position("1J=wW,3J=rW,5J=bW w b - - 0 1")
    with pytest.raises(PositionError, match="cannot be to move"):
        game.parse_position("1J=wW,3J=rW b b - - 0 1")


# --- options ----------------------------------------------------------------------------


def test_options() -> None:
    assert get_game("kaleidochess").player_names == ("White", "Black")
    assert get_game("kaleidochess", players=3).player_names == ("White", "Red", "Black")
    four = get_game("kaleidochess", players=4)
    assert four.player_names == ("White", "Red", "Black", "Green") and four.players == 4
    assert "house" in four.provisional and "2-player" not in four.provisional
    assert "dice" not in four.provisional
    assert "dice" in get_game("kaleidochess", dice=True).provisional
    assert KaleidoChess().provisional
    for bad in ({"players": 5}, {"players": True}, {"dice": "yes"}, {"move_cap": 0},
                {"repetition_ban": 1}, {"colour": "red"}):
        with pytest.raises(RulesError):
            get_game("kaleidochess", **bad)


def test_move_cap() -> None:
    game = KaleidoChess(move_cap=2)
    pos = game.start()
    for _ in range(2):
        assert game.outcome(pos) is None
        pos.push(game.legal_moves(pos)[0])
    assert game.outcome(pos) == ((), "move cap")
    assert game.legal_moves(pos) == []


def test_repetition_ban() -> None:
    cycle = ["1D-1C", "5D-5C", "1C-2E", "5C-6E", "2E-1D", "6E-5D"]
    for ban in (False, True):
        game = KaleidoChess(repetition_ban=ban)
        pos = position(game, "1D=wR 1J=wW 5D=bR 5J=bW")
        for text in cycle[:-1]:
            pos.push(game.parse_move(pos, text))
        texts = {game.move_text(pos, m) for m in game.legal_moves(pos)}
        assert ("6E-5D" in texts) is not ban
        assert len(texts) > 1


# --- three and four players ----------------------------------------------------------------


def test_house_setups() -> None:
    game = KaleidoChess(players=3)
    pos = game.start()
    red = {G.cells[c]: p.kind for c, p in enumerate(pos.board) if p and p.owner == 1}
    assert red == {"3J": "W", "3G": "D", "3I": "R", "3K": "R", "4I": "E", "2K": "E",
                   "3F": "P", "3H": "P", "4F": "P", "2H": "P"}
    assert {p.owner for p in pos.board if p} == {0, 1, 2}
    game4 = KaleidoChess(players=4)
    pos4 = game4.start()
    counts = [sum(1 for p in pos4.board if p and p.owner == k) for k in range(4)]
    assert counts == [10, 10, 10, 10]
    assert pos4.board[cell("7J")] == Piece(3, "W") and pos4.board[cell("6K")] == Piece(3, "E")
    # turn order W, R, B, G
    order = []
    for _ in range(5):
        order.append(game4.player_names[pos4.turn])
        pos4.push(game4.legal_moves(pos4)[0])
    assert order == ["White", "Red", "Black", "Green", "White"]
    assert pos4.fullmove == 2 and pos4.halfmove == 5


def test_elimination_by_castle_capture() -> None:
    game = KaleidoChess(players=3)
    pos = position(game, "1J=wW 3J=rW 3A=rP 2A=rT 5J=bW 3G=wV")
    move = game.parse_move(pos, "3G+3J")
    assert set(move.captures) == {cell("3J"), cell("3A"), cell("2A")}
    assert move.captures[0] == cell("3J")
    assert game.long_move_text(pos, move) == (
        "raven from 3G knocks out Red wizard at 3J; Red out")
    pos.push(move)
    assert all(p is None or p.owner != 1 for p in pos.board)
    assert game.position_text(pos).split()[1:4] == ["b", "r", "-"]
    assert game.outcome(pos) is None
    pos.push(game.legal_moves(pos)[0])
    assert pos.turn == 0  # Red is skipped
    pos.pop()
    pos.pop()
    assert game.position_text(pos).split()[2] == "-"


def test_multiplayer_capitulation_removes_the_mover() -> None:
    game = KaleidoChess(players=3)
    pos = position(game, "1J=wW 3J=rW 3A=rP 5J=bW", turn="r")
    move = game.parse_move(pos, "3J-3G")
    assert move.piece is None and set(move.captures) == {cell("3G"), cell("3A")}
    pos.push(move)
    assert pos.board[cell("3G")] is None and pos.board[cell("3A")] is None
    assert game.out_players(pos) == (1,) and pos.turn == 2


def test_elimination_by_blocking_and_last_player() -> None:
    game = KaleidoChess(players=3)
    pos = position(game, "1J=wW 3J=rH 3G=wP 3I=bP 3K=bP 5J=bW", turn="r")
    moves = game.legal_moves(pos)
    assert moves == [Move("pass", captures=(cell("3J"),))]
    assert game.move_text(pos, moves[0]) == "pass"
    assert game.long_move_text(pos, moves[0]) == "Red cannot move and is out"
    pos.push(moves[0])
    assert game.out_players(pos) == (1,) and pos.turn == 2
    assert pos.board[cell("3J")] is None
    assert game.outcome(pos) is None
    # Black now loses his only castle piece: White is the last player left
    pos = position(game, "1J=wW 5J=bW 5G=wV", rest="r - - 7 3")
    pos.push(game.parse_move(pos, "5G+5J"))
    assert game.outcome(pos) == ((0,), "last player left")
    assert game.legal_moves(pos) == []


def test_four_players_two_out_turn_order() -> None:
    game = KaleidoChess(players=4)
    pos = position(game, "1J=wW 5J=bW 7J=gW 7A=gP", turn="g", rest="r - - 0 1")
    pos.push(game.parse_move(pos, "7A-8A"))
    assert pos.turn == 0 and pos.fullmove == 2
    pos.push(game.parse_move(pos, "1J-1I"))  # White capitulates and is out
    assert game.out_players(pos) == (0, 1) and pos.turn == 2
    assert game.outcome(pos) is None


# --- dice variant -----------------------------------------------------------------------


def test_dice_rolls_then_allowed_pieces() -> None:
    game = KaleidoChess(dice=True)
    pos = game.start()
    rolls = game.legal_moves(pos)
    assert [m.kind for m in rolls] == ["roll"] * 6
    assert [game.move_text(pos, m) for m in rolls] == [f"die:{n}" for n in range(1, 7)]
    plain = KaleidoChess().legal_moves(KaleidoChess().start())
    for n, roll in enumerate(rolls, start=1):
        pos.push(roll)
        assert pos.turn == 0 and game.position_text(pos).split()[3] == str(n)
        moves = game.legal_moves(pos)
        assert moves == [m for m in plain if m.piece.kind in DICE_TABLE[n]]
        assert all(pos.board[m.origin].kind in DICE_TABLE[n] for m in moves)
        pos.pop()


def test_dice_forced_move() -> None:
    game = KaleidoChess(dice=True)
    # roll 5: only the wizard may move, and every wizard move leaves the last castle
    pos = position(game, "1J=wW 1A=wP 5J=bW", rest="- 5 - 0 1")
    moves = game.legal_moves(pos)
    assert moves and all(m.origin == cell("1J") for m in moves)
    pos.push(moves[0])
    assert game.outcome(pos) == ((1,), "capitulation")


def test_dice_pass_ends_take_back_ban() -> None:
    game = KaleidoChess(dice=True)
    pos = position(game, "1J=wW 2D=wR 5J=bW", rest="- 1 w:2D-1D 4 3")
    moves = game.legal_moves(pos)  # no pawn or raven: nothing may move
    assert moves == [Move("pass")]
    assert game.long_move_text(pos, moves[0]) == "White passes"
    pos.push(moves[0])
    assert game.position_text(pos) == "2D=wR,1J=wW,5J=bW b - - - 5 3"
    assert game.outcome(pos) is None


def test_dice_blocked_player_does_not_lose() -> None:
    game = KaleidoChess(dice=True)
    pos = position(game, "1G=bT 1I=bT 1J=wH 1K=bT 5J=bW")
    for roll in game.legal_moves(pos):
        pos.push(roll)
        assert game.legal_moves(pos) == [Move("pass")]
        assert game.outcome(pos) is None
        pos.pop()
    multi = KaleidoChess(players=3, dice=True)
    pos = position(multi, "1J=wW 3J=rH 3G=wP 3I=bP 3K=bP 5J=bW", turn="r", rest="- 2 - 0 1")
    assert multi.legal_moves(pos) == [Move("pass")]


# --- properties -------------------------------------------------------------------------

boards = st.dictionaries(
    st.integers(0, len(G.cells) - 1),
    st.tuples(st.integers(0, 1), st.sampled_from(KINDS)),
    max_size=70,
)


@settings(max_examples=60, deadline=None)
@given(boards)
def test_generator_matches_reference_algorithm(placed: dict) -> None:
    board: list[Piece | None] = [None] * len(G.cells)
    for c, (owner, kind) in placed.items():
        board[c] = Piece(owner, kind)
    for c, p in enumerate(board):
        if p is not None:
            dests = destinations(board, c)
            assert len(dests) == len(set(dests))
            assert set(dests) == reference_destinations(board, c), (G.cells[c], p)
            if p.kind in "PWDREV":
                assert len(dests) >= 2


VARIANTS = [
    {}, {"players": 3}, {"players": 4}, {"dice": True}, {"players": 4, "dice": True},
    {"repetition_ban": True}, {"players": 3, "move_cap": 30},
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(VARIANTS))), st.integers(0, 2**32 - 1))
def test_random_games_round_trip_and_undo(variant: int, seed: int) -> None:
    """Along a random game: text round-trips, push/pop restores the snapshot, the moves
    agree with the reference algorithm, and the captures explain every board change."""
    game = KaleidoChess(**VARIANTS[variant])
    rng = random.Random(seed)
    pos = game.start()
    for _ in range(60):
        text = game.position_text(pos)
        again = game.parse_position(text)
        assert game.position_text(again) == text
        assert again.snapshot() == pos.snapshot()
        moves = game.legal_moves(pos)
        if not moves:
            assert game.outcome(pos) is not None
            break
        allowed = game.allowed_kinds(pos)
        ban = pos.state.get(f"ban{pos.turn}")
        if moves[0].kind == "move" and not game.repetition_ban:
            expected = {(c, t) for c, p in enumerate(pos.board)
                        if p and p.owner == pos.turn and p.kind in allowed
                        for t in reference_destinations(pos.board, c) if (c, t) != ban}
            assert {(m.origin, m.target) for m in moves} == expected
        before = pos.snapshot()
        move = rng.choice(moves)
        out = game.out_players(pos)
        for _ in range(8):  # mostly avoid moves that end the game or drop a player
            pos.push(move, record=False)
            over = game.outcome(pos) is not None or game.out_players(pos) != out
            pos.pop()
            if not over or rng.random() < 0.1:
                break
            move = rng.choice(moves)
        old = list(pos.board)
        pos.push(move)
        for c in range(len(G.cells)):  # every change is announced by the move
            if old[c] != pos.board[c]:
                assert c in (move.origin, move.target) or c in move.captures
        if move.kind == "move":
            assert pos.board[move.target] == move.piece
        pos.pop()
        assert pos.snapshot() == before
        pos.push(move)


# --- command line -----------------------------------------------------------------------


def test_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["moves", "--game", "kaleidochess"]) == 0
    lines = capsys.readouterr().out.split()
    assert len(lines) == 130 and "1F-1D" in lines
    assert cli_main(["moves", "--game", "kaleidochess", "--dice"]) == 0
    assert capsys.readouterr().out.split() == [f"die:{n}" for n in range(1, 7)]
    assert cli_main(["perft", "--game", "kaleidochess", "--players", "4", "--depth", "1"]) == 0
    four = int(capsys.readouterr().out)
    assert four == len(KaleidoChess(players=4).legal_moves(KaleidoChess(players=4).start()))
    assert cli_main(["show", "--game", "kaleidochess", "--players", "3", "--dice",
                     "--moves", "die:6", "1F-1D"]) == 0
    out = capsys.readouterr().out
    assert "house" in out and "Red to move" in out and "die: to roll" in out
    assert cli_main(["moves", "--game", "kaleidochess", "--players", "5"]) == 2
    assert "players" in capsys.readouterr().err
