"""check_graph_bench.py - kiln-bench --json on an ONNX graph.

    check_graph_bench.py BENCH.json RUNS ITERATIONS INPUTS [PEER]

Every metric of Kiln is a positive number with min <= median <= max; the
header repeats the options and the inputs (NAME:DTYPE:DIMS, comma-separated
dims, inputs separated by ';'). With PEER (the fake peer of
fake_graph_peer.py: 2 ms per run, 1000 kB peak), the peer's figures are
those and each ratio is Kiln's figure over the peer's (one run: exact).
Timings of Kiln are not asserted.
"""
import json
import sys

r = json.load(open(sys.argv[1]))
runs, iterations = int(sys.argv[2]), int(sys.argv[3])
inputs = sys.argv[4].split(";")
peer = len(sys.argv) > 5
errors = []
for k, want in [("model", str), ("target", str), ("cpu", str), ("threads", int),
                ("runs", int), ("iterations", int), ("inputs", list)]:
    if not isinstance(r.get(k), want):
        errors.append(f"{k}: {r.get(k)!r} is not {want}")
if r.get("runs") != runs or r.get("iterations") != iterations:
    errors.append(f"runs/iterations {r.get('runs')}/{r.get('iterations')}")
if r.get("inputs") != inputs:
    errors.append(f"inputs {r.get('inputs')} != {inputs}")
metrics = ["run_ms", "best_run_ms", "cold_start_s", "peak_rss_bytes"]
for m in metrics:
    s = r["kiln"][m]
    if not 0 < s["min"] <= s["median"] <= s["max"]:
        errors.append(f"kiln {m}: {s}")
if peer:
    want = {"run_ms": 2.0, "best_run_ms": 2.0, "peak_rss_bytes": 1024000.0}
    for m, v in want.items():
        got = r["onnxruntime"][m]["median"]
        if abs(got - v) > 1e-9 * v:
            errors.append(f"onnxruntime {m}: {got} != {v}")
        ratio = r["ratio_kiln_over_onnxruntime"][m]["median"]
        expected = r["kiln"][m]["median"] / v
        if runs == 1 and abs(ratio - expected) > 1e-9 * expected:
            errors.append(f"ratio {m}: {ratio} != {expected}")
elif "onnxruntime" in r:
    errors.append("onnxruntime figures without --vs-onnxruntime")
if errors:
    sys.exit("check_graph_bench.py: " + "; ".join(errors))
print("graph bench: ok")
