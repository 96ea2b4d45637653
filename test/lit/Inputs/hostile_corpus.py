"""The hostile-input corpus: crafted GGUF, ONNX and tokenizer files run
through kilnc, kiln-run and kiln-tokenize, each of which must answer with
exit status 1 and one error naming the file and what is wrong (the exact
fragment below), leave no output behind, and do so under an address-space
limit and a time limit: no crash, no hang, no allocation the file does not
justify, no partial library.

  hostile_corpus.py DIR           build the corpus in DIR and check every case
  hostile_corpus.py DIR --print   print what each case produces instead

The tools come from PATH (lit puts the build's bin directory first). The
files are made here, from a tiny kiln-fixture model and the ONNX text form,
so the corpus is the script: each case says how its file is broken.
"""
import os
import resource
import struct
import subprocess
import sys

LIMIT_BYTES = 4 << 30   # address space of each run (RLIMIT_AS)
LIMIT_SECONDS = 60


# --- GGUF -------------------------------------------------------------------
# Value types of GGUF metadata and their fixed sizes (string = 8, array = 9).
SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}


class Layout:
    """Byte offsets of the fields of a GGUF v3 file the cases break."""

    def __init__(self, data):
        self.data = data
        self.n_tensors_at, self.n_kv_at = 8, 16
        n_tensors, n_kv = struct.unpack_from("<QQ", data, 8)
        p = 24
        self.keys = {}  # key -> (offset of its length, offset of its type)
        for _ in range(n_kv):
            key_at = p
            (n,) = struct.unpack_from("<Q", data, p)
            key = data[p + 8:p + 8 + n].decode()
            p += 8 + n
            self.keys[key] = (key_at, p)
            (t,) = struct.unpack_from("<I", data, p)
            p = self.skip(p + 4, t)
        self.tensors = []  # (name, offset of n_dims, offset of the data offset)
        for _ in range(n_tensors):
            (n,) = struct.unpack_from("<Q", data, p)
            name = data[p + 8:p + 8 + n].decode()
            p += 8 + n
            (dims,) = struct.unpack_from("<I", data, p)
            self.tensors.append((name, p, p + 4 + 8 * dims + 4))
            p += 4 + 8 * dims + 4 + 8
        self.infos_end = p
        # general.alignment is absent in kiln-fixture's files: GGUF's 32.
        self.data_start = (p + 31) // 32 * 32

    def tensor_data(self, name):
        """The absolute offset of a tensor's data."""
        for n, _, off_at in self.tensors:
            if n == name:
                return self.data_start + struct.unpack_from("<Q", self.data, off_at)[0]
        raise KeyError(name)

    def skip(self, p, t):
        if t == 8:
            (n,) = struct.unpack_from("<Q", self.data, p)
            return p + 8 + n
        if t == 9:
            et, n = struct.unpack_from("<IQ", self.data, p)
            p += 12
            if et in SIZES:
                return p + n * SIZES[et]
            for _ in range(n):
                p = self.skip(p, et)
            return p
        return p + SIZES[t]


def patched(data, at, fmt, value):
    out = bytearray(data)
    struct.pack_into(fmt, out, at, value)
    return bytes(out)


def gguf_cases(base):
    L = Layout(base)
    name0, dims0_at, off0_at = L.tensors[0]
    t0 = "tensor '%s'" % name0
    arch_key_at, arch_type_at = L.keys["general.architecture"]
    vocab_type_at = L.keys["tokenizer.ggml.tokens"][1]
    return [
        ("gguf-truncated-header", base[:20],
         "at byte offset 16: unexpected end of file while reading metadata "
         "key/value count (need 8 bytes, 4 available)"),
        ("gguf-bad-magic", b"GGUX" + base[4:],
         'at byte offset 0: expected magic "GGUF", found "GGUX"'),
        ("gguf-version-99", patched(base, 4, "<I", 99),
         "at byte offset 4: unsupported GGUF version 99 (supported versions: 2, 3)"),
        # Entries are read one by one: the first read past the real ones fails.
        ("gguf-tensor-count-2^62", patched(base, L.n_tensors_at, "<Q", 1 << 62),
         "at byte offset %d: tensor '' has 0 dimensions (expected 1 to 4)" %
         (L.infos_end + 8)),
        # (the tensor infos after the real keys read as keys and values
        # until a length cannot be)
        ("gguf-kv-count-2^62", patched(base, L.n_kv_at, "<Q", 1 << 62),
         ("metadata key #", "bytes remaining in the file")),
        ("gguf-key-length-2^63", patched(base, arch_key_at, "<Q", 1 << 63),
         "at byte offset %d: metadata key #0 length 9223372036854775808 "
         "exceeds the" % arch_key_at),
        ("gguf-value-type-99", patched(base, arch_type_at, "<I", 99),
         "at byte offset %d: unknown metadata value type 99 for key "
         "'general.architecture' (expected 0..12)" % arch_type_at),
        ("gguf-array-length-2^61",
         patched(base, vocab_type_at + 8, "<Q", 1 << 61),
         "array count 2305843009213693952 for metadata key "
         "'tokenizer.ggml.tokens' exceeds the"),
        ("gguf-tensor-dims-5", patched(base, dims0_at, "<I", 5),
         "at byte offset %d: %s has 5 dimensions (expected 1 to 4)" %
         (dims0_at, t0)),
        ("gguf-tensor-dim-2^62", patched(base, dims0_at + 4, "<Q", 1 << 62),
         "%s element count overflows 64 bits at dimension 1" % t0),
        ("gguf-tensor-offset-past-end", patched(base, off0_at, "<Q", 1 << 40),
         "at byte offset %d: %s data offset 1099511627776" % (off0_at, t0)),
        ("gguf-tensor-data-truncated", base[:L.infos_end + 64],
         "unexpected end of file in the data of %s" % t0),
    ]


def vocab_cases(base):
    """Vocabularies the model compiles with (kilnc and kiln-run take token
    ids) but the tokenizer must refuse."""
    byte_token = base.index(b"<0x0A>")
    bos = Layout(base).keys["tokenizer.ggml.bos_token_id"][1]
    return [
        ("vocab-byte-token-<0x-1>",
         base[:byte_token] + b"<0x-1>" + base[byte_token + 6:],
         "byte token 13 '<0x-1>' is not of the form <0xNN>"),
        ("vocab-bos-id-out-of-range", patched(base, bos + 4, "<I", 999999),
         "tokenizer.ggml.bos_token_id"),
    ]


def model_cases(base):
    """Hyperparameters the reader accepts but the importer must refuse
    before it walks or allocates by them."""
    L = Layout(base)
    cases = []
    for key, value, want in [
            ("llama.block_count", 1 << 31,
             "key 'llama.block_count' is 2147483648 but the file has only"),
            ("llama.feed_forward_length", 1 << 31,
             "tensor 'blk.0.ffn_gate.weight' has shape"),
            ("llama.attention.head_count", 1 << 31, "attention.head_count")]:
        type_at = L.keys[key][1]
        (t,) = struct.unpack_from("<I", base, type_at)
        fmt = {4: "<I", 10: "<Q"}[t]
        cases.append(("gguf-%s-2^31" % key.split(".", 1)[1].replace(".", "-"),
                      patched(base, type_at + 4, fmt, value), want))
    return cases


def weight_cases(f32, q4_0, q4_k):
    """Weights and block scales that are infinite or NaN (a damaged file, or
    a hostile one): every output they reach would be NaN or infinite."""
    def at(data, name, byte):
        return Layout(data).tensor_data(name) + byte
    refused = ": a non-finite weight makes the outputs it reaches NaN or infinite"
    return [
        ("gguf-weight-nan",
         patched(f32, at(f32, "blk.0.attn_norm.weight", 12), "<I", 0x7fc00000),
         ("tensor 'blk.0.attn_norm.weight' (f32) element 3 (row 0, column 3) "
          "is NaN" + refused)),
        # Q4_0 blocks are 18 bytes, d first; K = 64 is two blocks a row.
        ("gguf-scale-inf",
         patched(q4_0, at(q4_0, "blk.0.attn_q.weight", 3 * 18), "<H", 0x7c00),
         ("tensor 'blk.0.attn_q.weight' (q4_0) block 3 (row 1, columns "
          "32..63) has d = inf" + refused)),
        # Q4_K super-blocks are 144 bytes: d, then dmin.
        ("gguf-dmin-nan",
         patched(q4_k, at(q4_k, "blk.0.ffn_down.weight", 144 + 2), "<H", 0xfe00),
         ("tensor 'blk.0.ffn_down.weight' (q4_k) block 1 (row 1, columns "
          "0..255) has dmin = NaN" + refused)),
    ]


# --- ONNX -------------------------------------------------------------------
ONNX_TEXT = {
    "onnx-constantofshape-2^50": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[1] x) => (float[1] y) {
  s = Constant <value = int64[3] {1048576, 1048576, 1024}> ()
  big = ConstantOfShape (s)
  y = Identity (x)
}""", "would take more than 2^40 bytes"),
    "onnx-range-2^40": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[1] x) => (int64[N] r) {
  a = Constant <value = int64 {0}> ()
  b = Constant <value = int64 {1099511627776}> ()
  d = Constant <value = int64 {1}> ()
  r = Range (a, b, d)
}""", "would take more than 2^40 bytes"),
    "onnx-tile-2^62": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,4] x) => (float[N,M] y) {
  r = Constant <value = int64[2] {1073741824, 1073741824}> ()
  y = Tile (x, r)
}""", "would take more than 2^40 bytes"),
    "onnx-input-2^70": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[1099511627776,1073741824] x) => (float[1099511627776,1073741824] y) {
  y = Relu (x)
}""", "graph input 'x'"),
    "onnx-reshape-wrap": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,2] x) => (float[N,M] y) {
  s = Constant <value = int64[2] {4611686018427387904, 4}> ()
  y = Reshape (x, s)
}""", "Reshape"),
    "onnx-conv-pads-2^62": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,1,4,4] x, float[1,1,2,2] w) => (float[A,B,C,D] y) {
  y = Conv <pads = [4611686018427387904, 0, 4611686018427387904, 0]> (x, w)
}""", "overflows 64-bit sizes"),
    "onnx-maxpool-kernel-2^63": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,1,4,4] x) => (float[A,B,C,D] y) {
  y = MaxPool <kernel_shape = [9223372036854775807, 2], dilations = [2, 1]> (x)
}""", "overflows 64-bit sizes"),
    "onnx-convtranspose-strides-2^62": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,1,4,4] x, float[1,1,2,2] w) => (float[A,B,C,D] y) {
  y = ConvTranspose <strides = [4611686018427387904, 1]> (x, w)
}""", "overflows 64-bit sizes"),
    "onnx-depthtospace-2^62": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,4,2,2] x) => (float[A,B,C,D] y) {
  y = DepthToSpace <blocksize = 4611686018427387904> (x)
}""", "blocksize 4611686018427387904 overflows 64-bit sizes"),
    "onnx-pad-crop-2^63": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,2] x) => (float[N,M] y) {
  p = Constant <value = int64[4] {-9223372036854775807, 0, -9223372036854775807, 0}> ()
  y = Pad (x, p)
}""", "overflow 64-bit sizes"),
    "onnx-resize-scale-1e30": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,1,4,4] x) => (float[A,B,C,D] y) {
  r = Constant <value = float[0] {}> ()
  s = Constant <value = float[4] {1.0, 1.0, 1e30, 1.0}> ()
  y = Resize (x, r, s)
}""", "makes axis 2 longer than 2^40 elements"),
    "onnx-resize-sizes-2^55": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,1,4,4] x) => (float[A,B,C,D] y) {
  r = Constant <value = float[0] {}> ()
  s = Constant <value = float[0] {}> ()
  z = Constant <value = int64[4] {1, 1, 36028797018963968, 4}> ()
  y = Resize (x, r, s, z)
}""", "would take more than 2^40 bytes"),
    "onnx-resize-taps-2^23": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,1,4,4] x) => (float[A,B,C,D] y) {
  r = Constant <value = float[0] {}> ()
  s = Constant <value = float[0] {}> ()
  z = Constant <value = int64[4] {1, 1, 4, 8388608}> ()
  y = Resize <mode = "linear"> (x, r, s, z)
}""", "resizing axis 3 to 8388608 positions needs 2 taps each"),
    "onnx-split-sizes-2^63": ("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[4,4] x) => (float[A,B] y, float[C,D] z) {
  s = Constant <value = int64[2] {9223372036854775807, 9223372036854775807}> ()
  y, z = Split (x, s)
}""", "do not add up to 4"),
    # An attribute of the wrong type would read as absent, its default
    # compiling other math than the model says.
    "onnx-attribute-float-axis": ("""
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  y = Softmax <axis = 0.0> (x)
}""", "attribute axis is FLOAT, the operator takes INT"),
    "onnx-attribute-int-alpha": ("""
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] a, float[3,2] b) => (float[2,2] y) {
  y = Gemm <alpha = 2> (a, b)
}""", "attribute alpha is INT, the operator takes FLOAT"),
    # An attribute the converter does not read: it might change the result.
    "onnx-attribute-unknown": ("""
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  y = Softmax <axis = 0, temperature = 2.0> (x)
}""", "attribute temperature is not one Kiln implements for Softmax"),
    "onnx-unsupported-op": ("""
<ir_version: 8, opset_import: ["" : 17]>
g (float[16] x) => (float[16] y) {
  y = HannWindow (x)
}""", "HannWindow"),
}


def onnx_cases():
    import onnx
    import onnx.parser
    cases = []
    for name, (text, want) in ONNX_TEXT.items():
        cases.append((name, onnx.parser.parse_model(text).SerializeToString(), want))
    cases.append(("onnx-not-protobuf", b"\xff\xff\xff\xff not a model", "parse"))
    # An initializer whose external data lies outside the model's directory.
    from onnx import TensorProto, helper
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[3, 2])
    w.data_location = TensorProto.EXTERNAL
    w.external_data.add(key="location", value="../../../../etc/passwd")
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    cases.append(("onnx-external-data-escapes", model.SerializeToString(),
                  "etc/passwd"))
    # External data whose offset or length is not a number, does not fit in
    # 64 bits, overflows when added, or is negative; and a location that is
    # a directory (it opens, and reads as nothing). w.bin and w.dir are made
    # beside the models by main().
    for name, keys, want in [
            ("not-a-number", {"offset": "abc"}, "offset 'abc'"),
            ("too-large", {"offset": "99999999999999999999"}, "offset"),
            ("overflows", {"offset": "9223372036854775800", "length": "100"},
             "lies outside"),
            ("negative-length", {"length": "-5"}, "length '-5'"),
            ("directory", {"location": "w.dir"}, "not a regular file")]:
        w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[3, 2])
        w.data_location = TensorProto.EXTERNAL
        keys = {"location": "w.bin", **keys}
        for k, v in keys.items():
            w.external_data.add(key=k, value=v)
        graph = helper.make_graph(
            [helper.make_node("Add", ["x", "w"], ["y"], name="add")], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])], [w])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        cases.append(("onnx-external-data-" + name, model.SerializeToString(), want))
    return cases


# --- running ----------------------------------------------------------------
def limits():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def commands(path, out, kind):
    """The tools a file goes through: a broken GGUF through all three, a
    broken vocabulary through the tokenizer, broken hyperparameters through
    the compiler and the runner, an ONNX model through kilnc."""
    compile_ = ["kilnc", path, "--target=generic", "-o", out, "-q"]
    run = ["kiln-run", path, "--target=generic", "--tokens=1,2", "--generate=2"]
    tokenize = ["kiln-tokenize", path, "--encode=hello"]
    return {"gguf": [compile_, run, tokenize], "vocab": [tokenize],
            "model": [compile_, run], "onnx": [compile_]}[kind]


def main():
    root = sys.argv[1]
    show = "--print" in sys.argv
    os.makedirs(root, exist_ok=True)
    base = os.path.join(root, "base.gguf")
    subprocess.run(["kiln-fixture", "-o", base, "--layers=1"], check=True)
    with open(base, "rb") as f:
        data = f.read()
    cases = [(n, d, w, "gguf") for n, d, w in gguf_cases(data)]
    cases += [(n, d, w, "vocab") for n, d, w in vocab_cases(data)]
    cases += [(n, d, w, "model") for n, d, w in model_cases(data)]
    quant = []
    for extra in (["--type=q4_0"], ["--type=q4_k", "--width=256", "--ffn=256"]):
        path = os.path.join(root, "base-%s.gguf" % extra[0][7:])
        subprocess.run(["kiln-fixture", "-o", path, "--layers=1"] + extra,
                       check=True)
        with open(path, "rb") as f:
            quant.append(f.read())
    cases += [(n, d, w, "model") for n, d, w in weight_cases(data, *quant)]
    cases += [(n, d, w, "onnx") for n, d, w in onnx_cases()]
    with open(os.path.join(root, "w.bin"), "wb") as f:
        f.write(bytes(24))
    os.makedirs(os.path.join(root, "w.dir"), exist_ok=True)
    failures = 0
    for name, data, want, kind in cases:
        path = os.path.join(root, name + (".onnx" if kind == "onnx" else ".gguf"))
        with open(path, "wb") as f:
            f.write(data)
        for cmd in commands(path, os.path.join(root, name + ".out"), kind):
            tool = cmd[0]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True,
                                   errors="replace", preexec_fn=limits,
                                   timeout=LIMIT_SECONDS)
                rc, out, err = r.returncode, r.stdout.strip(), r.stderr.strip()
            except subprocess.TimeoutExpired:
                rc, out, err = "a timeout", "", ""
            left = [p for p in os.listdir(root) if p.startswith(name + ".out")]
            problems = []
            if rc != 1:
                problems.append("exit status %s (want 1)" % rc)
            if not err.startswith(tool + ": error: ") or path not in err:
                problems.append("no '%s: error: ' naming the file" % tool)
            for w in (want,) if isinstance(want, str) else want:
                if w not in err:
                    problems.append("no '%s' in the message" % w)
            if err.count(tool + ": error: ") != 1:
                problems.append("not exactly one error")
            if out:
                problems.append("output on stdout")
            if left:
                problems.append("left behind: %s" % ", ".join(left))
            if show:
                print("%-32s %-13s %s" % (name, tool, err.replace(root + "/", "")))
            elif problems:
                failures += 1
                print("FAIL %s %s: %s\n  %s" % (name, tool, "; ".join(problems), err))
            else:
                print("ok   %s %s" % (name, tool))
    print("%d of the corpus's runs failed" % failures)
    sys.exit(1 if failures else 0)


main()
