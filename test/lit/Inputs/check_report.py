"""check_report.py - checks kilnc --report=json for report.test's fixture.

Every field must be present with the right type, and the numbers must equal
the ones computed here from the fixture's dimensions (the same arithmetic as
the comments in report.test). With "unit", the device block and the
prediction for the 1 GB/s, 1 GFLOP/s f32, 2 GOP/s int8 profile are checked.
"""
import json
import sys

r = json.load(open(sys.argv[1]))
unit = len(sys.argv) > 2 and sys.argv[2] == "unit"
errors = []


def expect(path, want, tol=0.0):
    v = r
    for k in path.split("."):
        if not isinstance(v, dict) or k not in v:
            errors.append(f"missing {path}")
            return
        v = v[k]
    if isinstance(want, type):
        if not isinstance(v, want):
            errors.append(f"{path}: {v!r} is not {want.__name__}")
    elif isinstance(want, str):
        if v != want:
            errors.append(f"{path}: {v!r} != {want!r}")
    elif abs(v - want) > tol * max(1.0, abs(want)):
        errors.append(f"{path}: {v} != {want}")


L, D, H, KVH, HD, F, V, CTX, N = 2, 64, 4, 2, 16, 128, 320, 256, 100
q8 = lambda n, k: n * k // 32 * 34
q4 = lambda n, k: n * k // 32 * 18
layer = (q8(H * HD, D) + 2 * q8(KVH * HD, D) + q8(D, H * HD) + 2 * q8(F, D) + q8(D, F))
norms = 2 * D * 4
decode_weights = L * (layer + norms) + q8(V, D) + D * 4 + q4(1, D)
kv = 2 * L * KVH * HD * 4
mm = 2 * (L * (H * HD * D + 2 * KVH * HD * D + D * H * HD + 2 * F * D + D * F))
out = 2 * V * D
att_decode = L * 4 * H * HD * (N + 1)
att_prefill = L * 4 * H * HD * (N + 1) / 2
body = L * (layer + norms) + D * 4
chunk_ends = [32, 64, 96, 100]
prefill_bytes = (len(chunk_ends) * body + sum(chunk_ends) * kv + q8(V, D) + N * q4(1, D)) / N

expect("source", str)
expect("target", "x86")
expect("cpu", str)
expect("threads", 1)
for k, v in dict(layers=L, width=D, heads=H, kv_heads=KVH, head_dim=HD, ffn=F,
                 vocab=V, context_length=CTX, max_batch=32).items():
    expect("model." + k, v)
expect("report_context", N)
expect("weights_bytes", L * (layer + norms) + q8(V, D) + D * 4 + q4(V, D))
expect("weight_bytes_per_token", decode_weights)
expect("kv_bytes_per_token", kv)
expect("kv_element_bytes", 4)
expect("decode.bytes_per_token", decode_weights + (N + 1) * kv)
expect("decode.weight_bytes", decode_weights)
expect("decode.kv_read_bytes", (N + 1) * kv)
expect("decode.flops_per_token", mm + out + att_decode, 1e-9)
expect("decode.matmul_flops", mm + out, 1e-9)
expect("decode.attention_flops", att_decode, 1e-9)
expect("prefill.bytes_per_token", prefill_bytes, 1e-9)
expect("prefill.flops_per_token", mm + out / N + att_prefill, 1e-9)
expect("prefill.matmul_flops", mm + out / N, 1e-9)
expect("prefill.attention_flops", att_prefill, 1e-9)
expect("arena_bytes", int)
expect("activation_arena_bytes", int)
if not r.get("arena_bytes", 0) > r.get("activation_arena_bytes", 0) > 0:
    errors.append("arena_bytes must exceed activation_arena_bytes > 0")
expect("activation_lower_bound_bytes", int)
expect("activation_no_reuse_bytes", int)
if not (0 < r.get("activation_lower_bound_bytes", 0)
        <= r.get("activation_arena_bytes", 0)
        <= r.get("activation_no_reuse_bytes", 0)):
    errors.append("the plan must lie between its lower bound (> 0) and "
                  "its size without reuse")
ops = {o["name"]: o for o in r.get("ops", [])}
# A fused op is one row named after its parts ("attn_q+attn_k+attn_v").
part_of = {part: o for o in ops.values() for part in o["name"].split("+")}
for name in ["token_embd", "attn_norm", "attn_q", "attn_k", "attn_v", "rope_q",
             "rope_k", "attention", "attn_output", "ffn_norm", "ffn_gate",
             "ffn_up", "ffn_silu_mul", "ffn_down", "output_norm", "last_token",
             "output"]:
    if name not in part_of:
        errors.append(f"ops: missing {name}")
for o in ops.values():
    for k in ["name", "count", "precision", "decode_bytes", "decode_flops", "prefill_flops"]:
        if k not in o:
            errors.append(f"ops.{o.get('name')}: missing {k}")
if sum(o["decode_bytes"] for o in ops.values()) != decode_weights + (N + 1) * kv:
    errors.append("ops' decode_bytes do not add up to decode.bytes_per_token")
if part_of.get("attn_q", {}).get("precision") != "int8":
    errors.append("attn_q on q8_0 activations should be int8")

if unit:
    expect("device.name", "unit")
    expect("device.path", str)
    expect("device.read_bandwidth_gbs", 1.0)
    expect("device.cores", 1)
    expect("device.peak_gflops_per_core.f32", 1.0)
    expect("device.peak_gflops_per_core.int8", 2.0)
    dec_mem = (decode_weights + (N + 1) * kv) / 1e9
    dec_cmp = (mm + out) / 2e9 + att_decode / 1e9
    pre_mem = prefill_bytes / 1e9
    pre_cmp = (mm + out / N) / 2e9 + att_prefill / 1e9
    expect("prediction.decode_tokens_per_s", 1 / max(dec_mem, dec_cmp), 1e-9)
    expect("prediction.decode_bound", "bandwidth" if dec_mem >= dec_cmp else "compute")
    expect("prediction.decode_bandwidth_tokens_per_s", 1 / dec_mem, 1e-9)
    expect("prediction.decode_compute_tokens_per_s", 1 / dec_cmp, 1e-9)
    expect("prediction.prefill_tokens_per_s", 1 / max(pre_mem, pre_cmp), 1e-9)
    expect("prediction.prefill_bound", "bandwidth" if pre_mem >= pre_cmp else "compute")
    expect("prediction.prefill_bandwidth_tokens_per_s", 1 / pre_mem, 1e-9)
    expect("prediction.prefill_compute_tokens_per_s", 1 / pre_cmp, 1e-9)
elif "device" in r or "prediction" in r:
    errors.append("device/prediction present without --device")

if errors:
    print("\n".join(errors))
    sys.exit(1)
print("report ok")
