"""Compile time grows about linearly with a graph's size.

    onnx_scale_check.py BINDIR

Chains of 2,000 and 200,000 Relu nodes (scripts/onnx-chain.py) are compiled
for the host with kilnc; the larger must take at most 200 times as long as
the smaller (linear would be 100; a ratio, so the machine's speed cancels).
The 200,000-node library then runs through kiln-run on an input with
negative and positive values and must return Relu of it.
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOUND = 200


def main():
    bindir = sys.argv[1]
    kilnc = os.path.join(bindir, "kilnc")
    with tempfile.TemporaryDirectory() as tmp:
        took = {}
        for n in (2000, 200000):
            model = os.path.join(tmp, "chain%d.onnx" % n)
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "onnx-chain.py"),
                            str(n), model], check=True)
            t0 = time.monotonic()
            subprocess.run([kilnc, model, "--target=generic", "-q",
                            "-o", os.path.join(tmp, "out%d" % n)], check=True)
            took[n] = time.monotonic() - t0
        ratio = took[200000] / took[2000]
        print("kilnc: 2,000 nodes %.1f s, 200,000 nodes %.1f s: %.1fx (bound %dx)"
              % (took[2000], took[200000], ratio, BOUND))

        x = np.array([[-3, -1.5, -0.0, 0.25, 1, 2, -7, 9]], dtype=np.float32)
        pb = os.path.join(tmp, "x.pb")
        with open(pb, "wb") as f:
            f.write(numpy_helper.from_array(x, "x").SerializeToString())
        outdir = os.path.join(tmp, "run")
        subprocess.run([os.path.join(bindir, "kiln-run"),
                        os.path.join(tmp, "chain200000.onnx"), "--target=generic",
                        "--input=x=" + pb, "--output-dir=" + outdir],
                       check=True)
        with open(os.path.join(outdir, "y.pb"), "rb") as f:
            from onnx import TensorProto
            t = TensorProto()
            t.ParseFromString(f.read())
        y = numpy_helper.to_array(t)
        ok = ratio <= BOUND and np.array_equal(y, np.maximum(x, 0))
        if not np.array_equal(y, np.maximum(x, 0)):
            print("the 200,000-node chain returned", y.tolist())
        sys.exit(0 if ok else 1)


main()
