#!/usr/bin/env python3
"""fake_graph_peer.py - a stand-in for scripts/onnxruntime-driver.mjs.

    fake_graph_peer.py MODEL THREADS ITERATIONS NAME:DTYPE:DIMS...

Speaks kiln-bench's graph protocol (tools/kiln-bench/graph_driver.c) with
fixed timings: every run takes 2 ms and the peak memory is 1000 kB, so the
test can check the ratios kiln-bench computes. Appends its arguments to the
file $FAKE_PEER_LOG.
"""
import os
import sys
import time

model, threads, iterations, *inputs = sys.argv[1:]
with open(os.environ["FAKE_PEER_LOG"], "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\n")
print(f"first_run {time.monotonic():.9f}")
for _ in range(int(iterations)):
    print("run 0.002")
print("VmHWM:\t    1000 kB")
