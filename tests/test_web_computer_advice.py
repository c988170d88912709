"""Hints, the evaluation, the coach and the clock from the page, in real Chromium, in a
game against the computer started from the New-game dialog.

A hint press names a move and lights it on the board (the page's LEDs show where it
starts and where it goes); the evaluation is shown when asked for; with the Coach box
ticked a move that loses the Queen is named with the better one — after the computer
has already replied; a clock set in the dialog counts down on the page and, when the
person's flag falls, the game ends (the computer wins on time).
"""

from __future__ import annotations

import re

import pytest

from tests.support.computerpage import computer_pages
from tests.support.webtools import playwright_or_skip

HANGING = "4k3/8/8/4p3/n7/8/8/3QK3 w - - 0 1"  # Qd4?? loses the Queen; Qxa4 wins a Knight


@pytest.fixture(scope="module")
def cp(tmp_path_factory):
    sync_api = playwright_or_skip()
    with computer_pages(sync_api, tmp_path_factory.mktemp("advice"), ["square8"]) as pages:
        yield pages["square8"]


def test_hint_evaluation_and_coach_from_the_page(cp):
    page = cp.page
    cp.new_game("chess", {}, ["Black"], level=1, setup=HANGING)
    advice = page.locator("#advice")
    # a hint: named on the page, lit on the board where it starts and where it goes
    page.click("#advice-box [data-command=hint]")
    cp.wait("S.advice.hint")
    cp.expect(advice).to_contain_text("Hint: Qxa4+ (lit in lime on the board)")
    for cell in ("d1", "a4"):  # (it blinks: lit at some moment)
        cp.page.wait_for_function(
            "name => { const i = ui.layout.spots.findIndex((s) => s.name === name);"
            " return ui.leds[i][1] > 0 && document.querySelector(`[data-led='${i}']`)"
            ".getAttribute('fill') === ui.leds[i][0]; }", arg=cell, timeout=10_000)
    # the evaluation on request: good for White (a Knight for free), its best move
    page.click("#advice-box [data-command=evaluate]")
    cp.wait("S.advice.evaluation")
    cp.expect(advice).to_contain_text("Evaluation for the side to move: +")
    cp.expect(advice).to_contain_text("best Qxa4+")
    assert cp.state()["advice"]["evaluation"]["score"] > 200
    # the coach: ticked on the page, it names the Queen lost and the better move, also
    # once the computer has answered the poor move
    page.check("#coach-on")
    cp.wait("S.advice.coach")
    game, pos, _ = cp.game()
    cp.play(game, pos, game.parse_move(pos, "Qd4"))
    cp.wait("S.moves.length >= 2")  # the computer replied
    cp.wait("S.advice.note")
    cp.expect(advice).to_contain_text("Coach: Qd4 loses about")
    cp.expect(advice).to_contain_text("Qxa4+ was better")
    assert cp.state()["advice"]["note"]["ply"] == 1


def test_a_clock_from_the_dialog_counts_down_and_the_flag_ends_the_game(cp):
    page = cp.page
    cp.new_game("chess", {}, ["Black"], level=1, clock="0.05")  # 3 seconds each
    clocks = page.locator("#clocks .clock")
    cp.expect(clocks).to_have_count(2)
    white = clocks.nth(0)
    cp.expect(white).to_have_class(re.compile(r"\brunning\b"), timeout=10_000)
    first = float(white.locator("b").inner_text())
    assert first <= 3.0
    page.wait_for_function(  # counting down on the page
        "t => Number(document.querySelector('#clocks .clock b').textContent) < t - 0.5",
        arg=first, timeout=10_000)
    assert clocks.nth(1).locator("b").inner_text() == "3.0"  # the computer's waits
    # the person's flag falls: the game ends, the computer wins on time
    cp.wait("S.result", timeout=20_000)
    result = cp.state()["result"]
    assert result["text"] == "0-1" and result["reason"] == "time forfeit"
    cp.expect(page.locator("#turn-text")).to_have_text("0-1 — time forfeit")
    cp.expect(white).to_have_class(re.compile(r"\bflag\b"))
    assert white.locator("b").inner_text() == "0.0"
