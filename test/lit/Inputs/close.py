# close.py A B TOL - A and B hold the same number of lines of floats; on each
# line every |a - b| is at most TOL times the range (max - min) of A's line.
import sys

a_lines = open(sys.argv[1]).read().split("\n")
b_lines = open(sys.argv[2]).read().split("\n")
tol = float(sys.argv[3])
if len(a_lines) != len(b_lines):
    sys.exit(f"{len(a_lines)} lines against {len(b_lines)}")
worst = 0.0
for n, (la, lb) in enumerate(zip(a_lines, b_lines), 1):
    a = [float(x) for x in la.split()]
    b = [float(x) for x in lb.split()]
    if len(a) != len(b):
        sys.exit(f"line {n}: {len(a)} values against {len(b)}")
    if not a:
        continue
    span = max(a) - min(a)
    for i, (x, y) in enumerate(zip(a, b)):
        worst = max(worst, abs(x - y) / span)
        if abs(x - y) > tol * span:
            sys.exit(f"line {n}, value {i}: {x} vs {y} differ by more than {tol} of the range {span}")
print(f"worst difference {worst:.3g} of the range")
