"""check_bench_weights.py DRIVER_DIR external|embedded - kiln-bench's driver
places the weights where KILN_BENCH_WEIGHTS says.

External weights: against the run that maps bench.weights (file), reading them
into anonymous memory (anon: 4 KiB pages, huge: huge pages) must grow the
anonymous resident memory by at least the weights' size (a mapped file is
resident only where read: token_embd rows of unused tokens never are).
Embedded weights: against reading them in place (embedded),
copying them with bench_copy_weights (anon, huge) must grow the anonymous
resident memory by at least their size. Slack: 16 KiB (other pages of the
process differ a little between runs) and one 4 KiB page per MiB. Every
run must print the whole protocol; a bad placement is refused.
"""
import os
import re
import subprocess
import sys

d, kind = sys.argv[1], sys.argv[2]
driver = os.path.join(d, "driver")
header = open(os.path.join(d, "bench.h")).read()
size = int(re.search(r"#define BENCH_WEIGHTS_BYTES \(\(size_t\)(\d+)u\)", header).group(1))
slack = 16384 + 4096 * (size // (1 << 20))


def run(mode):
    env = dict(os.environ, KILN_BENCH_WEIGHTS=mode)
    out = subprocess.run([driver, "1", "2", "4"], env=env, capture_output=True,
                         text=True)
    if out.returncode != 0:
        sys.exit(f"driver with {mode}: status {out.returncode}: {out.stderr}")
    fields = {}
    for line in out.stdout.splitlines():
        words = line.split()
        if words:
            fields[words[0]] = words[1:]
    for key in ["first_token", "ttft", "decode", "VmHWM:", "RssAnon:", "RssFile:"]:
        if key not in fields:
            sys.exit(f"driver with {mode}: no {key} line in {out.stdout!r}")
    return int(fields["RssAnon:"][0]) * 1024, int(fields["RssFile:"][0]) * 1024


base = "file" if kind == "external" else "embedded"
base_anon, _ = run(base)
for mode in ["anon", "huge"]:
    anon, _ = run(mode)
    if anon - base_anon < size - slack:
        sys.exit(f"{mode}: anonymous RSS grew by {anon - base_anon} bytes "
                 f"against {base}, less than the {size}-byte weights")
if kind == "embedded":
    run("embedded-4k")  # in place on 4 KiB entries: runs, nothing to weigh
bad = subprocess.run([driver, "1", "2", "4"], capture_output=True, text=True,
                     env=dict(os.environ, KILN_BENCH_WEIGHTS="bogus"))
if bad.returncode == 0 or "KILN_BENCH_WEIGHTS=bogus" not in bad.stderr:
    sys.exit(f"a bad placement was not refused: {bad.stderr!r}")
print("placements ok")
