"""Checks what `oneflow-run add_scale --output-dir RES --trace TRACE` wrote.

Prints what it found, one fact per line, for FileCheck.
"""
import json
import os
import sys

import numpy as np

res, trace_file, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
# The output "dense/add:0" is written under its escaped name only.
print("files:", sorted(os.listdir(res)))
y = np.load(os.path.join(res, "dense%2Fadd%3A0.npy"))
print("y:", y.dtype, y.tolist())
assert y.tolist() == [4.0, 8.0, 12.0, 16.0]

with open(trace_file) as f:
    events = json.load(f)
assert isinstance(events, list)
assert all(e["ph"] == "X" for e in events)
assert all(e["pid"] == 0 for e in events)
assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in events)
print("events:", len(events))
print("tids:", sorted({e["tid"] for e in events}))
for name in ["input x", "scale", "add", "output y"]:
    mine = [e for e in events if e["name"] == name]
    print(name, "task", mine[0]["args"]["task"], "steps",
          sorted(e["args"]["step"] for e in mine))
# Within a stream, firings never overlap.
for tid in {e["tid"] for e in events}:
    spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                   if e["tid"] == tid)
    for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
        assert a1 <= b0 + 1e-3, (tid, a0, a1, b0, b1)
print("trace ok")
