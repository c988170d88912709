"""The board's voice as sound: espeak-ng (the real program) speaks phrases of every game in
every language into WAV files that are not silent and of a plausible length; the event
sounds are generated, distinct and audible; ``fairyboard say`` renders one phrase."""

from __future__ import annotations

import array
import shutil
import wave
from functools import cache
from pathlib import Path

import pytest

from controller.cli import main
from controller.i18n.lang import LANGUAGES, speaking
from controller.rules import GAMES, get_game
from controller.rules.core import Outcome
from controller.speech import sounds, voice
from controller.speech.announcer import Announcement
from controller.speech.speaker import Speaker
from controller.speech.words import (
    EVENT_WORDS,
    REASON_WORDS,
    announce_move,
    event_words,
    guide_words,
    outcome_words,
    time_words,
)
from tests.support.moves import move_shapes

needs_espeak = pytest.mark.skipif(
    shutil.which("espeak-ng") is None,
    reason="espeak-ng is not installed (scripts/test installs it)")


def _loudness(path: Path, step: int = 1) -> tuple[float, float]:
    """(seconds, root-mean-square of the samples, 0..1) of a 16-bit mono WAV file (of every
    ``step``-th sample: a long file's loudness needs no more)."""
    with wave.open(str(path), "rb") as w:
        assert w.getsampwidth() == 2
        frames = w.readframes(w.getnframes())
        # (from the samples read: a WAV streamed to a pipe gives no length in its header)
        seconds = len(frames) / (w.getsampwidth() * w.getframerate())
    data = array.array("h", frames)[::step]
    rms = (sum(x * x for x in data) / max(1, len(data))) ** 0.5 / 32768
    return seconds, rms


@cache
def _shapes(name: str):
    """The seeded games' move shapes, found once for all the languages."""
    return move_shapes(name, games=4, plies=100)


def phrases(name: str) -> list[str]:
    """Every kind of move phrase the voice says in a game, in the current language: each
    move shape of seeded games as the mover hears it (with check and the game's end where
    they come) and, with hidden information, as the other player does."""
    game, shapes = _shapes(name)
    said = []
    for pos, move in shapes:
        after = pos.copy()
        after.push(move)
        said.append(announce_move(game, pos, move, after))
        if game.hidden_information:
            said.append(announce_move(game, pos, move, after, 1 - game.ply_mover(pos)))
    return said


def event_phrases() -> list[str]:
    """The phrases that are not moves, in the current language: the end by each reason, a
    draw, low-time warnings, guidance steps (a table that holds a Lao Tzu player's view)
    and the board's events."""
    game = get_game("laotzu")
    piece = next(p for p in game.start().board if p is not None)
    return [*(outcome_words(game, Outcome((0,), reason)) for reason in REASON_WORDS),
            outcome_words(game, Outcome((), "stalemate")), time_words(game, 1, 30),
            time_words(game, 0, 120), guide_words(game, "e5", piece, True),
            guide_words(game, "e5", piece, False, pad=True),
            guide_words(game, "d4", None, False), *(event_words(e) for e in EVENT_WORDS)]


@needs_espeak
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_espeak_speaks_every_phrase_kind_of_each_game_in_each_language(tmp_path, lang):
    """One WAV a game, and one of the other phrases (one espeak-ng run each: a run a phrase
    would cost seconds a language): the phrases one after another, as long as they need
    and not silent."""
    for name in [*GAMES, ""]:
        with speaking(lang):
            said = phrases(name) if name else event_phrases()
        assert all(said), (name, lang)
        out = voice.render(". ".join(said), lang, tmp_path / f"{name or 'events'}.wav")
        seconds, rms = _loudness(out, step=25)
        assert 0.4 * len(said) < seconds < 15 * len(said), (name, lang, len(said), seconds)
        assert rms > 0.01, (name, lang, rms)


def test_every_event_sound_is_audible_and_distinct(tmp_path):
    seen = set()
    for name in sounds.SOUNDS:
        data = sounds.wav_bytes(name)
        path = tmp_path / f"{name}.wav"
        path.write_bytes(data)
        seconds, rms = _loudness(path)
        assert 0.05 < seconds < 1.0, name
        assert rms > 0.05, name
        seen.add(data)
    assert len(seen) == len(sounds.SOUNDS)
    silent = tmp_path / "silent.wav"
    silent.write_bytes(sounds.wav_bytes("move", volume=0.0))
    assert _loudness(silent)[1] == 0.0


def test_a_bad_sound_or_volume_is_one_clear_error():
    with pytest.raises(sounds.SoundError, match="unknown sound 'bell'"):
        sounds.wav_bytes("bell")
    with pytest.raises(sounds.SoundError, match="volume must be between 0 and 1"):
        sounds.wav_bytes("move", volume=1.5)


@needs_espeak
def test_say_renders_one_phrase_to_a_wav_file(tmp_path, capsys):
    out = tmp_path / "mule.wav"
    assert main(["say", "--game", "luotuoqi", "--move", "Mb1-c3", "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == "Mule b1 to c3"
    seconds, rms = _loudness(out)
    assert seconds > 0.5 and rms > 0.01


def test_say_in_fog_tells_the_other_player_only_that_a_move_was_made(capsys):
    assert main(["say", "--game", "laotzu", "--moves", "e4", "--move", "Nc6",
                 "--listener", "white"]) == 0
    assert capsys.readouterr().out.strip() == "Black has moved"


@pytest.mark.parametrize("argv, message", [
    (["--move", "Mb1xc3"], "illegal move 'Mb1xc3'"),
    (["--move", "Mb1-c3", "--lang", "xx"], "unknown language 'xx'"),
    (["--move", "Mb1-c3", "--listener", "red"], "unknown player 'red'"),
])
def test_say_refuses_bad_input_with_one_line(capsys, argv, message):
    assert main(["say", "--game", "luotuoqi", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_missing_speech_program_is_one_clear_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(voice.shutil, "which", lambda name: None)
    monkeypatch.setattr(voice, "Path", lambda p: tmp_path / "nowhere" / Path(p).name)
    assert main(["say", "--game", "chess", "--move", "e4", "--out",
                 str(tmp_path / "x.wav")]) == 2
    err = capsys.readouterr().err
    assert "espeak-ng is not installed" in err and err.count("\n") == 1


@needs_espeak
def test_the_pis_speaker_says_the_words_on_the_device_its_sounds_play_on(tmp_path,
                                                                          monkeypatch):
    """``[speech] device`` (a USB speaker, say) is where the words go too: espeak-ng left
    to itself spoke to the system's default output (and exited 0 with no sound card)."""
    played: list[tuple[bytes, str]] = []
    monkeypatch.setattr(voice, "play_wav", lambda data, device: played.append((data, device)))
    speaker = Speaker(device="plughw:1,0", play=lambda data, device: played.append(
        (data, device)))
    speaker(Announcement(1, "move", "move", "Mule b1 to c3", "en"))
    speaker.close(timeout=15)
    assert speaker.failures == {}
    assert [device for _, device in played] == ["plughw:1,0", "plughw:1,0"]
    words = tmp_path / "words.wav"
    words.write_bytes(played[1][0])
    seconds, rms = _loudness(words)
    assert 0.4 < seconds < 15 and rms > 0.01


@needs_espeak
@pytest.mark.skipif(shutil.which("aplay") is None,
                    reason="aplay is not installed (apt-get install alsa-utils)")
def test_the_real_aplay_plays_the_words_and_a_missing_device_is_one_clear_line():
    """The Pi's path itself: espeak-ng's WAV through the real ``aplay`` to ALSA's null
    device (the one every ALSA install has), and to a device that is not there — the error
    the speaker reports, one line naming the program."""
    voice.speak("Pawn e2 to e4", "en", device="null")
    with pytest.raises(voice.VoiceError, match=r"^aplay failed: .*audio open error") as e:
        voice.play_wav(voice.wav("e4", "en"), device="no-such-speaker")
    assert "\n" not in str(e.value)
