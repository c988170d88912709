"""Short sounds for the board's events, generated here (no downloaded assets): a few sine
tones with soft edges, as 16-bit mono WAV.  The Pi plays them through ALSA (``aplay``, a
separate program); the page gets the same bytes from the service."""

from __future__ import annotations

import io
import math
import wave
from array import array

RATE = 22_050

#: event -> tones (frequency in Hz, seconds; 0 Hz is a pause).  Rising for good news,
#: falling or low for trouble, so each is told apart without looking.
SOUNDS: dict[str, tuple[tuple[float, float], ...]] = {
    "move": ((880.0, 0.07),),
    "capture": ((988.0, 0.06), (0.0, 0.02), (740.0, 0.09)),
    "check": ((1319.0, 0.08), (0.0, 0.03), (1319.0, 0.08)),
    "choice": ((660.0, 0.08), (880.0, 0.08), (1100.0, 0.10)),
    "illegal": ((220.0, 0.25),),
    "mismatch": ((330.0, 0.12), (0.0, 0.04), (262.0, 0.18)),
    "execute": ((523.0, 0.08), (784.0, 0.12)),
    "game_end": ((523.0, 0.14), (659.0, 0.14), (784.0, 0.14), (1047.0, 0.30)),
    "low_time": ((1760.0, 0.05), (0.0, 0.05), (1760.0, 0.05), (0.0, 0.05), (1760.0, 0.05)),
}

#: edge of every tone (seconds): a cosine fade in and out, so no click
EDGE = 0.006


class SoundError(ValueError):
    """An unknown sound or a volume out of range."""


def samples(name: str, volume: float = 0.6) -> array:
    """The 16-bit samples of sound ``name`` at ``volume`` (0 silent … 1 full scale)."""
    if name not in SOUNDS:
        raise SoundError(f"unknown sound {str(name)[:30]!r} (known: {', '.join(SOUNDS)})")
    if not 0.0 <= volume <= 1.0:
        raise SoundError(f"volume must be between 0 and 1, got {volume}")
    out = array("h")
    peak = 32767 * volume
    edge = int(EDGE * RATE)
    for freq, seconds in SOUNDS[name]:
        n = int(seconds * RATE)
        for i in range(n):
            if freq <= 0:
                out.append(0)
                continue
            ramp = min(1.0, i / edge, (n - 1 - i) / edge) if edge else 1.0
            gain = 0.5 - 0.5 * math.cos(math.pi * max(0.0, ramp))
            out.append(int(peak * gain * math.sin(2 * math.pi * freq * i / RATE)))
    return out


def wav_bytes(name: str, volume: float = 0.6) -> bytes:
    """Sound ``name`` as a WAV file's bytes."""
    data = samples(name, volume)
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(data.tobytes())
    return buf.getvalue()
