"""check_bench_weights.py DRIVER WEIGHTS - kiln-bench's driver places the
weights where KILN_BENCH_WEIGHTS says.

Runs the kept driver with the weights mapped from the file, then read into
anonymous memory (4 KiB pages, then huge pages): against the mapped run, the
anonymous resident memory must grow, and the file-backed resident memory
shrink, by at least the weights' size (less one 4 KiB page per MiB of slack);
every run must print the whole protocol; a bad placement is refused.
"""
import os
import subprocess
import sys

driver, weights = sys.argv[1], sys.argv[2]
size = os.path.getsize(weights)


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


file_anon, file_file = run("file")
slack = 4096 * (size // (1 << 20) + 1)
for mode in ["anon", "huge"]:
    anon, filed = run(mode)
    if anon - file_anon < size - slack:
        sys.exit(f"{mode}: anonymous RSS grew by {anon - file_anon} bytes, "
                 f"less than the {size}-byte weights")
    if file_file - filed < size - slack:
        sys.exit(f"{mode}: file-backed RSS shrank by {file_file - filed} bytes, "
                 f"less than the {size}-byte weights")
bad = subprocess.run([driver, "1", "2", "4"], capture_output=True, text=True,
                     env=dict(os.environ, KILN_BENCH_WEIGHTS="bogus"))
if bad.returncode == 0 or "KILN_BENCH_WEIGHTS=bogus" not in bad.stderr:
    sys.exit(f"a bad placement was not refused: {bad.stderr!r}")
print("placements ok")
