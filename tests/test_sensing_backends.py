"""THE SAME FRAMES from every back end for the same simulated human actions.

A scripted human plays on the simulated square8 board; a recorder notes every physical
state the board passes through (bounces left out).  Each back end — Pi GPIO matrix with
and without diodes, 74HC165 chain bit-banged and through SPI, ADS1115 behind
multiplexers, and the firmware over a pseudo-terminal with keypad matrix, keypad shift
register and analog multiplexers — must commit exactly that sequence of states, each
within its latency, and the analog ones also the stack class and colour.
"""

from __future__ import annotations

import pytest

from controller.layout import load_layout
from controller.sensing.sim import BACKENDS, SimulatedBoard, SimulatedSensing

SQUARE8 = load_layout("square8")
#: how late a committed frame may be, per back end (debounce + scan period)
LATENCY = {"gpio": 0.006, "mcu": 0.021, "gpio-analog": 0.035, "mcu-analog": 0.045}


def script(board):
    """No three pieces on the corners of a matrix rectangle: the diode-less matrix must
    not ghost here (its ghosts have their own test)."""
    b = board
    yield lambda: b.put("a1", "white-rook")
    yield lambda: b.put("d4", "black-knight")
    yield lambda: b.put("g7", ["white-stone", "white-stone"])
    yield lambda: b.lift("a1")
    yield lambda: b.place("a3")
    yield lambda: b.slide(["d4", "d5", "d6"], dwell_s=0.1)
    yield lambda: b.bounce("b2")
    yield lambda: b.lift("g7", 1)
    yield lambda: b.place("h8")
    yield lambda: b.put("g7", ["white-stone", "white-stone"])  # a pile of three
    yield lambda: b.knock_over("d6", "e6")
    yield lambda: b.off_centre("a3", "a4")
    yield lambda: b.lift("a3")
    yield lambda: b.place("white-cube")
    yield lambda: (b.lift("e6"), b.set_aside())


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_back_end_commits_the_same_frames(backend):
    analog = backend.endswith("analog")
    board = SimulatedBoard(SQUARE8, seed=7)
    rig = SimulatedSensing(board, backend)
    truth = []  # (time, state) of every physical state, bounces left out

    def record():
        f = board.expected_frame(analog)
        state = f.state() if analog else f.occupied
        if not truth or truth[-1][1] != state:
            truth.append((f.time, state))

    board.every(0.001, record)
    try:
        board.advance(0.1)
        for action in script(board):
            action()
            board.advance(0.12)
        board.advance(0.3)
        frames = rig.committed()
    finally:
        rig.close()
    if analog:
        got = [(f.time, f.state()) for f in frames]
    else:
        got = [(f.time, f.occupied) for f in frames]
    assert len(truth) == (16 if analog else 14)  # analog also sees the pile of g7 change
    assert len(got) == len(truth)
    latency = LATENCY.get(backend, LATENCY[backend.split("-")[0]])
    for (t_got, s_got), (t_true, s_true) in zip(got[1:], truth[1:], strict=True):
        if analog:
            occ, stack, pol = s_got
            t_occ, t_stack, t_pol = s_true
            assert occ == t_occ
            for i in range(len(occ)):  # None: a leaning or lying pile, ambiguous
                if t_stack[i] is not None:
                    assert (stack[i], pol[i]) == (t_stack[i], t_pol[i]), SQUARE8.spots[i].name
        else:
            assert s_got == s_true
        assert 0 <= t_got - t_true <= latency, (t_got, t_true)


def test_stack_classes_appear_only_on_analog_back_ends():
    board = SimulatedBoard(SQUARE8, seed=1)
    digital = SimulatedSensing(board, "gpio-matrix")
    analog = SimulatedSensing(board, "gpio-analog")
    try:
        board.put("e4", ["black-stone"] * 4)
        board.advance(0.1)
        d, a = digital.committed()[-1], analog.committed()[-1]
        e4 = SQUARE8.spot_index("e4")
        assert d.occupied[e4] and d.stack[e4] is None and d.polarity[e4] is None
        assert a.occupied[e4] and a.stack[e4] == 3 and a.polarity[e4] == -1
    finally:
        digital.close()
        analog.close()


def test_the_diode_less_matrix_ghosts_where_the_others_do_not():
    board = SimulatedBoard(SQUARE8)
    rigs = {name: SimulatedSensing(board, name) for name in
            ("gpio-matrix", "gpio-matrix-no-diodes", "gpio-shift-spi")}
    try:
        for cell in ("b2", "f2", "b6"):
            board.put(cell, "white-pawn")
        board.advance(0.05)
        f6 = SQUARE8.spot_index("f6")
        last = {name: rig.committed()[-1] for name, rig in rigs.items()}
        assert last["gpio-matrix-no-diodes"].occupied[f6]
        assert not last["gpio-matrix"].occupied[f6]
        assert not last["gpio-shift-spi"].occupied[f6]
        assert f6 in rigs["gpio-matrix-no-diodes"].backend.ghost_suspects
    finally:
        for rig in rigs.values():
            rig.close()


def test_settle_gate_commits_a_slide_where_it_ends_on_every_back_end():
    board = SimulatedBoard(SQUARE8)

    def extendable(frame):  # the reconciler's view: the rook could still travel on
        return not frame.occupied[SQUARE8.spot_index("a1")] and any(frame.occupied)

    rigs = [SimulatedSensing(board, name, is_extendable=extendable, settle_s=0.2)
            for name in ("gpio-matrix", "mcu-shift")]
    try:
        board.put("a1", "white-rook")
        board.advance(0.1)
        board.slide(["a1", "a2", "a3", "a4", "a5"], dwell_s=0.05)
        board.advance(0.4)
        for rig in rigs:
            frames = rig.committed()
            assert [[SQUARE8.spots[i].name for i in f.occupied_spots()] for f in frames] == [
                ["a1"], ["a5"]]
    finally:
        for rig in rigs:
            rig.close()
