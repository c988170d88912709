"""When the sensing back end last delivered a scan, and what is wrong with it: what
``/health`` and the page say about the sensors."""

from __future__ import annotations

import logging
import time
from typing import Any

log = logging.getLogger("fairyboard.service")


class SensingWatch:
    """When the sensing back end last delivered a scan, and what is wrong with it (for
    ``/health`` and the page)."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.last_raw_time: float | None = None
        self.scans_seen = 0
        self.problem = ""

    def watch(self, sensing: Any, now: float) -> bool:
        """One poll's look at the back end; True when its problem changed (logged)."""
        pipeline = sensing.pipeline
        if pipeline.scans != self.scans_seen or sensing.resting:
            self.scans_seen = pipeline.scans
            self.last_raw_time = now
        problem = sensing.problem()
        if problem == self.problem:
            return False
        self.problem = problem
        (log.warning if problem else log.info)(
            "sensing " + ("problem" if problem else "ok"),
            extra={"backend": sensing.name, "problem": problem})
        return True

    def state(self, sensing: Any, now: float) -> tuple[str, float | None]:
        """(the sensing state for /health, the age of the last frame)."""
        age = (None if self.last_raw_time is None
               else round(max(0.0, now - self.last_raw_time), 3))
        if self.problem:
            return self.problem, age
        if age is None:
            return "starting", age
        if age > max(1.0, 10 * sensing.period):
            return "stale", age
        return "ok", age


__all__ = ["SensingWatch"]
