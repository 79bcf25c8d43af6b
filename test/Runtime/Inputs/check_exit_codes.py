"""Runs oneflow-run in ways that must fail: each must exit with 1 within
60 s and print nothing but "error: ..." lines. Then one that succeeds."""
import subprocess
import sys

tool, t = sys.argv[1], sys.argv[2]
plan, data = f"{t}/plan", f"{t}/data"
failing = [
    [],
    [f"{t}/missing"],
    [plan, "--bogus"],
    [plan, "--input", "x"],
    [plan, "--steps", "-3"],
    [plan],
    [plan, "--input", f"x={data}/x3.npy"],
    [plan, "--input", f"x={data}/bad.npy"],
    [plan, "--input", f"x={data}/truncated.npy"],
    [plan, "--input", f"x={data}/fortran.npy"],
    [plan, "--input", f"y={data}/x.npy"],
    [f"{data}", "--input", f"x={data}/x.npy"],
    [plan, "--input", f"x={data}/x.npy", "--trace", f"{t}/no/such/dir/t.json"],
]
for args in failing:
    run = subprocess.run([tool] + args, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1, (args, run.returncode, run.stderr)
    # Hand-written plans have no weights checksums: a warning says so.
    lines = [l for l in run.stderr.splitlines()
             if not l.startswith("warning: the plan records no checksums")]
    assert lines and all(l.startswith("error: ") for l in lines), (args,
                                                                 run.stderr)
print(f"checked {len(failing)} failing invocations")
run = subprocess.run([tool, plan, "--input", f"x={data}/x.npy", "--steps",
                      "2"], capture_output=True, text=True, timeout=60)
print(f"ok: exit {run.returncode}")
