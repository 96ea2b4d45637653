"""Writes ONNX models for lit tests.

  onnx_model.py text TEST_FILE OUT.onnx   the ONNX text form in TEST_FILE (lines
                                          not starting with '#') as a model
  onnx_model.py text-weights TEST_FILE OUT.onnx SEED NAME...
                                          the same, with the graph inputs NAME...
                                          turned into initializers of normal
                                          values / 4 (weights too large to
                                          write out)
  onnx_model.py external OUT.onnx         an Add whose constant operand lives in an
                                          external data file OUT.onnx.data
  onnx_model.py bad-size OUT.onnx         an initializer with 20 bytes of raw
                                          data for a float[2,3] shape
  onnx_model.py input-initializer OUT.onnx  a graph input that is also an
                                          initializer
  onnx_model.py garbage OUT.onnx          bytes that are not a protobuf
  onnx_model.py tensor OUT.pb TYPE DIMS FILL
                                          a TensorProto: TYPE float|int64|...,
                                          DIMS like 2,3,4, FILL arange | ones |
                                          normal:SEED (standard normal values
                                          from numpy's generator) | a
                                          comma-separated list of values
  onnx_model.py close DIR DIR TOL         every .pb tensor of the first directory
                                          is in the second, same shape, each
                                          element within TOL x the largest
                                          |value| of the first; exits 1 naming
                                          the first that is not
"""
import sys

import numpy as np
import onnx
import onnx.parser
from onnx import helper, numpy_helper, TensorProto


def text(src, out):
    with open(src) as f:
        body = "".join(l for l in f if not l.lstrip().startswith("#"))
    onnx.save(onnx.parser.parse_model(body), out)


def text_weights(src, out, seed, names):
    with open(src) as f:
        body = "".join(l for l in f if not l.lstrip().startswith("#"))
    model = onnx.parser.parse_model(body)
    rng = np.random.default_rng(seed)
    graph = model.graph
    for name in names:
        vi = next(i for i in graph.input if i.name == name)
        shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        values = (rng.standard_normal(shape) / 4).astype(np.float32)
        graph.initializer.append(numpy_helper.from_array(values, name))
        graph.input.remove(vi)
    onnx.save(model, out)


def add_graph(weight):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    graph = helper.make_graph([node], "g", [x], [y], [weight])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def external(out):
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(3, 2), "w")
    model = add_graph(w)
    name = out.split("/")[-1] + ".data"
    onnx.save(model, out, save_as_external_data=True, all_tensors_to_one_file=True,
              location=name, size_threshold=0)


def bad_size(out):
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[3, 2],
                    raw_data=b"\0" * 20)
    onnx.save(add_graph(w), out)


def input_initializer(out):
    """y = x + b where b is both a graph input and an initializer (a
    constant with a default value, as exporters of IR version < 4 wrote)."""
    b = numpy_helper.from_array(np.array([1, 2, 3], dtype=np.float32), "b")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    bi = helper.make_tensor_value_info("b", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    node = helper.make_node("Add", ["x", "b"], ["y"], name="add")
    graph = helper.make_graph([node], "g", [x, bi], [y], [b])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), out)


def garbage(out):
    with open(out, "wb") as f:
        f.write(b"\xff\xff\xff\xff this is not an ONNX model")


def tensor(out, dtype, dims, fill):
    shape = [int(d) for d in dims.split(",") if d]
    n = int(np.prod(shape)) if shape else 1
    if fill == "arange":
        values = np.arange(n)
    elif fill == "ones":
        values = np.ones(n)
    elif fill.startswith("normal:"):
        values = np.random.default_rng(int(fill[7:])).standard_normal(n)
    else:
        values = np.array([float(v) for v in fill.split(",")])
    dtype = {"float": "float32", "double": "float64"}.get(dtype, dtype)
    array = values.astype(np.dtype(dtype)).reshape(shape)
    onnx.save_tensor(numpy_helper.from_array(array), out)


def close(want_dir, got_dir, tol):
    import os
    names = sorted(n for n in os.listdir(want_dir) if n.endswith(".pb"))
    if not names:
        sys.exit("no outputs in " + want_dir)
    for name in names:
        want = numpy_helper.to_array(onnx.load_tensor(os.path.join(want_dir, name)))
        got = numpy_helper.to_array(onnx.load_tensor(os.path.join(got_dir, name)))
        if want.shape != got.shape:
            sys.exit("%s: shape %s against %s" % (name, got.shape, want.shape))
        scale = float(np.max(np.abs(want))) if want.size else 0.0
        err = float(np.max(np.abs(got.astype(np.float64) - want))) if want.size else 0.0
        if not err <= tol * scale:
            sys.exit("%s: largest difference %g, more than %g x %g" %
                     (name, err, tol, scale))
    print("%d outputs within %g" % (len(names), tol))


if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "text":
        text(sys.argv[2], sys.argv[3])
    elif kind == "text-weights":
        text_weights(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:])
    elif kind == "external":
        external(sys.argv[2])
    elif kind == "bad-size":
        bad_size(sys.argv[2])
    elif kind == "tensor":
        tensor(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif kind == "input-initializer":
        input_initializer(sys.argv[2])
    elif kind == "close":
        close(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    elif kind == "garbage":
        garbage(sys.argv[2])
    else:
        sys.exit("unknown kind " + kind)
