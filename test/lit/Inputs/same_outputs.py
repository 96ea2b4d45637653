"""same_outputs.py DIR DIR...: every .pb file of the first directory exists
in each other one with the same bytes; prints how many, or exits 1 naming
the first that differs."""
import os
import sys

dirs = sys.argv[1:]
names = sorted(n for n in os.listdir(dirs[0]) if n.endswith(".pb"))
if not names:
    sys.exit("no outputs in " + dirs[0])
for name in names:
    with open(os.path.join(dirs[0], name), "rb") as f:
        want = f.read()
    for d in dirs[1:]:
        with open(os.path.join(d, name), "rb") as f:
            if f.read() != want:
                sys.exit("%s differs between %s and %s" % (name, dirs[0], d))
print("%d outputs, the same bytes in every directory" % len(names))
