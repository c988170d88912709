"""code.py: the fairyboard firmware entry point on the CIRCUITPY drive.

Everything board-specific is in ``config.py``; the logic lives in ``lib/fairyfw``.
"""

import os
import time

import analogio
import board
import config
import digitalio
import keypad
import neopixel
import supervisor
import usb_cdc
from fairyfw.app import Firmware, Hardware

if usb_cdc.data is not None:
    usb_cdc.data.timeout = 0
    usb_cdc.data.write_timeout = 0.05

Firmware(config, Hardware(
    board=board, digitalio=digitalio, analogio=analogio, keypad=keypad,
    neopixel=neopixel, usb_cdc=usb_cdc, supervisor=supervisor, time=time, os=os,
)).run()
