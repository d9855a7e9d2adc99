"""Model-sized example programs (bench/run.py rows ``model_*``): flash attention, paged
attention decode (one task, and SPMD over the batch), one decoder layer, the split-K and the
auto-tiled matmul (a2a3sim and a5sim) from ``examples/``, each split into compile
(``ptokit.compile``: DSL to the artifact tree), build (the first call less one run: g++ of the
program's kernels and orchestration, the simulator runtime library already built) and run (the
median of warm calls), with the cores the last run used (``RunResult.summary()``: cores that ran
a block, of all simulated cores). Every run's result is checked against the example's numpy
reference."""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))

import auto_tiled_matmul  # noqa: E402
import decoder_layer  # noqa: E402
import decoder_layer_blocked  # noqa: E402
import flash_attention  # noqa: E402
import paged_attention  # noqa: E402
import splitk_matmul  # noqa: E402


def _split(prog, args, out, ref, work: Path, reps: int, platform="a2a3sim"):
    """(compile s, build s, run s, max abs error, cores note) of one program."""
    import ptokit
    t0 = time.perf_counter()
    compiled = ptokit.compile(prog, output_dir=work, platform=platform)
    t1 = time.perf_counter()
    compiled(*args, out)
    t2 = time.perf_counter()
    runs = []
    for _ in range(reps):
        out[...] = 0
        s = time.perf_counter()
        result = compiled(*args, out)
        runs.append(time.perf_counter() - s)
    run = statistics.median(runs)
    err = float(np.max(np.abs(out - ref)))
    if not err < 2e-3 * max(float(np.abs(ref).max()), 1.0):
        raise RuntimeError(f"{prog.__name__}: max abs error {err:.3e} against numpy")
    summary = result.summary()
    used = sum(1 for c in summary.cores if c.blocks)
    cores = f"{summary.tasks} task(s), {summary.blocks} block(s) on {used}/{len(summary.cores)} cores"
    return t1 - t0, max(t2 - t1 - run, 0.0), run, err, cores


def measure(work: Path, quick: bool):
    reps = 3 if quick else 7
    rows = []

    nq, ns, nd, nb = (16, 128, 64, 32) if quick else (32, 512, 128, 64)
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s).astype(np.float16) for s in ((nq, nd), (ns, nd), (ns, nd)))
    c, b, r, err, cores = _split(flash_attention.make_flash(nq, ns, nd, nb), (q, k, v), np.zeros((nq, nd), np.float32),
                          flash_attention.reference(q, k, v), work / "flash", reps)
    rows.append(("model_flash_attention",
                 f"flash attention example: q [{nq}, {nd}] fp16 over {ns} keys, blocks of {nb}",
                 r * 1e3, "ms", f"compile {c * 1e3:.0f} ms, build {b:.2f} s (kernels cold); max err {err:.1e}; {cores}", reps))

    batch, heads, dim, bs, maxb = (8, 16, 64, 16, 4) if quick else (8, 16, 128, 64, 8)
    pages = batch * maxb
    args = paged_attention.make_inputs(batch, heads, dim, bs, maxb, pages)
    ref = paged_attention.reference(*args, heads, bs, maxb)
    size = f"batch {batch}, {heads} heads of {dim}, <= {maxb} pages of {bs}"
    for spmd in (False, True):
        prog = paged_attention.make_paged_attention(batch, heads, dim, bs, maxb, pages, spmd=spmd)
        c, b, r, err, cores = _split(prog, args, np.zeros((batch * heads, dim), np.float32), ref,
                              work / f"paged_{spmd}", reps)
        key, what = ("model_paged_decode_spmd", f"  the same as SPMD, one block per sequence ({batch})") if spmd \
            else ("model_paged_decode", f"paged attention decode example: {size}")
        note = "its kernel is the row above's: a cache hit" if spmd else "kernels cold"
        rows.append((key, what, r * 1e3, "ms", f"compile {c * 1e3:.0f} ms, build {b:.2f} s ({note}); "
                                                f"max err {err:.1e}; {cores}", reps))

    dims = (4, 16, 256, 4, 512) if quick else (4, 16, 512, 8, 1024)
    inputs = decoder_layer.make_inputs(*dims)
    ref = decoder_layer.reference(*inputs, dims[0], dims[1], dims[3])
    c, b, r, err, cores = _split(decoder_layer.make_decoder(*dims), inputs,
                                 np.zeros((dims[0] * dims[1], dims[2]), np.float16), ref, work / "decoder", reps)
    rows.append(("model_decoder_layer", f"decoder layer example: batch {dims[0]} x seq {dims[1]}, hidden {dims[2]}, "
                                        f"{dims[3]} heads, ffn {dims[4]}, fp16", r * 1e3, "ms",
                 f"compile {c * 1e3:.0f} ms, build {b:.2f} s (7 kernels cold); max err {err:.1e}; {cores}", reps))

    # the largest the example takes on a2a3: 128 tokens (one Acc tile of rows) at hidden 512 (its
    # RMSNorm keeps 16 whole rows in UB, proj_rope a [128, head] Acc FIFO slot beside its tiles),
    # the FFN 4x (quick: 64 tokens)
    dims = (2, 32, 512, 8, 2048) if quick else (2, 64, 512, 8, 2048)
    inputs = decoder_layer.make_inputs(*dims)
    ref = decoder_layer.reference(*inputs, dims[0], dims[1], dims[3])
    c, b, r, err, cores = _split(decoder_layer.make_decoder(*dims), inputs,
                                 np.zeros((dims[0] * dims[1], dims[2]), np.float16), ref, work / "decoder_big",
                                 max(1, reps // 3))
    flops = 2 * dims[0] * dims[1] * dims[2] * (4 * dims[2] + 3 * dims[4])
    rows.append(("model_decoder_layer_large", f"  the same at the largest size it takes: batch {dims[0]} x seq "
                                              f"{dims[1]}, hidden {dims[2]}, {dims[3]} heads, ffn {dims[4]}",
                 r * 1e3, "ms",
                 f"compile {c * 1e3:.0f} ms, build {b:.2f} s (7 kernels cold), run {r:.2f} s "
                 f"({flops / r / 1e9:.0f} GFLOP/s of projections); max err {err:.1e}; {cores}", max(1, reps // 3)))

    # a model's size (examples/decoder_layer_blocked.py: RMSNorm over column blocks, projections over
    # token blocks, attention over query blocks): hidden 4096, 32 heads of 128, ffn 11008 (LLaMA-7B's),
    # 256 tokens; cold = compile + the first call (g++ of its kernels, the simulator library cached)
    dims = (2, 64, 1024, 8, 512) if quick else (2, 128, 4096, 32, 11008)
    inputs = decoder_layer_blocked.make_inputs(*dims)
    ref = decoder_layer_blocked.reference(*inputs, dims[0], dims[1], dims[3])
    reps4k = max(1, reps // 3)
    c, b, r, err, cores = _split(decoder_layer_blocked.make_decoder(*dims), inputs,
                                 np.zeros((dims[0] * dims[1], dims[2]), np.float16), ref, work / "decoder_4k", reps4k)
    flops = 2 * dims[0] * dims[1] * dims[2] * (4 * dims[2] + 3 * dims[4])
    size = (f"batch {dims[0]} x seq {dims[1]}, hidden {dims[2]}, {dims[3]} heads, ffn {dims[4]}")
    rows.append(("model_decoder_4k", f"decoder layer at a model's size (blocked kernels): {size}", r, "s",
                 f"warm run; {flops / r / 1e9:.0f} GFLOP/s of projections; max err {err:.1e}; {cores}", reps4k))
    rows.append(("model_decoder_4k_cold", "  the same, compile + first call (7 kernels cold)", c + b + r, "s",
                 f"compile {c:.2f} s + build {b:.2f} s + run {r:.2f} s", reps4k))

    m, n, k, split = (40, 72, 1000, 4) if quick else (96, 200, 4000, 8)
    a, bm = auto_tiled_matmul.make_inputs(m, n, k)
    ref = auto_tiled_matmul.reference(a, bm)
    tm, tn, tk = auto_tiled_matmul.choose_tiles("a2a3sim", m, n, splitk_matmul.slice_of(k, split))
    c, b, r, err, cores = _split(splitk_matmul.make_splitk(m, n, k, tm, tn, tk, split), (a, bm),
                                 np.zeros((m, n), np.float32), ref, work / "splitk", reps)
    rows.append(("model_splitk_matmul", f"split-K matmul example: [{m}, {k}] @ [{k}, {n}] fp16, {split} SPMD slices",
                 r * 1e3, "ms", f"compile {c * 1e3:.0f} ms, build {b:.2f} s (kernels cold); tiles {tm}x{tn}x{tk}; "
                                f"max err {err:.1e}; {cores}", reps))

    m, n, k = (150, 300, 200) if quick else (300, 520, 700)
    a, bm = auto_tiled_matmul.make_inputs(m, n, k)
    ref = auto_tiled_matmul.reference(a, bm)
    for platform, key in (("a2a3sim", "model_auto_tiled_matmul"), ("a5sim", "model_auto_tiled_matmul_a5")):
        tm, tn, tk = auto_tiled_matmul.choose_tiles(platform, m, n, k)
        c, b, r, err, cores = _split(auto_tiled_matmul.make_matmul(m, n, k, tm, tn, tk), (a, bm),
                                     np.zeros((m, n), np.float32), ref, work / key, reps, platform=platform)
        what = f"auto-tiled matmul example: [{m}, {k}] @ [{k}, {n}] fp16 on {platform}" if platform == "a2a3sim" \
            else f"  the same on {platform} (its larger Acc: larger tiles)"
        rows.append((key, what, r * 1e3, "ms", f"compile {c * 1e3:.0f} ms, build {b:.2f} s; tiles {tm}x{tn}x{tk}; "
                                               f"max err {err:.1e}; {cores}", reps))
    return rows
