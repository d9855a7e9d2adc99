"""Host-function forms of pypto's distributed tests: ``x[k, r]`` (one index per leading dimension),
a factory constant named only in the host signature, and ``DistributedConfig`` from ``ptokit.ir``.
Against numpy at W = 2; the misuse of ``x[k, r]`` is a located error."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
import ptokit.language.distributed as pld
from ptokit.errors import CompileError
from ptokit.ir import DistributedConfig

C = 16


def rounds_program(steps: int, extra_index: bool = False):
    """``extra_index``: the host indexes a [steps, 2, 1, C] tensor with four indices (a mistake)."""
    @pl.program
    class Rounds:
        @pl.function(type=pl.FunctionType.InCore)
        def twice(self, a: pl.Tensor[[1, C], pl.FP32], y: pl.Out[pl.Tensor[[1, C], pl.FP32]]):
            y = pl.store(pl.add(pl.load(a, [0, 0], [1, C]), pl.load(a, [0, 0], [1, C])), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, a: pl.Tensor[[1, C], pl.FP32], y: pl.Out[pl.Tensor[[1, C], pl.FP32]]):
            y = self.twice(a, y)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, a: pl.Tensor[[steps, 2, 1, C], pl.FP32], y: pl.Out[pl.Tensor[[steps, 2, 1, C], pl.FP32]]):
            for k in pl.range(steps):
                for r in pl.range(pld.world_size()):
                    self.chip(a[k, r], y[k, r], device=r)

    @pl.program
    class BadRounds:
        @pl.function(type=pl.FunctionType.InCore)
        def twice(self, a: pl.Tensor[[1, C], pl.FP32], y: pl.Out[pl.Tensor[[1, C], pl.FP32]]):
            y = pl.store(pl.load(a, [0, 0], [1, C]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, a: pl.Tensor[[1, C], pl.FP32], y: pl.Out[pl.Tensor[[1, C], pl.FP32]]):
            y = self.twice(a, y)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self, a: pl.Tensor[[steps, 2, 1, C], pl.FP32], y: pl.Out[pl.Tensor[[steps, 2, 1, C], pl.FP32]]):
            for r in pl.range(pld.world_size()):
                self.chip(a[0, r, 0, 0], y[0, r], device=r)             # mistake: more indices than dims
    return BadRounds if extra_index else Rounds


def test_leading_indices_and_a_signature_constant(tmp_path):
    steps = 3
    c = ptokit.compile(rounds_program(steps), output_dir=tmp_path / "r",
                       distributed_config=DistributedConfig(device_ids=[0, 1]))
    a = np.random.default_rng(3).standard_normal((steps, 2, 1, C)).astype(np.float32)
    y = np.zeros_like(a)
    c(a, y)
    np.testing.assert_array_equal(y, a + a)
    assert DistributedConfig is ptokit.DistributedConfig


def test_too_many_host_indices_is_located(tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(rounds_program(2, extra_index=True), output_dir=tmp_path / "bad",
                       distributed_config=DistributedConfig(device_ids=[0, 1]))
    err = info.value
    assert "one index per leading dimension" in str(err)
    assert err.loc is not None and err.loc.file == __file__
    assert "# mistake: more indices" in open(__file__).read().splitlines()[err.loc.line - 1]
