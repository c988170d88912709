"""Speaking words aloud with espeak-ng, the distribution's speech program, run as a separate
program (it is GPL; the product only calls it), and playing sounds through ALSA's ``aplay``.

Nothing here waits on a missing program or a busy sound card for ever: each call has a
deadline, and a missing program is one clear line (:class:`VoiceError`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from controller.speech.lang import voice

#: longest a phrase may take to render or play (seconds)
DEADLINE_S = 20.0


class VoiceError(OSError):
    """The speech program or the sound output cannot be used (one line says why)."""


def _program(name: str, package: str) -> str:
    path = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists()
                                  else None)
    if path is None:
        raise VoiceError(f"{name} is not installed (install the distribution's {package} "
                         f"package: sudo apt install {package})")
    return path


def _run(argv: list[str], data: bytes | None = None) -> None:
    try:
        done = subprocess.run(argv, input=data, capture_output=True, timeout=DEADLINE_S,
                              check=False)
    except subprocess.TimeoutExpired:
        raise VoiceError(f"{Path(argv[0]).name} did not finish within {DEADLINE_S:.0f} s"
                         ) from None
    if done.returncode != 0:
        last = (done.stderr.decode(errors="replace").strip().splitlines() or ["no message"])
        raise VoiceError(f"{Path(argv[0]).name} failed: {last[-1][:200]}")


def render(text: str, lang: str, out: Path, speed: int = 160) -> Path:
    """Speak ``text`` in language ``lang`` into the WAV file ``out``."""
    espeak = _program("espeak-ng", "espeak-ng")
    # the text goes on standard input: a phrase starting with "-" is never an option
    _run([espeak, "-v", voice(lang), "-s", str(speed), "-w", str(out), "--stdin"],
         text.encode())
    return out


def speak(text: str, lang: str, speed: int = 160) -> None:
    """Speak ``text`` through the default sound output."""
    espeak = _program("espeak-ng", "espeak-ng")
    _run([espeak, "-v", voice(lang), "-s", str(speed), "--stdin"], text.encode())


def play_wav(data: bytes, device: str = "default") -> None:
    """Play WAV bytes through ALSA device ``device``."""
    aplay = _program("aplay", "alsa-utils")
    _run([aplay, "-q", "-D", device, "-"], data)
