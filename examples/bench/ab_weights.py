#!/usr/bin/env python3
"""ab_weights.py ROUNDS DRIVER:MODE[,DRIVER:MODE...] [DRIVER ARGS]

A/B of weight placements with drivers kept by `kiln-bench --keep=DIR`
(docs/notes/benchmarks-history.md, "Weights and pages"). Each DRIVER:MODE runs the driver
with KILN_BENCH_WEIGHTS=MODE; after one warm-up each, ROUNDS rounds run every
variant once, alternating the order (forward, then reversed) so that drift in
the machine's load falls on all of them alike. Prints medians per variant and
the median (min-max) of the per-round ratios of each variant to the last one.
DRIVER ARGS default to `1 128 64 512` (threads, decode steps, prompts).
"""
import os
import statistics
import subprocess
import sys
import time


def run(variant, args):
    driver, mode = variant.rsplit(":", 1)
    env = dict(os.environ, KILN_BENCH_WEIGHTS=mode)
    t0 = time.monotonic()
    out = subprocess.run([driver] + args, env=env, capture_output=True,
                         text=True, check=True).stdout
    f = {}
    for line in out.splitlines():
        w = line.split()
        if w[0] == "first_token":
            f["cold_start_s"] = float(w[1]) - t0
        elif w[0] == "ttft":
            f["ttft_" + w[1] + "_s"] = float(w[2])
        elif w[0] == "decode":
            f["decode_tok_s"] = float(w[1]) / float(w[2])
        elif w[0] == "VmHWM:":
            f["peak_rss_mb"] = int(w[1]) / 1024
        elif w[0] == "RssAnon:":
            f["anon_rss_mb"] = int(w[1]) / 1024
    return f


def main():
    rounds, variants = int(sys.argv[1]), sys.argv[2].split(",")
    args = sys.argv[3:] or ["1", "128", "64", "512"]
    res = {v: [] for v in variants}
    for v in variants:
        run(v, args)
    loads = []
    for i in range(rounds):
        loads.append(os.getloadavg()[0])
        for v in variants if i % 2 == 0 else variants[::-1]:
            res[v].append(run(v, args))
    print("load average during the runs: %.1f-%.1f" % (min(loads), max(loads)))
    for k in res[variants[0]][0]:
        print("%-14s" % k, "  ".join("%s %.4g" % (v, statistics.median(
            r[k] for r in res[v])) for v in variants))
    base = variants[-1]
    for v in variants[:-1]:
        for k in ["decode_tok_s", "cold_start_s"]:
            r = [a[k] / b[k] for a, b in zip(res[v], res[base])]
            print("%s / %s %s: %.3f (%.3f-%.3f)" % (v, base, k, statistics.median(r),
                                                   min(r), max(r)))


if __name__ == "__main__":
    main()
