"""The referee's journal (controller/link/referee.py, RefereeJournal): one append-only
file per game, finished games archived and never read again at start-up, a damaged game
set aside alone, the old single-file journal taken over once."""

from __future__ import annotations

import json
import logging

import pytest

from controller.link.messages import Attempt, LinkError, Start
from controller.link.referee import Referee, RefereeJournal
from controller.rules import get_game

SEATS = ("alpha", "beta")
FOOLS_MATE = ("f3", "e5", "g4", "Qh4#")


def long_texts(texts: tuple[str, ...]) -> list[str]:
    game = get_game("chess")
    pos, out = game.start(), []
    for text in texts:
        move = next(m for m in game.legal_moves(pos) if game.move_text(pos, m) == text)
        out.append(game.long_move_text(pos, move))
        pos.push(move)
    return out


def play(referee: Referee, game_id: str, moves: list[str]) -> None:
    g = referee.games[game_id]
    for text in moves:
        seat = g.game.ply_mover(g.pos)
        referee.attempt(SEATS[seat], Attempt(game_id, len(g.moves) + 1, seat, text))


def test_a_move_appends_one_line_to_its_games_file_and_an_ended_game_is_archived(tmp_path):
    journal = RefereeJournal(tmp_path / "referee.json")
    referee = Referee("test", journal)
    mate = long_texts(FOOLS_MATE)
    for game_id in ("a-1", "a-2"):
        referee.start(Start(game_id, "chess", {}, "", SEATS))
    play(referee, "a-1", mate[:2])
    live = journal.folder / "a-1.jsonl"
    assert len(live.read_text().splitlines()) == 3  # the game, then one line a move
    assert (journal.folder / "a-2.jsonl").read_text().count("\n") == 1  # untouched
    play(referee, "a-1", mate[2:])
    assert not live.exists() and (journal.archive / "a-1.jsonl").exists()
    again = Referee("test", RefereeJournal(tmp_path / "referee.json"))
    assert list(again.games) == ["a-2"]  # only the unfinished game is read
    assert again.start(Start("a-1", "chess", {}, "", SEATS)) == []  # a retained request
    assert again.started == 2


def test_a_game_closed_outside_the_rules_is_archived_once(tmp_path):
    journal = RefereeJournal(tmp_path / "referee.json")
    referee = Referee("test", journal)
    referee.start(Start("c-1", "chess", {}, "", SEATS))
    mate = long_texts(FOOLS_MATE)
    play(referee, "c-1", mate[:2])
    assert referee.close("c-1") == mate[:2]  # (a resignation on the club server)
    assert (journal.archive / "c-1.jsonl").exists()
    assert not (journal.folder / "c-1.jsonl").exists()
    assert referee.close("c-1") == mate[:2]  # again: nothing more to archive
    assert referee.close("nosuch") == []
    assert list(Referee("test", RefereeJournal(tmp_path / "referee.json")).games) == []


def test_a_damaged_game_is_set_aside_alone_and_a_torn_line_cut(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    journal = RefereeJournal(tmp_path / "referee.json")
    referee = Referee("test", journal)
    mate = long_texts(FOOLS_MATE)
    for game_id in ("b-1", "b-2", "b-3", "b-4"):
        referee.start(Start(game_id, "chess", {}, "", SEATS))
        play(referee, game_id, mate[:2])
    with open(journal.folder / "b-1.jsonl", "a") as f:
        f.write('{"move": "e2e')  # the power went mid-append
    (journal.folder / "b-2.jsonl").write_text(
        (journal.folder / "b-2.jsonl").read_text().replace('{"move"', "{bad", 1))
    with open(journal.folder / "b-3.jsonl", "a") as f:
        f.write('{"move": "a1a8"}\n')  # not a legal move there
    again = Referee("test", RefereeJournal(tmp_path / "referee.json"))
    assert sorted(again.games) == ["b-1", "b-4"]
    assert again.games["b-1"].moves == mate[:2]  # the torn line cut, kept beside it
    assert (journal.folder / ".bad-b-1.jsonl-tail").read_bytes() == b'{"move": "e2e'
    assert sorted(p.name for p in journal.quarantine.iterdir()) == ["b-2.jsonl", "b-3.jsonl"]
    set_aside = [r.getMessage() for r in caplog.records if "set aside" in r.getMessage()]
    assert len(set_aside) == 2
    play(again, "b-4", mate[2:])  # the others go on
    assert (journal.archive / "b-4.jsonl").exists()


def test_the_old_single_file_journal_is_taken_over_once(tmp_path):
    path = tmp_path / "referee.json"
    mate = long_texts(FOOLS_MATE)
    path.write_text(json.dumps({"format": 1, "games": {
        "c-1": {"game": "chess", "options": {}, "seats": list(SEATS), "moves": mate[:3],
                "refused": {"1": 4}}}}))
    referee = Referee("test", RefereeJournal(path))
    g = referee.games["c-1"]
    assert g.moves == mate[:3] and g.refused == {1: 4}
    assert not path.exists() and path.with_name("referee.json.migrated").exists()
    assert list(Referee("test", RefereeJournal(path)).games) == ["c-1"]


@pytest.mark.parametrize("games", [[], "x", 3])
def test_an_old_journal_whose_games_are_not_an_object_is_one_line(tmp_path, games):
    path = tmp_path / "referee.json"
    path.write_text(json.dumps({"format": 1, "games": games}))
    with pytest.raises(LinkError, match="'games' must be an object") as err:
        Referee("test", RefereeJournal(path))
    assert "\n" not in str(err.value)


def test_a_game_adopted_from_another_record_is_judged_as_its_own(tmp_path):
    """Cluster mode: a referee with no journal holds a game from the store's truth
    (``adopt``) and judges its next attempt as the referee that started it would — a copy
    adopted again replaces the one held."""
    first = Referee("test", seed="same")
    first.start(Start("c-1", "laotzu", {}, "", SEATS))
    truth = first.games["c-1"]
    other = Referee("test")  # another worker's: it never saw the start
    views = other.adopt("c-1", "laotzu", truth.options, SEATS, list(truth.moves))
    assert [v.position for _, v, _ in views] == [
        v.position for _, v, _ in first._views(truth)]
    game = truth.game
    move = next(m for m in game.legal_moves(truth.pos))
    text = game.long_move_text(truth.pos, move)
    out = other.attempt(SEATS[0], Attempt("c-1", 1, 0, text))
    assert other.games["c-1"].moves == [text] and any(v.ply == 1 for _, v, _ in out)
    other.adopt("c-1", "laotzu", truth.options, SEATS, [])  # the store said: not stored
    assert other.games["c-1"].moves == []
    assert other.attempt(SEATS[0], Attempt("c-1", 1, 0, text))[0][1].ply == 1
