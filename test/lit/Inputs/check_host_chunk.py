"""Checks the prefill chunk a kilnc --report chose for this machine.

usage: check_host_chunk.py REPORT.txt ROW_BYTES

Reads cpu0's L2 size from Linux's sysfs as kilnc does (or, where sysfs has no
cache directory, from `getconf LEVEL2_CACHE_SIZE`, glibc's sysconf, which
kilnc falls back to), applies the rule of
--max-batch=auto (the largest power of two from 16 to 128 whose ROW_BYTES
rows fill at most half of the L2; 32 when no L2 is known) and compares it
with the report's "prefill chunk" line.
"""
import sys

from host_cache import host_cache_bytes


def host_l2_bytes():
    return host_cache_bytes(2)


def main():
    report, row_bytes = open(sys.argv[1]).read(), int(sys.argv[2])
    l2 = host_l2_bytes()
    if l2:
        chunk = 16
        while chunk < 128 and 2 * chunk * row_bytes <= l2 // 2:
            chunk *= 2
        want = "prefill chunk %d (sized to a %d KiB L2)" % (chunk, l2 // 1024)
    else:
        want = "prefill chunk 32\n"
    if want not in report:
        sys.exit("expected '%s' in the report:\n%s" % (want.strip(), report))
    print("ok:", want.strip())


main()
