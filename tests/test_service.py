"""The board service end to end with the simulated board, in process.

Every move is carried out as human actions on the simulated board (lift, place, set
aside, hand the Cube over…); the service learns about them only through the emulated
electronics, the scanner and the sensing pipeline, exactly as from a physical board.
Time is the simulator's: ``service.step(seconds)`` polls once per scan period.
"""

from __future__ import annotations

import json

import pytest

from controller.cli import main as cli_main
from controller.journal import Journal
from controller.rules import get_game
from controller.service import BoardService, ServiceError
from controller.web.page import page_state
from controller.web.simulator import SimActionError
from tests.support.service import make_config, make_service, play, set_up

#: a whole Lùotuoqí game: a Cube turn, Tower splits that need a choice, a split capture,
#: checkmate after 8 plies
MATE_GAME = ["Ee2-d3", "Ec7-b6+cube", "Eg7-f6", "T6d1-f3", "Ef7-e6", "T6f3-h5", "Ef6-f7",
             "T2h5xf7"]










def test_whole_game_is_recorded_exactly(tmp_path, capsys):
    svc = make_service(tmp_path)
    set_up(svc)
    for k, text in enumerate(MATE_GAME):
        play(svc, text, answer_on_pad=(k == 3))
    assert svc.interaction.phase == "game_over"
    assert svc.outcome.result == "1-0" and svc.outcome.reason == "checkmate"
    record = Journal(tmp_path / "journal").find(svc.game_id)
    assert record.moves == MATE_GAME
    assert (record.result, record.reason) == ("1-0", "checkmate")
    game, pos = record.replay()
    assert pos.snapshot() == svc.position.snapshot()
    # the CLI lists and exports it
    svc.close()
    assert cli_main(["games", "list", "--journal", str(tmp_path / "journal")]) == 0
    listing = capsys.readouterr().out
    assert svc.game_id in listing and "1-0" in listing
    assert cli_main(["games", "export", "--journal", str(tmp_path / "journal"),
                     svc.game_id]) == 0
    exported = capsys.readouterr().out
    assert "T2h5xf7 1-0" in exported and '[Result "1-0"]' in exported


def test_move_is_on_disk_before_anything_shows_it(tmp_path):
    svc = make_service(tmp_path)
    set_up(svc)
    writer = svc.session.writer
    seen = []
    original = writer.move

    def spy(notation, long=None):
        # what the LEDs and the page show at the moment the record is written
        seen.append((len(svc.plies), svc.interaction.last_move, svc.led_frame.roles,
                     page_state(svc)["moves"]))
        original(notation, long)
        seen.append(json.loads(writer.path.read_text().splitlines()[-1]))

    writer.move = spy
    play(svc, "Mb1-c3")
    (plies, last_move, roles, page_moves), on_disk = seen
    assert plies == 0 and page_moves == [] and last_move == frozenset()
    assert "last_move" not in roles and "origin" in roles  # the lift shows, not the move
    assert on_disk == {"type": "move", "move": "Mb1-c3"}
    # afterwards the move shows
    c3, b1 = svc.layout.spot_index("c3"), svc.layout.spot_index("b1")
    assert svc.interaction.last_move == {b1, c3}
    assert page_state(svc)["moves"] == [{"player": 0, "text": "Mb1-c3"}]


def test_journal_failure_shows_nothing(tmp_path):
    svc = make_service(tmp_path)
    set_up(svc)

    def full_disk(notation, long=None):
        raise OSError(28, "No space left on device")

    svc.session.writer.move = full_disk
    roles = svc.led_frame.roles
    svc.sim_action({"action": "lift", "spot": "b1"})
    svc.step(0.05)
    svc.sim_action({"action": "place", "spot": "c3"})
    with pytest.raises(OSError):
        svc.step(0.3)
    assert svc.plies == []
    assert "last_move" not in svc.led_frame.roles or svc.led_frame.roles != roles
    assert page_state(svc)["moves"] == []


def test_lift_lights_targets_within_one_debounce(tmp_path):
    svc = make_service(tmp_path)
    set_up(svc)
    lifted_at = svc.sim.now
    svc.sim_action({"action": "lift", "spot": "g1"})
    for _ in range(40):
        svc.step(0.001)
        if "target" in svc.led_frame.roles:
            break
    delay = svc.sim.now - lifted_at
    assert delay < 0.1
    spot_at_led = svc.layout.led_spots()
    targets = {svc.layout.spots[spot_at_led[k]].name
               for k, role in enumerate(svc.led_frame.roles) if role == "target"}
    assert targets == {"f3", "h3"}


def test_takeback_is_journalled(tmp_path):
    svc = make_service(tmp_path)
    set_up(svc)
    play(svc, "Mb1-c3")
    svc.sim_action({"action": "lift", "spot": "c3"})
    svc.step(0.05)
    svc.sim_action({"action": "place", "spot": "b1"})
    svc.step(0.3)
    # the earlier position must stand a while before it counts (a knock is not a request)
    assert svc.interaction.phase == "takeback" and svc.plies == [(0, "Mb1-c3")]
    assert Journal(tmp_path / "journal").find(svc.game_id).moves == ["Mb1-c3"]
    svc.step(svc.board.options.takeback_delay)
    assert svc.plies == [] and svc.interaction.phase == "turn"
    record = Journal(tmp_path / "journal").find(svc.game_id)
    assert record.moves == []
    lines = [json.loads(x) for x in record.path.read_text().splitlines()]
    assert [x["type"] for x in lines] == ["start", "move", "takeback"]


def test_restart_resumes_after_setup_verification(tmp_path):
    svc = make_service(tmp_path)
    set_up(svc)
    for text in MATE_GAME[:4]:
        play(svc, text)
    game_id, snapshot = svc.game_id, svc.position.snapshot()
    svc.close()

    again = make_service(tmp_path)
    assert again.game_id == game_id
    assert again.resume_offer["plies"] == 4
    assert again.position.snapshot() == snapshot
    assert [t for _, t in again.plies] == MATE_GAME[:4]
    again.step(0.1)
    assert again.interaction.phase == "setup"  # the board is empty: guide the set-up
    assert again.interaction.missing
    set_up(again)
    for text in MATE_GAME[4:]:
        play(again, text)
    record = Journal(tmp_path / "journal").find(game_id)
    assert record.moves == MATE_GAME and record.result == "1-0"
    assert len(Journal(tmp_path / "journal").games()) == 1


def test_declining_the_resumed_game_abandons_it(tmp_path):
    svc = make_service(tmp_path)
    set_up(svc)
    play(svc, "Mb1-c3")
    first = svc.game_id
    svc.close()
    again = make_service(tmp_path)
    assert again.resume_offer is not None
    again.decide_resume(False)
    assert again.resume_offer is None and again.game_id != first
    old = Journal(tmp_path / "journal").find(first)
    assert (old.result, old.reason, old.moves) == ("*", "abandoned", ["Mb1-c3"])
    with pytest.raises(ServiceError, match="no resumed game"):
        again.decide_resume(True)


def test_torn_journal_tail_is_cut_before_appending(tmp_path):
    svc = make_service(tmp_path)
    set_up(svc)
    play(svc, "Mb1-c3")
    path = svc.session.writer.path
    svc.close()
    with open(path, "ab") as f:  # a power cut in the middle of the next record
        f.write(b'{"type":"move","mo')
    again = make_service(tmp_path)
    assert [t for _, t in again.plies] == ["Mb1-c3"]
    set_up(again)
    play(again, "Mb8-c6")
    record = Journal(tmp_path / "journal").find(again.game_id)
    assert record.moves == ["Mb1-c3", "Mb8-c6"] and not record.torn_tail


def test_new_game_checks_before_touching_the_journal(tmp_path):
    svc = make_service(tmp_path)
    set_up(svc)
    play(svc, "Mb1-c3")
    first = svc.game_id
    # (the simulated board would switch to KaleidoChess' board: not with a bad option)
    with pytest.raises(ValueError, match="no option"):
        svc.new_game("kaleidochess", {"colour": "blue"})
    assert svc.layout.name == "square8"
    with pytest.raises(ValueError, match="no option"):
        svc.new_game("luotuoqi", {"colour": "blue"})
    with pytest.raises(ValueError):
        svc.new_game("luotuoqi", {}, "not a position")
    assert svc.game_id == first and Journal(tmp_path / "journal").find(first).result is None
    svc.new_game("laotzu", {"white_array": 518, "black_array": 518})
    assert svc.game.name == "laotzu" and svc.interaction.phase == "setup"
    assert Journal(tmp_path / "journal").find(first).result == "*"
    start = Journal(tmp_path / "journal").find(svc.game_id)
    assert start.options == {"white_array": 518, "black_array": 518}
    assert start.setup == get_game("laotzu", white_array=518, black_array=518).position_text(
        get_game("laotzu", white_array=518, black_array=518).start())


def test_simulator_actions_report_problems(tmp_path):
    svc = make_service(tmp_path)
    with pytest.raises(SimActionError, match="nothing to lift on e4"):
        svc.sim_action({"action": "lift", "spot": "e4"})
    with pytest.raises(SimActionError, match="no spot 'z9'"):
        svc.sim_action({"action": "lift", "spot": "z9"})
    with pytest.raises(SimActionError, match="unknown simulator action"):
        svc.sim_action({"action": "juggle"})
    with pytest.raises(SimActionError, match="'count' must be a whole number"):
        svc.sim_action({"action": "lift", "spot": "e4", "count": "two"})
    with pytest.raises(ServiceError, match="no choice"):
        svc.answer_choice(0)
    with pytest.raises(ServiceError, match="no die roll"):
        svc.roll_die()


def test_knocked_over_piece_is_a_mismatch_then_guided(tmp_path):
    svc = make_service(tmp_path)
    set_up(svc)
    svc.sim_action({"action": "knock_over", "spot": "e2", "onto": "e3"})  # no legal move
    svc.step(0.2)
    e2, e3 = svc.layout.spot_index("e2"), svc.layout.spot_index("e3")
    it = svc.interaction
    assert it.phase == "correction" and e2 in it.missing and e3 in it.extra
    assert svc.plies == []
    svc.step(1.2)  # stable mismatch: guidance, one piece at a time
    assert svc.interaction.guide in (e2, e3)
    assert svc.layout.spots[svc.interaction.guide].name in svc.interaction.message
    svc.sim_action({"action": "lift", "spot": "e3"})
    svc.sim_action({"action": "place", "spot": "e2"})
    svc.step(0.2)
    assert svc.interaction.phase == "turn" and svc.plies == []


def test_health_reports_the_pipeline(tmp_path):
    svc = make_service(tmp_path)
    svc.step(0.05)
    h = svc.health()
    assert h["status"] == "ok"
    assert h["sensing"]["backend"] == "simulated (gpio-matrix)"
    assert h["sensing"]["state"] == "ok" and h["sensing"]["last_frame_age_s"] <= 0.01
    assert h["journal"] == str(svc.session.writer.path)
    svc.sensing.rig._ticker.cancel()  # the scanner stops producing frames
    svc.step(2.0)
    assert svc.health()["sensing"]["state"] == "stale"
    assert svc.health()["status"] == "degraded"


@pytest.mark.parametrize(("layout", "game"), [("square9", "gnuqi"),
                                               ("kaleido89", "kaleidochess"),
                                               ("lotus39", "lotus39")])
def test_every_board_sets_up_and_plays_a_move(tmp_path, layout, game):
    svc = make_service(tmp_path, layout=layout, game=game)
    set_up(svc)
    g, pos = svc.game, svc.position
    moves = [m for m in g.legal_moves(pos) if m.kind == "move" and not m.captures]
    play(svc, g.move_text(pos, moves[0]))
    assert Journal(tmp_path / "journal").find(svc.game_id).moves == [svc.plies[0][1]]


def test_dice_roll_from_the_page(tmp_path):
    svc = make_service(tmp_path, layout="kaleido89", game="kaleidochess", options={"dice": True})
    svc.sim_action({"action": "arrange"})
    svc.step(0.1)
    # every legal move is a roll: the board asks at once (a physical die's face is
    # entered on the option pads); the page may roll instead
    assert svc.interaction.phase == "choice" and svc.die_expected()
    assert svc.choice_labels() == [f"die:{n}" for n in range(1, 7)]
    face = svc.roll_die()
    svc.step(0.05)
    assert svc.plies == [(0, f"die:{face}")]
    assert not svc.die_expected() and svc.interaction.phase == "turn"
    assert Journal(tmp_path / "journal").find(svc.game_id).moves == [f"die:{face}"]


def _touch_pad(svc: BoardService, pad: str) -> None:
    """A piece put on an option pad and taken away again (a command or an answer)."""
    svc.sim_action({"action": "take", "object": "white-E"})
    svc.sim_action({"action": "place", "spot": pad})
    svc.step(0.1)
    svc.sim_action({"action": "lift", "spot": pad})
    svc.sim_action({"action": "set_aside"})
    svc.step(0.1)


def test_resign_from_the_board_menu_is_journalled(tmp_path):
    svc = make_service(tmp_path)
    set_up(svc)
    play(svc, "Mb1-c3")
    _touch_pad(svc, "option-1")  # a pad touched outside a choice opens the menu
    labels = svc.choice_labels()
    assert labels == ["offer draw", "resign", "new game"]
    _touch_pad(svc, "option-2")  # Black resigns
    assert svc.interaction.phase == "game_over"
    record = Journal(tmp_path / "journal").find(svc.game_id)
    assert (record.result, record.reason, record.moves) == ("1-0", "resignation", ["Mb1-c3"])


def test_new_game_from_the_board_starts_a_journal_game(tmp_path):
    svc = make_service(tmp_path)
    set_up(svc)
    for text in MATE_GAME:
        play(svc, text)
    finished = svc.game_id
    _touch_pad(svc, "option-1")
    assert svc.choice_labels() == ["new game", "next game"]
    _touch_pad(svc, "option-1")
    assert svc.game_id != finished and svc.plies == []
    assert svc.interaction.phase == "setup"
    games = Journal(tmp_path / "journal").games()
    assert [(g.id, g.result) for g in games] == [(finished, "1-0"), (svc.game_id, None)]
    set_up(svc)
    play(svc, "Mb1-c3")
    assert Journal(tmp_path / "journal").find(svc.game_id).moves == ["Mb1-c3"]


def test_a_journal_that_cannot_be_written_stops_the_service_with_failure(tmp_path):
    import asyncio

    from controller.process import _serve

    config = make_config(tmp_path)
    config.web.enabled = False
    svc = BoardService(config)
    set_up(svc)

    def full_disk(notation, long=None):
        raise OSError(28, "No space left on device")

    svc.session.writer.move = full_disk
    svc.sim_action({"action": "lift", "spot": "b1"})
    svc.sim_action({"action": "place", "spot": "c3"})
    assert asyncio.run(asyncio.wait_for(_serve(svc), 10)) == 1  # systemd restarts it
    assert svc.plies == []
    svc.close()


def test_games_of_the_same_second_keep_their_order(tmp_path):
    journal = Journal(tmp_path / "journal")
    ids = []
    for name in ("luotuoqi", "laotzu", "luotuoqi", "gnuqi"):
        writer = journal.new_game(name, {}, "-", [], now=0)
        ids.append(writer.path.stem)
        writer.close()
    assert [g.id for g in journal.games()] == ids  # creation order
    assert journal.unfinished().id == ids[-1]
