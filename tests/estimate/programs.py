"""Programs of the estimate tests."""
import ptokit.language as pl

C = 4          # row chunks of the streaming kernel
RC = 16        # rows per chunk


@pl.program
class StreamExp:
    """out = exp(x) over C chunks of RC rows: each chunk's load, exp and store; the next chunk's load
    needs none of the previous chunk's vector or store work, so the pipes overlap."""

    @pl.function(type=pl.FunctionType.InCore)
    def stream(self, x: pl.Tensor[[C * RC, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[C * RC, 64], pl.FP32]]) -> pl.Tensor[[C * RC, 64], pl.FP32]:
        for i in pl.range(C):
            t = pl.load(x, [i * RC, 0], [RC, 64])
            out = pl.store(pl.exp(t), [i * RC, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[C * RC, 64], pl.FP32], y: pl.Out[pl.Tensor[[C * RC, 64], pl.FP32]]):
        y = self.stream(x, y)
        return y


@pl.program
class TwoBuffers:
    """out = exp(x) in two halves held in two tile buffers: the second half's load is issued after the
    first half's exp and runs beside it (double buffering by hand)."""

    @pl.function(type=pl.FunctionType.InCore)
    def halves(self, x: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t0 = pl.load(x, [0, 0], [32, 64])
        e0 = pl.exp(t0)
        t1 = pl.load(x, [32, 0], [32, 64])
        out = pl.store(e0, [0, 0], out)
        out = pl.store(pl.exp(t1), [32, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.halves(x, y)
        return y


NP = 4         # tiles the cube pushes
HEAVY = 24     # vector instructions per popped tile


@pl.program
class SlowConsumer:
    """Per 64-row block i the cube computes a[i] @ w and pushes it to the vector lanes, which take far
    longer over each tile (HEAVY exps) than the cube: the FIFO's slots fill and the cube's later pushes
    wait for the vector to release a slot."""

    @pl.function(type=pl.FunctionType.InCore)
    def slow(self, a: pl.Tensor[[NP * 64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[NP * 64, 64], pl.FP32]]) -> pl.Tensor[[NP * 64, 64], pl.FP32]:
        tw = pl.move(pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        for i in pl.range(NP):
            ta = pl.move(pl.load(a, [i * 64, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            v = pl.move(pl.matmul(ta, tw), target_memory=pl.Mem.Vec)
            for _ in pl.range(HEAVY):
                v = pl.exp(pl.muls(v, 0.0))
            y = pl.store(v, [i * 64, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[NP * 64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[NP * 64, 64], pl.FP32]]):
        y = self.slow(a, w, y)
        return y
