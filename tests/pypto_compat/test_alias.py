"""The import alias in this process: pypto's names resolve to ptokit's objects, only while it is
installed, and a name ptokit lacks is an error naming it."""
import sys

import numpy as np
import pytest

import programs as P
import ptokit
import ptokit.language
from ptokit import pypto as compat
from ptokit.pypto.missing import NotProvided, NotProvidedAttribute, NotProvidedModule, explain


@pytest.fixture
def alias():
    compat.install()
    yield
    compat.uninstall()


def test_pypto_language_is_ptokit_language(alias):
    import pypto.language as pl
    import pypto.language.distributed as pld
    assert pl is ptokit.language and pl.add is ptokit.language.add
    assert pld is sys.modules["ptokit.language.distributed"]
    assert pl.__spec__.name == "ptokit.language"      # ptokit's module keeps its own spec


def test_the_names_pypto_programs_import(alias):
    import pypto
    from pypto import ir, passes
    from pypto.backend import BackendType, reset_for_testing, set_backend_type
    from pypto.backend.pto_backend import PartialCodegenError
    from pypto.ir.compiled_program import CompiledProgram
    from pypto.ir.distributed_compiled_program import DistributedCompiledProgram, DistributedConfig
    from pypto.ir.pass_manager import OptimizationStrategy, PassDumpLevel
    from pypto.pypto_core.passes import MemoryPlanner, RuntimeKind, VerificationLevel
    from pypto.runtime import (ChipWorker, DistributedWorker, RunConfig, ScalarSpec, TensorSpec,
                               pto_isa_include_dir, run)
    from pypto.runtime.runner import RunResult
    assert pypto.DT_FP32 is ptokit.language.FP32 and pypto.DataType.BF16 is ptokit.language.BF16
    assert passes is pypto.pypto_core.passes and passes.MemoryPlanner is MemoryPlanner
    assert RunConfig is ptokit.runtime.RunConfig and ChipWorker is ptokit.runtime.ChipWorker
    assert run is ptokit.runtime.run and RunResult is ptokit.runtime.RunResult
    assert CompiledProgram is ptokit.compiled.CompiledProgram
    assert DistributedCompiledProgram is ptokit.DistributedCompiledProgram
    assert DistributedConfig is ptokit.DistributedConfig and ir.DistributedConfig is DistributedConfig
    assert issubclass(PartialCodegenError, ptokit.errors.CompileError)
    assert OptimizationStrategy.Default and PassDumpLevel.coerce(True) is PassDumpLevel.CONCISE
    assert RuntimeKind.HOST_BUILD_GRAPH is ptokit.RuntimeKind.HOST_BUILD_GRAPH and VerificationLevel.BASIC
    assert (pto_isa_include_dir() / "pto" / "pto-inst.hpp").is_file()
    assert DistributedWorker is ptokit.distributed_compiled.DistributedWorker
    assert TensorSpec and ScalarSpec and ir.Function is ptokit.ir.nodes.Function
    assert ir.CompiledProgram is CompiledProgram and ir.TensorType is ptokit.ir.types.TensorType
    assert pypto.Error is ptokit.errors.PtokitError and ir.VerificationLevel is VerificationLevel
    set_backend_type(BackendType.Ascend950)
    assert pypto.backend.get_backend_type() is BackendType.Ascend950
    reset_for_testing()
    assert not pypto.backend.is_backend_configured()


def test_missing_names_are_not_provided_errors(alias):
    import pypto.backend
    import pypto.language as pl
    with pytest.raises(NotProvidedAttribute, match=r"^pypto\.backend\.get_handler is not provided by ptokit \("
                                                   r"ptokit's stages ask the target's facts"):
        pypto.backend.get_handler
    assert not hasattr(pypto.backend, "no_such_name")        # an AttributeError: hasattr still works
    with pytest.raises(ImportError) as info:
        from pypto.ir.pass_manager import PassManager  # noqa: F401
    assert explain(info.value) == ("pypto.ir.pass_manager.PassManager is not provided by ptokit (ptokit's pass "
                                   "pipeline is fixed; ptokit.passes.manager.run_passes runs it)")
    with pytest.raises(NotProvidedModule, match="^pypto.pypto_core.codegen is not provided by ptokit"):
        import pypto.pypto_core.codegen  # noqa: F401
    with pytest.raises(AttributeError) as info:
        pl.no_such_op
    assert explain(info.value) == ("pypto.language.no_such_op is not provided by ptokit (no ptokit counterpart "
                                   "yet; see docs/pypto.md)")
    assert isinstance(NotProvidedModule("pypto.x"), NotProvided)


def test_an_error_inside_ptokit_is_not_explained_as_a_missing_name(alias):
    import pypto.language  # noqa: F401

    def lookup(module_name):
        try:
            exec("pl.no_such_op", {"__name__": module_name, "pl": ptokit.language})  # noqa: S102
        except AttributeError as exc:
            return exc
    # the same lookup: written in the program, it is a missing pypto name; made by ptokit's own code
    # (a bug), it is not dressed up as one
    assert explain(lookup("__main__")).startswith("pypto.language.no_such_op is not provided by ptokit")
    assert explain(lookup("ptokit.somewhere")) is None
    assert explain(ValueError("x")) is None


def test_uninstall_forgets_pypto():
    compat.install()
    import pypto  # noqa: F401
    compat.uninstall()
    assert "pypto" not in sys.modules and not compat.installed()
    with pytest.raises(ImportError):
        import pypto  # noqa: F401,F811
    assert not ptokit.targets.simulating_hardware()


def test_install_refuses_when_another_pypto_is_loaded(monkeypatch):
    import types
    monkeypatch.setitem(sys.modules, "pypto", types.ModuleType("pypto"))
    with pytest.raises(ptokit.errors.UserError, match="pypto is imported already"):
        compat.install()
    assert not compat.installed()


def test_serialize_round_trips_a_parsed_function(alias):
    import pypto
    import pypto.language as pl
    func = pl.parse('''
@pl.function(type=pl.FunctionType.InCore)
def scale(x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
    y = pl.store(pl.muls(pl.load(x, [0, 0], [16, 16]), 2.0), [0, 0], y)
    return y
''')
    assert isinstance(func, pypto.ir.Function)
    assert (func.name, len(func.params), len(func.return_types)) == ("scale", 2, 1)
    back = pypto.ir.deserialize(pypto.ir.serialize(func))
    assert back.as_python() == func.as_python() and "pl.muls" in func.as_python()
    with pytest.raises(ptokit.errors.UserError, match="not written by ptokit"):
        pypto.ir.deserialize(b"\x82\xa4name")
    with pytest.raises(ValueError, match="defines no @pl.program"):
        pl.parse("x = 1\n")
    with pytest.raises(SyntaxError):
        pl.parse("def (:\n")


def test_aicpu_dlopen_count_counts_one_load_per_registered_program(tmp_path):
    from ptokit.runtime import ChipWorker
    compiled = ptokit.compile(P.Elementwise, output_dir=tmp_path / "ew")
    a = np.ones((64, 64), np.float32)
    with ChipWorker() as worker:
        assert worker.aicpu_dlopen_count == 0
        h = worker.register(compiled)
        assert worker.aicpu_dlopen_count == 1
        for _ in range(3):
            h(a, a)
        worker.register(compiled)
        assert worker.aicpu_dlopen_count == 1 and worker.host_dlopen_count == 0


def test_ir_compile_takes_pypto_options(alias, tmp_path):
    from pypto import ir
    from pypto.backend import BackendType
    from pypto.pypto_core.passes import MemoryPlanner
    c = ir.compile(P.Elementwise, output_dir=tmp_path / "a5", backend_type=BackendType.Ascend950,
                   memory_planner=MemoryPlanner.PTOAS, dump_passes=False)
    assert c.platform == "a5sim" and not (tmp_path / "a5" / "passes_dump").exists()
    with pytest.raises(ptokit.errors.UserError, match=r"skip_ptoas=True\) is not provided"):
        ir.compile(P.Elementwise, output_dir=tmp_path / "x", skip_ptoas=True)


def test_ir_compile_honours_memory_planner(alias, tmp_path, capsys):
    from pypto import ir
    from pypto.backend.pto_backend import PartialCodegenError
    from pypto.pypto_core.passes import MemoryPlanner
    from parity.memref_programs import CoLiveSlots
    with pytest.raises(PartialCodegenError, match="take two of its slots in one loop iteration"):
        ir.compile(CoLiveSlots, output_dir=tmp_path / "ptoas", memory_planner=MemoryPlanner.PTOAS, dump_passes=False)
    c = ir.compile(CoLiveSlots, output_dir=tmp_path / "dsa", memory_planner=MemoryPlanner.DSA_RP, dump_passes=False)
    assert (c.output_dir / "kernel_config.py").is_file()
    assert "memory_planner=DSA_RP: ptokit's own planner places the on-chip buffers" in capsys.readouterr().err


def test_every_entry_simulates_a_hardware_platform_while_installed(alias, tmp_path, capsys):
    from pypto.runtime import RunConfig, compile_program, execute_compiled
    compiled = compile_program(P.Elementwise, tmp_path / "hw", platform="a2a3")
    assert compiled.platform == "a2a3sim"
    a = np.ones((64, 64), np.float32)
    y, z = np.zeros_like(a), np.zeros_like(a)
    result = execute_compiled(tmp_path / "hw", [a, a, y, z], platform="a2a3", device_id=4)
    np.testing.assert_array_equal(y, a + a)
    assert (result.platform, result.device_id) == ("a2a3sim", 4)
    assert RunConfig(platform="a5", codegen_only=True).platform == "a5sim"
    err = capsys.readouterr().err.splitlines()
    assert err.count("ptokit pypto: platform 'a2a3' is hardware: running it on the a2a3sim simulator "
                     "(--no-simulate-hardware refuses instead)") == 1          # said once per platform
    assert any("platform 'a5' is hardware" in line for line in err)


def test_without_the_alias_hardware_is_refused_as_before():
    from ptokit.runtime import RunConfig
    with pytest.raises(ValueError, match="real hardware"):
        RunConfig(platform="a2a3")
    assert RunConfig(platform="a2a3", codegen_only=True).platform == "a2a3"


def test_the_l0_tile_chooser_is_reached_as_pypto_names_it(alias):
    from pypto.pypto_core import passes
    cfg = passes.l0_tile_chooser.L0TileConfig()
    cfg.M, cfg.K, cfg.N = 160, 64, 160
    cfg.l0a_bytes = cfg.l0b_bytes = 64 * 1024
    cfg.l0c_bytes = 128 * 1024
    cfg.bytes_a, cfg.bytes_b, cfg.bytes_c = 4, 4, 4
    cfg.allow_a_stationary = cfg.allow_b_stationary = cfg.allow_double_buffer_c = cfg.allow_k_boundary = True
    choice = passes.l0_tile_chooser.choose_l0_tile(cfg)
    assert (choice.m, choice.n, choice.k) == (80, 128, 64) and choice.double_buffer_c
    assert choice.stationarity == passes.l0_tile_chooser.Stationarity.OutputStationary
    assert passes.l0_tile_chooser is ptokit.passes.l0_tile_chooser
