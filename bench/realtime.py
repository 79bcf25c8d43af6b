"""Benchmark processes under SCHED_FIFO where permitted (root), so that
other work on a shared machine does not preempt them; the VM's own noise
remains. Pass `realtime_priority` as a subprocess's preexec_fn."""

import os
import subprocess
import sys


def realtime_priority():
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
        return True
    except (PermissionError, AttributeError, OSError):
        return False


def realtime_priority_available():
    try:
        return os.sched_getscheduler(0) == os.SCHED_FIFO or subprocess.run(
            [sys.executable, "-c",
             "import os; os.sched_setscheduler(0, os.SCHED_FIFO, "
             "os.sched_param(10))"], capture_output=True).returncode == 0
    except (AttributeError, OSError):
        return False
