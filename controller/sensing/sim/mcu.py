"""A simulated microcontroller: the real firmware (``firmware/fairyfw``) running on the
host under CPython with the CircuitPython shims, scanning emulated electronics, and
talking to the host through a real pseudo-terminal.

The host end of the pseudo-terminal is published as a ``/dev/serial/by-id``-style
symlink in a directory of the caller's choosing, so the host link's discovery, open,
hang-up and reconnect code paths are the real ones.  :class:`LinkFaults` damages bytes
on the way (corruption, drops); :meth:`SimulatedMCU.unplug` / :meth:`plug` /
:meth:`restart` / :meth:`reset` / :meth:`hang` model cable trouble, firmware restarts,
chip resets and a firmware that stops looping (the watchdog then resets the chip).

``usb_cdc.data`` behaves like CircuitPython's on the RP2040: ``connected`` is DTR (the
host holds the port open), writes go through TinyUSB's 256-byte transmit FIFO and block
for ``write_timeout`` of emulated time when the host does not read.
"""

from __future__ import annotations

import errno
import os
import random
import select
import sys
import tty
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from controller.sensing.fwconfig import firmware_settings
from controller.sensing.kinds import ANALOG, MATRIX, SHIFT_REGISTER
from controller.sensing.sim.board import SimulatedBoard
from controller.sensing.sim.circuitpython import (
    CircuitPythonShims,
    MicrocontrollerReset,
    ReloadException,
)
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
#: TinyUSB's CDC transmit FIFO in CircuitPython's RP2040/RP2350 builds
#: (``CFG_TUD_CDC_TX_BUFSIZE``)
TX_FIFO_BYTES = 256
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
    """``usb_cdc.data`` of the simulated board, on the pseudo-terminal's master side.

    ``connected`` is DTR: true while the host holds the port open (a USB CDC driver
    raises DTR when the port is opened and drops it at the last close), not merely
    while the cable is in.  Written bytes pass a :data:`TX_FIFO_BYTES` FIFO that empties
    into the pseudo-terminal as far as it takes them; when both are full (the host does
    not read) a write blocks for ``write_timeout`` of emulated time, then returns what
    it could place.  Without DTR the FIFO keeps only the newest bytes and never blocks
    (TinyUSB makes it overwritable then)."""

    def __init__(self, mcu: SimulatedMCU) -> None:
        self.mcu = mcu
        # what code.py sets
        self.timeout = 0
        self.write_timeout: float | None = 0.05
        self._buf = bytearray()
        self._tx = bytearray()
        self.short_writes = 0  # writes that timed out with part of their bytes placed

    @property
    def connected(self) -> bool:
        return self.mcu.host_has_port_open()

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

    @property
    def out_waiting(self) -> int:
        return len(self._tx)

    def read(self, n: int = 1) -> bytes:
        self._pull()
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def reset_input_buffer(self) -> None:
        self._pull()
        self._buf.clear()

    def reset_output_buffer(self) -> None:
        self._tx.clear()

    def flush_to_host(self) -> None:
        """Move FIFO bytes into the pseudo-terminal while the host has it open and it
        takes them (USB IN transfers as the host polls)."""
        fd = self.mcu.master
        if fd is None or not self._tx or not self.connected:
            return
        while self._tx:
            try:
                n = os.write(fd, self._tx)
            except OSError:  # full (BlockingIOError) or hung up
                return
            self.mcu.bytes_written += n
            del self._tx[:n]

    def _place(self, data: bytes) -> int:
        """Bytes into the FIFO for as long as it empties into the host (USB transfer
        time is not modelled); how many found room."""
        placed = 0
        while placed < len(data):
            self.flush_to_host()
            room = TX_FIFO_BYTES - len(self._tx)
            if room == 0:
                break
            self._tx += data[placed:placed + room]
            placed += min(room, len(data) - placed)
        self.flush_to_host()
        return placed

    def write(self, data: bytes) -> int:
        if self.mcu.master is None:
            return 0  # no USB: nothing enumerated
        faults = self.mcu.faults
        out = faults.damage(bytes(data)) if faults else bytes(data)
        self.mcu.bytes_offered += len(data)
        if not self.connected:
            self._tx = (self._tx + out)[-TX_FIFO_BYTES:]
            return len(data)
        placed = self._place(out)
        if placed < len(out):
            if self.write_timeout is None:
                raise RuntimeError("emulated usb_cdc write would wait forever: the host "
                                   "runs only between the firmware's passes")
            if self.write_timeout > 0:
                # blocked: the host, which runs between the firmware's passes, reads
                # nothing meanwhile; the time passes all the same
                shims = self.mcu.shims
                shims.wait_until_us(shims.now_us() + round(self.write_timeout * 1e6))
                placed += self._place(out[placed:])
        self.mcu.bytes_lost += len(out) - placed
        if placed < len(out):
            self.short_writes += 1
        return placed


class SimulatedMCU:
    """An RP2040-class board running the firmware against the board's physics.

    ``settings`` override :func:`firmware_settings` values (``DEBOUNCE_SCANS``, …);
    ``diodes`` is ``"rows"``, ``"columns"`` or ``"none"`` (matrix only).

    Many fields: one object is the whole emulated board a test handles — the chip's
    firmware and pins, its USB cable and byte counts, and the LED chain's chips and
    wiring — so faults are seeded where a builder would make them."""

    def __init__(self, board: SimulatedBoard, layout, link_dir: Path | str, *,
                 diodes: str = "rows", faults: LinkFaults | None = None,
                 tick_s: float = 0.001, seed: int = 0, ticks_offset_ms: int = 0,
                 hall: HallModel = DEFAULT_HALL, led_chip_order: str = "GRB",
                 **settings: Any) -> None:
        self.board = board
        #: the channel order of the chain's chips (a WS2812B takes GRB); the host's
        #: ``[leds] pixel_order`` must match it for the colours to come out right
        self.led_chip_order = led_chip_order
        #: how the chain is wired (``sim.ledchain.LedChainWiring``; None: as the guide)
        self.led_wiring: Any = None
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
        self.bytes_read = 0
        self.bytes_written = 0
        self.bytes_offered = 0
        self.bytes_lost = 0
        self.boots = 0
        self.resets = 0  # chip resets (watchdog, microcontroller.reset)
        self.hung = False
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
                                        ticks_offset_ms=self.ticks_offset_ms,
                                        advance_us=self._advance_us,
                                        led_chip_order=self.led_chip_order,
                                        led_wiring=self.led_wiring)
        config = SimpleNamespace(**s)
        self.hung = False
        self.fw = app.Firmware(config, app.Hardware(**self.shims.modules()))
        self.fw.start()  # what app.main does before looping
        self.boots += 1

    def _advance_us(self, us: int) -> None:
        self.board.clock.us += us  # the firmware is busy (or blocked) meanwhile

    def restart(self) -> None:
        """The firmware restarts (code.py runs again, e.g. ``supervisor.reload()``):
        state is lost, USB stays connected."""
        self.boot()

    def reset(self) -> None:
        """The chip resets (reset button, watchdog, ``microcontroller.reset()``): USB
        drops and enumerates again, the firmware starts afresh."""
        self.resets += 1
        self.unplug()
        self.boot()
        self.plug()

    def hang(self) -> None:
        """The firmware's loop stops (a lock-up); the chip's hardware runs on."""
        self.hung = True

    def plug(self) -> None:
        """Connect the USB cable: a new pseudo-terminal behind the by-id symlink."""
        if self.master is not None:
            return
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: a byte pipe like USB CDC
        os.set_blocking(master, False)
        name = os.ttyname(slave)
        os.close(slave)  # only the host opens it: DTR is "someone holds it open"
        self.master = master
        self._hangup = select.poll()
        self._hangup.register(master, select.POLLIN)
        self.link_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.link_path.with_name(self.link_path.name + ".new")
        if tmp.is_symlink():
            tmp.unlink()
        os.symlink(name, tmp)
        os.replace(tmp, self.link_path)

    def host_has_port_open(self) -> bool:
        """DTR: the terminal side of the pseudo-terminal is open (no hang-up)."""
        if self.master is None:
            return False
        return not any(ev & select.POLLHUP for _fd, ev in self._hangup.poll(0))

    def unplug(self) -> None:
        """Pull the USB cable: the host's open port hangs up, the symlink disappears."""
        if self.master is None:
            return
        if self.link_path.is_symlink():
            self.link_path.unlink()
        os.close(self.master)
        self.master = None
        self.serial._buf.clear()
        self.serial._tx.clear()

    def close(self) -> None:
        self._ticker.cancel()
        self.unplug()

    # --- running ------------------------------------------------------------------------
    def tick(self) -> None:
        """One millisecond of the chip: background work, then a pass of the firmware's
        production loop (``guarded_step``) unless it hangs."""
        try:
            self.shims.service()  # type: ignore[union-attr]
            self.serial.flush_to_host()
            if not self.hung:
                self.fw.guarded_step()
        except ReloadException:
            self.restart()
        except MicrocontrollerReset:
            self.reset()

    @property
    def path(self) -> str:
        return str(self.link_path)

    @property
    def leds(self) -> tuple[tuple[int, ...], ...]:
        """The colours the LED chain shows now."""
        pixels = self.shims.pixels if self.shims else []
        return pixels[-1].shown if pixels else ()
