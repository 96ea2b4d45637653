"""Checks the buffer the --device=host bandwidth probe summed.

usage: check_probe_buffer.py REPORT.json

The probe must read memory, not a cache: its buffer is twice the last-level
cache and at least 128 MiB (capped at a quarter of the memory and 4 GiB).
Reads the L3 as kilnc does (sysfs, else `getconf LEVEL3_CACHE_SIZE`) and
the size from the device comment kilnc --report=json writes.
"""
import glob
import json
import os
import re
import subprocess
import sys


def host_l3_bytes():
    for d in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        def read(name):
            try:
                with open(os.path.join(d, name)) as f:
                    return f.read().strip()
            except OSError:
                return ""
        if read("level") != "3" or read("type") == "Instruction":
            continue
        m = re.fullmatch(r"(\d+)([KM]?)", read("size"))
        if m:
            return int(m.group(1)) * {"": 1, "K": 1024, "M": 1 << 20}[m.group(2)]
    try:
        out = subprocess.run(["getconf", "LEVEL3_CACHE_SIZE"], capture_output=True,
                             text=True, check=False).stdout.strip()
        return max(int(out), 0)
    except (OSError, ValueError):
        return 0


def main():
    device = json.load(open(sys.argv[1]))["device"]
    m = re.search(r"sum over (\d+) MiB", device.get("comment", ""))
    if not m:
        sys.exit("no probe buffer size in the device comment: %r" % device)
    mib = int(m.group(1))
    want = max(128, 2 * ((host_l3_bytes() + (1 << 20) - 1) >> 20))
    mem_mib = os.sysconf("SC_PHYS_PAGES") // 4 * os.sysconf("SC_PAGE_SIZE") >> 20
    want = max(16, min(want, mem_mib, 4096))
    if mib != want:
        sys.exit("the probe summed %d MiB; expected %d (L3 %d bytes)"
                 % (mib, want, host_l3_bytes()))
    print("ok: probe over %d MiB" % mib)


main()
