"""Distributed-run benchmarks (bench/run.py rows ``dist_*``): put/get bandwidth between two ranks
next to memcpy of the same bytes, barrier latency at W = 2/4/8, a 1 MiB allreduce at W = 4, and
the cost of one host call on started ranks.  The chip trees are the hand-written ones of
tests/distributed (dist_util.py, cases/comm_kernels.cpp); every number is measured inside the
kernels (CLOCK_MONOTONIC) or around a host call, on ranks of 2 clusters over shared memory."""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parents[1] / "tests" / "distributed"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from dist_util import write_chip  # noqa: E402

BW_FLOATS = 1 << 20          # 4 MiB per transfer
AR_FLOATS = 1 << 18          # 1 MiB allreduce


def _session(images, w):
    from ptokit.distributed.session import Session
    from ptokit.distributed.transport.shm import ShmTransport
    from ptokit.runtime.config import RunConfig
    return Session(device_ids=list(range(w)), config=RunConfig(clusters=2, timeout=120), chips=images, entry=None,
                   transport=ShmTransport()).start()


def measure(work: Path, quick: bool):
    from ptokit.distributed.launcher import chip_images
    reps = 3 if quick else 7
    chips = {n: write_chip(work / n, n) for n in ("putbw", "barriers", "allreduce_big", "put")}
    images = chip_images(chips, 2, "a2a3sim", quiet=True)
    rows = []

    # ---- put / get bandwidth, rank 0 <-> rank 1, and memcpy of the same bytes in the same kernel
    t0 = time.perf_counter()
    s = _session(images, 2)
    start_s = time.perf_counter() - t0
    try:
        for get in (0, 1):
            moves, copies = [], []
            nrep = 4 if quick else 16
            for _ in range(reps):
                y = np.zeros((2, 1, 8), np.int64)

                def entry(rt, t, w, get=get, nrep=nrep):
                    a, b = rt.alloc_domain([4 * BW_FLOATS, 4 * BW_FLOATS])
                    wa, wb = rt.window(a, [BW_FLOATS], "FP32"), rt.window(b, [BW_FLOATS], "FP32")
                    for r in range(w):
                        rt.dispatch(r, "putbw", [t[0][r], wa, wb], [BW_FLOATS, nrep, get])

                s.call([y], entry=entry)
                moves.append(y[0, 0, 0] / nrep)
                copies.append(y[0, 0, 1] / nrep)
            gbs = 4 * BW_FLOATS / statistics.median(moves)
            rows.append((f"dist_{'get' if get else 'put'}_bw", f"{'TGET' if get else 'TPUT'} 4 MiB between 2 ranks",
                         gbs, "GB/s", f"memcpy of the same 4 MiB: {4 * BW_FLOATS / statistics.median(copies):.2f} GB/s",
                         reps))
        rows.append(("dist_memcpy_bw", "  memcpy 4 MiB (same kernel, same windows)",
                     4 * BW_FLOATS / statistics.median(copies), "GB/s", "", reps))
        # ---- one host call on started ranks: a put on both ranks, end to end
        x = np.zeros((2, 1, 64), np.float32)

        def put_entry(rt, t, w):
            src, dst, sig = rt.alloc_domain([256, 256, 32])
            ws, wd, wg = rt.window(src, [1, 64], "FP32"), rt.window(dst, [1, 64], "FP32"), rt.window(sig, [8], "INT32")
            for r in range(w):
                rt.dispatch(r, "put", [t[0][r], t[1][r], ws, wd, wg], [0])

        calls = []
        for _ in range(reps):
            c0 = time.perf_counter()
            s.call([x, x.copy()], entry=put_entry)
            calls.append(time.perf_counter() - c0)
        rows.append(("dist_call_w2", "one host call, 2 started ranks (a put each)", statistics.median(calls) * 1e3,
                     "ms", f"starting the 2 ranks took {start_s:.2f} s", reps))
    finally:
        s.close()

    # ---- barrier latency (the notify/wait barrier of docs/distributed.md)
    for w in (2, 4, 8):
        s = _session(images, w)
        try:
            lat = []
            nb = 200 if quick else 1000
            for _ in range(reps):
                y = np.zeros((w, 1, 8), np.int64)

                def entry(rt, t, ws, nb=nb):
                    (sig,) = rt.alloc_domain([32])
                    wsig = rt.window(sig, [8], "INT32")
                    for r in range(ws):
                        rt.dispatch(r, "barriers", [t[0][r], wsig], [nb])

                s.call([y], entry=entry)
                lat.append(y[:, 0, 0].max() / nb / 1e3)
            rows.append((f"dist_barrier_w{w}", f"barrier, {w} ranks", statistics.median(lat), "us",
                         "slowest rank, per round" + ("; more ranks than cores" if w > 2 else ""), reps))
        finally:
            s.close()

    # ---- allreduce of 1 MiB at W = 4: rank-order fold of remote loads, 16 KiB chunks
    s = _session(images, 4)
    try:
        times = []
        x = np.random.default_rng(1).standard_normal((4, AR_FLOATS)).astype(np.float32)
        for _ in range(reps):
            y = np.zeros_like(x)

            def entry(rt, t, w):
                data, sig = rt.alloc_domain([4 * AR_FLOATS, 32])
                wd, wsig = rt.window(data, [AR_FLOATS], "FP32"), rt.window(sig, [8], "INT32")
                for r in range(w):
                    rt.dispatch(r, "allreduce_big", [t[0][r], t[1][r], wd, wsig], [AR_FLOATS])

            res = s.call([x, y], entry=entry)
            if y[3].tobytes() != (x[0] + x[1] + x[2] + x[3]).tobytes():
                raise RuntimeError("the allreduce benchmark computed a wrong result")
            times.append(max(r.elapsed for r in res.ranks))
        rows.append(("dist_allreduce_1mib_w4", "allreduce 1 MiB f32, 4 ranks", statistics.median(times) * 1e3, "ms",
                     "slowest rank's run; rank-order fold of remote loads", reps))
    finally:
        s.close()
    return rows


# ----------------------------------------------------------------- the DSL forms (dist_dsl_*)

def _dispatch_elapsed(s, chip, windows, scalars, w):
    """The slowest rank's elapsed seconds of one dispatch of ``chip`` on every rank."""
    def entry(rt, t, ws):
        slots = rt.alloc_domain([nbytes for nbytes, _, _ in windows])
        views = [rt.window(sl, shape, dt) for sl, (_, shape, dt) in zip(slots, windows)]
        for r in range(ws):
            rt.dispatch(r, chip, views, scalars)
    res = s.call([], entry=entry)
    return max(d[0].elapsed for d in res.dispatches)


def measure_dsl(work: Path, quick: bool):
    """The same rows for programs written with pld: pld.tensor.put/get (staged through 16 KiB tiles),
    pld.tensor.barrier in a kernel loop, and a host-level pld.tensor.allreduce of 1 MiB at W = 4."""
    import ptokit
    from ptokit.distributed.launcher import chip_images
    bench = Path(__file__).resolve().parent
    for p in (bench, bench.parent / "tests" / "distributed_dsl"):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    import bench_programs_dist as P
    from kernel_collectives import host_allreduce
    import ptokit.language as pl
    import ptokit.language.distributed as pld
    reps = 1 if quick else 7
    rows = []
    nbytes = 4 * P.ROWS * P.COLS
    win = (nbytes, [P.ROWS, P.COLS], "FP32")

    dirs = {"DslPutGet": ptokit.compile(P.DslPutGet, output_dir=work / "dsl_putget").output_dir}
    s = _session(chip_images(dirs, 2, "a2a3sim", quiet=True), 2)
    try:
        n1 = 8 if quick else 32
        for mode, name in ((0, "put"), (1, "get")):
            per = []
            for _ in range(reps):
                t1 = _dispatch_elapsed(s, "DslPutGet", [win, win], [n1, mode], 2)
                t0 = _dispatch_elapsed(s, "DslPutGet", [win, win], [0, mode], 2)
                per.append(max(t1 - t0, 1e-9) / n1)
            rows.append((f"dist_dsl_{name}_bw", f"pld.tensor.{name} 256 KiB between 2 ranks (DSL)",
                         nbytes / statistics.median(per) / 1e9, "GB/s", "16 staged 16 KiB tiles per transfer", reps))
    finally:
        s.close()

    for w in (2, 4, 8):
        prog = P.dsl_barriers(w)
        dirs = {"DslBarriers": ptokit.compile(prog, output_dir=work / f"dsl_barriers{w}").output_dir}
        s = _session(chip_images(dirs, 2, "a2a3sim", quiet=True), w)
        try:
            # enough rounds that they outweigh the jitter of one dispatch (100 rounds at W=2, ~0.7 ms,
            # once measured as less than the empty dispatch); the least disturbed of 3+ pairs
            nb = 1000 if quick else 2000
            n_pairs = max(reps, 3)
            t1s, t0s = [], []
            for _ in range(n_pairs):
                t1s.append(_dispatch_elapsed(s, "DslBarriers", [(32 * w, [w, 1], "INT32")], [nb], w))
                t0s.append(_dispatch_elapsed(s, "DslBarriers", [(32 * w, [w, 1], "INT32")], [0], w))
            lat = (min(t1s) - min(t0s)) / nb * 1e6
            if lat <= 0:
                raise RuntimeError(f"{nb} barrier rounds at W={w} took no longer than none: {t1s} vs {t0s}")
            rows.append((f"dist_dsl_barrier_w{w}", f"pld.tensor.barrier in a kernel, {w} ranks (DSL)",
                         lat, "us", "slowest rank, per round" + ("; more ranks than cores" if w > 2 else ""),
                         n_pairs))
        finally:
            s.close()

    n = AR_FLOATS if not quick else AR_FLOATS // 16        # --quick: 64 KiB (a smaller kernel to build)
    c = ptokit.compile(host_allreduce(4, n, pl.FP32, pld.ReduceOp.Sum), output_dir=work / "dsl_allreduce",
                       distributed_config=ptokit.DistributedConfig(device_ids=[0, 1, 2, 3]))
    x = np.random.default_rng(2).standard_normal((4, 1, n)).astype(np.float32)
    times = []
    for _ in range(reps):
        y = np.zeros_like(x)
        c(x, y)
        if y[3].tobytes() != (x[0] + x[1] + x[2] + x[3]).tobytes():
            raise RuntimeError("the DSL allreduce benchmark computed a wrong result")
        times.append(max(d[1].elapsed for d in c.last_result.dispatches))     # dispatch 1: the collective
    rows.append(("dist_dsl_allreduce_1mib_w4", "pld.tensor.allreduce 1 MiB f32 in a host function, 4 ranks",
                 statistics.median(times) * 1e3, "ms", f"slowest rank's collective dispatch; mesh, {n // 4096} pieces"
                 + ("; --quick: 64 KiB only" if quick else ""), reps))
    return rows
