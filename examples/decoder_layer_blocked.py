"""One decoder layer at a model's size: the layer of examples/decoder_layer.py with every kernel
blocked so that no tile grows with the hidden size or the token count:

    h   = x + Attention(RMSNorm(x) * w_norm1)          causal, multi-head, rotary positions
    out = h + W_down (silu(W_gate n) * (W_up n)),   n = RMSNorm(h) * w_norm2

    python examples/decoder_layer_blocked.py           # batch 2 x seq 128 tokens, hidden 4096, 32 heads, ffn 11008
    python examples/decoder_layer_blocked.py --batch 2 --seq 32 --hidden 512 --heads 4 --ffn 1024

What differs from examples/decoder_layer.py (whose RMSNorm holds 16 whole rows in UB and whose
projections hold every token in one Acc tile, so it stops at hidden 512 / 128 tokens):

    rmsnorm      columns in blocks of CW: a first pass sums the squares of each row block over
                 the column blocks, a second scales each block by rsqrt and the weight
    projections  token blocks of TM rows in a loop inside each SPMD block (an Acc tile of
                 [TM, TN] whatever the token count); proj_rope's are TMR rows (its vector side
                 holds the head's halves and the cos / sin tables of those rows)
    attention    one SPMD block per sequence, a loop over heads and over query blocks of QB
                 rows: scores [QB, seq] against all keys of the sequence, masked causally from the
                 block's first row on (pl.tile.tri with that row as its diagonal)

Every matmul takes fp16 operands and accumulates in fp32; every activation between kernels is
stored as fp16. The numpy reference computes in float32 with the same fp16 roundings (float64
weights of this size would take gigabytes); the check is 2e-3 of the output's scale. Prints the
max error and the wall time split into compile, build (first call) and run.
"""
import argparse
import math
import time

import numpy as np

import ptokit
import ptokit.language as pl

import decoder_layer  # the example this one blocks: its inputs and numpy reference

EPS = 1e-6
TK = 128          # K block of every projection
TN = 64           # output column tile of the projections
TM = 128          # token block of the projections (Acc [TM, TN] fp32)
TMR = 64          # token block of proj_rope (Acc [TMR, head dim] fp32)
RB, CW = 16, 512  # RMSNorm: rows per block, columns per block
QB = 32           # query rows per attention block


def make_decoder(batch, seq, hidden, heads, ffn):
    t, d = batch * seq, hidden // heads
    half = d // 2
    scale = 1.0 / math.sqrt(d)
    if hidden % heads or d % 32 or d > 128 or hidden % TK or ffn % TK or hidden % CW:
        raise ValueError(f"hidden {hidden} (a multiple of {CW}) / heads {heads} (head dim {d}, a multiple of 32, "
                         f"at most 128) and ffn {ffn} must be multiples of the {TK}-deep K blocks")
    if seq % QB or seq > 256 or t % TM:
        raise ValueError(f"seq {seq} must be a multiple of {QB} (at most 256) and batch * seq ({t}) a multiple of {TM}")
    kh, kf, nt, ntr, ncw = hidden // TK, ffn // TK, t // TM, t // TMR, hidden // CW

    @pl.program
    class DecoderLayerBlocked:
        @pl.function(type=pl.FunctionType.InCore)
        def rmsnorm(self, x: pl.Tensor[[t, hidden], pl.FP16], w: pl.Tensor[[1, hidden], pl.FP32],
                    y: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            for r in pl.range(t // RB):
                x0 = pl.cast(pl.load(x, [r * RB, 0], [RB, CW]), target_type=pl.FP32)
                ss = pl.row_sum(pl.mul(x0, x0))
                for cb in pl.range(1, ncw):
                    xc = pl.cast(pl.load(x, [r * RB, cb * CW], [RB, CW]), target_type=pl.FP32)
                    ss = pl.add(ss, pl.row_sum(pl.mul(xc, xc)))
                inv = pl.rsqrt(pl.adds(pl.muls(ss, 1.0 / hidden), EPS))
                for cb in pl.range(ncw):
                    xc = pl.cast(pl.load(x, [r * RB, cb * CW], [RB, CW]), target_type=pl.FP32)
                    wc = pl.load(w, [0, cb * CW], [1, CW])
                    yn = pl.col_expand_mul(pl.row_expand_mul(xc, inv), wc)
                    y = pl.store(pl.cast(yn, target_type=pl.FP16), [r * RB, cb * CW], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def proj_rope(self, n: pl.Tensor[[t, hidden], pl.FP16], w: pl.Tensor[[hidden, hidden], pl.FP16],
                      cos: pl.Tensor[[t, half], pl.FP32], sin: pl.Tensor[[t, half], pl.FP32],
                      y: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            c0 = pl.tile.get_block_idx() * d                       # this block's head: columns c0 .. c0 + d
            for tb in pl.range(ntr):
                r0 = tb * TMR
                acc = pl.matmul(n[r0:r0 + TMR, 0:TK], w[0:TK, c0:c0 + d])
                for kb in pl.range(1, kh):
                    acc = pl.matmul_acc(acc, n[r0:r0 + TMR, kb * TK:(kb + 1) * TK], w[kb * TK:(kb + 1) * TK, c0:c0 + d])
                p = pl.move(acc, target_memory=pl.Mem.Vec)
                x1 = pl.slice(p, [TMR, half], [0, 0])
                x2 = pl.slice(p, [TMR, half], [0, half])
                ct = pl.load(cos, [r0, 0], [TMR, half])
                st = pl.load(sin, [r0, 0], [TMR, half])
                r1 = pl.sub(pl.mul(x1, ct), pl.mul(x2, st))
                r2 = pl.add(pl.mul(x2, ct), pl.mul(x1, st))
                y = pl.store(pl.cast(pl.concat(r1, r2), target_type=pl.FP16), [r0, c0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def proj(self, n: pl.Tensor[[t, hidden], pl.FP16], w: pl.Tensor[[hidden, hidden], pl.FP16],
                 y: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            c0 = pl.tile.get_block_idx() * TN
            for tb in pl.range(nt):
                r0 = tb * TM
                acc = pl.matmul(n[r0:r0 + TM, 0:TK], w[0:TK, c0:c0 + TN])
                for kb in pl.range(1, kh):
                    acc = pl.matmul_acc(acc, n[r0:r0 + TM, kb * TK:(kb + 1) * TK], w[kb * TK:(kb + 1) * TK, c0:c0 + TN])
                y = pl.store(pl.cast(acc, target_type=pl.FP16), [r0, c0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def attention(self, q: pl.Tensor[[t, hidden], pl.FP16], k: pl.Tensor[[t, hidden], pl.FP16],
                      v: pl.Tensor[[t, hidden], pl.FP16], o: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            s0 = pl.tile.get_block_idx() * seq                     # this block's sequence: rows s0 .. s0 + seq
            for h in pl.range(heads):
                for qb in pl.range(seq // QB):
                    q0 = qb * QB
                    # causal mask as an additive bias: 0 where key <= query (row q0 + i), -1e30 above
                    bias = pl.muls(pl.adds(pl.tile.tri(q0, [QB, seq], dtype=pl.FP32), -1.0), 1e30)
                    s = pl.move(pl.matmul(q[s0 + q0:s0 + q0 + QB, h * d:(h + 1) * d], k[s0:s0 + seq, h * d:(h + 1) * d],
                                          b_trans=True), target_memory=pl.Mem.Vec)
                    s = pl.add(pl.muls(s, scale), bias)
                    e = pl.exp(pl.row_expand_sub(s, pl.row_max(s)))
                    li = pl.row_sum(e)
                    pt = pl.move(pl.move(pl.cast(e, target_type=pl.FP16), target_memory=pl.Mem.Mat),
                                 target_memory=pl.Mem.Left)
                    pv = pl.move(pl.matmul(pt, v[s0:s0 + seq, h * d:(h + 1) * d]), target_memory=pl.Mem.Vec)
                    o = pl.store(pl.cast(pl.row_expand_div(pv, li), target_type=pl.FP16), [s0 + q0, h * d], o)
            return o

        @pl.function(type=pl.FunctionType.InCore)
        def oproj(self, a: pl.Tensor[[t, hidden], pl.FP16], w: pl.Tensor[[hidden, hidden], pl.FP16],
                  res: pl.Tensor[[t, hidden], pl.FP16], y: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            c0 = pl.tile.get_block_idx() * TN
            for tb in pl.range(nt):
                r0 = tb * TM
                acc = pl.matmul(a[r0:r0 + TM, 0:TK], w[0:TK, c0:c0 + TN])
                for kb in pl.range(1, kh):
                    acc = pl.matmul_acc(acc, a[r0:r0 + TM, kb * TK:(kb + 1) * TK], w[kb * TK:(kb + 1) * TK, c0:c0 + TN])
                out = pl.add(pl.move(acc, target_memory=pl.Mem.Vec),
                             pl.cast(pl.load(res, [r0, c0], [TM, TN]), target_type=pl.FP32))
                y = pl.store(pl.cast(out, target_type=pl.FP16), [r0, c0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def gate_up(self, n: pl.Tensor[[t, hidden], pl.FP16], wg: pl.Tensor[[hidden, ffn], pl.FP16],
                    wu: pl.Tensor[[hidden, ffn], pl.FP16], y: pl.Out[pl.Tensor[[t, ffn], pl.FP16]]):
            c0 = pl.tile.get_block_idx() * TN
            for tb in pl.range(nt):
                r0 = tb * TM
                g = pl.matmul(n[r0:r0 + TM, 0:TK], wg[0:TK, c0:c0 + TN])
                u = pl.matmul(n[r0:r0 + TM, 0:TK], wu[0:TK, c0:c0 + TN])
                for kb in pl.range(1, kh):
                    g = pl.matmul_acc(g, n[r0:r0 + TM, kb * TK:(kb + 1) * TK], wg[kb * TK:(kb + 1) * TK, c0:c0 + TN])
                    u = pl.matmul_acc(u, n[r0:r0 + TM, kb * TK:(kb + 1) * TK], wu[kb * TK:(kb + 1) * TK, c0:c0 + TN])
                gv = pl.move(g, target_memory=pl.Mem.Vec)
                # silu(g) * u = g * u / (1 + exp(-g))
                act = pl.div(pl.mul(gv, pl.move(u, target_memory=pl.Mem.Vec)), pl.adds(pl.exp(pl.neg(gv)), 1.0))
                y = pl.store(pl.cast(act, target_type=pl.FP16), [r0, c0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def down(self, a: pl.Tensor[[t, ffn], pl.FP16], w: pl.Tensor[[ffn, hidden], pl.FP16],
                 res: pl.Tensor[[t, hidden], pl.FP16], y: pl.Out[pl.Tensor[[t, hidden], pl.FP16]]):
            c0 = pl.tile.get_block_idx() * TN
            for tb in pl.range(nt):
                r0 = tb * TM
                acc = pl.matmul(a[r0:r0 + TM, 0:TK], w[0:TK, c0:c0 + TN])
                for kb in pl.range(1, kf):
                    acc = pl.matmul_acc(acc, a[r0:r0 + TM, kb * TK:(kb + 1) * TK], w[kb * TK:(kb + 1) * TK, c0:c0 + TN])
                out = pl.add(pl.move(acc, target_memory=pl.Mem.Vec),
                             pl.cast(pl.load(res, [r0, c0], [TM, TN]), target_type=pl.FP32))
                y = pl.store(pl.cast(out, target_type=pl.FP16), [r0, c0], y)
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

    return DecoderLayerBlocked


def make_inputs(batch, seq, hidden, heads, ffn, seed=0):
    """examples/decoder_layer.py's inputs, drawn in float32 (a model-sized draw in float64 would not fit)."""
    return decoder_layer.make_inputs(batch, seq, hidden, heads, ffn, seed, dtype=np.float32)


def reference(x, n1, wq, wk, wv, wo, n2, wg, wu, wd, cos, sin, batch, seq, heads):
    """examples/decoder_layer.py's reference, in float32: float64 copies of a model's weights would take GBs."""
    return decoder_layer.reference(x, n1, wq, wk, wv, wo, n2, wg, wu, wd, cos, sin, batch, seq, heads,
                                   dtype=np.float32)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=ptokit.targets.SIM_PLATFORMS)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--ffn", type=int, default=11008)
    args = ap.parse_args(argv)
    dims = (args.batch, args.seq, args.hidden, args.heads, args.ffn)
    inputs = make_inputs(*dims)
    out = np.zeros((args.batch * args.seq, args.hidden), np.float16)
    t0 = time.perf_counter()
    compiled = ptokit.compile(make_decoder(*dims), platform=args.platform,
                              output_dir="build_output/decoder_layer_blocked")
    t1 = time.perf_counter()
    compiled(*inputs, out)                # the first call builds the kernels
    t2 = time.perf_counter()
    result = compiled(*inputs, out)
    t3 = time.perf_counter()
    ref = reference(*inputs, args.batch, args.seq, args.heads)
    err = float(np.max(np.abs(out.astype(np.float32) - ref)))
    scale = max(float(np.abs(ref).max()), 1.0)
    summary = result.summary()
    used = sum(1 for c in summary.cores if c.blocks)
    print(f"decoder layer (blocked) on {args.platform}: batch {args.batch} x seq {args.seq}, hidden {args.hidden}, "
          f"{args.heads} heads, ffn {args.ffn}, fp16: max abs error vs numpy {err:.3e} ({err / scale:.1e} of the "
          f"output's scale)")
    run = t3 - t2
    print(f"wall time: compile {t1 - t0:.2f} s, build {max(t2 - t1 - run, 0.0):.2f} s, run {run:.3f} s; "
          f"{summary.tasks} tasks, {summary.blocks} blocks on {used} of {len(summary.cores)} simulated cores")
    return 0 if err < 2e-3 * scale else 1


if __name__ == "__main__":
    raise SystemExit(main())
