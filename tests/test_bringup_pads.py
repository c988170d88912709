"""The LED walk's questions answered on the option pads (issue #31): a builder at the board
touches a piece to the pad that offers his answer, with neither the page nor the keyboard.
The emulated builder here touches the pads of the emulated board; the answers go through
the real sensing (the rig, or the emulated Pico over the serial link)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import controller.bringup as bringup
from controller.bringup import run_self_test
from controller.config import Config
from controller.layout import load_layout
from controller.sensing.ledcheck import (
    COLOUR_ANSWERS,
    MORE,
    PadMenu,
    Question,
    offered,
)
from controller.sensing.sim.builder import EmulatedBuilder
from controller.sensing.sim.faults import swap_mux_inputs, wire_led_chain

SQUARE8 = load_layout("square8")
PADS = [SQUARE8.spot_index(s.name) for s in SQUARE8.pads("option")]
YES_NO = Question("lit", "Is an LED lit? ", "y")


class Pads:
    """Frames whose option pads read what ``touch`` says, one frame per read."""

    def __init__(self, layout=SQUARE8):
        self.occupied = [False] * len(layout.spots)
        self.script: dict[int, tuple[int, bool]] = {}
        self.reads = 0
        self.written: list[list] = []

    def read(self):
        self.reads += 1
        if self.reads in self.script:
            pad, on = self.script[self.reads]
            self.occupied[PADS[pad]] = on
        return SimpleNamespace(occupied=tuple(self.occupied))


def _menu(pads: Pads, timeout_s: float = 1.0) -> PadMenu:
    return PadMenu(SQUARE8, pads.read, pads.written.append, lambda s: None,
                   ((1, 0, 0), (0, 1, 0), (0, 0, 1)), poll_s=0.02, timeout_s=timeout_s)


def test_the_pad_touched_gives_its_answer_and_the_pads_light_in_option_colours():
    pads = Pads()
    pads.script = {4: (1, True), 5: (1, False)}
    menu = _menu(pads)
    menu.write([(0, 0, 0)] * SQUARE8.led_count)
    assert menu.choose(YES_NO) == "n"
    lit = pads.written[1]  # the question's LEDs with the menu on the pads
    assert [lit[SQUARE8.spots[p].led] for p in PADS[:2]] == [(1, 0, 0), (0, 1, 0)]
    assert pads.written[-1] == [(0, 0, 0)] * SQUARE8.led_count  # the pads dark again


def test_a_pad_already_occupied_answers_only_once_cleared():
    pads = Pads()
    pads.occupied[PADS[0]] = True  # a piece left on pad 1 is not a "yes"
    pads.script = {3: (1, True)}
    assert _menu(pads).choose(YES_NO) == "n"
    pads = Pads()
    pads.occupied[PADS[0]] = True
    pads.script = {3: (0, False), 5: (0, True)}
    assert _menu(pads).choose(YES_NO) == "y"


def test_more_answers_than_pads_turn_the_page_on_the_last_pad():
    menu = _menu(Pads())
    pages = menu.pages(Question("colours", "?", "red green blue", ("a1", "b1", "c1")))
    assert [len(p) for p in pages] == [6, 4] and pages[0][-1] == MORE
    assert [a for p in pages for a in p if a != MORE] == list(COLOUR_ANSWERS)
    pads = Pads()
    pads.script = {3: (5, True), 4: (5, False), 7: (1, True)}  # more…, then page 2's pad 2
    assert _menu(pads).choose(pages and Question("colours", "?", "red green blue")) == \
        COLOUR_ANSWERS[6]


def test_no_touch_is_no_answer_and_a_typed_answer_wins():
    assert _menu(Pads(), timeout_s=0.2).choose(YES_NO) is None
    typed = iter([None, None, "b4"])
    where = Question("where", "?", "a1", choices=("a1", "h8", "none"))
    assert offered(where) == ("a1", "h8", "none")
    assert _menu(Pads()).choose(where, typed=lambda: next(typed)) == "b4"


class Recording(EmulatedBuilder):
    seen: list[EmulatedBuilder] = []

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        Recording.seen.append(self)


@pytest.fixture
def builders(monkeypatch):
    Recording.seen = []
    monkeypatch.setattr(bringup, "EmulatedBuilder", Recording)
    return Recording.seen


def _config(tmp_path: Path, layout: str) -> Config:
    config = Config()
    config.board.layout = config.board.game = layout
    config.journal.path = str(tmp_path / "journal")
    config.sensing.calibration = str(tmp_path / "calibration-{layout}.json")
    return config


def _never_asked(text: str) -> str:
    raise AssertionError(f"asked at the terminal: {text}")


def test_a_good_board_answered_on_the_pads_alone(tmp_path, builders):
    report = run_self_test(_config(tmp_path, "square8"), say=lambda t: None, ask=_never_asked)
    assert report.ok, report.text()
    (builder,) = builders
    assert builder.pressed == ["a1", "white-cube", "red green blue"]
    assert not SQUARE8.pads("option") or all(not builder.board.objects(p) for p in PADS)


@pytest.mark.parametrize("chain, named, pressed", [
    ({"reversed": True}, "LED chain wired from the far end", "white-cube"),
    ({"supply_v": 3.3}, "LED supply too low", "red none none"),  # on the second page
])
def test_a_chain_fault_named_from_answers_on_the_pads(tmp_path, builders, monkeypatch,
                                                     chain, named, pressed):
    opened = bringup._Bench.__init__

    def bench(self, *args, **kw):
        opened(self, *args, **kw)
        wire_led_chain(self.chain, **chain)

    monkeypatch.setattr(bringup._Bench, "__init__", bench)
    report = run_self_test(_config(tmp_path, "square8"), say=lambda t: None, ask=_never_asked)
    assert named in report.text()
    assert pressed in builders[0].pressed


def test_pads_that_read_nothing_leave_the_terminal(tmp_path, builders, monkeypatch):
    opened = bringup._Bench.__init__

    def bench(self, *args, **kw):
        opened(self, *args, **kw)
        for pad in SQUARE8.pads("option"):
            self.sim.break_sensor(pad.name, "dead")

    monkeypatch.setattr(bringup._Bench, "__init__", bench)
    report = run_self_test(_config(tmp_path, "square8"), say=lambda t: None, ask=_never_asked)
    text = report.text()
    assert "option-1" in text and "dead" in text and "LED chain" not in text, text
    assert "LED colour order: right" in text
    builder = builders[0]
    assert builder.pressed == []  # the pads' check found pad 1 reading nothing: typed
    assert [k for k, _ in builder.answers][:3] == ["where", "where", "colours"]


def test_lotus39_answered_on_the_pads_through_the_emulated_pico(tmp_path, builders):
    config = _config(tmp_path, "lotus39")
    config.sensing.backend = "simulated"
    config.sensing.simulated_link = True
    config.sensing.settle_ms, config.sensing.debounce_ms = 50.0, 5.0
    config.sensing.scan_hz = 50.0
    config.leds.driver = "serial"
    report = run_self_test(config, say=lambda t: None, ask=_never_asked)
    lotus = load_layout("lotus39")
    place = [lotus.spots[i].name for i in lotus.led_spots()]
    assert builders[0].pressed == [place[0], place[-1], "red green blue"], report.text()


def test_pads_whose_sensors_are_crossed_answer_nothing(tmp_path, builders, monkeypatch):
    """Two pads on each other's chain inputs would turn "yes" into "no": the pads' check
    finds it, the answers are typed (and right), the self-test names the pair."""
    square9 = load_layout("square9")
    one, two = (p.name for p in square9.pads("option")[:2])
    opened = bringup._Bench.__init__

    def bench(self, *args, **kw):
        opened(self, *args, **kw)
        swap_mux_inputs(self.sim, self.layout, one, two)

    monkeypatch.setattr(bringup._Bench, "__init__", bench)
    report = run_self_test(_config(tmp_path, "square9"), say=lambda t: None,
                           ask=_never_asked)
    assert builders[0].pressed == [] and "LED colour order: right" in report.text()
    assert f"the sensors of {one} and {two} are on each other's inputs" in report.text()
