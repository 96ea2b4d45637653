#!/usr/bin/env python3
"""onnx-chain.py N OUT.onnx - a chain of N Relu nodes over a float[1,8] input,
for measuring how compile time grows with the number of nodes
(docs/reliability.md, "Scale"). Needs Debian's python3-onnx."""
import sys

from onnx import TensorProto, helper, save

n, out = int(sys.argv[1]), sys.argv[2]
nodes, prev = [], "x"
for i in range(n):
    name = "y" if i == n - 1 else f"t{i}"
    nodes.append(helper.make_node("Relu", [prev], [name], name=f"r{i}"))
    prev = name
io = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 8])
graph = helper.make_graph(nodes, "chain", [io("x")], [io("y")])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), out)
