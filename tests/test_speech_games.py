"""Whole games by ear: each of the six games played to its end by the simulated hand on
the running service with the voice on, heard through a recording speaker (the Pi's
speaker's place).  Every move is announced once and in order, the end is said once (with
the last move, or alone when a player resigns), and in Lao Tzu Chess no phrase names a
cell or a piece its listener cannot see (``controller/sight.py``).  espeak-ng renders the
last phrase of each game to a WAV that is not silent and lasts as long as words take."""

from __future__ import annotations

import shutil
import wave

import pytest

from controller.service import BoardService
from controller.sight import Sight
from controller.speech.voice import render
from controller.web.simulator import move_actions
from tests.support.service import make_config

#: game, its printed board, a short line to its end (found by a seeded random search that
#: takes a win in one when it has one; a game without an end in the line is resigned)
GAMES = [
    ("chess", "square8", ["f3", "e5", "g4", "Qh4#"]),
    ("luotuoqi", "square8", ["Ee2-d3", "Ec7-d6", "T8d1-h5", "T7d8-a5+cube", "T6a5-b4",
                             "T2h5xf7"]),
    ("laotzu", "square8", ["c4", "e5", "h3", "g6", "c5", "f5", "a4", "Bd6", "g4", "b5",
                           "f4", "Nb6", "cxd6", "a6", "Qxc7#"]),
    ("lotus39", "lotus39", ["Ff3", "d5", "g4", "Ff5", "Acg3", "dc4", "Axg5", "d5", "Axg7#"]),
    ("kaleidochess", "kaleido89", ["8G-1D", "6J+6F", "8F-8E", "4F-3J", "1G+8I", "6K-7F",
                                   "2I+1J", "6I+5G", "1K+1F", "5J+6G", "2H+3J"]),
    ("gnuqi", "square9", ["Nd2", "Nd8", "Cg4", "Cc6"]),
]


class Recording:
    """The Pi's speaker, as a list of what it was given."""

    heard: list = []

    def __init__(self, **settings) -> None:
        Recording.heard = []

    def __call__(self, item) -> None:
        Recording.heard.append(item)

    def close(self, timeout: float = 0) -> None:
        pass


def _service(tmp_path, name, layout, monkeypatch):
    monkeypatch.setattr("controller.speech.room.Speaker", Recording)
    config = make_config(tmp_path, layout=layout, game=name)
    config.speech.speaker = True
    config.speech.voice = True
    return BoardService(config)


@pytest.mark.parametrize("name, layout, line", GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_is_heard_move_by_move_and_nothing_hidden_is_said(
        tmp_path, monkeypatch, name, layout, line):
    svc = _service(tmp_path, name, layout, monkeypatch)
    try:
        svc.new_game(name, {"seed": "3"} if name == "laotzu" else {})  # (its arrays)
        svc.sim_action({"action": "arrange"})
        svc.step(0.2)
        game = svc.game
        fog_checks = 0
        for ply, text in enumerate(line):
            before = svc.position.copy()
            move = game.parse_move(before, text)
            count = len(Recording.heard)
            for action in move_actions(game, before, move, svc.layout):
                svc.sim_action(action)
                svc.step(0.03)
            svc.step(0.3)
            if svc.interaction.phase == "choice":  # moves alike on the sensors: the person's
                svc.answer_choice(svc.choice_labels().index(text))
                svc.step(0.1)
            assert len(svc.plies) == ply + 1, (text, svc.interaction)
            new = [a for a in Recording.heard[count:] if a.event == "move"]
            assert len(new) == 1, (text, [a.text for a in Recording.heard[count:]])
            said = new[0].text
            assert said and "{" not in said and said != text, said  # words, not notation
            if game.hidden_information:  # said to the player who moves next, from his view
                listener = game.ply_mover(svc.position)
                sight = Sight(game, svc.position, listener)
                before_sight = Sight(game, before, listener)
                hidden = set(sight.fog) & set(before_sight.fog)
                names = {game.geometry.cells[c] for c in hidden}
                words = set(said.replace(",", " ").replace(";", " ").replace(".", " ").split())
                assert not words & names, (said, words & names)
                fog_checks += 1
        if svc.outcome is None:
            svc.command("resign")
            svc.step(0.1)
        assert svc.outcome is not None
        heard = Recording.heard
        assert [a.seq for a in heard] == list(range(1, len(heard) + 1))
        moves = [a for a in heard if a.event == "move"]
        assert len(moves) == len(line)
        ends = [a for a in heard if a.sound == "game_end"]
        assert len(ends) == 1, [a.text for a in heard]
        assert ends[0] is heard[-1] or heard[-1].event == "game_over"
        assert heard[-1].text.endswith(("wins.", "win.", "drawn."))
        if game.hidden_information:
            assert fog_checks == len(line)
        if shutil.which("espeak-ng"):
            out = render(heard[-1].text, "en", tmp_path / "last.wav")
            with wave.open(str(out)) as w:
                frames = w.readframes(w.getnframes())
                seconds = w.getnframes() / w.getframerate()
            assert 0.8 < seconds < 20, seconds
            assert max(abs(int.from_bytes(frames[i:i + 2], "little", signed=True))
                       for i in range(0, len(frames), 2)) > 1000
    finally:
        svc.close()
