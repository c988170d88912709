"""Speaking words aloud with espeak-ng, the distribution's speech program, run as a separate
program (it is GPL; the product only calls it), and playing sounds through ALSA's ``aplay``.

Nothing here waits on a missing program or a busy sound card for ever: each call has a
deadline, and a missing program is one clear line (:class:`VoiceError`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from controller.i18n.lang import voice

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


def _run(argv: list[str], data: bytes | None = None) -> bytes:
    """Run ``argv`` with ``data`` on its standard input; its standard output."""
    try:
        done = subprocess.run(argv, input=data, capture_output=True, timeout=DEADLINE_S,
                              check=False)
    except subprocess.TimeoutExpired:
        raise VoiceError(f"{Path(argv[0]).name} did not finish within {DEADLINE_S:.0f} s"
                         ) from None
    if done.returncode != 0:
        last = (done.stderr.decode(errors="replace").strip().splitlines() or ["no message"])
        raise VoiceError(f"{Path(argv[0]).name} failed: {last[-1][:200]}")
    return done.stdout


def render(text: str, lang: str, out: Path, speed: int = 160) -> Path:
    """Speak ``text`` in language ``lang`` into the WAV file ``out``."""
    espeak = _program("espeak-ng", "espeak-ng")
    # the text goes on standard input: a phrase starting with "-" is never an option
    _run([espeak, "-v", voice(lang), "-s", str(speed), "-w", str(out), "--stdin"],
         text.encode())
    return out


def wav(text: str, lang: str, speed: int = 160) -> bytes:
    """``text`` spoken in language ``lang``, as WAV bytes."""
    espeak = _program("espeak-ng", "espeak-ng")
    return _run([espeak, "-v", voice(lang), "-s", str(speed), "--stdout", "--stdin"],
                text.encode())


def speak(text: str, lang: str, speed: int = 160, device: str = "default") -> None:
    """Speak ``text`` through ALSA device ``device`` — the one the sounds play on: left to
    itself espeak-ng speaks to the system's default output (another speaker than the one
    the owner named, or none: it still exits 0 when there is no sound card)."""
    play_wav(wav(text, lang, speed), device)


def play_wav(data: bytes, device: str = "default") -> None:
    """Play WAV bytes through ALSA device ``device``."""
    aplay = _program("aplay", "alsa-utils")
    _run([aplay, "-q", "-D", device, "-"], data)
