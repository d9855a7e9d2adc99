"""Golden .pto files for representative kernels, plus determinism and a syntax-only
g++ compile of every generated C++ file.

Regenerate after an intended change with ``PTOKIT_UPDATE_GOLDEN=1 pytest tests/codegen``
and review the diff by eye.
"""
import os
import subprocess
from pathlib import Path

import pytest

import ptokit
from ptokit.passes import PassContext
from ptokit.passes.manager import run_passes
from ptokit.codegen.pto import emit_pto

import programs

GOLDEN = Path(__file__).parent / "golden"
INCLUDE = Path(ptokit.__file__).parent / "runtime" / "include"
CASES = [
    ("elementwise_add", programs.Elementwise, "add"),
    ("scalar_operand", programs.ScalarOperand, "axpb"),
    ("dynamic_dim_scalar", programs.DynamicRows, "scale_rows"),
    ("loop_runtime_bound", programs.LoopSum, "block_sum"),
    ("softmax_rows", programs.SoftmaxRows, "softmax"),
]


def _pto(program, kernel, platform="a2a3sim"):
    lowered = run_passes(program.ir, PassContext(platform=platform))
    text, _ = emit_pto([lowered.functions[kernel]], PassContext(platform=platform).arch)
    return text


@pytest.mark.parametrize("golden,program,kernel", CASES, ids=[c[0] for c in CASES])
def test_pto_golden(golden, program, kernel):
    text = _pto(program, kernel)
    path = GOLDEN / f"{golden}.pto"
    if os.environ.get("PTOKIT_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"missing golden {path}; run with PTOKIT_UPDATE_GOLDEN=1"
    assert text == path.read_text()


def test_pto_is_deterministic():
    assert _pto(programs.SoftmaxRows, "softmax") == _pto(programs.SoftmaxRows, "softmax")


def test_a5_target_arch():
    assert 'pto.target_arch = "a5"' in _pto(programs.Elementwise, "add", platform="a5sim")


def test_loc_suffix_can_be_turned_off(tmp_path):
    ptokit.compile(programs.Elementwise, output_dir=tmp_path / "on")
    from ptokit.toolchain import compile_program
    compile_program(programs.Elementwise, output_dir=tmp_path / "off", with_loc=False)
    assert ' loc("programs.py":' in (tmp_path / "on" / "ptoas" / "add.pto").read_text()
    assert " loc(" not in (tmp_path / "off" / "ptoas" / "add.pto").read_text()


def test_tree_bytes_are_deterministic(tmp_path):
    a = ptokit.compile(programs.LayerNormish, output_dir=tmp_path / "a")
    b = ptokit.compile(programs.LayerNormish, output_dir=tmp_path / "b")
    files = sorted(p.relative_to(a.output_dir) for p in a.output_dir.rglob("*") if p.is_file())
    assert files
    for rel in files:
        assert (a.output_dir / rel).read_bytes() == (b.output_dir / rel).read_bytes(), rel


ALL_PROGRAMS = ["Elementwise", "ScalarOperand", "DynamicRows", "LoopSum", "SoftmaxRows", "LayerNormish",
                "MatmulKLoop", "FusedLinear", "FFN", "ControlFlow", "AuditFixes", "DynamicIntermediate"]


@pytest.mark.parametrize("name", ALL_PROGRAMS)
def test_generated_cpp_compiles_cleanly(name, tmp_path):
    compiled = ptokit.compile(getattr(programs, name), output_dir=tmp_path / name)
    out = compiled.output_dir
    cmds = []
    for f in sorted((out / "kernels" / "aiv").glob("*.cpp")):
        cmds.append([f, "-D__DAV_VEC__"])
    for f in sorted((out / "kernels" / "aic").glob("*.cpp")):
        cmds.append([f, "-D__DAV_CUBE__"])
    for f in sorted((out / "orchestration").glob("*.cpp")):
        cmds.append([f])
    assert cmds
    for f, *defs in cmds:
        r = subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-D__CPU_SIM", *defs,
                            f"-I{INCLUDE}", str(f)], capture_output=True, text=True)
        assert r.returncode == 0, f"{f}:\n{r.stderr}"


def test_a5_device_tree_carries_the_simt_anchor(tmp_path):
    a5 = ptokit.compile(programs.Elementwise, output_dir=tmp_path / "a5", platform="a5")
    sim = ptokit.compile(programs.Elementwise, output_dir=tmp_path / "sim", platform="a5sim")
    kernel = (a5.output_dir / "kernels" / "aiv" / "add.cpp").read_text()
    assert '#include "ptokit_simt_anchor.h"' in kernel
    body = kernel.split("void kernel_entry", 1)[1]
    assert body.index("PTOKIT_SIMT_ANCHOR(args);") < body.index("add(")
    assert (a5.output_dir / "kernels" / "aiv" / "ptokit_simt_anchor.h").exists()
    assert "PTOKIT_SIMT_ANCHOR" not in (sim.output_dir / "kernels" / "aiv" / "add.cpp").read_text()
    assert not (sim.output_dir / "kernels" / "aiv" / "ptokit_simt_anchor.h").exists()
    with pytest.raises(ValueError, match="needs the vendor toolchain"):
        a5()
