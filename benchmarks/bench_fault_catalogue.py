"""The catalogue of wiring faults, each injected into each board's emulation: does
``fairyboard selftest`` name it as the builder would fix it (issue #31: goal ≥ 95 % named,
0 "all good" on a faulty board)?

Each case seeds one fault, runs the self-test exactly as ``fairyboard selftest`` does on
the simulated board (lotus39 on a fresh build: through the emulated Pico, not calibrated),
and counts it

* **named** when every phrase the fix needs is in the summary's fault lines;
* **named, with noise** when it is named but other fault lines come with it;
* **missed** otherwise, and **"all good"** when the summary says so on a faulty board.

    python -m benchmarks.bench_fault_catalogue [--board square8] [--write]

``--write`` puts the table into docs/sensing.md between the ``fault-catalogue`` marks.
Faults the emulation cannot make yet are listed as such, not counted.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller import bringup
from controller.config import Config
from controller.layout import load_layout
from controller.sensing.sim.faults import (
    matrix_cell,
    seed_matrix_faults,
    set_led_chips,
    swap_led_colours,
    swap_mux_inputs,
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "sensing.md"
BEGIN, END = "<!-- fault-catalogue: begin -->", "<!-- fault-catalogue: end -->"
FAULT_LINES = ("wiring", "dead", "stuck", "crosstalk", "ghost", "face down", "LED colour")


@dataclass(frozen=True)
class Case:
    name: str
    #: seeds the fault: (simulated board, rig or None, layout) → None
    seed: Callable[[Any, Any, Any], None]
    #: phrases the summary must hold for the builder to find the fix
    expect: tuple[str, ...]
    #: the LED chain's chip order (a colour-order fault)
    chips: str | None = None


def _matrix(**faults: Any) -> Callable[[Any, Any, Any], None]:
    return lambda board, rig, layout: seed_matrix_faults(rig, **faults)


def _sensor(spot: str, fault: str) -> Callable[[Any, Any, Any], None]:
    return lambda board, rig, layout: board.break_sensor(spot, fault)


def _rank_reversed(layout: Any, row: int) -> dict[str, str]:
    return {s.name: "reversed" for s in layout.spots if s.sensor.row == row}


def catalogue(layout: Any) -> tuple[list[Case], list[str]]:
    """The cases for one board, and the catalogue's faults its emulation cannot make."""
    spots = [s.name for s in layout.spots if s.kind == "cell"]
    one, two = spots[len(spots) // 2], spots[len(spots) // 2 + 1]
    cases = [
        Case("dead sensor", _sensor(one, "dead"), (one, "dead")),
        Case("sensor always on", _sensor(one, "stuck"), ("stuck", one)),
        Case("LED colour order: chips of another order than configured", lambda b, r, lay: None,
             ("pixel_order",), chips="GRB"),
    ]
    missing: list[str] = []
    if layout.sensing == "matrix":
        r, c = matrix_cell(layout, one)
        cases += [
            Case("row wire open", _matrix(open_rows=[r]), (f"row {r}", "wire open")),
            Case("column wire open", _matrix(open_columns=[c]), (f"col {c}", "wire open")),
            Case("two rows shorted", _matrix(shorted_rows=[(r, r + 1)]),
                 ("shorted", f"{r}", f"{r + 1}")),
            Case("two columns shorted", _matrix(shorted_columns=[(0, 1)]),
                 ("shorted", "0", "1")),
            Case("one diode reversed", _matrix(diodes={one: "reversed"}),
                 (f"diode at {one}", "reversed")),
            Case("a rank of diodes reversed", _matrix(diodes=_rank_reversed(layout, r)),
                 ("reversed", f"row {r}")),
            Case("rows swapped at the controller", _matrix(swapped_rows=[(2, 3)]),
                 ("rows 2 and 3 swapped", "swap the wires")),
            Case("columns swapped at the controller", _matrix(swapped_columns=[(0, 1)]),
                 ("cols 0 and 1 swapped", "swap the wires")),
        ]
    if layout.sensing == "analog":
        cases += [
            Case("sensor face down", _sensor(one, "face-down"), ("face down", one)),
            Case("two multiplexer inputs swapped",
                 lambda board, rig, lay: swap_mux_inputs(board, lay, one, two),
                 ("each other's inputs", one, two, "swap the wires")),
        ]
        missing += ["a multiplexer's select line open or swapped"]
    if layout.sensing == "shift-register":
        missing += ["two chain inputs swapped", "a chip's QH→SER link open"]
    missing += ["LED chain reversed / two LEDs swapped / chain broken (the LED walk asks "
                "nothing yet)", "wrong supply (tests/test_supply.py checks the netlist)"]
    return cases, missing


def config_for(layout: Any, tmp: Path) -> Config:
    config = Config()
    config.board.layout = config.board.game = layout.name
    config.journal.path = str(tmp / "journal")
    config.sensing.calibration = str(tmp / "calibration-{layout}.json")
    if layout.sensing == "analog":  # a fresh build through the emulated Pico
        config.sensing.backend = "simulated"
        config.sensing.simulated_link = True
        config.sensing.settle_ms, config.sensing.debounce_ms = 50.0, 5.0
        config.sensing.scan_hz = 50.0
        config.leds.driver = "serial"
    return config


def run_case(layout: Any, case: Case | None) -> tuple[str, str]:
    """(verdict, summary) of one self-test with ``case`` seeded (None: a good board)."""
    opened_bench = bringup._Bench.__init__
    opened_leds = bringup.open_leds

    def bench(self, *args, **kw):
        opened_bench(self, *args, **kw)
        if case is not None:
            rig = getattr(self.sensing, "rig", None)
            case.seed(self.sim, rig, self.layout)
            mcu = getattr(rig, "mcu", None)
            if case.chips and mcu is not None:  # LEDs on the Pico: chips of another order
                set_led_chips(mcu, "RGB")

    def leds(*args, **kw):
        out = opened_leds(*args, **kw)
        if case is not None and case.chips and hasattr(out.driver, "chip_order"):
            swap_led_colours(out.driver, "GRB")  # the chain's chips take GRB
        return out

    bringup._Bench.__init__ = bench  # type: ignore[method-assign]
    bringup.open_leds = leds
    try:
        with tempfile.TemporaryDirectory() as tmp:
            report = bringup.run_self_test(config_for(layout, Path(tmp)),
                                           say=lambda text: None, ask=lambda text: "")
    finally:
        bringup._Bench.__init__ = opened_bench  # type: ignore[method-assign]
        bringup.open_leds = opened_leds
    text = report.text()
    if case is None:
        return ("all good" if report.ok else "false alarm"), text
    if report.ok:
        return "all good", text
    faults = [line for line in text.splitlines() if line.startswith(FAULT_LINES)
              and not line.endswith("right")]
    joined = "\n".join(faults)
    if all(phrase in joined for phrase in case.expect):
        # the per-spot "dead (…)"/"stuck (…)" lists repeat what the wiring lines explain
        noise = [f for f in faults if not any(p in f for p in case.expect)
                 and not f.startswith(("dead (", "stuck ("))]
        return ("named" if not noise else "named, with noise"), text
    return "missed", text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", action="append",
                        help="square8, square9, kaleido89, lotus39 (default: all)")
    parser.add_argument("--write", action="store_true", help="update docs/sensing.md")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    rows: list[str] = []
    totals = {"named": 0, "named, with noise": 0, "missed": 0, "all good": 0}
    not_made: list[str] = []
    for name in args.board or ["square8", "square9", "kaleido89", "lotus39"]:
        layout = load_layout(name)
        verdict, text = run_case(layout, None)
        rows.append(f"| {name} | (no fault) | {verdict} |")
        cases, missing = catalogue(layout)
        for case in cases:
            verdict, text = run_case(layout, case)
            totals[verdict] += 1
            rows.append(f"| {name} | {case.name} | {verdict} |")
            print(f"{name:10} {case.name:45} {verdict}", flush=True)
            if args.verbose and verdict != "named":
                print("   " + text.replace("\n", "\n   "))
        not_made += [f"{name}: {m}" for m in missing]
    counted = sum(totals.values())
    named = totals["named"] + totals["named, with noise"]
    summary = (f"{named} of {counted} faults named ({named / counted:.0%}; "
               f"{totals['named']} with no other fault line), {totals['missed']} missed, "
               f"{totals['all good']} \"all good\" on a faulty board")
    print(summary)
    if args.write:
        table = "\n".join([BEGIN, "", f"`python -m benchmarks.bench_fault_catalogue`: "
                           f"{summary}. Goal: ≥ 95 % named, no \"all good\". Scope: one "
                           "seed and one spot per fault, the self-test only (not "
                           "`calibrate`), and only the faults the emulation can make "
                           "(listed below the table).", "",
                           "| board | fault | self-test |", "|---|---|---|", *rows, "",
                           "Not made by the emulation yet (so not counted): "
                           + "; ".join(not_made) + ".", "", END])
        text = DOCS.read_text(encoding="utf-8")
        if BEGIN in text:
            text = text[:text.index(BEGIN)] + table + text[text.index(END) + len(END):]
        else:
            text = text.replace("\n## Figures\n", f"\n### The fault catalogue\n\n{table}\n"
                                "\n## Figures\n")
        DOCS.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
