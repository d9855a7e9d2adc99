"""Compile, build and run DSL programs on the simulator; compare with numpy.

Every program runs under both runtime kinds, which must give identical results.
Trees are compiled once per (program, runtime) and kernels are shared through the
build cache.
"""
import numpy as np
import pytest

import ptokit
from ptokit.runtime.config import RunConfig

import programs

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


@pytest.fixture(params=RUNTIMES)
def runtime(request):
    return request.param


def test_elementwise(runtime, tmp_path_factory):
    a, b = rand(64, 64, seed=1), rand(64, 64, seed=2)
    y, z = np.zeros_like(a), np.zeros_like(a)
    compiled(programs.Elementwise, runtime, tmp_path_factory)(a, b, y, z)
    np.testing.assert_allclose(y, a + b, rtol=1e-6)
    np.testing.assert_allclose(z, np.exp(a * b), rtol=1e-5)


def test_scalar_operand(runtime, tmp_path_factory):
    x = rand(64, 64)
    y = np.zeros_like(x)
    compiled(programs.ScalarOperand, runtime, tmp_path_factory)(x, 0.25, y)
    np.testing.assert_allclose(y, x * 0.25 + 1.5, rtol=1e-6)


@pytest.mark.parametrize("rows", [32, 96, 256])
def test_dynamic_rows_and_runtime_loop_bound(runtime, rows, tmp_path_factory):
    x = rand(rows, 64)
    y = np.zeros_like(x)
    compiled(programs.DynamicRows, runtime, tmp_path_factory)(x, -3.0, y)
    np.testing.assert_allclose(y, x * -3.0, rtol=1e-6)


@pytest.mark.parametrize("n", [1, 3, 8])
def test_loop_carried_tile_with_scalar_bound(runtime, n, tmp_path_factory):
    x = rand(256, 64)
    y = np.zeros((32, 64), np.float32)
    compiled(programs.LoopSum, runtime, tmp_path_factory)(x, n, y)
    ref = x[: n * 32].reshape(n, 32, 64).sum(axis=0)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


def test_softmax_rows(runtime, tmp_path_factory):
    x = rand(32, 64) * 4
    y = np.zeros_like(x)
    compiled(programs.SoftmaxRows, runtime, tmp_path_factory)(x, y)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_layer_norm_row_and_column_expands(runtime, tmp_path_factory):
    x = rand(32, 64, seed=3)
    gamma, beta = rand(1, 64, seed=4), rand(1, 64, seed=5)
    y = np.zeros_like(x)
    compiled(programs.LayerNormish, runtime, tmp_path_factory)(x, gamma, beta, y)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    ref = (x64 - mean) / np.sqrt(var + 1e-5) * gamma + beta
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)


def test_two_kernels_with_runtime_intermediate(runtime, tmp_path_factory):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parents[2] / "examples"))
    import add_scale
    a, b = rand(64, 64, seed=6), rand(64, 64, seed=7)
    y = np.zeros_like(a)
    compiled(add_scale.AddScale, runtime, tmp_path_factory)(a, b, 0.5, y)
    np.testing.assert_allclose(y, np.exp((a + b) * 0.5), rtol=1e-5)


def test_graphs_diamond_inout_chain_and_order(runtime, tmp_path_factory):
    x, w = rand(32, 64, seed=8), rand(32, 64, seed=9)
    acc0 = rand(32, 64, seed=10)
    d, z, e = (np.zeros_like(x) for _ in range(3))
    acc = acc0.copy()
    compiled(programs.Graphs, runtime, tmp_path_factory)(x, w, d, acc, z, e)
    t1 = x + 1
    np.testing.assert_allclose(d, np.exp(t1) + t1 * 2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(acc, acc0 + 3 * x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(z, w + 1, rtol=1e-6)
    np.testing.assert_allclose(e, np.exp(acc0 + 3 * x), rtol=1e-5)


def test_runtimes_give_identical_bits(tmp_path_factory):
    x, w = rand(32, 64, seed=11), rand(32, 64, seed=12)
    outs = []
    for rt in RUNTIMES:
        d, z, e = (np.zeros_like(x) for _ in range(3))
        acc = np.ones_like(x)
        compiled(programs.Graphs, rt, tmp_path_factory)(x, w, d, acc, z, e)
        outs.append((d, acc, z, e))
    for a, b in zip(*outs):
        assert np.array_equal(a, b)


def test_wrong_arguments_are_reported(tmp_path_factory):
    c = compiled(programs.ScalarOperand, RUNTIMES[0], tmp_path_factory)
    x = rand(64, 64)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        c(x, np.zeros_like(x))
    with pytest.raises(TypeError, match=r"must have shape \[64, 64\], got \(32, 64\)"):
        c(rand(32, 64), 1.0, np.zeros_like(x))
    with pytest.raises(TypeError, match="must have dtype FP32"):
        c(x.astype(np.float16), 1.0, np.zeros_like(x))


def test_nan_fill_exposes_uninitialised_tiles(tmp_path_factory):
    c = compiled(programs.ReadsUninitialised, RUNTIMES[0], tmp_path_factory)
    x = rand(32, 64)
    y = np.zeros_like(x)
    c(x, y, config=RunConfig(debug_nan_fill=True))
    assert np.isnan(y).all()
    # a correct program is unaffected by the fill
    s = compiled(programs.SoftmaxRows, RUNTIMES[0], tmp_path_factory)
    y2 = np.zeros_like(x)
    s(x, y2, config=RunConfig(debug_nan_fill=True))
    assert np.isfinite(y2).all()


@pytest.mark.parametrize("blocks", [4, 16, 40])
def test_spmd_row_blocks(runtime, blocks, tmp_path_factory):
    # 40 blocks is more than the 16 vector cores of the default 8 clusters
    x = rand(blocks * 32, 64, seed=blocks)
    y = np.zeros_like(x)
    compiled(programs.make_spmd_rows(blocks), runtime, tmp_path_factory)(x, y)
    np.testing.assert_array_equal(y, x * 2)


@pytest.mark.parametrize("mode", [1, 0])
def test_control_flow_if_unroll_parallel_inline(runtime, mode, tmp_path_factory):
    x = rand(128, 64, seed=20)
    y = np.zeros((160, 64), np.float32)
    compiled(programs.ControlFlow, runtime, tmp_path_factory)(x, mode, y)
    R = 32
    ref = np.zeros_like(y)
    if mode > 0:
        ref[R:2 * R] = x[:R] * 2 + 1
    else:
        ref[:R] = -x[:R]
    ref[2 * R:3 * R] = np.exp(x[R:2 * R])
    ref[3 * R:4 * R] = np.exp(x[2 * R:3 * R])
    ref[4 * R:] = np.abs(x[:R])
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


def test_dump_passes_writes_every_stage(tmp_path):
    c = ptokit.compile(programs.ControlFlow, output_dir=tmp_path, dump_passes=True)
    dumps = sorted(p.name for p in (c.output_dir / "passes_dump").iterdir())
    from ptokit.passes.manager import PIPELINE
    assert dumps == ["00_frontend.py"] + [f"{i:02d}_after_{p.name}.py" for i, p in enumerate(PIPELINE, 1)]
    for name in ("InlineFunctions", "ConvertToSSA", "ClassifyKernels", "PlanMemory", "DeriveArgDirections"):
        assert any(d.endswith(f"_after_{name}.py") for d in dumps), name
    ssa = next((c.output_dir / "passes_dump").glob("*_after_ConvertToSSA.py")).read_text()
    assert "# merged: t_3, shift_2" in ssa and "affine_u_0" in ssa
    # the dump is Python: it parses
    import ast
    for name in dumps:
        ast.parse((c.output_dir / "passes_dump" / name).read_text())


def test_run_config_can_ask_for_another_platform_and_dumps(tmp_path):
    # language.md: compiled(*arrays, config=RunConfig(platform="a5sim", ..., dump_ptoas_passes=True))
    c = ptokit.compile(programs.ScalarOperand, output_dir=tmp_path / "tree")
    x = rand(64, 64)
    y = np.zeros_like(x)
    c(x, 2.0, y, config=RunConfig(platform="a5sim", aicpu_thread_num=0, dump_ptoas_passes=True))
    np.testing.assert_allclose(y, x * 2 + 1.5, rtol=1e-6)
    variant = tmp_path / "tree_a5sim_dumps"
    assert 'pto.target_arch = "a5"' in (variant / "ptoas" / "axpb.pto").read_text()
    assert any((variant / "ptoas_passes" / "axpb").iterdir())
    assert not (tmp_path / "tree" / "ptoas_passes").exists()
    with pytest.raises(ValueError, match="valid values are 0, 2, 3, 4, 5"):
        RunConfig(platform="a5sim", aicpu_thread_num=1)


@pytest.mark.parametrize("n", [3, 1])
def test_if_bound_names_reshape_vec_move_and_unused_dyn_dim(runtime, n, tmp_path_factory):
    a = rand(64, 64, seed=30)
    b = rand(80, 64, seed=31)              # K2 = 40: only rows 0..31 are read
    y = np.zeros((32, 64), np.float32)
    z = np.zeros((64, 32), np.float32)
    compiled(programs.AuditFixes, runtime, tmp_path_factory)(a, b, n, y, z)
    r = a[:32] + 1 if n > 2 else a[:32] - 1
    t = a[32:] if n > 2 else a[:32]
    u = r + t + b[:32]
    np.testing.assert_allclose(y, u, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(z, np.exp(u).reshape(64, 32), rtol=1e-5)


@pytest.mark.parametrize("rows", [32, 96])
def test_runtime_intermediate_with_a_dynamic_dimension(runtime, rows, tmp_path_factory):
    x = rand(rows, 64, seed=40)
    y = np.zeros_like(x)
    compiled(programs.DynamicIntermediate, runtime, tmp_path_factory)(x, y)
    np.testing.assert_allclose(y, np.exp(x + 1), rtol=1e-5)
