"""The board's voice as sound: espeak-ng (the real program) speaks phrases of every game in
every language into WAV files that are not silent and of a plausible length; the event
sounds are generated, distinct and audible; ``fairyboard say`` renders one phrase."""

from __future__ import annotations

import array
import shutil
import wave
from pathlib import Path

import pytest

from controller.cli import main
from controller.rules import GAMES, get_game
from controller.speech import sounds, voice
from controller.speech.lang import LANGUAGES, speaking
from controller.speech.words import move_words

needs_espeak = pytest.mark.skipif(
    shutil.which("espeak-ng") is None,
    reason="espeak-ng is not installed (scripts/test installs it)")


def _loudness(path: Path) -> tuple[float, float]:
    """(seconds, root-mean-square of the samples, 0..1) of a 16-bit mono WAV file."""
    with wave.open(str(path), "rb") as w:
        assert w.getsampwidth() == 2
        frames = w.readframes(w.getnframes())
        seconds = w.getnframes() / w.getframerate()
    data = array.array("h", frames)
    rms = (sum(x * x for x in data) / max(1, len(data))) ** 0.5 / 32768
    return seconds, rms


@needs_espeak
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_espeak_speaks_each_game_in_each_language(tmp_path, lang):
    for name in GAMES:
        game = get_game(name)
        pos = game.start()
        move = game.legal_moves(pos)[0]
        with speaking(lang):
            text = move_words(game, pos, move)
        out = voice.render(text, lang, tmp_path / f"{name}.wav")
        seconds, rms = _loudness(out)
        assert 0.4 < seconds < 15, (name, lang, text, seconds)
        assert rms > 0.01, (name, lang, text, rms)


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
