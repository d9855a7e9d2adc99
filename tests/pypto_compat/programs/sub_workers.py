"""pypto style: a host program whose SubWorkers run on the host -- one with a body (numpy here:
the program does not load torch), one abstract (`...`) bound at prepare(callbacks=...).  The chip
call is made without device= and its result is named with an annotation."""
import sys

import numpy as np
import pypto.language as pl
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime.distributed_runner import _tensor_from_continuous

N = 32


@pl.program
class Scaled:
    @pl.function(type=pl.FunctionType.InCore)
    def tile_sub(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
                 s: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        return pl.store(pl.sub(pl.load(a, [0, 0], [N, N]), pl.load(b, [0, 0], [N, N])), [0, 0], s)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_orch(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
                  s: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        return self.tile_sub(a, b, s)

    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def square(s: pl.Tensor[[N, N], pl.FP32], g: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        g[:] = s * s + 1.0

    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def report(g: pl.Tensor[[N, N], pl.FP32]):
        """Bound when the program is prepared."""
        ...

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
                  s: pl.Out[pl.Tensor[[N, N], pl.FP32]], g: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        diff: pl.Tensor[[N, N], pl.FP32] = self.chip_orch(a, b, s)
        tmp: pl.Tensor[[N, N], pl.FP32] = pl.create_tensor([N, N], dtype=pl.FP32)   # a host intermediate
        sq: pl.Tensor[[N, N], pl.FP32] = self.square(diff, tmp)
        self.square(sq, g)
        self.report(g)


if __name__ == "__main__":
    runtime = sys.argv[1]
    assert Scaled.get_function("report").requires_runtime_binding is True
    assert Scaled.get_function("square").requires_runtime_binding is False
    compiled = ir.compile(Scaled, platform="a2a3sim", dump_passes=False,
                          distributed_config=DistributedConfig(device_ids=[0], num_sub_workers=1, runtime=runtime))
    rng = np.random.default_rng(5)
    a = rng.standard_normal((N, N)).astype(np.float32)
    b = rng.standard_normal((N, N)).astype(np.float32)
    s, g = np.zeros_like(a), np.zeros_like(a)
    seen = []

    def report(args):
        seen.append(np.array(_tensor_from_continuous(args[0])))

    with compiled.prepare(callbacks={"report": report}) as rt:
        rt(a, b, s, g)
    np.testing.assert_allclose(s, a - b, rtol=1e-6)
    np.testing.assert_allclose(g, ((a - b) ** 2 + 1.0) ** 2 + 1.0, rtol=1e-5)
    np.testing.assert_array_equal(seen[0], g)          # the callback saw the SubWorker's result
    with compiled.prepare(sub_worker_overrides={"report": report}) as rt:     # pypto's older keyword
        rt(a, b, s, g)
    assert len(seen) == 2
    for bad in ({}, {"report": report, "nosuch": report}):
        try:
            compiled.prepare(callbacks=bad)
        except ValueError as exc:
            print("refused:", exc)
    try:
        compiled(a, b, s, g)                           # report left unbound: its stub says so when reached
    except RuntimeError as exc:
        print("unbound:", exc)
    print(f"OK {runtime.lower()} callbacks={len(seen)}")
