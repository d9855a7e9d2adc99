"""MaterializeRuntimeScopes: each pl.range loop body of an orchestration that submits tasks is a
runtime scope, so a loop may submit more tasks than the task ring holds (pypto's programs do);
a loop whose created tensor is used after it is left as written (a scope's tensors end with it)."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.ir import nodes as N
from ptokit.language.parser import parse_program
from ptokit.passes.runtime_scopes import materialize_runtime_scopes
from ptokit.runtime import RunConfig

T = pl.Tensor[[16, 64], pl.FP32]
RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


@pl.program
class ManyTasks:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]) -> T:
        y = pl.store(pl.adds(pl.load(x, [0, 0], [16, 64]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, n: pl.Scalar[pl.INDEX], y: pl.InOut[T]) -> T:
        for i in pl.range(n):
            t = pl.create_tensor([16, 64], dtype=pl.FP32)
            t = self.inc(y, t)
            y = self.inc(t, y)         # y += 2 per round
        return y


@pl.program
class CreatedUsedAfter:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: T, y: pl.Out[T]) -> T:
        y = pl.store(pl.adds(pl.load(x, [0, 0], [16, 64]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]) -> T:
        for i in pl.range(2):
            t = pl.create_tensor([16, 64], dtype=pl.FP32)
            t = self.inc(x, t)
        y = self.inc(t, y)
        return y


def _loop_bodies(prog):
    return [s.body for s in N.walk_stmts(prog.functions["main"].body) if isinstance(s, N.For)]


def test_the_pass_scopes_loop_bodies_whose_tensors_stay_inside():
    scoped = _loop_bodies(materialize_runtime_scopes(parse_program(ManyTasks), None))
    assert [[(type(s).__name__, s.kind, s.attrs) for s in b] for b in scoped] == [[("Scope", "scope", {"mode": "auto"})]]
    kept = _loop_bodies(materialize_runtime_scopes(parse_program(CreatedUsedAfter), None))
    assert not any(isinstance(s, N.Scope) for b in kept for s in b)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_loop_submits_more_tasks_than_the_ring_holds(tmp_path, runtime):
    c = ptokit.compile(ManyTasks, output_dir=tmp_path / "o", runtime=runtime)
    x = np.zeros((16, 64), np.float32)
    y = np.zeros_like(x)
    # 80 tasks through 16 slots; host_build_graph builds the whole graph before it runs: no retiring
    ring = 16 if runtime == "tensormap_and_ringbuffer" else 128
    c(x, 40, y, config=RunConfig(task_ring_size=ring))
    np.testing.assert_array_equal(y, np.full_like(x, 80.0))


def test_the_pass_limit_is_the_runtime_header_limit():
    # one fact in two languages: the pass stops nesting scopes where the runtime refuses deeper ones
    import re
    from pathlib import Path

    from ptokit.targets import MAX_RUNTIME_SCOPE_DEPTH
    header = Path(ptokit.__file__).parent / "runtime" / "include" / "pto_orchestration_api.h"
    m = re.search(r"constexpr\s+int\s+PTO2_MAX_SCOPE_DEPTH\s*=\s*(\d+)\s*;", header.read_text())
    assert m, "PTO2_MAX_SCOPE_DEPTH is no longer declared in the runtime's orchestration header"
    assert int(m.group(1)) == MAX_RUNTIME_SCOPE_DEPTH
