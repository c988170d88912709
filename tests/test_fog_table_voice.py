"""The voice on a table that holds only the person's view (Lao Tzu against the computer,
the simulated hand off, ``controller/fogtable.py``): every step of the board's guidance —
a computer piece to put on as it comes into sight, one to take off as it goes out — is
said once, in the game's words ("Put White's Knight on e5", "Take White's Pawn off d4"),
after the computer's move told from his views ("White has moved; White Knight seen on
e5"), for the person's ears, and never names a piece or cell he may not know (``Watch`` checks
every tick that a cell said is one he has seen; each phrase is built here from his view,
or from the piece standing on his table, and must be what the voice said)."""

from __future__ import annotations

import random
import time

import pytest

from controller.i18n.lang import speaking
from controller.rules.core import Piece
from controller.service import BoardService
from controller.speech.words import guide_words
from controller.web.page import page_state
from tests.support.service import make_config
from tests.test_service_laotzu_table import PERSON, TablePerson, Watch


@pytest.fixture
def svc(tmp_path, monkeypatch):
    config = make_config(tmp_path, game="laotzu", computer=["White"], computer_level=1,
                         simulated_hand_moves=False, options={"seed": 5})
    config.sensing.scan_hz = 50.0
    service = BoardService(config)
    monkeypatch.setattr(service, "_computer_movetime", lambda now: 0.05)
    yield service
    service.close()


class Listening(TablePerson):
    """Follows the board's guidance and notes each step as the board asks it: the
    phrase the voice must say for it (from what he can see on his table)."""

    def __init__(self, svc, rng) -> None:
        super().__init__(svc, rng)
        self.steps: list[tuple[str, dict[str, str]]] = []
        self._last: tuple | None = None

    def act(self, action: dict) -> None:
        svc = self.svc
        it = svc.interaction
        if it.phase == "setup" and it.guide is not None:
            spot = svc.layout.spots[it.guide]
            put = it.guide not in it.extra
            key = (it.guide, put, len(svc.plies))
            if key != self._last:
                self._last = key
                n = len(svc.game.geometry.cells)
                if it.guide >= n:
                    piece = Piece(spot.owner, spot.piece)
                else:  # what he puts is of his view; what he takes off stands on his table
                    piece = (svc.expected_position().board[it.guide] if put else
                             next(Piece(int(o.startswith("black")), o.split("-")[1])
                                  for o in svc.sim.objects(it.guide)))
                texts = {}
                for code in ("en", "de", "zh"):
                    with speaking(code):
                        texts[code] = guide_words(svc.game, spot.name, piece, put,
                                                  it.guide >= n)
                self.steps.append((texts["en"], texts))
        super().act(action)


def _play(svc, person, plies: int, both: bool = False) -> None:
    """Play until ``plies`` plies are made and the board guided him (``both``: to put a
    piece on and to take one off)."""
    svc.sim_action({"action": "arrange"})
    svc.step(0.2)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        person.follow()
        kinds = {text.split()[0] for text, _ in person.steps}
        if svc.outcome is not None or (len(svc.plies) >= plies and kinds and (
                not both or kinds == {"Put", "Take"})):
            return
        if svc.game.ply_mover(svc.position) == PERSON and svc.interaction.phase == "turn":
            person.move()
        else:
            time.sleep(0.01)
            svc.step(0.05)
    pytest.fail(f"no guidance in {len(svc.plies)} plies")


def test_each_guidance_step_is_said_once_in_the_games_words(svc):
    watch = Watch(svc)  # (every tick: nothing said, lit or shown he may not know)
    person = Listening(svc, random.Random(3))
    _play(svc, person, 6, both=True)
    said = [a for a in svc.voice.json() if a["event"] == "guide"]
    assert said, svc.voice.json()
    # the newest steps: said in the order the board asked them, each once
    asked = [text for text, _ in person.steps][-len(said):]
    assert [a["text"] for a in said] == asked
    assert all(a["ears"] == PERSON and a["sound"] == "" for a in said)
    for a in said:
        texts = dict(person.steps)[a["text"]]
        assert a["texts"]["de"] == texts["de"] and a["texts"]["zh"] == texts["zh"]
        for code in ("de", "zh"):  # (translated, not English again)
            assert not a["texts"][code].startswith(("Put", "Take")), a["texts"]
        assert a["text"].startswith(("Put White's", "Take White's", "Put Black's",
                                     "Take Black's", "Take the piece off"))
    assert {a["text"].split()[0] for a in said} == {"Put", "Take"}
    assert watch.ticks > 50
    # the computer's moves are told from his views alone, for his ears
    heard = [a for a in svc.voice.json() if a["text"].startswith("White has moved")]
    assert heard and all(a["ears"] == PERSON and a["event"] == "move" for a in heard), [
        (a["event"], a["text"]) for a in svc.voice.json()]
    # the page's live region reads the same lines, made for his ears
    guides = [a for a in page_state(svc)["announcements"] if a["event"] == "guide"]
    assert [a["text"] for a in guides] == [a["text"] for a in said]


#: Black (the person) to move; White's Knight on e6, which no Black piece sees, blocks
#: his Pawn's double step
BLOCKED = "4k3/4p3/4N3/8/8/8/8/4K3[] b - - 0 1"


def test_a_refused_try_is_said_and_the_guidance_never_names_the_hidden_piece(svc):
    from controller.opponent import Computer
    from controller.web.simulator import move_actions

    svc.new_game("laotzu", {}, BLOCKED, computer=Computer(frozenset({0}), 1))
    Watch(svc)  # (every tick: nothing said, lit or shown he may not know)
    svc.sim_action({"action": "arrange"})
    svc.step(0.2)
    game = svc.game
    assert svc.expected_position().board[game.geometry.cells.index("e6")] is None
    table = svc.expected_position()
    move = game.parse_move(table, "e7e5")
    for action in move_actions(game, table, move, svc.layout):
        svc.sim_action(action)
        svc.step(0.04)
    person = Listening(svc, random.Random(1))
    person.follow()
    said = svc.voice.json()
    refused = [a for a in said if a["event"] == "illegal"]
    assert len(refused) == 1 and refused[0]["ears"] == PERSON, said
    assert refused[0]["text"] == "Illegal move" and refused[0]["texts"]["de"] != "Illegal move"
    guides = [a["text"] for a in said if a["event"] == "guide"]
    assert guides == ["Take Black's Pawn off e5", "Put Black's Pawn on e7"], guides
    assert not [a for a in said if "e6" in a["text"] or "Knight" in a["text"]], said
    assert len(svc.plies) == 0 and svc.interaction.phase == "turn"
