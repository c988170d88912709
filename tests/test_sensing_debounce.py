"""Per-spot debouncing and the settle gate (design/interaction.md, principle 2)."""

from __future__ import annotations

import random

import pytest

from controller.sensing.debounce import (
    PASSTHROUGH,
    DebounceConfig,
    Debouncer,
    SensingPipeline,
    SettleGate,
    travelled_on,
)
from controller.sensing.frame import Frame, digital_frame


def F(t, *occupied_spots, n=6):
    return digital_frame(t, [i in occupied_spots for i in range(n)])


def test_bounce_shorter_than_the_scan_count_is_ignored():
    d = Debouncer(DebounceConfig(scans=3, stable_s=0.0))
    assert d.feed(F(0.000, 0)) == F(0.000, 0)  # the first scan is the initial state
    assert d.feed(F(0.001, 0, 1)) is None
    assert d.feed(F(0.002, 0)) is None  # bounced back
    assert d.feed(F(0.003, 0, 1)) is None
    assert d.feed(F(0.004, 0, 1)) is None
    out = d.feed(F(0.005, 0, 1))
    assert out == F(0.005, 0, 1)
    assert d.feed(F(0.006, 0, 1)) is None  # reported once


def test_stability_time_is_required_as_well_as_scans():
    d = Debouncer(DebounceConfig(scans=2, stable_s=0.010))
    d.feed(F(0.0))
    assert d.feed(F(0.001, 2)) is None
    assert d.feed(F(0.002, 2)) is None  # two scans but only 1 ms
    assert d.feed(F(0.010, 2)) is None
    assert d.feed(F(0.011, 2)) == F(0.011, 2)


def test_spots_are_debounced_separately_and_changes_in_one_scan_give_one_frame():
    d = Debouncer(DebounceConfig(scans=2, stable_s=0.0))
    d.feed(F(0.0, 0))
    assert d.feed(F(0.001, 1)) is None
    assert d.feed(F(0.002, 1)) == F(0.002, 1)  # 0 left and 1 arrived together
    d.feed(F(0.003, 1, 2))
    d.feed(F(0.004, 1, 3))  # 2 flickered, 3 starts
    assert d.feed(F(0.005, 1, 3)) == F(0.005, 1, 3)


def test_analog_state_is_debounced_as_a_whole():
    d = Debouncer(DebounceConfig(scans=2, stable_s=0.0))
    base = Frame(0.0, (True,), (1,), (1,))
    d.feed(base)
    assert d.feed(Frame(0.01, (True,), (2,), (1,))) is None
    assert d.feed(Frame(0.02, (True,), (2,), (1,))) == Frame(0.02, (True,), (2,), (1,))


def test_debounce_config_is_checked():
    with pytest.raises(ValueError, match="scans"):
        DebounceConfig(scans=0)
    with pytest.raises(ValueError, match="negative"):
        DebounceConfig(stable_s=-1)
    with pytest.raises(ValueError, match="negative"):
        SettleGate(settle_s=-0.1)


def test_non_extendable_frames_commit_at_once():
    g = SettleGate(lambda f: False, settle_s=0.2)
    g.feed(F(1.0, 0))
    assert list(g.release(1.0)) == [F(1.0, 0)]


def test_extendable_frame_waits_for_the_settle_time():
    g = SettleGate(lambda f: True, settle_s=0.2)
    g.feed(F(1.0, 3))
    assert list(g.release(1.1)) == []
    assert list(g.release(1.199)) == []
    assert list(g.release(1.2)) == [F(1.0, 3)]


def test_a_slide_counts_only_where_it_ends():
    # rook on 0 slides over 1 and 2 to 3: each stop is a legal, extendable move
    g = SettleGate(lambda f: f.occupied[0] is False and sum(f.occupied) == 1, settle_s=0.2)
    g.feed(F(0.0, 0))
    assert list(g.release(0.0)) == [F(0.0, 0)]
    for t, spot in ((0.05, 1), (0.10, 2), (0.15, 3)):
        g.feed(F(t, spot))
    assert list(g.release(0.2)) == []
    assert list(g.release(0.35)) == [F(0.15, 3)]
    assert g.dropped == 2


def test_a_fast_second_move_keeps_the_first():
    # slider arrives on 3 (held), then the opponent lifts the piece on 5 within 200 ms:
    # the piece on 3 did not travel on, so the first move is released before the lift
    g = SettleGate(lambda f: f.occupied == F(0, 3, 5).occupied, settle_s=0.2)
    g.feed(F(0.0, 0, 5))
    list(g.release(0.0))
    g.feed(F(0.10, 3, 5))
    g.feed(F(0.15, 3))
    assert list(g.release(0.15)) == [F(0.10, 3, 5), F(0.15, 3)]
    assert g.dropped == 0


def test_intermediate_non_extendable_states_are_queued_never_dropped():
    g = SettleGate(lambda f: False, settle_s=0.2)
    frames = [F(0.01 * k, k % 6) for k in range(10)]
    for f in frames:
        g.feed(f)
    assert list(g.release(1.0)) == frames


def test_is_extendable_is_asked_after_the_consumer_saw_earlier_frames():
    seen = []

    def extendable(frame):
        assert seen and seen[-1].time < frame.time or not seen
        return False

    g = SettleGate(extendable)
    for k in range(5):
        g.feed(F(k * 0.01, k))
    for f in g.release(1.0):
        seen.append(f)
    assert len(seen) == 5


def test_output_does_not_depend_on_how_often_the_consumer_polls():
    rng = random.Random(5)
    frames = []
    t = 0.0
    for _ in range(60):
        t += rng.choice([0.02, 0.05, 0.1, 0.3])
        frames.append(F(round(t, 3), *rng.sample(range(6), rng.randrange(1, 4))))

    def run(poll_times):
        g = SettleGate(lambda f: f.occupied[0], settle_s=0.2)
        out, k = [], 0
        for now in poll_times:
            while k < len(frames) and frames[k].time <= now:
                g.feed(frames[k])
                k += 1
            out += list(g.release(now))
        return out

    end = t + 1
    dense = run([i * 0.001 for i in range(int(end * 1000) + 1)])
    sparse = run(sorted({round(rng.uniform(0, end), 3) for _ in range(40)} | {end}))
    assert dense == sparse
    assert dense  # and something came out


def test_travelled_on_compares_arrivals():
    prev, held = F(0, 0), F(1, 1)
    assert travelled_on(prev, held, F(2, 2))
    assert not travelled_on(prev, held, F(2, 1, 4))
    stacked = Frame(0, (True,), (1,), (1,)), Frame(1, (True,), (2,), (1,))
    assert travelled_on(*stacked, Frame(2, (True,), (1,), (1,)))


class ListBackend:
    def __init__(self, frames, debounced=False):
        self.frames = list(frames)
        self.debounced = debounced
        self.closed = False

    def read(self):
        return [self.frames.pop(0)] if self.frames else []

    def close(self):
        self.closed = True


def test_pipeline_debounces_then_gates():
    raw = [F(0.001 * k, 0) for k in range(5)] + [F(0.005 + 0.001 * k, 1) for k in range(5)]
    now = [0.0]
    p = SensingPipeline(ListBackend(raw), lambda: now[0], settle_s=0.2)
    for _ in raw:
        p.update()
    now[0] = 0.02
    out = list(p.frames())
    assert [f.occupied_spots() for f in out] == [(0,), (1,)]
    assert out[1].time == pytest.approx(0.008)  # 3 scans and 3 ms after the change
    assert p.stable.occupied_spots() == (1,)
    p.close()
    assert p.backend.closed


def test_pipeline_passes_debounced_backends_through():
    p = SensingPipeline(ListBackend([F(0, 0), F(0.001, 1)], debounced=True), lambda: 1.0)
    assert p.debouncer.config == PASSTHROUGH
    p.update()
    p.update()
    assert [f.occupied_spots() for f in p.frames()] == [(0,), (1,)]
