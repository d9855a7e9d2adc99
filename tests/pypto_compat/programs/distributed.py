"""pypto style: a program with a host-level orchestrator, compiled without a distributed config
(one device), run directly and on a DistributedWorker with a resident tensor."""
import numpy as np
import pypto.language as pl
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedCompiledProgram
from pypto.runtime import DistributedWorker, execute_distributed_compiled

N = 32


@pl.program
class HostAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def tile_add(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
                 f: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        return pl.store(pl.add(pl.load(a, [0, 0], [N, N]), pl.load(b, [0, 0], [N, N])), [0, 0], f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_orch(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
                  f: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        return self.tile_add(a, b, f)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
                  f: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.chip_orch(a, b, f, device=0)


if __name__ == "__main__":
    compiled = ir.compile(HostAdd, platform="a2a3sim", dump_passes=False)
    assert isinstance(compiled, DistributedCompiledProgram), compiled
    a = np.full((N, N), 2.0, np.float32)
    b = np.full((N, N), 3.0, np.float32)
    f = np.zeros_like(a)
    compiled(a, b, f)
    np.testing.assert_array_equal(f, a + b)
    returned = compiled(a, b)                            # return style: the Out tensor is allocated
    assert isinstance(returned, np.ndarray) and returned is not f
    np.testing.assert_array_equal(returned, a + b)
    with compiled.prepare() as rt:
        acc = rt.alloc_tensor((N, N), np.float32)        # resident: survives every run
        for _ in range(3):
            rt.run(compiled, a, acc, acc)                # acc = a + acc
        rt.run(compiled, acc, b, f)
    np.testing.assert_array_equal(f, 3 * a + b)
    g = np.zeros_like(a)
    execute_distributed_compiled(compiled.output_dir, [f, b, g])     # the tree again, not recompiled
    np.testing.assert_array_equal(g, f + b)
    print(f"OK devices {compiled.device_ids} f={f[0, 0]:g}")
