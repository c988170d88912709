"""fairyboard firmware for RP2040/RP2350 CircuitPython boards.

The package holds the firmware's logic (protocol, scanning, main loop) with no hardware
import of its own: ``code.py`` passes the CircuitPython modules in, so the same code runs
on the host under CPython against shims (``controller/sensing/sim``).
"""

VERSION = "1.0.0"
