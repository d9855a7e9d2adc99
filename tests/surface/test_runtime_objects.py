"""pypto.runtime's objects under ptokit.runtime: TensorSpec / ScalarSpec, run (both forms),
compile_program, execute_compiled, ChipWorker / DeviceTensor / RegistrationHandle."""
import numpy as np
import pytest

import programs as P
import ptokit
import ptokit.language as pl
from ptokit.backend import BackendType
from ptokit.compiled import CompiledProgram
from ptokit.runtime import (ChipWorker, DeviceTensor, RunConfig, RunResult, ScalarSpec, TensorSpec, compile_program,
                            execute_compiled, run)


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.fixture(scope="module")
def ew(tmp_path_factory):
    return ptokit.compile(P.Elementwise, output_dir=tmp_path_factory.mktemp("rt") / "Elementwise")


# ---------------------------------------------------------------- specs

def test_tensor_spec_values():
    a = rand(4, 8)
    assert not TensorSpec("x", [4, 8], pl.FP32).create_tensor().any()
    assert (TensorSpec("x", [4, 8], np.float32, init_value=2.5).create_tensor() == 2.5).all()
    np.testing.assert_array_equal(TensorSpec("x", [4, 8], np.float32, init_value=a).create_tensor(), a)
    r = TensorSpec("x", [4, 8], pl.FP32, init_value=np.random.randn).create_tensor()
    assert r.shape == (4, 8) and r.dtype == np.float32 and r.std() > 0
    assert (TensorSpec("x", [2, 2], pl.INT32, init_value=lambda: [[1, 2], [3, 4]]).create_tensor()
            == [[1, 2], [3, 4]]).all()
    assert not TensorSpec("y", [4, 8], pl.FP32, init_value=1.0, is_output=True).create_tensor().any()


def test_tensor_spec_errors():
    with pytest.raises(ValueError, match="init_value has shape \\[2, 2\\], the spec says \\[4, 8\\]"):
        TensorSpec("x", [4, 8], pl.FP32, init_value=np.zeros((2, 2))).create_tensor()
    with pytest.raises(ValueError, match="must be a parameter name"):
        TensorSpec("not a name", [4], pl.FP32)
    with pytest.raises(ptokit.errors.UserError, match="unsupported dtype 'complex'"):
        TensorSpec("x", [4], "complex")


def test_scalar_spec():
    s = ScalarSpec("n", 3)
    assert s.ctype == "int64" and s.suits(pl.INT32) and not s.suits(pl.FP32)
    assert ScalarSpec("s", 0.5, "float").suits(pl.FP32)
    with pytest.raises(ValueError, match="unsupported ctype 'half' for scalar 'h'"):
        ScalarSpec("h", 1.0, "half")


# ---------------------------------------------------------------- run

def specs(a, b):
    return [TensorSpec("a", [64, 64], pl.FP32, init_value=a), TensorSpec("b", [64, 64], pl.FP32, init_value=b),
            TensorSpec("y", [64, 64], pl.FP32, is_output=True), TensorSpec("z", [64, 64], pl.FP32, is_output=True)]


def golden(tensors):
    tensors["y"][:] = tensors["a"] + tensors["b"]
    tensors["z"][:] = np.exp(tensors["a"] * tensors["b"])


def test_run_with_specs_and_a_golden_passes():
    result = run(P.Elementwise, specs(rand(64, 64), rand(64, 64, seed=1)), golden, RunConfig(rtol=1e-4))
    assert isinstance(result, RunResult) and result.passed, result.error
    assert result.tasks == 2 and result.execution_time > 0 and str(result).startswith("PASS (")


def test_run_reports_a_wrong_golden_without_raising():
    def wrong(tensors, params):                  # pypto's two-argument form
        assert params == {"name": "Default"}
        golden(tensors)
        tensors["y"][0, 0] += 10.0

    result = run(P.Elementwise, specs(rand(64, 64), rand(64, 64, seed=1)), wrong, RunConfig(rtol=1e-4))
    assert not result.passed
    assert "y: 1 of 4096 elements differ" in result.error and str(result).startswith("FAIL: outputs differ")


def test_run_reports_specs_that_do_not_match_the_parameters():
    bad = specs(rand(64, 64), rand(64, 64))[:3] + [TensorSpec("w", [64, 64], pl.FP32, is_output=True)]
    result = run(P.Elementwise, bad, golden)
    assert not result.passed and "no parameter named w; no spec for z" in result.error


def test_run_with_scalar_specs():
    x = rand(64, 64)
    result = run(P.DynamicRows, [TensorSpec("x", [64, 64], pl.FP32, init_value=x),
                                 TensorSpec("y", [64, 64], pl.FP32, is_output=True)],
                 lambda t: t["y"].__setitem__(slice(None), t["x"] * 0.5), RunConfig(rtol=1e-5),
                 [ScalarSpec("s", 0.5, "float")])
    assert result.passed, result.error
    result = run(P.DynamicRows, [TensorSpec("x", [64, 64], pl.FP32), TensorSpec("y", [64, 64], pl.FP32)],
                 scalar_specs=[ScalarSpec("s", 2, "int64")])
    assert not result.passed and "ctype 'int64', but the parameter is FP32" in result.error


def test_run_golden_data_dir_writes_then_reuses(tmp_path):
    a, b = rand(64, 64), rand(64, 64, seed=1)
    cfg = RunConfig(golden_data_dir=str(tmp_path / "data"), rtol=1e-4)
    assert run(P.Elementwise, specs(a, b), golden, cfg).passed
    assert sorted(p.name for p in (tmp_path / "data" / "out").iterdir()) == ["y.npy", "z.npy"]
    np.testing.assert_array_equal(np.load(tmp_path / "data" / "in" / "a.npy"), a)

    def must_not_run(tensors):
        raise AssertionError("the golden was recomputed")

    # the stored inputs are used (the specs now say zeros), and the stored goldens
    result = run(P.Elementwise, specs(np.zeros((64, 64)), np.zeros((64, 64))), must_not_run, cfg)
    assert result.passed, result.error


def test_run_codegen_only_and_kept_tree(tmp_path):
    result = run(P.Elementwise, specs(rand(64, 64), rand(64, 64)), golden,
                 RunConfig(codegen_only=True, save_kernels_dir=str(tmp_path / "k")))
    assert result.passed and result.timeline is None and (tmp_path / "k" / "kernel_config.py").is_file()


def test_run_with_tensors_returns_the_compiled_program(tmp_path):
    a, b = rand(64, 64), rand(64, 64, seed=1)
    y, z = np.zeros_like(a), np.zeros_like(a)
    compiled = run(P.Elementwise, a, b, y, z, config=RunConfig(save_kernels_dir=str(tmp_path / "t")))
    assert isinstance(compiled, CompiledProgram) and compiled.output_dir == (tmp_path / "t").resolve()
    np.testing.assert_allclose(y, a + b, rtol=1e-6)
    assert isinstance(run(P.Elementwise, config=RunConfig(save_kernels_dir=str(tmp_path / "u"))), CompiledProgram)
    with pytest.raises(TypeError, match="golden= / scalar_specs= belong to the form"):
        run(P.Elementwise, a, b, golden=golden)


def test_compile_program(tmp_path):
    c = compile_program(P.Elementwise, tmp_path / "a5", backend_type=BackendType.Ascend950)
    assert c.platform == "a5sim" and (tmp_path / "a5" / "kernel_config.py").is_file()
    c = compile_program(P.Elementwise, tmp_path / "prof", profiling=True, memory_planner="PYPTO")
    assert (tmp_path / "prof" / "report" / "pipeline_profile.txt").read_text().startswith("parse")
    with pytest.raises(ValueError, match="strategy='O3' is not one of Default"):
        compile_program(P.Elementwise, tmp_path / "x", strategy="O3")


def test_execute_compiled(ew):
    a, b = rand(64, 64), rand(64, 64, seed=1)
    y, z = np.zeros_like(a), np.zeros_like(a)
    result = execute_compiled(ew.output_dir, [a, b, y, z], platform="a2a3sim", device_id=1, aicpu_thread_num=2)
    assert result.device_id == 1
    np.testing.assert_allclose(y, a + b, rtol=1e-6)
    with pytest.raises(ValueError, match="level=2"):
        execute_compiled(ew.output_dir, [a, b, y, z], level=3)
    with pytest.raises(ValueError, match="the program takes 4 arguments"):
        execute_compiled(ew.output_dir, [a, b])


# ---------------------------------------------------------------- ChipWorker

def test_resident_tensor_keeps_its_contents_across_calls(ew):
    a, b = rand(64, 64), rand(64, 64, seed=1)
    with ChipWorker(config=RunConfig()) as w:
        resident = w.alloc_tensor((64, 64), pl.FP32, init=b)
        assert isinstance(resident, DeviceTensor) and resident.nbytes == 64 * 64 * 4
        for i in range(3):
            y, z = w.run(ew, a + i, resident)
            np.testing.assert_allclose(y, a + i + b, rtol=1e-6)
        back = np.empty((64, 64), np.float32)
        w.copy_from(back.ctypes.data, resident.data_ptr, resident.nbytes)
        np.testing.assert_array_equal(back, b)
        w.free_tensor(resident)
        w.free_tensor(resident)                # a second free does nothing


def test_a_device_tensor_output_is_written_in_device_memory(ew):
    a, b = rand(64, 64), rand(64, 64, seed=1)
    w = ChipWorker()
    try:
        y = w.alloc_tensor([64, 64], np.float32)
        z = w.alloc_tensor([64, 64], np.float32)
        handle = w.register(ew)
        for _ in range(2):
            handle(a, b, y, z)
        np.testing.assert_allclose(y.host_array(), a + b, rtol=1e-6)
        ew(a, b, y, z)                          # the compiled program itself takes them too
    finally:
        w.close()
    with pytest.raises(RuntimeError, match="unregistered or its ChipWorker was closed"):
        handle(a, b, y, z)
    with pytest.raises(ValueError, match="is not memory of an open ChipWorker"):
        y.host_array()


def test_worker_errors(ew, tmp_path):
    with pytest.raises(ValueError, match="only supports level=2"):
        ChipWorker(level=3)
    with pytest.raises(ValueError, match="a ChipWorker runs programs, and platform 'a2a3' is hardware"):
        ChipWorker(config=RunConfig(platform="a2a3", codegen_only=True))
    w = ChipWorker(auto_init=False)
    with pytest.raises(RuntimeError, match=r"alloc_tensor\(\) needs an initialised ChipWorker"):
        w.alloc_tensor((4,), pl.FP32)
    w.init()
    with pytest.raises(ValueError, match=r"init must have shape=\(4,\) dtype=FP32"):
        w.alloc_tensor((4,), pl.FP32, init=np.zeros(4, np.float16))
    with pytest.raises(ValueError, match="is not one"):
        w.free(12345)
    a5 = ptokit.compile(P.Elementwise, output_dir=tmp_path / "a5", platform="a5sim")
    with pytest.raises(ValueError, match="compiled for 'a5sim', this ChipWorker runs 'a2a3sim'"):
        w.register(a5)
    hbg = ptokit.compile(P.Elementwise, output_dir=tmp_path / "hbg", runtime="host_build_graph")
    with pytest.raises(ValueError, match="needs runtime='host_build_graph'"):
        w.run(hbg, rand(64, 64), rand(64, 64))
    t = w.alloc_tensor((64, 64), pl.FP16)
    with pytest.raises(TypeError, match="argument 1 \\(b\\) must have dtype FP32"):
        w.run(ew, rand(64, 64), t)
    other = ChipWorker()
    with pytest.raises(ValueError, match="is not memory of this ChipWorker"):
        other.run(ew, rand(64, 64), w.alloc_tensor((64, 64), pl.FP32))
    w.close()
    other.close()


def test_device_tensor_validation():
    with pytest.raises(ValueError, match="data_ptr must be a positive int"):
        DeviceTensor(0, (4,), pl.FP32)
    with pytest.raises(ValueError, match="shape must be all positive"):
        DeviceTensor(64, (4, 0), pl.FP32)
