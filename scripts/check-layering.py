#!/usr/bin/env python3
"""check-layering.py - dependencies between the compiler's rooms point one way.

    scripts/check-layering.py [ROOT]

Reads every #include "..." of the C and C++ sources under ROOT/compiler and
ROOT/kernels, and every target_link_libraries() of their CMakeLists.txt, maps
both ends to a room (compiler/<stage> or kernels) and checks each edge against
the rules below (docs/design: frontend never includes targets or codegen;
targets and codegen never include a frontend; passes never include targets;
the weight store sits below both frontend and codegen).
Prints the room-to-room edges, then each edge that breaks a rule with the
file and line; exits 1 if there is one.
"""
import os
import re
import sys

# What each room may depend on besides itself. Rooms not listed (tools/,
# test/) are not checked.
ALLOWED = {
    "kernels": set(),
    "compiler/support": {"kernels"},
    "compiler/dialect": set(),
    "compiler/weights": {"compiler/dialect", "compiler/support"},
    "compiler/frontend": {"compiler/dialect", "compiler/support",
                          "compiler/weights", "kernels"},
    "compiler/passes": {"compiler/dialect", "compiler/support", "kernels"},
    "compiler/targets": {"compiler/dialect", "compiler/support", "kernels"},
    "compiler/codegen": {"compiler/dialect", "compiler/support", "kernels",
                         "compiler/weights", "compiler/targets"},
    "compiler/reference": {"compiler/dialect", "compiler/support", "kernels",
                           "compiler/weights"},
    "compiler/analysis": {"compiler/dialect", "compiler/support", "kernels",
                          "compiler/targets", "compiler/codegen"},
    "compiler/driver": {"compiler/dialect", "compiler/support", "kernels",
                        "compiler/weights", "compiler/frontend",
                        "compiler/passes", "compiler/targets",
                        "compiler/codegen", "compiler/analysis"},
}

# Edges that break a rule today, each with why it is still there. A listed
# edge that no longer exists is reported too, so the list cannot go stale.
KNOWN = {}

# CMake libraries and the room that builds them.
LIBRARIES = {
    "KilnKernelSources": "kernels", "KilnTensorKernels": "kernels",
    "KilnHalidePipelines": "kernels",
    "KilnQuant": "compiler/support", "KilnSupport": "compiler/support",
    "KilnHostKernels": "compiler/support", "KilnTensorPlans": "compiler/support",
    "KilnDialect": "compiler/dialect", "KilnWeights": "compiler/weights",
    "KilnFrontend": "compiler/frontend", "KilnGGUF": "compiler/frontend",
    "KilnOnnx": "compiler/frontend", "KilnOnnxProto": "compiler/frontend",
    "KilnPasses": "compiler/passes", "KilnMemoryPlanner": "compiler/passes",
    "KilnTargets": "compiler/targets", "KilnCodegen": "compiler/codegen",
    "KilnReference": "compiler/reference", "KilnAnalysis": "compiler/analysis",
    "KilnDriver": "compiler/driver",
}


def room(path):
    parts = path.split("/")
    if parts[0] == "kernels":
        return "kernels"
    if parts[0] == "compiler" and len(parts) > 2:
        return "compiler/" + parts[1]
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    edges = {}   # (from room, to room) -> count
    broken = []  # messages
    seen_known = set()

    def check(src_room, target, where, what):
        dst_room = room(target) if "/" in target else LIBRARIES.get(target)
        if not dst_room or dst_room == src_room:
            return
        edges[(src_room, dst_room)] = edges.get((src_room, dst_room), 0) + 1
        if dst_room in ALLOWED.get(src_room, {dst_room}):
            return
        if (src_room, target) in KNOWN:
            seen_known.add((src_room, target))
            return
        broken.append(f"{where}: {src_room} -> {dst_room} ({what})")

    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    link = re.compile(r"target_link_libraries\(\s*(\S+)([^)]*)\)", re.S)
    for top in ("compiler", "kernels"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                src_room = room(rel)
                if src_room not in ALLOWED:
                    continue
                if name.endswith((".c", ".cpp", ".h", ".def", ".inc")):
                    with open(path, errors="replace") as f:
                        for n, line in enumerate(f, 1):
                            m = include.match(line)
                            if m:
                                check(src_room, m.group(1), f"{rel}:{n}",
                                      f'#include "{m.group(1)}"')
                elif name == "CMakeLists.txt":
                    with open(path) as f:
                        text = f.read()
                    for m in link.finditer(text):
                        n = text.count("\n", 0, m.start()) + 1
                        for lib in m.group(2).split():
                            if lib in LIBRARIES:
                                check(src_room, lib, f"{rel}:{n}",
                                      f"{m.group(1)} links {lib}")

    for (a, b), n in sorted(edges.items()):
        print(f"{a} -> {b}: {n}")
    for key, why in sorted(KNOWN.items()):
        if key in seen_known:
            print(f"known exception: {key[0]} -> {key[1]}: {why}")
        else:
            broken.append(f"known exception {key[0]} -> {key[1]} no longer "
                          "exists: remove it from KNOWN in check-layering.py")
    for b in broken:
        print(f"check-layering: error: {b}")
    print(f"check-layering: {len(broken)} edge(s) break the layering")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
