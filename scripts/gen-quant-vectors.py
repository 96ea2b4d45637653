#!/usr/bin/env python3
"""Writes test/unit/Inputs/quant-vectors.bin: QuantTest's golden vectors for
every GGML type Kiln reads, taken from llama.cpp itself.

    /usr/bin/python3 scripts/gen-quant-vectors.py GGUF_PY_DIR LIBGGML_BASE_SO

GGUF_PY_DIR is llama.cpp's gguf-py (in the git bundle of node-llama-cpp's npm
package), LIBGGML_BASE_SO the libggml-base.so of a llama.cpp build (e.g.
node-llama-cpp's prebuilt binaries). Neither is needed to run the tests.

Two kinds of records, for each type:
  D  raw blocks -> f32: random bytes whose fp16 scale fields are random
     finite halves (subnormals and +-65504 included); the expected values
     are gguf-py's dequantization, checked here against ggml's own
     (to_float of ggml_get_type_traits) bit for bit.
  Q  f32 -> blocks: random rows at several magnitudes plus all-zero,
     constant, single-spike and tiny rows; the expected bytes are
     ggml_quantize_chunk's without an importance matrix (what llama-quantize
     writes), checked against gguf-py's quantizer where it has one.

Record: u8 kind, u32 type id, u32 element count n, then for D the blocks
followed by n f32, for Q n f32 followed by the blocks (little-endian).
"""
import ctypes
import struct
import sys

import numpy as np

TYPES = {  # id: (name, block elements, block bytes, fp16 field offsets)
    0: ('F32', 1, 4, []),
    1: ('F16', 1, 2, [0]),
    2: ('Q4_0', 32, 18, [0]),
    3: ('Q4_1', 32, 20, [0, 2]),
    6: ('Q5_0', 32, 22, [0]),
    7: ('Q5_1', 32, 24, [0, 2]),
    8: ('Q8_0', 32, 34, [0]),
    10: ('Q2_K', 256, 84, [80, 82]),
    11: ('Q3_K', 256, 110, [108]),
    12: ('Q4_K', 256, 144, [0, 2]),
    13: ('Q5_K', 256, 176, [0, 2]),
    14: ('Q6_K', 256, 210, [208]),
    20: ('IQ4_NL', 32, 18, [0]),
    23: ('IQ4_XS', 256, 136, [0]),
    30: ('BF16', 1, 2, []),
}
ELEMENTS = 512  # per record


class TypeTraits(ctypes.Structure):
    _fields_ = [('type_name', ctypes.c_char_p), ('blck_size', ctypes.c_int64),
                ('blck_size_interleave', ctypes.c_int64),
                ('type_size', ctypes.c_size_t), ('is_quantized', ctypes.c_bool),
                ('to_float', ctypes.c_void_p), ('from_float_ref', ctypes.c_void_p)]


def finite_halves(rng, n):
    h = rng.integers(0, 1 << 16, n, dtype=np.uint16)
    bad = (h & 0x7c00) == 0x7c00  # inf / nan
    h[bad] &= 0xfbff
    extremes = np.array([0x7bff, 0xfbff, 0x0001, 0x8001, 0x0000, 0x3c00],
                        dtype=np.uint16)
    h[:len(extremes)] = extremes[:n]
    return h


def raw_blocks(rng, tid):
    _, bs, bb, halves = TYPES[tid]
    nb = ELEMENTS // bs
    raw = rng.integers(0, 256, (nb, bb), dtype=np.uint8)
    if tid == 0:  # f32: random finite floats
        f = rng.standard_normal(nb).astype(np.float32) * np.float32(1e3)
        return f.view(np.uint8).reshape(nb, bb)
    if tid == 30:  # bf16: any value but nan
        b = raw.view(np.uint16).ravel()
        b[(b & 0x7f80) == 0x7f80] &= 0xff7f
        return b.view(np.uint8).reshape(nb, bb)
    for off in halves:
        h = finite_halves(rng, nb)
        raw[:, off] = h & 0xff
        raw[:, off + 1] = h >> 8
    return raw


def float_rows(rng, tid):
    _, bs, _, _ = TYPES[tid]
    rows = []
    for scale in (1.0, 1e-3, 1e4):
        rows.append(rng.standard_normal(ELEMENTS).astype(np.float32) * np.float32(scale))
    special = np.zeros(ELEMENTS, dtype=np.float32)
    quarter = ELEMENTS // 4
    special[quarter:2 * quarter] = 0.75                  # constant blocks
    special[2 * quarter + 5] = 12.0                      # one spike
    special[3 * quarter:] = rng.standard_normal(quarter) * np.float32(1e-20)
    rows.append(special)
    # outliers: mostly small values with a few large ones per block
    o = rng.standard_normal(ELEMENTS).astype(np.float32) * np.float32(0.01)
    o[::max(bs, 32) // 2] = np.float32(5.0)
    rows.append(o)
    return rows


def main():
    sys.path.insert(0, sys.argv[1])
    import gguf  # noqa: E402
    from gguf import quants  # noqa: E402
    ggml = ctypes.CDLL(sys.argv[2])
    ggml.ggml_get_type_traits.restype = ctypes.POINTER(TypeTraits)
    ggml.ggml_quantize_chunk.restype = ctypes.c_size_t
    ggml.ggml_quantize_chunk.argtypes = [
        ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
        ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
    to_float_t = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
    rng = np.random.default_rng(20261201)
    out = bytearray()
    for tid, (name, bs, bb, _) in TYPES.items():
        qt = gguf.GGMLQuantizationType[name]
        traits = ggml.ggml_get_type_traits(tid).contents
        assert traits.type_size == bb and traits.blck_size == bs, name
        for _ in range(2):
            raw = raw_blocks(rng, tid)
            ref = quants.dequantize(raw.ravel(), qt).astype(np.float32).ravel()
            c = raw.view(np.float32).ravel() if tid == 0 else \
                np.zeros(ELEMENTS, dtype=np.float32)
            if tid != 0:
                to_float_t(traits.to_float)(raw.ctypes.data, c.ctypes.data, ELEMENTS)
            if ref.view(np.uint32).tolist() != c.view(np.uint32).tolist():
                sys.exit(f'{name}: gguf-py and ggml dequantize differently')
            out += struct.pack('<BII', ord('D'), tid, ELEMENTS)
            out += raw.tobytes() + ref.tobytes()
        rows = float_rows(rng, tid)
        for row in rows if bs > 1 else rows[:2]:
            dst = np.zeros(ELEMENTS // bs * bb, dtype=np.uint8)
            n = ggml.ggml_quantize_chunk(tid, row.ctypes.data, dst.ctypes.data,
                                         0, 1, ELEMENTS, None)
            assert n == dst.size, name
            try:
                py = quants.quantize(row, qt).view(np.uint8).ravel()
                if py.tolist() != dst.tolist():
                    sys.exit(f'{name}: gguf-py and ggml quantize differently')
            except NotImplementedError:
                pass
            out += struct.pack('<BII', ord('Q'), tid, ELEMENTS)
            out += row.tobytes() + dst.tobytes()
    path = 'test/unit/Inputs/quant-vectors.bin'
    with open(path, 'wb') as f:
        f.write(out)
    print(f'{path}: {len(out)} bytes')


if __name__ == '__main__':
    main()
