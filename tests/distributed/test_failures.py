"""Failures and cleanup: a wait nobody satisfies, a kernel crash on a rank, a rank process killed,
a KeyboardInterrupt in the parent.  Each fails the run in time, naming the rank, device, task,
kernel and op, stops the other ranks and leaves no shared-memory segment behind; the next run
passes.  User errors of a host program come before any rank process starts."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from dist_util import make_session, my_segments, rank_processes, tensor, write_tree

from ptokit.distributed import board as boardlib
from ptokit.distributed.segments import SHM_DIR, list_segments, segment_name, sweep_dead
from ptokit.errors import DistributedRunFailure

REPO = Path(__file__).resolve().parents[2]


def _wait_entry(stuck):
    def entry(rt, t, world_size):
        (sig,) = [rt.window(s, [8], "INT32") for s in rt.alloc_domain([32])]
        for r in range(world_size):
            rt.dispatch(r, "wait", [t[0][r], sig], [stuck])
    return entry


def _put_ok(session):
    w = session.world_size
    x = np.arange(w * 64, dtype=np.float32).reshape(w, 1, 64)
    y = np.zeros_like(x)

    def entry(rt, t, world_size):
        src, dst, sig = rt.alloc_domain([256, 256, 32])
        ws, wd, wg = rt.window(src, [1, 64], "FP32"), rt.window(dst, [1, 64], "FP32"), rt.window(sig, [8], "INT32")
        for r in range(world_size):
            rt.dispatch(r, "put", [t[0][r], t[1][r], ws, wd, wg], [0])

    session.call([x, y], entry=entry)
    np.testing.assert_array_equal(y, np.roll(x, 1, axis=0))


def test_deadlock_fails_in_time_naming_the_wait(images):
    before = my_segments()
    s = make_session(images, 2, timeout=3.0)
    y = np.zeros((2, 1, 8), np.int32)
    t0 = time.monotonic()
    with pytest.raises(DistributedRunFailure) as ei:
        s.call([y], entry=_wait_entry(1))
    took = time.monotonic() - t0
    e = ei.value
    assert took < 5.0, f"the deadlock took {took:.2f} s to fail (timeout 3 s)"
    assert (e.rank, e.device_id, e.code, e.op, e.kernel) == (1, 1, 101, "TWAIT", "wait")
    assert e.task == 0
    text = str(e)
    assert text.startswith("runtime error 101: rank 1 (device 1): ")
    assert "rank 1's window (domain 0) at offset 28: value 0, expected >= 1" in text      # the cell
    assert len(e.board) == 2 and e.board[1].startswith("rank 1 (device 1): failed")
    assert "in TWAIT on rank 1's window at offset 28" in e.board[1]
    assert s.closed and not rank_processes(os.getpid())
    assert my_segments() == before == []


def test_kernel_crash_on_one_rank(images):
    s = make_session(images, 2)
    y = np.zeros((2, 1, 8), np.int32)

    def entry(rt, t, world_size):
        (w,) = [rt.window(x, [8], "INT32") for x in rt.alloc_domain([32])]
        for r in range(world_size):
            rt.dispatch(r, "crash", [t[0][r], w])

    t0 = time.monotonic()
    with pytest.raises(DistributedRunFailure) as ei:
        s.call([y], entry=entry)
    assert time.monotonic() - t0 < 5.0
    e = ei.value
    assert (e.rank, e.device_id, e.code, e.kernel, e.task, e.op) == (1, 1, 101, "crash", 0, None)
    assert "kernel 'crash'" in str(e) and "SIGSEGV" in str(e)
    assert not my_segments() and not rank_processes(os.getpid())
    s2 = make_session(images, 2)            # the next run passes
    try:
        _put_ok(s2)
    finally:
        s2.close()
    assert not my_segments()


def test_rank_killed_mid_run(images):
    s = make_session(images, 2, timeout=20.0)
    seg = s.transport.board
    y = np.zeros((2, 1, 8), np.int32)
    killed = {}

    def killer():
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            rec = boardlib.record_at(seg, 1)
            if rec.op == 2 and rec.op_active:           # rank 1 is inside its TWAIT
                killed["pid"] = rec.pid
                killed["at"] = time.monotonic()
                os.kill(rec.pid, signal.SIGKILL)
                return
            time.sleep(0.02)

    th = threading.Thread(target=killer)
    th.start()
    with pytest.raises(DistributedRunFailure) as ei:
        s.call([y], entry=_wait_entry(1))
    th.join()
    took = time.monotonic() - killed["at"]
    assert took < 2.0, f"a dead rank was noticed after {took:.2f} s"
    e = ei.value
    assert (e.rank, e.device_id, e.code, e.op, e.kernel, e.task) == (1, 1, 102, "TWAIT", "wait", 0)
    assert "died (killed by SIGKILL) while running dispatch 1 (chip 'wait')" in str(e)
    assert not my_segments() and not rank_processes(os.getpid())
    s2 = make_session(images, 2)
    try:
        _put_ok(s2)
    finally:
        s2.close()


def test_user_errors_come_before_any_rank_starts(images):
    from ptokit.distributed.session import Session
    from ptokit.distributed.transport.shm import ShmTransport
    from ptokit.runtime.config import RunConfig

    def fresh():
        return Session(device_ids=[0, 1], config=RunConfig(clusters=2), chips=images, entry=None,
                       transport=ShmTransport())

    y = np.zeros((2, 1, 8), np.int32)
    cases = [
        (lambda rt, t, w: rt.dispatch(2, "crash", [t[0][0], rt.window(rt.alloc_domain([32])[0], [8], "INT32")]),
         ValueError, r"device=2 is out of range: the program runs on 2 rank\(s\), 0..1"),
        (lambda rt, t, w: rt.window(rt.alloc_domain([16])[0], [8], "INT32"),
         ValueError, "needs 32 bytes but slot 'slot0' has 16"),
        (lambda rt, t, w: rt.dispatch(0, "crash", [t[0][0], t[0][1]]),
         TypeError, "parameter 'w' is a DistributedTensor: pass a window"),
        (lambda rt, t, w: rt.dispatch(None, "crash", [t[0][0], t[0][1]]),
         ValueError, "a call without device= uses no windows"),
        (lambda rt, t, w: rt.dispatch(0, "nope", []), ValueError, "no chip program 'nope'"),
    ]
    for entry, exc, match in cases:
        s = fresh()
        with pytest.raises(exc, match=match):
            s.call([y], entry=entry)
        assert not s.transport.procs, "a rank process was started before the user error"
        assert not my_segments()


def test_rank_count_must_match_nr(images):
    from ptokit.distributed.session import Session
    from ptokit.distributed.transport.shm import ShmTransport
    from ptokit.runtime.config import RunConfig
    s = Session(device_ids=[0, 1], config=RunConfig(clusters=2), chips=images, entry=lambda rt, t, w: None,
                transport=ShmTransport(), host_params=[tensor("y", "INT32", ["NR", 1, 8], "OUT")],
                world_size_name="NR")
    with pytest.raises(TypeError, match="dimension NR is 3, but NR is the rank count and the program runs on 2"):
        s.call([np.zeros((3, 1, 8), np.int32)])
    assert not s.transport.procs and not my_segments()


def test_dead_parents_segments_are_swept(images):
    p = subprocess.Popen(["true"])
    p.wait()
    dead = segment_name(p.pid, 1, 0)
    live = segment_name(os.getppid(), 999999, 0)
    for n in (dead, live):
        (SHM_DIR / n).write_bytes(b"\0" * 64)
    try:
        assert dead in sweep_dead() and live in list_segments()
        assert dead not in list_segments()
    finally:
        for n in (dead, live):
            if (SHM_DIR / n).exists():
                os.unlink(SHM_DIR / n)


_INTERRUPTED = textwrap.dedent('''
    import sys
    sys.path.insert(0, {tests!r})
    from ptokit.distributed.launcher import run_distributed
    from ptokit.runtime.config import RunConfig
    import numpy as np
    y = np.zeros((2, 1, 8), np.int32)
    run_distributed({tree!r}, [y], RunConfig(clusters=2, timeout=60.0), quiet=True)
''')

_WAIT_HOST = '''
def entry(rt, tensors, world_size):
    (slot,) = rt.alloc_domain([32])
    sig = rt.window(slot, [8], "INT32")
    for r in range(world_size):
        rt.dispatch(r, "wait", [tensors[0][r], sig], [1])
'''


def test_keyboard_interrupt_in_the_parent_cleans_up(tmp_path, images):
    tree = write_tree(tmp_path / "stuck", _WAIT_HOST, ["wait"], [tensor("y", "INT32", ["NR", 1, 8], "OUT")])
    script = tmp_path / "run.py"
    script.write_text(_INTERRUPTED.format(tests=str(Path(__file__).parent), tree=str(tree)))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(rank_processes(proc.pid)) < 2:
            time.sleep(0.05)
        assert len(rank_processes(proc.pid)) == 2, "the ranks did not start"
        deadline = time.monotonic() + 30       # until rank 1 waits (its board record says so)
        while time.monotonic() < deadline and not _waiting(proc.pid):
            time.sleep(0.05)
        assert list_segments(proc.pid), "no segments while running"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "KeyboardInterrupt" in err
    assert list_segments(proc.pid) == [], "segments left after KeyboardInterrupt"
    time.sleep(0.2)
    assert rank_processes(proc.pid) == [], "rank processes left after KeyboardInterrupt"


def _waiting(pid: int) -> bool:
    from ptokit.distributed.segments import Segment
    for name in list_segments(pid):
        try:
            seg = Segment.attach(name)
        except OSError:
            continue
        try:
            if seg.size == 4096:        # the board of 2 ranks is one page; so is a window -- look at both
                rec = boardlib.record_at(seg, 1)
                if rec.op == 2 and rec.op_active and rec.pid:
                    return True
        finally:
            seg.close()
    return False


def test_a_frozen_rank_trips_the_parents_watchdog(images):
    """A rank that stops making progress without failing (SIGSTOP) fails the run within timeout + 2 s."""
    s = make_session(images, 2, timeout=2.0)
    seg = s.transport.board
    y = np.zeros((2, 1, 8), np.int32)
    stopped = {}

    def entry(rt, t, world_size):
        (sig,) = [rt.window(x, [8], "INT32") for x in rt.alloc_domain([32])]
        rt.dispatch(1, "wait", [t[0][1], sig], [1])          # rank 1 alone, then stuck in its TWAIT

    def stopper():
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            rec = boardlib.record_at(seg, 1)
            if rec.op == 2 and rec.op_active:
                stopped["pid"], stopped["at"] = rec.pid, time.monotonic()
                os.kill(rec.pid, signal.SIGSTOP)
                return
            time.sleep(0.01)

    th = threading.Thread(target=stopper)
    th.start()
    with pytest.raises(DistributedRunFailure) as ei:
        s.call([y], entry=entry)
    th.join()
    took = time.monotonic() - stopped["at"]
    assert took < 4.0, f"the frozen rank was noticed after {took:.2f} s (timeout 2 s)"
    e = ei.value
    assert (e.rank, e.code, e.op) == (1, 100, "TWAIT") and "no progress on any rank" in str(e)
    assert not rank_processes(os.getpid()) and not my_segments()     # a stopped process is SIGKILLed too


def test_a_stalled_rank_is_blamed_not_the_rank_waiting_for_it(images):
    """Rank 1 freezes before its share reaches rank 0: rank 0's TWAIT expires, but the run names
    rank 1, the rank that made no progress, and says rank 0 waited for it (issue 31, item 6)."""
    s = make_session(images, 2, timeout=2.0)
    seg = s.transport.board
    y = np.zeros((2, 1, 8), np.int32)
    frozen = {}

    def entry(rt, t, world_size):
        (sig,) = [rt.window(x, [8], "INT32") for x in rt.alloc_domain([32])]
        frozen["pid"] = boardlib.record_at(seg, 1).pid
        os.kill(frozen["pid"], signal.SIGSTOP)               # before rank 1 runs anything of this call
        for r in range(world_size):
            rt.dispatch(r, "wait", [t[0][r], sig], [-1])      # nobody stuck: rank 0 waits for rank 1's share

    with pytest.raises(DistributedRunFailure) as ei:
        s.call([y], entry=entry)
    e = ei.value
    text = str(e)
    assert (e.rank, e.device_id, e.code) == (1, 1, 100), text
    assert text.startswith("runtime error 100: rank 1 (device 1): no progress for ")
    assert "while rank 0 (device 0) waited for it: rank 0's TWAIT on rank 0's window at offset 0" in text
    assert "expected == 3" in text and "expired" in text
    assert e.board[0].startswith("rank 0 (device 0): failed") and "TWAIT" in e.board[0]
    assert s.closed and not rank_processes(os.getpid()) and not my_segments()
