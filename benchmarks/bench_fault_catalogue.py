"""The catalogue of wiring faults, each injected into each board's emulation: does
``fairyboard selftest`` name it as the builder would fix it (issue #31: goal ≥ 95 % named,
0 "all good" on a faulty board)?

Each case seeds one fault, runs the self-test exactly as ``fairyboard selftest`` does on
the simulated board (lotus39 on a fresh build: through the emulated Pico, not calibrated),
and on the analog board ``fairyboard calibrate`` too for the sensors' faults, and counts it

* **named** when every phrase the fix needs is in the summary's fault lines;
* **named, with noise** when it is named but other fault lines come with it;
* **missed** otherwise, and **"all good"** when the summary says so on a faulty board.

    python -m benchmarks.bench_fault_catalogue [--board square8] [--write]

``--write`` puts the table into docs/sensing.md between the ``fault-catalogue`` marks
(``benchtools.write_section``).
Faults the emulation cannot make yet are listed as such, not counted.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.benchtools import write_section
from controller import bringup
from controller.config import Config
from controller.layout import load_layout
from controller.sensing.calibration import CalibrationError
from controller.sensing.sim.faults import (
    matrix_cell,
    open_chain_link,
    open_mux_select,
    seed_matrix_faults,
    set_led_chips,
    short_inputs,
    swap_led_colours,
    swap_mux_inputs,
    swap_mux_selects,
    unpower_sensors,
    wire_led_chain,
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "sensing.md"
FAULT_LINES = ("wiring", "dead", "stuck", "crosstalk", "ghost", "face down", "LED colour",
               "LEDs:")


@dataclass(frozen=True)
class Case:
    name: str
    #: seeds the fault: (simulated board, rig or None, layout) → None
    seed: Callable[[Any, Any, Any], None]
    #: phrases the summary must hold for the builder to find the fix
    expect: tuple[str, ...]
    #: the LED chain's chip order (a colour-order fault)
    chips: str | None = None
    #: the LED chain's wiring faults (``sim.faults.wire_led_chain`` keywords)
    chain: tuple[tuple[str, Any], ...] = ()
    #: phrases ``fairyboard calibrate`` must say (an analog board's sensor faults)
    calibrate: tuple[str, ...] = ()
    #: on the Pi's own pins, the phrases instead of ``expect`` (it scans a matrix
    #: backwards too, so it tells an open wire from reversed diodes)
    pi_expect: tuple[str, ...] = ()


def _matrix(**faults: Any) -> Callable[[Any, Any, Any], None]:
    return lambda board, rig, layout: seed_matrix_faults(rig, **faults)


def _sensor(spot: str, fault: str) -> Callable[[Any, Any, Any], None]:
    return lambda board, rig, layout: board.break_sensor(spot, fault)


def _rank_reversed(layout: Any, row: int) -> dict[str, str]:
    return {s.name: "reversed" for s in layout.spots if s.sensor.row == row}


def _chips(layout: Any) -> int:
    """How many 74HC165 a shift-register board chains."""
    return (layout.chain_length + 7) // 8


def catalogue(layout: Any) -> tuple[list[Case], list[str]]:
    """The cases for one board, and the catalogue's faults its emulation cannot make."""
    spots = [s.name for s in layout.spots if s.kind == "cell"]
    one, two = spots[len(spots) // 2], spots[len(spots) // 2 + 1]
    cases = [
        Case("dead sensor", _sensor(one, "dead"), (one, "dead"),
             calibrate=("no magnet read on " + one,)),
        Case("sensor always on", _sensor(one, "stuck"), ("stuck", one),
             calibrate=(f"on the empty board {one} reads", "faulty")),
        Case("LED colour order: chips of another order than configured", lambda b, r, lay: None,
             ("pixel_order",), chips="GRB"),
    ]
    n = layout.led_count
    led_a, led_b = (layout.spots[layout.spot_index(s)].led for s in (one, two))
    broken = n // 2
    first, second = (layout.spots[i].name for i in layout.led_spots()[:2])
    cases += [
        Case("LED chain wired from the far end", lambda b, r, lay: None,
             ("wired from the far end", "DIN"), chain=(("reversed", True),)),
        Case("two LEDs swapped", lambda b, r, lay: None,
             ("swapped", f"for {one}", two), chain=(("swapped", ((led_a, led_b),)),)),
        Case("the chain's first two LEDs swapped (lit for the colour question)",
             lambda b, r, lay: None, ("swapped", f"for {first}", second),
             chain=(("swapped", ((0, 1),)),)),
        Case("LED chain broken part way", lambda b, r, lay: None,
             (f"stops after LED {broken}", "open"), chain=(("broken_after", broken),)),
        Case("no data reaches the LED chain", lambda b, r, lay: None,
             ("no LED lights",), chain=(("broken_after", -1),)),
        Case("LEDs on a 3.3 V supply", lambda b, r, lay: None,
             ("supply too low", "5 V"), chain=(("supply_v", 3.3),)),
    ]
    missing: list[str] = []
    if layout.sensing == "matrix":
        r, c = matrix_cell(layout, one)
        cases += [
            Case("row wire open", _matrix(open_rows=[r]), (f"row {r}", "wire open"),
                 pi_expect=(f"row {r}", "wire open (its diodes read neither way)")),
            Case("column wire open", _matrix(open_columns=[c]), (f"col {c}", "wire open")),
            Case("two rows shorted", _matrix(shorted_rows=[(r, r + 1)]),
                 ("shorted", f"{r}", f"{r + 1}")),
            Case("two columns shorted", _matrix(shorted_columns=[(0, 1)]),
                 ("shorted", "0", "1")),
            Case("one diode reversed", _matrix(diodes={one: "reversed"}),
                 (f"diode at {one}", "reversed")),
            Case("a rank of diodes reversed", _matrix(diodes=_rank_reversed(layout, r)),
                 ("reversed", f"row {r}"),
                 pi_expect=(f"every diode on row {r}", "reversed", "turn them round")),
            Case("rows swapped at the controller", _matrix(swapped_rows=[(2, 3)]),
                 ("rows 2 and 3 swapped", "swap the wires")),
            Case("columns swapped at the controller", _matrix(swapped_columns=[(0, 1)]),
                 ("cols 0 and 1 swapped", "swap the wires")),
        ]
    if layout.sensing == "analog":
        cases += [
            Case("sensor face down", _sensor(one, "face-down"), ("face down", one),
                 calibrate=("face down", one)),
            Case("two multiplexer inputs swapped",
                 lambda board, rig, lay: swap_mux_inputs(board, lay, one, two),
                 ("each other's inputs", one, two, "swap the wires"),
                 calibrate=("each other's inputs", one, two, "swap the wires")),
        ]
        cases += [
            Case("a multiplexer select line open",
                 lambda board, rig, lay: open_mux_select(board, 1),
                 ("select line S1 open", "S1 (pin 11)"),
                 calibrate=("select line S1 open", "S1 (pin 11)")),
            Case("two select lines swapped at the controller",
                 lambda board, rig, lay: swap_mux_selects(board, 0, 1),
                 ("select lines S0 and S1 swapped", "swap"),
                 calibrate=("select lines S0 and S1 swapped", "swap")),
        ]
    if layout.sensing == "shift-register":
        cases += [
            Case("two chain inputs swapped",
                 lambda board, rig, lay: swap_mux_inputs(board, lay, one, two),
                 ("each other's inputs", one, two, "swap the wires")),
            Case("two sensors' outputs shorted together",
                 lambda board, rig, lay: short_inputs(board, lay, one, two),
                 ("shorted together", one, two, "bridge")),
            Case("a chip's QH→DS link open", lambda board, rig, lay: open_chain_link(
                board, 4), ("the chain stops after", "open")),
            Case("the last chip's QH→DS link open", lambda board, rig, lay: open_chain_link(
                board, _chips(lay) - 2), ("the chain stops after", "open")),
        ]
    if layout.sensor_kind in ("digital-hall", "linear-hall"):
        cases.append(Case("the sensors' supply off", lambda board, rig, lay:
                          unpower_sensors(board), ("get no supply",),
                          calibrate=("get no supply",)))
    else:
        missing += ["face-down sensors and the sensors' supply (reeds are not polar and "
                    "need no supply)"]
    missing += ["supply domains and back-feeding (tests/test_supply.py checks the netlist)"]
    return cases, missing


#: the paths a board's sensors and LEDs take to the program: the Pi's own pins, or the
#: emulated Pico's firmware over the serial link (lotus39 is built with a Pico only)
PATHS = ("pi", "pico")


def paths_of(layout: Any) -> tuple[str, ...]:
    return ("pico",) if layout.sensing == "analog" else PATHS


def config_for(layout: Any, tmp: Path, path: str = "pi") -> Config:
    config = Config()
    config.board.layout = config.board.game = layout.name
    config.journal.path = str(tmp / "journal")
    config.sensing.calibration = str(tmp / "calibration-{layout}.json")
    if path == "pico":  # through the emulated Pico (lotus39: a fresh build)
        config.sensing.backend = "simulated"
        config.sensing.simulated_link = True
        config.sensing.settle_ms, config.sensing.debounce_ms = 50.0, 5.0
        config.sensing.scan_hz = 50.0
        config.leds.driver = "serial"
    return config


def run_case(layout: Any, case: Case | None, path: str | None = None) -> tuple[str, str]:
    """(verdict, summary) of one self-test with ``case`` seeded (None: a good board) on
    one path (default: the board's first, :func:`paths_of`)."""
    path = path or paths_of(layout)[0]
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
            if case.chain:
                wire_led_chain(self.chain if mcu is None else mcu, **dict(case.chain))

    def leds(*args, **kw):
        out = opened_leds(*args, **kw)
        if case is not None and case.chips and hasattr(out.driver, "chip_order"):
            swap_led_colours(out.driver, "GRB")  # the chain's chips take GRB
        return out

    bringup._Bench.__init__ = bench  # type: ignore[method-assign]
    bringup.open_leds = leds
    try:
        with tempfile.TemporaryDirectory() as tmp:
            report = bringup.run_self_test(config_for(layout, Path(tmp), path),
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
    expect = case.pi_expect if path == "pi" and case.pi_expect else case.expect
    if all(phrase in joined for phrase in expect):
        # the per-spot "dead (…)"/"stuck (…)" lists repeat what the wiring lines explain
        noise = [f for f in faults if not any(p in f for p in expect)
                 and not f.startswith(("dead (", "stuck ("))]
        return ("named" if not noise else "named, with noise"), text
    return "missed", text


def run_calibrate(layout: Any, case: Case | None, path: str | None = None) -> tuple[str, str]:
    """(verdict, what it said) of ``fairyboard calibrate`` on an analog board with
    ``case`` seeded (None: a good board, which must be calibrated); the emulated builder
    puts the kit's pieces on the lit spots."""
    path = path or paths_of(layout)[0]
    opened = bringup._Bench.__init__

    def bench(self, *args, **kw):
        opened(self, *args, **kw)
        if case is not None:
            case.seed(self.sim, getattr(self.sensing, "rig", None), self.layout)

    bringup._Bench.__init__ = bench  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                bringup.run_calibration(config_for(layout, Path(tmp), path),
                                        say=lambda text: None)
                text = "saved"
            except CalibrationError as error:
                text = str(error)
    finally:
        bringup._Bench.__init__ = opened  # type: ignore[method-assign]
    if text == "saved":
        return "all good", text
    if case is None:
        return "false alarm", text
    said = text.split(". The rest is saved")[0].split(". Nothing is saved")[0]
    if all(phrase in said for phrase in case.calibrate):
        noise = [f for f in said.split("; ") if not any(p in f for p in case.calibrate)]
        return ("named" if not noise else "named, with noise"), text
    return "missed", text


def calibrated(layout: Any, case: Case | None) -> bool:
    """Whether ``fairyboard calibrate`` is counted for this case on this board."""
    return layout.sensing == "analog" and (case is None or bool(case.calibrate))


def _summary(totals: dict[str, int]) -> str:
    counted = sum(totals.values())
    named = totals["named"] + totals["named, with noise"]
    return (f"{named} of {counted} faults named ({named / max(1, counted):.0%}; "
            f"{totals['named']} with no other fault line), {totals['missed']} missed, "
            f"{totals['all good']} \"all good\" on a faulty board")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", action="append",
                        help="square8, square9, kaleido89, lotus39 (default: all)")
    parser.add_argument("--path", action="append", choices=PATHS,
                        help="pi (the Pi's own pins), pico (the emulated firmware over the "
                             "serial link); default: every path a board is built with")
    parser.add_argument("--write", action="store_true", help="update docs/sensing.md")
    parser.add_argument("--rows", help="also write the verdicts to this JSON file")
    parser.add_argument("--combine", nargs="+", metavar="JSON",
                        help="no run: the table from the --rows files of runs in parallel")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    rows: list[str] = []
    blank = {"named": 0, "named, with noise": 0, "missed": 0, "all good": 0}
    totals = {p: dict(blank) for p in PATHS}
    calibrate_totals = dict(blank)
    not_made: list[str] = []
    results: list[tuple[str, ...]] = []
    for name in [] if args.combine else args.board or ["square8", "square9", "kaleido89",
                                                          "lotus39"]:
        layout = load_layout(name)
        cases, missing = catalogue(layout)
        for path in paths_of(layout):
            if args.path and path not in args.path:
                continue
            for case in [None, *cases]:
                verdict, text = run_case(layout, case, path)
                called = (run_calibrate(layout, case, path) if calibrated(layout, case)
                          else ("—", ""))
                fault = case.name if case is not None else "(no fault)"
                results.append((name, path, fault, verdict, called[0]))
                print(f"{name:10} {path:5} {fault:45} {verdict:18} {called[0]}", flush=True)
                right = "named" if case is not None else "all good"
                if args.verbose and verdict != right:
                    print("   " + text.replace("\n", "\n   "))
                if args.verbose and called[0] not in (right, "—"):
                    print("   calibrate: " + called[1])
        not_made += [f"{name}: {m}" for m in missing]
    if args.rows:
        Path(args.rows).write_text(json.dumps({"results": results, "not_made": not_made}))
    for file in args.combine or []:
        data = json.loads(Path(file).read_text())
        results += [tuple(r) for r in data["results"]]
        not_made += data["not_made"]
    for name, path, fault, verdict, called in results:
        rows.append(f"| {name} | {path} | {fault} | {verdict} | {called} |")
        if fault != "(no fault)":
            totals[path][verdict] += 1
            if called != "—":
                calibrate_totals[called] += 1
    everything = {k: sum(t[k] for t in totals.values()) for k in totals["pi"]}
    summary = "; ".join([_summary(everything) + " by the self-test in all"]
                        + [f"{p}: {_summary(t)}" for p, t in totals.items() if sum(t.values())]
                        + [f"calibrate (analog boards): {_summary(calibrate_totals)}"])
    print(summary)
    if args.write:
        table = "\n".join(["", f"`python -m benchmarks.bench_fault_catalogue`: "
                           f"{summary}. Goal: ≥ 95 % named, no \"all good\", on both paths. "
                           "Paths: `pi` — the sensors and LEDs on the Pi's own pins; `pico` — "
                           "the emulated firmware on the emulated Pico over the serial link "
                           "(lotus39 is built with a Pico only, tested on a fresh build: not "
                           "calibrated). Scope: one "
                           "seed and one spot per fault, the self-test with the emulated "
                           "builder answering the LED questions on the option pads from what "
                           "the emulated chain shows; `fairyboard calibrate` on the analog "
                           "board too, for the sensors' faults (the emulated builder puts "
                           "the kit's pieces on the lit spots; — : not a calibration's "
                           "fault, or a switch board, which is not calibrated), "
                           "and only the faults the emulation can make (listed below the "
                           "table).", "",
                           "| board | path | fault | self-test | calibrate |",
                           "|---|---|---|---|---|", *rows,
                           "", "Not made by the emulation yet (so not counted): "
                           + "; ".join(dict.fromkeys(not_made)) + ".", ""])
        write_section(DOCS, "fault-catalogue", table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
