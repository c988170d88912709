"""The electrical schematic of a board, generated from its layout so it never drifts.

``board_netlist(layout)`` lists every component (power input, fuse, bulk capacitor, the
sensors' 3.3 V regulator, the Pico, the LED level shifter with its pull-down and series
resistor, shift registers or multiplexers with pull-ups and bypass capacitors, one sensor
(and on a matrix one diode) per spot, one LED per spot) and every net joining their pins.
The pin choice is the firmware's (``controller.sensing.fwconfig``), the sensor addresses and
LED order are the layout's, so the drawing, the netlist and the firmware agree.

Two renderings:

* ``kicad_netlist`` — the KiCad S-expression netlist (format "E", as written by Eeschema and
  read by Pcbnew and KiCad's netlist importers).  No KiCad library is needed: every part
  carries its own pin names.  The writer is small and documented here because no
  MIT-compatible library writes this format without KiCad's symbol libraries installed.
* ``schematic_svg`` — a net-label schematic: every component a box with its pins, each
  pin labelled with its net; equal labels are connected (the usual style for a bus-heavy
  board).  Repeated per-spot parts are drawn in a compact table of the same nets.

The part sets per sensing kind live in ``_sensing_components`` only, next to
``parts.sensing_parts`` which prices them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from controller.layout import Layout
from controller.parts import rail_loads, regulator_count
from controller.sensing.kinds import (  # chip_ref: the read-out chips' names, one home
    ANALOG,
    MATRIX,
    SHIFT_REGISTER,
    chip_ref,
    sensing_kind,
)

#: Raspberry Pi Pico: GPn → physical pin (datasheet pinout)
PICO_GP_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15,
               12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26,
               21: 27, 22: 29, 26: 31, 27: 32, 28: 34}
PICO_POWER_PINS = {"GND": 38, "ADC_VREF": 35, "3V3": 36, "3V3_EN": 37, "VSYS": 39, "VBUS": 40,
                   "AGND": 33}
#: 74HC165 (DIP-16): parallel input letter → pin
HC165_INPUT_PIN = {"A": 11, "B": 12, "C": 13, "D": 14, "E": 3, "F": 4, "G": 5, "H": 6}
#: CD74HC4067 (DIP-24): channel → pin
HC4067_INPUT_PIN = {0: 9, 1: 8, 2: 7, 3: 6, 4: 5, 5: 4, 6: 3, 7: 2, 8: 23, 9: 22, 10: 21,
                    11: 20, 12: 19, 13: 18, 14: 17, 15: 16}
HC4067_SELECT_PIN = (10, 11, 14, 13)  # S0..S3

GND, V5_IN, V5_FUSED, V5, V3S = "GND", "+5V_IN", "+5V_FUSED", "+5V", "+3V3_SENSORS"
VSYS, PICO_EN, PICO_3V3 = "VSYS", "PICO_3V3_EN", "+3V3_PICO"


#: KiCad footprints (standard libraries) of the through-hole parts a builder solders
R_AXIAL = "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal"
C_CERAMIC = "Capacitor_THT:C_Disc_D5.0mm_W2.5mm_P2.50mm"
C_TANTALUM = "Capacitor_THT:CP_Radial_Tantal_D5.0mm_P2.50mm"
R_NETWORK = "Resistor_THT:R_Array_SIP9"
#: a reed's 12.7 mm glass with its leads bent at 20.32 mm
REED = "Resistor_THT:R_Axial_DIN0414_L11.9mm_D4.5mm_P20.32mm_Horizontal"


def header_footprint(pins: int) -> str:
    return f"Connector_PinHeader_2.54mm:PinHeader_1x{pins:02d}_P2.54mm_Vertical"


@dataclass
class Component:
    ref: str
    value: str
    description: str
    pins: dict[str, str]  # pin number → pin name
    footprint: str = ""
    spot: str = ""  # the board spot a per-spot part belongs to


@dataclass
class Netlist:
    layout: str
    components: dict[str, Component] = field(default_factory=dict)
    nets: dict[str, list[tuple[str, str]]] = field(default_factory=lambda: defaultdict(list))

    def add(self, comp: Component, **connections: str) -> Component:
        """Add a component; ``connections`` maps ``p<pin number>`` to a net name."""
        if comp.ref in self.components:
            raise ValueError(f"duplicate reference {comp.ref}")
        self.components[comp.ref] = comp
        for key, net in connections.items():
            self.connect(net, comp.ref, key.removeprefix("p"))
        return comp

    def connect(self, net: str, ref: str, pin: str) -> None:
        if pin not in self.components[ref].pins:
            raise ValueError(f"{ref} has no pin {pin}")
        self.nets[net].append((ref, pin))

    def net_of(self, ref: str, pin: str | int) -> str | None:
        for name, nodes in self.nets.items():
            if (ref, str(pin)) in nodes:
                return name
        return None


def _gp(name: str) -> int:
    return int(name.removeprefix("GP"))


def _pico(net: Netlist) -> Component:
    pins = {str(p): f"GP{gp}" for gp, p in PICO_GP_PIN.items()}
    pins.update({str(p): n for n, p in PICO_POWER_PINS.items()})
    pins.update({"3": "GND", "8": "GND", "13": "GND", "18": "GND", "23": "GND", "28": "GND"})
    return net.add(Component("U1", "Raspberry Pi Pico", "RP2040 board, CircuitPython; VSYS "
                             "from the 5 V rail through D2, on only while that rail is", pins,
                             "Module:RaspberryPi_Pico_Common_THT"),
                   p38=GND, p3=GND, p8=GND, p13=GND, p18=GND, p23=GND, p28=GND,
                   p39=VSYS, p37=PICO_EN)


def _power(net: Netlist) -> None:
    """Barrel jack → fuse → reverse-polarity P-MOSFET → the 5 V rail; the Pico's VSYS from
    that rail through a Schottky, and its 3V3 held off while the rail is off, so every
    chip, sensor and the Pico's pins are powered together (one supply domain)."""
    net.add(Component("J1", "barrel jack", "2.1 mm DC jack, centre positive: 5 V supply",
                      {"1": "TIP", "2": "SLEEVE", "3": "SWITCH"},
                      "Connector_BarrelJack:BarrelJack_CUI_PJ-102AH_Horizontal"),
            p1=V5_IN, p2=GND, p3=GND)
    net.add(Component("F1", "fuse", "5 × 20 mm slow-blow fuse in two PCB clips",
                      {"1": "~", "2": "~"}, "Fuse:Fuseholder_Clip-5x20mm_Keystone_3517_Inline_"
                      "P23.11x6.76mm_D1.70mm_Horizontal"),
            p1=V5_IN, p2=V5_FUSED)
    net.add(Component("Q1", "P-MOSFET STD36P4LLF6", "reverse-polarity protection (ideal "
                      "diode): conducts only with the plug the right way round",
                      {"1": "G", "2": "D", "3": "S"}, "Package_TO_SOT_SMD:TO-252-2"),
            p1="Q1_GATE", p2=V5_FUSED, p3=V5)
    net.add(Component("R3", "10k", "Q1 gate to ground", {"1": "~", "2": "~"},
                      "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal"),
            p1="Q1_GATE", p2=GND)
    net.add(Component("C1", "1000uF", "bulk capacitor at the LED chain's input",
                      {"1": "+", "2": "-"}, "Capacitor_THT:CP_Radial_D10.0mm_P5.00mm"),
            p1=V5, p2=GND)
    net.add(Component("R4", "1k", "bleeder: holds the 5 V rail at 0 V while the supply is off",
                      {"1": "~", "2": "~"},
                      "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal"),
            p1=V5, p2=GND)
    net.add(Component("D2", "Schottky 1N5819", "the Pico's VSYS from the 5 V rail",
                      {"1": "K", "2": "A"}, "Diode_THT:D_DO-41_SOD81_P10.16mm_Horizontal"),
            p1=VSYS, p2=V5)
    net.add(Component("Q2", "N-MOSFET 2N7000", "holds the Pico's 3V3_EN low while the 5 V "
                      "rail is off (USB alone): the Pico never drives unpowered chips",
                      {"1": "S", "2": "G", "3": "D"}, "Package_TO_SOT_THT:TO-92_Inline"),
            p1=V5, p2=VSYS, p3=PICO_EN)


def board_netlist(layout: Layout) -> Netlist:
    """Every component and net of the board described by ``layout``."""
    from controller.sensing.fwconfig import firmware_settings

    fw = firmware_settings(layout)
    net = Netlist(layout.name)
    pico = _pico(net)
    _power(net)
    # LED data: Pico → 74AHCT125 (5 V, pull-down on its input) → 330 Ω → LED 0
    data = _gp(fw["NEOPIXEL_PIN"])
    net.connect("LED_DATA_3V3", pico.ref, str(PICO_GP_PIN[data]))
    net.add(Component("U2", "74AHCT125", "quad buffer, 3.3 V → 5 V for the LED data",
                      {"1": "1OE", "2": "1A", "3": "1Y", "4": "2OE", "5": "2A", "6": "2Y",
                       "7": "GND", "8": "3Y", "9": "3A", "10": "3OE", "11": "4Y", "12": "4A",
                       "13": "4OE", "14": "VCC"}, "Package_DIP:DIP-14_W7.62mm"),
            p1=GND, p2="LED_DATA_3V3", p3="LED_DATA_5V", p4=GND, p5=GND, p7=GND, p9=GND,
            p10=GND, p12=GND, p13=GND, p14=V5)
    net.add(Component("C4", "100nF", "bypass at U2", {"1": "~", "2": "~"}, C_CERAMIC),
            p1=V5, p2=GND)
    net.add(Component("R1", "10k", "pull-down: LED data low while the Pico boots",
                      {"1": "~", "2": "~"}, R_AXIAL), p1="LED_DATA_3V3", p2=GND)
    net.add(Component("R2", "330", "series resistor in the LED data line",
                      {"1": "~", "2": "~"}, R_AXIAL), p1="LED_DATA_5V", p2="LED_DIN")
    _sensing_components(layout, net, fw, pico)
    _leds(layout, net)
    return net


def _sensor(net: Netlist, ref: str, value: str, spot: str, out: str, rail: str) -> None:
    net.add(Component(ref, value, f"hall sensor under {spot}",
                      {"1": "VCC", "2": "GND", "3": "OUT"}, "Package_TO_SOT_THT:TO-92_Inline",
                      spot), p1=rail, p2=GND, p3=out)
    net.add(Component("C" + ref, "100nF", f"bypass at {ref}", {"1": "~", "2": "~"},
                      C_CERAMIC, spot), p1=rail, p2=GND)


def sensor_rails(layout: Layout) -> list[str]:
    """The sensors' 3.3 V rails, one per regulator (the BOM's count: each regulator within
    80 % of its current rating and of the heat its package may shed)."""
    count = regulator_count(rail_loads(layout)["sensor-3v3"])
    return [V3S] + [f"{V3S}_{k + 1}" for k in range(1, count)]


def regulator_ref(k: int) -> str:
    """The reference of the ``k``-th sensor regulator (U1 is the Pico, U2 the level shifter,
    the read-out chips start at U10)."""
    return f"U{3 + k}"


def sensor_supplies(layout: Layout) -> list[tuple[str, str]]:
    """(regulator, rail) feeding each spot's sensor, in the order of ``layout.spots`` (the
    wiring table's): the spots split evenly between the regulators, the first share on the
    first.  Empty when the sensors take no supply (a reed matrix)."""
    if sensing_kind(layout) is MATRIX:
        return []
    rails = sensor_rails(layout)
    shares = [i * len(rails) // len(layout.spots) for i in range(len(layout.spots))]
    return [(regulator_ref(k), rails[k]) for k in shares]


def _regulator(net: Netlist, rails: list[str]) -> None:
    for k, rail in enumerate(rails):
        ref = regulator_ref(k)
        net.add(Component(ref, "LM1117-3.3", "3.3 V regulator for the sensors, TO-220 in "
                          "free air (never the Pico's 3V3 pin)",
                          {"1": "GND", "2": "VOUT", "3": "VIN"},
                          "Package_TO_SOT_THT:TO-220-3_Vertical"), p1=GND, p2=rail, p3=V5)
        net.add(Component(f"C{2 + 4 * k}", "10uF", f"{ref} input", {"1": "+", "2": "-"},
                          C_TANTALUM), p1=V5, p2=GND)
        net.add(Component(f"C{3 + 4 * k}", "10uF", f"{ref} output", {"1": "+", "2": "-"},
                          C_TANTALUM), p1=rail, p2=GND)


def _sensing_components(layout: Layout, net: Netlist, fw: dict, pico: Component) -> None:
    """Sensors and their read-out, drawn by the layout's sensing kind."""
    SCHEMATICS[sensing_kind(layout)](layout, net, fw, pico)


def _matrix(layout: Layout, net: Netlist, fw: dict, pico: Component) -> None:
    """A reed switch and a diode per spot at a row/column crossing; the Pico's pull-ups."""
    rows = [f"ROW{k}" for k in range(layout.matrix_rows)]
    cols = [f"COL{k}" for k in range(layout.matrix_columns)]
    for name, gp in zip(rows + cols, [*fw["MATRIX_ROWS"], *fw["MATRIX_COLUMNS"]],
                        strict=True):
        net.connect(name, pico.ref, str(PICO_GP_PIN[_gp(gp)]))
    anodes_on_rows = fw.get("DIODE_ANODES", "rows") == "rows"
    # the anode lines are read with pull-ups: 4.7 kΩ networks to the Pico's 3V3 (the
    # RP2040's own 50–80 kΩ recover too slowly between columns)
    sensed = rows if anodes_on_rows else cols
    net.connect(PICO_3V3, pico.ref, str(PICO_POWER_PINS["3V3"]))
    for k in range(-(-len(sensed) // 8)):
        ref = f"RN{k + 1}"
        kind = "rows" if anodes_on_rows else "columns"
        net.add(Component(ref, "8x4k7", f"bussed pull-ups of {kind} {8 * k}–"
                          f"{min(8 * k + 7, len(sensed) - 1)}",
                          {str(p): "common" if p == 1 else f"R{p - 1}" for p in range(1, 10)},
                          R_NETWORK), p1=PICO_3V3)
        for j, line in enumerate(sensed[8 * k:8 * k + 8]):
            net.connect(line, ref, str(2 + j))
    for spot in layout.spots:
        w = spot.sensor
        row, col = rows[w.row], cols[w.column]
        mid = f"SW_{spot.name}"
        net.add(Component(f"SW_{spot.name}", "reed", f"reed switch under {spot.name}",
                          {"1": "~", "2": "~"}, REED, spot.name),
                p1=mid, p2=col if anodes_on_rows else row)
        # KiCad diode pins: 1 = K (ringed end), 2 = A
        net.add(Component(f"D_{spot.name}", "1N4148", f"diode in series with {spot.name}",
                          {"1": "K", "2": "A"}, "Diode_THT:D_DO-35_SOD27_P7.62mm_Horizontal",
                          spot.name),
                p1=mid, p2=row if anodes_on_rows else col)


def _shift_register(layout: Layout, net: Netlist, fw: dict, pico: Component) -> None:
    """Digital halls on 74HC165 inputs with bussed pull-ups, the chain into the Pico."""
    rails = sensor_rails(layout)
    _regulator(net, rails)
    chips = layout.chain_length // 8
    net.connect("SR_QH0", pico.ref, str(PICO_GP_PIN[_gp(fw["SHIFT_DATA"])]))
    # clock and latch run to every chip: 33 Ω at the Pico damps their ringing
    for k, (name, gp) in enumerate((("SR_CLK", fw["SHIFT_CLOCK"]),
                                    ("SR_PL", fw["SHIFT_LATCH"]))):
        net.connect(f"{name}_PICO", pico.ref, str(PICO_GP_PIN[_gp(gp)]))
        net.add(Component(f"R{5 + k}", "33", f"series resistor in {name} at the Pico",
                          {"1": "~", "2": "~"}, R_AXIAL), p1=f"{name}_PICO", p2=name)
    for k in range(chips):
        pins = {"1": "SH/LD", "2": "CLK", "7": "~QH", "8": "GND", "9": "QH", "10": "SER",
                "15": "CLK_INH", "16": "VCC"}
        pins.update({str(p): letter for letter, p in HC165_INPUT_PIN.items()})
        net.add(Component(chip_ref(k), "74HC165", f"shift register {k + 1} of {chips} "
                          "(1 = nearest the Pico)", pins, "Package_DIP:DIP-16_W7.62mm"),
                p1="SR_PL", p2="SR_CLK", p8=GND, p9=f"SR_QH{k}", p15=GND, p16=rails[0],
                p10=f"SR_QH{k + 1}" if k + 1 < chips else GND)
        net.add(Component(f"C{10 + k}", "100nF", f"bypass at {chip_ref(k)}",
                          {"1": "~", "2": "~"}, C_CERAMIC), p1=rails[0], p2=GND)
        net.add(Component(f"RN{k + 1}", "8x10k", f"bussed pull-ups of {chip_ref(k)}",
                          {str(p): "common" if p == 1 else f"R{p - 1}"
                           for p in range(1, 10)}, R_NETWORK), p1=rails[0])
        for j, letter in enumerate("HGFEDCBA"):
            bit_net = f"BIT{8 * k + j}"
            net.connect(bit_net, chip_ref(k), str(HC165_INPUT_PIN[letter]))
            net.connect(bit_net, f"RN{k + 1}", str(2 + j))
    for spot, (_, rail) in zip(layout.spots, sensor_supplies(layout), strict=True):
        _sensor(net, f"H_{spot.name}", "DRV5033", spot.name, f"BIT{spot.sensor.chain}", rail)


def _analog(layout: Layout, net: Netlist, fw: dict, pico: Component) -> None:
    """Linear halls through CD74HC4067 multiplexers, one ADC input each."""
    rails = sensor_rails(layout)
    _regulator(net, rails)
    # analog: multiplexers on the sensors' rail, one ADC input each.  ADC_VREF stays open:
    # the Pico filters its own 3V3 onto it through 200 Ω (Pico datasheet), so joining it to
    # the sensors' regulator would tie two regulators together
    muxes = -(-layout.channel_count // 16)
    net.connect(GND, pico.ref, str(PICO_POWER_PINS["AGND"]))
    for s, gp in enumerate(fw["MUX_SELECT"]):
        net.connect(f"MUX_S{s}", pico.ref, str(PICO_GP_PIN[_gp(gp)]))
    for m in range(muxes):
        pins = {"1": "SIG", "12": "GND", "15": "~E", "24": "VCC"}
        pins.update({str(p): f"I{ch}" for ch, p in HC4067_INPUT_PIN.items()})
        pins.update({str(p): f"S{s}" for s, p in enumerate(HC4067_SELECT_PIN)})
        ref = chip_ref(m)
        net.add(Component(ref, "CD74HC4067", f"multiplexer {m + 1}: channels {16 * m}–"
                          f"{16 * m + 15}", pins, "Package_DIP:DIP-24_W15.24mm"),
                p1=f"MUX{m + 1}_SIG", p12=GND, p15=GND, p24=rails[0])
        for s, p in enumerate(HC4067_SELECT_PIN):
            net.connect(f"MUX_S{s}", ref, str(p))
        net.connect(f"MUX{m + 1}_SIG", pico.ref, str(PICO_GP_PIN[_gp(fw["MUX_SIGNALS"][m])]))
        net.add(Component(f"C{10 + m}", "100nF", f"bypass at {ref}", {"1": "~", "2": "~"},
                          C_CERAMIC), p1=rails[0], p2=GND)
    for spot, (_, rail) in zip(layout.spots, sensor_supplies(layout), strict=True):
        ch = spot.sensor.channel
        out = f"CH{ch}"
        _sensor(net, f"H_{spot.name}", "DRV5055A4", spot.name, out, rail)
        net.connect(out, chip_ref(ch // 16), str(HC4067_INPUT_PIN[ch % 16]))
    # a spare input to GND, as the guide says: the firmware scans every channel, and an open
    # input would read whatever the last channel left on it
    used = {spot.sensor.channel for spot in layout.spots}
    for ch in sorted(set(range(16 * muxes)) - used):
        net.connect(GND, chip_ref(ch // 16), str(HC4067_INPUT_PIN[ch % 16]))


#: how each sensing kind is drawn
SCHEMATICS = {MATRIX: _matrix, SHIFT_REGISTER: _shift_register, ANALOG: _analog}


def _leds(layout: Layout, net: Netlist) -> None:
    by_index = sorted(layout.spots, key=lambda s: s.led)
    for k, spot in enumerate(by_index):
        net.add(Component(f"LED{k}", "WS2812B", f"LED {k} at {spot.name}",
                          {"1": "VDD", "2": "DOUT", "3": "VSS", "4": "DIN"},
                          "LED_SMD:LED_WS2812B_PLCC4_5.0x5.0mm_P3.2mm", spot.name),
                p1=V5, p3=GND, p4="LED_DIN" if k == 0 else f"LED_D{k}")
        net.add(Component(f"C_LED{k}", "100nF", f"decoupling at LED {k}", {"1": "~", "2": "~"},
                          C_CERAMIC, spot.name), p1=V5, p2=GND)
        if k + 1 < len(by_index):
            net.connect(f"LED_D{k + 1}", f"LED{k}", "2")


def strip_spots(layout: Layout) -> list[str]:
    """The spots of the first sensor strip a builder wires: matrix row 0 on a matrix (a
    rank on square8, ring A on kaleido89), else the cells of the first rank."""
    if sensing_kind(layout) is MATRIX:
        return [s.name for s in layout.spots if s.sensor.row == 0]
    ranks = layout.geometry.attributes["rank"]
    first = min(ranks)
    return [layout.geometry.cells[c] for c in range(layout.cell_count) if ranks[c] == first]


def strip_netlist(layout: Layout, spots: list[str] | None = None) -> Netlist:
    """One sensor strip as its own small board: the per-spot parts (sensor, diode or
    bypass, LED and its capacitor) of ``spots`` and a header J1 carrying every net that
    leaves the strip, named as on the main board's netlist."""
    full = board_netlist(layout)
    names = set(spots if spots is not None else strip_spots(layout))
    strip = Netlist(f"{layout.name}-strip")
    inside = {ref for ref, comp in full.components.items() if comp.spot in names}
    leaving = sorted({name for name, nodes in full.nets.items()
                      if any(ref in inside for ref, _ in nodes)
                      and any(ref not in inside for ref, _ in nodes)})
    strip.add(Component("J1", f"Conn_01x{len(leaving):02d}", "strip connector: to the main "
                        "board's nets of the same names",
                        {str(k + 1): name for k, name in enumerate(leaving)},
                        header_footprint(len(leaving))),
              **{f"p{k + 1}": name for k, name in enumerate(leaving)})
    for ref in sorted(inside, key=lambda r: list(full.components).index(r)):
        comp = full.components[ref]
        strip.add(comp)
        for name, nodes in full.nets.items():
            for node_ref, pin in nodes:
                if node_ref == ref:
                    strip.connect(name, ref, pin)
    return strip


# ---------------------------------------------------------------------------------
# KiCad netlist (S-expression, version "E")


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def kicad_netlist(net: Netlist) -> str:
    """The netlist in KiCad's S-expression format: ``(export (version "E") (design …)
    (components (comp (ref …) (value …) (footprint …) …)) (nets (net (code …) (name …)
    (node (ref …) (pin …) (pinfunction …)) …)))``."""
    out = ["(export (version \"E\")",
           f"  (design (source {_q(f'boards/layouts/{net.layout}.toml')}) "
           f"(tool \"fairyboard board print\"))",
           "  (components"]
    for comp in net.components.values():
        out.append(f"    (comp (ref {_q(comp.ref)}) (value {_q(comp.value)})"
                   f" (footprint {_q(comp.footprint)})"
                   f" (libsource (lib \"fairyboard\") (part {_q(comp.value)})"
                   f" (description {_q(comp.description)})))")
    out += ["  )", "  (nets"]
    for code, (name, nodes) in enumerate(sorted(net.nets.items()), start=1):
        out.append(f"    (net (code {_q(str(code))}) (name {_q(name)})")
        for ref, pin in nodes:
            function = net.components[ref].pins[pin]
            out.append(f"      (node (ref {_q(ref)}) (pin {_q(pin)}) "
                       f"(pinfunction {_q(function)}))")
        out.append("    )")
    out += ["  )", ")", ""]
    return "\n".join(out)


# ---------------------------------------------------------------------------------
# SVG: a net-label schematic

FONT = "DejaVu Sans Mono, monospace"


def _t(x: float, y: float, text: str, size: float = 3.0, anchor: str = "start",
       weight: str = "normal") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-family="{FONT}" font-size="{size}" '
            f'text-anchor="{anchor}" font-weight="{weight}">{escape(text)}</text>')


def _box(comp: Component, net: Netlist, x: float, y: float) -> tuple[list[str], float]:
    """A component box with its pins labelled ``pin name — net``; returns (svg, height)."""
    pins = sorted(comp.pins, key=lambda p: (len(p), p))
    h = 10 + 4.2 * len(pins)
    out = [f'<g class="component" data-ref="{escape(comp.ref)}">',
           f'<rect x="{x:.1f}" y="{y:.1f}" width="86" height="{h:.1f}" fill="#fffdf5" '
           'stroke="#333" stroke-width="0.35"/>',
           _t(x + 2, y + 4, f"{comp.ref}  {comp.value}", 3.2, weight="bold"),
           _t(x + 2, y + 7.5, comp.description[:52], 2.2)]
    for k, pin in enumerate(pins):
        label = net.net_of(comp.ref, pin) or "(not connected)"
        py = y + 11 + 4.2 * k
        out.append(_t(x + 2, py, f"{pin:>2} {comp.pins[pin]:<8} ── {label}", 2.8))
    out.append("</g>")
    return out, h


def schematic_svg(net: Netlist, title: str) -> str:
    """Shared parts as boxes in columns, then one table row per spot with its nets."""
    shared = [c for c in net.components.values() if not c.spot]
    per_spot: dict[str, list[Component]] = defaultdict(list)
    for comp in net.components.values():
        if comp.spot:
            per_spot[comp.spot].append(comp)
    body: list[str] = [_t(10, 12, title, 6, weight="bold"),
                       _t(10, 19, "Net-label schematic: pins with the same net name are "
                          "connected. Generated from the layout; do not edit.", 3.2)]
    columns, x0, y0 = 4, 10.0, 26.0
    heights = [0.0] * columns
    for k, comp in enumerate(shared):
        col = min(range(columns), key=lambda c: heights[c]) if k >= columns else k
        svg, h = _box(comp, net, x0 + col * 92, y0 + heights[col])
        body += svg
        heights[col] += h + 6
    y = y0 + max(heights) + 8
    body.append(_t(10, y, "Per spot: sensor, diode or bypass, LED (ref: pin→net)", 4,
                   weight="bold"))
    y += 7
    for spot, comps in per_spot.items():
        cells = []
        for comp in comps:
            # ground and the common 5 V go without saying; a sensor's VCC names its rail
            # (lotus39's sensors are split between two regulators)
            nets = ", ".join(f"{comp.pins[p]}→{net.net_of(comp.ref, p) or '-'}"
                             for p in sorted(comp.pins, key=lambda p: (len(p), p))
                             if comp.pins[p] not in ("VCC", "VDD", "GND", "VSS")
                             or comp.ref.startswith("SW")
                             or (comp.pins[p] == "VCC" and net.net_of(comp.ref, p) != V5))
            cells.append(f"{comp.ref}: {nets}")
        body.append(_t(10, y, f"{spot:<16} " + "   ".join(cells), 2.6))
        y += 3.6
    width, height = 10 + columns * 92 + 10, y + 10
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}mm" '
        f'height="{height:.0f}mm" viewBox="0 0 {width:.0f} {height:.0f}">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>',
        *body, "</svg>", ""])
