"""run_checked.py TIMEOUT [--at-least S] CMD...: runs CMD (a failing
oneflow-run), prints its output (stdout, then stderr) and then "exit status:
N", or "timed out after TIMEOUT s" when it hangs (then kills it with
everything it started); with --at-least, also whether it took at least S s
(a watchdog must not fire early). Always exits 0: FileCheck judges."""
import os
import signal
import subprocess
import sys
import time

timeout = float(sys.argv[1])
command = sys.argv[2:]
at_least = None
if command[:1] == ["--at-least"]:
    at_least = float(command[1])
    command = command[2:]
start = time.monotonic()
process = subprocess.Popen(command, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
try:
    out, err = process.communicate(timeout=timeout)
except subprocess.TimeoutExpired:
    os.killpg(process.pid, signal.SIGKILL)
    process.communicate()
    print(f"timed out after {timeout} s")
    sys.exit(0)
sys.stdout.write(out)
sys.stdout.write(err)
print(f"exit status: {process.returncode}")
elapsed = time.monotonic() - start
print(f"finished in time: {elapsed < timeout}")
if at_least is not None:
    print(f"took at least {at_least:g} s: {elapsed >= at_least}")
