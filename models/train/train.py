#!/usr/bin/python3
# train.py - trains Kiln's demo model: a SentencePiece tokenizer and a small
# llama on the King James Bible, written as GGUF (F16 master) and ONNX.
#
# Needs Debian's python3-torch, python3-sentencepiece, libopenblas0-pthread and
# bible-kjv; run it with /usr/bin/python3 (Debian's packages install there).
# Deterministic from --seed at a fixed --threads: the corpus order is fixed, the
# tokenizer trains on all sentences without sampling, and the batches come from
# a seeded generator.
#
# The model computes exactly what Kiln's llama importer and reference evaluator
# compute for a llama GGUF: RMSNorm (eps 1e-5), RoPE on adjacent pairs
# (x[2i], x[2i+1]) with angle pos * theta^(-2i/head_dim) -- the layout
# llama.cpp's llama GGUFs store Q/K in, so the weights are written unpermuted --
# grouped-query attention (query head h reads kv head h / (heads/kv_heads)),
# SwiGLU FFN, separate output matrix.
import argparse
import math
import os
import struct
import subprocess
import sys
import time

import numpy as np
import sentencepiece as spm
import torch
import torch.nn as nn
import torch.nn.functional as F


def corpus_verses():
    """One verse per line from bible-kjv, the reference ('Ge1:1 ') removed."""
    text = subprocess.run(["bible", "-f", "gen1:1-rev22:21"], check=True,
                          capture_output=True, text=True).stdout
    verses = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        ref, _, verse = line.partition(" ")
        if ":" not in ref or not verse:
            sys.exit(f"unexpected bible output line: {line[:80]!r}")
        verses.append(verse.strip())
    return verses


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(ctx, head_dim, theta):
    i = torch.arange(head_dim // 2, dtype=torch.float64)
    inv = theta ** (-2.0 * i / head_dim)
    ang = torch.arange(ctx, dtype=torch.float64)[:, None] * inv[None, :]
    return torch.cos(ang).float(), torch.sin(ang).float()


def rope_adjacent(x, cos, sin):
    # x: [B, T, H, hd]; pairs (2i, 2i+1) rotate by angle[t, i].
    T = x.shape[1]
    c = cos[:T][None, :, None, :]
    s = sin[:T][None, :, None, :]
    x0 = x[..., 0::2]
    x1 = x[..., 1::2]
    return torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).flatten(-2)


class Block(nn.Module):
    def __init__(self, a):
        super().__init__()
        hd = a.dim // a.heads
        self.heads, self.kv_heads, self.hd = a.heads, a.kv_heads, hd
        self.attn_norm = RMSNorm(a.dim, a.eps)
        self.q = nn.Linear(a.dim, a.heads * hd, bias=False)
        self.k = nn.Linear(a.dim, a.kv_heads * hd, bias=False)
        self.v = nn.Linear(a.dim, a.kv_heads * hd, bias=False)
        self.o = nn.Linear(a.heads * hd, a.dim, bias=False)
        self.ffn_norm = RMSNorm(a.dim, a.eps)
        self.gate = nn.Linear(a.dim, a.ffn, bias=False)
        self.up = nn.Linear(a.dim, a.ffn, bias=False)
        self.down = nn.Linear(a.ffn, a.dim, bias=False)

    def forward(self, x, cos, sin, mask):
        B, T, _ = x.shape
        n = self.attn_norm(x)
        q = rope_adjacent(self.q(n).view(B, T, self.heads, self.hd), cos, sin)
        k = rope_adjacent(self.k(n).view(B, T, self.kv_heads, self.hd), cos, sin)
        v = self.v(n).view(B, T, self.kv_heads, self.hd)
        rep = self.heads // self.kv_heads
        k = k.repeat_interleave(rep, dim=2)
        v = v.repeat_interleave(rep, dim=2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # [B, H, T, hd]
        s = (q @ k.transpose(-1, -2)) / math.sqrt(self.hd) + mask[:T, :T]
        a = (F.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, T, -1)
        x = x + self.o(a)
        n = self.ffn_norm(x)
        return x + self.down(F.silu(self.gate(n)) * self.up(n))


class Llama(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.embd = nn.Embedding(a.vocab, a.dim)
        self.blocks = nn.ModuleList(Block(a) for _ in range(a.layers))
        self.norm = RMSNorm(a.dim, a.eps)
        self.output = nn.Linear(a.dim, a.vocab, bias=False)
        cos, sin = rope_tables(a.ctx, a.dim // a.heads, a.theta)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        mask = torch.full((a.ctx, a.ctx), float("-inf")).triu(1)
        self.register_buffer("mask", mask, persistent=False)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02
                if name.endswith("o.weight") or name.endswith("down.weight"):
                    std = 0.02 / math.sqrt(2 * a.layers)
                nn.init.normal_(p, 0.0, std)

    def forward(self, tokens):
        x = self.embd(tokens)
        for b in self.blocks:
            x = b(x, self.cos, self.sin, self.mask)
        return self.output(self.norm(x))


# --- GGUF (version 3) writer, from the format's specification ----------------
GGUF_U32, GGUF_I32, GGUF_F32, GGUF_BOOL, GGUF_STR, GGUF_ARR = 4, 5, 6, 7, 8, 9
GGML_F32, GGML_F16 = 0, 1


def gguf_string(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def gguf_value(kind, v):
    if kind == GGUF_U32:
        return struct.pack("<I", v)
    if kind == GGUF_I32:
        return struct.pack("<i", v)
    if kind == GGUF_F32:
        return struct.pack("<f", v)
    if kind == GGUF_BOOL:
        return struct.pack("<B", 1 if v else 0)
    if kind == GGUF_STR:
        return gguf_string(v)
    raise ValueError(kind)


def write_gguf(path, kvs, tensors, alignment=32):
    """kvs: [(key, kind, value)] with kind GGUF_ARR value (elem_kind, list);
    tensors: [(name, numpy array row-major, ggml type)]."""
    out = bytearray(b"GGUF")
    out += struct.pack("<IQQ", 3, len(tensors), len(kvs))
    for key, kind, value in kvs:
        out += gguf_string(key) + struct.pack("<I", kind)
        if kind == GGUF_ARR:
            ek, items = value
            out += struct.pack("<IQ", ek, len(items))
            for it in items:
                out += gguf_value(ek, it)
        else:
            out += gguf_value(kind, value)
    blobs, offset = [], 0
    for name, arr, ty in tensors:
        data = arr.astype(np.float16 if ty == GGML_F16 else np.float32).tobytes()
        offset = (offset + alignment - 1) // alignment * alignment
        out += gguf_string(name) + struct.pack("<I", arr.ndim)
        for d in reversed(arr.shape):  # GGUF lists the innermost dimension first
            out += struct.pack("<Q", d)
        out += struct.pack("<IQ", ty, offset)
        blobs.append((offset, data))
        offset += len(data)
    out += b"\0" * ((-len(out)) % alignment)
    base = len(out)
    for off, data in blobs:
        out += b"\0" * (base + off - len(out))
        out += data
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(out)
    os.replace(tmp, path)


def export_gguf(path, model, sp, a, dtype):
    kvs = [
        ("general.architecture", GGUF_STR, "llama"),
        ("general.name", GGUF_STR, a.name),
        ("general.file_type", GGUF_U32, 1 if dtype == GGML_F16 else 0),
        ("general.license", GGUF_STR, "public-domain"),
        ("general.source.url", GGUF_STR, "Debian bible-kjv: bible -f gen1:1-rev22:21"),
        ("llama.context_length", GGUF_U32, a.ctx),
        ("llama.embedding_length", GGUF_U32, a.dim),
        ("llama.block_count", GGUF_U32, a.layers),
        ("llama.feed_forward_length", GGUF_U32, a.ffn),
        ("llama.attention.head_count", GGUF_U32, a.heads),
        ("llama.attention.head_count_kv", GGUF_U32, a.kv_heads),
        ("llama.attention.layer_norm_rms_epsilon", GGUF_F32, a.eps),
        ("llama.rope.freq_base", GGUF_F32, a.theta),
        ("llama.rope.dimension_count", GGUF_U32, a.dim // a.heads),
        ("llama.vocab_size", GGUF_U32, a.vocab),
        ("tokenizer.ggml.model", GGUF_STR, "llama"),
    ]
    n = sp.get_piece_size()
    types = []
    for i in range(n):
        # llama.cpp's token types: 1 normal, 2 unknown, 3 control, 5 unused, 6 byte.
        types.append(2 if sp.is_unknown(i) else 3 if sp.is_control(i) else
                     6 if sp.is_byte(i) else 5 if sp.is_unused(i) else 1)
    kvs += [
        ("tokenizer.ggml.tokens", GGUF_ARR, (GGUF_STR, [sp.id_to_piece(i) for i in range(n)])),
        ("tokenizer.ggml.scores", GGUF_ARR, (GGUF_F32, [sp.get_score(i) for i in range(n)])),
        ("tokenizer.ggml.token_type", GGUF_ARR, (GGUF_I32, types)),
        ("tokenizer.ggml.unknown_token_id", GGUF_U32, sp.unk_id()),
        ("tokenizer.ggml.bos_token_id", GGUF_U32, sp.bos_id()),
        ("tokenizer.ggml.eos_token_id", GGUF_U32, sp.eos_id()),
        ("tokenizer.ggml.add_bos_token", GGUF_BOOL, True),
        ("tokenizer.ggml.add_eos_token", GGUF_BOOL, False),
    ]
    W = lambda t: t.detach().float().numpy()
    ts = [("token_embd.weight", W(model.embd.weight), dtype)]
    for i, b in enumerate(model.blocks):
        p = f"blk.{i}."
        ts += [(p + "attn_norm.weight", W(b.attn_norm.weight), GGML_F32),
               (p + "attn_q.weight", W(b.q.weight), dtype),
               (p + "attn_k.weight", W(b.k.weight), dtype),
               (p + "attn_v.weight", W(b.v.weight), dtype),
               (p + "attn_output.weight", W(b.o.weight), dtype),
               (p + "ffn_norm.weight", W(b.ffn_norm.weight), GGML_F32),
               (p + "ffn_gate.weight", W(b.gate.weight), dtype),
               (p + "ffn_up.weight", W(b.up.weight), dtype),
               (p + "ffn_down.weight", W(b.down.weight), dtype)]
    ts += [("output_norm.weight", W(model.norm.weight), GGML_F32),
           ("output.weight", W(model.output.weight), dtype)]
    write_gguf(path, kvs, ts)


def round_to_f16(model):
    """The GGUF stores F16 matrices: evaluate the model the file describes."""
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 2:
                p.copy_(p.half().float())


def windows(ids, ctx, bos):
    """Non-overlapping chunks of ctx tokens, each fed as BOS + chunk[:-1] so
    every text token is predicted once, from at most ctx inputs (as in
    training). kiln-perplexity --ctx=ctx scores a text the same way."""
    for start in range(0, len(ids), ctx):
        yield [bos] + ids[start:start + ctx]


@torch.no_grad()
def evaluate(model, ids, ctx, bos):
    model.eval()
    nll, count = 0.0, 0
    for w in windows(ids, ctx, bos):
        t = torch.tensor([w])
        logits = model(t[:, :-1])
        loss = F.cross_entropy(logits[0], t[0, 1:], reduction="sum")
        nll += loss.item()
        count += len(w) - 1
    model.train()
    return nll / count


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--name", default="kjv-llama")
    ap.add_argument("--seed", type=int, default=1611)
    ap.add_argument("--steps", type=int, default=240)
    ap.add_argument("--measure", type=int, default=0,
                    help="time this many steps, print seconds/step, exit")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--vocab", type=int, default=2048)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--kv-heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=768)
    ap.add_argument("--ctx", type=int, default=256)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--eps", type=float, default=1e-5)
    ap.add_argument("--theta", type=float, default=10000.0)
    ap.add_argument("--heldout", type=float, default=0.05,
                    help="fraction of verses, from the end, held out")
    ap.add_argument("--no-onnx", action="store_true")
    a = ap.parse_args()

    t0 = time.time()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    os.makedirs(a.out, exist_ok=True)

    verses = corpus_verses()
    cut = int(len(verses) * (1 - a.heldout))
    train_text = "\n".join(verses[:cut]) + "\n"
    held_text = "\n".join(verses[cut:]) + "\n"
    with open(os.path.join(a.out, "train.txt"), "w") as f:
        f.write(train_text)
    with open(os.path.join(a.out, "heldout.txt"), "w") as f:
        f.write(held_text)
    print(f"corpus: {len(verses)} verses, {cut} train, {len(verses) - cut} held out")

    # The llama SentencePiece setup: BPE (llama.cpp's SPM tokenizer merges by
    # score, which is what SentencePiece's BPE encoder does), byte fallback,
    # identity normalization, a dummy prefix, whitespace kept as written.
    prefix = os.path.join(a.out, "tokenizer")
    spm.SentencePieceTrainer.train(
        input=os.path.join(a.out, "train.txt"), model_prefix=prefix,
        model_type="bpe", vocab_size=a.vocab, byte_fallback=True,
        character_coverage=1.0, normalization_rule_name="identity",
        add_dummy_prefix=True, remove_extra_whitespaces=False,
        split_digits=True, unk_id=0, bos_id=1, eos_id=2, pad_id=-1,
        num_threads=1, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
    assert sp.get_piece_size() == a.vocab
    train_ids = sp.encode(train_text)
    held_ids = sp.encode(held_text)
    bos = sp.bos_id()
    print(f"tokens: {len(train_ids)} train, {len(held_ids)} held out "
          f"({time.time() - t0:.0f} s)")

    model = Llama(a)
    nparams = sum(p.numel() for p in model.parameters())
    print(f"model: {nparams} parameters")
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.95),
                            weight_decay=0.1)
    gen = torch.Generator().manual_seed(a.seed)
    data = torch.tensor(train_ids, dtype=torch.long)
    span = a.ctx - 1
    warm = max(1, a.steps // 20)

    def batch():
        off = torch.randint(0, len(data) - span, (a.batch,), generator=gen)
        # Like the evaluation windows: BOS, then ctx-1 text tokens to predict
        # from; the targets are those tokens and the next one.
        y = torch.stack([data[o:o + span + 1] for o in off.tolist()])
        x = torch.cat([torch.full((a.batch, 1), bos), y[:, :-1]], dim=1)
        return x, y

    steps = a.measure or a.steps
    t_train = time.time()
    for step in range(steps):
        # Linear warm-up, then cosine decay to zero.
        if step < warm:
            lr = a.lr * (step + 1) / warm
        else:
            lr = a.lr * 0.5 * (1 + math.cos(math.pi * (step - warm) / (steps - warm)))
        for g in opt.param_groups:
            g["lr"] = lr
        x, y = batch()
        loss = F.cross_entropy(model(x).reshape(-1, a.vocab), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 25 == 0 or step == steps - 1:
            print(f"step {step} loss {loss.item():.4f} lr {lr:.2e} "
                  f"({time.time() - t_train:.0f} s)", flush=True)
    if a.measure:
        print(f"{(time.time() - t_train) / a.measure:.2f} s/step")
        return
    train_time = time.time() - t_train

    # Final losses of the model as shipped (F16 matrices).
    export_gguf(os.path.join(a.out, a.name + ".f32.gguf"), model, sp, a, GGML_F32)
    round_to_f16(model)
    sample = train_ids[:16384]
    train_loss = evaluate(model, sample, a.ctx, bos)
    held_loss = evaluate(model, held_ids, a.ctx, bos)
    export_gguf(os.path.join(a.out, a.name + ".gguf"), model, sp, a, GGML_F16)
    torch.save({"args": vars(a), "state": model.state_dict()},
               os.path.join(a.out, a.name + ".pt"))
    print(f"train time {train_time:.0f} s, total {time.time() - t0:.0f} s")
    print(f"final loss (F16 weights, ctx {a.ctx}): train {train_loss:.4f} "
          f"(ppl {math.exp(train_loss):.3f}, first {len(sample)} train tokens), "
          f"held-out {held_loss:.4f} (ppl {math.exp(held_loss):.3f}, "
          f"{len(held_ids)} tokens)")

    if not a.no_onnx:
        model.eval()
        try:
            torch.onnx.export(model, torch.zeros((1, a.ctx), dtype=torch.long),
                              os.path.join(a.out, a.name + ".onnx"),
                              input_names=["tokens"], output_names=["logits"],
                              opset_version=14)
            print("wrote ONNX")
        except Exception as e:  # the ONNX twin is optional
            print(f"ONNX export failed: {e}")


if __name__ == "__main__":
    main()
