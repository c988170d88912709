"""Host side of the microcontroller link over USB serial (pyserial).

The microcontroller scans and debounces; this end turns its messages into frames:

* **discovery** — a configured port, else ``/dev/serial/by-id/<pattern>`` (CircuitPython's
  data channel is interface 2: ``usb-…-if02``), tried in turn;
* **handshake** — HELLO_REQUEST with a nonce the host draws for it, then a HELLO naming
  the layout, sensing and sensor counts, checked against the layout the service runs;
  the firmware puts the nonce in every frame's session field from then on, so frames of
  an older handshake (an old session's HELLO and SNAPSHOT replayed after a restart) are
  never taken, and a HELLO the host did not ask for (a new boot's greeting) starts a new
  handshake with a new nonce;
* **exactly-once state changes** — every CHANGE carries a sequence number; duplicates
  (from a resend) are ignored, a gap asks the firmware to resend from the first missing
  number, and changes after the gap wait until it is filled.  If the firmware no longer
  has them (or it restarted: a new session number in HELLO), its full SNAPSHOT is
  adopted and emitted only if it differs from what the pipeline already has;
* **integrity** — frames failing COBS or CRC are dropped and counted, never parsed;
* **watchdog** — PING every second; after ``silence_s`` without a packet a snapshot is
  requested, after ``dead_s`` the port is closed and reopened with exponential back-off;
* **audit** — a sequence number alone is not trusted: every ``audit_s`` a snapshot is
  asked for and compared, and at once when two different changes carry one number; the
  firmware's snapshot number is the truth, so a change applied or queued beyond it
  (one CRC-valid CHANGE numbered ahead, forged or garbled into validity) is undone,
  and the firmware's real change with that number is applied, not dropped as a
  duplicate;
* **time** — a frame's time is the firmware's event time on the host clock, but never in
  the future nor older than ``max_event_age_s``, and a jump of the firmware's clock beyond
  the host's elapsed time moves neither the clock nor its offset (forged ticks gave
  frames times of −34,458 s and +99,707 s).

Frame times are the microcontroller's event times mapped onto the host clock (offset
estimated from packet arrival, minimum over a window), so resent changes keep their
true times.  Everything runs from :meth:`SerialLink.update`; no threads.
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import select
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from controller.sensing import protocol as P
from controller.sensing.calibration import Calibration
from controller.sensing.frame import (
    DEFAULT_CLOCK,
    Clock,
    Frame,
    SensingError,
    address_count,
    digital_frame,
    frame_from_states,
    spot_addresses,
)
from controller.sensing.kinds import sensing_kind

log = logging.getLogger(__name__)


#: changes further ahead than this are not queued (the firmware keeps 64 for resending):
#: the link takes the board's state from a snapshot instead
MAX_PENDING = 64


@dataclass(frozen=True)
class SerialConfig:
    port: str | None = None                 # exact device path; None: discover
    by_id_dir: str = "/dev/serial/by-id"
    pattern: str = "usb-*-if02"             # CircuitPython's usb_cdc.data interface
    baudrate: int = 115200                  # ignored by USB CDC, needed by termios
    hello_timeout_s: float = 1.0
    ping_interval_s: float = 1.0
    silence_s: float = 2.5
    dead_s: float = 5.0
    backoff_s: float = 0.25
    backoff_max_s: float = 8.0
    recovery_s: float = 0.2                 # answer time for a snapshot/resend request
    max_retries: int = 3                    # resend requests before adopting a snapshot
    audit_s: float = 2.0                    # a quiet link compares a snapshot this often
    max_event_age_s: float = 5.0            # a frame is never older than this on arrival
    led_min_interval_s: float = 0.02        # LED frames are coalesced to at most 50/s
    adc_reference_v: float = 3.3            # analogio full scale

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> SerialConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(table) - known
        if unknown:
            raise ValueError(f"serial: unknown keys {sorted(unknown)} (known: {sorted(known)})")
        return cls(**dict(table))


@dataclass
class SerialSettings:
    """The ``serial`` back end's settings: its table ``[sensing.serial]`` (port,
    by_id_dir, pattern, baudrate, time-outs) over the flat ``[sensing]`` port and baud
    rate older files give."""

    #: serial: device path; "auto" finds the board under /dev/serial/by-id
    port: str = "auto"
    baudrate: int = 115200
    #: the table; its keys win over the flat settings above
    serial: dict[str, Any] = field(default_factory=dict)

    def serial_config(self) -> SerialConfig:
        """``SerialConfig`` from the flat settings and the table."""
        table = {"port": self.port, "baudrate": self.baudrate, **self.serial}
        if table["port"] == "auto":
            table["port"] = None
        return SerialConfig.from_table(table)


def discover(config: SerialConfig) -> list[str]:
    """Candidate device paths, configured port first."""
    if config.port:
        return [config.port]
    return sorted(glob.glob(os.path.join(config.by_id_dir, config.pattern)))


def _open_pyserial(path: str, config: SerialConfig) -> Any:
    try:
        import serial  # pyserial: a dependency, but imported only for the real link
    except ImportError as exc:
        raise SensingError("the microcontroller link needs pyserial (pip install pyserial)"
                           ) from exc
    return serial.Serial(path, baudrate=config.baudrate, timeout=0, write_timeout=0.5,
                         exclusive=True)


class SerialLink:
    """A microcontroller running ``firmware/`` as a sensing back end.

    Many fields: the link's session, its frame counters and the scanner's state are one
    protocol state machine (docs/sensing.md)."""

    def __init__(self, layout, config: SerialConfig = SerialConfig(), *,
                 calibration: Calibration | None = None, clock: Clock = DEFAULT_CLOCK,
                 opener: Callable[[str, SerialConfig], Any] = _open_pyserial) -> None:
        self.layout = layout
        self.config = config
        self.calibration = calibration
        self.clock = clock
        self.opener = opener
        self.kind = sensing_kind(layout)
        #: linear halls: the firmware streams raw readings, classified here
        self.analog = not self.kind.switches
        self.debounced = self.kind.switches
        self.addresses = spot_addresses(layout)
        self.key_count = address_count(layout)
        self.port: Any = None
        self.path: str | None = None
        self.state = "down"  # down | hello | live
        self.decoder = P.Decoder()
        self.retry_at = clock()
        self.backoff = config.backoff_s
        self._candidate = 0
        # session continuity
        self.session: int | None = None
        self.synced = False
        self.last_seq = 0
        self.keys = [False] * self.key_count
        self.pending: dict[int, tuple[int, tuple]] = {}
        self.recover_deadline: float | None = None
        self.awaiting: str | None = None  # "snapshot" | "resend": a request is out
        self.retries = 0
        self.held_snapshot: tuple[int, P.Snapshot] | None = None
        self.readings: tuple[float, ...] | None = None  # analog: latest volts per spot
        self.readings_received = 0  # analog: readings snapshots taken in
        self.last_frame: Frame | None = None
        # timing
        self.last_rx = 0.0
        self.last_ping = 0.0
        self.hello_deadline = 0.0
        self.hello_retry_at = 0.0
        self.asked_after_silence = False
        self._offsets: deque[float] = deque(maxlen=64)
        self._ticks_raw: int | None = None
        self._ticks_ms = 0
        self.token = 0
        self._led_pending: tuple | None = None
        self._last_led = -1e9
        self.hello: P.Hello | None = None
        self.problem = ""
        self.stats = {"bytes_in": 0, "bytes_out": 0, "packets": 0, "duplicates": 0,
                      "gaps": 0, "resyncs": 0, "reconnects": 0, "sessions": 0,
                      "history_lost": 0, "errors_from_mcu": 0, "stale_session": 0,
                      "far_ahead": 0, "audits": 0, "unsent_changes": 0, "bad_ticks": 0,
                      "unasked_hello": 0, "conflicts": 0}
        self._applied: dict[int, tuple] = {}  # the entries of recently applied changes
        self.last_change_rx = 0.0
        self.last_audit = 0.0
        self._ticks_at: float | None = None
        self._ticks_bad = False
        self.nonce = self._new_nonce()
        self._asked_hello_at = -1e9

    def _new_nonce(self) -> int:
        """A session number for the next handshake, unlike the last one and the boot's."""
        while True:
            nonce = int.from_bytes(os.urandom(2), "little")
            if nonce not in (getattr(self, "nonce", None), self.session):
                return nonce

    def _ask_hello(self, now: float, fresh: bool) -> None:
        if fresh:
            self.nonce = self._new_nonce()
        self._asked_hello_at = now
        self._send(P.HELLO_REQUEST, P.hello_request(self.nonce), now)

    # --- counters the simulator uses to wait for the pseudo-terminal ----------------------
    @property
    def bytes_received(self) -> int:
        return self.stats["bytes_in"]

    @property
    def bytes_sent(self) -> int:
        return self.stats["bytes_out"]

    @property
    def crc_errors(self) -> int:
        return self.decoder.crc_errors

    @property
    def connected(self) -> bool:
        return self.state == "live"

    # --- back-end interface ---------------------------------------------------------------
    def read(self) -> list[Frame]:
        return self.update()

    def close(self) -> None:
        self._close_port()
        self.state = "down"

    def read_voltages(self, timeout_s: float = 2.0,
                      wait: Callable[[float], None] | None = None) -> list[float]:
        """One reading per spot, in volts (linear halls): the next readings snapshot the
        firmware streams, for ``fairyboard calibrate`` (which runs before there is a
        calibration to turn readings into frames).

        ``wait(seconds)`` lets time pass while someone else reads the link (the
        simulator's clock); without it this reads the link itself, in real time."""
        if self.kind.switches:
            raise SensingError(f"layout {self.layout.name} has {self.layout.sensor_kind} "
                               "switches: there are no voltages to read")
        seen = self.readings_received
        deadline = self.clock() + timeout_s
        while self.readings_received == seen or self.readings is None:
            if self.clock() >= deadline:
                where = f": {self.problem}" if self.problem else ""
                raise SensingError(f"no readings from the microcontroller in {timeout_s:g} s "
                                   f"(link {self.state}{where})")
            if wait is None:
                self.update(wait=0.01)
            else:
                wait(0.002)
        return list(self.readings)

    # --- connection -----------------------------------------------------------------------
    def _close_port(self) -> None:
        if self.port is not None:
            with contextlib.suppress(Exception):  # closing a dead port may fail any way
                self.port.close()
        self.port = None

    def _drop(self, reason: str, now: float) -> None:
        log.warning("serial link %s: %s; reconnecting in %.2f s", self.path, reason,
                    self.backoff)
        self.problem = reason
        self._close_port()
        self.state = "down"
        self.retry_at = now + self.backoff
        self.backoff = min(self.backoff * 2, self.config.backoff_max_s)
        self.stats["reconnects"] += 1

    def _connect(self, now: float) -> None:
        candidates = discover(self.config)
        if not candidates:
            where = self.config.port or os.path.join(self.config.by_id_dir, self.config.pattern)
            self.problem = f"no microcontroller found ({where})"
            self.retry_at = now + self.backoff
            self.backoff = min(self.backoff * 2, self.config.backoff_max_s)
            return
        path = candidates[self._candidate % len(candidates)]
        self._candidate += 1
        try:
            port = self.opener(path, self.config)
        except (OSError, ValueError) as exc:  # SerialException is an OSError
            self.path = path
            self._drop(f"cannot open {path}: {exc}", now)
            return
        self.port, self.path = port, path
        self.decoder = P.Decoder()
        with contextlib.suppress(OSError, AttributeError):
            port.reset_input_buffer()  # drop whatever waited while nobody listened
        self.state = "hello"
        self.hello_deadline = now + self.config.hello_timeout_s
        self.hello_retry_at = now + self.config.recovery_s / 2
        self.last_rx = now
        self._ask_hello(now, fresh=True)

    def _send(self, kind: int, payload: bytes, now: float) -> bool:
        if self.port is None:
            return False
        data = P.encode_packet(kind, self.token, payload)
        try:
            self.port.write(data)
        except (OSError, ValueError) as exc:
            self._drop(f"write failed: {exc}", now)
            return False
        self.stats["bytes_out"] += len(data)
        return True

    def _receive(self, wait: float) -> bytes:
        port = self.port
        fileno = getattr(port, "fileno", None)
        if fileno is None:  # a port object without a descriptor (tests)
            n = port.in_waiting
            return port.read(n) if n else b""
        ready, _, _ = select.select([fileno()], [], [], wait)
        if not ready:
            return b""
        # readable with nothing waiting means a hang-up: read() then raises
        return port.read(max(port.in_waiting, 1))

    # --- main entry -------------------------------------------------------------------------
    def update(self, wait: float = 0.0) -> list[Frame]:
        """Connect if due, read what arrived (waiting up to ``wait`` s for it), handle
        it, run the watchdog; returns the frames produced, oldest first."""
        now = self.clock()
        frames: list[Frame] = []
        if self.port is None:
            if now < self.retry_at:
                return frames
            self._connect(now)
            if self.port is None:
                return frames
        try:
            data = self._receive(wait)
        except (OSError, ValueError) as exc:
            self._drop(f"read failed: {exc}", now)
            return frames
        if data:
            self.stats["bytes_in"] += len(data)
            for packet in self.decoder.feed(data):
                self.stats["packets"] += 1
                self.last_rx = now
                self.asked_after_silence = False
                self._handle(packet, now, frames)
                if self.port is None:
                    break
        if self.port is not None:
            self._watchdog(now, frames)
        self._flush_leds(now)
        return frames

    def _watchdog(self, now: float, frames: list[Frame]) -> None:
        c = self.config
        if self.state == "hello":
            if now >= self.hello_deadline:
                self._drop("no HELLO from the firmware", now)
            elif now >= self.hello_retry_at:  # the request or the reply may have been hit
                self.hello_retry_at = now + c.recovery_s / 2
                self._ask_hello(now, fresh=False)
            return
        if now - self.last_ping >= c.ping_interval_s:
            self.last_ping = now
            self.token = (self.token + 1) & 0xFFFF
            self._send(P.PING, P.ping(self.token), now)
        silent = now - self.last_rx
        if silent >= c.dead_s:
            self._drop(f"no packet for {silent:.1f} s", now)
            return
        if silent >= c.silence_s and not self.asked_after_silence:
            self.asked_after_silence = True
            self._request_snapshot(now, resend=self.synced)
        if self.recover_deadline is not None and now >= self.recover_deadline:
            self._deadline_passed(now, frames)
        if (self.synced and self.awaiting is None and not self.analog
                and now - self.last_audit >= c.audit_s):
            self.last_audit = now  # the audit: the firmware's picture, not our count
            self.stats["audits"] += 1
            self._request_snapshot(now, resend=False)

    # --- messages ---------------------------------------------------------------------------
    def _handle(self, packet: P.Packet, now: float, frames: list[Frame]) -> None:
        m = packet.message
        ticks = getattr(m, "ticks", None)
        if isinstance(m, P.Hello):
            if packet.session != self.nonce:
                # not the answer to our request: a new boot's greeting, or an older
                # handshake's HELLO replayed — a new handshake, with a new nonce
                self.stats["unasked_hello"] += 1
                if now - self._asked_hello_at > self.config.recovery_s:
                    self._ask_hello(now, fresh=True)
                return
            self._hello(m, packet.seq, now)
            return
        if self.state != "live":
            return  # nothing counts before the handshake
        if packet.session != self.nonce:
            # a frame of an older handshake (in flight, resent or replayed), or from a new
            # boot whose HELLO was lost: never applied; a new handshake
            self.stats["stale_session"] += 1
            if now - self._asked_hello_at > self.config.recovery_s:
                self._ask_hello(now, fresh=True)
            return
        if isinstance(m, P.Change):
            self._unwrap(m.ticks)  # a resent change is late: no clock-offset sample
            self.last_change_rx = now
            if not self.analog:
                self._change(packet.seq, m, now, frames)
            return
        if ticks is not None:
            self._observe_ticks(ticks, now)
        if isinstance(m, P.Snapshot):
            if m.readings is not None:
                self._readings(m, frames)
            elif m.states is not None:
                self._snapshot(packet.seq, m, now, frames)
        elif isinstance(m, P.Error):
            self.stats["errors_from_mcu"] += 1
            log.info("firmware error %d: %s", m.code, m.message)
            if m.code == P.ERR_HISTORY_LOST:
                self.stats["history_lost"] += 1
                self.synced = False
                self._request_snapshot(now, resend=False)
            elif m.code == P.ERR_BAD_CRC and self.awaiting is not None:
                self._request_snapshot(now, resend=self.awaiting == "resend")  # ours was hit

    def _hello(self, h: P.Hello, seq: int, now: float) -> None:
        lay = self.layout
        problems = []
        if h.protocol != P.PROTOCOL_VERSION:
            problems.append(f"protocol {h.protocol}, host speaks {P.PROTOCOL_VERSION}")
        if h.layout and h.layout != lay.name:
            problems.append(f"layout {h.layout!r}, the service runs {lay.name!r}")
        if h.sensing != lay.sensing:
            problems.append(f"sensing {h.sensing}, layout {lay.name} uses {lay.sensing}")
        if h.key_count != self.key_count:
            problems.append(f"{h.key_count} sensor inputs, layout needs {self.key_count}")
        if h.sensing == lay.sensing:
            problems += self.kind.hello_problems(lay, h)
        if problems:
            self._drop(f"firmware on {self.path} does not match: " + "; ".join(problems), now)
            self.problem = "firmware configuration mismatch: " + "; ".join(problems)
            return
        self.hello = h
        self.problem = ""
        self.backoff = self.config.backoff_s
        if self.state == "live" and self.session == h.session:
            return  # a second HELLO of the same session (both ends said hello)
        resumed = self.session == h.session and self.synced
        if not resumed:
            if self.session != h.session:
                self.stats["sessions"] += 1
            self.session = h.session
            self.synced = False
            self.pending.clear()
            self._applied.clear()
            self.held_snapshot = None
            self._offsets.clear()
            self._ticks_raw = None
        self.state = "live"
        self.last_ping = now
        self._observe_ticks(h.ticks, now)
        if not self.analog:
            self._request_snapshot(now, resend=resumed)

    def _request_snapshot(self, now: float, resend: bool) -> None:
        """Ask for a snapshot — after resending the changes from ``last_seq + 1`` when
        ``resend`` — and expect the answer within ``recovery_s``."""
        if self.analog:
            return
        self.awaiting = "resend" if resend else "snapshot"
        self.recover_deadline = now + self.config.recovery_s
        first = (self.last_seq + 1) & 0xFFFF if resend else None
        self._send(P.SNAPSHOT_REQUEST, P.snapshot_request(first), now)

    def _settled(self) -> None:
        self.awaiting = None
        self.recover_deadline = None
        self.retries = 0

    def _change(self, seq: int, m: P.Change, now: float, frames: list[Frame]) -> None:
        if not self.synced:
            return  # the first snapshot of the session includes it
        ahead = P.seq_after(seq, self.last_seq)
        if ahead <= 0 or seq in self.pending:
            self.stats["duplicates"] += 1
            known = self._applied.get(seq) if ahead <= 0 else self.pending[seq][1]
            if known is not None and known != m.entries and self.awaiting is None:
                # two different changes with one number: one of them was never the
                # firmware's — its picture decides, now
                self.stats["conflicts"] += 1
                self._request_snapshot(now, resend=False)
            return
        if ahead > MAX_PENDING:
            # further ahead than the firmware keeps for resending: the gap cannot be
            # filled change by change; take the state from a snapshot instead
            self.stats["far_ahead"] += 1
            self.synced = False
            self.pending.clear()
            self.held_snapshot = None
            self._request_snapshot(now, resend=False)
            return
        self.pending[seq] = (m.ticks, m.entries)
        self._drain(frames)
        if self.pending and self.awaiting != "resend":
            self.stats["gaps"] += 1
            self._request_snapshot(now, resend=True)

    def _drain(self, frames: list[Frame]) -> None:
        while True:
            nxt = (self.last_seq + 1) & 0xFFFF
            if nxt not in self.pending:
                break
            ticks, entries = self.pending.pop(nxt)
            self.last_seq = nxt
            self._applied[nxt] = entries
            if len(self._applied) > 2 * MAX_PENDING:
                del self._applied[next(iter(self._applied))]
            for key, pressed in entries:
                if 0 <= key < self.key_count:
                    self.keys[key] = pressed
            self._emit(self._host_time(ticks), frames)
        if self.pending:
            return
        held = self.held_snapshot
        if held is not None and P.seq_after(held[0], self.last_seq) <= 0:
            self.held_snapshot = None
            if held[0] == self.last_seq:
                self._check_snapshot(held[1], frames)
            held = None
        if held is None and self.awaiting == "resend":
            self._settled()

    def _snapshot(self, seq: int, m: P.Snapshot, now: float, frames: list[Frame]) -> None:
        states = list(m.states or ())
        if len(states) != self.key_count:
            return
        if not self.synced:
            self._adopt(seq, m, frames)
            return
        ahead = P.seq_after(seq, self.last_seq)
        if ahead < 0 and self.awaiting == "snapshot" and not self.pending:
            # the firmware has not sent the changes we applied after its number: they were
            # never its own (serial keeps order) — its picture is the truth
            self.stats["unsent_changes"] += -ahead
            self._adopt(seq, m, frames)
            return
        if ahead < 0:
            return  # older than what we have applied
        if ahead == 0:
            if self.pending and self.awaiting == "snapshot":
                # queued changes numbered beyond the firmware's own count: never sent by it
                self.stats["unsent_changes"] += len(self.pending)
                self.pending.clear()
            self._check_snapshot(m, frames)
            if not self.pending:
                self.held_snapshot = None
                self._settled()
            return
        if ahead > MAX_PENDING:  # too far to resend change by change: adopt it
            self.stats["far_ahead"] += 1
            self.pending.clear()
            self._adopt(seq, m, frames)
            return
        # changes up to ``seq`` are missing: get them resent, keep the snapshot meanwhile
        self.held_snapshot = (seq, m)
        if self.awaiting != "resend":
            self.stats["gaps"] += 1
            self._request_snapshot(now, resend=True)

    def _check_snapshot(self, m: P.Snapshot, frames: list[Frame]) -> None:
        if list(m.states or ()) != self.keys:
            self.stats["resyncs"] += 1
            self.keys = list(m.states or ())
            self._emit(self._host_time(m.ticks), frames)

    def _adopt(self, seq: int, m: P.Snapshot, frames: list[Frame]) -> None:
        self._applied.clear()  # numbers up to the snapshot's are its, whatever we had
        self.keys = list(m.states or ())
        self.last_seq = seq
        self.synced = True
        self.held_snapshot = None
        answered = self.awaiting == "snapshot"
        self._settled()
        if answered:  # the answer to a plain request: nothing queued beyond it is real
            self.stats["unsent_changes"] += sum(1 for s in self.pending
                                                if P.seq_after(s, seq) > 0)
            self.pending.clear()
        self.pending = {s: v for s, v in self.pending.items() if P.seq_after(s, seq) > 0}
        self._emit(self._host_time(m.ticks), frames)
        self._drain(frames)

    def _deadline_passed(self, now: float, frames: list[Frame]) -> None:
        """No complete answer in time: ask again (the request or part of the answer was
        lost); after ``max_retries`` fall back to the newest snapshot."""
        self.recover_deadline = None
        held = self.held_snapshot
        gap = bool(self.pending) or (held is not None
                                     and P.seq_after(held[0], self.last_seq) > 0)
        if not self.synced:
            self._request_snapshot(now, resend=False)
        elif gap and self.retries < self.config.max_retries:
            self.retries += 1
            retries = self.retries
            self._request_snapshot(now, resend=True)
            self.retries = retries
        elif held is not None and P.seq_after(held[0], self.last_seq) > 0:
            self.stats["resyncs"] += 1
            self._adopt(held[0], held[1], frames)  # the missed changes are gone for good
        elif gap:
            self.synced = False  # start over from the next snapshot
            self._request_snapshot(now, resend=False)
        else:
            self._settled()

    def _readings(self, m: P.Snapshot, frames: list[Frame]) -> None:
        raw = m.readings or ()
        if len(raw) != self.key_count:
            return
        scale = self.config.adc_reference_v / 65535
        self.readings = tuple(raw[a] * scale for a in self.addresses)
        self.readings_received += 1
        if self.calibration is None:
            return
        t = self._host_time(m.ticks)
        frame = frame_from_states(t, self.calibration.classify(self.readings))
        self.last_frame = frame
        frames.append(frame)

    def _emit(self, t: float, frames: list[Frame]) -> None:
        frame = digital_frame(t, [self.keys[a] for a in self.addresses])
        if self.last_frame is not None and frame.occupied == self.last_frame.occupied:
            return
        self.last_frame = frame
        frames.append(frame)

    # --- time ---------------------------------------------------------------------------------
    def _unwrap(self, ticks: int) -> int:
        now = self.clock()
        self._ticks_bad = False
        if self._ticks_raw is None:
            self._ticks_raw, self._ticks_ms, self._ticks_at = ticks, ticks, now
            return ticks
        d = (ticks - self._ticks_raw) % P.TICKS_PERIOD
        if d >= P.TICKS_PERIOD // 2:
            d -= P.TICKS_PERIOD
        elapsed_ms = (now - (self._ticks_at if self._ticks_at is not None else now)) * 1000
        if d > elapsed_ms + 1000 * self.config.max_event_age_s or \
                d < -1000 * (self.config.max_event_age_s + 60):
            # further than the host's own clock moved: a forged or garbled time stamp
            self._ticks_bad = True
            self.stats["bad_ticks"] += 1
            return self._ticks_ms + d
        if d > 0:
            self._ticks_raw = ticks
            self._ticks_ms += d
            self._ticks_at = now
            return self._ticks_ms
        return self._ticks_ms + d

    def _observe_ticks(self, ticks: int, now: float, replayed: bool = False) -> None:
        ms = self._unwrap(ticks)
        if not replayed and not self._ticks_bad:
            self._offsets.append(now - ms / 1000)

    def _host_time(self, ticks: int) -> float:
        """The event's time on the host clock: never in the future, never older than
        ``max_event_age_s`` (a time stamp out of that range is the arrival time)."""
        ms = self._unwrap(ticks)
        now = self.clock()
        if not self._offsets or self._ticks_bad:
            return now
        t = ms / 1000 + min(self._offsets)
        if not now - self.config.max_event_age_s <= t <= now + 0.001:
            self.stats["bad_ticks"] += 1
            return now
        return t

    # --- LEDs -----------------------------------------------------------------------------------
    def send_leds(self, colours: Sequence[tuple[int, int, int]], first: int = 0,
                  brightness: int = 255) -> None:
        """Queue an LED frame; sent now or at the next update (at most one per
        ``led_min_interval_s``, the latest wins)."""
        for c in colours:  # 3 or 4 bytes per LED, in the chips' order
            if len(c) not in (3, 4) or not all(0 <= v <= 255 for v in c):
                raise ValueError(f"LED colours are (r, g, b) or (r, g, b, w) with 0..255, "
                                 f"got {c!r}")
        self._led_pending = (list(colours), first, brightness)
        self._flush_leds(self.clock())

    def _flush_leds(self, now: float) -> None:
        if self._led_pending is None or self.state != "live":
            return
        if now - self._last_led < self.config.led_min_interval_s:
            return
        colours, first, brightness = self._led_pending
        self._led_pending = None
        self._last_led = now
        for k in range(0, max(1, len(colours)), 100):
            self._send(P.LED_FRAME, P.led_frame(colours[k:k + 100], first + k, brightness), now)

    def request_snapshot(self) -> None:
        """Ask for a full snapshot now (e.g. after the service was busy)."""
        if self.state == "live":
            self._request_snapshot(self.clock(), resend=self.synced)
