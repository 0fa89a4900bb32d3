#!/usr/bin/env python3
"""Whether a gpsd reads a device: for gpsfake, which adds its pty through gpsd's control socket as
soon as the socket file exists. The file exists from bind(), before listen(): a connect in between
is refused and gpsfake then never adds the device, so its gpsd answers clients and sends no fix.

  scripts/gpsd_devices.py PORT [SECONDS]   exit 0 once the gpsd on 127.0.0.1:PORT lists a device,
                                           1 when it has none within SECONDS (default 10)

scripts/systest.py imports gpsd_devices() and wait_for_device() from here; make run
(scripts/run-demo.sh) runs it. Python 3 standard library only.
"""
import json
import socket
import sys
import time


def gpsd_devices(port: int) -> int:
    """How many devices the gpsd on 127.0.0.1:port reads (its answer to ?DEVICES;)."""
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s, s.makefile("rwb") as f:
        f.write(b"?DEVICES;\n")
        f.flush()
        for line in f:
            message = json.loads(line)
            if message.get("class") == "DEVICES":
                return len(message.get("devices", []))
    return 0


def wait_for_device(port: int, seconds: float) -> bool:
    """True once the gpsd on 127.0.0.1:port lists a device; False when it has none (or does not
    answer) within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if gpsd_devices(port) > 0:
                return True
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    return False


if __name__ == "__main__":
    sys.exit(0 if wait_for_device(int(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else 10) else 1)
