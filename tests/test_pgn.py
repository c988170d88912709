"""PGN any chess program reads (issue #30, found 5): every exported chess and Chess960
game is read back with python-chess (a test-only GPL oracle) — the tags, every move
(python-chess's own SAN for it), the final position and the clocks; the variants carry
the same tags and their own move and position text, read back by the game itself."""

from __future__ import annotations

import io
import random
import re

import chess
import chess.pgn
import pytest

from controller.cli import main as cli_main
from controller.journal import Journal, encode_record, export_record, read_game
from controller.pgn import (
    PgnSeats,
    computer_name,
    game_pgn,
    pgn_clock,
    pgn_time_control,
    seats_from_record,
)
from controller.rules import GAMES, get_game

#: the seven tag roster, in the standard's order, then the tags every export has
ROSTER = ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
ALWAYS = ["Variant", "TimeControl", "Termination"]
BACK_RANK = "4r1k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"


def _record(tmp_path, name, moves, *, options=None, setup=None, clock=None, end=None,
            players=None, seconds=None):
    """A game written through the journal: ``moves`` in the game's notation, each with
    both seats' remaining seconds when ``seconds`` gives them."""
    game = get_game(name, **(options or {}))
    pos = game.parse_position(setup) if setup else game.start()
    writer = Journal(tmp_path).new_game(name, game.options, game.position_text(pos),
                                        players or list(game.player_names), clock=clock)
    for k, text in enumerate(moves):
        move = game.parse_move(pos, text)
        writer.move(game.move_text(pos, move), game.long_move_text(pos, move),
                    clock=seconds[k] if seconds else None)
        pos.push(move)
    if end:
        writer.end(*end)
    writer.close()
    return read_game(writer.path)


def _random_game(game, rng, plies, castle=True):
    """Legal moves from the start, castling whenever it is legal (to write it)."""
    pos = game.start()
    texts = []
    for _ in range(plies):
        moves = game.legal_moves(pos)
        if not moves:
            break
        castles = [m for m in moves if m.kind == "castle"]
        move = castles[0] if castle and castles else rng.choice(moves)
        texts.append(game.move_text(pos, move))
        pos.push(move)
    return texts, pos


def _read_chess(text):
    """python-chess's reading of one PGN game: it must find no error."""
    read = chess.pgn.read_game(io.StringIO(text))
    assert read is not None and read.errors == [], (read and read.errors, text)
    return read


def _tags(text):
    return re.findall(r'^\[(\w+) "', text, flags=re.M)


def test_a_chess_game_on_a_clock_against_the_computer_reads_back(tmp_path):
    rng = random.Random(5)
    game = get_game("chess")
    texts, final = _random_game(game, rng, 30)
    seconds = [[300.0 - 2.5 * k + 3, 300.0 - 2 * k] for k in range(len(texts))]
    record = _record(tmp_path, "chess", texts, clock="5+3", seconds=seconds,
                     end=("1-0", "resignation"))
    text = game_pgn(record, PgnSeats(("Ann", computer_name(6)), "5+3"))
    assert _tags(text)[:7] == ROSTER and set(ALWAYS) <= set(_tags(text))
    assert "SetUp" not in _tags(text)  # the standard start needs none
    read = _read_chess(text)
    h = read.headers
    assert (h["White"], h["Black"], h["Result"]) == ("Ann", "fairyboard level 6", "1-0")
    assert (h["Site"], h["Round"], h["Variant"]) == ("fairyboard", "-", "Standard")
    assert h["TimeControl"] == "300+3" and h["Termination"] == "normal"
    assert re.fullmatch(r"\d{4}\.\d\d\.\d\d", h["Date"])
    board = read.board()
    for node, ours in zip(read.mainline(), texts, strict=True):
        assert node.san() == ours
    nodes = list(read.mainline())
    assert len(nodes) == len(texts)
    assert nodes[-1].board().board_fen() == game.position_text(final).split()[0]
    for k, node in enumerate(nodes):  # the mover's clock after each move, whole seconds
        assert node.clock() == int(seconds[k][k % 2])
    assert board.fen() == chess.STARTING_FEN
    assert max(len(line) for line in text.splitlines()) < 80


@pytest.mark.parametrize("array", [0, 518, 959, 123, 700])
def test_chess960_games_read_back_with_their_set_up_and_castling(tmp_path, array):
    game = get_game("chess", chess960=True, array=array)
    for seed in range(50):  # the first game (of a fixed series) that castles
        texts, final = _random_game(game, random.Random(seed), 40)
        if any(t.startswith("O-O") for t in texts):
            break
    assert any(t.startswith("O-O") for t in texts)  # castling is written and read
    record = _record(tmp_path, "chess", texts, options={"chess960": True, "array": array})
    text = export_record(record)
    read = _read_chess(text)
    assert read.headers["Variant"] == "Chess960" and read.headers["Result"] == "*"
    if array != 518:
        assert read.headers["SetUp"] == "1" and read.headers["FEN"] == record.setup
    assert read.headers["TimeControl"] == "-" and read.headers["Termination"] == "unterminated"
    assert read.board().chess960
    assert [node.san() for node in read.mainline()] == texts
    last = list(read.mainline())[-1].board()
    assert last.board_fen() == game.position_text(final).split()[0]
    assert last.turn == (final.turn == 0)


def test_a_game_from_a_set_up_black_to_move_reads_back(tmp_path):
    """``[SetUp "1"]`` with its ``[FEN]`` (the old export wrote the position into SetUp,
    which no program reads), the first move numbered ``N...``, the mate and its result."""
    setup = "6k1/5ppp/8/8/8/8/r4PPP/6K1 b - - 0 31"
    record = _record(tmp_path, "chess", ["Ra1#"], setup=setup, end=("0-1", "checkmate"))
    text = export_record(record)
    assert "31... Ra1# 0-1" in text
    read = _read_chess(text)
    assert (read.headers["SetUp"], read.headers["FEN"]) == ("1", setup)
    assert [n.san() for n in read.mainline()] == ["Ra1#"]
    assert read.end().board().is_checkmate() and read.headers["Result"] == "0-1"


def test_clock_comments_between_moves_keep_the_numbering(tmp_path):
    record = _record(tmp_path, "chess", ["Rd7", "Re1#"], setup=BACK_RANK, clock="0.5+1",
                     seconds=[[29.0, 30.0], [29.0, 28.4]], end=("0-1", "checkmate"))
    text = export_record(record)
    assert "1. Rd7 {[%clk 0:00:29]} 1... Re1# {[%clk 0:00:28]} 0-1" in text
    read = _read_chess(text)
    assert read.headers["TimeControl"] == "30+1"
    assert [n.clock() for n in read.mainline()] == [29, 28]


def test_a_flag_is_a_time_forfeit_and_a_quote_in_a_name_reads_alike_everywhere(tmp_path):
    record = _record(tmp_path, "chess", ["e4"], clock="1", seconds=[[59.0, 60.0]],
                     end=("1-0", "time forfeit"))
    text = game_pgn(record, PgnSeats(('Ann "the rook" Lee', "Bo\\"), "1"))
    read = _read_chess(text)
    assert read.headers["Termination"] == "time forfeit"
    assert read.headers["White"] == "Ann 'the rook' Lee" and read.headers["Black"] == "Bo/"


@pytest.mark.parametrize(("control", "pgn"), [
    ("5", "300"), ("5+3", "300+3"), ("3+2", "180+2"), ("0.5+1", "30+1"),
    ("40/90:30+30", "40/5400+30:1800+30"), ("5d3", "300+3d"), ("1+0.5", "60+0.5"),
    (None, "-"), ("nonsense", "?")])
def test_time_controls_in_seconds(control, pgn):
    assert pgn_time_control(control) == pgn
    parsed = chess.pgn.parse_time_control(pgn)
    if control and pgn != "?":
        assert parsed.parts[0].time == {"300": 300, "180": 180, "30": 30, "40/5400": 5400,
                                        "60": 60}[pgn.split("+")[0].split(":")[0]]


def test_clock_readings():
    assert [pgn_clock(s) for s in (0, 59.9, 61, 3600, 3725.5, -1)] == [
        "0:00:00", "0:00:59", "0:01:01", "1:00:00", "1:02:05", "0:00:00"]


def _start_line(tmp_path, **fields):
    """A journal file whose start record carries ``fields`` (the seats, as the service
    will write them) besides the usual ones."""
    start = {"type": "start", "format": 2, "game": "chess", "options": {"chess960": False},
             "setup": get_game("chess").position_text(get_game("chess").start()),
             "players": ["White", "Black"], "date": "2026-12-01T20:00:00", **fields}
    path = tmp_path / "20261201-200000-chess.jsonl"
    path.write_bytes(encode_record(start) + encode_record({"type": "move", "move": "e4"}))
    return read_game(path)


def test_the_seats_come_from_the_start_record(tmp_path):
    game = get_game("chess")
    legacy = _start_line(tmp_path)  # only the colours: nobody's name is known
    assert seats_from_record(legacy, game) == PgnSeats(("?", "?"), None)
    computer = _start_line(tmp_path, seats={"computer": [1], "level": 6}, clock="5+3")
    assert seats_from_record(computer, game) == PgnSeats(("?", "fairyboard level 6"), "5+3")
    seats = _start_line(tmp_path, players=["Ann", "Black"],
                        seats={"computer": [1], "level": 3, "coach": True})
    assert seats_from_record(seats, game).names == ("Ann", "fairyboard level 3")
    named = _start_line(tmp_path, players=["Ann", "Bo"])
    read = _read_chess(export_record(named))
    assert (read.headers["White"], read.headers["Black"]) == ("Ann", "Bo")
    read = _read_chess(export_record(computer))
    assert read.headers["Black"] == "fairyboard level 6"
    assert read.headers["TimeControl"] == "300+3"


VARIANTS = [name for name in GAMES if name != "chess"]


@pytest.mark.parametrize("name", VARIANTS)
def test_the_variants_carry_the_same_tags_and_their_own_notation(tmp_path, name):
    game = get_game(name)
    texts, final = _random_game(game, random.Random(3), 24, castle=False)
    seconds = [[600.0 - k, 599.5 - k] for k in range(len(texts))]
    record = _record(tmp_path, name, texts, clock="10", seconds=seconds)
    text = export_record(record)
    tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', text, flags=re.M))
    assert _tags(text)[:7] == ROSTER and set(ALWAYS) <= set(tags)
    assert tags["Variant"] == game.title and tags["TimeControl"] == "600"
    if "SetUp" in tags:
        assert tags["FEN"] == record.setup
    # the movetext read back: numbers, comments and the result left out, the moves are
    # the game's own, and they replay to the same position
    body = text.split("\n\n", 1)[1]
    tokens = re.sub(r"\{[^}]*\}", " ", body).split()
    assert tokens[-1] == "*"
    moves = [t for t in tokens[:-1] if not re.fullmatch(r"\d+\.(\.\.)?", t)]
    assert moves == texts
    pos = game.parse_position(tags.get("FEN", game.position_text(game.start())))
    for move in moves:
        pos.push(game.parse_move(pos, move))
    assert game.position_text(pos) == game.position_text(final)
    assert text.count("[%clk ") == len(texts)


def test_games_export_prints_pgn_of_one_or_every_game(tmp_path, capsys):
    _record(tmp_path, "chess", ["e4", "e5"], end=("1/2-1/2", "agreement"))
    _record(tmp_path, "chess", ["d4"], setup=None)
    assert cli_main(["games", "export", "--journal", str(tmp_path), "--all"]) == 0
    out = capsys.readouterr().out
    stream = io.StringIO(out)
    first, second = chess.pgn.read_game(stream), chess.pgn.read_game(stream)
    assert chess.pgn.read_game(stream) is None
    assert [n.san() for n in first.mainline()] == ["e4", "e5"]
    assert first.headers["Result"] == "1/2-1/2" and second.headers["Result"] == "*"
    assert cli_main(["games", "export", "--journal", str(tmp_path)]) == 2
    assert "game ids" in capsys.readouterr().err


def test_an_unfinished_hidden_information_game_is_not_exported(tmp_path, capsys):
    """As the page's archive: a Lao Tzu game still under way would show each player what
    he may not see (the other's moves); named it is refused in one line, ``--all`` skips
    it and says so; once ended it is exported."""
    _record(tmp_path, "chess", ["e4", "e5"], end=("1/2-1/2", "agreement"))
    secret = _record(tmp_path, "laotzu", ["e4", "e5", "Nf3"])
    assert cli_main(["games", "export", "--journal", str(tmp_path), secret.id]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert f"game {secret.id} hides information from its players and has not ended" in err
    assert cli_main(["games", "export", "--journal", str(tmp_path), "--all"]) == 0
    out, err = capsys.readouterr()
    assert "Nf3" not in out and "Lao" not in out and "e4 e5" in out
    assert err.strip() == f"not exported (hidden information, not ended yet): {secret.id}"
    ended = _record(tmp_path, "laotzu", ["e4", "e5"], end=("0-1", "resignation"))
    assert cli_main(["games", "export", "--journal", str(tmp_path), ended.id]) == 0
    assert "1. e4 e5 0-1" in capsys.readouterr().out
