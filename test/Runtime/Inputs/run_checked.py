"""run_checked.py TIMEOUT CMD...: runs CMD (a failing oneflow-run), prints
its output (stdout, then stderr) and then "exit status: N", or "timed out
after TIMEOUT s" when it hangs (then kills it with everything it started).
Always exits 0: FileCheck judges."""
import os
import signal
import subprocess
import sys
import time

timeout = float(sys.argv[1])
start = time.monotonic()
process = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE,
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
print(f"finished in time: {time.monotonic() - start < timeout}")
