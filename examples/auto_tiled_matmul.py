"""Auto-tiled matmul: c = a @ b for fp16 a [M, K], b [K, N] into an fp32 c [M, N], with the tile
sizes (tm, tn, tk) worked out from the platform's cube buffer capacities, and M, N, K that need
not be multiples of them.

    python examples/auto_tiled_matmul.py                       # a2a3sim, M, N, K = 300, 520, 700
    python examples/auto_tiled_matmul.py -p a5sim --m 77 --n 130 --k 90

``choose_tiles`` reads the Left (L0A), Right (L0B) and Acc (L0C) capacities of the platform's
arch from ptokit's target table (``ptokit.ir.types.CAPACITY``): the Acc tile [tm, tn] of fp32
takes the largest power-of-two sizes that fit the Acc buffer (tn may be twice tm), then tk is
the largest multiple of 16 for which both the [tm, tk] Left and the [tk, tn] Right tiles of
fp16 fit theirs. Tiles never grow past the problem (rounded up to the 16-element fractal).

One kernel walks the output tile by tile (m outer, n inner) and, per output tile, the K blocks
into one Acc tile (pl.matmul for the first block, pl.matmul_acc for the others). The last tile
of each dimension is partial: its window is loaded with a smaller valid shape
(valid_shape=[rows, cols], the physical tile keeping its full size), so the cube multiplies only
the valid rows / columns / K depth, and the store writes only the valid region of the Acc tile.
Prints the tiles chosen, the max error against numpy and the wall time split into compile, build
(first call) and run.
"""
import argparse
import time

import numpy as np

import ptokit
import ptokit.language as pl
from ptokit.ir.types import CAPACITY, MemorySpace
from ptokit.targets import target_arch

FRACTAL = 16          # the cube's fractal edge for fp16 operands (16 x 16 elements, 512 bytes)


def _up(x, q=FRACTAL):
    return -(-x // q) * q


def _pow2_at_most(x):
    p = FRACTAL
    while p * 2 <= x:
        p *= 2
    return p


def choose_tiles(platform, m, n, k, in_bytes=2, acc_bytes=4):
    """(tm, tn, tk) for an [m, k] @ [k, n] matmul on platform, from its Left/Right/Acc capacities."""
    cap = CAPACITY[target_arch(platform)]
    left, right, acc = cap[MemorySpace.Left], cap[MemorySpace.Right], cap[MemorySpace.Acc]
    acc_elems = acc // acc_bytes
    tm = min(_pow2_at_most(int(acc_elems ** 0.5)), _up(m))
    tn = min(_pow2_at_most(acc_elems // tm), _up(n))
    tk = min(left // (in_bytes * tm), right // (in_bytes * tn)) // FRACTAL * FRACTAL
    tk = min(tk, _up(k))
    assert tm * tn * acc_bytes <= acc and tm * tk * in_bytes <= left and tk * tn * in_bytes <= right
    return tm, tn, tk


def make_matmul(m, n, k, tm, tn, tk):
    mt, nt, kt = -(-m // tm), -(-n // tn), -(-k // tk)

    @pl.program
    class AutoTiledMatmul:
        @pl.function(type=pl.FunctionType.InCore)
        def matmul(self, a: pl.Tensor[[m, k], pl.FP16], b: pl.Tensor[[k, n], pl.FP16],
                   c: pl.Out[pl.Tensor[[m, n], pl.FP32]]):
            for i in pl.range(mt):
                rows = pl.min(tm, m - i * tm)                 # valid rows of this output tile
                for j in pl.range(nt):
                    cols = pl.min(tn, n - j * tn)             # valid columns
                    a0 = pl.load(a, [i * tm, 0], [tm, tk], valid_shape=[rows, pl.min(tk, k)], target_memory=pl.Mem.Mat)
                    b0 = pl.load(b, [0, j * tn], [tk, tn], valid_shape=[pl.min(tk, k), cols], target_memory=pl.Mem.Mat)
                    acc = pl.matmul(pl.move(a0, target_memory=pl.Mem.Left), pl.move(b0, target_memory=pl.Mem.Right))
                    for p in pl.range(1, kt):
                        depth = pl.min(tk, k - p * tk)        # valid K depth of this block
                        ap = pl.load(a, [i * tm, p * tk], [tm, tk], valid_shape=[rows, depth], target_memory=pl.Mem.Mat)
                        bp = pl.load(b, [p * tk, j * tn], [tk, tn], valid_shape=[depth, cols], target_memory=pl.Mem.Mat)
                        acc = pl.matmul_acc(acc, pl.move(ap, target_memory=pl.Mem.Left),
                                            pl.move(bp, target_memory=pl.Mem.Right))
                    # the cube wrote rows x cols of the Acc tile; its valid region says so to the store
                    c = pl.store(pl.set_validshape(acc, rows, cols), [i * tm, j * tn], c)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[m, k], pl.FP16], b: pl.Tensor[[k, n], pl.FP16],
                 c: pl.Out[pl.Tensor[[m, n], pl.FP32]]):
            c = self.matmul(a, b, c)
            return c

    return AutoTiledMatmul


def make_inputs(m, n, k, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, k)).astype(np.float16), rng.standard_normal((k, n)).astype(np.float16)


def reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def tolerance(k):
    """fp16 operands are exact in the fp32 accumulator's products; what differs from a float64
    reference is the fp32 summation over k terms of size ~1: k * 2^-24 relative to sqrt(k) * |x|,
    bounded here by 1e-5 * k relative to the result's scale (1e-3 at k = 100)."""
    return 1e-5 * max(k, 100)


def run_timed(prog, platform, args):
    """Compile prog for platform, call it on args twice (the first call builds the kernels):
    (the second call's RunResult, a line with the wall time split into compile, build and run and
    the cores the run used)."""
    t0 = time.perf_counter()
    compiled = ptokit.compile(prog, platform=platform, output_dir=f"build_output/{prog.name}")
    t1 = time.perf_counter()
    compiled(*args)
    t2 = time.perf_counter()
    result = compiled(*args)
    run = time.perf_counter() - t2
    summary = result.summary()
    used = sum(1 for core in summary.cores if core.blocks)
    return result, (f"wall time: compile {t1 - t0:.2f} s, build {max(t2 - t1 - run, 0.0):.2f} s, run {run:.3f} s; "
                    f"{summary.tasks} task(s), {summary.blocks} block(s) on {used} of {len(summary.cores)} "
                    f"simulated cores, window {summary.window_ns / 1e6:.2f} ms")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=ptokit.targets.SIM_PLATFORMS)
    ap.add_argument("--m", type=int, default=300)
    ap.add_argument("--n", type=int, default=520)
    ap.add_argument("--k", type=int, default=700)
    args = ap.parse_args(argv)
    m, n, k = args.m, args.n, args.k
    tm, tn, tk = choose_tiles(args.platform, m, n, k)
    a, b = make_inputs(m, n, k)
    c = np.zeros((m, n), np.float32)
    _, timing = run_timed(make_matmul(m, n, k, tm, tn, tk), args.platform, (a, b, c))
    ref = reference(a, b)
    err = float(np.max(np.abs(c - ref)))
    scale = max(float(np.abs(ref).max()), 1.0)
    print(f"auto-tiled matmul [{m}, {k}] @ [{k}, {n}] fp16 -> fp32 on {args.platform}: tiles "
          f"tm {tm}, tn {tn}, tk {tk} ({-(-m // tm)} x {-(-n // tn)} output tiles, {-(-k // tk)} K blocks); "
          f"max abs error vs numpy {err:.3e} ({err / scale:.1e} of the result's scale)")
    print(timing)
    return 0 if err < tolerance(k) * scale else 1


if __name__ == "__main__":
    raise SystemExit(main())
