"""pytest file in pypto's style for pypto.runtime's benchmark and Worker, run with
-p ptokit.pypto.pytest_plugin."""
import numpy as np
import pypto.language as pl
import pytest
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import BenchmarkStats, ChipWorker, DistributedWorker, RunConfig, Worker, benchmark

N = 16


@pl.program
class Inc:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[N, N], pl.FP32], out: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        return pl.store(pl.add(pl.load(x, [0, 0], [N, N]), 1.0), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, N], pl.FP32], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        return self.inc(x, y)


@pl.program
class IncPerRank:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[N, N], pl.FP32], out: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        return pl.store(pl.add(pl.load(x, [0, 0], [N, N]), 1.0), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def child(self, x: pl.Tensor[[N, N], pl.FP32], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        return self.inc(x, y)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[2, N, N], pl.FP32], y: pl.Out[pl.Tensor[[2, N, N], pl.FP32]]):
        for r in pl.range(2):
            self.child(x[r], y[r], device=r)


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_benchmark_one_chip(runtime, tmp_path):
    compiled = ir.compile(Inc, output_dir=str(tmp_path), platform="a2a3sim", runtime=runtime, dump_passes=False)
    x = np.arange(N * N, dtype=np.float32).reshape(N, N)
    y = np.zeros_like(x)
    stats = benchmark(compiled, [x, y], rounds=3, warmup=1, config=RunConfig(platform="a2a3sim", runtime=runtime))
    np.testing.assert_array_equal(y, x + 1)
    assert isinstance(stats, BenchmarkStats)
    assert stats.rounds == 3 and stats.warmup == 1 and len(stats.device_wall_us) == 3 == len(stats.host_wall_us)
    assert not stats.all_zero_device and stats.device_us_min > 0
    assert stats.device_us_min <= stats.device_us_median <= stats.device_us_max
    assert all(d <= h for d, h in zip(stats.device_wall_us, stats.host_wall_us))   # the span lies inside the launch
    assert stats.per_rank("device") == {}
    with pytest.raises(ValueError, match="rounds must be positive"):
        benchmark(compiled, [x, y], rounds=0)
    with pytest.raises(ValueError, match="config or platform"):
        benchmark(compiled, [x, y], platform="a2a3sim", config=RunConfig())


def test_benchmark_distributed_has_one_series_per_rank():
    compiled = ir.compile(IncPerRank, platform="a2a3sim", dump_passes=False,
                          distributed_config=DistributedConfig(device_ids=[0, 1]))
    x = np.random.default_rng(1).standard_normal((2, N, N)).astype(np.float32)
    y = np.zeros_like(x)
    stats = benchmark(compiled, [x, y], rounds=2, warmup=1)
    np.testing.assert_allclose(y, x + 1, rtol=1e-6)
    per_rank = stats.per_rank("device")
    assert sorted(per_rank) == [0, 1] and all(len(v) == 2 for v in per_rank.values())
    assert stats.device_wall_us == [max(per_rank[0][k], per_rank[1][k]) for k in range(2)]
    assert not stats.fallback_flattened and len(stats.per_round("union")) == 2
    with pytest.raises(ValueError, match="no platform / device_id"):
        benchmark(compiled, [x, y], rounds=1, device_id=3)


def test_both_workers_are_workers():
    assert issubclass(ChipWorker, Worker) and issubclass(DistributedWorker, Worker)
    with ChipWorker(config=RunConfig(platform="a2a3sim")) as w:
        assert isinstance(w, Worker)
    with pytest.raises(TypeError):
        Worker()                                   # abstract


def test_the_soc_description_counts_cores_from_platform_facts():
    from pypto import backend
    from pypto.pypto_core import ir as core_ir

    bk = backend.Backend910B.instance()
    assert bk is backend.get_backend_instance(backend.BackendType.Ascend910B)
    counts = {core_ir.CoreType.VECTOR: 0, core_ir.CoreType.CUBE: 0}
    for die, die_n in bk.soc.die_counts.items():
        for cluster, cluster_n in die.cluster_counts.items():
            for core, core_n in cluster.core_counts.items():
                counts[core.core_type] += core_n * cluster_n * die_n
    assert counts == {core_ir.CoreType.VECTOR: 48, core_ir.CoreType.CUBE: 24}       # 24 clusters of 1 AIC + 2 AIV
    assert bk.get_core_count(core_ir.CoreType.VECTOR) == 48 and bk.soc.total_core_count() == 72
    assert bk.get_mem_size(core_ir.MemorySpace.Vec) == 188416
    assert backend.Backend950.instance().get_mem_size(core_ir.MemorySpace.Acc) == 262144
    vec_core = next(c for c in next(iter(next(iter(bk.soc.die_counts)).cluster_counts)).core_counts
                    if c.core_type == core_ir.CoreType.VECTOR)
    assert [m.mem_type for m in vec_core.mems] == [core_ir.MemorySpace.Vec]
