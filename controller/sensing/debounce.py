"""From raw scans to frames a reconciler may act on (design/interaction.md, principle 2).

* :class:`Debouncer` — per-spot stability: a spot's new state counts once it has been
  seen in ``scans`` consecutive scans *and* for ``stable_s`` seconds.  Every change of
  the stable picture becomes one stable frame; none is skipped.
* :class:`SettleGate` — commits a stable frame at once unless the consumer says the
  move it shows could still be extended (``is_extendable(frame)``); such a frame waits
  ``settle_s`` (default 0.2 s).  A held frame is dropped only when the next stable frame
  shows the piece that just arrived travelling on (lifted or slid away again): a slide
  counts only where it ends.  Any other later frame releases it first, so a fast
  player's two moves in a row both come out.
* :class:`SensingPipeline` — back end → debouncer → gate.

All decisions use frame times, never the wall clock, so the output does not depend on
how often the consumer polls.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from controller.sensing.frame import Backend, Clock, Frame, frame_from_states


@dataclass(frozen=True)
class DebounceConfig:
    """``scans`` consecutive equal readings and at least ``stable_s`` seconds."""

    scans: int = 3
    stable_s: float = 0.003

    def __post_init__(self) -> None:
        if self.scans < 1:
            raise ValueError(f"debounce scans must be 1 or more, got {self.scans}")
        if self.stable_s < 0:
            raise ValueError(f"debounce time must not be negative, got {self.stable_s}")


#: for frames that are already debounced (the microcontroller link)
PASSTHROUGH = DebounceConfig(scans=1, stable_s=0.0)


class Debouncer:
    """Per-spot debouncing of raw frames into stable frames."""

    def __init__(self, config: DebounceConfig = DebounceConfig()) -> None:
        self.config = config
        self.stable: list[tuple] | None = None
        self._candidate: list[tuple | None] = []
        self._count: list[int] = []
        self._since: list[float] = []
        self.frame: Frame | None = None  # the current stable frame

    def feed(self, raw: Frame) -> Frame | None:
        """Feed one raw scan; returns the new stable frame when the stable picture changed."""
        n = len(raw.occupied)
        states = [raw.spot_state(i) for i in range(n)]
        if self.stable is None or len(self.stable) != n:
            self.stable = states
            self._candidate = [None] * n
            self._count = [0] * n
            self._since = [raw.time] * n
            self.frame = raw
            return raw
        scans, stable_s = self.config.scans, self.config.stable_s
        changed = False
        for i, s in enumerate(states):
            if s == self.stable[i]:
                self._candidate[i] = None
                continue
            if s != self._candidate[i]:
                self._candidate[i] = s
                self._count[i] = 1
                self._since[i] = raw.time
            else:
                self._count[i] += 1
            if self._count[i] >= scans and raw.time - self._since[i] >= stable_s - 1e-9:
                self.stable[i] = s
                self._candidate[i] = None
                changed = True
        if not changed:
            return None
        self.frame = frame_from_states(raw.time, self.stable)
        return self.frame


def arrivals(before: Frame | None, after: Frame) -> tuple[int, ...]:
    """Spots where something arrived: empty → occupied, or a higher stack class."""
    if before is None:
        return after.occupied_spots()
    out = []
    for i, occ in enumerate(after.occupied):
        if not occ:
            continue
        grew = (after.stack[i] is not None and before.stack[i] is not None
                and after.stack[i] > before.stack[i])
        if not before.occupied[i] or grew:
            out.append(i)
    return tuple(out)


def travelled_on(previous: Frame | None, held: Frame, newer: Frame) -> bool:
    """Whether ``newer`` shows what arrived in ``held`` leaving again (the move went on)."""
    for i in arrivals(previous, held):
        if not newer.occupied[i]:
            return True
        hs, ns = held.stack[i], newer.stack[i]
        if hs is not None and ns is not None and ns < hs:
            return True
    return False


class SettleGate:
    """Commits stable frames in order; holds extendable ones for ``settle_s``.

    ``is_extendable`` is asked once per frame, when the frame reaches the head of the
    queue — i.e. after the consumer has seen every earlier frame — so its answer can rest
    on the consumer's current state.  Use :meth:`release` as an iterator and handle each
    frame before taking the next."""

    def __init__(self, is_extendable: Callable[[Frame], bool] | None = None,
                 settle_s: float = 0.2,
                 supersedes: Callable[[Frame | None, Frame, Frame], bool] = travelled_on,
                 ) -> None:
        if settle_s < 0:
            raise ValueError(f"settle time must not be negative, got {settle_s}")
        self.is_extendable = is_extendable or (lambda frame: False)
        self.settle_s = settle_s
        self.supersedes = supersedes
        self.queue: deque[Frame] = deque()
        self.last_released: Frame | None = None
        self._head_extendable: bool | None = None
        self.dropped = 0  # held frames the next frame showed to be passing states

    def feed(self, frame: Frame) -> None:
        self.queue.append(frame)

    def release(self, now: float) -> Iterator[Frame]:
        """Yield every frame that is committed as of ``now``, oldest first."""
        while self.queue:
            head = self.queue[0]
            if self._head_extendable is None:
                self._head_extendable = bool(self.is_extendable(head))
            if self._head_extendable:
                deadline = head.time + self.settle_s
                nxt = self.queue[1] if len(self.queue) > 1 else None
                if nxt is not None and nxt.time < deadline:
                    if self.supersedes(self.last_released, head, nxt):
                        self.queue.popleft()
                        self._head_extendable = None
                        self.dropped += 1
                        continue
                elif nxt is None and now < deadline:
                    return
            self.queue.popleft()
            self._head_extendable = None
            self.last_released = head
            yield head

    def pending(self) -> int:
        return len(self.queue)


class SensingPipeline:
    """A back end's raw frames → debounced stable frames → settle gate → committed frames.

    Call :meth:`update` at the scan rate (it reads the back end); take committed frames
    with :meth:`frames` whenever convenient.  ``stable`` is the latest stable frame (for
    LED feedback that must not wait for the gate, e.g. lighting targets on a lift)."""

    def __init__(self, backend: Backend, clock: Clock, *,
                 debounce: DebounceConfig | None = None,
                 is_extendable: Callable[[Frame], bool] | None = None,
                 settle_s: float = 0.2) -> None:
        self.backend = backend
        self.clock = clock
        if debounce is None:
            debounce = PASSTHROUGH if backend.debounced else DebounceConfig()
        self.debouncer = Debouncer(debounce)
        self.gate = SettleGate(is_extendable, settle_s)
        self.stable: Frame | None = None
        self.scans = 0

    def update(self) -> list[Frame]:
        """Read the back end once; returns the new stable frames (also queued in the gate)."""
        out = []
        for raw in self.backend.read():
            self.scans += 1
            stable = self.debouncer.feed(raw)
            if stable is not None:
                self.stable = stable
                self.gate.feed(stable)
                out.append(stable)
        return out

    def frames(self, now: float | None = None) -> Iterator[Frame]:
        """Committed frames as of ``now`` (default: the clock), oldest first."""
        return self.gate.release(self.clock() if now is None else now)

    def close(self) -> None:
        self.backend.close()
