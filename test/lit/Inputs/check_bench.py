"""check_bench.py - kiln-bench --json has every field, each positive.

Timings are not asserted (machines differ); only that the protocol produced
a number for every metric of every engine and that the summary is ordered.
"""
import json
import sys

r = json.load(open(sys.argv[1]))
prompts = [int(p) for p in sys.argv[2].split(",")]
errors = []
for k, want in [("model", str), ("target", str), ("cpu", str), ("threads", int),
                ("runs", int), ("decode_tokens", int), ("prompt_lengths", list),
                ("weight_bytes_per_token", int), ("read_bandwidth_gbs", float),
                ("weights_memory", str)]:
    if not isinstance(r.get(k), want):
        errors.append(f"{k}: {r.get(k)!r} is not {want.__name__}")
if r.get("prompt_lengths") != prompts:
    errors.append(f"prompt_lengths {r.get('prompt_lengths')} != {prompts}")
if not r.get("weight_bytes_per_token", 0) > 0 or not r.get("read_bandwidth_gbs", 0) > 0:
    errors.append("weight_bytes_per_token and read_bandwidth_gbs must be positive")
bw = r.get("read_bandwidth_runs_gbs", {})
if not (isinstance(bw, dict) and all(isinstance(bw.get(k), (int, float)) and bw[k] > 0
                                     for k in ["median", "min", "max"])
        and bw["min"] <= bw["median"] <= bw["max"]
        and bw["median"] == r.get("read_bandwidth_gbs")):
    errors.append(f"read_bandwidth_runs_gbs {bw!r}: want positive min <= median <= max, "
                  "median = read_bandwidth_gbs")
metrics = [f"ttft_{p}_s" for p in prompts] + [
    "decode_tokens_per_s", "cold_start_s", "peak_rss_bytes",
    "effective_bandwidth_gbs", "bandwidth_fraction"]
engine = r.get("kiln", {})
for m in metrics:
    s = engine.get(m)
    if not isinstance(s, dict):
        errors.append(f"kiln.{m} missing")
        continue
    for k in ["median", "min", "max"]:
        if not isinstance(s.get(k), (int, float)) or not s[k] > 0:
            errors.append(f"kiln.{m}.{k}: {s.get(k)!r} is not a positive number")
    if not s.get("min", 0) <= s.get("median", 0) <= s.get("max", 0):
        errors.append(f"kiln.{m}: min <= median <= max does not hold")
if set(engine) != set(metrics):
    errors.append(f"kiln has unexpected fields {sorted(set(engine) - set(metrics))}")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("bench ok")
