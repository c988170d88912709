"""The service's rooms as the page, the benchmarks and the tests name them on the
service (``svc.coach``, ``svc.remote``, …): read-only names for the rooms' own fields."""

from __future__ import annotations

from typing import Any

from controller.adaptive_seat import AdaptiveSeat
from controller.board.fogsync import FogSync
from controller.coach import Coach
from controller.journal import Journal
from controller.leds.drivers import ThrottledLeds
from controller.leds.palette import Palette
from controller.leds.scene import LedFrame
from controller.link.remote import Remote
from controller.opponent import Opponent
from controller.session import GameSession


class RoomNames:
    """Mixed into :class:`~controller.service.BoardService`, which owns the rooms
    (``scorebook``, ``computer``, ``coach_seat``, ``link``, ``clock_seat``, ``lighting``)."""

    scorebook: Any
    computer: Any
    coach_seat: Any
    link: Any
    clock_seat: Any
    lighting: Any

    @property
    def session(self) -> GameSession:
        session = self.scorebook.session
        assert session is not None
        return session

    @property
    def journal(self) -> Journal:
        return self.scorebook.journal

    @property
    def journal_problems(self) -> list[str]:
        return self.scorebook.problems

    @property
    def failure(self) -> str | None:
        return self.scorebook.failure

    @property
    def adaptive(self) -> AdaptiveSeat:
        return self.computer.adaptive

    @property
    def opponent(self) -> Opponent:
        return self.computer.opponent

    @property
    def coach(self) -> Coach:
        return self.coach_seat.coach

    @property
    def advice(self) -> dict[str, Any]:
        return self.coach_seat.advice

    @property
    def remote(self) -> Remote | None:
        return self.link.remote

    @property
    def fog(self) -> FogSync | None:
        return self.link.fog or self.online.fog  # (a refereed linked or online game)

    @property
    def link_problem(self) -> str | None:
        return self.link.problem

    @property
    def time_control(self) -> str:
        return self.clock_seat.time_control

    @property
    def palette(self) -> Palette:
        return self.lighting.palette

    @property
    def leds(self) -> ThrottledLeds | None:
        return self.lighting.leds

    @property
    def led_frame(self) -> LedFrame | None:
        return self.lighting.frame

    @property
    def led_version(self) -> int:
        return self.lighting.version

    @property
    def board_name(self) -> str:
        return self.link.board_name
