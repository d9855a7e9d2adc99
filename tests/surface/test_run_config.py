"""RunConfig: every field pypto users pass, what each does on the simulator, and the errors."""
import json

import numpy as np
import pytest

import programs as P
import ptokit
from ptokit.backend import BackendType
from ptokit.errors import UserError
from ptokit.runtime import GoldenMismatch, RunConfig
from ptokit.runtime.config import FIELDS
from ptokit.targets import MemoryPlanner, OptimizationStrategy

PYPTO_FIELDS = ("platform device_id rtol atol strategy backend_type dump_passes save_kernels save_kernels_dir "
                "codegen_only enable_chip_swimlane enable_dump_args enable_pmu enable_dep_gen enable_scope_stats "
                "compile_profiling diagnostic_phase disabled_diagnostics golden_data_dir aicpu_thread_num "
                "ring_task_window ring_heap ring_dep_pool distributed_config analyze_auto_scopes_for_deps "
                "memory_planner dump_ptoas_passes").split()


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.fixture(scope="module")
def ew(tmp_path_factory):
    return ptokit.compile(P.Elementwise, output_dir=tmp_path_factory.mktemp("cfg") / "Elementwise")


def test_every_pypto_field_exists_with_pypto_defaults():
    assert set(PYPTO_FIELDS) <= set(FIELDS)
    c = RunConfig()
    assert (c.platform, c.device_id, c.rtol, c.atol) == ("a2a3sim", 0, 1e-5, 1e-5)
    assert c.strategy is OptimizationStrategy.Default and c.backend_type is BackendType.Ascend910B
    assert not (c.save_kernels or c.codegen_only or c.enable_dep_gen or c.compile_profiling)


def test_platform_and_backend_type_name_one_chip():
    assert RunConfig(backend_type=BackendType.Ascend950).platform == "a5sim"
    assert RunConfig(platform="a5sim").backend_type is BackendType.Ascend950
    assert RunConfig(platform="a5sim", backend_type="Ascend950").backend_type is BackendType.Ascend950
    with pytest.raises(ValueError, match=r"backend_type=BackendType.Ascend950 is the a5 chip family, but "
                                         r"platform='a2a3sim' is a2a3"):
        RunConfig(platform="a2a3sim", backend_type=BackendType.Ascend950)
    with pytest.raises(ValueError, match="unknown backend_type 'Ascend310'"):
        RunConfig(backend_type="Ascend310")
    # replace() re-derives the other one
    assert RunConfig(platform="a5sim").replace(platform="a2a3sim").backend_type is BackendType.Ascend910B
    assert RunConfig().replace(backend_type=BackendType.Ascend950).platform == "a5sim"


def test_hardware_platforms_only_compile():
    with pytest.raises(ValueError, match="real hardware.*codegen_only=True"):
        RunConfig(platform="a5")
    assert RunConfig(platform="a5", codegen_only=True).backend_type is BackendType.Ascend950


@pytest.mark.parametrize("kw, message", [
    (dict(device_id=-1), "device_id=-1: must be an integer >= 0"),
    (dict(device_id=True), "device_id=True"),
    (dict(rtol=-1.0), "rtol=-1.0: must be a number >= 0"),
    (dict(strategy="Fast"), "strategy='Fast' is not one of Default"),
    (dict(memory_planner="MINE"), "memory_planner='MINE' is not one of PYPTO, DSA_RP, PTOAS"),
    (dict(enable_chip_swimlane=7), "enable_chip_swimlane=7: must be True/False or a level 0..4"),
    (dict(enable_dump_args=3), "enable_dump_args=3"),
    (dict(enable_pmu=-2), "enable_pmu=-2"),
    (dict(enable_dep_gen=1), "enable_dep_gen=1: must be True or False"),
    (dict(save_kernels_dir=3), "save_kernels_dir=3: must be a path"),
    (dict(ring_task_window=6), "ring_task_window must be a power of 2 >= 4, got 6"),
    (dict(ring_heap=1024), "ring_heap must be a power of 2 >= 4096"),
    (dict(ring_dep_pool=2), r"ring_dep_pool must be in \[4, INT32_MAX\]"),
    (dict(ring_task_window=[64, 64]), "must have exactly 4 entries"),
    (dict(ring_task_window=[64, 128, 0, 0]), "gives every scope-depth ring the same size"),
    (dict(ring_task_window=64, task_ring_size=32), "set the same ring size differently"),
    (dict(aicpu_thread_num=1), "aicpu_thread_num=1 is not valid on a2a3sim"),
])
def test_invalid_values_name_the_field(kw, message):
    with pytest.raises(ValueError, match=message):
        RunConfig(**kw)


def test_unknown_field_is_a_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'block_size'"):
        RunConfig(block_size=3)


def test_values_are_normalised():
    c = RunConfig(enable_chip_swimlane=True, enable_dump_args=True, aicpu_thread_num=None,
                  strategy="Default", memory_planner="PTOAS")
    assert (c.enable_chip_swimlane, c.enable_dump_args, c.aicpu_thread_num) == (4, 1, 0)
    assert c.memory_planner is MemoryPlanner.PTOAS and c.save_kernels    # diagnostics keep the tree


def test_ring_overrides_set_the_simulator_sizes():
    c = RunConfig(ring_task_window=256, ring_heap=1 << 20, ring_dep_pool=4096)
    assert (c.task_ring_size, c.heap_size, c.dep_pool_size) == (256, 1 << 20, 4096)
    c = RunConfig(ring_task_window=(0, 128, 128, 0))
    assert c.task_ring_size == 128 and c.ring_task_window == (0, 128, 128, 0)
    assert RunConfig(ring_task_window=[0, 0, 0, 0]).task_ring_size == 16384
    assert c.replace(ring_task_window=64).task_ring_size == 64


def test_a_ring_override_really_sizes_the_run(tmp_path):
    # host_build_graph keeps every task in one ring: Graphs submits 9, so a window of 4 is too small
    c = ptokit.compile(P.Graphs, output_dir=tmp_path / "hbg", runtime="host_build_graph")
    x, w = rand(32, 64), rand(32, 64, seed=1)
    d, z, e = c(x, w, np.zeros_like(x), config=RunConfig(ring_task_window=16))
    np.testing.assert_allclose(z, w + 1, rtol=1e-6)
    with pytest.raises(ptokit.errors.RuntimeFailure, match="task_ring_size"):
        c(x, w, np.zeros_like(x), config=RunConfig(ring_task_window=4))


def test_compile_kwargs():
    kw = RunConfig(platform="a5sim", dump_passes=True, save_kernels_dir="/x", compile_profiling=True).compile_kwargs()
    assert kw == {"platform": "a5sim", "runtime": None, "dump_passes": True, "dump_ptoas_passes": False,
                  "output_dir": "/x", "profiling": True}
    marker = object()
    assert RunConfig(distributed_config=marker).compile_kwargs()["distributed_config"] is marker


def test_device_id_is_recorded(ew):
    a = rand(64, 64)
    ew(a, a, config=RunConfig(device_id=3))
    assert ew.last_result.device_id == 3


def test_swimlane_writes_the_trace_and_dep_gen_the_graph(ew, tmp_path):
    a = rand(64, 64)
    save = tmp_path / "kept"
    ew(a, a, config=RunConfig(enable_chip_swimlane=1, enable_dep_gen=True, save_kernels_dir=str(save)))
    trace = json.loads((save / "dfx_outputs" / "chip_swimlane.json").read_text())
    assert any(e.get("name") == "add" for e in trace["traceEvents"])
    deps = json.loads((save / "dfx_outputs" / "deps.json").read_text())
    assert deps["format"] == "ptokit-deps" and {t["kernel"] for t in deps["tasks"]} == {"add", "mul_exp"}
    assert (save / "kernel_config.py").is_file()              # the tree is kept there too


def test_profiling_only_switches_change_nothing(ew, tmp_path):
    a, b = rand(64, 64), rand(64, 64, seed=1)
    y, z = ew(a, b, config=RunConfig(enable_pmu=2, enable_dump_args=2, enable_scope_stats=True,
                                     analyze_auto_scopes_for_deps=True, memory_planner="PTOAS",
                                     diagnostic_phase="PrePipeline", save_kernels_dir=str(tmp_path / "k")))
    np.testing.assert_allclose(y, a + b, rtol=1e-6)


def test_golden_data_dir_compares_the_outputs(ew, tmp_path):
    a, b = rand(64, 64), rand(64, 64, seed=1)
    (tmp_path / "out").mkdir()
    np.save(tmp_path / "out" / "y.npy", a + b)
    np.save(tmp_path / "out" / "z.npy", np.exp(a * b))
    ew(a, b, config=RunConfig(golden_data_dir=str(tmp_path), rtol=1e-4, atol=1e-5))
    np.save(tmp_path / "out" / "z.npy", np.exp(a * b) + 1.0)
    with pytest.raises(GoldenMismatch, match=r"z: 4096 of 4096 elements differ beyond rtol=0.0001"):
        ew(a, b, config=RunConfig(golden_data_dir=str(tmp_path), rtol=1e-4))
    (tmp_path / "out" / "z.npy").unlink()
    with pytest.raises(UserError, match=r"has no out/z.npy; it needs one .npy file per output \(y, z\)"):
        ew(a, b, config=RunConfig(golden_data_dir=str(tmp_path)))


def test_codegen_only_runs_nothing(ew):
    a = rand(64, 64)
    y = np.zeros_like(a)
    assert ew(a, a, y, np.zeros_like(a), config=RunConfig(codegen_only=True)) is None
    assert not y.any()
