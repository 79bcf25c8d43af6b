"""Writes a benchmark's table into docs/benchmarks.md between its markers
(atomically), adding a section with `heading` the first time."""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_block(begin, end, table, heading):
    path = os.path.join(ROOT, "docs", "benchmarks.md")
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    block = f"{begin}\n{table}\n{end}"
    if begin in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end),
                      lambda _: block, text, flags=re.S)
    else:
        text += f"\n{heading}\n\n{block}\n"
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
