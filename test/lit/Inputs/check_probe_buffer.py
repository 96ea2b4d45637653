"""Checks the buffer the --device=host bandwidth probe summed.

usage: check_probe_buffer.py REPORT.json

The probe must read memory, not a cache: its buffer is twice the last-level
cache and at least 128 MiB (capped at a quarter of the memory and 4 GiB).
Reads the L3 as kilnc does (sysfs, else `getconf LEVEL3_CACHE_SIZE`) and
the size from the device comment kilnc --report=json writes.
"""
import json
import os
import re
import sys

from host_cache import host_cache_bytes


def host_l3_bytes():
    return host_cache_bytes(3)


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
