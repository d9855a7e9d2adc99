"""Flash attention for one head with fp16 inputs: o = softmax(q @ k^T / sqrt(D)) @ v, computed with
an online softmax over blocks of keys in one mixed cube + vector kernel.

    python examples/flash_attention.py

K is stored [S, D] as a model keeps it and read with b_trans=True (a transposed view, no copy);
the scores go to the vector side, the fp16 probabilities come back to the cube for p @ v. Prints
the max error against numpy and the wall time split into compile, build (first call) and run.
"""
import math
import time

import numpy as np

import ptokit
import ptokit.language as pl


def make_flash(nq, ns, nd, nb):
    nblk = ns // nb
    scale = 1.0 / math.sqrt(nd)

    @pl.program
    class FlashAttention:
        @pl.function(type=pl.FunctionType.InCore)
        def attn(self, q: pl.Tensor[[nq, nd], pl.FP16], k: pl.Tensor[[ns, nd], pl.FP16],
                 v: pl.Tensor[[ns, nd], pl.FP16], o: pl.Out[pl.Tensor[[nq, nd], pl.FP32]]):
            s = pl.muls(pl.move(pl.matmul(q, k[0:nb, :], b_trans=True), target_memory=pl.Mem.Vec), scale)
            m = pl.row_max(s)
            e = pl.exp(pl.row_expand_sub(s, m))
            li = pl.row_sum(e)
            tp = pl.move(pl.move(pl.cast(e, target_type=pl.FP16), target_memory=pl.Mem.Mat),
                         target_memory=pl.Mem.Left)
            acc = pl.move(pl.matmul(tp, v[0:nb, :]), target_memory=pl.Mem.Vec)
            for j in pl.range(1, nblk):
                s = pl.muls(pl.move(pl.matmul(q, k[j * nb:(j + 1) * nb, :], b_trans=True),
                                    target_memory=pl.Mem.Vec), scale)
                m_new = pl.maximum(m, pl.row_max(s))
                alpha = pl.exp(pl.sub(m, m_new))
                e = pl.exp(pl.row_expand_sub(s, m_new))
                li = pl.add(pl.mul(li, alpha), pl.row_sum(e))
                tp = pl.move(pl.move(pl.cast(e, target_type=pl.FP16), target_memory=pl.Mem.Mat),
                             target_memory=pl.Mem.Left)
                pv = pl.move(pl.matmul(tp, v[j * nb:(j + 1) * nb, :]), target_memory=pl.Mem.Vec)
                acc = pl.add(pl.row_expand_mul(acc, alpha), pv)
                m = m_new
            o = pl.store(pl.row_expand_div(acc, li), [0, 0], o)
            return o

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, q: pl.Tensor[[nq, nd], pl.FP16], k: pl.Tensor[[ns, nd], pl.FP16],
                 v: pl.Tensor[[ns, nd], pl.FP16], o: pl.Out[pl.Tensor[[nq, nd], pl.FP32]]):
            o = self.attn(q, k, v, o)
            return o

    return FlashAttention


def reference(q, k, v):
    s = q.astype(np.float64) @ k.astype(np.float64).T / math.sqrt(q.shape[1])
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)


def main(nq=32, ns=512, nd=128, nb=64):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s).astype(np.float16) for s in ((nq, nd), (ns, nd), (ns, nd)))
    o = np.zeros((nq, nd), np.float32)
    t0 = time.perf_counter()
    compiled = ptokit.compile(make_flash(nq, ns, nd, nb), output_dir="build_output/flash_attention")
    t1 = time.perf_counter()
    compiled(q, k, v, o)                  # the first call builds the kernels
    t2 = time.perf_counter()
    compiled(q, k, v, o)
    t3 = time.perf_counter()
    ref = reference(q, k, v)
    err = float(np.max(np.abs(o - ref)))
    print(f"flash attention q[{nq}, {nd}] over {ns} keys in blocks of {nb}: max abs error vs numpy {err:.3e}")
    run = t3 - t2
    print(f"wall time: compile {t1 - t0:.2f} s, build {max(t2 - t1 - run, 0.0):.2f} s, run {run:.3f} s")
    return 0 if err < 2e-3 * max(np.abs(ref).max(), 1.0) else 1


if __name__ == "__main__":
    raise SystemExit(main())
