"""Tensor windows (row blocks, ``x[a:b, :]``) as task arguments in orchestration: compiled,
built and run on the simulator under both runtime kinds, compared with numpy; the
dependencies between window tasks are the runtime's (checked on the recorded edges)."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import RuntimeFailure

import programs


@pl.program
class WindowRuntimeBound:
    """The block count is a runtime scalar: a window past the end is cut there, and the kernel's load
    from it is caught by the simulator's bounds check."""

    @pl.function(type=pl.FunctionType.InCore)
    def neg(self, x: pl.Tensor[[32, 64], pl.FP32], o: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        o = pl.store(pl.neg(pl.load(x, [0, 0], [32, 64])), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[128, 64], pl.FP32], n: pl.Scalar[pl.INT32],
             y: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
        for i in pl.range(n):
            self.neg(x[i * 32:(i + 1) * 32, :], y[i * 32:(i + 1) * 32, :])
        return y

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
_COMPILED = {}


def compiled(program, runtime, tmp_path_factory):
    key = (program, runtime)
    if key not in _COMPILED:
        out = tmp_path_factory.mktemp(f"{program.name}_{runtime}")
        _COMPILED[key] = ptokit.compile(program, output_dir=out, runtime=runtime)
    return _COMPILED[key]


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def orch_source(c):
    return next((c.output_dir / "orchestration").glob("*.cpp")).read_text()


def edges(result):
    return {(int(p), int(c)) for p, c in result.timeline.edges}


@pytest.fixture(params=RUNTIMES)
def runtime(request):
    return request.param


def test_row_blocks_one_task_per_block(runtime, tmp_path_factory):
    c = compiled(programs.WindowRowBlocks, runtime, tmp_path_factory)
    src = orch_source(c)
    assert "make_tensor_view(ext_x, win_t0_0_shapes, win_t0_0_offs, 2)" in src
    assert "uint32_t win_t0_2_offs[2] = {static_cast<uint32_t>((i * 32)), 0u};" in src
    x = rand(256, 64, seed=1)
    y = np.full_like(x, np.nan)
    res = c(x, y)
    assert res.tasks == 8
    ref = x * np.repeat(np.arange(8, dtype=np.float32), 32)[:, None] + 1.0
    np.testing.assert_allclose(y, ref, rtol=1e-6, atol=1e-6)
    assert not edges(res)     # disjoint windows: no task waits for another


@pytest.mark.parametrize("rows", [32, 160])
def test_row_blocks_of_a_dynamic_tensor(runtime, rows, tmp_path_factory):
    x = rand(rows, 64, seed=rows)
    y = np.full_like(x, np.nan)
    res = compiled(programs.WindowDynamicRows, runtime, tmp_path_factory)(x, y)
    assert res.tasks == rows // 32
    np.testing.assert_array_equal(y, -x)


def test_intermediate_written_whole_then_read_in_windows(runtime, tmp_path_factory):
    c = compiled(programs.WindowIntermediate, runtime, tmp_path_factory)
    src = orch_source(c)
    assert "params_t0.add_output(t_ci);" in src                       # created by its first writer
    assert "make_tensor_view(t, win_t1_0_shapes, win_t1_0_offs, 2)" in src
    assert "params_t1.add_inout(win_t1_0);" in src
    x = rand(128, 64, seed=3)
    y = np.full_like(x, np.nan)
    res = c(x, y)
    t = x + 1.0
    t[64:96] *= 2.0
    np.testing.assert_allclose(y, np.exp(t), rtol=1e-5)
    # task 0 writes t, task 1 doubles rows 64..96, tasks 2..5 read row blocks 0..3
    e = edges(res)
    assert {(0, 1), (0, 2), (0, 3), (0, 5)} <= e
    assert (1, 4) in e or (0, 4) in e                # block 2 waits for the doubling
    assert (1, 2) not in e and (1, 3) not in e and (1, 5) not in e


def test_statement_order_is_not_dependency_order(runtime, tmp_path_factory):
    x = rand(128, 64, seed=4)
    u, z, w = (np.full_like(x, np.nan), np.full_like(x, np.nan), np.full((64, 64), np.nan, np.float32))
    res = compiled(programs.WindowOrder, runtime, tmp_path_factory)(x, u, z, w)
    np.testing.assert_allclose(u, x + 1.0, rtol=1e-6)
    np.testing.assert_allclose(z, np.exp(x + 1.0), rtol=1e-5)
    np.testing.assert_allclose(w[32:], x[:32] * 2.0, rtol=1e-6)
    np.testing.assert_allclose(w[:32], (x[32:64] + 1.0) * 2.0, rtol=1e-6)
    # tasks 0..3 write u blocks 3, 2, 1, 0; task 4 writes w[32:64]; task 5 reads all of u;
    # task 6 reads u[32:64] (written by task 2) and writes w[0:32]
    e = edges(res)
    # a producer that completed and retired (its loop iteration's runtime scope ended) before the
    # consumer was submitted leaves no recorded edge: its work is done, so the consumer still starts
    # after it ends
    b = res.timeline.blocks
    for p, c in {(0, 5), (1, 5), (2, 5), (3, 5), (2, 6)}:
        assert (p, c) in e or b[b["task_seq"] == c]["start_ns"].min() >= b[b["task_seq"] == p]["end_ns"].max()
    assert not {(0, 6), (1, 6), (3, 6), (4, 6), (4, 5)} & e
    assert not {(p, c) for p, c in e if c <= 4}


def test_window_ir_prints_as_slices(tmp_path):
    out = tmp_path / "o"
    ptokit.compile(programs.WindowOrder, output_dir=out, dump_passes=True)
    text = (out / "passes_dump" / "00_frontend.py").read_text()
    assert "self.plus1(x[((3 - i) * 32):((3 - i) * 32) + 32, :], u[((3 - i) * 32):((3 - i) * 32) + 32, :])" in text
    assert "self.twice(u[32:64, :], w[0:32, :])" in text


def test_window_past_the_end_at_run_time_fails_in_the_kernel_reading_it(tmp_path_factory):
    # the orchestration cuts a window at its tensor's end (pypto's tensor.slice, tests/parity/test_view_clamp.py);
    # a kernel that loads a whole block from the cut window is stopped by the load's bounds check
    c = compiled(WindowRuntimeBound, RUNTIMES[0], tmp_path_factory)
    x = rand(128, 64, seed=6)
    y = np.zeros_like(x)
    c(x, 3, y)
    np.testing.assert_array_equal(y[:96], -x[:96])
    with pytest.raises(RuntimeFailure) as info:
        c(x, 5, np.zeros_like(x))
    assert info.value.code == 101 and "kernel 'neg'" in info.value.message and "TLOAD" in info.value.message
