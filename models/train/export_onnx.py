#!/usr/bin/python3
# export_onnx.py - writes models/kjv-llama.onnx, the ONNX twin of the demo
# model, from the shipped GGUF (not from a training checkpoint, so the twin is
# the model Kiln's GGUF path runs, weight for weight).
#
#   /usr/bin/python3 models/train/export_onnx.py models/kjv-llama.gguf \
#       models/kjv-llama.onnx [--check-kiln-run build/bin/kiln-run]
#
# What train.py's own torch.onnx.export wrote could not be compiled: torch
# 1.13 exports repeat_interleave (the GQA key/value repeat) as a Loop over
# SplitToSequence/ConcatFromSequence, and the logits' dimensions came out
# named (dynamic). Here the repeat is rep copies concatenated + a reshape (a
# Concat and a Reshape in ONNX), every shape in the forward pass is a Python int of the
# model's configuration (so the trace records constants, not Shape ops), and
# the graph is one fixed shape: tokens int64 [1, ctx] -> logits float
# [1, ctx, vocab].
#
# GGUF layout (train.py's write_gguf): Q/K rows are written unpermuted -- the
# torch model rotates adjacent pairs (x[2i], x[2i+1]), llama.cpp's convention
# for llama GGUFs -- so the matrices load as they are. The F16 matrices become
# F32 initializers (exact: every F16 value is an F32 value).
#
# Checks before writing: the export-friendly forward against train.py's
# forward (repeat_interleave) on the same weights, and with --check-kiln-run,
# torch's last-position logits against `kiln-run GGUF --target=reference
# --logits` (the layout and RoPE check of check_logits.py, for the GGUF as
# read back).
import argparse
import os
import struct
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train  # noqa: E402


# --- GGUF (version 3) reader, from the format's specification ----------------
_SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f",
           7: "<B", 10: "<Q", 11: "<q", 12: "<d"}
GGUF_STR, GGUF_ARR = 8, 9
GGML_F32, GGML_F16 = 0, 1


class _Cursor:
    def __init__(self, data, path):
        self.data, self.pos, self.path = data, 0, path

    def take(self, n):
        if self.pos + n > len(self.data):
            sys.exit(f"{self.path}: truncated at byte {self.pos} (need {n} more)")
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def unpack(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self):
        return self.take(self.unpack("<Q")).decode("utf-8")

    def value(self, kind):
        if kind == GGUF_STR:
            return self.string()
        if kind == GGUF_ARR:
            ek, n = self.unpack("<I"), self.unpack("<Q")
            return [self.value(ek) for _ in range(n)]
        if kind not in _SCALAR:
            sys.exit(f"{self.path}: unknown GGUF value type {kind} at byte {self.pos}")
        return self.unpack(_SCALAR[kind])


def read_gguf(path):
    """Returns (metadata dict, {name: float32 numpy array, row-major})."""
    with open(path, "rb") as f:
        c = _Cursor(f.read(), path)
    if c.take(4) != b"GGUF":
        sys.exit(f"{path}: not a GGUF file")
    version = c.unpack("<I")
    if version != 3:
        sys.exit(f"{path}: GGUF version {version}, expected 3")
    n_tensors, n_kv = c.unpack("<Q"), c.unpack("<Q")
    meta = {}
    for _ in range(n_kv):
        key = c.string()
        meta[key] = c.value(c.unpack("<I"))
    infos = []
    for _ in range(n_tensors):
        name = c.string()
        dims = [c.unpack("<Q") for _ in range(c.unpack("<I"))]
        ty, off = c.unpack("<I"), c.unpack("<Q")
        infos.append((name, tuple(reversed(dims)), ty, off))  # innermost first in the file
    align = meta.get("general.alignment", 32)
    base = (c.pos + align - 1) // align * align
    tensors = {}
    for name, shape, ty, off in infos:
        if ty not in (GGML_F32, GGML_F16):
            sys.exit(f"{path}: tensor {name}: ggml type {ty}; only F32 and F16 are read")
        dt = np.float32 if ty == GGML_F32 else np.float16
        n = int(np.prod(shape))
        start = base + off
        if start + n * np.dtype(dt).itemsize > len(c.data):
            sys.exit(f"{path}: tensor {name} runs past the end of the file")
        arr = np.frombuffer(c.data, dtype=dt, count=n, offset=start)
        tensors[name] = arr.astype(np.float32).reshape(shape)
    return meta, tensors


def config_of(meta):
    """train.py's argument namespace, from the GGUF's llama.* keys."""
    g = lambda k: meta["llama." + k]
    return argparse.Namespace(
        vocab=g("vocab_size") if "llama.vocab_size" in meta else len(meta["tokenizer.ggml.tokens"]),
        dim=g("embedding_length"), layers=g("block_count"),
        heads=g("attention.head_count"), kv_heads=g("attention.head_count_kv"),
        ffn=g("feed_forward_length"), ctx=g("context_length"),
        eps=g("attention.layer_norm_rms_epsilon"), theta=g("rope.freq_base"))


def load_state(model, tensors, a):
    """train.py's export_gguf mapping, backwards."""
    names = {"embd.weight": "token_embd.weight", "norm.weight": "output_norm.weight",
             "output.weight": "output.weight"}
    for i in range(a.layers):
        for ours, theirs in [("attn_norm", "attn_norm"), ("q", "attn_q"), ("k", "attn_k"),
                             ("v", "attn_v"), ("o", "attn_output"), ("ffn_norm", "ffn_norm"),
                             ("gate", "ffn_gate"), ("up", "ffn_up"), ("down", "ffn_down")]:
            names[f"blocks.{i}.{ours}.weight"] = f"blk.{i}.{theirs}.weight"
    state = {}
    for ours, theirs in names.items():
        if theirs not in tensors:
            sys.exit(f"GGUF has no tensor {theirs}")
        state[ours] = torch.from_numpy(tensors[theirs].copy())
    extra = set(tensors) - set(names.values())
    if extra:
        sys.exit(f"GGUF tensors this exporter does not map: {sorted(extra)}")
    model.load_state_dict(state)  # strict: shapes and names must all agree


# --- the export-friendly forward ---------------------------------------------
def static_rope(x, c, s, shape):
    """train.rope_adjacent with the flatten of the interleaved pairs as a
    reshape to a constant shape (flatten(-2) exports as Shape + Slice +
    Concat feeding a Reshape); c, s: the cos/sin tables as [1, T, 1, hd/2].
    (torch's constant folding still writes a copy of them per use: 32 of
    16 KiB, and the causal mask once per layer: 4 of 256 KiB.)"""
    x0 = x[..., 0::2]
    x1 = x[..., 1::2]
    return torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).reshape(shape)


def static_block_forward(b, x, c, s, mask, B, T):
    """train.Block.forward with constant shapes and the GQA repeat as rep
    copies side by side + reshape: kv head j is copied to query heads
    j*rep .. j*rep+rep-1, which is repeat_interleave(rep, dim=2). (A
    torch expand would do too, but torch 1.13 exports it with a
    Shape/ConstantOfShape/Equal/Where chain for the -1 sizes it allows; the
    concatenation is one Concat.)"""
    H, KV, hd = b.heads, b.kv_heads, b.hd
    rep = H // KV
    n = b.attn_norm(x)
    q = static_rope(b.q(n).view(B, T, H, hd), c, s, (B, T, H, hd))
    k = static_rope(b.k(n).view(B, T, KV, hd), c, s, (B, T, KV, hd))
    v = b.v(n).view(B, T, KV, hd)
    k = torch.cat([k[:, :, :, None, :]] * rep, dim=3).reshape(B, T, H, hd)
    v = torch.cat([v[:, :, :, None, :]] * rep, dim=3).reshape(B, T, H, hd)
    q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # [B, H, T, hd]
    scores = (q @ k.transpose(-1, -2)) / (hd ** 0.5) + mask
    a = (F.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, H * hd)
    x = x + b.o(a)
    n = b.ffn_norm(x)
    return x + b.down(F.silu(b.gate(n)) * b.up(n))


class StaticLlama(torch.nn.Module):
    """Wraps a train.Llama (same parameters) for one fixed input shape."""

    def __init__(self, model, batch, ctx):
        super().__init__()
        self.m, self.B, self.T = model, batch, ctx

    def forward(self, tokens):
        m = self.m
        T = self.T
        c = m.cos[:T][None, :, None, :]
        s = m.sin[:T][None, :, None, :]
        mask = m.mask[:T, :T]
        x = m.embd(tokens)
        for b in m.blocks:
            x = static_block_forward(b, x, c, s, mask, self.B, T)
        return m.output(m.norm(x))


def kiln_reference_logits(kiln_run, gguf, toks):
    out = subprocess.run([kiln_run, gguf, "--target=reference",
                          "--tokens=" + ",".join(map(str, toks)), "--logits"],
                         check=True, capture_output=True, text=True).stdout.split()
    return torch.tensor([float(v) for v in out], dtype=torch.float64)


def main():
    ap = argparse.ArgumentParser(description="ONNX twin of a llama GGUF written by train.py")
    ap.add_argument("gguf")
    ap.add_argument("out")
    ap.add_argument("--check-kiln-run", metavar="KILN_RUN",
                    help="also compare torch's logits with kiln-run --target=reference")
    ap.add_argument("--opset", type=int, default=14)
    a = ap.parse_args()

    torch.manual_seed(0)
    meta, tensors = read_gguf(a.gguf)
    cfg = config_of(meta)
    model = train.Llama(cfg)
    load_state(model, tensors, cfg)
    model.eval()
    static = StaticLlama(model, 1, cfg.ctx).eval()

    # A sample: BOS then pseudo-random ids, the full context.
    gen = torch.Generator().manual_seed(1611)
    toks = torch.randint(3, cfg.vocab, (1, cfg.ctx), generator=gen)
    toks[0, 0] = meta.get("tokenizer.ggml.bos_token_id", 1)
    with torch.no_grad():
        ref = model(toks)
        got = static(toks)
    d = (ref - got).abs().max().item()
    print(f"export-friendly forward vs train.Llama: max |diff| {d:.3g} over "
          f"{got.numel()} logits")
    if d > 1e-4:
        sys.exit("the export-friendly forward does not compute train.Llama's logits")

    if a.check_kiln_run:
        n = 12
        kiln = kiln_reference_logits(a.check_kiln_run, a.gguf, toks[0, :n].tolist())
        t = got[0, n - 1].double()
        d = (kiln - t).abs().max().item()
        print(f"torch vs kiln-run --target=reference on the GGUF ({n} tokens): "
              f"max |diff| {d:.3g} (logit range {t.min().item():.2f} .. {t.max().item():.2f}); "
              f"argmax torch {t.argmax().item()} kiln {kiln.argmax().item()}")
        if d > 1e-3:
            sys.exit("torch's logits and Kiln's disagree: GGUF layout or RoPE convention")

    tmp = a.out + ".tmp"
    torch.onnx.export(static, torch.zeros((1, cfg.ctx), dtype=torch.long), tmp,
                      input_names=["tokens"], output_names=["logits"],
                      opset_version=a.opset, do_constant_folding=True)
    import onnx
    m = onnx.load(tmp)
    onnx.checker.check_model(m)
    ops = sorted({nd.op_type for nd in m.graph.node})
    for vi in list(m.graph.input) + list(m.graph.output):
        dims = [dd.dim_value if dd.HasField("dim_value") else dd.dim_param
                for dd in vi.type.tensor_type.shape.dim]
        if not all(isinstance(x, int) and x > 0 for x in dims):
            sys.exit(f"{vi.name} has a dynamic shape {dims}")
        print(f"{vi.name}: {dims}")
    bad = {"Loop", "If", "Scan", "SplitToSequence", "ConcatFromSequence",
           "SequenceConstruct", "SequenceAt", "Shape"} & set(ops)
    if bad:
        sys.exit(f"exported graph still has {sorted(bad)}")
    os.replace(tmp, a.out)
    print(f"wrote {a.out}: {len(m.graph.node)} nodes, ops {', '.join(ops)}")


if __name__ == "__main__":
    main()
