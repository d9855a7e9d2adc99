"""``ptokit pypto``: pypto-style programs (tests/pypto_compat/programs, written for this repository) run
unchanged through the real command, in a process of their own."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parent / "programs"


def ptokit(*argv, entry=("-m", "ptokit.cli", "pypto"), cwd=PROGRAMS):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PTOKIT_PROGRESS="0")
    return subprocess.run([sys.executable, *entry, *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("runtime", ["TENSORMAP_AND_RINGBUFFER", "HOST_BUILD_GRAPH"])
def test_a_script_runs_unchanged_under_both_runtime_kinds(runtime, tmp_path):
    p = ptokit("elementwise.py", runtime, str(tmp_path / "tree"))
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"OK {runtime.lower()} a2a3sim"
    assert p.stderr == ""               # nothing to say: no hardware asked for, no device-only option


def test_a_hardware_platform_runs_on_its_simulator_and_says_so_once():
    p = ptokit("hardware.py", "platform")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "OK a2a3sim device 11"
    lines = p.stderr.splitlines()
    assert lines.count("ptokit pypto: platform 'a2a3' is hardware: running it on the a2a3sim simulator "
                       "(--no-simulate-hardware refuses instead)") == 1
    assert any("device_id=11 is recorded" in line for line in lines)      # device-only options: said once
    assert sum("enable_pmu=1" in line for line in lines) == 1
    assert len(lines) == 3


def test_a_backend_type_runs_on_its_simulator():
    p = ptokit("hardware.py", "backend")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "OK a5sim device 0"
    assert "backend_type=BackendType.Ascend950 is the a5 chip: running it on the a5sim simulator" in p.stderr


def test_no_simulate_hardware_keeps_the_refusal():
    p = ptokit("--no-simulate-hardware", "hardware.py", "platform")
    assert p.returncode == 1
    assert "ValueError: platform 'a2a3' is real hardware" in p.stderr
    assert 'File "hardware.py", line' in p.stderr
    assert "ptokit/runtime" not in p.stderr          # the program's frames only
    assert "OK" not in p.stdout


def test_a_host_program_without_distributed_config_and_a_shared_worker():
    # pypto's rules: one device when no DistributedConfig is given; DistributedWorker tensors stay resident
    p = ptokit("distributed.py")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "OK devices [0] f=9"


def test_a_module_with_relative_imports_runs_with_dash_m():
    p = ptokit("-m", "pyptopkg.main", "3")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "OK 9"


@pytest.mark.parametrize("script, name, entry", [
    ("missing_import.py", "pypto.runtime.no_such_api", ("-m", "ptokit.cli", "pypto")),
    ("missing_attr.py", "pypto.language.no_such_dsl_name", ("-m", "ptokit.cli", "pypto")),
    ("missing_module.py", "pypto.tools", ("-m", "ptokit.pypto")),
])
def test_a_name_ptokit_lacks_is_one_line_naming_it(script, name, entry):
    p = ptokit(script, entry=entry)
    assert p.returncode == 1
    assert p.stderr.splitlines() == [p.stderr.strip()], p.stderr
    assert p.stderr.startswith(f"ptokit pypto: error: {name} is not provided by ptokit (")
    assert "Traceback" not in p.stderr


def test_python_dash_m_ptokit_pypto_passes_argv_and_exit_status():
    p = ptokit("exits.py", "3", entry=("-m", "ptokit.pypto"))
    assert p.returncode == 3
    assert p.stdout.strip() == "ptokit.pypto.surface ['3']"


def test_usage_mistakes_are_one_message():
    p = ptokit()
    assert p.returncode == 1 and p.stderr.startswith("ptokit pypto: error: no program given")
    p = ptokit("no_such_file.py")
    assert p.returncode == 1 and p.stderr.strip() == "ptokit pypto: error: no such file: no_such_file.py"
    p = ptokit("--bogus", "x.py")
    assert p.returncode == 1 and "unknown option '--bogus'" in p.stderr


def test_the_pytest_plugin_runs_a_pypto_test_file():
    p = ptokit("-p", "ptokit.pypto.pytest_plugin", "-p", "no:cacheprovider", "-q", "--rootdir", str(PROGRAMS),
               "pypto_style_checks.py", entry=("-m", "pytest"))
    out = p.stdout
    assert "1 failed, 1 passed" in out, out
    # the failing test asks for a name ptokit lacks: its report is that one line
    assert "pypto.backend.no_such_backend_api is not provided by ptokit" in out
    assert "test_asks_for_a_missing_name" in out and "Traceback" not in out


def test_the_pytest_plugin_can_leave_the_alias_off():
    p = ptokit("-p", "ptokit.pypto.pytest_plugin", "--pypto-alias=off", "-p", "no:cacheprovider", "-q",
               "--rootdir", str(PROGRAMS), "pypto_style_checks.py", entry=("-m", "pytest"))
    assert p.returncode != 0
    assert "No module named 'pypto'" in p.stdout


def test_the_pytest_plugin_can_refuse_hardware():
    p = ptokit("-p", "ptokit.pypto.pytest_plugin", "--no-simulate-hardware", "-p", "no:cacheprovider", "-q",
               "--rootdir", str(PROGRAMS), "pypto_style_checks.py", "-k", "hardware", entry=("-m", "pytest"))
    assert p.returncode == 1
    assert "platform 'a5' is real hardware" in p.stdout


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_sub_workers_run_on_the_host_and_abstract_ones_are_bound_at_prepare(runtime):
    p = ptokit("sub_workers.py", runtime)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[-1] == f"OK {runtime} callbacks=2"
    assert out[0] == ("refused: SubWorker 'report' is a runtime-bound callback (declared with a `...` body): bind it "
                      "with prepare(callbacks={'report': fn})")
    assert out[1] == ("refused: prepare(callbacks=...): names that are not sub-workers of this program: 'nosuch' "
                      "(its SubWorkers: report, square)")
    assert out[2].startswith("unbound: SubWorker 'report' is a runtime-bound callback with no default implementation")


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_jit_host_with_bare_tensors_shares_a_worker(runtime):
    p = ptokit("jit_host_bare.py", runtime)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [f"OK {runtime} steps=2", "OK calls"]


def test_rebinding_an_out_tensor_is_a_partial_codegen_error():
    p = ptokit("out_rebinding.py")
    assert p.returncode == 0, p.stderr
    first, caret_line, caret, ok = p.stdout.splitlines()
    assert first.startswith("PartialCodegenError: out_rebinding.py:13:9: error: 'result' is a pl.Out tensor of "
                            "rebinds: this assignment rebinds it and discards the value written at line 12")
    assert caret_line.strip() == "result = pl.neg(x)" and caret.strip() == "^"
    assert ok == "OK"                    # an assignment that builds on the output is not refused


def test_the_pytest_plugin_runs_benchmark_and_worker_checks():
    p = ptokit("-p", "ptokit.pypto.pytest_plugin", "-p", "no:cacheprovider", "-q", "--rootdir", str(PROGRAMS),
               "pypto_style_runtime.py", entry=("-m", "pytest"))
    assert p.returncode == 0, p.stdout
    assert "5 passed" in p.stdout


def test_a_harness_plugin_named_after_the_ptokit_plugin_imports_ptokits_pypto():
    p = ptokit("-p", "ptokit.pypto.pytest_plugin", "-p", "pypto_like_plugin", "-p", "no:cacheprovider", "-q",
               "--rootdir", str(PROGRAMS), "pypto_style_fixture.py", entry=("-m", "pytest"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 passed" in p.stdout
