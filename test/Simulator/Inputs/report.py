"""Checks on a --simulate-json report for the lit tests.

  report.py split REPORT.json        the split sums to the step time
  report.py get REPORT.json KEY...   prints KEY=value (roles[i].key too)
  report.py positive REPORT.json KEY...  prints "KEY > 0" or "KEY = 0"
  report.py less A.json KEY B.json KEY   prints "less" when A's < B's
  report.py ratio A.json KEY B.json KEY  prints "ratio X" (A's / B's, 3
      decimals)
  report.py runtime-memory REPORT.json RUN.log
      oneflow-run's "memory: A bytes of regsts (...), P bytes persistent"
      equals the report's arena (gradients + activations) and persistent
      bytes (parameters + optimizer state + buffers), summed over roles
"""
import json
import re
import sys


def value(report, key):
    match = re.fullmatch(r"roles\[(\d+)\]\.(\w+)", key)
    if match:
        return report["roles"][int(match.group(1))][match.group(2)]
    return report[key]


def main():
    command, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        report = json.load(f)
    if command == "split":
        parts = (report["compute_seconds"] +
                 report["exposed_communication_seconds"] +
                 report["bubble_seconds"])
        ok = abs(parts - report["step_seconds"]) <= 1e-9 * max(
            1.0, report["step_seconds"])
        print("split sums to step" if ok else
              f"split {parts} != step {report['step_seconds']}")
    elif command == "get":
        for key in sys.argv[3:]:
            v = value(report, key)
            print(f"{key}={v:.9g}" if isinstance(v, float) else f"{key}={v}")
    elif command == "positive":
        for key in sys.argv[3:]:
            print(f"{key} > 0" if value(report, key) > 0 else f"{key} = 0")
    elif command == "less":
        with open(sys.argv[4]) as f:
            other = json.load(f)
        a, b = value(report, sys.argv[3]), value(other, sys.argv[5])
        print("less" if a < b else f"not less: {a} >= {b}")
    elif command == "ratio":
        with open(sys.argv[4]) as f:
            other = json.load(f)
        a, b = value(report, sys.argv[3]), value(other, sys.argv[5])
        print(f"ratio {a / b:.3f}")
    elif command == "runtime-memory":
        with open(sys.argv[3]) as f:
            log = f.read()
        match = re.search(r"memory: (\d+) bytes of regsts \(\d+ without "
                          r"reuse\), (\d+) bytes persistent", log)
        arena = sum(r["members"] * (r["gradients_bytes"] +
                                    r["activations_bytes"])
                    for r in report["roles"])
        persistent = sum(r["members"] * (r["parameters_bytes"] +
                                         r["optimizer_state_bytes"] +
                                         r["buffers_bytes"])
                         for r in report["roles"])
        print(f"runtime arena {match.group(1)} persistent {match.group(2)}")
        print(f"simulated arena {arena} persistent {persistent}")


if __name__ == "__main__":
    main()
