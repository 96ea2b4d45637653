#!/usr/bin/python3
"""The ONNX twin of the demo model computes what the GGUF computes.

  onnx_kjv_check.py BIN_DIR MODEL.onnx MODEL.gguf SAMPLE.txt --targets=x86,neon

Encodes SAMPLE.txt with the GGUF's tokenizer (kiln-tokenize, BOS first) and
takes the first 256 ids: the ONNX model's one input shape, tokens int64
[1, 256]. Runs the ONNX model compiled for each target (kiln-run --input=...
--output-dir=...; under qemu for the non-host targets) and compares its
logits at a few positions, the last included, with kiln-run on the GGUF with
--target=reference (the f32 reference evaluator) on the prefix ending at that
position: the model is causal, so the logits at position p depend only on the
tokens 0..p.

Tolerance: 1e-3 absolute on logits of magnitude up to about 12. Both paths
evaluate the same F16-valued weights (models/train/export_onnx.py writes the
GGUF's F16 matrices as exact F32 initializers) in f32, so they differ only by
rounding in summation order and in exp/rsqrt: measured at most 4.8e-6 on x86
and on NEON. Measured on broken exports: query heads mapped to the wrong KV
heads (tiled instead of interleaved) moves them by 0.6 to 3.6; one element of
layer 1's K matrix moved by 0.01 (a third of that matrix's standard
deviation) by 1.2e-3 at position 180 (position 0, which attends only to
itself, does not see K at all).

Also checks that the comparison tells positions apart: the ONNX logits at p
must be more than 100 x the tolerance away from the reference's at p - 1, or a
path that ignored the causal structure could pass.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

CTX, VOCAB = 256, 2048
TOL = 1e-3


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}:\n{r.stderr}{r.stdout}")
    return r.stdout


def reference_logits(bin_dir, gguf, ids):
    out = run([os.path.join(bin_dir, "kiln-run"), gguf, "--target=reference",
               "--tokens=" + ",".join(map(str, ids)), "--logits"]).split()
    if len(out) != VOCAB:
        sys.exit(f"FAIL: kiln-run --logits printed {len(out)} values, expected {VOCAB}")
    return np.array([float(v) for v in out], dtype=np.float64)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bin_dir")
    ap.add_argument("onnx_model")
    ap.add_argument("gguf")
    ap.add_argument("sample")
    ap.add_argument("--targets", default="x86")
    ap.add_argument("--positions", default="0,37,180,254,255")
    a = ap.parse_args()
    positions = [int(p) for p in a.positions.split(",")]

    ids = [int(t) for t in run([os.path.join(a.bin_dir, "kiln-tokenize"), a.gguf,
                                "--encode-file=" + a.sample]).split()]
    if len(ids) < CTX:
        sys.exit(f"FAIL: {a.sample} encodes to {len(ids)} tokens, need {CTX}")
    ids = ids[:CTX]

    refs = {p: reference_logits(a.bin_dir, a.gguf, ids[:p + 1]) for p in positions}
    failed = False
    with tempfile.TemporaryDirectory(prefix="onnx-kjv-") as tmp:
        tokens = os.path.join(tmp, "tokens.pb")
        with open(tokens, "wb") as f:
            f.write(numpy_helper.from_array(np.array([ids], dtype=np.int64),
                                            "tokens").SerializeToString())
        for target in a.targets.split(","):
            out_dir = os.path.join(tmp, target)
            t0 = time.time()
            run([os.path.join(a.bin_dir, "kiln-run"), a.onnx_model, "--target=" + target,
                 "--input=tokens=" + tokens, "--output-dir=" + out_dir])
            secs = time.time() - t0
            logits = numpy_helper.to_array(onnx.load_tensor(os.path.join(out_dir, "logits.pb")))
            if logits.shape != (1, CTX, VOCAB) or logits.dtype != np.float32:
                sys.exit(f"FAIL: {target}: logits {logits.dtype} {list(logits.shape)}, "
                         f"expected float32 [1, {CTX}, {VOCAB}]")
            for p in positions:
                got = logits[0, p].astype(np.float64)
                ref = refs[p]
                d = np.abs(got - ref).max()
                ok = d <= TOL
                failed |= not ok
                print(f"{'ok  ' if ok else 'FAIL'} {target} position {p}: max |onnx - gguf| "
                      f"{d:.3g} (tolerance {TOL:g}; |logit| <= {np.abs(ref).max():.2f}; "
                      f"argmax onnx {got.argmax()} gguf {ref.argmax()})")
                if p - 1 in refs:
                    far = np.abs(got - refs[p - 1]).max()
                    if far <= 100 * TOL:
                        failed = True
                        print(f"FAIL {target} position {p}: only {far:.3g} from the "
                              f"reference at position {p - 1}: the check cannot tell them apart")
                    else:
                        print(f"ok   {target} position {p}: {far:.3g} from the reference "
                              f"at position {p - 1} (must be > {100 * TOL:g})")
            print(f"     {target}: compile and run {secs:.1f} s")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
