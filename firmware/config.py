"""Board configuration for the fairyboard firmware (example: the square8 layout on a
Raspberry Pi Pico).  Pin names are attributes of CircuitPython's ``board`` module.

``python -m controller.sensing.fwconfig LAYOUT`` on the host prints a starting file for
any layout; edit the pins to match your wiring.
"""

LAYOUT = "square8"           # must equal the layout the host service runs
SENSING = "matrix"           # matrix | shift-register | analog
SENSOR_KIND = "reed"         # reed | digital-hall | linear-hall

# matrix: one pin per row / column of the layout's matrix (rows 0.., columns 0..)
MATRIX_ROWS = ("GP0", "GP1", "GP2", "GP3", "GP4", "GP5", "GP6", "GP7", "GP8", "GP9", "GP10")
MATRIX_COLUMNS = ("GP11", "GP12", "GP13", "GP14", "GP15", "GP16", "GP17", "GP18")
DIODE_ANODES = "rows"        # which side the diode anodes are on: rows | columns

# shift-register chain (74HC165): SHIFT_CLOCK, SHIFT_DATA (QH of the first chip),
# SHIFT_LATCH (PL), CHAIN_LENGTH (8 per chip)
# analog: MUX_SELECT (S0..S3), MUX_SIGNALS (one ADC pin per CD74HC4067), CHANNELS

SCAN_INTERVAL_S = 0.005      # keypad scan period
DEBOUNCE_SCANS = 3           # a change counts after this many equal scans
SNAPSHOT_INTERVAL_MS = 1000  # periodic full snapshot
STREAM_INTERVAL_MS = 10      # analog: one readings snapshot per period

NEOPIXEL_PIN = "GP22"
LED_COUNT = 82
MAX_BRIGHTNESS = 255         # 0..255 failsafe; the host already caps colours to the supply
LED_MIN_INTERVAL_MS = 20     # at most 50 LED refreshes a second

# DEVELOP = True             # autoreload on, no watchdog, tracebacks stay (README.md)
