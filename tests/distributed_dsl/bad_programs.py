"""Distributed programs with one mistake each (tests/distributed_dsl/test_errors.py); the line
of each mistake carries a comment naming it.  Generated shapes: KERNEL[i] / HOST[i]."""
import ptokit.language as pl
import ptokit.language.distributed as pld

N = 64


@pl.program
class Kernel0:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
          w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        pld.system.notify(x, 0, [0, 0], 1)                          # mistake: notify on a pl.Tensor
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        y = self.k(x, y, w, sig)
        return y


@pl.program
class Kernel1:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
          w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        pld.system.wait(w, [0, 0], 1)                               # mistake: FP32 signal
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        y = self.k(x, y, w, sig)
        return y


@pl.program
class Kernel2:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
          w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        n = pld.world_size()                                        # mistake: world_size in a kernel
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        y = self.k(x, y, w, sig)
        return y


@pl.program
class Kernel3:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
          w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        pld.system.defer_wait(sig, [0, 0], 1)                       # mistake: P3 name
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        y = self.k(x, y, w, sig)
        return y


@pl.program
class Kernel4:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
          w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        w = pld.tensor.allreduce(w, sig, mode="ring")              # mistake: ring with a mesh signal
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        y = self.k(x, y, w, sig)
        return y


@pl.program
class Kernel5:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
          w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        pld.tensor.put(w, 0, w, dst_offsets=[0, 0])                 # mistake: partial region
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        y = self.k(x, y, w, sig)
        return y


@pl.program
class Kernel6:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
          w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        t = pld.tile.remote_load(x, 0, [0, 0], [1, N])              # mistake: remote_load of a pl.Tensor
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             w: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        y = self.k(x, y, w, sig)
        return y


@pl.program
class Host0:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], w)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        self.k(x, w)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[2, 1, N], pl.FP32]):
        buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
        w = pld.window(buf, [1, N], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            self.k(x[r], w, device=r)                               # mistake: host calls a kernel


@pl.program
class Host1:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], w)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        self.k(x, w)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[2, 1, N], pl.FP32]):
        buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
        w = pld.window(buf, [1, N], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            big = pld.window(buf, [2, N], dtype=pl.FP32)            # mistake: window overflows its slot


@pl.program
class Host2:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], w)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        self.k(x, w)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[2, 1, N], pl.FP32]):
        buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
        w = pld.window(buf, [1, N], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            inner = pld.alloc_window_buffer(64)                     # mistake: slot inside a loop


@pl.program
class Host3:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], w)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        self.k(x, w)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[2, 1, N], pl.FP32]):
        buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
        w = pld.window(buf, [1, N], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            self.chip(x[r], w)                                      # mistake: windows without device=


@pl.program
class Host4:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], w)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        self.k(x, w)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[2, 1, N], pl.FP32]):
        buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
        w = pld.window(buf, [1, N], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            self.chip(x[r], x[r], device=r)                         # mistake: host tensor for a window


@pl.program
class Host5:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], w)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        self.k(x, w)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[2, 1, N], pl.FP32]):
        buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
        w = pld.window(buf, [1, N], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            pld.tensor.allgather(w)                                 # mistake: allgather without a target


@pl.program
class Host6:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], w)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        self.k(x, w)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[2, 1, N], pl.FP32]):
        buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
        w = pld.window(buf, [1, N], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            self.chip(x[r], w, device=r + 1)                        # mistake: device out of range (run time)


KERNEL = [Kernel0, Kernel1, Kernel2, Kernel3, Kernel4, Kernel5, Kernel6]
HOST = [Host0, Host1, Host2, Host3, Host4, Host5, Host6]

@pl.program
class NotifyInChip:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        pld.system.notify(sig, 0, [0, 0], 1)                                # mistake: comm op in chip code
        y = self.k(x, y)
        return y


@pl.program
class TensorForWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
        pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], w)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], t: pl.Tensor[[1, N], pl.FP32]):
        self.k(x, t)                                                        # mistake: a pl.Tensor for a window


@pl.program
class PeerOutOfRange:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        ctx = pld.get_comm_ctx(sig)
        pld.system.notify(sig, pld.nranks(ctx), [0, 0], 1)                  # runtime: peer out of range

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        self.k(sig)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[2, 1, N], pl.FP32]):
        buf = pld.alloc_window_buffer(4)
        sig = pld.window(buf, [1, 1], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            self.chip(sig, device=r)


@pl.program
class SubWorkerWithSelf:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        y = self.k(x, y)
        return y

    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def look(self, y: pl.Tensor[[1, N], pl.FP32]):                          # mistake: a SubWorker with self
        ...

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        self.chip(x, y)
        self.look(y)


@pl.program
class SubWorkerCall:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        y = self.k(x, y)
        return y

    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def look(y: pl.Tensor[[1, N], pl.FP32]):
        ...

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        self.chip(x, y)
        self.look(y, x)                                                     # mistake: SubWorker argument count


@pl.program
class ChipKeyword:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        y = self.k(x, y)
        return y

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        self.chip(y=y, x=x)                                                 # keywords bind as in Python
        self.chip(x, out=y)                                                 # mistake: chip keyword


@pl.program
class ChipResultOfTwo:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
          z: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        z = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], z)
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             z: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        y, z = self.k(x, y, z)
        return y, z

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             z: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        both = self.chip(x, y, z)                                           # mistake: one name for two outputs


@pl.program
class HostCreateTensor:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        y = self.k(x, y)
        return y

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
        t = pl.create_tensor([1, N])                                        # mistake: host tensor without dtype
        self.chip(x, t)
        self.chip(t, y)
