"""check_bench.py - kiln-bench --json has every field, each positive.

    check_bench.py BENCH.json PROMPTS [KV_BYTES_PER_POSITION]

Timings are not asserted (machines differ); only that the protocol produced
a number for every metric of every engine and that the summary is ordered.
With KV_BYTES_PER_POSITION (computed by hand in the test) the bytes per
token are checked: weights + KV read at the mean decode position, and the
effective bandwidth is those bytes times the decode rate.
"""
import json
import sys

r = json.load(open(sys.argv[1]))
prompts = [int(p) for p in sys.argv[2].split(",")]
errors = []
# A JSON number has no int/float kind: a measured 26.000 GB/s is written "26".
for k, want in [("model", str), ("target", str), ("cpu", str), ("threads", int),
                ("runs", int), ("decode_tokens", int), ("prompt_lengths", list),
                ("weight_bytes_per_token", int), ("read_bandwidth_gbs", (int, float)),
                ("weights_memory", str), ("kv_cache", str),
                ("kv_bytes_per_position", int),
                ("kv_read_bytes_per_token", (int, float)),
                ("bytes_per_token", (int, float)),
                ("int8_ops_per_prompt_token", (int, float)),
                ("int8_peak_gops_per_core", (int, float))]:
    if not isinstance(r.get(k), want):
        errors.append(f"{k}: {r.get(k)!r} is not {want}")
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
if len(sys.argv) > 3:
    kv = int(sys.argv[3])
    mean_positions = prompts[0] + (r.get("decode_tokens", 0) + 1) / 2
    want = {"kv_bytes_per_position": kv, "kv_read_bytes_per_token": kv * mean_positions,
            "bytes_per_token": r.get("weight_bytes_per_token", 0) + kv * mean_positions}
    for k, v in want.items():
        if abs(r.get(k, -1) - v) > 1e-6 * v:
            errors.append(f"{k}: {r.get(k)!r}, computed by hand {v}")
if not r.get("int8_ops_per_prompt_token", 0) > 0 or not r.get("int8_peak_gops_per_core", 0) > 0:
    errors.append("int8_ops_per_prompt_token and int8_peak_gops_per_core must be positive")
metrics = [f"ttft_{p}_s" for p in prompts] + [
    f"prefill_{p}_int8_{k}" for p in prompts for k in ("gops", "peak_fraction")] + [
    "decode_tokens_per_s", "cold_start_s", "peak_rss_bytes",
    "effective_bandwidth_gbs", "bandwidth_fraction", "weight_bandwidth_fraction"]
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
# One run: the medians are that run's, so the formulas hold exactly.
if r.get("runs") == 1 and all(isinstance(engine.get(m), dict) for m in metrics):
    tok = engine["decode_tokens_per_s"]["median"]
    eff = engine["effective_bandwidth_gbs"]["median"]
    want = r.get("bytes_per_token", 0) * tok / 1e9
    if abs(eff - want) > 1e-9 * want:
        errors.append(f"effective_bandwidth_gbs {eff} != bytes_per_token x tok/s = {want}")
    frac, wfrac = (engine[m]["median"] for m in ["bandwidth_fraction", "weight_bandwidth_fraction"])
    ratio = r.get("weight_bytes_per_token", 0) / r.get("bytes_per_token", 1)
    if abs(wfrac - frac * ratio) > 1e-9 * frac:
        errors.append(f"weight_bandwidth_fraction {wfrac} != bandwidth_fraction x weights / bytes")
    # Prefill: the prompt's int8 operations over its time to first token, and
    # that rate over the probe's one-core rate times the threads.
    for p in prompts:
        gops = engine[f"prefill_{p}_int8_gops"]["median"]
        want = r["int8_ops_per_prompt_token"] * p / engine[f"ttft_{p}_s"]["median"] / 1e9
        if abs(gops - want) > 1e-9 * want:
            errors.append(f"prefill_{p}_int8_gops {gops} != ops x {p} / ttft = {want}")
        frac = engine[f"prefill_{p}_int8_peak_fraction"]["median"]
        want = gops / (r["int8_peak_gops_per_core"] * r["threads"])
        if abs(frac - want) > 1e-9 * want:
            errors.append(f"prefill_{p}_int8_peak_fraction {frac} != gops / (peak x threads) = {want}")
if set(engine) != set(metrics):
    errors.append(f"kiln has unexpected fields {sorted(set(engine) - set(metrics))}")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("bench ok")
