"""pl.create_tensor's buffers start zero-filled (pypto's definition): a created tensor may be
read, or read and written (InOut), before any task writes it, also through a window or by the
host; a kernel may leave an output it was handed unwritten (a pass-through binding shapes)."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl

R, C = 32, 64
T = pl.Tensor[[R, C], pl.FP32]
RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


@pl.program
class AccumulateIntoCreated:
    @pl.function(type=pl.FunctionType.InCore)
    def acc(self, x: T, t: pl.InOut[T]) -> T:
        s = pl.add(pl.load(t, [0, 0], [R, C]), pl.load(x, [0, 0], [R, C]))
        t = pl.store(s, [0, 0], t)
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def copy(self, t: T, y: pl.Out[T]) -> T:
        y = pl.store(pl.load(t, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]) -> T:
        t = pl.create_tensor([R, C], dtype=pl.FP32)
        for i in pl.range(3):
            t = self.acc(x, t)
        y = self.copy(t, y)
        return y


@pl.program
class ReadCreatedFirst:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: T, b: T, y: pl.Out[T]) -> T:
        y = pl.store(pl.add(pl.load(a, [0, 0], [R, C]), pl.load(b, [0, 0], [R, C])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]) -> T:
        t = pl.create_tensor([2 * R, C], dtype=pl.FP32)
        y = self.add(t[R:2 * R, :], x, y)
        return y


@pl.program
class HostReadsCreated:
    @pl.function(type=pl.FunctionType.InCore)
    def adds(self, x: T, v: pl.Scalar[pl.FP32], y: pl.Out[T]) -> T:
        y = pl.store(pl.adds(pl.load(x, [0, 0], [R, C]), v), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]) -> T:
        t = pl.create_tensor([R, C], dtype=pl.FP32)
        v = t[1, 2]
        y = self.adds(x, v, y)
        return y


@pl.program
class PassThroughBindsCreated:
    @pl.function(type=pl.FunctionType.InCore)
    def init(self, t: pl.Out[T]) -> T:
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def acc(self, x: T, t: pl.InOut[T]) -> T:
        s = pl.add(pl.load(t, [0, 0], [R, C]), pl.load(x, [0, 0], [R, C]))
        t = pl.store(s, [0, 0], t)
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def copy(self, t: T, y: pl.Out[T]) -> T:
        y = pl.store(pl.load(t, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]) -> T:
        t = pl.create_tensor([R, C], dtype=pl.FP32)
        t = self.init(t)
        t = self.acc(x, t)
        y = self.copy(t, y)
        return y


CASES = [
    (AccumulateIntoCreated, lambda x: 3 * x),
    (ReadCreatedFirst, lambda x: x),
    (HostReadsCreated, lambda x: x),
    (PassThroughBindsCreated, lambda x: x),
]


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("program,expect", CASES, ids=[c[0].name for c in CASES])
def test_created_tensor_starts_zero(tmp_path, program, expect, runtime):
    x = np.random.default_rng(3).standard_normal((R, C)).astype(np.float32)
    y = np.full_like(x, np.nan)
    ptokit.compile(program, output_dir=tmp_path / "out", runtime=runtime)(x, y)
    np.testing.assert_allclose(y, expect(x), rtol=1e-6)


def test_read_first_is_allocated_where_created(tmp_path):
    c = ptokit.compile(ReadCreatedFirst, output_dir=tmp_path / "out")
    orch = next((c.output_dir / "orchestration").glob("*.cpp")).read_text()
    assert "alloc_tensors(t_ci)" in orch
    c2 = ptokit.compile(PassThroughBindsCreated, output_dir=tmp_path / "out2")
    orch2 = next((c2.output_dir / "orchestration").glob("*.cpp")).read_text()
    assert "alloc_tensors" not in orch2      # first handed to a writer: allocated for that task


@pl.program
class ReusedHeap:
    """Each round's two created tensors land where an earlier round's were (a small heap ring):
    the pass-through one must still start at zero, not hold the earlier round's values."""
    @pl.function(type=pl.FunctionType.InCore)
    def init(self, t: pl.Out[T]) -> T:
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def acc(self, x: T, t: pl.InOut[T]) -> T:
        t = pl.store(pl.add(pl.load(t, [0, 0], [R, C]), pl.load(x, [0, 0], [R, C])), [0, 0], t)
        return t

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.InOut[T]) -> T:
        for i in pl.range(6):
            with pl.scope():
                t = pl.create_tensor([R, C], dtype=pl.FP32)
                t = self.init(t)
                t = self.acc(x, t)
                y = self.acc(t, y)
        return y


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_reused_heap_is_zeroed(tmp_path, runtime):
    x = np.random.default_rng(4).standard_normal((R, C)).astype(np.float32)
    y = np.zeros_like(x)
    config = ptokit.runtime.RunConfig(heap_size=16384) if runtime == RUNTIMES[0] else None
    ptokit.compile(ReusedHeap, output_dir=tmp_path / "out", runtime=runtime)(x, y, config=config)
    np.testing.assert_allclose(y, 6 * x, rtol=1e-5)
