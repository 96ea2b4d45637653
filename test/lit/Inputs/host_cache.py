"""cpu0's data cache of one level in bytes, as kilnc reads it: Linux's sysfs,
else glibc's sysconf (`getconf LEVELn_CACHE_SIZE`, CPUID on x86) where sysfs
has no cache directory; 0 when neither states it."""
import glob
import os
import re
import subprocess


def host_cache_bytes(level):
    for d in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        def read(name):
            try:
                with open(os.path.join(d, name)) as f:
                    return f.read().strip()
            except OSError:
                return ""
        if read("level") != str(level) or read("type") == "Instruction":
            continue
        m = re.fullmatch(r"(\d+)([KM]?)", read("size"))
        if not m:
            return 0
        return int(m.group(1)) * {"": 1, "K": 1024, "M": 1 << 20}[m.group(2)]
    try:
        out = subprocess.run(["getconf", "LEVEL%d_CACHE_SIZE" % level],
                             capture_output=True, text=True, check=False).stdout.strip()
        return max(int(out), 0)
    except (OSError, ValueError):
        return 0
