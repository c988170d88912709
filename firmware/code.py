"""code.py: the fairyboard firmware entry point on the CIRCUITPY drive.

Everything board-specific is in ``config.py``; the logic lives in ``lib/fairyfw``.
In production (the default) autoreload is off, a watchdog resets a hung board and an
exception restarts the firmware; ``DEVELOP = True`` in ``config.py`` turns all three off
(firmware/README.md, Development).
"""

import os
import sys
import time

import analogio
import board
import config
import digitalio
import keypad
import microcontroller
import neopixel
import supervisor
import usb_cdc
import watchdog
from fairyfw.app import Hardware, main

if sys.implementation.name == "circuitpython" and sys.implementation.version < (9, 2, 1):
    raise RuntimeError("fairyfw needs CircuitPython 9.2.1 or later (keypad reset)")

if usb_cdc.data is not None:
    usb_cdc.data.timeout = 0
    usb_cdc.data.write_timeout = 0.05

main(config, Hardware(
    board=board, digitalio=digitalio, analogio=analogio, keypad=keypad,
    neopixel=neopixel, usb_cdc=usb_cdc, supervisor=supervisor, time=time, os=os,
    microcontroller=microcontroller, watchdog=watchdog,
))
