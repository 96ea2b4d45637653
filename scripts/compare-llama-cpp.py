#!/usr/bin/env python3
"""Kiln against llama.cpp on the same GGUF files: greedy tokens and logits.

    scripts/compare-llama-cpp.py BINDIR [--targets=x86,neon] [--only=NAME]

A target may name a CPU level as ISA:CPU (x86:avx2 runs kiln-run
--target=x86 --cpu=avx2).

For each fixture below (kiln-fixture: every supported architecture in F32,
F16 and Q4_K_M- and Q5_K_M-style mixes; phi3 with LongRoPE; gemma3 with sliding-window
layers shorter than the prompt, once more with KV rings of exactly the window; llama with linear RoPE scaling; llama in
every other weight type), runs `kiln-run --tokens=PROMPT --generate=32
--logits-at=0..32` on each target and llama.cpp's greedy decoding on the same
file (scripts/bench-llama-cpp.sh greedy: the prebuilt llama.cpp of
node-llama-cpp), then checks:

  * greedy tokens identical until the first step where Kiln's top two logits
    are closer than twice the logit error measured so far (a near-tie);
    F32 and F16 files must agree on all 32;
  * at every step both have reached (0, 16, ...), the largest absolute logit
    difference divided by the range of llama.cpp's logits stays below
    TOLERANCE (0.02 for F32/F16, 0.05 for the quantized mix); where the
    tokens part before step 16, Kiln is fed the prompt and llama.cpp's first
    16 tokens, and its logits then are held to llama.cpp's at step 16 too.

Prints one line per (fixture, target) and exits 1 if any fails. ctest runs
it as `peer-llama-cpp` (label heavy: needs npm and network the first time).
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATE = 32
FORCED = 16
PROMPT = [1, 17, 42, 99, 7, 250, 3, 64]
SHAPE = ["--width=128", "--heads=4", "--kv-heads=2", "--ffn=256",
         "--layers=2"]
Q4_K_M = ["--type=q4_k", "--tensor-type=attn_v|ffn_down=q6_k",
          "--output-type=q6_k", "--width=256", "--ffn=512"]
Q5_K_M = ["--type=q5_k"] + Q4_K_M[1:]
FIXTURES = []
for arch in ["llama", "qwen2", "qwen3", "phi3", "gemma3"]:
    extra = {"qwen3": ["--head-dim=64"], "phi3": ["--long-rope"],
             # two sliding-window layers (window 8) around a global one
             "gemma3": ["--layers=3", "--rope-theta=1000000"]}.get(arch, [])
    FIXTURES += [
        (arch + "_f32", ["--arch=" + arch, "--type=f32"] + SHAPE + extra, 0.02, True),
        (arch + "_f16", ["--arch=" + arch, "--type=f16"] + SHAPE + extra, 0.02, True),
        (arch + "_q4_k_m", ["--arch=" + arch] + SHAPE + Q4_K_M + extra, 0.05, False),
        (arch + "_q5_k_m", ["--arch=" + arch] + SHAPE + Q5_K_M + extra, 0.05, False),
    ]
# gemma3 again with rings that wrap: one token per call and blocks of 4 keep
# each sliding-window layer's K and V in a ring of exactly its 8 positions.
FIXTURES.append(("gemma3_f32_ring8", ["--arch=gemma3", "--type=f32"] + SHAPE +
                 ["--layers=3", "--rope-theta=1000000"], 0.02, True))
KILN_FLAGS = {"gemma3_f32_ring8": ["--max-batch=1", "--kv-block=4"]}
FIXTURES.append(("llama_ropelinear", ["--type=f32"] + SHAPE +
                 ["--add-key=llama.rope.scaling.factor:f32=4"], 0.02, True))
# Every other weight type, alone (embedding and output too); width 256 so the
# 256-element super-blocks fit.
for t in ["q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k",
          "q5_k", "q6_k", "iq4_nl", "iq4_xs", "bf16"]:
    FIXTURES.append(("llama_" + t, ["--type=" + t, "--embd-type=" + t] + SHAPE +
                     ["--width=256", "--ffn=512"], 0.05, False))


def parse(text):
    tokens, logits = [], {}
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "tokens":
            tokens = [int(t) for t in parts[1:]]
        elif parts[0].startswith("logits@"):
            logits[int(parts[0][7:])] = [float(v) for v in parts[1:]]
    return tokens, logits


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(" ".join(cmd) + ":\n" + r.stderr[-2000:])
    return r.stdout


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    bindir = sys.argv[1]
    targets = ["x86", "neon"]
    only = None
    for a in sys.argv[2:]:
        if a.startswith("--targets="):
            targets = a.split("=", 1)[1].split(",")
        elif a.startswith("--only="):
            only = a.split("=", 1)[1]
        else:
            sys.exit(f"compare-llama-cpp: unknown argument '{a}' (see --help)")
    if not os.path.isfile(os.path.join(bindir, "kiln-fixture")):
        sys.exit(f"compare-llama-cpp: no kiln-fixture in '{bindir}' (BINDIR is the build's bin)")
    peer = os.path.join(ROOT, "scripts", "bench-llama-cpp.sh")
    steps = [str(s) for s in range(GENERATE + 1)]
    prompt = ",".join(str(t) for t in PROMPT)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, flags, tol, exact in FIXTURES:
            if only and only not in name:
                continue
            gguf = os.path.join(tmp, name + ".gguf")
            run([os.path.join(bindir, "kiln-fixture"), "-o", gguf] + flags)
            ref_tokens, ref_logits = parse(
                run([peer, "greedy", gguf, str(GENERATE), prompt] + steps))
            for target in targets:
                isa = ["--target=" + target.split(":")[0]] + (
                    ["--cpu=" + target.split(":", 1)[1]] if ":" in target else [])
                tokens, logits = parse(run(
                    [os.path.join(bindir, "kiln-run"), gguf] + isa + ["--kv-cache=f16",
                     # llama.cpp's context (a multiple of 256 >= the tokens):
                     # LongRoPE picks its factors by it.
                     "--context=256",
                     "--tokens=" + prompt, "--generate=%d" % GENERATE,
                     "--logits-at=" + ",".join(steps)] +
                    KILN_FLAGS.get(name, [])))
                same = 0
                while same < GENERATE and tokens[same] == ref_tokens[same]:
                    same += 1
                def error(a, b):
                    return max(abs(x - y) for x, y in zip(a, b)) / (max(b) - min(b))
                worst = 0.0
                for s in range(same + 1):
                    worst = max(worst, error(logits[s], ref_logits[s]))
                # Parted before step 16: Kiln is fed llama.cpp's first 16
                # tokens after the prompt, and its logits then must match
                # llama.cpp's at step 16 as well.
                forced = ""
                if same < FORCED:
                    _, flogits = parse(run(
                        [os.path.join(bindir, "kiln-run"), gguf] + isa + [
                         "--kv-cache=f16", "--context=256",
                         "--tokens=" + ",".join(
                             str(t) for t in PROMPT + ref_tokens[:FORCED]),
                         "--generate=0", "--logits-at=0"] +
                        KILN_FLAGS.get(name, [])))
                    err = error(flogits[0], ref_logits[FORCED])
                    worst = max(worst, err)
                    forced = ", fed llama.cpp's tokens %.2g at step %d" % (
                        err, FORCED)
                ok = worst <= tol
                note = ""
                if same < GENERATE:
                    top = sorted(logits[same], reverse=True)
                    span = max(ref_logits[same]) - min(ref_logits[same])
                    gap = (top[0] - top[1]) / span
                    tie = gap <= 2 * worst
                    note = " (step %d: top-2 gap %.2g of the range, %s)" % (
                        same, gap, "a near-tie" if tie else "NOT a near-tie")
                    ok = ok and tie and not exact
                failed += not ok
                print("%-16s %-5s greedy %2d/%d identical, max logit error "
                      "%.2g of the range (tolerance %.2g%s)%s: %s" % (
                          name, target, same, GENERATE, worst, tol, forced,
                          note, "ok" if ok else "FAILED"), flush=True)
    sys.exit(1 if failed else 0)


main()
