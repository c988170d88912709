"""The command line: moves / perft / show, bad input gets one line and exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from controller.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_moves_lists_one_per_line(capsys):
    code, out, _ = run(capsys, "moves", "--game", "luotuoqi")
    assert code == 0
    assert len(out.splitlines()) == 18 and "Mb1-c3" in out.splitlines()


def test_moves_json(capsys):
    pos = "7k/8/8/8/8/8/1D6/K7 w - b 0 1"
    code, out, _ = run(capsys, "moves", "--game", "luotuoqi", "--position", pos, "--json")
    assert code == 0
    data = json.loads(out)
    assert {"from", "to", "captured", "kind", "notation"} <= set(data[0])
    assert any(m["from"] == "b2" and m["to"] == "g7" for m in data)


def test_perft_last_line_is_the_count(capsys):
    code, out, _ = run(capsys, "perft", "--game", "luotuoqi", "--depth", "2")
    assert code == 0 and out.splitlines()[-1] == "648"
    code, out, _ = run(capsys, "perft", "--game", "luotuoqi", "--depth", "2", "--divide")
    assert out.splitlines()[-1] == "648" and "Mb1-c3: 36" in out


def test_perft_counts_the_cube_second_move_as_a_ply(capsys):
    # After a Cube-using first move the same player moves again as the next ply.
    pos = "4k3/8/8/8/8/8/8/M3K3 w - w 0 1"
    code, out, _ = run(capsys, "perft", "--game", "luotuoqi", "--position", pos, "--depth", "1")
    first = int(out.splitlines()[-1])
    code, out, _ = run(capsys, "moves", "--game", "luotuoqi", "--position", pos)
    assert first == len(out.splitlines()) and any(t.endswith("+cube") for t in out.split())


def test_show_draws_the_board(capsys):
    code, out, _ = run(capsys, "show", "--game", "luotuoqi", "--moves", "Ea2-b3")
    assert code == 0
    assert " 8   r  m  d t8" in out and "Black to move" in out and "Cube: Black" in out


@pytest.mark.parametrize("args,needle", [
    (["moves", "--game", "chess"], "unknown game 'chess'"),
    (["moves", "--game", "luotuoqi", "--position", "8/8 w"], "expected 6 fields"),
    (["moves", "--game", "luotuoqi", "--moves", "Ke1-e2"], "illegal move 'Ke1-e2'"),
    (["perft", "--game", "luotuoqi", "--depth", "-1"], "--depth must be 0 or more"),
    (["moves", "--game", "luotuoqi", "--set", "colour"], "--set expects KEY=VALUE"),
    (["moves", "--game", "luotuoqi", "--set", "speed=3"], "game 'luotuoqi' has no option 'speed'"),
])
def test_bad_input_one_line_exit_2(capsys, args, needle):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert err.count("\n") == 1 and needle in err and err.startswith("fairyboard: error:")


def test_console_script_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "perft", "--game", "luotuoqi",
                           "--depth", "1"], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "18"


def test_names_are_case_insensitive(capsys):
    code, out, _ = run(capsys, "perft", "--game", "LuoTuoQi", "--depth", "1")
    assert code == 0 and out.strip() == "18"


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.startswith("fairyboard ")


@pytest.mark.parametrize("given,expected", [
    ({"game": "gnuqi"}, ("square9", "gnuqi")),          # the one board that plays it
    ({"game": "kaleidochess"}, ("kaleido89", "kaleidochess")),
    ({"game": "laotzu"}, (None, "laotzu")),             # the default square8 plays it
    ({"layout": "square9"}, ("square9", "gnuqi")),      # the only game of that board
    ({"layout": "square9", "game": "luotuoqi"}, ("square9", "luotuoqi")),  # both given: kept
])
def test_run_chooses_the_board_for_the_game_and_the_game_for_the_board(given, expected,
                                                                         tmp_path):
    from controller.cli import build_parser, choose_board

    config = tmp_path / "c.toml"
    config.write_text("[board]\nlayout = 'square8'\ngame = 'luotuoqi'\n")
    argv = ["run", "--config", str(config)]
    for key, value in given.items():
        argv += [f"--{key}", value]
    args = build_parser().parse_args(argv)
    choose_board(args)
    assert (args.layout, args.game) == expected


def test_lotus_layout_alone_keeps_a_lotus_game(tmp_path):
    from controller.cli import build_parser, choose_board

    config = tmp_path / "c.toml"
    config.write_text("[board]\nlayout = 'square8'\ngame = 'luotuoqi'\n")
    args = build_parser().parse_args(["run", "--config", str(config), "--layout", "lotus39"])
    choose_board(args)  # luotuoqi does not fit and two games do: the service says which
    assert args.game is None


def test_a_closed_pipe_is_a_quiet_exit():
    proc = subprocess.run(f"{sys.executable} -m controller.cli moves --game lotus39 | head -1",
                          shell=True, capture_output=True, text=True)
    assert proc.stdout.strip() == "a4" and proc.stderr == ""


@pytest.mark.parametrize("game,moves", [
    ("laotzu", ["e2-e4", "e7e5", "Ng1-f3", "Nb8c6"]),
    ("gnuqi", ["e3-e4", "e7e6"]),
    ("luotuoqi", ["Mb1-c3", "Mb8-c6+cube", "c6-d4"]),
    ("lotus39", ["e2-d3"]),
])
def test_moves_may_be_typed_as_their_two_cells(capsys, game, moves):
    code, out, err = run(capsys, "show", "--game", game, "--moves", *moves)
    assert code == 0, err


def test_an_illegal_move_names_the_position_even_in_lao_tzu(capsys):
    code, _, err = run(capsys, "show", "--game", "laotzu", "--moves", "e5")
    assert code == 2 and "illegal move 'e5' in rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR" in err


def test_two_cells_that_fit_several_moves_are_named(capsys):
    code, _, err = run(capsys, "show", "--game", "luotuoqi", "--moves", "Mb1-c3", "b8c6")
    assert code == 2 and "'b8c6' fits several moves: Mb8-c6, Mb8-c6+cube" in err


def test_games_list_is_an_aligned_table_with_a_legend(tmp_path, capsys):
    from controller.journal import Journal

    journal = Journal(tmp_path)
    for game, moves in (("luotuoqi", ["Ea2-b3"]), ("gnuqi", ["e4", "e6"])):
        from controller.rules import get_game
        g = get_game(game)
        writer = journal.new_game(game, {}, g.position_text(g.start()), ["White", "Black"])
        for m in moves:
            writer.move(m)
        writer.close()
    code, out, _ = run(capsys, "games", "list", "--journal", str(tmp_path))
    lines = out.splitlines()
    assert code == 0 and "1 move " in lines[0] + " " and "2 moves" in lines[1]
    assert lines[0].index("unfinished") == lines[1].index("unfinished")  # aligned
    assert lines[-1].startswith("result: 1-0 White won")
    code, out, _ = run(capsys, "games", "list", "--journal", str(tmp_path / "none"))
    assert code == 0 and out.startswith("no games in ")
