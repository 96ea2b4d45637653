#!/usr/bin/python3
# check_logits.py - the trained torch model's logits next to Kiln's, to prove
# that the GGUF layout and RoPE convention agree before a long training run.
#
#   /usr/bin/python3 models/train/check_logits.py OUT/kjv-llama.pt KILN_RUN \
#       OUT/kjv-llama.gguf 1,100,200,300
#
# Runs `KILN_RUN model --target=reference --tokens=... --logits` and prints the
# largest absolute difference from torch's last-token logits.
import argparse
import subprocess
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import train  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("checkpoint")
    ap.add_argument("kiln_run")
    ap.add_argument("gguf")
    ap.add_argument("tokens")
    ap.add_argument("--target", default="reference")
    a = ap.parse_args()
    ck = torch.load(a.checkpoint)
    model = train.Llama(argparse.Namespace(**ck["args"]))
    model.load_state_dict(ck["state"])
    model.eval()
    toks = [int(t) for t in a.tokens.split(",")]
    with torch.no_grad():
        ref = model(torch.tensor([toks]))[0, -1].double()
    out = subprocess.run([a.kiln_run, a.gguf, f"--target={a.target}",
                          f"--tokens={a.tokens}", "--logits"], check=True,
                         capture_output=True, text=True).stdout.split()
    kiln = torch.tensor([float(v) for v in out], dtype=torch.float64)
    diff = (kiln - ref).abs().max().item()
    print(f"max |kiln - torch| = {diff:.3g} over {len(out)} logits "
          f"(logit range {ref.min().item():.2f} .. {ref.max().item():.2f}); "
          f"argmax torch {ref.argmax().item()} kiln {kiln.argmax().item()}")
    sys.exit(0 if diff < 1e-3 else 1)


if __name__ == "__main__":
    main()
