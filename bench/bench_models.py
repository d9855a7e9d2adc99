"""Model-sized example programs (bench/run.py rows ``model_*``): flash attention and paged
attention decode (one task, and SPMD over the batch) from ``examples/``, each split into compile
(``ptokit.compile``: DSL to the artifact tree), build (the first call less one run: g++ of the
program's kernels and orchestration, the simulator runtime library already built) and run (the
median of warm calls). Every run's result is checked against the example's numpy reference."""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))

import flash_attention  # noqa: E402
import paged_attention  # noqa: E402


def _split(prog, args, out, ref, work: Path, reps: int):
    """(compile s, build s, run s, max abs error) of one program."""
    import ptokit
    t0 = time.perf_counter()
    compiled = ptokit.compile(prog, output_dir=work)
    t1 = time.perf_counter()
    compiled(*args, out)
    t2 = time.perf_counter()
    runs = []
    for _ in range(reps):
        out[...] = 0
        s = time.perf_counter()
        compiled(*args, out)
        runs.append(time.perf_counter() - s)
    run = statistics.median(runs)
    err = float(np.max(np.abs(out - ref)))
    if not err < 2e-3 * max(float(np.abs(ref).max()), 1.0):
        raise RuntimeError(f"{prog.__name__}: max abs error {err:.3e} against numpy")
    return t1 - t0, max(t2 - t1 - run, 0.0), run, err


def measure(work: Path, quick: bool):
    reps = 3 if quick else 7
    rows = []

    nq, ns, nd, nb = (16, 128, 64, 32) if quick else (32, 512, 128, 64)
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s).astype(np.float16) for s in ((nq, nd), (ns, nd), (ns, nd)))
    c, b, r, err = _split(flash_attention.make_flash(nq, ns, nd, nb), (q, k, v), np.zeros((nq, nd), np.float32),
                          flash_attention.reference(q, k, v), work / "flash", reps)
    rows.append(("model_flash_attention",
                 f"flash attention example: q [{nq}, {nd}] fp16 over {ns} keys, blocks of {nb}",
                 r * 1e3, "ms", f"compile {c * 1e3:.0f} ms, build {b:.2f} s (kernels cold); max err {err:.1e}", reps))

    batch, heads, dim, bs, maxb = (8, 16, 64, 16, 4) if quick else (8, 16, 128, 64, 8)
    pages = batch * maxb
    args = paged_attention.make_inputs(batch, heads, dim, bs, maxb, pages)
    ref = paged_attention.reference(*args, heads, bs, maxb)
    size = f"batch {batch}, {heads} heads of {dim}, <= {maxb} pages of {bs}"
    for spmd in (False, True):
        prog = paged_attention.make_paged_attention(batch, heads, dim, bs, maxb, pages, spmd=spmd)
        c, b, r, err = _split(prog, args, np.zeros((batch * heads, dim), np.float32), ref,
                              work / f"paged_{spmd}", reps)
        key, what = ("model_paged_decode_spmd", f"  the same as SPMD, one block per sequence ({batch})") if spmd \
            else ("model_paged_decode", f"paged attention decode example: {size}")
        note = "its kernel is the row above's: a cache hit" if spmd else "kernels cold"
        rows.append((key, what, r * 1e3, "ms", f"compile {c * 1e3:.0f} ms, build {b:.2f} s ({note}); "
                                                f"max err {err:.1e}", reps))
    return rows
