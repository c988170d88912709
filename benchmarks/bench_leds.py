"""LED figures: scene rendering, blink re-evaluation, rate limiter, pictures.

Run ``python -m benchmarks.bench_leds``; it prints figures (process CPU time), it asserts
nothing.  The
reaction budget is well under 100 ms from a sensed change to light (interaction.md), and
a 30 fps blink loop leaves 33 ms per frame.
"""

from __future__ import annotations

import statistics
import time

from controller.interaction import ChoiceOption, Interaction
from controller.layout import load_layout
from controller.leds import (
    LedFrame,
    LedSettings,
    LinkLeds,
    SceneRenderer,
    ThrottledLeds,
    board_svg,
    encode_led_frame,
)
from controller.leds.emulation import emulated_hardware
from controller.leds.simulated import write_png


def per_call(fn, n: int) -> float:
    """Median process CPU seconds per call over five batches of ``n`` calls (wall time on a
    shared machine counts other processes' work)."""
    samples = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(n // 5 or 1):
            fn()
        samples.append((time.process_time() - start) / (n // 5 or 1))
    return statistics.median(samples)


def busy(layout) -> Interaction:
    n, cells = len(layout.spots), layout.cell_count
    pads = range(cells, n)
    return Interaction(
        phase="lifted", origins=frozenset({0}), targets=frozenset(range(1, cells, 3)),
        last_move=frozenset({2, 5}), check=frozenset({7}), extra=frozenset({9}),
        missing=frozenset({11}), to_remove=frozenset({13, 14}), guide=9,
        options=tuple(ChoiceOption(f"o{k}", None, s, k) for k, s in enumerate(pads[:3])),
        active_pads=frozenset(pads[3:4]), height_display=(20, 5),
        owners={c: c % 2 for c in range(0, cells, 5)})


def main() -> None:
    print("layout      LEDs  render   render+cap  again     frame.at  encode(link)")
    for name in ("square8", "square9", "kaleido89", "lotus39"):
        layout = load_layout(name)
        it = busy(layout)
        plain = SceneRenderer(layout, settings=LedSettings(budget_ma=None))
        capped = SceneRenderer(layout, settings=LedSettings(brightness=1.0, budget_ma=300))
        frame = plain.render(it, 0.1)
        r = per_call(lambda p=plain, i=it: p._render(i, 0.1), 300)
        rc = per_call(lambda c=capped, i=it: c._render(i, 0.1), 300)
        same = per_call(lambda p=plain, i=it: p.render(i, 0.1), 1000)  # unchanged scene
        a = per_call(lambda f=frame: f.at(1.234), 1000)
        e = per_call(lambda f=frame: encode_led_frame(f.pixels), 1000)
        print(f"{name:10} {layout.led_count:5} {r * 1e6:6.0f} µs {rc * 1e6:6.0f} µs "
              f"{same * 1e6:6.0f} µs {a * 1e6:6.0f} µs {e * 1e6:6.0f} µs")

    layout = load_layout("square8")
    frames = [LedFrame.steady([(k % 256, 0, 0)] * layout.led_count) for k in range(100)]
    sent: list[bytes] = []
    clock_t = [0.0]
    out = ThrottledLeds(LinkLeds(sent.append, layout.led_count), 30, lambda: clock_t[0])

    def offer(k=[0]):  # noqa: B006 - a counter
        k[0] += 1
        clock_t[0] += 0.001
        out.show(frames[k[0] % 100])
        out.poll()

    t = per_call(offer, 5000)
    print(f"throttle: {t * 1e6:.1f} µs per offered frame; 5000 frames over 5 s sent "
          f"{len(sent)} (limit 30 fps)")

    with emulated_hardware():
        from controller.leds import NeoPixelLeds, NeoPixelSpiLeds

        frame = SceneRenderer(layout).render(busy(layout), 0.1)
        gpio = NeoPixelLeds(layout.led_count)
        spi = NeoPixelSpiLeds(layout.led_count)
        g = per_call(lambda: gpio.show(frame), 200)
        s = per_call(lambda: spi.show(frame), 200)
        print(f"neopixel driver (emulated wire): {g * 1e6:.0f} µs per frame; "
              f"neopixel-spi: {s * 1e6:.0f} µs")

    svg_t = per_call(lambda: board_svg(layout, frame, "bench"), 20)
    svg = board_svg(layout, frame, "bench")
    png_t = per_call(lambda: write_png(svg, "/tmp/bench_leds.png"), 5)
    print(f"picture: SVG {svg_t * 1e3:.1f} ms, PNG {png_t * 1e3:.0f} ms (square8)")


if __name__ == "__main__":
    main()
