"""CompiledProgram: calls with the outputs left out (allocated and returned), the attributes
harnesses read, build_call_config / build_orch_args, and from_dir."""
import os

import numpy as np
import pytest

import programs as P
import ptokit
from ptokit.compiled import CompiledProgram
from ptokit.runtime import RunConfig, RunResult


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.fixture(scope="module")
def ew(tmp_path_factory):
    return ptokit.compile(P.Elementwise, output_dir=tmp_path_factory.mktemp("ew") / "Elementwise")


@pytest.fixture(scope="module")
def dyn(tmp_path_factory):
    return ptokit.compile(P.DynamicRows, output_dir=tmp_path_factory.mktemp("dyn") / "DynamicRows")


def test_outputs_left_out_are_allocated_and_returned(ew):
    a, b = rand(64, 64), rand(64, 64, seed=1)
    y, z = ew(a, b)
    np.testing.assert_allclose(y, a + b, rtol=1e-6)
    np.testing.assert_allclose(z, np.exp(a * b), rtol=1e-5)
    assert ew.has_return and ew.output_indices == [2, 3]
    assert isinstance(ew.last_result, RunResult) and ew.last_result.tasks == 2


def test_in_place_call_returns_the_run_result(ew):
    a, b = rand(64, 64), rand(64, 64, seed=1)
    y, z = np.zeros_like(a), np.zeros_like(a)
    res = ew(a, b, y, z, config=RunConfig(aicpu_thread_num=2))
    assert isinstance(res, RunResult) and res.passed
    np.testing.assert_allclose(y, a + b, rtol=1e-6)


def test_one_output_is_returned_alone_and_dynamic_dims_come_from_the_inputs(dyn):
    x = rand(96, 64)
    y = dyn(x, 0.5)
    assert isinstance(y, np.ndarray) and y.shape == (96, 64)
    np.testing.assert_allclose(y, x * 0.5, rtol=1e-6)


def test_torch_inputs_get_torch_outputs(ew):
    torch = pytest.importorskip("torch")
    a, b = torch.randn(64, 64), torch.randn(64, 64)
    y, z = ew(a, b)
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float32
    torch.testing.assert_close(y, a + b)


def test_wrong_argument_counts_name_both_forms(ew):
    with pytest.raises(TypeError, match=r"takes 4 arguments \(a, b, y, z\), or 2 with the outputs left out "
                                        r"\(a, b\); 3 were given"):
        ew(rand(64, 64), rand(64, 64), rand(64, 64))
    with pytest.raises(TypeError, match="outputs left out: argument 1 \\(b\\) must have shape"):
        ew(rand(64, 64), rand(32, 64))


def test_an_output_whose_dimension_no_input_binds_cannot_be_allocated(tmp_path):
    import ptokit.language as pl
    K = pl.dynamic("K")

    @pl.program
    class Fill:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[K, 64], pl.FP32]]):
            y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[K, 64], pl.FP32]]):
            y = self.k(x, y)
            return y

    c = ptokit.compile(Fill, output_dir=tmp_path / "fill")
    with pytest.raises(TypeError, match=r"cannot allocate output 'y' of shape \['K', 64\]: dimension K is not "
                                        r"bound by any input; pass y explicitly"):
        c(rand(16, 64))
    y = np.zeros((32, 64), np.float32)
    c(rand(16, 64), y)


def test_attributes(ew):
    assert ew.param_names == ["a", "b", "y", "z"]
    assert ew.output_dir.is_dir() and os.fspath(ew) == str(ew.output_dir) == str(ew)
    assert ew.platform == "a2a3sim" and ew.backend_type is ptokit.backend.BackendType.Ascend910B
    assert ew.runtime_name == "tensormap_and_ringbuffer"
    assert ew.runtime_config == {"runtime": "tensormap_and_ringbuffer", "aicpu_thread_num": 0, "platform": "a2a3sim"}
    assert ew.orchestration_names == []
    assert ew.program is P.Elementwise.ir
    image = ew.chip_callable
    from ptokit.runtime.callable import unpack_chip_callable
    view = unpack_chip_callable(image)
    assert isinstance(image, bytes) and len(view.children) == 2


def test_build_call_config(ew):
    cfg = ew.build_call_config(aicpu_thread_num=3)
    assert isinstance(cfg, RunConfig) and cfg.aicpu_thread_num == 3 and cfg.platform == "a2a3sim"
    assert cfg.runtime is not None                      # the tree's runtime kind is filled in
    base = RunConfig(timeout=5.0)
    assert ew.build_call_config(base, clusters=2).clusters == 2
    assert ew.build_call_config(base).timeout == 5.0
    with pytest.raises(TypeError, match=r"'dfx_dir', 'threads', which are not RunConfig fields"):
        ew.build_call_config(threads=3, dfx_dir="/tmp")
    with pytest.raises(ValueError, match="aicpu_thread_num=9 is not valid"):
        ew.build_call_config(aicpu_thread_num=9)


def test_build_orch_args(ew, dyn):
    a, b = rand(64, 64), rand(64, 64)
    orch, coerced, rs = ew.build_orch_args(a, b)
    assert rs is True and len(orch) == len(coerced) == 4
    assert orch[0] is a and coerced[2].shape == (64, 64) and coerced[2] is orch[2]
    y, z = np.zeros_like(a), np.zeros_like(a)
    orch, coerced, rs = ew.build_orch_args(a, b, y, z)
    assert rs is False and coerced[2] is y
    orch, coerced, rs = dyn.build_orch_args(rand(32, 64), 2.0)
    assert rs and orch[1] == 2.0 and coerced[2].shape == (32, 64)


def test_from_dir_rebuilds_the_program(ew, dyn):
    again = CompiledProgram.from_dir(dyn.output_dir)
    assert again.program is None and again.param_names == ["x", "s", "y"] and again.output_indices == [2]
    x = rand(32, 64)
    np.testing.assert_allclose(again(x, 3.0), x * 3.0, rtol=1e-6)
    assert CompiledProgram.from_dir(ew.output_dir, backend_type="Ascend910B").platform == "a2a3sim"


def test_from_dir_errors(ew, tmp_path):
    with pytest.raises(FileNotFoundError, match="kernel_config.py not found"):
        CompiledProgram.from_dir(tmp_path)
    with pytest.raises(ValueError, match="compiled for a2a3sim, not a5sim"):
        CompiledProgram.from_dir(ew.output_dir, platform="a5sim")
    with pytest.raises(ValueError, match="different chips"):
        CompiledProgram.from_dir(ew.output_dir, platform="a2a3sim", backend_type="Ascend950")


def test_a_config_for_the_other_platform_recompiles(ew):
    a, b = rand(64, 64), rand(64, 64)
    y, z = ew(a, b, config=RunConfig(platform="a5sim"))
    np.testing.assert_allclose(y, a + b, rtol=1e-6)
    assert ew.last_result.platform == "a5sim"


def test_config_type_is_checked(ew):
    with pytest.raises(TypeError, match="config must be a ptokit.runtime.RunConfig"):
        ew(rand(64, 64), rand(64, 64), config="a5sim")


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_return_style_under_both_runtime_kinds(runtime, tmp_path):
    c = ptokit.compile(P.Graphs, output_dir=tmp_path / runtime, runtime=runtime)
    assert c.param_names == ["x", "w", "d", "acc", "z", "e"] and c.output_indices == [2, 4, 5]
    x, w = rand(32, 64), rand(32, 64, seed=1)
    acc0 = rand(32, 64, seed=2)
    acc = acc0.copy()
    d, z, e = c(x, w, acc)                      # pl.InOut acc is passed; d, z, e are returned
    t1 = x + 1
    want_acc = ((acc0 + x) + x) + x             # the order the three tasks add in
    np.testing.assert_allclose(d, np.exp(t1) + t1 * 2, rtol=1e-5)
    np.testing.assert_allclose(acc, want_acc, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(z, w + 1, rtol=1e-6)
    np.testing.assert_allclose(e, np.exp(want_acc), rtol=1e-5)
    assert c.runtime_name == runtime and c.last_result.runtime.value == runtime
