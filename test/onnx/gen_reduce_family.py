#!/usr/bin/python3
"""Writes test/onnx/reduce-family/: small ONNX node tests for the paths of
Reduce.cpp and Resize.cpp that the ONNX 1.12 node tests (all opset 13/17) do
not reach -- older and newer opsets, integer types, cropping pads -- plus
test/onnx/reduce-family-errors/ whose models Kiln must reject with a clear
message. Expected outputs come from numpy (and, for Resize, ONNX's own
reference interpolation), never from Kiln.

Needs python3-onnx (Debian: python3-onnx); only run by hand when the cases
change -- the generated files are committed, so CI does not need it:
  /usr/bin/python3 test/onnx/gen_reduce_family.py
"""
import os
import shutil

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
from onnx.backend.test.case.node.resize import (interpolate_nd, linear_coeffs,
                                                nearest_coeffs)

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(6)


def write(suite, name, node, opset, inputs, outputs, initializers=()):
    """inputs/outputs: lists of (name, array); initializers: (name, array)
    baked into the model (so they are constants, like shape inputs)."""
    d = os.path.join(HERE, suite, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    vi = lambda n, a: helper.make_tensor_value_info(
        n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], a.shape)
    graph = helper.make_graph(
        [node], name, [vi(n, a) for n, a in inputs],
        [vi(n, a) for n, a in outputs],
        [numpy_helper.from_array(a, n) for n, a in initializers])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, os.path.join(d, "model.onnx"))
    for kind, vals in (("input", inputs), ("output", outputs)):
        for i, (n, a) in enumerate(vals):
            with open(os.path.join(d, "test_data_set_0",
                                   f"{kind}_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())


def softmax2d(x, axis, log=False):
    m = x.reshape(int(np.prod(x.shape[:axis])), -1).astype(np.float64)
    e = np.exp(m - m.max(axis=1, keepdims=True))
    s = e.sum(axis=1, keepdims=True)
    y = (m - m.max(axis=1, keepdims=True) - np.log(s)) if log else e / s
    return y.reshape(x.shape).astype(x.dtype)


def main():
    for suite in ("reduce-family", "reduce-family-errors"):
        shutil.rmtree(os.path.join(HERE, suite), ignore_errors=True)
    S = "reduce-family"
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)

    # Softmax/LogSoftmax before opset 13: coerced to 2-D at axis (default 1).
    write(S, "softmax_opset11_axis1", helper.make_node(
        "Softmax", ["x"], ["y"], axis=1), 11,
        [("x", x)], [("y", softmax2d(x, 1))])
    write(S, "logsoftmax_opset11_default_axis", helper.make_node(
        "LogSoftmax", ["x"], ["y"]), 11,
        [("x", x)], [("y", softmax2d(x, 1, log=True))])
    # Hardmax before 13, axis 0: one 1 over all 24 elements.
    hm = np.zeros(24, np.float32)
    hm[np.argmax(x.reshape(-1))] = 1
    write(S, "hardmax_opset11_axis0", helper.make_node(
        "Hardmax", ["x"], ["y"], axis=0), 11,
        [("x", x)], [("y", hm.reshape(x.shape))])

    # Reduce* with axes as an input (opset 18), noop_with_empty_axes.
    write(S, "reduce_mean_opset18_axes_input", helper.make_node(
        "ReduceMean", ["x", "axes"], ["y"], keepdims=0), 18,
        [("x", x)], [("y", x.mean(axis=(0, 2)).astype(np.float32))],
        [("axes", np.array([-1, 0], np.int64))])
    write(S, "reduce_max_opset18_noop_empty_axes", helper.make_node(
        "ReduceMax", ["x"], ["y"], noop_with_empty_axes=1), 18,
        [("x", x)], [("y", x)])
    write(S, "reduce_logsumexp_opset18_all", helper.make_node(
        "ReduceLogSumExp", ["x"], ["y"], keepdims=1), 18,
        [("x", x)],
        [("y", np.log(np.exp(x.astype(np.float64)).sum(
            keepdims=True)).astype(np.float32))])
    # Integer reductions: exact; innermost axis kept and reduced.
    xi = rng.integers(-50, 50, (3, 4, 5)).astype(np.int32)
    write(S, "reduce_sum_int32_axis0", helper.make_node(
        "ReduceSum", ["x", "axes"], ["y"], keepdims=0), 13,
        [("x", xi)], [("y", xi.sum(axis=0).astype(np.int32))],
        [("axes", np.array([0], np.int64))])
    write(S, "reduce_min_int64_axes_1_2", helper.make_node(
        "ReduceMin", ["x"], ["y"], axes=[1, 2]), 13,
        [("x", xi.astype(np.int64))],
        [("y", xi.astype(np.int64).min(axis=(1, 2), keepdims=True))])
    xu = rng.integers(0, 6, (4, 6)).astype(np.uint8)
    write(S, "reduce_prod_uint8_axis1", helper.make_node(
        "ReduceProd", ["x"], ["y"], axes=[1], keepdims=0), 13,
        [("x", xu[:, :3])], [("y", xu[:, :3].prod(axis=1).astype(np.uint8))])

    # ArgMin on int32 with ties, last index.
    xt = np.array([[3, 1, 1, 2], [0, 5, 0, 0]], np.int32)
    write(S, "argmin_int32_ties_select_last", helper.make_node(
        "ArgMin", ["x"], ["y"], axis=1, keepdims=0, select_last_index=1), 13,
        [("x", xt)], [("y", np.array([2, 3], np.int64))])

    # LayerNormalization without bias, axis 1 of 3-D, all three outputs.
    sc = rng.standard_normal((3, 4)).astype(np.float32)
    m = x.reshape(2, 12).astype(np.float64)
    mu = m.mean(axis=1, keepdims=True)
    inv = 1 / np.sqrt(((m - mu) ** 2).mean(axis=1, keepdims=True) + 1e-3)
    y = ((m - mu) * inv).reshape(x.shape) * sc
    write(S, "layernorm_axis1_no_bias_stats", helper.make_node(
        "LayerNormalization", ["x", "scale"], ["y", "mean", "invstd"],
        axis=1, epsilon=1e-3), 17,
        [("x", x), ("scale", sc)],
        [("y", y.astype(np.float32)),
         ("mean", mu.reshape(2, 1, 1).astype(np.float32)),
         ("invstd", inv.reshape(2, 1, 1).astype(np.float32))])

    # Pad: attribute form (Pad-2, opset 10) with a value, cropping reflect (opset
    # 13, negative pads), and the axes input (opset 18) in edge mode.
    xp = rng.standard_normal((2, 3)).astype(np.float32)
    write(S, "pad_opset10_attr_value", helper.make_node(
        "Pad", ["x"], ["y"], pads=[1, 0, 0, 2], value=2.5), 10,
        [("x", xp)],
        [("y", np.pad(xp, ((1, 0), (0, 2)), constant_values=2.5))])
    xr = rng.integers(-9, 9, (3, 5)).astype(np.int64)
    write(S, "pad_reflect_negative_int64", helper.make_node(
        "Pad", ["x", "pads"], ["y"], mode="reflect"), 13,
        [("x", xr)],
        [("y", np.pad(xr, ((2, 0), (0, 3)), mode="reflect")[:, 1:])],
        [("pads", np.array([2, -1, 0, 3], np.int64))])
    write(S, "pad_opset18_axes_edge", helper.make_node(
        "Pad", ["x", "pads", "", "axes"], ["y"], mode="edge"), 18,
        [("x", xp)], [("y", np.pad(xp, ((0, 0), (2, 1)), mode="edge"))],
        [("pads", np.array([2, 1], np.int64)),
         ("axes", np.array([-1], np.int64))])

    # Resize-10: scales only, asymmetric coordinates, nearest rounds down.
    xs = rng.standard_normal((1, 1, 2, 3)).astype(np.float32)
    write(S, "resize_opset10_nearest", helper.make_node(
        "Resize", ["x", "scales"], ["y"], mode="nearest"), 10,
        [("x", xs)], [("y", xs.repeat(2, axis=2).repeat(2, axis=3))],
        [("scales", np.array([1, 1, 2, 2], np.float32))])
    want = interpolate_nd(xs, linear_coeffs, scale_factors=np.array(
        [1, 1, 2, 1.5], np.float32), coordinate_transformation_mode="asymmetric")
    write(S, "resize_opset10_linear", helper.make_node(
        "Resize", ["x", "scales"], ["y"], mode="linear"), 10,
        [("x", xs)], [("y", want.astype(np.float32))],
        [("scales", np.array([1, 1, 2, 1.5], np.float32))])
    # Resize-18 with the axes attribute (sizes for the last two axes).
    xl = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    want = interpolate_nd(xl, linear_coeffs, output_size=[1, 2, 5, 3],
                          coordinate_transformation_mode="half_pixel")
    write(S, "resize_opset18_axes_sizes_linear", helper.make_node(
        "Resize", ["x", "", "", "sizes"], ["y"], mode="linear", axes=[2, 3]),
        18, [("x", xl)], [("y", want.astype(np.float32))],
        [("sizes", np.array([5, 3], np.int64))])
    # Nearest on uint8 (copied bytewise), align_corners + ceil.
    xb = rng.integers(0, 255, (1, 1, 3, 3)).astype(np.uint8)
    want = interpolate_nd(
        xb.astype(np.float64), lambda r: nearest_coeffs(r, mode="ceil"),
        output_size=[1, 1, 5, 4], coordinate_transformation_mode="align_corners")
    write(S, "resize_uint8_nearest_ceil_align_corners", helper.make_node(
        "Resize", ["x", "", "", "sizes"], ["y"], mode="nearest",
        nearest_mode="ceil", coordinate_transformation_mode="align_corners"),
        13, [("x", xb)], [("y", want.astype(np.uint8))],
        [("sizes", np.array([1, 1, 5, 4], np.int64))])

    # tf_crop_and_resize with a box reaching outside: extrapolation_value,
    # linear and nearest (the nearest path copies rows).
    xc = rng.standard_normal((1, 1, 4, 4)).astype(np.float32)
    roi = np.array([0, 0, 0.4, -0.25, 1, 1, 1.2, 0.9], np.float32)
    for mode, coeffs in (("linear", linear_coeffs), ("nearest", nearest_coeffs)):
        want = interpolate_nd(xc, coeffs, output_size=[1, 1, 3, 5], roi=roi,
                              coordinate_transformation_mode="tf_crop_and_resize",
                              extrapolation_value=10.0)
        write(S, f"resize_crop_extrapolate_{mode}", helper.make_node(
            "Resize", ["x", "roi", "", "sizes"], ["y"], mode=mode,
            coordinate_transformation_mode="tf_crop_and_resize",
            extrapolation_value=10.0), 13,
            [("x", xc)], [("y", want.astype(np.float32))],
            [("roi", roi), ("sizes", np.array([1, 1, 3, 5], np.int64))])

    # Rejected: each must fail with the message the ctest checks.
    E = "reduce-family-errors"
    write(E, "resize_keep_aspect_ratio_not_larger", helper.make_node(
        "Resize", ["x", "", "", "sizes"], ["y"], mode="nearest",
        keep_aspect_ratio_policy="not_larger"), 18,
        [("x", xs)], [("y", xs)], [("sizes", np.array([1, 1, 2, 3], np.int64))])
    write(E, "pad_wrap", helper.make_node(
        "Pad", ["x", "pads"], ["y"], mode="wrap"), 18,
        [("x", xp)], [("y", xp)], [("pads", np.zeros(4, np.int64))])


if __name__ == "__main__":
    main()
