"""The parts catalogue (``boards/parts.toml``) and the sensing side's electrical figures:
what each board's sensing is built from, the sensor regulators' count and heat, and each
rail's load besides the LEDs.

Its own module because both the bill of materials (:mod:`controller.boardprint`) and the
schematic (:mod:`controller.schematic`) need these figures, and neither may import the
other for them (an import circle); both import this.
"""

from __future__ import annotations

import functools
import tomllib
from typing import Any

from controller.geometry import BOARDS_DIR
from controller.layout import Layout
from controller.sensing.kinds import sensing_kind

#: the parts catalogue: manufacturer part numbers, grades, prices, spares, supply currents
PARTS_FILE = BOARDS_DIR / "parts.toml"


@functools.cache
def parts_catalogue() -> dict[str, Any]:
    with PARTS_FILE.open("rb") as f:
        return tomllib.load(f)



def sensing_parts(layout: Layout) -> list[tuple[str, int]]:
    """(part key, quantity) of the sensing side: the one place that knows what each sensing
    kind and sensor kind is built from (sensors, diodes, chips, pull-ups, regulator)."""
    n = len(layout.spots)
    parts: list[tuple[str, int]] = [(layout.sensor_kind, n)]
    if layout.sensor_kind != "reed":
        parts.append(("bypass-hall", n))
    parts += sensing_kind(layout).parts(layout)
    catalogue = parts_catalogue()["parts"]
    load = sum(q * float(catalogue[k].get("supply_ma", 0.0)) for k, q in parts
               if catalogue[k].get("rail") == "sensor-3v3")
    if load:
        count = regulator_count(load)
        parts += [("regulator", count), ("regulator-cap", 2 * count)]
    return parts


#: the sensors' regulator works inside the enclosure, beside the LED supply: 40 °C around it
REGULATOR_AMBIENT_C = 40.0
#: the 5 V supply at the top of its tolerance (±5 %): the regulator's worst input
SUPPLY_HIGH_V = 5.25
SENSOR_RAIL_V = 3.3


def regulator_dissipation_w(load_ma: float) -> float:
    """One sensor regulator's worst-case dissipation (LM1117 datasheet: PD = (VIN − VOUT) ×
    IL + VIN × IG), at the supply's high tolerance and the datasheet's maximum IG."""
    reg = parts_catalogue()["parts"]["regulator"]
    return ((SUPPLY_HIGH_V - SENSOR_RAIL_V) * load_ma
            + SUPPLY_HIGH_V * float(reg["quiescent_ma"])) / 1000


def regulator_allowed_w() -> float:
    """What one regulator may dissipate with its junction at 125 °C, 40 °C around it."""
    reg = parts_catalogue()["parts"]["regulator"]
    return (float(reg["tj_max_c"]) - REGULATOR_AMBIENT_C) / float(reg["theta_ja_c_per_w"])


def regulator_count(load_ma: float) -> int:
    """Regulators for a sensor load: each carries an equal share at ≤ 80 % of its current
    rating and of what its package may dissipate."""
    reg = parts_catalogue()["parts"]["regulator"]
    count = 1
    while (load_ma / count > RAIL_LIMIT * float(reg["rating_ma"])
           or regulator_dissipation_w(load_ma / count) > RAIL_LIMIT * regulator_allowed_w()):
        count += 1
    return count



#: no rail may carry more than this fraction of its rating
RAIL_LIMIT = 0.8



#: the inlet and supply-domain parts every board has (schematic ``_power``): barrel jack,
#: reverse-polarity P-MOSFET with its gate resistor, bleeder, the Pico's VSYS diode and the
#: MOSFET that keeps the Pico off while the 5 V rail is
POWER_INLET_PARTS = ("barrel-jack", "reverse-mosfet", "gate-resistor", "bleeder", "vsys-diode",
                     "enable-fet")


def powered_parts(layout: Layout) -> list[tuple[str, int, float, str]]:
    """(short name, quantity, worst-case mA each, rail) of every part that draws current
    besides the LEDs, the microcontroller first: the one list behind the rails' loads and
    the power budget's sum."""
    catalogue = parts_catalogue()["parts"]
    out: list[tuple[str, int, float, str]] = []
    for key, qty in ([("controller", 1)] + sensing_parts(layout) + [("level-shifter", 1)]
                     + [(k, 1) for k in POWER_INLET_PARTS]):
        part = catalogue[key]
        if "rail" in part and float(part.get("supply_ma", 0.0)):
            out.append((part.get("short", key), qty, float(part["supply_ma"]), part["rail"]))
    return out


def rail_loads(layout: Layout) -> dict[str, float]:
    """Worst-case current (mA) each rail feeds besides the LEDs, from the parts' figures."""
    on: dict[str, float] = {"5v": 0.0, "sensor-3v3": 0.0, "pico-3v3": 0.0}
    for _, qty, each, rail in powered_parts(layout):
        on[rail] += qty * each
    return on


