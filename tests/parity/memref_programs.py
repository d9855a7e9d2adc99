"""pl.MemRef programs (issue 13, pypto parity of forms): declared allocations that tiles share.
New programs go at the end of this file."""
import ptokit.language as pl

R, C = 16, 64

ring = pl.MemRef(slots=2)     # unnamed: takes the name it is referred to by ("ring")
scratch = pl.MemRef()


@pl.program
class DoubleBuffer:
    """slots=2 indexed by the loop variable: iteration i loads into slot i % 2 of one region."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4 * R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        acc = pl.full([R, C], pl.FP32, 0.0)
        for i in pl.range(4):
            t: pl.Tile[[R, C], pl.FP32, ring[i % 2], pl.Mem.Vec] = pl.load(x, [i * R, 0], [R, C])
            acc = pl.add(acc, pl.muls(t, 2.0))
        e: pl.Tile[[R, C], pl.FP32, scratch, pl.Mem.Vec] = pl.exp(pl.muls(acc, 0.1))
        f: pl.Tile[[R, C], pl.FP32, scratch, pl.Mem.Vec] = pl.adds(e, 1.0)     # e's last read writes f
        out = pl.store(f, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4 * R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        out = self.k(x, out)
        return out


@pl.program
class SharedSlot:
    """The aliasing is real: in iteration 0 ``a`` (slot i) and ``b`` (slot 0) are one buffer, so loading
    ``b`` overwrites ``a`` and ``a + b`` reads ``2 * y``; in iteration 1 they are apart: ``x + y``.
    The inline named form is the same declaration at each use."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Tensor[[R, C], pl.FP32],
          out: pl.Out[pl.Tensor[[2 * R, C], pl.FP32]]):
        for i in pl.range(2):
            a: pl.Tile[[R, C], pl.FP32, pl.MemRef("pair", slots=2)[i], pl.Mem.Vec] = pl.load(x, [0, 0], [R, C])
            b: pl.Tile[[R, C], pl.FP32, pl.MemRef("pair", slots=2)[0], pl.Mem.Vec] = pl.load(y, [0, 0], [R, C])
            out = pl.store(pl.add(a, b), [i * R, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Tensor[[R, C], pl.FP32],
             out: pl.Out[pl.Tensor[[2 * R, C], pl.FP32]]):
        out = self.k(x, y, out)
        return out


def make_jit(runtime: str):
    """@pl.jit with a closure MemRef (slots=2, run-time slot) and a global one."""
    halves = pl.MemRef("halves", slots=2)

    def entry(x: pl.Tensor, y: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(4):
                t: pl.Tile[[R, C], pl.FP32, halves[i % 2], pl.Mem.Vec] = pl.load(x, [i * R, 0], [R, C])
                u: pl.Tile[[R, C], pl.FP32, scratch, pl.Mem.Vec] = pl.adds(t, 1.0)
                y = pl.store(u, [i * R, 0], y)
        return y

    return pl.jit(runtime=runtime)(entry)


l0c = pl.MemRef(slots=2)


@pl.program
class CubeSlots:
    """A cube kernel rotating its Mat operand and its Acc result through two slots each."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
          y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        rb = pl.move(pl.load(b, [0, 0], [32, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        for i in pl.range(4):
            ta: pl.Tile[[16, 32], pl.FP16, pl.MemRef("mat", slots=2)[i % 2], pl.Mem.Mat] = pl.load(
                a, [i * 16, 0], [16, 32], target_memory=pl.Mem.Mat)
            acc: pl.Tile[[16, 64], pl.FP32, l0c[i % 2], pl.Mem.Acc] = pl.matmul(
                pl.move(ta, target_memory=pl.Mem.Left), rb)
            y = pl.store(acc, [i * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(a, b, y)
        return y


pick = pl.MemRef(slots=2)


@pl.program
class ScalarSlot:
    """The slot is a scalar parameter: with s = 1, ``a`` and ``b`` are one buffer and ``a + b`` is ``2 * y``;
    with s = 0 they are apart (one compiled kernel, the aliasing decided when it runs)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Tensor[[R, C], pl.FP32], s: pl.Scalar[pl.INT32],
          out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        a: pl.Tile[[R, C], pl.FP32, pick[s], pl.Mem.Vec] = pl.load(x, [0, 0], [R, C])
        b: pl.Tile[[R, C], pl.FP32, pick[1], pl.Mem.Vec] = pl.load(y, [0, 0], [R, C])
        out = pl.store(pl.add(a, b), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Tensor[[R, C], pl.FP32], s: pl.Scalar[pl.INT32],
             out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        out = self.k(x, y, s, out)
        return out


# ---- memory_planner=PTOAS (issue 29): the region forms it keeps and the ones it refuses

colive = pl.MemRef(slots=2)


@pl.program
class CoLiveSlots:
    """Two slots of one region read in the same iteration: fine with ptokit's planner, refused under PTOAS."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4 * R, C], pl.FP32], b: pl.Tensor[[4 * R, C], pl.FP32],
          out: pl.Out[pl.Tensor[[4 * R, C], pl.FP32]]):
        for i in pl.range(4):
            lo: pl.Tile[[R, C], pl.FP32, colive[i % 2], pl.Mem.Vec] = pl.load(a, [i * R, 0], [R, C])
            hi: pl.Tile[[R, C], pl.FP32, colive[(i + 1) % 2], pl.Mem.Vec] = pl.load(b, [i * R, 0], [R, C])
            out = pl.store(pl.sub(lo, hi), [i * R, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[4 * R, C], pl.FP32], b: pl.Tensor[[4 * R, C], pl.FP32],
             out: pl.Out[pl.Tensor[[4 * R, C], pl.FP32]]):
        out = self.k(a, b, out)
        return out


pingpong = pl.MemRef(slots=2)
consts = pl.MemRef(slots=2)


@pl.program
class OneSlotPerIteration:
    """The region forms PTOAS keeps: one slot per iteration (ping-pong) and two constant slots outside
    a loop."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4 * R, C], pl.FP32], y: pl.Tensor[[R, C], pl.FP32],
          out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        p: pl.Tile[[R, C], pl.FP32, consts[0], pl.Mem.Vec] = pl.load(x, [0, 0], [R, C])
        q: pl.Tile[[R, C], pl.FP32, consts[1], pl.Mem.Vec] = pl.load(y, [0, 0], [R, C])
        acc = pl.sub(p, q)
        for i in pl.range(1, 4):
            t: pl.Tile[[R, C], pl.FP32, pingpong[i % 2], pl.Mem.Vec] = pl.load(x, [i * R, 0], [R, C])
            acc = pl.add(acc, t)
        out = pl.store(acc, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4 * R, C], pl.FP32], y: pl.Tensor[[R, C], pl.FP32],
             out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        out = self.k(x, y, out)
        return out


two = pl.MemRef(slots=2)
many = pl.MemRef(slots=17)


@pl.program
class CarriedSlot:
    """A slot's tile carried through a loop: pypto refuses it under PTOAS (its phi is the slot); in ptokit
    the carried value is a copy."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        t: pl.Tile[[R, C], pl.FP32, two[0], pl.Mem.Vec] = pl.load(x, [0, 0], [R, C])
        for i, (acc,) in pl.range(2, init_values=(t,)):
            nxt = pl.adds(acc, 1.0)
            r = pl.yield_(nxt)
        out = pl.store(r, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        out = self.k(x, out)
        return out


@pl.program
class MixedSlotShapes:
    """Slots holding tiles of two shapes: refused under PTOAS (a region's slots are of one type)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        a: pl.Tile[[R, C], pl.FP32, two[0], pl.Mem.Vec] = pl.load(x, [0, 0], [R, C])
        b: pl.Tile[[R, 32], pl.FP32, two[1], pl.Mem.Vec] = pl.load(x, [0, 32], [R, 32])
        out = pl.store(a, [0, 0], out)
        out = pl.store(b, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        out = self.k(x, out)
        return out


@pl.program
class TooManySlots:
    """17 slots: a region has 2 to 16; refused under PTOAS."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        a: pl.Tile[[R, C], pl.FP32, many[3], pl.Mem.Vec] = pl.load(x, [0, 0], [R, C])
        out = pl.store(a, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        out = self.k(x, out)
        return out


lefts = pl.MemRef(slots=2)


@pl.program
class LeftSlots:
    """Slots in Left (L0A): a multi-buffer region lives in Vec, Mat or Acc; refused under PTOAS."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        rb = pl.move(pl.load(b, [0, 0], [32, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        ma = pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        la: pl.Tile[[16, 32], pl.FP16, lefts[0], pl.Mem.Left] = pl.move(ma, target_memory=pl.Mem.Left)
        y = pl.store(pl.matmul(la, rb), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(a, b, y)
        return y
