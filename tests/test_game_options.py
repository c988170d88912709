"""Declared game options and positions: bad input gets one line and exit status 2 from the
command line, a clear error from the service — and never reaches a game or the journal."""

from __future__ import annotations

import pytest

from controller.cli import main as cli_main
from controller.config import Config
from controller.journal import Journal
from controller.rules import OptionError, PositionError, get_game
from controller.service import BoardService

LOTUS_WITHOUT_KINGS = "e2=P,e6=p w - 0 1"


@pytest.mark.parametrize("args, needle", [
    (["perft", "--game", "luotuoqi", "--depth", "1", "--set", "stone_budget=abc"],
     "stone_budget must be a whole number 0..512 or off, got 'abc'"),
    (["perft", "--game", "luotuoqi", "--depth", "1", "--set", "stone_budget=-5"],
     "stone_budget must be a whole number 0..512 or off, got -5"),
    (["perft", "--game", "luotuoqi", "--depth", "1", "--set", "stone_budget=true"],
     "stone_budget must be a whole number"),
    (["moves", "--game", "kaleidochess", "--set", "players=many"],
     "players must be one of 2, 3, 4, got 'many'"),
    (["moves", "--game", "laotzu", "--set", "castling=fast"],
     "castling must be one of chess960, chess480, got 'fast'"),
    (["perft", "--game", "luotuoqi", "--depth", "99999999999999999999999"],
     "--depth must be 0 or more, at most 12"),
    (["moves", "--game", "luotuoqi", "--position", ""], "--position is empty"),
    (["show", "--game", "gnuqi", "--position", "  "], "--position is empty"),
    (["moves", "--game", "lotus39", "--position", LOTUS_WITHOUT_KINGS], "White has no King"),
    (["moves", "--game", "lotus39", "--position", "e1=K,e2=P,e6=p w - 0 1"],
     "Black has no King"),
])
def test_bad_command_line_input_is_one_line_and_exit_2(capsys, args, needle):
    code = cli_main(args)
    _, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("fairyboard: error: ") and needle in err, err


def test_good_options_still_work(capsys):
    assert cli_main(["perft", "--game", "luotuoqi", "--depth", "1",
                     "--set", "stone_budget=16"]) == 0
    assert capsys.readouterr().out.strip() == "18"
    assert cli_main(["perft", "--game", "luotuoqi", "--depth", "1",
                     "--set", "stone_budget=off"]) == 0
    assert capsys.readouterr().out.strip() == "18"
    assert get_game("luotuoqi", stone_budget=0).stone_budget == 0


def test_lotus_games_start_only_with_one_king_per_side():
    """The King is royal: a game is played only from positions with both Kings (rules
    studies may still parse positions without them)."""
    for name in ("lotus39", "lotus39-modern"):
        game = get_game(name)
        with pytest.raises(PositionError, match="White has no King"):
            game.check_playable(game.parse_position(LOTUS_WITHOUT_KINGS))
        game.check_playable(game.parse_position("e1=K,e7=k w - 0 1"))
        game.check_playable(game.start())


def test_configured_options_are_checked_at_start(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text(f"[journal]\npath = '{tmp_path / 'journal'}'\n[board]\nlayout = 'kaleido89'\n"
                    "game = 'kaleidochess'\noptions = { players = [3] }\n")
    assert cli_main(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "players must be one of 2, 3, 4, got [3]" in err, err


def test_a_mistyped_option_from_the_page_never_reaches_the_journal(tmp_path):
    """Issue 15 defect 4: ``{"stone_budget": "16"}`` crashed every restart."""
    config = Config()
    config.journal.path = str(tmp_path / "journal")
    svc = BoardService(config)
    first = svc.game_id
    with pytest.raises(OptionError, match="stone_budget must be a whole number 0..512 or off, "
                                          "got '16'"):
        svc.new_game("luotuoqi", {"stone_budget": "16"}, "4k3/8/8/8/2T2ET23/8/8/4K3 w - - 0 1")
    assert svc.game_id == first
    assert [r.id for r in Journal(tmp_path / "journal").games()] == [first]
    svc.close()
    again = BoardService(config)  # a restart resumes the game, no traceback
    assert again.game_id == first
    again.close()


def test_a_journal_with_mistyped_options_does_not_stop_the_restart(tmp_path):
    """A journal written before options were checked: the service starts a new game
    instead of failing with a traceback on every start."""
    journal = Journal(tmp_path / "journal")
    writer = journal.new_game("luotuoqi", {"stone_budget": "16"},
                              "4k3/8/8/8/2T2ET23/8/8/4K3 w - - 0 1", ["White", "Black"])
    writer.close()
    config = Config()
    config.journal.path = str(tmp_path / "journal")
    svc = BoardService(config)
    assert svc.game.name == "luotuoqi" and svc.game.stone_budget is None
    # the old one kept — quarantined aside, named for the page and /health — and a new one
    journal = Journal(tmp_path / "journal")
    assert len(journal.games()) == 1 and len(journal.quarantined()) == 1
    assert svc.session.setup == svc.game.position_text(svc.game.start())
    svc.close()
