"""Cache locks wait with a bound: a lock held too long is an error naming the lock file."""
import subprocess
import sys
import time

import pytest

from ptokit.locks import LockTimeout, exclusive_lock


def test_lock_is_exclusive_and_bounded(tmp_path):
    path = tmp_path / "k.lock"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time, fcntl, os\n"
        f"fd = os.open({str(path)!r}, os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(30)\n")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        t0 = time.monotonic()
        with pytest.raises(LockTimeout, match=r"waited 0 s for another process building x.cpp \(lock .*k.lock\)"):
            with exclusive_lock(path, timeout=0.3, what="x.cpp"):
                pass
        assert 0.3 <= time.monotonic() - t0 < 5
    finally:
        holder.kill()
        holder.wait()
    with exclusive_lock(path, timeout=5):      # free again once the holder is gone
        pass
