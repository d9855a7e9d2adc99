"""Split-K matmul: c = a @ b for fp16 a [M, K], b [K, N] into an fp32 c [M, N] when K is large and
M, N small, so that the output alone has too few tiles to keep the cores busy: K is cut into
`split` slices, one SPMD block each, and the blocks' partial products are summed into c.

    python examples/splitk_matmul.py                      # M, N, K = 96, 200, 4000, 8 slices
    python examples/splitk_matmul.py -p a5sim --split 4 --k 1000

How the partial sums are reduced (the choice): every block stores its partial [tm, tn] Acc tiles
straight into c with pl.store(..., atomic=pl.AtomicType.Add), after a first task has zeroed c.
The other way, a [split * M, N] workspace of partials and a reduction task, costs split * M * N
extra fp32 writes and reads and a second pass; the atomic store needs neither: the add happens
in global memory as the tile is written out. Its price: the order in which the blocks' adds land is
not fixed, so c can differ between runs in the last bits (summation order of `split` terms).

The tiles come from examples/auto_tiled_matmul.py's choose_tiles (the platform's Left / Right /
Acc capacities); M, N and K need not be multiples of them, nor K of the slice: the edge tiles and
the last K block of each slice are loaded with smaller valid shapes. Prints the max error against
numpy and the wall time split into compile, build (first call) and run.
"""
import argparse
import os
import sys

import numpy as np

import ptokit
import ptokit.language as pl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from auto_tiled_matmul import FRACTAL, choose_tiles, make_inputs, reference, run_timed  # noqa: E402


def slice_of(k, split):
    """K depth of one slice: a multiple of the fractal edge, every one of the `split` slices non-empty."""
    ks = -(-(-(-k // split)) // FRACTAL) * FRACTAL
    if (split - 1) * ks >= k:
        raise ValueError(f"K = {k} is too small for {split} slices of {ks} (a multiple of {FRACTAL})")
    return ks


def make_splitk(m, n, k, tm, tn, tk, split):
    mt, nt = -(-m // tm), -(-n // tn)
    ks = slice_of(k, split)
    zr = min(m, 64)                                  # rows per zeroing store
    zt = -(-m // zr)

    @pl.program
    class SplitKMatmul:
        @pl.function(type=pl.FunctionType.InCore)
        def zero(self, c: pl.Out[pl.Tensor[[m, n], pl.FP32]]):
            for i in pl.range(zt):
                z = pl.full([zr, n], dtype=pl.FP32, value=0.0)
                c = pl.store(pl.set_validshape(z, pl.min(zr, m - i * zr), n), [i * zr, 0], c)
            return c

        @pl.function(type=pl.FunctionType.InCore)
        def partial(self, a: pl.Tensor[[m, k], pl.FP16], b: pl.Tensor[[k, n], pl.FP16],
                    c: pl.InOut[pl.Tensor[[m, n], pl.FP32]]):
            k0 = pl.tile.get_block_idx() * ks              # this block's slice: k0 .. kend
            kend = pl.min(k0 + ks, k)
            nkb = (kend - k0 + tk - 1) // tk
            for i in pl.range(mt):
                rows = pl.min(tm, m - i * tm)
                for j in pl.range(nt):
                    cols = pl.min(tn, n - j * tn)
                    a0 = pl.load(a, [i * tm, k0], [tm, tk], valid_shape=[rows, pl.min(tk, kend - k0)],
                                 target_memory=pl.Mem.Mat)
                    b0 = pl.load(b, [k0, j * tn], [tk, tn], valid_shape=[pl.min(tk, kend - k0), cols],
                                 target_memory=pl.Mem.Mat)
                    acc = pl.matmul(pl.move(a0, target_memory=pl.Mem.Left), pl.move(b0, target_memory=pl.Mem.Right))
                    for p in pl.range(1, nkb):
                        kp = k0 + p * tk
                        depth = pl.min(tk, kend - kp)
                        ap = pl.load(a, [i * tm, kp], [tm, tk], valid_shape=[rows, depth], target_memory=pl.Mem.Mat)
                        bp = pl.load(b, [kp, j * tn], [tk, tn], valid_shape=[depth, cols], target_memory=pl.Mem.Mat)
                        acc = pl.matmul_acc(acc, pl.move(ap, target_memory=pl.Mem.Left),
                                            pl.move(bp, target_memory=pl.Mem.Right))
                    # c[tile] += this slice's partial product, atomically (the blocks run at once)
                    c = pl.store(pl.set_validshape(acc, rows, cols), [i * tm, j * tn], c, atomic=pl.AtomicType.Add)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[m, k], pl.FP16], b: pl.Tensor[[k, n], pl.FP16],
                 c: pl.Out[pl.Tensor[[m, n], pl.FP32]]):
            c = self.zero(c)
            with pl.spmd(split):
                c = self.partial(a, b, c)
            return c

    return SplitKMatmul


def tolerance(k):
    """As auto_tiled_matmul.tolerance: fp32 summation of k exact fp16 products (the slices' order
    of the atomic adds is one more fp32 rounding per slice)."""
    return 1e-5 * max(k, 100)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=ptokit.targets.SIM_PLATFORMS)
    ap.add_argument("--m", type=int, default=96)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--k", type=int, default=4000)
    ap.add_argument("--split", type=int, default=8, help="K slices = SPMD blocks")
    args = ap.parse_args(argv)
    m, n, k, split = args.m, args.n, args.k, args.split
    tm, tn, tk = choose_tiles(args.platform, m, n, slice_of(k, split))
    a, b = make_inputs(m, n, k)
    c = np.full((m, n), np.nan, np.float32)
    _, timing = run_timed(make_splitk(m, n, k, tm, tn, tk, split), args.platform, (a, b, c))
    ref = reference(a, b)
    err = float(np.max(np.abs(c - ref)))
    scale = max(float(np.abs(ref).max()), 1.0)
    print(f"split-K matmul [{m}, {k}] @ [{k}, {n}] fp16 -> fp32 on {args.platform}: {split} slices of "
          f"{slice_of(k, split)}, tiles tm {tm}, tn {tn}, tk {tk}; max abs error vs numpy {err:.3e} "
          f"({err / scale:.1e} of the result's scale)")
    print(timing)
    return 0 if err < tolerance(k) * scale else 1


if __name__ == "__main__":
    raise SystemExit(main())
