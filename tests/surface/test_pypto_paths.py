"""pypto's public module paths at the same place in ptokit: ``pypto.X.Y`` is ``ptokit.X.Y`` (so a
resolver that only renames the top package finds every name), each name has one implementation
(the ``ptokit pypto`` alias serves the same objects), and the names that do work do what pypto's
do: ``backend.pto_backend._run_ptoas``, ``runtime.device_runner`` step by step, the log level,
the pto-isa root, ``pypto_core.ir``."""
import ctypes
import importlib
import json
import sys

import numpy as np
import pytest

import programs as P
import ptokit
from ptokit.backend import assembler
from ptokit.errors import AssemblerError, CompileError, UserError
from ptokit.runtime.golden import GoldenMismatch

# pypto module -> names pypto programs import from it (its examples and system tests)
PATHS = {
    "backend": ["BackendType", "Backend", "Backend910B", "Backend950", "get_backend_instance"],
    "backend.pto_backend": ["PartialCodegenError", "_run_ptoas", "_preprocess_ptoas_output"],
    "pypto_core": ["DataType", "LogLevel", "set_log_level", "ir", "passes"],
    "pypto_core.ir": ["CoreType", "MemorySpace", "DataType", "FunctionType", "Function", "serialize"],
    "pypto_core.passes": ["l0_tile_chooser", "MemoryPlanner", "RuntimeKind", "VerificationLevel"],
    "ir": ["Function", "Program", "serialize", "deserialize", "python_print", "CompiledProgram",
           "DistributedCompiledProgram", "DistributedConfig", "compile"],
    "ir.compiled_program": ["CompiledProgram"],
    "ir.distributed_compiled_program": ["DistributedConfig", "DistributedCompiledProgram"],
    "runtime": ["RunConfig", "ChipWorker", "Worker", "DistributedWorker", "benchmark", "BenchmarkStats",
                "execute_distributed_compiled", "ensure_pto_isa_root", "pto_isa_include_dir", "configure_log",
                "log_level", "compile_program"],
    "runtime.bench": ["benchmark", "BenchmarkStats"],
    "runtime.worker": ["Worker"],
    "runtime.distributed_runner": ["DistributedWorker", "DistributedCompiledProgram", "execute_distributed_compiled",
                                   "_tensor_from_continuous"],
    "runtime.device_runner": ["compile_and_assemble", "build_orch_args_from_inputs", "execute_on_device",
                              "validate_golden"],
    "runtime.pto_isa": ["ensure_pto_isa_root", "pto_isa_include_dir"],
}


@pytest.mark.parametrize("path", sorted(PATHS))
def test_pypto_path_is_a_ptokit_module(path):
    module = importlib.import_module(f"ptokit.{path}")
    for name in PATHS[path]:
        assert getattr(module, name) is not None, f"ptokit.{path}.{name}"
    with pytest.raises(AttributeError):
        module.NoSuchPyptoName  # noqa: B018


def test_each_name_has_one_implementation():
    from ptokit import backend, compiled, distributed_compiled, ir, pypto_core, runtime
    from ptokit.backend import soc
    from ptokit.runtime import bench, device, worker
    assert ir.CompiledProgram is compiled.CompiledProgram is importlib.import_module(
        "ptokit.ir.compiled_program").CompiledProgram is importlib.import_module("ptokit.backend.compiled").CompiledProgram
    assert ir.DistributedCompiledProgram is distributed_compiled.DistributedCompiledProgram
    assert runtime.DistributedWorker is distributed_compiled.DistributedWorker
    assert runtime.execute_distributed_compiled is distributed_compiled.execute_distributed_compiled
    assert runtime.benchmark is bench.benchmark and runtime.Worker is worker.Worker
    assert backend.Backend910B is soc.Backend910B and pypto_core.ir.CoreType is soc.CoreType
    assert pypto_core.ir.Function is ir.Function and pypto_core.ir.serialize is ir.serialize
    assert issubclass(device.ChipWorker, worker.Worker)
    assert issubclass(distributed_compiled.DistributedWorker, worker.Worker)
    assert runtime.log_level is importlib.import_module("ptokit.runtime.log_config").current_level


def test_the_alias_serves_the_same_modules():
    from ptokit.pypto import alias
    for path in ("backend.pto_backend", "pypto_core", "pypto_core.ir", "pypto_core.passes", "ir.compiled_program",
                 "ir.distributed_compiled_program", "runtime.distributed_runner", "runtime.device_runner",
                 "runtime.bench"):
        assert alias.target_of(f"pypto.{path}") == f"ptokit.{path}", path


def test_backend_soc_counts_the_simulated_cores():
    from ptokit.backend import Backend910B, get_backend_instance
    from ptokit.pypto_core.ir import CoreType
    from ptokit.targets import SIM_CLUSTERS, BackendType
    bk = Backend910B.instance()
    assert get_backend_instance(BackendType.Ascend910B) is bk
    assert bk.get_core_count(CoreType.VECTOR) == 2 * SIM_CLUSTERS["a2a3sim"]
    assert bk.get_core_count(CoreType.CUBE) == SIM_CLUSTERS["a2a3sim"]


# ---------------------------------------------------------------- backend.pto_backend

def test_partial_codegen_error_catches_every_compile_error():
    from ptokit.backend.pto_backend import PartialCodegenError
    assert PartialCodegenError is CompileError
    assert issubclass(ptokit.errors.PartialCodegenError, PartialCodegenError)


@pytest.fixture(scope="module")
def pto_file(tmp_path_factory):
    """A kernel's .pto as the compiler writes it."""
    out = ptokit.compile(P.ScalarOperand, output_dir=tmp_path_factory.mktemp("pb") / "ScalarOperand")
    (pto,) = sorted((out.output_dir / "ptoas").glob("*.pto"))
    return pto


@pytest.mark.parametrize("flags,options", [
    (["--enable-insert-sync", "--pto-level=level3", "--pto-arch", "a3"],
     dict(arch="a2a3", insert_sync=True, level="level3")),
    (["--pto-arch=a5", "--pto-level", "level3"], dict(arch="a5", insert_sync=False, level="level3")),
    (None, dict(arch="a2a3", insert_sync=False, level="level2")),          # the assembler's own defaults
])
def test_run_ptoas_assembles_with_the_flags_given(pto_file, tmp_path, monkeypatch, flags, options):
    from ptokit.backend.pto_backend import _run_ptoas
    monkeypatch.delenv("PTOAS_ROOT", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")       # the built-in assembler
    cpp = tmp_path / "k.cpp"
    assert _run_ptoas(str(pto_file), str(cpp), ptoas_flags=flags) is None
    assert cpp.read_text() == assembler.assemble_text(pto_file.read_text(), filename=str(pto_file), **options)


@pytest.mark.parametrize("flags,message", [
    (["--mlir-print-ir-after-all"], "the assembler flag '--mlir-print-ir-after-all' is not provided by ptokit"),
    (["--pto-arch", "a9"], "--pto-arch 'a9' is not one of a3, a5"),
    (["--pto-arch"], "--pto-arch needs a value"),
])
def test_run_ptoas_refuses_flags_it_cannot_honour(pto_file, tmp_path, flags, message):
    from ptokit.backend.pto_backend import _run_ptoas
    with pytest.raises(UserError, match=message.replace("(", r"\(")):
        _run_ptoas(str(pto_file), str(tmp_path / "k.cpp"), ptoas_flags=flags)
    assert not (tmp_path / "k.cpp").exists()


def test_run_ptoas_reports_a_bad_pto_file(tmp_path):
    from ptokit.backend.pto_backend import _run_ptoas
    bad = tmp_path / "bad.pto"
    bad.write_text("module {\n  func.func @k() {\n    pto.nonsense\n  }\n}\n")
    with pytest.raises(AssemblerError):
        _run_ptoas(str(bad), str(tmp_path / "bad.cpp"))


def test_preprocess_ptoas_output_is_the_wrappers_body():
    from ptokit.backend.pto_backend import _preprocess_ptoas_output
    text = '#include "pto/pto-inst.hpp"\nusing namespace pto;\n__global__ AICORE void k(Tensor* t) {}\n'
    assert _preprocess_ptoas_output(text) == "static __aicore__ void k(ChipTensor* t) {}"


# ---------------------------------------------------------------- ir, pypto_core

def test_serialize_and_python_print_of_ptokit_ir():
    import ptokit.language as pl
    from ptokit import ir
    fn = pl.parse("import ptokit.language as pl\n\n@pl.function\ndef k(x: pl.Tensor[[8], pl.FP32]):\n"
                  "    return x\n")
    back = ir.deserialize(ir.serialize(fn))
    assert isinstance(back, ir.Function) and back.name == "k"
    assert ir.python_print(back) == fn.as_python()
    with pytest.raises(TypeError, match="python_print takes an ir.Function or ir.Program, got int"):
        ir.python_print(3)
    with pytest.raises(TypeError, match="serialize takes an ir.Function or ir.Program"):
        ir.serialize("text")


def test_pypto_core_ir_asks_ptokit_ir_for_other_names():
    from ptokit.pypto_core import ir as core_ir
    assert core_ir.Program is ptokit.ir.Program
    with pytest.raises(AttributeError, match="'ptokit.pypto_core.ir' has no attribute 'IRBuilder'"):
        core_ir.IRBuilder  # noqa: B018


# ---------------------------------------------------------------- runtime

def test_log_level_keeps_what_configure_log_set():
    from ptokit.runtime import configure_log, log_config, log_level
    before = log_level()
    try:
        configure_log("debug")
        assert log_level() == "debug"
        configure_log(None)                         # no level: unchanged
        assert log_level() == "debug"
        configure_log(2, sync_pypto=True)
        assert log_level() == 2
        with pytest.raises(TypeError, match="level must be an int or a level name"):
            configure_log(1.5)
    finally:
        log_config._level[0] = before


def test_pto_isa_root_holds_the_headers_kernels_build_against(monkeypatch):
    from ptokit.runtime import ensure_pto_isa_root, pto_isa_include_dir
    monkeypatch.delenv("PTO_ISA_ROOT", raising=False)
    inc = pto_isa_include_dir()
    assert (inc / "pto" / "pto-inst.hpp").is_file()
    assert ensure_pto_isa_root() == str(inc.parent)
    monkeypatch.setenv("PTO_ISA_ROOT", "/opt/vendor-pto-isa")
    assert ensure_pto_isa_root() == "/opt/vendor-pto-isa"


def test_tensor_from_continuous_shares_memory_with_torch():
    from ptokit.runtime.distributed_runner import _tensor_from_continuous
    arr = np.zeros(4, np.float32)
    if "torch" not in sys.modules:
        assert _tensor_from_continuous(arr) is arr
    torch = pytest.importorskip("torch")
    t = _tensor_from_continuous(arr)
    assert isinstance(t, torch.Tensor)
    t[1] = 3.0
    assert arr[1] == 3.0


def test_benchmark_refuses_what_is_no_compiled_program():
    from ptokit.runtime import benchmark
    with pytest.raises(TypeError, match="benchmark takes a CompiledProgram or a DistributedCompiledProgram, got list"):
        benchmark([1], [])


# ---------------------------------------------------------------- runtime.device_runner

@pytest.fixture(scope="module", params=["tensormap_and_ringbuffer", "host_build_graph"])
def axpb_tree(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("dr") / "ScalarOperand"
    ptokit.compile(P.ScalarOperand, output_dir=out, runtime=request.param)
    return out, request.param


def test_device_runner_runs_a_tree_step_by_step(axpb_tree, tmp_path):
    from ptokit.runtime.device_runner import (build_orch_args_from_inputs, compile_and_assemble, execute_on_device,
                                              validate_golden)
    tree, runtime = axpb_tree
    callable_, runtime_name, runtime_config = compile_and_assemble(tree, "a2a3sim")
    assert runtime_name == runtime and runtime_config["runtime"] == runtime
    x = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    y = np.zeros_like(x)
    orch_args, all_tensors, inputs, outputs = build_orch_args_from_inputs(
        [("x", x), ("alpha", ctypes.c_float(2.0)), ("y", y)], {"y"})
    assert list(inputs) == ["x"] and list(outputs) == ["y"] and all_tensors["alpha"] == 2.0
    assert len(orch_args) == 3
    execute_on_device(callable_, orch_args, "a2a3sim", runtime_name, 0,
                      aicpu_thread_num=runtime_config.get("aicpu_thread_num", 0),
                      output_prefix=str(tmp_path / "dfx"), enable_dep_gen=True)
    np.testing.assert_allclose(y, x * 2.0 + 1.5, rtol=1e-6)
    validate_golden(outputs, {"y": x * 2.0 + 1.5})
    deps = json.loads((tmp_path / "dfx" / "deps.json").read_text())
    assert [t["kernel"] for t in deps["tasks"]] == ["axpb"]


def test_device_runner_refuses_what_it_cannot_run(axpb_tree, tmp_path):
    from ptokit.runtime.device_runner import build_orch_args_from_inputs, compile_and_assemble, execute_on_device
    tree, runtime = axpb_tree
    with pytest.raises(FileNotFoundError, match="kernel_config.py does not exist"):
        compile_and_assemble(tmp_path, "a2a3sim")
    callable_, runtime_name, _ = compile_and_assemble(tree, "a2a3sim")
    with pytest.raises(ValueError, match="only level 2"):
        execute_on_device(callable_, [], "a2a3sim", runtime_name, 0, level=3)
    other = "host_build_graph" if runtime == "tensormap_and_ringbuffer" else "tensormap_and_ringbuffer"
    with pytest.raises(UserError, match=f"the tree was compiled for runtime '{runtime}'"):
        execute_on_device(callable_, [], "a2a3sim", other, 0)
    with pytest.raises(TypeError, match="takes the chip_callable compile_and_assemble returned"):
        execute_on_device(b"image", [], "a2a3sim", runtime_name, 0)
    with pytest.raises(TypeError, match="'x' is a list"):
        build_orch_args_from_inputs([("x", [1, 2])], set())


def test_device_runner_sets_the_runtime_environment_for_the_run_only(axpb_tree, monkeypatch):
    from ptokit.runtime import device_runner
    tree, _ = axpb_tree
    seen = {}
    real = device_runner.run_prepared

    def spy(prepared, args, config):
        import os
        seen["env"] = os.environ.get("PTOKIT_TEST_RUNTIME_ENV")
        return real(prepared, args, config)

    monkeypatch.setattr(device_runner, "run_prepared", spy)
    monkeypatch.delenv("PTOKIT_TEST_RUNTIME_ENV", raising=False)
    callable_, name, _ = device_runner.compile_and_assemble(tree, "a2a3sim")
    x, y = np.ones((64, 64), np.float32), np.zeros((64, 64), np.float32)
    device_runner.execute_on_device(callable_, [x, ctypes.c_float(1.0), y], "a2a3sim", name, 0,
                                    runtime_env={"PTOKIT_TEST_RUNTIME_ENV": "on"})
    assert seen["env"] == "on"
    import os
    assert "PTOKIT_TEST_RUNTIME_ENV" not in os.environ
    np.testing.assert_array_equal(y, np.full_like(x, 2.5))


def test_validate_golden_names_the_output_and_skips_nan_goldens():
    from ptokit.runtime.device_runner import validate_golden
    out = np.array([1.0, 2.0, 3.0], np.float32)
    validate_golden({"o": out}, {"o": np.array([1.0, np.nan, 3.0], np.float32)})       # NaN: not compared
    with pytest.raises(GoldenMismatch, match=r"o: 1 of 3 elements differ beyond rtol=1e-05, atol=1e-05") as info:
        validate_golden({"o": out}, {"o": np.array([1.0, 2.0, 4.0], np.float32)})
    assert isinstance(info.value, AssertionError)
    validate_golden({"o": out}, {"o": np.array([1.0, 2.0, 3.1], np.float32)}, rtol=0.05)
    with pytest.raises(KeyError, match="no golden for output 'o'"):
        validate_golden({"o": out}, {})
