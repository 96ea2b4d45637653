"""Reads llvm-objdump -d output of kernels_x86.c and fails if a matmul
kernel's float accumulation reads a stack slot through an index register.

That is the mark of a tile (or decode walk) loop over its activation rows
(or groups) that the compiler left rolled: it indexes acc[r] in memory, so
every block's multiply-add waits on the previous block's store. The kernels
unroll those loops (KILN_X86_UNROLL); this keeps it so.
"""
import re
import sys

func = None
bad = []
kernels = 0
fn_re = re.compile(r"^[0-9a-f]+ <(\w+)>:")
# A ymm/zmm vfmadd*ps whose addend is a stack slot at a byte offset held in
# a register: (%rsp|%rbp|%rbx, %index) or (.., %index, 1). (A scaled index,
# (.., %i, 4), is a float array walked element by element, as in the stores
# of a partial tile.)
acc_re = re.compile(
    r"\bvfmadd\w*ps\s+-?(0x[0-9a-f]+)?\(%r(sp|bp|bx),\s*%r\w+(,\s*1)?\),\s*%[yz]mm\d+")
for line in sys.stdin:
    m = fn_re.match(line)
    if m:
        func = m.group(1)
        if func.startswith("kiln_matmul_"):
            kernels += 1
        continue
    if func and func.startswith("kiln_matmul_") and acc_re.search(line):
        bad.append(func + ": " + line.strip())
if kernels == 0:
    sys.exit("no kiln_matmul_ kernels in the disassembly")
if bad:
    print("accumulators indexed in memory (a rolled row/group loop):")
    print("\n".join(bad))
    sys.exit(1)
print("%d kernels, accumulators in registers" % kernels)
