"""pl.read / pl.write and A[i, j] in kernel code (tiles and tensors)."""
import ptokit.language as pl

X = pl.Tensor[[16, 64], pl.FP32]
S = pl.Tensor[[4, 8], pl.INT32]


@pl.program
class Elements:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: X, s: S, i: pl.Scalar[pl.INDEX], y: pl.Out[X], z: pl.Out[S]):
        t = pl.load(x, [0, 0], [16, 64])
        a = pl.read(t, [2, 3])                 # a tile element
        b = t[1, 5]
        c = pl.tile.read(t, 70)                # one flat offset: row 1, column 6
        n = pl.read(s, [i, 2])                 # a tensor element, runtime row
        m = s[3, 7]
        pl.write(t, [0, 0], a + b + c)
        t[0, 1] = pl.cast(n + m, pl.FP32)
        y = pl.store(t, [0, 0], y)
        pl.tensor.write(z, [0, 0], n * 2)
        z[3, 7] = m + 1
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: X, s: S, i: pl.Scalar[pl.INDEX], y: pl.Out[X], z: pl.Out[S]):
        y, z = self.k(x, s, i, y, z)
        return y, z


@pl.program
class ConstantIndexOutside:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, s: S, z: pl.Out[S]):
        z[0, 0] = s[4, 0]
        return z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, s: S, z: pl.Out[S]):
        z = self.k(s, z)
        return z


@pl.program
class WriteIntoInput:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, s: S, z: pl.Out[S]):
        s[0, 0] = 1
        z[0, 0] = s[1, 1]
        return z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, s: S, z: pl.Out[S]):
        z = self.k(s, z)
        return z


@pl.program
class WrongIndexCount:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, s: S, z: pl.Out[S]):
        z[0, 0] = pl.read(s, [1, 2, 3])
        return z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, s: S, z: pl.Out[S]):
        z = self.k(s, z)
        return z


@pl.program
class KernelArrays:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], j: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        rows = pl.array.create(4, pl.INT32)
        for i in pl.range(4):
            rows[i] = (3 - i) * 16                  # updated in a loop: carried
        acc = pl.load(x, [0, 0], [16, 64])
        for i in pl.range(1, 4):
            r = rows[i]
            acc = pl.add(acc, pl.load(x, [r, 0], [16, 64]))
        rows = pl.array.update_element(rows, 0, 7)
        acc = pl.adds(acc, pl.cast(pl.array.get_element(rows, 0) + rows[j], pl.FP32))
        y = pl.store(acc, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], j: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, j, y)
        return y


@pl.program
class TaskIdArrayInKernel:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, s: S, z: pl.Out[S]):
        ids = pl.array.create(2, pl.TASK_ID)
        z[0, 0] = s[1, 1]
        return z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, s: S, z: pl.Out[S]):
        z = self.k(s, z)
        return z
