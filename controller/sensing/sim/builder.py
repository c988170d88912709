"""The builder at the simulated board during bring-up: he looks at the LEDs as they really
light (the emulated chain, faults and all) and does what the self-test asks.

* ``follow(action, spots)`` — the self-test's ``instruct``: "clear" the board, "place"
  a test piece (one piece: on the spot lit blue, wherever that light really is — on a
  spot the terminal names when no spot is lit blue; several: on the spots the terminal
  names), "lift" the pieces he put for those spots;
* ``answer(question)`` — the LED walk's questions
  (:class:`~controller.sensing.ledcheck.Question`), answered from what the LEDs show;
* ``press(question, answers)`` / ``release()`` — the same answer given on the option
  pads (:class:`~controller.sensing.ledcheck.PadMenu`): he touches a piece to the pad
  that offers it (the last pad, "more…", when it is on another page) and takes it away
  once it was read; an answer no pad offers he types.

``looks()`` gives the colour seen at each LED place (``Spot.led``) now, ``wait(s)`` lets
time pass so a frame on its way (throttle, serial link) is out before he looks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from controller.sensing.ledcheck import MORE, Question

#: how long the builder takes to look up at the LEDs (the frame is out by then)
LOOK_S = 0.06


def colour_word(colour: Sequence[int]) -> str:
    """The colour a person names for an LED: its strongest channel, or "none"."""
    rgb = tuple(colour[:3])
    if max(rgb) == 0:
        return "none"
    return ("red", "green", "blue")[rgb.index(max(rgb))]


class EmulatedBuilder:
    def __init__(self, board, layout, looks: Callable[[], Sequence[Sequence[int]]],
                 wait: Callable[[float], None], piece: str = "white-pawn") -> None:
        self.board, self.layout, self.looks, self.wait = board, layout, looks, wait
        self.piece = piece
        #: the spot asked for → the spot his piece went on
        self.placed: dict[int, int] = {}
        self.answers: list[tuple[str, str]] = []
        #: the question he is answering on the pads, his answer, the pad he touched
        self._asked: tuple[Question, str] | None = None
        self._touched: int | None = None
        #: the answers he gave on a pad
        self.pressed: list[str] = []

    def _seen(self) -> dict[int, str]:
        """Spot index → the colour word seen under it (lit spots only)."""
        self.wait(LOOK_S)
        shown = list(self.looks())
        out = {}
        for i, spot in enumerate(self.layout.spots):
            if spot.led < len(shown) and colour_word(shown[spot.led]) != "none":
                out[i] = colour_word(shown[spot.led])
        return out

    def follow(self, action: str, spots: tuple[int, ...] = ()) -> None:
        if action == "clear":
            self.board.clear()
            self.placed.clear()
        elif action == "place":
            targets = list(spots)
            if len(spots) == 1:
                blue = [i for i, word in self._seen().items()
                        if word == "blue" and not self.board.objects(i)]
                if len(blue) == 1:
                    targets = blue
            for asked, target in zip(spots, targets, strict=True):
                self.board.put(target, self.piece)
                self.placed[asked] = target
        else:
            for s in spots:
                target = self.placed.pop(s, s)
                if self.board.objects(target):
                    self.board.clear(target)

    def answer(self, question: Question) -> str:
        seen = self._seen()
        names = [self.layout.spots[i].name for i in sorted(seen)]
        if question.kind == "where":
            reply = names[0] if len(names) == 1 else ("none" if not names else names[0])
        elif question.kind == "lit":
            reply = "y" if names else "n"
        elif question.kind == "under":
            reply = "y" if question.spots and question.spots[0] in names else "n"
        else:  # colours under the spots named, in order
            by_name = {self.layout.spots[i].name: w for i, w in seen.items()}
            reply = " ".join(by_name.get(s, "none") for s in question.spots)
        self.answers.append((question.kind, reply))
        return reply

    def press(self, question: Question, answers: tuple[str, ...]) -> int | None:
        """Touch the pad offering his answer (seen before the pads lit); None when no
        pad offers it (he types it: :meth:`typed_answer`).  The same question again
        (its next page) gets the answer he settled on."""
        if self._asked is None or self._asked[0] != question:
            self._asked = (question, self.answer(question))
        wanted = self._asked[1]
        if wanted in answers:
            k = answers.index(wanted)
        elif MORE in answers:
            k = answers.index(MORE)
        else:
            return None
        pad = self.layout.spot_index(self.layout.pads("option")[k].name)
        self.board.put(pad, self.piece)
        self._touched = pad
        if answers[k] != MORE:
            self.pressed.append(wanted)
        return k

    def touch_pad(self, k: int) -> None:
        """Touch option pad ``k`` (the pads' check before they answer)."""
        pad = self.layout.spot_index(self.layout.pads("option")[k].name)
        self.board.put(pad, self.piece)
        self._touched = pad

    def release(self) -> None:
        if self._touched is not None and self.board.objects(self._touched):
            self.board.clear(self._touched)
        self._touched = None

    def typed_answer(self, question: Question) -> str:
        """The answer he types when no pad offers it (or no pad reads his touch)."""
        if self._asked is not None and self._asked[0] == question:
            return self._asked[1]
        return self.answer(question)
