"""One decoder layer of a small LLaMA-style model, fp16 weights and activations, fp32 accumulation:

    h   = x + Attention(RMSNorm(x) * w_norm1)          causal, multi-head, rotary positions
    out = h + W_down (silu(W_gate n) * (W_up n)),   n = RMSNorm(h) * w_norm2

    python examples/decoder_layer.py                              # batch 4, seq 16, hidden 512
    python examples/decoder_layer.py --batch 8 --hidden 1024 --heads 16 --ffn 2048 -p a5sim

x is [batch * seq, hidden] (the tokens of every sequence, one row each). The layer is seven
kernels, one task each (SPMD where the work splits into independent column tiles or sequences):

    rmsnorm      vector: row mean of squares, rsqrt, scale by the weight; fp16 out
    proj_rope    mixed, one SPMD block per head: q (or k) = n @ W[:, head] over K blocks on the
                 cube, then rotary embedding on the vector side (the head's two halves times the
                 cos / sin tables of the token positions), fp16 out
    proj         cube only, SPMD over column tiles: v = n @ W_v, cast to fp16 on the way out of Acc
    attention    mixed, one SPMD block per sequence, heads in a loop: scores q k^T (k read through
                 b_trans=True, no copy) scaled and causally masked (pl.tile.tri), a full softmax
                 in fp32 (the rows are short), fp16 probabilities back to the cube for p @ v
    oproj        mixed, SPMD over column tiles: h = x + attn @ W_o
    gate_up      mixed, SPMD over column tiles of the FFN: silu(n @ W_gate) * (n @ W_up)
    down         mixed, SPMD over column tiles: out = h + act @ W_down

Every matmul takes fp16 operands and accumulates in fp32 (the cube's Acc); every activation
between kernels is stored as fp16, as a model's are. The numpy reference computes in float64 but
rounds to fp16 at the same points, so what remains is the fp32 accumulation (relative 1e-6 over
the K of a projection) and, where a value sits next to an fp16 rounding boundary, a flip by one
fp16 ulp (2^-11 relative, 4.9e-4) that the following layers carry on damped: the check is
2e-3 of the output's scale, four fp16 ulps. Prints the max error and the wall time split into
compile, build (first call) and run.
"""
import argparse
import math
import time

import numpy as np

import ptokit
import ptokit.language as pl

EPS = 1e-6
TK = 128          # K block of every projection (a [tokens, 128] fp16 Left tile, a [128, tn] Right tile)
TN = 64           # output column tile of the projections (Acc [tokens, 64] fp32)


def make_decoder(batch, seq, hidden, heads, ffn, theta=10000.0):
    t, d = batch * seq, hidden // heads
    half = d // 2
    scale = 1.0 / math.sqrt(d)
    if hidden % heads or d % 32 or hidden % TK or ffn % TK or hidden % TN or ffn % TN:
        raise ValueError(f"hidden {hidden} / heads {heads} (head dim {d}, a multiple of 32) and ffn {ffn} must be "
                         f"multiples of the {TK}-deep K blocks and {TN}-wide column tiles")
    if seq % 16 or t > 128:
        raise ValueError(f"seq {seq} must be a multiple of 16 and batch * seq ({t}) at most 128 rows (one Acc tile)")
    rb = 16                                   # rows per RMSNorm block
    kh, kf = hidden // TK, ffn // TK

    @pl.program
    class DecoderLayer:
        @pl.function(type=pl.FunctionType.InCore)
        def rmsnorm(self, x: pl.Tensor[[t, hidden], pl.FP16], w: pl.Tensor[[1, hidden], pl.FP32],
                    y: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            wt = pl.load(w, [0, 0], [1, hidden])
            for r in pl.range(t // rb):
                xf = pl.cast(pl.load(x, [r * rb, 0], [rb, hidden]), target_type=pl.FP32)
                ms = pl.muls(pl.row_sum(pl.mul(xf, xf)), 1.0 / hidden)
                yn = pl.col_expand_mul(pl.row_expand_mul(xf, pl.rsqrt(pl.adds(ms, EPS))), wt)
                y = pl.store(pl.cast(yn, target_type=pl.FP16), [r * rb, 0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def proj_rope(self, n: pl.Tensor[[t, hidden], pl.FP16], w: pl.Tensor[[hidden, hidden], pl.FP16],
                      cos: pl.Tensor[[t, half], pl.FP32], sin: pl.Tensor[[t, half], pl.FP32],
                      y: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            c0 = pl.tile.get_block_idx() * d                       # this block's head: columns c0 .. c0 + d
            acc = pl.matmul(n[:, 0:TK], w[0:TK, c0:c0 + d])
            for kb in pl.range(1, kh):
                acc = pl.matmul_acc(acc, n[:, kb * TK:(kb + 1) * TK], w[kb * TK:(kb + 1) * TK, c0:c0 + d])
            p = pl.move(acc, target_memory=pl.Mem.Vec)
            x1 = pl.slice(p, [t, half], [0, 0])
            x2 = pl.slice(p, [t, half], [0, half])
            ct = pl.load(cos, [0, 0], [t, half])
            st = pl.load(sin, [0, 0], [t, half])
            # rotate the pairs (x1, x2) of the head's two halves by the token's angle
            r1 = pl.sub(pl.mul(x1, ct), pl.mul(x2, st))
            r2 = pl.add(pl.mul(x2, ct), pl.mul(x1, st))
            y = pl.store(pl.cast(pl.concat(r1, r2), target_type=pl.FP16), [0, c0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def proj(self, n: pl.Tensor[[t, hidden], pl.FP16], w: pl.Tensor[[hidden, hidden], pl.FP16],
                 y: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            c0 = pl.tile.get_block_idx() * TN
            acc = pl.matmul(n[:, 0:TK], w[0:TK, c0:c0 + TN])
            for kb in pl.range(1, kh):
                acc = pl.matmul_acc(acc, n[:, kb * TK:(kb + 1) * TK], w[kb * TK:(kb + 1) * TK, c0:c0 + TN])
            y = pl.store(pl.cast(acc, target_type=pl.FP16), [0, c0], y)     # cast on the way out of Acc
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def attention(self, q: pl.Tensor[[t, hidden], pl.FP16], k: pl.Tensor[[t, hidden], pl.FP16],
                      v: pl.Tensor[[t, hidden], pl.FP16], o: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            r0 = pl.tile.get_block_idx() * seq                     # this block's sequence: rows r0 .. r0 + seq
            # causal mask as an additive bias: 0 where key <= query, -1e30 above the diagonal
            bias = pl.muls(pl.adds(pl.tile.tri(0, [seq, seq], dtype=pl.FP32), -1.0), 1e30)
            for h in pl.range(heads):
                s = pl.move(pl.matmul(q[r0:r0 + seq, h * d:(h + 1) * d], k[r0:r0 + seq, h * d:(h + 1) * d],
                                      b_trans=True), target_memory=pl.Mem.Vec)
                s = pl.add(pl.muls(s, scale), bias)
                e = pl.exp(pl.row_expand_sub(s, pl.row_max(s)))
                li = pl.row_sum(e)
                pt = pl.move(pl.move(pl.cast(e, target_type=pl.FP16), target_memory=pl.Mem.Mat),
                             target_memory=pl.Mem.Left)
                pv = pl.move(pl.matmul(pt, v[r0:r0 + seq, h * d:(h + 1) * d]), target_memory=pl.Mem.Vec)
                o = pl.store(pl.cast(pl.row_expand_div(pv, li), target_type=pl.FP16), [r0, h * d], o)
            return o

        @pl.function(type=pl.FunctionType.InCore)
        def oproj(self, a: pl.Tensor[[t, hidden], pl.FP16], w: pl.Tensor[[hidden, hidden], pl.FP16],
                  res: pl.Tensor[[t, hidden], pl.FP16], y: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            c0 = pl.tile.get_block_idx() * TN
            acc = pl.matmul(a[:, 0:TK], w[0:TK, c0:c0 + TN])
            for kb in pl.range(1, kh):
                acc = pl.matmul_acc(acc, a[:, kb * TK:(kb + 1) * TK], w[kb * TK:(kb + 1) * TK, c0:c0 + TN])
            out = pl.add(pl.move(acc, target_memory=pl.Mem.Vec),
                         pl.cast(pl.load(res, [0, c0], [t, TN]), target_type=pl.FP32))
            y = pl.store(pl.cast(out, target_type=pl.FP16), [0, c0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def gate_up(self, n: pl.Tensor[[t, hidden], pl.FP16], wg: pl.Tensor[[hidden, ffn], pl.FP16],
                    wu: pl.Tensor[[hidden, ffn], pl.FP16], y: pl.Out[pl.Tensor[[t, ffn], pl.FP16]]):
            c0 = pl.tile.get_block_idx() * TN
            g = pl.matmul(n[:, 0:TK], wg[0:TK, c0:c0 + TN])
            u = pl.matmul(n[:, 0:TK], wu[0:TK, c0:c0 + TN])
            for kb in pl.range(1, kh):
                g = pl.matmul_acc(g, n[:, kb * TK:(kb + 1) * TK], wg[kb * TK:(kb + 1) * TK, c0:c0 + TN])
                u = pl.matmul_acc(u, n[:, kb * TK:(kb + 1) * TK], wu[kb * TK:(kb + 1) * TK, c0:c0 + TN])
            gv = pl.move(g, target_memory=pl.Mem.Vec)
            # silu(g) * u = g * u / (1 + exp(-g))
            act = pl.div(pl.mul(gv, pl.move(u, target_memory=pl.Mem.Vec)), pl.adds(pl.exp(pl.neg(gv)), 1.0))
            y = pl.store(pl.cast(act, target_type=pl.FP16), [0, c0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def down(self, a: pl.Tensor[[t, ffn], pl.FP16], w: pl.Tensor[[ffn, hidden], pl.FP16],
                 res: pl.Tensor[[t, hidden], pl.FP16], y: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            c0 = pl.tile.get_block_idx() * TN
            acc = pl.matmul(a[:, 0:TK], w[0:TK, c0:c0 + TN])
            for kb in pl.range(1, kf):
                acc = pl.matmul_acc(acc, a[:, kb * TK:(kb + 1) * TK], w[kb * TK:(kb + 1) * TK, c0:c0 + TN])
            out = pl.add(pl.move(acc, target_memory=pl.Mem.Vec),
                         pl.cast(pl.load(res, [0, c0], [t, TN]), target_type=pl.FP32))
            y = pl.store(pl.cast(out, target_type=pl.FP16), [0, c0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[t, hidden], pl.FP16], w_norm1: pl.Tensor[[1, hidden], pl.FP32],
                 wq: pl.Tensor[[hidden, hidden], pl.FP16], wk: pl.Tensor[[hidden, hidden], pl.FP16],
                 wv: pl.Tensor[[hidden, hidden], pl.FP16], wo: pl.Tensor[[hidden, hidden], pl.FP16],
                 w_norm2: pl.Tensor[[1, hidden], pl.FP32], w_gate: pl.Tensor[[hidden, ffn], pl.FP16],
                 w_up: pl.Tensor[[hidden, ffn], pl.FP16], w_down: pl.Tensor[[ffn, hidden], pl.FP16],
                 cos: pl.Tensor[[t, half], pl.FP32], sin: pl.Tensor[[t, half], pl.FP32],
                 out: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            n1 = pl.create_tensor([t, hidden], dtype=pl.FP16)
            n1 = self.rmsnorm(x, w_norm1, n1)
            q = pl.create_tensor([t, hidden], dtype=pl.FP16)
            k = pl.create_tensor([t, hidden], dtype=pl.FP16)
            v = pl.create_tensor([t, hidden], dtype=pl.FP16)
            with pl.spmd(heads):
                q = self.proj_rope(n1, wq, cos, sin, q)
            with pl.spmd(heads):
                k = self.proj_rope(n1, wk, cos, sin, k)
            with pl.spmd(hidden // TN):
                v = self.proj(n1, wv, v)
            a = pl.create_tensor([t, hidden], dtype=pl.FP16)
            with pl.spmd(batch):
                a = self.attention(q, k, v, a)
            h = pl.create_tensor([t, hidden], dtype=pl.FP16)
            with pl.spmd(hidden // TN):
                h = self.oproj(a, wo, x, h)
            n2 = pl.create_tensor([t, hidden], dtype=pl.FP16)
            n2 = self.rmsnorm(h, w_norm2, n2)
            act = pl.create_tensor([t, ffn], dtype=pl.FP16)
            with pl.spmd(ffn // TN):
                act = self.gate_up(n2, w_gate, w_up, act)
            with pl.spmd(hidden // TN):
                out = self.down(act, w_down, h, out)
            return out

    return DecoderLayer


def rope_tables(batch, seq, head_dim, theta=10000.0):
    """cos / sin [batch * seq, head_dim / 2] fp32: token i of a sequence at position i, pair j at
    frequency theta ** (-2 j / head_dim)."""
    pos = np.tile(np.arange(seq), batch)[:, None].astype(np.float64)
    freq = theta ** (-np.arange(0, head_dim, 2) / head_dim)
    ang = pos * freq[None, :]
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def make_inputs(batch, seq, hidden, heads, ffn, seed=0, dtype=np.float64):
    """x, w_norm1, wq, wk, wv, wo, w_norm2, w_gate, w_up, w_down, cos, sin: random fp16 activations
    and weights scaled by 1 / sqrt(fan-in) (as an initialised model has), norm weights near 1; drawn
    in ``dtype`` (float32 keeps a model-sized draw small)."""
    rng = np.random.default_rng(seed)
    f16 = lambda *s: rng.standard_normal(s, dtype).astype(np.float16)           # noqa: E731
    w = lambda fan_in, n: (rng.standard_normal((fan_in, n), dtype) / dtype(math.sqrt(fan_in))).astype(np.float16)   # noqa: E731
    norm = lambda: (1.0 + 0.1 * rng.standard_normal((1, hidden), dtype)).astype(np.float32)                 # noqa: E731
    x = f16(batch * seq, hidden)
    wq, wk, wv, wo = (w(hidden, hidden) for _ in range(4))
    n1, n2 = norm(), norm()
    wg, wu, wd = w(hidden, ffn), w(hidden, ffn), w(ffn, hidden)
    cos, sin = rope_tables(batch, seq, hidden // heads)
    return x, n1, wq, wk, wv, wo, n2, wg, wu, wd, cos, sin


def reference(x, n1, wq, wk, wv, wo, n2, wg, wu, wd, cos, sin, batch, seq, heads, dtype=np.float64):
    """In ``dtype`` (float32 for a model's size: float64 copies of its weights would take GBs),
    rounded to fp16 wherever the kernels store an fp16 activation."""
    f, h16 = (lambda a: a.astype(dtype)), (lambda a: a.astype(np.float16).astype(dtype))   # noqa: E731

    def rmsnorm(a, w):
        return h16(a / np.sqrt((a * a).mean(axis=1, keepdims=True) + dtype(EPS)) * f(w))

    def rope(a):
        d = a.shape[1] // heads
        out = a.copy()
        for hd in range(heads):
            x1, x2 = a[:, hd * d:hd * d + d // 2], a[:, hd * d + d // 2:(hd + 1) * d]
            out[:, hd * d:hd * d + d // 2] = x1 * f(cos) - x2 * f(sin)
            out[:, hd * d + d // 2:(hd + 1) * d] = x2 * f(cos) + x1 * f(sin)
        return h16(out)

    xf = f(x)
    nx = rmsnorm(xf, n1)
    q, k, v = rope(nx @ f(wq)), rope(nx @ f(wk)), h16(nx @ f(wv))
    d = q.shape[1] // heads
    a = np.zeros_like(q)
    causal = np.triu(np.full((seq, seq), -np.inf, dtype), 1)
    for b in range(batch):
        rows = slice(b * seq, (b + 1) * seq)
        for hd in range(heads):
            cols = slice(hd * d, (hd + 1) * d)
            s = q[rows, cols] @ k[rows, cols].T / dtype(math.sqrt(d)) + causal
            e = np.exp(s - s.max(axis=1, keepdims=True))
            a[rows, cols] = h16((h16(e) @ v[rows, cols]) / e.sum(axis=1, keepdims=True))
    hres = h16(xf + a @ f(wo))
    nh = rmsnorm(hres, n2)
    g, u = nh @ f(wg), nh @ f(wu)
    act = h16(g * u / (1.0 + np.exp(-g)))
    return h16(hres + act @ f(wd))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=ptokit.targets.SIM_PLATFORMS)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--ffn", type=int, default=1024)
    args = ap.parse_args(argv)
    dims = (args.batch, args.seq, args.hidden, args.heads, args.ffn)
    inputs = make_inputs(*dims)
    out = np.zeros((args.batch * args.seq, args.hidden), np.float16)
    t0 = time.perf_counter()
    compiled = ptokit.compile(make_decoder(*dims), platform=args.platform, output_dir="build_output/decoder_layer")
    t1 = time.perf_counter()
    compiled(*inputs, out)                # the first call builds the kernels
    t2 = time.perf_counter()
    result = compiled(*inputs, out)
    t3 = time.perf_counter()
    ref = reference(*inputs, args.batch, args.seq, args.heads)
    err = float(np.max(np.abs(out.astype(np.float64) - ref)))
    scale = max(float(np.abs(ref).max()), 1.0)
    summary = result.summary()
    used = sum(1 for c in summary.cores if c.blocks)
    print(f"decoder layer on {args.platform}: batch {args.batch} x seq {args.seq}, hidden {args.hidden}, "
          f"{args.heads} heads, ffn {args.ffn}, fp16: max abs error vs numpy {err:.3e} ({err / scale:.1e} of the "
          f"output's scale)")
    run = t3 - t2
    print(f"wall time: compile {t1 - t0:.2f} s, build {max(t2 - t1 - run, 0.0):.2f} s, run {run:.3f} s; "
          f"{summary.tasks} tasks, {summary.blocks} blocks on {used} of {len(summary.cores)} simulated cores")
    return 0 if err < 2e-3 * scale else 1


if __name__ == "__main__":
    raise SystemExit(main())
