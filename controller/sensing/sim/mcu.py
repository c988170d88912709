"""A simulated microcontroller: the real firmware (``firmware/fairyfw``) running on the
host under CPython with the CircuitPython shims, scanning emulated electronics, and
talking to the host through a real pseudo-terminal.

The host end of the pseudo-terminal is published as a ``/dev/serial/by-id``-style
symlink in a directory of the caller's choosing, so the host link's discovery, open,
hang-up and reconnect code paths are the real ones.  :class:`LinkFaults` damages bytes
on the way (corruption, drops); :meth:`SimulatedMCU.unplug` / :meth:`plug` /
:meth:`restart` model cable trouble and firmware resets.
"""

from __future__ import annotations

import errno
import os
import random
import sys
import tty
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from controller.sensing.fwconfig import firmware_settings
from controller.sensing.kinds import ANALOG, MATRIX, SHIFT_REGISTER
from controller.sensing.sim.board import SimulatedBoard
from controller.sensing.sim.circuitpython import CircuitPythonShims
from controller.sensing.sim.electrical import DEFAULT_HALL, HallModel, PinBank
from controller.sensing.sim.wiring import wire_analog, wire_chain, wire_matrix


def _wire_matrix(mcu: SimulatedMCU, bank: PinBank, s: dict[str, Any]) -> None:
    wire_matrix(bank, mcu.board, mcu.layout, s["MATRIX_ROWS"], s["MATRIX_COLUMNS"],
                {"rows": "row", "columns": "column", "none": None}[mcu.diodes])


def _wire_chain(mcu: SimulatedMCU, bank: PinBank, s: dict[str, Any]) -> None:
    wire_chain(bank, mcu.board, mcu.layout, s["SHIFT_LATCH"], s["SHIFT_CLOCK"],
               s["SHIFT_DATA"])


def _wire_analog(mcu: SimulatedMCU, bank: PinBank, s: dict[str, Any]) -> None:
    wire_analog(bank, mcu.board, mcu.layout, s["MUX_SELECT"], s["MUX_SIGNALS"],
                s.get("MUX_ENABLE", ()), mcu.hall, mcu.seed)


#: the emulated electronics behind the microcontroller's pins, per sensing kind
EMULATED_CIRCUITS = {MATRIX.name: _wire_matrix, SHIFT_REGISTER.name: _wire_chain,
                     ANALOG.name: _wire_analog}

FIRMWARE_DIR = Path(__file__).resolve().parents[3] / "firmware"
PIN_NAMES = tuple(f"GP{i}" for i in range(30)) + ("NEOPIXEL", "LED")


def load_firmware() -> Any:
    """The firmware's ``fairyfw.app`` module, imported from ``firmware/``."""
    path = str(FIRMWARE_DIR)
    if path not in sys.path:
        sys.path.insert(0, path)
    import fairyfw.app

    return fairyfw.app


@dataclass
class LinkFaults:
    """Damage on the wire from the microcontroller to the host (and optionally back).

    Rates are per byte; ``corrupt_next`` / ``drop_next`` damage the next n bytes written
    (deterministic one-shot faults for tests)."""

    corrupt_rate: float = 0.0
    drop_rate: float = 0.0
    to_mcu_corrupt_rate: float = 0.0
    seed: int = 0
    corrupt_next: int = 0
    drop_next: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.corrupted = 0
        self.dropped = 0

    def damage(self, data: bytes, to_mcu: bool = False) -> bytes:
        out = bytearray()
        corrupt_rate = self.to_mcu_corrupt_rate if to_mcu else self.corrupt_rate
        for b in data:
            if not to_mcu and self.drop_next > 0:
                self.drop_next -= 1
                self.dropped += 1
                continue
            if not to_mcu and self.drop_rate and self.rng.random() < self.drop_rate:
                self.dropped += 1
                continue
            if (not to_mcu and self.corrupt_next > 0) or (
                    corrupt_rate and self.rng.random() < corrupt_rate):
                if not to_mcu and self.corrupt_next > 0:
                    self.corrupt_next -= 1
                b ^= 1 << self.rng.randrange(8)
                self.corrupted += 1
            out.append(b)
        return bytes(out)


class _UsbSerial:
    """``usb_cdc.data`` of the simulated board: the pseudo-terminal's master side."""

    def __init__(self, mcu: SimulatedMCU) -> None:
        self.mcu = mcu
        self.timeout = 0
        self.write_timeout = 0.05
        self._buf = bytearray()

    @property
    def connected(self) -> bool:
        return self.mcu.master is not None

    def _pull(self) -> None:
        fd = self.mcu.master
        if fd is None:
            return
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno == errno.EIO:
                    return
                raise
            if not data:
                return
            self.mcu.bytes_read += len(data)
            faults = self.mcu.faults
            self._buf += faults.damage(data, to_mcu=True) if faults else data

    @property
    def in_waiting(self) -> int:
        self._pull()
        return len(self._buf)

    def read(self, n: int = 1) -> bytes:
        self._pull()
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def reset_input_buffer(self) -> None:
        self._pull()
        self._buf.clear()

    def write(self, data: bytes) -> int:
        fd = self.mcu.master
        if fd is None:
            return 0
        faults = self.mcu.faults
        out = faults.damage(bytes(data)) if faults else bytes(data)
        self.mcu.bytes_offered += len(data)
        view = memoryview(out)
        while view:
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                self.mcu.bytes_lost += len(view)  # nobody reads: USB would time out too
                break
            self.mcu.bytes_written += n
            view = view[n:]
        return len(data)


class SimulatedMCU:
    """An RP2040-class board running the firmware against the board's physics.

    ``settings`` override :func:`firmware_settings` values (``DEBOUNCE_SCANS``, …);
    ``diodes`` is ``"rows"``, ``"columns"`` or ``"none"`` (matrix only)."""

    def __init__(self, board: SimulatedBoard, layout, link_dir: Path | str, *,
                 diodes: str = "rows", faults: LinkFaults | None = None,
                 tick_s: float = 0.001, seed: int = 0, ticks_offset_ms: int = 0,
                 hall: HallModel = DEFAULT_HALL, **settings: Any) -> None:
        self.board = board
        self.layout = layout
        self.link_dir = Path(link_dir)
        self.link_path = self.link_dir / f"usb-fairyboard_Simulated_RP2040_{seed:08X}-if02"
        self.diodes = diodes
        self.faults = faults
        self.seed = seed
        self.ticks_offset_ms = ticks_offset_ms
        self.hall = hall
        self.settings = firmware_settings(layout, diodes=diodes)
        self.settings.update(settings)
        self.master: int | None = None
        self.slave: int | None = None
        self.bytes_read = 0
        self.bytes_written = 0
        self.bytes_offered = 0
        self.bytes_lost = 0
        self.boots = 0
        self.serial = _UsbSerial(self)
        self.fw: Any = None
        self.shims: CircuitPythonShims | None = None
        self.plug()
        self.boot()
        self._ticker = board.every(tick_s, self.tick)

    # --- power and cable ------------------------------------------------------------
    def boot(self) -> None:
        """Power-up / reset: fresh pins, fresh firmware state, a new session number."""
        app = load_firmware()
        bank = PinBank(seed=self.seed + self.boots)
        s = self.settings
        EMULATED_CIRCUITS[self.layout.sensing](self, bank, s)
        self.bank = bank
        self.shims = CircuitPythonShims(bank, lambda: self.board.clock.us, self.serial,
                                        PIN_NAMES, seed=self.seed * 1000 + self.boots,
                                        ticks_offset_ms=self.ticks_offset_ms)
        config = SimpleNamespace(**s)
        self.fw = app.Firmware(config, app.Hardware(**self.shims.modules()))
        self.boots += 1

    def restart(self) -> None:
        """The firmware restarts (reset button, watchdog, a crash): state is lost."""
        self.boot()

    def plug(self) -> None:
        """Connect the USB cable: a new pseudo-terminal behind the by-id symlink."""
        if self.master is not None:
            return
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: a byte pipe like USB CDC
        os.set_blocking(master, False)
        self.master, self.slave = master, slave
        self.link_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.link_path.with_name(self.link_path.name + ".new")
        if tmp.is_symlink():
            tmp.unlink()
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.link_path)

    def unplug(self) -> None:
        """Pull the USB cable: the host's open port hangs up, the symlink disappears."""
        if self.master is None:
            return
        if self.link_path.is_symlink():
            self.link_path.unlink()
        os.close(self.master)
        os.close(self.slave)  # type: ignore[arg-type]
        self.master = self.slave = None
        self.serial._buf.clear()

    def close(self) -> None:
        self._ticker.cancel()
        self.unplug()

    # --- running ------------------------------------------------------------------------
    def tick(self) -> None:
        self.shims.service()  # type: ignore[union-attr]
        self.fw.step()

    @property
    def path(self) -> str:
        return str(self.link_path)

    @property
    def leds(self) -> tuple[tuple[int, ...], ...]:
        """The colours the LED chain shows now."""
        pixels = self.shims.pixels if self.shims else []
        return pixels[-1].shown if pixels else ()
