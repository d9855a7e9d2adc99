"""Programs for tests/parity/test_loops.py: while loops, pl.while_/pl.cond, break and continue."""
import ptokit.language as pl


@pl.program
class KernelLoops:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[128, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        acc = pl.load(x, [0, 0], [16, 64])
        i = 1
        while i < n:                                  # blocks 1 .. n-1
            acc = pl.add(acc, pl.load(x, [i * 16, 0], [16, 64]))
            i = i + 1
        for (j, m) in pl.while_(init_values=(0, acc)):
            pl.cond(j < 3)                            # three rounds of +1
            m2 = pl.adds(m, 1.0)
            j2, m3 = pl.yield_(j + 1, m2)
        for r in pl.range(8):
            if r == 2:
                continue
            if r >= 5:
                break
            m3 = pl.muls(m3, 2.0)                     # r = 0, 1, 3, 4
        seen = 0
        while True:
            seen = seen + 1
            if seen * seen > n:
                break
        y = pl.store(pl.adds(m3, pl.cast(seen, pl.FP32)), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[128, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, n, y)
        return y


@pl.program
class OrchestrationLoops:
    @pl.function(type=pl.FunctionType.InCore)
    def addv(self, y: pl.InOut[pl.Tensor[[16, 64], pl.FP32]], v: pl.Scalar[pl.FP32]):
        y = pl.store(pl.adds(pl.load(y, [0, 0], [16, 64]), v), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, n: pl.Scalar[pl.INDEX], y: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]):
        k = 0
        while k < n:                                  # +1, n times
            y = self.addv(y, 1.0)
            k = k + 1
        for r in pl.range(10):
            if r % 2 == 1:
                continue
            if r >= 6:
                break
            y = self.addv(y, 10.0)                    # r = 0, 2, 4
        for (c,) in pl.while_(init_values=(1,)):
            pl.cond(c < 100)                          # c = 1, 3, 9, 27, 81
            y = self.addv(y, 0.5)
            c2 = pl.yield_(c * 3)
        total = 0.0
        for r in pl.range(4):
            total = total + 0.25
        y = self.addv(y, total + pl.cast(k, pl.FP32) * 100.0 + pl.cast(c2, pl.FP32))
        return y


@pl.program
class BreakParallel:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        for i in pl.parallel(4):
            if i == 2:
                break
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y


@pl.program
class BreakInWith:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                y = self.k(x, y)
                continue
        return y


@pl.program
class WhileWithoutCond:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        for (j,) in pl.while_(init_values=(0,)):
            j2 = pl.yield_(j + 1)
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y


@pl.program
class CondElsewhere:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        for i in pl.range(4):
            pl.cond(i < 2)
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y


@pl.program
class WhileElse:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        i = 0
        while i < n:
            i = i + 1
        else:
            i = 0
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y


@pl.program
class WhileArgs:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        for (j,) in pl.while_(4, init_values=(0,)):
            pl.cond(j < 2)
            j2 = pl.yield_(j + 1)
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y


@pl.program
class TileCondition:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = pl.load(x, [0, 0], [16, 64])
        while t:
            t = pl.adds(t, 1.0)
        y = pl.store(t, [0, 0], y)
        return y


@pl.program
class NestedEscapes:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = pl.load(x, [0, 0], [16, 64])
        for i in pl.range(8):
            if i < n:
                if i % 2 == 1:
                    continue                          # the statements after the outer if are skipped too
                t = pl.adds(t, 1.0)
            t = pl.muls(t, 2.0)
            if i == 5:
                break
        k = 0
        while True:
            k = k + 1
            if k < 3:
                continue
            t = pl.adds(t, 0.5)
            if k >= 4:
                break
        for (m,) in pl.while_(init_values=(0,)):
            pl.cond(m < 10)
            if m == 3:
                break
            t = pl.adds(t, 0.25)
            m2 = pl.yield_(m + 1)
        for u in pl.unroll(4):
            if u == 2:
                continue
            t = pl.muls(t, 3.0)
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, n, y)
        return y
