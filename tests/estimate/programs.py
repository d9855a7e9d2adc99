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
