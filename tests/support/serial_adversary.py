"""A serial adversary between the firmware and the host (issue 37, Found 5): it sits in
``SimulatedMCU.faults`` (the bytes the firmware writes to the pseudo-terminal) and, frame
by frame, drops, doubles, holds back (reorders), flips, cuts short, replays earlier
frames, forges CRC-valid CHANGEs numbered near (1-3) and far ahead, replays frames of a
previous boot (stale session) and floods the line with junk and forged frames.

What counts (``AdversaryRun``): a *fabricated* frame is a frame the host committed whose
occupancy never was the board's and that was not caused by a CRC-valid forged CHANGE
(those the host cannot tell from real ones until its audit: their *phantoms* are timed
instead, from the forgery until the host's picture is the board's again).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import firmware.fairyfw.proto as FP

KINDS = ("drop", "dup", "reorder", "flip", "truncate", "replay", "forge-near", "forge-far",
         "stale", "flood")


@dataclass
class SerialAdversary:
    """``damage(data, to_mcu)`` as :class:`controller.sensing.sim.LinkFaults` has it."""

    rate: float = 0.05  # share of frames attacked
    seed: int = 0
    key_count: int = 64
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    forged_at: list[float] = field(default_factory=list)  # when a forgery went out
    clock: object = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self._buffer = bytearray()
        self._held: bytes | None = None
        self._seen: list[bytes] = []
        self._old_boot: list[bytes] = []  # frames of the previous boot
        self.active = True

    def new_boot(self) -> None:
        """The firmware restarted: what was seen so far is a previous boot's."""
        self._old_boot = self._seen[-200:]
        self._seen = []

    def damage(self, data: bytes, to_mcu: bool = False) -> bytes:
        if to_mcu:
            return data
        self._buffer += data
        out = bytearray()
        while b"\x00" in self._buffer:
            end = self._buffer.index(b"\x00") + 1
            frame = bytes(self._buffer[:end])
            del self._buffer[:end]
            out += self._attack(frame)
        return bytes(out)

    def _session_of(self, frame: bytes) -> int | None:
        from cobs import cobs

        try:
            body = cobs.decode(frame.rstrip(b"\x00"))
        except cobs.DecodeError:
            return None
        return int.from_bytes(body[1:3], "little") if len(body) >= 5 else None

    def _forge(self, frame: bytes, ahead: int) -> bytes:
        packets = FP.Decoder().feed(frame)
        session = self._session_of(frame)
        if not packets or session is None:
            return b""
        kind, seq, _ = packets[0]
        key = self.rng.randrange(self.key_count)
        ticks = int(self.rng.random() * 1000)  # any: the host must not trust it either
        self.forged_at.append(self.clock() if self.clock else 0.0)
        return FP.encode_packet(FP.CHANGE, (seq + ahead) & 0xFFFF,
                                FP.pack_change(ticks, [(key, self.rng.random() < 0.5)]),
                                session)

    def _attack(self, frame: bytes) -> bytes:
        self._seen.append(frame)
        out = b""
        if self._held is not None:
            held, self._held = self._held, None
            out = frame + held  # the held frame after this one: reordered
            frame = b""
        if not self.active or not frame or self.rng.random() >= self.rate:
            return out + frame
        kind = self.rng.choice(KINDS)
        self.counts[kind] += 1
        if kind == "drop":
            return out
        if kind == "dup":
            return out + frame + frame
        if kind == "reorder":
            self._held = frame
            return out
        if kind == "flip":
            b = bytearray(frame)
            i = self.rng.randrange(max(1, len(b) - 1))
            b[i] ^= 1 << self.rng.randrange(8)
            return out + bytes(b)
        if kind == "truncate":
            return out + frame[:self.rng.randrange(1, max(2, len(frame) - 1))] + b"\x00"
        if kind == "replay":
            return out + frame + self.rng.choice(self._seen[-200:])
        if kind == "forge-near":
            return out + frame + self._forge(frame, self.rng.randint(1, 3))
        if kind == "forge-far":
            return out + frame + self._forge(frame, self.rng.randint(65, 30000))
        if kind == "stale":
            old = self._old_boot or self._seen[:50]
            return out + frame + b"".join(self.rng.choice(old) for _ in range(5))
        # flood: junk bytes, then a burst of old frames and a near forgery
        junk = bytes(self.rng.randrange(256) for _ in range(300))
        burst = b"".join(self.rng.choice(self._seen[-200:]) for _ in range(20))
        return out + frame + junk + b"\x00" + burst


@dataclass
class AdversaryRun:
    """What one run counted (see the module docstring)."""

    seconds: float = 0.0
    moves: int = 0
    quiet_periods: int = 0
    quiet_wrong: int = 0  # quiet periods that ended with the host's picture wrong
    frames: int = 0
    fabricated: int = 0
    phantoms: list[float] = field(default_factory=list)  # seconds each lasted
    attacks: dict[str, int] = field(default_factory=dict)
    restarts: int = 0

    @property
    def worst_phantom_s(self) -> float:
        return max(self.phantoms, default=0.0)


def run_adversary(seconds: float, seed: int = 0, rate: float = 0.05,
                  quiet_s: float = 3.0) -> AdversaryRun:
    """A scripted human moving pieces on square8 through the real firmware over a real
    pseudo-terminal, with the adversary on the line for ``seconds`` of simulated time;
    after each burst of moves ``quiet_s`` of an idle board under attack, then ``quiet_s``
    of a quiet line, whose end is checked against the board."""
    from controller.layout import load_layout
    from controller.sensing.frame import address_count
    from controller.sensing.sim import SimulatedBoard, SimulatedSensing

    layout = load_layout("square8")
    rng = random.Random(seed)
    board = SimulatedBoard(layout, seed=seed)
    board.put("e8", "black-king")
    rig = SimulatedSensing(board, "mcu-matrix")
    board.advance(0.2)
    assert rig.link is not None and rig.link.connected
    adversary = SerialAdversary(rate=rate, seed=seed, key_count=address_count(rig.layout),
                                clock=board.clock)
    rig.mcu.faults = adversary
    out = AdversaryRun()
    truths = {board.expected_frame().occupied}
    rig.committed()
    cells = [f"{c}{r}" for c in "abcdefgh" for r in (1, 2, 3, 4, 5, 6)]
    phantom_since: float | None = None
    start = board.clock()

    def watch() -> None:
        nonlocal phantom_since
        for frame in rig.committed():
            out.frames += 1
            now = board.clock()
            if frame.occupied in truths:
                if phantom_since is not None:
                    out.phantoms.append(now - phantom_since)
                    phantom_since = None
                continue
            forged_recently = any(0 <= now - t <= 6.0 for t in adversary.forged_at)
            if forged_recently:
                if phantom_since is None:
                    phantom_since = now
            else:
                out.fabricated += 1

    while board.clock() - start < seconds:
        for _ in range(rng.randint(1, 6)):  # a burst of moves
            cell = rng.choice(cells)
            if board.objects(cell):
                board.lift(cell)
                board.set_aside()
            else:
                board.put(cell, "white-pawn")
            out.moves += 1
            board.advance(rng.uniform(0.05, 0.4))
            truths.add(board.expected_frame().occupied)
            watch()
        if rng.random() < 0.1:  # the firmware restarts now and then
            adversary.new_boot()
            rig.mcu.restart()
            out.restarts += 1
        for _ in range(int(quiet_s / 0.25)):  # the board idle, the line still attacked
            board.advance(0.25)
            watch()
        adversary.active = False  # then a quiet line: the host's picture must be right
        for _ in range(int(quiet_s / 0.25)):
            board.advance(0.25)
            watch()
        adversary.active = True
        out.quiet_periods += 1
        truth = board.expected_frame().occupied
        host = rig.pipeline.stable
        if host is None or host.occupied != truth:
            out.quiet_wrong += 1
    if phantom_since is not None:
        out.phantoms.append(board.clock() - phantom_since)
    out.seconds = board.clock() - start
    out.attacks = dict(adversary.counts)
    rig.close()
    return out
