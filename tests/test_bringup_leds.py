"""The LED walk asks the builder what lit and names the chain's fault (issue #31): a chain
fed from the far end gave a 980-line summary, two swapped LEDs read "columns 6 and 7
shorted", and the walk never asked what the builder saw.  The builder here is emulated:
he answers from what the emulated chain really shows, faults and all."""

from __future__ import annotations

from pathlib import Path

import pytest

import controller.bringup as bringup
from controller.bringup import run_self_test
from controller.config import Config
from controller.layout import load_layout
from controller.leds.simulated import SimulatedChain
from controller.sensing.ledcheck import Question, check_chain
from controller.sensing.sim import SimulatedBoard
from controller.sensing.sim.builder import EmulatedBuilder
from controller.sensing.sim.faults import set_led_chips, swap_led_colours, wire_led_chain
from controller.sensing.sim.ledchain import LedChainWiring

SQUARE8 = load_layout("square8")
KALEIDO89 = load_layout("kaleido89")
#: the spot each LED place of square8 is under (LED 0: a1 … LED 81: the guide's last)
PLACE = [SQUARE8.spots[i].name for i in SQUARE8.led_spots()]


def _check(layout, **faults):
    chain = SimulatedChain(layout)
    if faults:
        wire_led_chain(chain, **faults)
    builder = EmulatedBuilder(SimulatedBoard(layout), layout, chain.seen_all,
                              lambda s: None)
    return check_chain(layout, chain.write, builder.answer, lambda s: None, 0.0,
                       data_pin="GPIO18"), builder


def test_a_chain_built_as_the_guide_says_costs_three_questions():
    check, builder = _check(SQUARE8)
    assert check.faults == [] and check.colours_seen == "RGB" and not check.reversed
    assert [kind for kind, _ in builder.answers] == ["where", "where", "colours"]
    assert builder.answers[0] == ("where", "a1") and check.lit_up_to == 81


@pytest.mark.parametrize("faults, named", [
    ({"reversed": True}, "LED chain wired from the far end: its data comes in at the LED "
     f"under {PLACE[81]} (the guide's last): move the data wire from GPIO18 to DIN of the "
     f"LED under {PLACE[0]}"),
    ({"broken_after": 40}, f"LED chain stops after LED 40 (under {PLACE[40]}): LEDs 41 to 81"
     f" stay dark — the wire from DOUT of the LED under {PLACE[40]} to DIN of the LED under "
     f"{PLACE[41]} is open, or the LED under {PLACE[41]} is dead"),
    ({"broken_after": 0}, "LED chain stops after LED 0 (under a1)"),
    ({"broken_after": -1}, "no LED lights: the chain gets no data or no power — check 5 V "
     "and GND at the LED under a1"),
    ({"supply_v": 3.3}, "LED supply too low: red lights but green and blue do not"),
    ({"reversed": True, "broken_after": 20}, "LED chain stops after LED 20"),
])
def test_each_chain_fault_is_named_from_the_answers(faults, named):
    check, builder = _check(SQUARE8, **faults)
    assert any(f.startswith(named) for f in check.faults), check.faults
    assert len(check.faults) == 1 + bool(faults.get("reversed") and "broken_after" in faults)
    assert check.questions <= 10  # the break is found by halving the chain


def test_a_broken_chain_reversed_knows_which_leds_light():
    check, _ = _check(SQUARE8, reversed=True, broken_after=20)
    assert check.reversed and check.lit_up_to == 20
    assert check.led_of(81) == 0 and check.led_of(61) == 20 and check.led_of(60) is None


def test_the_emulated_chain_moves_the_colours_as_wired():
    wiring = LedChainWiring(4, reversed=True, swapped=((0, 1),), broken_after=2)
    colours = [(1, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0)]
    # LED k lands at place 3 - k, places 0 and 1 swapped; LED 3 (at place 1) gets no data
    assert wiring.seen(colours) == [(3, 0, 0), (0, 0, 0), (2, 0, 0), (1, 0, 0)]
    assert LedChainWiring(1, supply_v=3.3).seen([(9, 9, 9)]) == [(9, 0, 0)]
    assert LedChainWiring(1, supply_v=1.0).seen([(9, 9, 9)]) == [(0, 0, 0)]


def test_enter_takes_the_guides_answer_and_nonsense_is_asked_again():
    chain = SimulatedChain(SQUARE8)
    asked: list[Question] = []

    def terminal(answers):
        def look(q: Question) -> str:
            asked.append(q)
            return answers.pop(0) if answers else ""
        return look

    check = check_chain(SQUARE8, chain.write, terminal([]), lambda s: None, 0.0)
    assert check.faults == [] and check.colours_seen == "RGB" and len(asked) == 3
    asked.clear()
    check = check_chain(SQUARE8, chain.write, terminal(["x9", "banana", "zz"]),
                        lambda s: None, 0.0)
    assert not check.answered and check.faults == [] and len(asked) == 3
    assert asked[2].text.startswith("'banana' is not an answer here. One LED is lit")


# --- the whole self-test, through the configured back end ---------------------------------


def _selftest(monkeypatch, config: Config, chips: str | None = None, **faults):
    opened = bringup._Bench._open_leds

    def seeded(self):
        opened(self)
        mcu = getattr(getattr(self.sensing, "rig", None), "mcu", None)
        wire_led_chain(self.chain if mcu is None else mcu, **faults)
        if chips is not None and mcu is None:
            swap_led_colours(self.chain, chips)
        elif chips is not None:
            set_led_chips(mcu, chips)
    monkeypatch.setattr(bringup._Bench, "_open_leds", seeded)
    return run_self_test(config, say=lambda text: None)


def _pico(tmp_path: Path, layout: str) -> Config:
    config = Config()
    config.board.layout = config.board.game = layout
    config.journal.path = str(tmp_path / "journal")
    config.sensing.calibration = str(tmp_path / "calibration-{layout}.json")
    config.sensing.simulated_link = True
    config.sensing.settle_ms, config.sensing.debounce_ms, config.sensing.scan_hz = 50.0, 5.0, 50.0
    config.leds.driver = "serial"
    return config


def test_two_swapped_leds_are_named_as_leds_not_as_shorted_columns(monkeypatch):
    g6, h6 = SQUARE8.spot("g6").led, SQUARE8.spot("h6").led
    report = _selftest(monkeypatch, Config(), swapped=((g6, h6),))
    fault_lines = [line for line in report.text().splitlines()
                   if line.startswith(("LEDs:", "wiring", "dead", "crosstalk", "ghost"))]
    assert fault_lines == [
        f"LEDs: LEDs {min(g6, h6)} and {max(g6, h6)} of the chain swapped: the LED for "
        f"{'g6' if g6 < h6 else 'h6'} lights under {'h6' if g6 < h6 else 'g6'} and the one "
        f"for {'h6' if g6 < h6 else 'g6'} under {'g6' if g6 < h6 else 'h6'} — run the data "
        f"wire through them in the guide's order ({'g6' if g6 < h6 else 'h6'} first)"]


def _led_lines(report) -> list[str]:
    return [line for line in report.text().splitlines()
            if line.startswith(("LED", "wiring", "dead", "crosstalk", "ghost"))
            and not line.startswith("LEDs walked")]


@pytest.mark.parametrize("a, b", [("a1", "b1"), ("b1", "f4")])
def test_two_swapped_leds_among_the_colour_question_s_are_not_a_colour_order(monkeypatch,
                                                                             a, b):
    """LEDs 0 and 1 swapped showed red, green, blue as green, red, blue under a1, b1, c1:
    the self-test said "set [leds] pixel_order = GRB" on chips of the right order (and a
    swap with a far LED showed 'red, nothing, blue').  The walk finds the swap; the
    colour question is asked again about the spots those LEDs really light."""
    la, lb = SQUARE8.spot(a).led, SQUARE8.spot(b).led
    report = _selftest(monkeypatch, Config(), swapped=((la, lb),))
    assert _led_lines(report) == [
        f"LEDs: LEDs {la} and {lb} of the chain swapped: the LED for {a} lights under {b} "
        f"and the one for {b} under {a} — run the data wire through them in the guide's "
        f"order ({a} first)", "LED colour order: right"], report.text()
    assert report.colours_seen == "RGB" and report.pixel_order_fix == ""


def test_two_swapped_leds_and_chips_of_another_order_are_both_named(monkeypatch, tmp_path):
    """Through the emulated Pico: LEDs 0 and 1 swapped and GRB chips on an RGB setting —
    the fix asked for is the chips' order, not the one the swap would suggest (RGB)."""
    config = _pico(tmp_path, "kaleido89")
    config.leds.pixel_order = "RGB"
    first, second = (s.name for s in KALEIDO89.spots if s.led in (0, 1))
    report = _selftest(monkeypatch, config, chips="GRB", swapped=((0, 1),))
    lines = _led_lines(report)
    assert lines[0] == ('LED colour order: red, green, blue showed as green, red, blue: set '
                        '[leds] pixel_order = "GRB"'), report.text()
    assert lines[1].startswith("LEDs: LEDs 0 and 1 of the chain swapped") and len(lines) == 2


def test_a_chain_fed_from_the_far_end_with_its_first_two_leds_swapped(monkeypatch):
    """The first LED lit under neither end was ignored, so a chain fed from the far end
    whose first two chips were swapped read as 33 pairs of swapped LEDs and a swapped row;
    the last LED under the guide's first spot says the chain is fed from the far end."""
    report = _selftest(monkeypatch, Config(), reversed=True, swapped=((80, 81),))
    far, near = PLACE[81], PLACE[80]
    assert _led_lines(report) == [
        "LEDs: LED chain wired from the far end: its data comes in at the LED under "
        f"{far} (the guide's last): move the data wire from GPIO10 to DIN of the LED under "
        "a1 and run DOUT → DIN in the guide's order from there",
        f"LEDs: LEDs 0 and 1 of the chain swapped: the LED for {far} lights under {near} "
        f"and the one for {near} under {far} — run the data wire through them in the "
        f"guide's order ({far} first)", "LED colour order: right"], report.text()


def test_a_reversed_chain_is_one_line_and_every_sensor_is_still_checked(monkeypatch):
    report = _selftest(monkeypatch, Config(), reversed=True)
    text = report.text()
    assert report.checked == 82 and report.dead == [] and report.crosstalk == []
    assert len(text.splitlines()) <= 6, text
    assert "LEDs: LED chain wired from the far end" in text and "faults found" in text


def test_a_broken_chain_on_the_pico_names_the_break_and_walks_the_dark_spots(monkeypatch,
                                                                            tmp_path):
    report = _selftest(monkeypatch, _pico(tmp_path, "lotus39"), broken_after=20)
    assert report.checked == 47 and report.dead == [] and report.wiring == []
    assert [f.split(" (")[0] for f in report.led_faults] == ["LED chain stops after LED 20"]


def test_the_pico_led_walk_shows_every_led(monkeypatch, tmp_path):
    """The simulated Pico printed "LEDs walked: 82" while its chain showed 4 of them: the
    walk wrote frames faster than the link sends them (the newest wins)."""
    from controller.sensing.sim import circuitpython

    walked: set[int] = set()
    shown = circuitpython._NeoPixel.show

    def show(self):
        shown(self)
        walked.update(k for k, px in enumerate(self.shown) if px[:3] == (40, 40, 40))
    monkeypatch.setattr(circuitpython._NeoPixel, "show", show)
    report = run_self_test(_pico(tmp_path, "kaleido89"), say=lambda text: None)
    assert report.ok, report.text()
    assert report.leds_walked == 96 and walked == set(range(96))
