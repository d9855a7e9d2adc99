"""Programs whose orchestration computes tensor sizes at run time (see test_run_time_dims.py)."""
import ptokit.language as pl

QT, HD = 16, 64
R = pl.dynamic("R")
D = pl.dynamic("D")


@pl.program
class DimOfInput:
    """``hd = pl.tensor.dim(x, 1)``: a created tensor and windows sized by the input's own dimension;
    the kernels take that dimension as a dynamic one (``D``), their tiles stay static."""
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[QT, D], pl.FP32], y: pl.Out[pl.Tensor[[QT, D], pl.FP32]]) -> pl.Tensor[[QT, D], pl.FP32]:
        y = pl.store(pl.adds(pl.load(x, [0, 0], [QT, HD]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def dbl(self, x: pl.Tensor[[QT, D], pl.FP32], y: pl.Out[pl.Tensor[[QT, D], pl.FP32]]) -> pl.Tensor[[QT, D], pl.FP32]:
        y = pl.store(pl.muls(pl.load(x, [0, 0], [QT, HD]), 2.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, D], pl.FP32], y: pl.Out[pl.Tensor[[R, D], pl.FP32]]) -> pl.Tensor[[R, D], pl.FP32]:
        rows = pl.tensor.dim(x, 0)
        hd = pl.tensor.dim(x, 1)
        for i in pl.range(rows // QT):
            t = pl.create_tensor([QT, hd], dtype=pl.FP32)
            xi = pl.slice(x, [QT, hd], [i * QT, 0])
            t = self.inc(xi, t)
            yi = pl.slice(y, [QT, hd], [i * QT, 0])
            yi = self.dbl(t, yi)
        return y


@pl.program
class ReadFromConfig:
    """Sizes read from a config tensor (``pl.tensor.read``), an expression among them, handed to
    kernels whose parameters are static: the run-time sizes must match them."""
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[QT, HD], pl.FP32], y: pl.Out[pl.Tensor[[QT, HD], pl.FP32]]) -> pl.Tensor[[QT, HD], pl.FP32]:
        y = pl.store(pl.adds(pl.load(x, [0, 0], [QT, HD]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def dbl(self, x: pl.Tensor[[QT, HD], pl.FP32], y: pl.Out[pl.Tensor[[QT, HD], pl.FP32]]) -> pl.Tensor[[QT, HD], pl.FP32]:
        y = pl.store(pl.muls(pl.load(x, [0, 0], [QT, HD]), 2.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, HD], pl.FP32], cfg: pl.Tensor[[3], pl.INT64],
             y: pl.Out[pl.Tensor[[64, HD], pl.FP32]]) -> pl.Tensor[[64, HD], pl.FP32]:
        n_tiles = pl.tensor.read(cfg, [0])
        hd = pl.tensor.read(cfg, [1])
        half = pl.tensor.read(cfg, [2])
        for i in pl.range(n_tiles):
            t = pl.create_tensor([half + half, hd], dtype=pl.FP32)
            t = self.inc(pl.slice(x, [QT, hd], [i * QT, 0]), t)
            yi = self.dbl(t, y[i * QT:i * QT + half * 2, 0:hd])
        return y


BS = 64
BLK = pl.dynamic("BLK")
VALID = pl.dynamic("VALID")


@pl.program
class ValidSymbol:
    """A kernel parameter's ``pl.TensorView(valid_shape=[QT, VALID])`` names a symbol no tensor shape
    binds: the caller passes the valid extent of its argument there (a ``pl.slice`` valid_shape,
    else the argument's size)."""
    @pl.function(type=pl.FunctionType.InCore)
    def row_sums(self, s: pl.Tensor[[QT, BLK], pl.FP32, pl.TensorView(valid_shape=[QT, VALID], layout=pl.TensorLayout.ND)],
                 y: pl.Out[pl.Tensor[[QT, 1], pl.FP32]]) -> pl.Tensor[[QT, 1], pl.FP32]:
        t = pl.tile.fillpad(pl.load(s, [0, 0], [QT, BS]), pad_value=pl.PadValue.zero)
        tmp = pl.create_tile([QT, BS], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        y = pl.store(pl.row_sum(t, tmp), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[QT, BS], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[QT, 1], pl.FP32]],
             z: pl.Out[pl.Tensor[[QT, 1], pl.FP32]]):
        part = pl.slice(x, [QT, BS], [0, 0], valid_shape=[QT, n])
        y = self.row_sums(part, y)
        z = self.row_sums(x, z)
        return y, z


@pl.program
class AnnotatedLocals:
    """Annotations in orchestration code naming its run-time scalars (``pl.Tensor[[QT, hd], ...]``)."""
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[QT, D], pl.FP32], y: pl.Out[pl.Tensor[[QT, D], pl.FP32]]) -> pl.Tensor[[QT, D], pl.FP32]:
        y = pl.store(pl.adds(pl.load(x, [0, 0], [QT, HD]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, D], pl.FP32], y: pl.Out[pl.Tensor[[R, D], pl.FP32]]) -> pl.Tensor[[R, D], pl.FP32]:
        rows: pl.Scalar[pl.INT64] = pl.tensor.dim(x, 0)
        hd: pl.Scalar[pl.INT64] = pl.tensor.dim(x, 1)
        for i in pl.range(rows // QT):
            xi: pl.Tensor[[QT, hd], pl.FP32] = pl.slice(x, [QT, hd], [i * QT, 0])
            yi: pl.Tensor[[QT, hd], pl.FP32] = pl.slice(y, [QT, hd], [i * QT, 0])
            yi = self.inc(xi, yi)
        return y


@pl.program
class ValidSymbolInAnExpression:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, s: pl.Tensor[[QT, BLK], pl.FP32, pl.TensorView(valid_shape=[QT, VALID + 1], layout=pl.TensorLayout.ND)],
          y: pl.Out[pl.Tensor[[QT, BS], pl.FP32]]) -> pl.Tensor[[QT, BS], pl.FP32]:
        y = pl.store(pl.load(s, [0, 0], [QT, BS]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[QT, BS], pl.FP32], y: pl.Out[pl.Tensor[[QT, BS], pl.FP32]]):
        y = self.k(x, y)
        return y
