"""LED drivers: each real driver against emulated Pi hardware, the microcontroller link
payload, the rate limit with an injected clock, the simulated chain's pictures."""

from __future__ import annotations

import struct
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.interaction import Interaction
from controller.layout import load_layout
from controller.leds import (
    LedError,
    LedFrame,
    Lights,
    LinkLeds,
    NeoPixelLeds,
    NeoPixelSpiLeds,
    SceneRenderer,
    SimulatedChain,
    ThrottledLeds,
    decode_led_frame,
    encode_led_frame,
    make_driver,
)
from controller.leds.emulation import (
    BIT0,
    BIT1,
    bytes_from_spi,
    colours_from_bytes,
    emulated_hardware,
)

LAYOUT = load_layout("square8")
N = LAYOUT.led_count


def frame_of(n: int, seed: int = 1) -> LedFrame:
    """A frame with distinct, odd-valued colours (so channel swaps and dimming show)."""
    return LedFrame.steady([((seed * 7 + 3 * i) % 256, (seed * 11 + 5 * i + 1) % 256,
                             (seed * 13 + 7 * i + 2) % 256) for i in range(n)])


class Clock:
    def __init__(self, t: float = 100.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


# --- neopixel (Pi <= 4) ----------------------------------------------------------------

@pytest.mark.parametrize("pin,gpio", [("D18", 18), ("D10", 10)])
def test_neopixel_driver_puts_the_frame_on_the_wire(pin, gpio):
    with emulated_hardware() as wire:
        leds = NeoPixelLeds(N, pin=pin, pixel_order="GRB")
        frame = frame_of(N)
        leds.show(frame)
        assert len(wire.gpio) == 1  # auto_write off: one transfer per frame, not one per LED
        sent_gpio, data = wire.gpio[0]
        assert sent_gpio == gpio
        assert len(data) == 3 * N
        r, g, b = frame.pixels[0]
        assert data[:3] == bytes((g, r, b))  # WS2812B channel order on the wire
        assert colours_from_bytes(data, "GRB") == list(frame.pixels)  # brightness 1.0: exact
        assert leds.pixels.brightness == 1.0 and leds.pixels.auto_write is False


def test_neopixel_driver_pixel_order_and_close():
    with emulated_hardware() as wire:
        leds = NeoPixelLeds(4, pin="D18", pixel_order="rgb")
        leds.show(LedFrame.steady([(1, 2, 3)] * 4))
        assert wire.gpio[-1][1] == bytes((1, 2, 3)) * 4
        leds.close()
        assert wire.gpio[-1][1] == bytes(12)  # closing turns the chain dark
        assert leds.pixels.deinited
        with pytest.raises(LedError, match="closed"):
            leds.show(LedFrame.steady([(1, 2, 3)] * 4))


def test_neopixel_driver_refuses_bad_set_up():
    with emulated_hardware():
        with pytest.raises(LedError, match="pin must be one of D18, D12, D21, D10"):
            NeoPixelLeds(N, pin="D4")
        with pytest.raises(LedError, match="pixel_order must be one of"):
            NeoPixelLeds(N, pixel_order="GRBX")
        leds = NeoPixelLeds(3)
        with pytest.raises(LedError, match="frame has 4 colours, the chain has 3 LEDs"):
            leds.show(LedFrame.steady([(0, 0, 0)] * 4))


@pytest.mark.parametrize("module", ["neopixel", "board"])
def test_missing_hardware_package_names_the_pip_extra(monkeypatch, module):
    with emulated_hardware():
        monkeypatch.setitem(sys.modules, module, None)  # makes "import module" fail
        with pytest.raises(LedError, match=r"pip install fairyboard\[pi\]") as err:
            NeoPixelLeds(N)
        assert repr(module) in str(err.value)


def test_missing_neopixel_spi_names_the_pip_extra(monkeypatch):
    with emulated_hardware():
        monkeypatch.setitem(sys.modules, "neopixel_spi", None)
        with pytest.raises(LedError, match=r"adafruit-circuitpython-neopixel-spi.*"
                                           r"pip install fairyboard\[pi\]"):
            NeoPixelSpiLeds(N)


# --- neopixel-spi (Pi 5) ---------------------------------------------------------------

def test_neopixel_spi_driver_puts_the_frame_on_the_wire():
    with emulated_hardware() as wire:
        leds = NeoPixelSpiLeds(N, pixel_order="GRB")
        frame = frame_of(N, seed=3)
        leds.show(frame)
        assert len(wire.spi) == 1
        baud, raw = wire.spi[0]
        assert baud == 6_400_000
        reset = round(6_400_000 * 80e-6 / 8)  # 64 zero bytes before and after
        assert raw[:reset] == bytes(reset) and raw[-reset:] == bytes(reset)
        assert len(raw) == 2 * reset + 8 * 3 * N  # one SPI byte per data bit
        assert set(raw[reset:-reset]) <= {BIT0, BIT1}
        assert colours_from_bytes(bytes_from_spi(raw), "GRB") == list(frame.pixels)
        leds.close()
        assert bytes_from_spi(wire.spi[-1][1]) == bytes(3 * N)
        assert leds.spi.deinited


def test_neopixel_spi_refuses_a_bad_frequency():
    with emulated_hardware(), pytest.raises(LedError, match="frequency"):
        NeoPixelSpiLeds(N, frequency=42)


def test_emulation_behaves_like_the_library():
    """The stand-in must keep the library's traps, or the driver tests prove nothing."""
    with emulated_hardware() as wire:
        import board
        import neopixel

        px = neopixel.NeoPixel(board.D18, 3)  # the library default: auto_write=True
        px[0] = (10, 20, 30)
        px[1] = 0x0A141E
        assert len(wire.gpio) == 2  # one transfer per assignment
        px.brightness = 0.5
        assert wire.gpio[-1][1][:3] == bytes((10, 5, 15))  # int(level × brightness), GRB
        assert px[0] == [10, 20, 30]  # the undimmed colour is kept
        px.fill((1, 1, 1))
        assert wire.gpio[-1][1] == bytes(9)
        with pytest.raises(IndexError):
            px[3] = (0, 0, 0)
        with pytest.raises(ValueError):
            neopixel.NeoPixel(board.SCK, 3)


# --- microcontroller link ------------------------------------------------------------

def test_link_driver_sends_led_frame_payloads():
    """The payload carries each LED's bytes in its chips' order (GRB for a WS2812B)."""
    sent: list[bytes] = []
    leds = LinkLeds(sent.append, N)
    frame = frame_of(N, seed=5)
    leds.show(frame)
    assert len(sent) == 1
    payload = sent[0]
    assert payload[:5] == struct.pack("<HBH", 0, 255, N)
    assert decode_led_frame(payload) == (0, 255, [(g, r, b) for r, g, b in frame.pixels])


def test_link_payload_is_what_the_firmware_parses():
    fw = pytest.importorskip("firmware.fairyfw.proto")
    frame = frame_of(10, seed=2)
    first, brightness, colours = fw.unpack_led_frame(encode_led_frame(frame.pixels, first=7))
    assert (first, brightness, colours) == (7, 255, list(frame.pixels))


def test_link_driver_splits_long_chains():
    sent: list[bytes] = []
    leds = LinkLeds(sent.append, 700, pixel_order="RGB")
    frame = frame_of(700)
    leds.show(frame)
    decoded = [decode_led_frame(p) for p in sent]
    assert [d[0] for d in decoded] == [0, 300, 600]
    assert [c for d in decoded for c in d[2]] == list(frame.pixels)
    assert all(len(p) <= 1024 - 5 for p in sent)  # fits a link packet


def test_link_frame_errors():
    with pytest.raises(LedError, match="does not hold"):
        decode_led_frame(struct.pack("<HBH", 0, 255, 3) + bytes(8))
    with pytest.raises(LedError, match="send_frame must be a callable"):
        LinkLeds(b"not callable", 3)  # type: ignore[arg-type]


# --- rate limit and change detection -------------------------------------------------

def test_unchanged_frames_are_not_sent():
    sent: list[bytes] = []
    clock = Clock()
    out = ThrottledLeds(LinkLeds(sent.append, 4), max_fps=30, clock=clock)
    a = LedFrame.steady([(1, 1, 1)] * 4)
    assert out.show(a)
    clock.t += 1
    assert not out.show(LedFrame.steady([(1, 1, 1)] * 4))  # same pixels: no write
    assert len(sent) == 1 and out.unchanged == 1


def test_rate_limit_holds_and_sends_the_newest_frame():
    sent: list[bytes] = []
    clock = Clock(0.0)
    out = ThrottledLeds(LinkLeds(sent.append, 2, pixel_order="RGB"), max_fps=10,
                        clock=clock)  # 100 ms
    f = [LedFrame.steady([(k, 0, 0)] * 2) for k in range(5)]
    assert out.show(f[0])
    clock.t = 0.03
    assert not out.show(f[1])  # too early: held
    clock.t = 0.06
    assert not out.show(f[2])  # replaces the held frame
    assert out.next_due() == pytest.approx(0.1)
    assert not out.poll()
    clock.t = 0.1
    assert out.poll()
    assert [decode_led_frame(p)[2][0][0] for p in sent] == [0, 2]  # f1 was never sent
    assert out.superseded == 1 and out.pending is None
    # a held frame made obsolete by a return to what the chain shows is dropped
    clock.t = 0.15
    out.show(f[3])
    out.show(f[2])
    clock.t = 0.5
    assert not out.poll() and len(sent) == 2


def test_rate_limit_under_a_storm():
    sent: list[bytes] = []
    clock = Clock(0.0)
    out = ThrottledLeds(LinkLeds(sent.append, 1), max_fps=30, clock=clock)
    for k in range(1000):  # a new frame every millisecond for one second
        clock.t = k / 1000
        out.show(LedFrame.steady([(k % 256, 0, 0)]))
        out.poll()
    assert 29 <= len(sent) <= 31


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 0.2), st.integers(0, 3), st.booleans()), max_size=60),
       st.sampled_from([5.0, 30.0, 60.0]))
def test_rate_limit_properties(events, fps):
    writes: list[tuple[float, tuple]] = []
    clock = Clock(0.0)

    class Recorder:
        led_count = 1

        def show(self, frame):
            writes.append((clock.t, frame.pixels))

        def close(self):
            pass

    out = ThrottledLeds(Recorder(), max_fps=fps, clock=clock)
    offered = []
    for dt, colour, poll in events:
        clock.t += dt
        frame = LedFrame.steady([(colour, 0, 0)])
        offered.append(frame.pixels)
        out.show(frame)
        if poll:
            out.poll()
    clock.t += 1.0
    out.poll()
    times = [t for t, _ in writes]
    assert all(b - a >= 1 / fps - 1e-9 for a, b in zip(times, times[1:], strict=False))
    assert all(a != b for (_, a), (_, b) in zip(writes, writes[1:], strict=False))
    if offered:
        assert writes[-1][1] == offered[-1]  # the newest frame always reaches the chain


# --- the simulated chain and make_driver ---------------------------------------------

def test_simulated_chain_records_and_draws(tmp_path):
    chain = SimulatedChain(LAYOUT)
    renderer = SceneRenderer(LAYOUT)
    cell = LAYOUT.geometry.cell
    frame = renderer.render(Interaction(origins=frozenset({cell("e2")}),
                                        targets=frozenset({cell("d3"), cell("f3")}),
                                        extra=frozenset({cell("a1")})), 0.1)
    chain.show(frame)
    assert chain.last is frame and chain.pixels == frame.pixels
    svg = chain.svg(title="e2 lifted")
    assert svg.count("<radialGradient") == 3  # origin, target, extra colours
    assert "e2 lifted" in svg and svg.count("stroke-dasharray") == 1  # a1 blinks
    path = chain.png(tmp_path / "scene.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (820, 880)  # 410 × 440 mm at 2 px/mm


@pytest.mark.parametrize("name", ["square9", "kaleido89", "lotus39"])
def test_simulated_chain_draws_every_layout(tmp_path, name):
    layout = load_layout(name)
    chain = SimulatedChain(layout)
    chain.show(SceneRenderer(layout).render(
        Interaction(targets=frozenset(range(0, layout.cell_count, 2))), 0.1))
    svg = chain.svg()
    assert svg.count("<polygon") == len(layout.spots)
    assert chain.png(tmp_path / f"{name}.png").stat().st_size > 1000


def test_make_driver_builds_each_kind():
    sent: list[bytes] = []
    link = make_driver({"driver": "link", "max_fps": 20}, N, send_frame=sent.append)
    assert isinstance(link.driver, LinkLeds) and link.interval == pytest.approx(0.05)
    sim = make_driver(None, N, layout=LAYOUT)
    assert isinstance(sim.driver, SimulatedChain)
    with emulated_hardware():
        assert isinstance(make_driver({"driver": "neopixel", "pin": "D10"}, N).driver,
                          NeoPixelLeds)
        assert isinstance(make_driver({"driver": "neopixel-spi"}, N).driver, NeoPixelSpiLeds)
    with pytest.raises(LedError, match="unknown driver 'ws2812'"):
        make_driver({"driver": "ws2812"}, N)
    with pytest.raises(LedError, match="needs the microcontroller link"):
        make_driver({"driver": "link"}, N)


def test_lights_blink_through_the_throttle():
    clock = Clock(0.0)
    chain = SimulatedChain(LAYOUT)
    lights = Lights(SceneRenderer(LAYOUT), ThrottledLeds(chain, 30, clock), clock)
    cell = LAYOUT.geometry.cell
    lights.update(Interaction(check=frozenset({cell("e1")})))  # heartbeat
    assert chain.writes == 1
    wake = lights.tick()
    assert wake == pytest.approx(0.12)  # the next edge of the heartbeat
    seen = []
    while clock.t < 2.0:  # a loop that sleeps until told
        clock.t = wake if wake is not None else clock.t + 0.5
        wake = lights.tick()
        seen.append(chain.pixels[LAYOUT.spot("e1").led] != (0, 0, 0))
    assert chain.writes == 1 + 8  # two flashes a second: 4 edges per second, 2 s
    assert seen.count(True) == seen.count(False)
    lights.close()
    assert chain.pixels == ((0, 0, 0),) * N
