"""The wrapper on the vendor assembler's output: mixed modules without __global__, and the
diagnostics ignored around external code only."""
from __future__ import annotations

import subprocess

import pytest

import ptokit
import programs
from ptokit.backend.wrapper import EXTERNAL_IGNORED_WARNINGS, generated_region, preprocess_asm, select_function
from ptokit.runtime.build import INCLUDE_DIR

from interop_util import FIXTURES, GEN_MARK, ENTRY_MARK, cases, env, substitute

MIXED = (FIXTURES / "probes/no_slot_num/MatmulExp@a5/mm_exp.real.cpp").read_text()


def test_select_function_keeps_one_vendor_mixed_function():
    aic = select_function(MIXED, "mm_exp_aic")
    aiv = select_function(MIXED, "mm_exp_aiv")
    assert "AICORE void mm_exp_aic(" in aic and "mm_exp_aiv(" not in aic
    assert "AICORE void mm_exp_aiv(" in aiv and "mm_exp_aic(" not in aiv
    for text in (aic, aiv):   # the shared helper stays in both
        assert "static AICORE inline void ptoas_auto_sync_tail(" in text


def test_preprocess_makes_vendor_functions_static():
    out = preprocess_asm(select_function(MIXED, "mm_exp_aiv"))
    assert "static __aicore__ void mm_exp_aiv(__gm__ half* v1" in out
    assert "static __aicore__ inline void ptoas_auto_sync_tail(" in out
    assert "static static" not in out and "AICORE" not in out.replace("__aicore__", "")


def test_external_region_has_the_diagnostics_and_only_there():
    plain = generated_region(MIXED)
    ext = generated_region(MIXED, external=True)
    assert "#pragma GCC diagnostic" not in plain
    lines = ext.splitlines()
    assert lines[0] == "#if defined(__GNUC__)" and lines[-1] == "#endif" and lines[-2] == "#pragma GCC diagnostic pop"
    for w in EXTERNAL_IGNORED_WARNINGS:
        assert f'#pragma GCC diagnostic ignored "{w}"' in ext
    assert set(EXTERNAL_IGNORED_WARNINGS) == {"-Wunused-variable", "-Wunused-but-set-variable",
                                              "-Wunused-local-typedefs", "-Wparentheses"}


@pytest.mark.parametrize("cxx", ["g++", "clang++-19"])
def test_vendor_set_but_unused_local_is_ignored_around_it(tmp_path, cxx):
    """The real ptoas assigns some locals it never reads (a loop-carried scalar whose uses were folded):
    -Wall -Werror stops at -Wunused-but-set-variable unless it is ignored around that code."""
    if subprocess.run(["which", cxx], capture_output=True).returncode != 0:
        pytest.skip(f"{cxx} is not installed")
    vendor = "void vendor_kernel() {\n  int v7 = 0;\n  for (int i = 0; i < 4; ++i) { v7 = i; }\n}\n"
    results = {}
    for external in (False, True):
        src = tmp_path / f"k{int(external)}.cpp"
        src.write_text(generated_region(vendor, external=external) + "\n")
        r = subprocess.run([cxx, "-fsyntax-only", "-Wall", "-Werror", str(src)], capture_output=True, text=True)
        results[external] = (r.returncode, r.stderr)
    assert results[False][0] != 0 and "unused-but-set-variable" in results[False][1]
    assert results[True][0] == 0, results[True][1]


@pytest.fixture(scope="module")
def dyn_tree(tmp_path_factory):
    units, _ = cases()["DynamicIntermediate"]
    with env(PTOAS_ROOT=None):
        tree = ptokit.compile(programs.DynamicIntermediate, output_dir=tmp_path_factory.mktemp("dyn")).output_dir
    return tree, next(u for u in units if u.unit == "expk")


def _werror_ok(path, core="__DAV_VEC__"):
    cmd = ["g++", "-fsyntax-only", "-std=c++17", "-Wall", "-Werror", "-D__CPU_SIM", f"-D{core}",
           f"-I{INCLUDE_DIR}", f"-I{path.parent}", str(path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return r.returncode == 0, r.stderr


@pytest.mark.parametrize("external", [False, True])
@pytest.mark.parametrize("core, warnings", [
    ("__DAV_VEC__", ["parentheses", "unused-local-typedefs"]),      # its loop bound, its `using T`
    ("__DAV_CUBE__", ["unused-variable"]),                           # its locals, with the vector body compiled out
])
def test_vendor_warnings_fail_werror_unless_ignored_around_them(dyn_tree, external, core, warnings):
    tree, unit = dyn_tree
    substitute(tree, unit, (FIXTURES / "cases/DynamicIntermediate/expk.real.cpp").read_text(), external=external)
    ok, err = _werror_ok(tree / "kernels" / "aiv" / "expk.cpp", core)
    if external:
        assert ok, err
    else:
        assert not ok and all(f"-Werror={w}" in err for w in warnings), err


def test_the_kernel_entry_stays_checked(dyn_tree):
    """A warning in ptokit's own part of the file still fails -Werror with external code in it."""
    tree, unit = dyn_tree
    substitute(tree, unit, (FIXTURES / "cases/DynamicIntermediate/expk.real.cpp").read_text(), external=True)
    path = tree / "kernels" / "aiv" / "expk.cpp"
    text = path.read_text()
    assert text.index(GEN_MARK) < text.index("#pragma GCC diagnostic pop") < text.index(ENTRY_MARK)
    path.write_text(text.replace('extern "C"', 'static int ptokit_side_unused() { int x = 0; return 1; }\nextern "C"', 1))
    ok, err = _werror_ok(path)
    assert not ok and "unused variable" in err and "ptokit_side_unused" in err
