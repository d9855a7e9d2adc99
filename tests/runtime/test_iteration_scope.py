"""Each iteration of an orchestration loop that creates tensors is a runtime scope of its own (as
pypto's MaterializeRuntimeScopes makes it): what an iteration creates retires once its tasks are
done, so a loop may create more bytes in all than one heap ring holds (pypto's paged attention
creates ~3.5 MB per KV block, 1.8 GB in all, against a 1 GB ring).  Both runtime kinds."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.runtime import RunConfig

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
SMALL_HEAP = RunConfig(heap_size=65536)    # four 64x64 f32 tensors


def small_heap(runtime):
    """A heap ring of four 64x64 f32 tensors; host_build_graph builds the whole graph before it
    runs (its outputs are all live at once), so it keeps the default size."""
    return SMALL_HEAP if runtime == "tensormap_and_ringbuffer" else RunConfig()


@pl.program
class LoopTemps:
    """acc += (x + 1) per iteration, through a tensor the iteration creates."""

    @pl.function(type=pl.FunctionType.InCore)
    def produce(self, x: pl.Tensor[[64, 64], pl.FP32],
                t: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.store(pl.adds(pl.load(x, [0, 0], [64, 64]), 1.0), [0, 0], t)
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def accumulate(self, t: pl.Tensor[[64, 64], pl.FP32],
                   acc: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        acc = pl.store(pl.add(pl.load(acc, [0, 0], [64, 64]), pl.load(t, [0, 0], [64, 64])), [0, 0], acc)
        return acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 64], pl.FP32]],
             n: pl.Scalar[pl.INT32]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(n):
            t = pl.create_tensor([64, 64], dtype=pl.FP32)
            t = self.produce(x, t)
            acc = self.accumulate(t, acc)
        return acc


@pl.program
class DeepLoops:
    """Four nested loops, the innermost creating a tensor: three get a scope each, the fourth
    would pass PTO2_MAX_SCOPE_DEPTH and runs in its parent's."""

    @pl.function(type=pl.FunctionType.InCore)
    def produce(self, x: pl.Tensor[[64, 64], pl.FP32],
                t: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.store(pl.adds(pl.load(x, [0, 0], [64, 64]), 1.0), [0, 0], t)
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def accumulate(self, t: pl.Tensor[[64, 64], pl.FP32],
                   acc: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        acc = pl.store(pl.add(pl.load(acc, [0, 0], [64, 64]), pl.load(t, [0, 0], [64, 64])), [0, 0], acc)
        return acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             acc: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for a in pl.range(2):
            for b in pl.range(2):
                for c in pl.range(2):
                    for d in pl.range(2):
                        t = pl.create_tensor([64, 64], dtype=pl.FP32)
                        t = self.produce(x, t)
                        acc = self.accumulate(t, acc)
        return acc


_COMPILED = {}


def compiled(program, runtime, tmp_path_factory):
    key = (program.name, runtime)
    if key not in _COMPILED:
        _COMPILED[key] = ptokit.compile(program, runtime=runtime,
                                        output_dir=tmp_path_factory.mktemp(f"iterscope_{key[0]}_{runtime}"))
    return _COMPILED[key]


def orchestration_source(c) -> str:
    return "\n".join(p.read_text() for p in (c.output_dir / "orchestration").glob("*.cpp"))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_loop_creating_more_than_the_heap_ring_holds_runs(runtime, tmp_path_factory):
    c = compiled(LoopTemps, runtime, tmp_path_factory)
    x = np.random.default_rng(7).standard_normal((64, 64)).astype(np.float32)
    acc = np.zeros_like(x)
    c(x, acc, 40, config=small_heap(runtime))     # 40 x 16 KiB created against a 64 KiB ring
    np.testing.assert_allclose(acc, 40 * (x + 1), rtol=1e-5)
    assert "PTO2_SCOPE() {   // pl.scope(mode=AUTO)" in orchestration_source(c)   # MaterializeRuntimeScopes


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_nested_loops_stop_at_the_scope_depth_limit(runtime, tmp_path_factory):
    c = compiled(DeepLoops, runtime, tmp_path_factory)
    x = np.random.default_rng(8).standard_normal((64, 64)).astype(np.float32)
    acc = np.zeros_like(x)
    c(x, acc, config=small_heap(runtime))
    np.testing.assert_allclose(acc, 16 * (x + 1), rtol=1e-5)
    src = orchestration_source(c)
    assert src.count("// pl.scope(mode=AUTO)") == 3   # the entry's scope + 3 = PTO2_MAX_SCOPE_DEPTH
