#!/usr/bin/env python3
"""mca-loop.py - cut a loop out of compiler assembly for llvm-mca-16 or a
packet count (docs/kernels.md).

    scripts/mca-loop.py FILE.s INSTR [--function=NAME] [--most] [--stats]

Prints the body of the smallest loop of FILE.s (a label and the backward
branch to it, or a Hexagon hardware loop ending in endloop0) that holds
INSTR, without labels and directives.
  --function=NAME  only loops inside function NAME
  --most           the loop with the most INSTR per iteration instead, among
                   loops whose inner loops are Hexagon hardware loops with a
                   constant trip count (counted that many times)
  --stats          print "instructions N packets P matches K" per iteration
                   instead of the body (packets: Hexagon's { } bundles)
  --outer=N1,N2..  the smallest loop around loops that hold INSTR instead,
                   its directly nested loops (in program order) counted
                   N1, N2, ... times per iteration (RVV's super-block loops
                   around their block loops)
  --vector         with --stats, also "vector V": RVV vector instructions
                   (mnemonics v*, without vsetvl/vsetvli)
Loops of inline assembly count too (.Ltmp labels), their SMMLA and SDOT
`.inst` words spelled as instructions. Exits 1 if no loop holds INSTR.
"""
import argparse
import re
import sys

LABEL = re.compile(r'^(\.L(?:BB[0-9_]+|tmp\d+)):')
# x86 j<cc>, AArch64 b/b.<cc>/cbz/cbnz/tbz/tbnz, RISC-V b<cc> with one or
# two registers, Hexagon jump.
BRANCH = re.compile(r'^\s+(?:j\w*|b\.?\w*|cbn?z\s+\w+,|tbn?z\s+\w+,\s*#\d+,|'
                    r'b\w+\s+\w+,(?:\s*\w+,)?)\s*'
                    r'(\.L(?:BB[0-9_]+|tmp\d+))|jump(?::\w+)?\s+(\.LBB[0-9_]+)')
HW_LOOP = re.compile(r'loop0\((\.LBB[0-9_]+)')
HW_TRIPS = re.compile(r'loop0\((\.LBB[0-9_]+),\s*#(\d+)\)')


# AArch64 instructions that inline assembly (llama.cpp's) spells as .inst
# words: mask, value, mnemonic, operand widths (Rd, Rn, Rm).
INST_WORDS = [(0xffe0fc00, 0x4e80a400, 'smmla', ('4s', '16b', '16b')),
              (0xffe0fc00, 0x4e809400, 'sdot', ('4s', '16b', '16b'))]


def spell_inst(line):
    """A `.inst 0x...` line of a known instruction as its mnemonic."""
    m = re.match(r'^(\s*)\.inst\s+0x([0-9a-fA-F]{8})', line)
    if not m:
        return line
    v = int(m.group(2), 16)
    for mask, value, name, (d, n, mm) in INST_WORDS:
        if v & mask == value:
            return (f'{m.group(1)}{name}\tv{v & 31}.{d}, v{(v >> 5) & 31}.{n}, '
                    f'v{(v >> 16) & 31}.{mm}')
    return line


def function_range(lines, name):
    start = None
    for i, l in enumerate(lines):
        if start is None and re.match(r'^' + re.escape(name) + r':', l):
            start = i
        elif start is not None and re.match(r'^\s+\.size\s+' + re.escape(name) + r',', l):
            return start, i
    if start is None:
        sys.exit(f"mca-loop: no function '{name}'")
    return start, len(lines)


def loops(lines, lo, hi):
    """(start, end) line ranges of the loop bodies in lines[lo:hi]."""
    labels = {}
    hw_targets = set()
    for i in range(lo, hi):
        m = LABEL.match(lines[i])
        if m:
            labels[m.group(1)] = i
        m = HW_LOOP.search(lines[i])
        if m:
            hw_targets.add(m.group(1))
    found = []
    last_hw = None
    for i in range(lo, hi):
        m = LABEL.match(lines[i])
        if m and m.group(1) in hw_targets:
            last_hw = labels[m.group(1)]
        m = BRANCH.search(lines[i])
        target = m and (m.group(1) or m.group(2))
        if target in labels and labels[target] < i:
            found.append((labels[target] + 1, i + 1))
        if 'endloop0' in lines[i] and last_hw is not None:
            found.append((last_hw + 1, i + 1))
    return found


def is_instruction(line):
    s = line.strip()
    return s and not s.startswith(('.', '#', '//', '{', '}')) and not LABEL.match(line)


def main():
    ap = argparse.ArgumentParser(add_help=True)
    ap.add_argument('file')
    ap.add_argument('instr')
    ap.add_argument('--function')
    ap.add_argument('--most', action='store_true')
    ap.add_argument('--stats', action='store_true')
    ap.add_argument('--outer')
    ap.add_argument('--vector', action='store_true')
    a = ap.parse_args()
    lines = [spell_inst(l) for l in open(a.file).read().split('\n')]
    lo, hi = function_range(lines, a.function) if a.function else (0, len(lines))
    bodies = loops(lines, lo, hi)

    trips = {}
    for l in lines[lo:hi]:
        m = HW_TRIPS.search(l)
        if m:
            trips[m.group(1)] = int(m.group(2))
    label_at = {i: LABEL.match(lines[i - 1]).group(1) for r in bodies
                for i in [r[0]] if LABEL.match(lines[i - 1])}

    def inner(r):
        return [o for o in bodies if o != r and r[0] <= o[0] and o[1] <= r[1]]

    outer_trips = [int(n) for n in a.outer.split(',')] if a.outer else None
    chosen = [None]  # the loop --outer weighs, once it is picked

    def children(r):
        kids = inner(r)
        return sorted(o for o in kids
                      if not any(p != o and p[0] <= o[0] and o[1] <= p[1] for p in kids))

    def weight(r):
        """Times line i of r runs per iteration of r, or None if an inner
        loop's trip count is not a constant."""
        w = [1] * (r[1] - r[0])
        if outer_trips is not None and r == chosen[0]:
            kids = children(r)
            if len(kids) != len(outer_trips):
                sys.exit(f"mca-loop: the loop at line {r[0]} holds {len(kids)} "
                         f"loops, --outer gives {len(outer_trips)} trip counts")
            for o, n in zip(kids, outer_trips):
                for i in range(o[0], o[1]):
                    w[i - r[0]] = n  # two branches back to one label overlap
            return w
        for o in inner(r):
            n = trips.get(label_at.get(o[0]))
            if n is None:
                return None
            for i in range(o[0], o[1]):
                w[i - r[0]] *= n
        return w

    def count(r, pred):
        w = weight(r) or [1] * (r[1] - r[0])
        return sum(w[i - r[0]] * pred(lines[i]) for i in range(r[0], r[1]))

    def matches(r):
        return count(r, lambda l: l.split('//')[0].count(a.instr))

    def size(r):
        return count(r, lambda l: 1 if is_instruction(l) else 0)

    holding = [r for r in bodies if matches(r) > 0]
    if not holding:
        sys.exit(f"mca-loop: no loop holds '{a.instr}'")
    if outer_trips is not None:
        around = [r for r in bodies if any(o in holding for o in inner(r))]
        if not around:
            sys.exit(f"mca-loop: no loop around a loop that holds '{a.instr}'")
        best = min(around, key=lambda r: r[1] - r[0])
        chosen[0] = best
    elif a.most:
        flat = [r for r in holding if weight(r) is not None]
        best = max(flat or holding, key=lambda r: (matches(r), -size(r)))
    else:
        best = min(holding, key=size)
    body = lines[best[0]:best[1]]
    if a.stats:
        packets = count(best, lambda l: 1 if l.strip() == '{' else 0)
        vector = ''
        if a.vector:
            vector = ' vector %d' % count(best, lambda l: 1 if is_instruction(l) and re.match(
                r'\s*v(?!set)', l) else 0)
        print(f'instructions {size(best)} packets {packets} matches {matches(best)}{vector}')
        return
    body = [l.split('//')[0].rstrip() for l in body]
    print('\n'.join(l for l in body
                    if l.strip() and not re.match(r'^\s*(#|\.p2align|\.LBB|\.Ltmp)', l)))


if __name__ == '__main__':
    main()
