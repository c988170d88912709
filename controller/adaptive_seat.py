"""The adaptive computer at the board: the level of a new game comes from the owner's
results against it (``[engine] adaptive = true``).

A room of its own: it keeps an :class:`~controller.engine.adaptive.Adaptive` (the rule)
in a state file next to the journal (``adaptive.json``, replaced atomically: a power cut
leaves the old one), hears each finished game (:meth:`AdaptiveSeat.game_over`, wired to
the board's ``game_over`` event) and gives the service the computer for a new game
(:meth:`AdaptiveSeat.computer`).  Only a game at the board against the computer counts:
not an online game, a linked or refereed one, nor a game without a person.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.atomic import write_atomically
from controller.engine.adaptive import Adaptive
from controller.i18n import Text
from controller.opponent import Computer
from controller.rules import Outcome

log = logging.getLogger("fairyboard.adaptive")
#: the state file's name, in the journal's folder
STATE_FILE = "adaptive.json"


class AdaptiveSeat:
    """The owner's adaptive level: on or off (the setting), its state and its file."""

    def __init__(self, on: bool, folder: Path | None) -> None:
        """``folder``: the journal's (None: nothing is kept, for a seat without a board)."""
        self.on = on
        self.path = None if folder is None else Path(folder) / STATE_FILE
        self.adaptive, self.counted = self._load()
        self.problem: str | None = None  #: the last save's failure, in one line (a Text)

    def _load(self) -> tuple[Adaptive, str]:
        """The saved state (anything unreadable: a fresh start, said once in the log)."""
        if self.path is None:
            return Adaptive(), ""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return Adaptive(), ""
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            log.warning("adaptive level: %s unreadable (%s); starting afresh", self.path, exc)
            return Adaptive(), ""
        if not isinstance(data, dict):
            return Adaptive(), ""
        return Adaptive.from_json(data), str(data.get("counted", ""))

    @property
    def level(self) -> int:
        return self.adaptive.level

    def computer(self, computer: Computer | None) -> Computer | None:
        """``computer`` for a new game: at the adaptive level when the mode is on and the
        computer plays someone (else as given)."""
        if not self.on or computer is None or not computer.seats:
            return computer
        return replace(computer, level=self.adaptive.level)

    def game_over(self, game_id: str, outcome: Outcome, computer: Computer, players: int,
                  at_the_board: bool) -> bool:
        """A finished game: counted (and the state saved) when the mode is on, the game
        was played here (``at_the_board``: not online, linked or refereed) against the
        computer at the adaptive level with a person on the other side.  The person's
        score is 1 when a person is among the winners, ½ for a draw, else 0.  True: it
        counted."""
        people = [p for p in range(players) if p not in computer.seats]
        if (not self.on or not at_the_board or not computer.seats or not people
                or computer.level != self.adaptive.level or game_id == self.counted):
            return False
        if not outcome.winners:
            score = 0.5
        else:
            score = 1.0 if any(p in outcome.winners for p in people) else 0.0
        before = self.adaptive.level
        self.adaptive.game_over(score)
        self.counted = game_id
        log.info("adaptive level", extra={"game_id": game_id, "score": score,
                                          "level_before": before,
                                          "level": self.adaptive.level})
        self.save()
        return True

    def save(self) -> None:
        """The state into its file, atomically (a failure is one line on the page)."""
        if self.path is None:
            return
        data = dict(self.adaptive.json(), counted=self.counted)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self.path, (json.dumps(data) + "\n").encode("utf-8"))
            self.problem = None
        except OSError as exc:
            self.problem = Text("adaptive level not saved: {problem}",
                                problem=str(exc.strerror or exc))
            log.warning(self.problem)

    def json(self) -> dict[str, Any]:
        """For the page: on or off, the next game's level and the owner's recent score."""
        score = self.adaptive.score
        return {"on": self.on, "level": self.adaptive.level,
                "games": len(self.adaptive.results),
                "score": None if score is None else round(score, 3),
                "problem": self.problem}
