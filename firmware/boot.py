"""boot.py: runs once at power-up, before USB starts.

Turns on the second USB serial channel (``usb_cdc.data``) that carries the fairyboard
protocol; the console channel stays for the REPL, which the host never uses.
"""

import usb_cdc

usb_cdc.enable(console=True, data=True)
