"""Kernels whose vector ops take whole tensors and whose results the program annotates as tensors
(pypto's tensor-level form, lowered by ConvertTensorToTileOps), written as pypto's system tests
write them."""
import ptokit.language as pl

M, N = 32, 64


def make_div(dtype, high_precision=False):
    @pl.program
    class TensorDiv:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, lhs: pl.Tensor[[M, N], dtype], rhs: pl.Tensor[[M, N], dtype],
                 out: pl.InOut[pl.Tensor[[M, N], dtype]]) -> pl.Tensor[[M, N], dtype]:
            with pl.at(level=pl.Level.CORE_GROUP):
                result: pl.Tensor[[M, N], dtype] = pl.div(lhs, rhs, high_precision=high_precision)
                out = pl.assemble(out, result, [0, 0])
            return out
    return TensorDiv


def make_log(dtype):
    @pl.program
    class TensorLog:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, src: pl.Tensor[[M, N], dtype],
                 out: pl.InOut[pl.Tensor[[M, N], dtype]]) -> pl.Tensor[[M, N], dtype]:
            with pl.at(level=pl.Level.CORE_GROUP):
                result: pl.Tensor[[M, N], dtype] = pl.log(src)
                out = pl.assemble(out, result, [0, 0])
            return out
    return TensorLog


@pl.program
class RowExpandMax:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[M, N], pl.FP32], v: pl.Tensor[[M, 1], pl.FP32],
               output: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        result: pl.Tensor[[M, N], pl.FP32] = pl.row_expand_max(a, v)
        return pl.assemble(output, result, [0, 0])

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, a: pl.Tensor[[M, N], pl.FP32], v: pl.Tensor[[M, 1], pl.FP32],
                     output: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        output = self.kernel(a, v, output)
        return output


@pl.program
class RowProd:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[M, N], pl.FP32],
               output: pl.Out[pl.Tensor[[M, 1], pl.FP32]]) -> pl.Tensor[[M, 1], pl.FP32]:
        result: pl.Tensor[[M, 1], pl.FP32] = pl.row_prod(a)
        return pl.assemble(output, result, [0, 0])

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, a: pl.Tensor[[M, N], pl.FP32],
                     output: pl.Out[pl.Tensor[[M, 1], pl.FP32]]) -> pl.Tensor[[M, 1], pl.FP32]:
        output = self.kernel(a, output)
        return output


@pl.program
class Int16Sub:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 128], pl.INT16], b: pl.Tensor[[16, 128], pl.INT16],
               output: pl.Out[pl.Tensor[[16, 128], pl.INT16]]) -> pl.Tensor[[16, 128], pl.INT16]:
        diff: pl.Tensor[[16, 128], pl.INT16] = pl.sub(a, b)
        return pl.assemble(output, diff, [0, 0])

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, a: pl.Tensor[[16, 128], pl.INT16], b: pl.Tensor[[16, 128], pl.INT16],
                     output: pl.Out[pl.Tensor[[16, 128], pl.INT16]]) -> pl.Tensor[[16, 128], pl.INT16]:
        output = self.kernel(a, b, output)
        return output


def make_wide(rows):
    """One tensor-level exp over a [rows, 256] FP32 tensor: 1 KB a row, loaded whole into Vec."""
    @pl.program
    class Wide:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[rows, 256], pl.FP32],
                   output: pl.Out[pl.Tensor[[rows, 256], pl.FP32]]) -> pl.Tensor[[rows, 256], pl.FP32]:
            e: pl.Tensor[[rows, 256], pl.FP32] = pl.exp(a)
            return pl.assemble(output, e, [0, 0])

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[rows, 256], pl.FP32],
                         output: pl.Out[pl.Tensor[[rows, 256], pl.FP32]]) -> pl.Tensor[[rows, 256], pl.FP32]:
            output = self.kernel(a, output)
            return output
    return Wide


@pl.program
class OutBoundInAt:
    """pypto's form: a tensor-level result bound to the pl.Out tensor in a pl.at block writes it
    (and a later block reads the value back from it)."""
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[M, N], pl.FP32], result: pl.Out[pl.Tensor[[M, N], pl.FP32]],
             twice: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            result = pl.add(x, 1.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            twice = pl.mul(result, pl.exp(x))
        return result


@pl.jit
def jit_out_bound(x: pl.Tensor, result: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        result = pl.sub(pl.exp(x), x)
    return result
