"""Supplies of a board's netlist: which rails are live in every way it can be powered,
and which pins then back-feed an unpowered part.

A builder plugs the USB cable and the 5 V supply in any order, and may wire the 5 V plug
the wrong way round.  ``supply_faults(netlist)`` walks every such state — USB in or out,
the 5 V supply off, on, or reversed — through the netlist's power parts and reports, in
the builder's words:

* a part whose supply pin sees the reversed voltage (no reverse-polarity protection);
* a signal net on which a powered part drives (or a pull-up to a live rail feeds) an input
  of an unpowered part whose clamp diode then feeds that part's rail ("back-feed"): two
  supply domains with nothing between them;
* two rails tied together (the Pico's ADC_VREF joins its own 3V3 through 200 Ω, Pico
  datasheet "ADC_VREF"; a second regulator on that pin fights it).

What each part does to power is data (``POWER_PARTS``), looked up by the component's value,
so the check reads the same netlist the schematic and the KiCad file are drawn from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import product

#: the states a rail can be in
LIVE, OFF, REVERSED = "+", "0", "-"
#: the ways a board can be powered: (USB cable in, 5 V supply state)
STATES: tuple[tuple[bool, str], ...] = tuple(product((False, True), (OFF, LIVE, REVERSED)))


@dataclass(frozen=True)
class Chip:
    """A powered part: the pin name that feeds it, the pin names that drive when it is
    powered, and the pin names with clamp diodes to its supply (an input driven while the
    part is unpowered lifts its rail through them)."""

    supply: str
    drives: frozenset[str] = frozenset()
    clamped: frozenset[str] = frozenset()


_HC165 = Chip("VCC", frozenset({"QH", "~QH"}),
              frozenset({"SH/LD", "CLK", "SER", "CLK_INH", "QH", "~QH",
                         *"ABCDEFGH"}))
_HC4067 = Chip("VCC", frozenset({"SIG"}),
               frozenset({"SIG", "S0", "S1", "S2", "S3", "~E",
                          *(f"I{k}" for k in range(16))}))
#: 74AHCT125: inputs tolerate up to 7 V whatever VCC is (TI SN74AHCT125 absolute maximum
#: ratings: VI −0.5 to 7 V, VO −0.5 to VCC + 0.5 V): only its outputs clamp
_AHCT125 = Chip("VCC", frozenset({"1Y", "2Y", "3Y", "4Y"}),
                frozenset({"1Y", "2Y", "3Y", "4Y"}))
_WS2812B = Chip("VDD", frozenset({"DOUT"}), frozenset({"DIN", "DOUT"}))
#: hall sensors: open-drain (DRV5033) or analog (DRV5055) output, clamped to VCC
_HALL = Chip("VCC", frozenset(), frozenset({"OUT"}))

CHIPS: dict[str, Chip] = {"74HC165": _HC165, "CD74HC4067": _HC4067, "74AHCT125": _AHCT125,
                          "WS2812B": _WS2812B, "DRV5033": _HALL, "DRV5055A4": _HALL}

PICO = "Raspberry Pi Pico"


@dataclass
class _Board:
    """The netlist seen as power: each (ref, pin name) → net, and the rails' states."""

    net_of: Callable[[str, str], str | None]
    state: dict[str, str]

    def rail(self, net: str | None) -> str:
        return self.state.get(net, OFF) if net else OFF


def _pin_net(netlist, ref: str, name: str) -> str | None:
    comp = netlist.components[ref]
    for number, pin_name in comp.pins.items():
        if pin_name == name:
            return netlist.net_of(ref, number)
    return None


def _pico_rails(board: _Board, ref: str, usb: bool) -> dict[str, str]:
    """The Pico's own rails: VBUS from USB, VSYS = VBUS through its Schottky D1 ORed with
    whatever feeds the VSYS pin, 3V3 from its buck-boost while 3V3_EN is not pulled low."""
    vsys_pin = board.net_of(ref, "VSYS")
    vsys_live = usb or board.rail(vsys_pin) == LIVE
    enable = board.net_of(ref, "3V3_EN")
    held_low = enable is not None and board.state.get(enable) == "low"
    return {"VSYS": LIVE if vsys_live else OFF,
            "3V3": LIVE if vsys_live and not held_low else OFF}


def rail_states(netlist, usb: bool, supply: str) -> tuple[dict[str, str], dict[str, str]]:
    """(net → state, Pico ref → its 3V3 state) for one way of powering the board."""
    comps = netlist.components
    board = _Board(lambda ref, name: _pin_net(netlist, ref, name), {"GND": "gnd"})
    pico_3v3: dict[str, str] = {}
    for _ in range(len(comps) + 2):  # propagate to a fixed point
        before = dict(board.state)
        for ref, comp in comps.items():
            v = comp.value
            pin = board.net_of
            if ref.startswith("J") and "TIP" in comp.pins.values():
                board.state[pin(ref, "TIP")] = supply
            elif v == "fuse":
                a, b = netlist.net_of(ref, "1"), netlist.net_of(ref, "2")
                for x, y in ((a, b), (b, a)):
                    if board.rail(x) != OFF and x and y:
                        board.state[y] = board.state[x]
            elif v.startswith("P-MOSFET"):
                # ideal diode: conducts drain → source only when the drain is positive
                d, s = pin(ref, "D"), pin(ref, "S")
                if board.rail(d) == LIVE and s:
                    board.state[s] = LIVE
            elif v.startswith("N-MOSFET"):
                # pulls its drain low while gate − source is positive
                g, s, d = pin(ref, "G"), pin(ref, "S"), pin(ref, "D")
                if d and board.rail(g) == LIVE and board.rail(s) != LIVE:
                    board.state[d] = "low"
            elif v.startswith("Schottky"):
                a, k = pin(ref, "A"), pin(ref, "K")
                if board.rail(a) == LIVE and k:
                    board.state[k] = LIVE
            elif v.startswith("LM1117"):
                vin, vout = pin(ref, "VIN"), pin(ref, "VOUT")
                if vout:
                    board.state[vout] = LIVE if board.rail(vin) == LIVE else OFF
            elif v == PICO:
                rails = _pico_rails(board, ref, usb)
                pico_3v3[ref] = rails["3V3"]
                vsys = pin(ref, "VSYS")
                if vsys and rails["VSYS"] == LIVE:
                    board.state[vsys] = LIVE  # USB through the Pico's own D1
                out = pin(ref, "3V3")
                if out:
                    board.state[out] = rails["3V3"]
        if board.state == before:
            break
    return board.state, pico_3v3


def _supply_net(netlist, ref: str, chip: Chip) -> str | None:
    return _pin_net(netlist, ref, chip.supply)


def _describe(usb: bool, supply: str) -> str:
    five = {OFF: "5 V supply off", LIVE: "5 V supply on",
            REVERSED: "5 V supply wired the wrong way round"}[supply]
    return f"USB {'in' if usb else 'out'}, {five}"


def supply_faults(netlist) -> list[str]:
    """Every reversed-supply, back-feed and joined-rail fault, one line each."""
    faults: list[str] = []
    comps = netlist.components
    for usb, supply in STATES:
        state, pico_3v3 = rail_states(netlist, usb, supply)
        when = _describe(usb, supply)

        def powered(ref: str, state: dict[str, str] = state,
                    pico_3v3: dict[str, str] = pico_3v3) -> str:
            comp = comps[ref]
            if comp.value == PICO:
                return pico_3v3.get(ref, OFF)
            chip = CHIPS.get(comp.value)
            if chip is None:
                return "passive"
            return state.get(_supply_net(netlist, ref, chip) or "", OFF)

        # parts whose supply sees the reversed voltage
        reversed_parts = sorted({ref for ref, comp in comps.items()
                                 if comp.value in CHIPS and powered(ref) == REVERSED}
                                | {ref for ref, comp in comps.items()
                                   if comp.value.startswith(("LM1117", "1000uF"))
                                   and REVERSED in (state.get(n) for n in
                                                    (netlist.net_of(ref, p)
                                                     for p in comp.pins))})
        if reversed_parts:
            faults.append(f"{when}: {len(reversed_parts)} parts see −5 V on their supply "
                          f"(e.g. {', '.join(reversed_parts[:4])}): no reverse-polarity "
                          "protection")
        # back-feed through signal nets
        for name, nodes in sorted(netlist.nets.items()):
            if name in state:
                continue  # a rail
            drivers, victims = [], []
            for ref, number in nodes:
                comp = comps[ref]
                pin_name = comp.pins[number]
                p = powered(ref)
                if comp.value == PICO:
                    if pin_name.startswith("GP") and p == LIVE:
                        drivers.append(f"{ref} {pin_name}")
                    elif pin_name.startswith("GP") and p == OFF:
                        victims.append(f"{ref} {pin_name}")
                    continue
                chip = CHIPS.get(comp.value)
                if chip is not None:
                    if p == LIVE and pin_name in chip.drives:
                        drivers.append(f"{ref} {pin_name}")
                    elif p == OFF and pin_name in chip.clamped:
                        victims.append(f"{ref} {pin_name}")
                    continue
                if ref.startswith("R"):  # a pull-up from a live rail feeds the net
                    others = [netlist.net_of(ref, q) for q in comp.pins if q != number]
                    if any(state.get(o) == LIVE for o in others if o):
                        drivers.append(f"{ref} (pull-up)")
            if drivers and victims:
                faults.append(f"{when}: {drivers[0]} drives net {name} into unpowered "
                              f"{victims[0]}{' and others' if len(victims) > 1 else ''}: "
                              "back-feed through its clamp diode (two supply domains)")
    # the Pico's ADC_VREF: linked to its own 3V3 through 200 Ω on the Pico
    for ref, comp in comps.items():
        vref = _pin_net(netlist, ref, "ADC_VREF") if comp.value == PICO else None
        if vref and vref != "GND" and _is_rail(netlist, vref):
            faults.append(f"{ref} ADC_VREF is joined to rail {vref}: the Pico links ADC_VREF "
                          "to its own 3V3 through 200 Ω, so the two regulators feed each "
                          "other (and either side back-feeds the other when one is off); "
                          "leave ADC_VREF open")
    return sorted(set(faults))


def _is_rail(netlist, net: str) -> bool:
    """A net fed by a regulator's output or feeding a chip's supply pin."""
    for ref, number in netlist.nets.get(net, []):
        comp = netlist.components[ref]
        name = comp.pins[number]
        chip = CHIPS.get(comp.value)
        if name == "VOUT" or (chip is not None and name == chip.supply):
            return True
    return False
