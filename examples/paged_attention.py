"""Paged attention decode with fp16 KV caches: for each sequence b of a batch,
out[b] = softmax(q[b] @ K_b^T / sqrt(D)) @ V_b, where K_b / V_b are the first context_lens[b] rows
of the sequence's pages, scattered over a shared pool and listed in its row of a block table.

    python examples/paged_attention.py           # one task looping over the batch
    python examples/paged_attention.py --spmd    # one SPMD block per sequence

Each sequence has its own, run-time number of pages (ceil(context_lens[b] / block_size)). One
mixed cube + vector kernel walks them with an online softmax: pl.gather_row copies a page of keys
and one of values into L1 tiles (pl.create_l1), the cube computes the scores q @ K^T (the key tile
read through b_trans=True, no copy), the vector side masks the columns past the context length of
a partial last page (their positions compared with it, pl.tile.sels), updates the running max and sum,
and hands the fp16 probabilities back to the cube for p @ V. Prints the max error against numpy
and the wall time split into compile, build (first call) and run.
"""
import math
import sys
import time

import numpy as np

import ptokit
import ptokit.language as pl


def make_paged_attention(batch, heads, dim, block_size, max_blocks, num_pages, spmd=False):
    """The decode program: q [batch * heads, dim], key/value caches [num_pages * block_size, dim],
    block_table [batch * max_blocks] (page numbers), context_lens [batch], out [batch * heads, dim].
    spmd=False: one task loops over the sequences; spmd=True: one SPMD block per sequence, running
    the same kernel (its sequences are picked by pl.tile.get_block_idx / get_block_num)."""
    rows = num_pages * block_size
    scale = 1.0 / math.sqrt(dim)

    @pl.program
    class PagedAttention:
        @pl.function(type=pl.FunctionType.Inline)
        def attend(self, b: pl.Scalar[pl.INDEX], q: pl.Tensor[[batch * heads, dim], pl.FP16],
                   key_cache: pl.Tensor[[rows, dim], pl.FP16], value_cache: pl.Tensor[[rows, dim], pl.FP16],
                   block_table: pl.Tensor[[batch * max_blocks], pl.INT32],
                   context_lens: pl.Tensor[[batch], pl.INT32],
                   out: pl.Out[pl.Tensor[[batch * heads, dim], pl.FP32]]):
            """Sequence b: its heads' queries against its pages, written to its rows of out."""
            ctx = pl.cast(pl.read(context_lens, b), pl.INDEX)
            n_pages = (ctx + block_size - 1) // block_size
            ctx_f = pl.cast(ctx, pl.FP32)
            mask_tmp = pl.tile.create_tile([1, 32], dtype=pl.UINT8)
            qi = pl.move(pl.load(q, [b * heads, 0], [heads, dim], target_memory=pl.Mem.Mat),
                         target_memory=pl.Mem.Left)
            m = pl.reshape(pl.full([1, heads], dtype=pl.FP32, value=-1e30), [heads, 1])   # running row max
            li = pl.reshape(pl.full([1, heads], dtype=pl.FP32, value=0.0), [heads, 1])    # running row sum
            acc = pl.full([heads, dim], dtype=pl.FP32, value=0.0)
            for j in pl.range(n_pages):
                page = pl.cast(pl.read(block_table, b * max_blocks + j), pl.INDEX)
                kj = pl.gather_row(pl.create_l1([block_size, dim], pl.FP16), key_cache, [0, 0],
                                   [page * block_size, 0], [block_size, dim])
                vj = pl.gather_row(pl.create_l1([block_size, dim], pl.FP16), value_cache, [0, 0],
                                   [page * block_size, 0], [block_size, dim])
                s = pl.muls(pl.move(pl.matmul(qi, kj, b_trans=True), target_memory=pl.Mem.Vec), scale)
                # keys past the context length (in a partial last page) take no part in the softmax
                pos = pl.col_expand(s, pl.cast(pl.arange(j * block_size, [1, block_size]), target_type=pl.FP32))
                s = pl.tile.sels(pl.cmp(pos, ctx_f, cmp_type=2), s, mask_tmp, -1e30)
                m_new = pl.maximum(m, pl.row_max(s))
                alpha = pl.exp(pl.sub(m, m_new))
                e = pl.exp(pl.row_expand_sub(s, m_new))
                li = pl.add(pl.mul(li, alpha), pl.row_sum(e))
                tp = pl.move(pl.move(pl.cast(e, target_type=pl.FP16), target_memory=pl.Mem.Mat),
                             target_memory=pl.Mem.Left)
                pv = pl.move(pl.matmul(tp, vj), target_memory=pl.Mem.Vec)
                acc = pl.add(pl.row_expand_mul(acc, alpha), pv)
                m = m_new
            out = pl.store(pl.row_expand_div(acc, li), [b * heads, 0], out)
            return out

        @pl.function(type=pl.FunctionType.InCore)
        def decode(self, q: pl.Tensor[[batch * heads, dim], pl.FP16],
                   key_cache: pl.Tensor[[rows, dim], pl.FP16], value_cache: pl.Tensor[[rows, dim], pl.FP16],
                   block_table: pl.Tensor[[batch * max_blocks], pl.INT32],
                   context_lens: pl.Tensor[[batch], pl.INT32],
                   out: pl.Out[pl.Tensor[[batch * heads, dim], pl.FP32]]):
            # sequences b = block * per + i (one task: block 0 of 1; SPMD: one sequence per block)
            per = batch // pl.tile.get_block_num()
            for i in pl.range(per):
                out = self.attend(pl.tile.get_block_idx() * per + i, q, key_cache, value_cache, block_table,
                                  context_lens, out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, q: pl.Tensor[[batch * heads, dim], pl.FP16],
                 key_cache: pl.Tensor[[rows, dim], pl.FP16], value_cache: pl.Tensor[[rows, dim], pl.FP16],
                 block_table: pl.Tensor[[batch * max_blocks], pl.INT32],
                 context_lens: pl.Tensor[[batch], pl.INT32],
                 out: pl.Out[pl.Tensor[[batch * heads, dim], pl.FP32]]):
            if spmd:
                with pl.spmd(batch):
                    out = self.decode(q, key_cache, value_cache, block_table, context_lens, out)
            else:
                out = self.decode(q, key_cache, value_cache, block_table, context_lens, out)
            return out

    return PagedAttention


def make_inputs(batch, heads, dim, block_size, max_blocks, num_pages, seed=0):
    """Random fp16 q and caches, each sequence a random context length (1 .. max_blocks pages'
    worth) and distinct random pages of the pool."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((batch * heads, dim)).astype(np.float16)
    key_cache, value_cache = (rng.standard_normal((num_pages * block_size, dim)).astype(np.float16)
                              for _ in range(2))
    context_lens = rng.integers(1, max_blocks * block_size + 1, batch).astype(np.int32)
    context_lens[0] = max_blocks * block_size           # one sequence uses every page it may
    block_table = rng.permutation(num_pages)[:batch * max_blocks].astype(np.int32)
    return q, key_cache, value_cache, block_table, context_lens


def reference(q, key_cache, value_cache, block_table, context_lens, heads, block_size, max_blocks):
    out = np.zeros(q.shape, np.float64)
    for b, n in enumerate(context_lens):
        pages = block_table[b * max_blocks:(b + 1) * max_blocks]
        rows = (pages[:, None] * block_size + np.arange(block_size)).reshape(-1)[:n]
        k, v = key_cache[rows].astype(np.float64), value_cache[rows].astype(np.float64)
        qb = q[b * heads:(b + 1) * heads].astype(np.float64)
        s = qb @ k.T / math.sqrt(q.shape[1])
        p = np.exp(s - s.max(axis=1, keepdims=True))
        out[b * heads:(b + 1) * heads] = (p / p.sum(axis=1, keepdims=True)) @ v
    return out


def main(batch=8, heads=16, dim=128, block_size=64, max_blocks=8, spmd=False):
    num_pages = batch * max_blocks
    args = make_inputs(batch, heads, dim, block_size, max_blocks, num_pages)
    out = np.zeros((batch * heads, dim), np.float32)
    t0 = time.perf_counter()
    compiled = ptokit.compile(make_paged_attention(batch, heads, dim, block_size, max_blocks, num_pages, spmd),
                              output_dir="build_output/paged_attention")
    t1 = time.perf_counter()
    compiled(*args, out)                  # the first call builds the kernels
    t2 = time.perf_counter()
    compiled(*args, out)
    t3 = time.perf_counter()
    ref = reference(*args, heads, block_size, max_blocks)
    err = float(np.max(np.abs(out - ref)))
    how = f"SPMD over {batch} blocks" if spmd else "one task"
    print(f"paged attention decode ({how}): batch {batch}, {heads} heads of {dim}, pages of {block_size}, "
          f"context lengths {args[4].tolist()}: max abs error vs numpy {err:.3e}")
    run = t3 - t2
    print(f"wall time: compile {t1 - t0:.2f} s, build {max(t2 - t1 - run, 0.0):.2f} s, run {run:.3f} s")
    return 0 if err < 2e-3 * max(np.abs(ref).max(), 1.0) else 1


if __name__ == "__main__":
    raise SystemExit(main(spmd="--spmd" in sys.argv[1:]))
