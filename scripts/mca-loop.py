#!/usr/bin/env python3
# mca-loop.py FILE.s INSTR - print the smallest loop of FILE.s (a label and the
# backward branch to it) that holds INSTR, for llvm-mca-16 (docs/kernels.md).
import re
import sys
lines=open(sys.argv[1]).read().split('\n'); key=sys.argv[2]
labels={}
for i,l in enumerate(lines):
    m=re.match(r'^(\.LBB[0-9_]+):',l)
    if m: labels[m.group(1)]=i
best=None
for i,l in enumerate(lines):
    m=re.match(r'^\s+j\w+\s+(\.LBB[0-9_]+)',l) or re.match(r'^\s+b\.?\w*\s+(\.LBB[0-9_]+)',l)
    if m and m.group(1) in labels and labels[m.group(1)]<i:
        body=lines[labels[m.group(1)]+1:i+1]
        if any(key in b for b in body):
            n=sum(1 for b in body if b.strip() and not b.strip().startswith(('.','#','//')))
            if best is None or n<best[0]: best=(n,body)
print('\n'.join(b for b in best[1] if b.strip() and not re.match(r'^\s*(#|\.p2align|\.LBB)',b)))
