"""The announcer on a real board machine over the simulated board: each event said once, in
order, with its sound; another player's move to execute said before it is made and only
sounded when it is made; nothing hidden said in Lao Tzu; a failing speaker never stops
the board."""

from __future__ import annotations

import random
import threading

from controller.speech.announcer import Announcement, Announcer
from controller.speech.speaker import Speaker
from tests.support.rig import Human, Rig


def _announcer(rig: Rig, **kw) -> tuple[Announcer, list[Announcement]]:
    said: list[Announcement] = []
    return Announcer(rig.board, said.append, **kw), said


def test_each_move_is_said_once_in_order_with_its_sound():
    rig = Rig(game="chess")
    _, said = _announcer(rig)
    human = Human(rig, random.Random(1))
    for text in ["e4", "d5", "exd5", "Qxd5", "Nc3"]:
        human.play(rig.game.parse_move(rig.position, text))
    moves = [a for a in said if a.event == "move"]
    assert [a.text for a in moves] == [
        "Pawn e2 to e4", "Pawn d7 to d5", "Pawn e4 takes Pawn on d5",
        "Queen d8 takes Pawn on d5", "Knight b1 to c3"]
    assert [a.sound for a in moves] == ["move", "move", "capture", "capture", "move"]
    assert [a.seq for a in said] == list(range(1, len(said) + 1))


def test_the_computers_move_is_said_when_shown_and_only_sounded_when_made():
    rig = Rig(game="chess")
    _, said = _announcer(rig, who=lambda p: "The computer" if p == 1 else "")
    Human(rig, random.Random(2)).play(rig.game.parse_move(rig.position, "e4"))
    reply = rig.game.parse_move(rig.position, "e5")
    rig.board.execute(reply)  # the board shows it: the announcer hears of it
    assert [a.event for a in said].count("execute") == 1
    assert said[-1].event == "execute"
    assert said[-1].text == "The computer plays Pawn e7 to e5. Make this move on the board"
    rig.move("e7", "e5")
    assert rig.state == "turn"
    assert said[-1].event == "move" and said[-1].text == "" and said[-1].sound == "move"


def test_a_mismatch_is_said_once_when_it_begins():
    rig = Rig()
    _, said = _announcer(rig)
    rig.sim.put("e4", "white-eaglet")  # a piece that belongs nowhere
    rig.wait(1.0)
    assert rig.state == "correction"
    rig.wait(1.0)
    rig.remove("e4")
    rig.wait(0.5)
    assert rig.state == "turn"
    assert [(a.event, a.sound, a.text) for a in said] == [
        ("mismatch", "mismatch", "The board does not match the game")]


def test_a_choice_is_said_when_it_begins():
    rig = Rig("8/P6p/8/8/8/8/8/K6k w - - 0 1", game="chess")  # promotion: four pieces
    _, said = _announcer(rig)
    Human(rig, random.Random(7)).play(rig.game.parse_move(rig.position, "a8=N"))
    assert [a.event for a in said] == ["choice", "move"]
    assert said[0].sound == "choice" and "option pads" in said[0].text
    assert said[1].text == "Pawn a7 to a8, becomes a Knight"


def test_mate_is_said_with_the_game_end_once():
    rig = Rig(game="chess")
    _, said = _announcer(rig)
    human = Human(rig, random.Random(3))
    for text in ["f3", "e5", "g4", "Qh4#"]:
        human.play(rig.game.parse_move(rig.position, text))
    assert said[-1].text == "Queen d8 to h4, check. Checkmate. Black wins."
    assert said[-1].sound == "game_end"
    assert [a.event for a in said].count("game_over") == 0


def test_voice_and_sounds_can_each_be_turned_off():
    rig = Rig(game="chess")
    _, quiet = _announcer(rig, voice=False)
    Human(rig, random.Random(4)).play(rig.game.parse_move(rig.position, "e4"))
    assert quiet[-1].text == "" and quiet[-1].sound == "move"
    rig2 = Rig(game="chess")
    _, mute = _announcer(rig2, sounds=False)
    Human(rig2, random.Random(4)).play(rig2.game.parse_move(rig2.position, "e4"))
    assert mute[-1].sound == "" and mute[-1].text == "Pawn e2 to e4"


def test_in_german():
    rig = Rig(game="chess")
    _, said = _announcer(rig, lang="de")
    Human(rig, random.Random(5)).play(rig.game.parse_move(rig.position, "Nf3"))
    assert said[-1].text == "Springer g1 nach f3" and said[-1].lang == "de"


def test_a_speaker_that_fails_is_logged_once_and_the_board_plays_on(caplog):
    played: list[tuple[str, str]] = []
    done = threading.Event()

    def broken(data: bytes, device: str) -> None:
        raise OSError("no sound card")

    def speak(text: str, lang: str, speed: int, device: str) -> None:
        played.append((text, lang))
        if len(played) == 3:
            done.set()

    speaker = Speaker(play=broken, speak=speak)
    for i in range(3):
        speaker(Announcement(i + 1, "move", "move", f"move {i}", "en"))
    assert done.wait(5)
    speaker.close()
    assert played == [("move 0", "en"), ("move 1", "en"), ("move 2", "en")]
    assert speaker.failures == {"sound": 3}
    assert sum("speaker sound failed" in r.getMessage() for r in caplog.records) == 1


def test_a_speaker_that_falls_behind_drops_the_oldest_words():
    gate = threading.Event()
    spoken: list[str] = []

    def slow(text: str, lang: str, speed: int, device: str) -> None:
        gate.wait(5)
        spoken.append(text)

    speaker = Speaker(play=lambda d, dev: None, speak=slow)
    for i in range(30):
        speaker(Announcement(i + 1, "move", "", f"w{i}", "en"))
    gate.set()
    speaker.close(timeout=5)
    assert speaker.dropped >= 30 - 8 - 1
    assert spoken[-1] == "w29"


def test_in_fog_the_computers_hidden_move_is_said_from_the_persons_view():
    rig = Rig(game="laotzu")
    announcer, said = _announcer(rig, listener=lambda: 0,
                                 who=lambda p: "The computer" if p == 1 else "")
    Human(rig, random.Random(6)).play(rig.game.parse_move(rig.position, "e4"))
    assert said[-1].text == "Pawn e2 to e4"
    reply = rig.game.parse_move(rig.position, "Nc6")
    announcer.execute(reply, 1)
    assert "Knight" not in said[-1].text and "c6" not in said[-1].text
    assert said[-1].text.startswith("Black has moved")


def test_low_time_is_said_once_when_it_begins_and_again_only_after_it_ended():
    """The mover's clock passed its warning mark: "White: 27 seconds left" with its sound,
    once while the warning lasts (each interaction after it says nothing more)."""
    rig = Rig(game="chess")
    _, said = _announcer(rig, remaining=lambda player: 27.6 if player == 0 else 300.0)
    rig.board.set_low_time(True)
    rig.wait(0.2)
    rig.board.set_low_time(True)  # (the clock's tick says it again: nothing new)
    rig.wait(0.2)
    low = [a for a in said if a.event == "low_time"]
    assert [(a.text, a.sound) for a in low] == [("White: 27 seconds left", "low_time")]
    rig.board.set_low_time(False)
    rig.board.set_low_time(True)
    assert [a.text for a in said if a.event == "low_time"] == ["White: 27 seconds left"] * 2
