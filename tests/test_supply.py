"""Supplies: every board is one supply domain, survives a reversed plug, and the check
catches the designs that do not (the two-domain board of before, a missing
reverse-polarity MOSFET, ADC_VREF on the sensors' regulator)."""

from __future__ import annotations

import pytest

from controller.layout import load_layout
from controller.schematic import PICO_POWER_PINS, V3S, V5, V5_FUSED, Netlist, board_netlist
from controller.sensing.sim.supply import LIVE, OFF, REVERSED, rail_states, supply_faults

BOARDS = ("square8", "square9", "lotus39", "kaleido89")


def _without(net: Netlist, ref: str) -> Netlist:
    del net.components[ref]
    for name in list(net.nets):
        net.nets[name] = [node for node in net.nets[name] if node[0] != ref]
        if not net.nets[name]:
            del net.nets[name]
    return net


def _merge(net: Netlist, gone: str, into: str) -> Netlist:
    net.nets[into].extend(net.nets.pop(gone))
    return net


@pytest.mark.parametrize("name", BOARDS)
def test_every_board_is_one_supply_domain(name: str) -> None:
    net = board_netlist(load_layout(name))
    assert supply_faults(net) == []
    # USB alone: the Pico's 3V3 is held off with the 5 V rail; the plug reversed: nothing live
    _, pico = rail_states(net, usb=True, supply=OFF)
    assert pico["U1"] == OFF
    state, pico = rail_states(net, usb=True, supply=LIVE)
    assert pico["U1"] == LIVE and state[V5] == LIVE
    state, _ = rail_states(net, usb=False, supply=REVERSED)
    assert state[V5_FUSED] == REVERSED and state.get(V5, OFF) == OFF
    if load_layout(name).sensor_kind != "reed":
        assert state.get(V3S, OFF) == OFF


@pytest.mark.parametrize("name", ["square9", "lotus39"])
def test_a_pico_on_usb_alone_back_feeds_the_sensor_chips(name: str) -> None:
    """The design of before: the Pico lives on USB while the sensors' rail is off."""
    net = _without(board_netlist(load_layout(name)), "Q2")
    faults = supply_faults(net)
    assert faults and all("USB in" in f and "back-feed" in f for f in faults)
    assert any("U1 GP" in f and "unpowered U10" in f for f in faults)


@pytest.mark.parametrize("name", BOARDS)
def test_without_the_reverse_polarity_mosfet_a_swapped_plug_is_caught(name: str) -> None:
    net = _merge(_without(board_netlist(load_layout(name)), "Q1"), V5_FUSED, V5)
    faults = supply_faults(net)
    assert any("wrong way round" in f and "−5 V" in f and "LED0" in f for f in faults), faults


def test_adc_vref_on_the_sensors_rail_is_caught() -> None:
    net = board_netlist(load_layout("lotus39"))
    assert net.net_of("U1", PICO_POWER_PINS["ADC_VREF"]) is None  # left open, as intended
    net.connect(V3S, "U1", str(PICO_POWER_PINS["ADC_VREF"]))
    assert any("ADC_VREF is joined to rail +3V3_SENSORS" in f for f in supply_faults(net))
