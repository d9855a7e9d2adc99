"""A3, A4, B: task ids as values, pl.array of task ids, pl.system.task_dummy, deps=/dumps=/
no_dep_args=/predicate=, pl.no_dep, create_tensor(manual_dep=), pl.dump_tag, host pl.read /
pl.write in orchestration.  New programs go at the end."""
import ptokit.language as pl

R, C, H = 64, 64, 32
T = pl.Tensor[[R, C], pl.FP32]
ROWS = pl.Tensor[[16, C], pl.FP32]
GATE = pl.Tensor[[4], pl.INT32]


@pl.program
class TaskValues:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.adds(pl.load(x, [0, 0], [R, C]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def inc_rows(self, x: ROWS, y: pl.Out[ROWS]):
        y = pl.store(pl.adds(pl.load(x, [0, 0], [16, C]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def add_s(self, x: T, s: pl.Scalar[pl.FP32], y: pl.Out[T]):
        y = pl.store(pl.adds(pl.load(x, [0, 0], [R, C]), s), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, gate: GATE, y: pl.Out[T], a: pl.Out[T], b: pl.Out[T], c: pl.Out[T], d: pl.Out[T],
             e: pl.Out[T], info: pl.InOut[GATE]):
        pl.dump_tag(y)
        tids = pl.array.create(4, pl.TASK_ID)
        for i in pl.range(4):
            _, t = pl.submit(self.inc_rows, x[i * 16:(i + 1) * 16, :], y[i * 16:(i + 1) * 16, :])
            tids[i] = t
        first: pl.TaskId = tids[0]
        tids = pl.array.update_element(tids, 0, first)
        done = pl.system.task_dummy(deps=[tids, None, pl.array.get_element(tids, 3)])
        with pl.manual_scope():
            a, ta = pl.submit(self.inc, y, a, deps=[done], dumps=[a])
        b, tb = pl.submit(self.inc, a, b, predicate=(gate[0] > 0), deps=[ta])   # runs: gate[0] is 1
        c, tc = pl.submit(self.inc, a, c, predicate=(gate[1] != 0))    # skipped: gate[1] is 0
        prev = None
        for k in pl.range(3):                                          # a chain through loop-carried task ids
            with pl.at(level=pl.Level.CORE_GROUP, deps=[prev, tb, tc]) as prev:
                c = self.inc(c, c)
        s = y[0, 1]                         # host read: waits for the task writing y's first rows
        d = self.add_s(x, s, d)
        g = pl.read(gate, 2)
        if g > 3:
            e, te = pl.submit(self.inc, x, e)
        else:
            e, te = pl.submit(self.add_s, x, 10.0, e)
        info[0] = g
        pl.write(info, [1], pl.cast(s * 100.0, pl.INT32))
        info[3] = pl.tensor.read(info, [2]) + 1
        b, _ = pl.spmd_submit(self.inc, x, b, core_num=2, predicate=(gate[3] > 0), deps=[te])   # skipped
        return y


@pl.program
class Tracking:
    @pl.function(type=pl.FunctionType.InCore)
    def top(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.adds(pl.load(x, [0, 0], [H, C]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def bot(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.adds(pl.load(x, [H, 0], [H, C]), 2.0), [H, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def copy(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y1: pl.Out[T], y2: pl.Out[T], z: pl.Out[T]):
        y1 = self.top(x, y1)                  # task 0
        y1 = self.bot(x, y1)                  # task 1: waits for task 0 (both write y1)
        y2 = self.top(x, y2)                  # task 2
        y2 = self.bot(x, pl.no_dep(y2))       # task 3: y2 untracked for it, so not after task 2
        t = pl.create_tensor([R, C], dtype=pl.FP32, manual_dep=True)
        t = self.copy(x, t)                   # task 4 creates t
        t, t5 = pl.submit(self.top, x, t)     # task 5: after its creator only
        t, t6 = pl.submit(self.bot, x, t)     # task 6: after its creator only, not after task 5
        z, _ = pl.submit(self.copy, t, z, deps=[t5, t6])   # task 7
        return z


@pl.jit
def jit_tasks(x: pl.Tensor, gate: pl.Tensor, out: pl.Out[pl.Tensor], out2: pl.Out[pl.Tensor],
              out3: pl.Out[pl.Tensor]):
    bands = pl.array.create(4, pl.TASK_ID)
    for i in pl.range(4):                                     # tasks 0-3: no_dep_args, unordered
        with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[out]) as band:
            pl.store(pl.muls(pl.load(x, [i * 16, 0], [16, 64]), 2.0), [i * 16, 0], out)
        bands[i] = band
    prev = None
    for i in pl.range(4):                                     # tasks 4-7: a chain through deps=[prev]
        with pl.at(level=pl.Level.CORE_GROUP, deps=[prev], no_dep_args=[out2]) as prev:
            pl.store(pl.muls(pl.load(x, [i * 16, 0], [16, 64]), 3.0), [i * 16, 0], out2)
    join = pl.system.task_dummy(deps=[bands, band])           # task 8 (band: the last one)
    with pl.spmd(2, predicate=(gate[0] > 0), deps=[join]) as t:   # task 9: skipped when gate[0] <= 0
        j = pl.tile.get_block_idx()
        pl.store(pl.neg(pl.load(x, [j * 32, 0], [32, 64])), [j * 32, 0], out3)
    flag = pl.read(gate, [0])
    if flag > 0:
        with pl.at(level=pl.Level.CORE_GROUP, deps=[t]):
            pl.store(pl.adds(pl.load(out3, [0, 0], [64, 64]), 1.0), [0, 0], out3)
    return out


# ---- user errors (each a located CompileError)

@pl.program
class PredicateNotLiteral:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, gate: GATE, y: pl.Out[T]):
        y, t = pl.submit(self.inc, x, y, predicate=(gate[0] > 0.5))
        return y


@pl.program
class PredicateArity:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, gate: GATE, y: pl.Out[T]):
        y, t = pl.submit(self.inc, x, y, predicate=(x[0] > 0))
        return y


@pl.program
class DepsNotTask:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        n = pl.tensor.dim(x, 0)
        y, t = pl.submit(self.inc, x, y, deps=[n])
        return y


@pl.program
class NoDepOutsideCall:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        u = pl.no_dep(x)
        y = self.inc(u, y)
        return y


@pl.program
class DumpsNotArg:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, w: T, y: pl.Out[T]):
        y, t = pl.submit(self.inc, x, y, dumps=[w])
        return y


@pl.program
class TaskIdArithmetic:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        y, t = pl.submit(self.inc, x, y)
        u = t + 1
        return y


@pl.program
class TaskIdInKernel:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        t = pl.system.task_invalid()
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y


@pl.program
class TaskIdParam:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, t: pl.TaskId, y: pl.Out[T]):
        y = self.inc(x, y)
        return y


@pl.program
class WriteInput:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        x[0, 0] = 1.0
        y = self.inc(x, y)
        return y


@pl.program
class ReadWrongRank:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        y = self.inc(x, y)
        v = pl.read(y, [0])
        return y



@pl.program
class ArrayOfFloats:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        arr = pl.array.create(4, pl.FP32)
        y = self.inc(x, y)
        return y


@pl.program
class ArrayWrongElement:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        arr = pl.array.create(4, pl.TASK_ID)
        arr[0] = 3
        y = self.inc(x, y)
        return y


@pl.program
class DumpTagInKernel:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        pl.dump_tag(x)
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y


@pl.program
class NoDepOnCreator:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        t = pl.create_tensor([R, C], dtype=pl.FP32)
        t = self.inc(x, pl.no_dep(t))
        y = self.inc(t, y)
        return y


@pl.program
class TooManyDeps:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        arr = pl.array.create(40, pl.TASK_ID)
        y, t = pl.submit(self.inc, x, y, deps=[arr, arr])
        return y


@pl.program
class WriteAsValue:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        y = self.inc(x, y)
        v = pl.write(y, [0, 0], 1.0)
        return y


@pl.program
class RuntimeIndex:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.adds(pl.load(x, [0, 0], [R, C]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, m: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX], y: pl.Out[T], z: pl.Out[T]):
        ids = pl.array.create(2, pl.TASK_ID)
        y, t = pl.submit(self.inc, x, y)
        ids[n] = t                            # n must be 0 or 1 (checked at run time)
        v = y[m, 0]                           # m must be a row of y (checked at run time)
        z, _ = pl.submit(self.inc, y, z, deps=[ids])
        return z
