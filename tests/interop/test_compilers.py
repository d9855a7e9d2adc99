"""Compiler selection and the vendor tile library mode (PTO_ISA_ROOT), without pto-isa.

The vendor library is played by ``pto_isa_standin/``: small headers of our own that have pto-isa's
build requirements (C++20 only, ``uint8_t`` used before any include, a ``-Wall`` warning in the
library's header) and then forward to ptokit's tile library, so results must be bit-identical.
``pto_isa_standin_gxx13/`` adds the construct g++ < 13 cannot compile (``static_assert(false)`` in
an uninstantiated template).
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import ptokit
import programs
from ptokit.artifacts.kernel_config import read_kernel_config
from mixed import programs as mixed_programs
from ptokit.errors import BuildError, UserError
from ptokit.runtime import build as B
from ptokit.runtime import compilers as T

from interop_util import assert_same_outputs, env, run_outputs

HERE = Path(__file__).resolve().parent
STANDIN = HERE / "pto_isa_standin"
STANDIN_GXX13 = HERE / "pto_isa_standin_gxx13"
CLANG = next((c for c in ("clang++-19", "clang++") if shutil.which(c)), None)


@pytest.fixture(scope="module")
def elementwise(tmp_path_factory):
    with env(PTOAS_ROOT=None):
        return ptokit.compile(programs.Elementwise, output_dir=tmp_path_factory.mktemp("ew")).output_dir


def _fake_clang(folder: Path) -> Path:
    """A 'compiler' that says it is clang, logs every call and compiles with g++."""
    exe = folder / "fake-clang++"
    exe.write_text(f'#!/bin/sh\necho "$@" >> "{folder / "calls.log"}"\n'
                   'if [ "$1" = "--version" ]; then echo "fake clang version 19.0.0 (ptokit test)"; exit 0; fi\n'
                   'exec g++ "$@"\n')
    exe.chmod(0o755)
    return exe


# ---------------------------------------------------------------------------------------------
# which compiler, which base flags, cache key
# ---------------------------------------------------------------------------------------------

def test_compiler_is_ptokit_cxx_then_cxx_then_gxx():
    with env(PTOKIT_CXX="c1", CXX="c2"):
        assert T.compiler() == "c1" and B.compiler() == "c1"
    with env(PTOKIT_CXX=None, CXX="c2"):
        assert T.compiler() == "c2"
    with env(PTOKIT_CXX=None, CXX=None):
        assert T.compiler() == "g++"


def test_clang_gets_no_vect_cost_model(tmp_path):
    fake = _fake_clang(tmp_path)
    assert "-fvect-cost-model=dynamic" in T.base_flags("g++")
    assert T.is_clang(str(fake)) and "-fvect-cost-model=dynamic" not in T.base_flags(str(fake))
    assert [f for f in T.base_flags("g++") if f != "-fvect-cost-model=dynamic"] == list(T.base_flags(str(fake)))
    if CLANG:
        assert T.is_clang(CLANG) and "-fvect-cost-model=dynamic" not in T.base_flags(CLANG)


def test_compiler_identity_is_in_the_cache_key(tmp_path):
    src = tmp_path / "k.cpp"
    src.write_text("int f() { return 1; }\n")
    fake = _fake_clang(tmp_path)
    with env(PTOKIT_CXX="g++"):
        gxx = B.build_key(src)
        assert B.build_key(src) == gxx
    with env(PTOKIT_CXX=str(fake)):
        assert B.build_key(src) != gxx
    with env(PTOKIT_CXX=None, CXX=str(fake)):
        assert B.build_key(src) != gxx


def test_every_build_uses_the_chosen_compiler(tmp_path, elementwise):
    """Kernels, orchestration and the simulator library all go through PTOKIT_CXX."""
    from ptokit.runtime.sim import driver
    fake = _fake_clang(tmp_path)
    with env(PTOKIT_CXX=str(fake), PTOKIT_CACHE_DIR=tmp_path / "cache"):
        built = B.build_tree(elementwise)
        lib = driver.library_path()
    compiles = [line for line in (tmp_path / "calls.log").read_text().splitlines() if " -o " in line]
    for name in ("add.cpp", "mul_exp.cpp", "main.cpp", "ptosim.cpp"):
        assert any(f"/{name} -o" in c for c in compiles), name
    assert all("-fvect-cost-model" not in c for c in compiles)
    for so in [built.orchestration_so, lib, *built.kernel_sos.values()]:
        assert json.loads(so.with_suffix(".json").read_text())["command"][0] == str(fake)


# ---------------------------------------------------------------------------------------------
# the vendor mode's flags (no compile)
# ---------------------------------------------------------------------------------------------

def _job(jobs, hint):
    return next(j for j in jobs if j.name_hint == hint)


def test_vendor_mode_flags_and_include_order(elementwise):
    cfg = read_kernel_config(elementwise)
    with env(PTO_ISA_ROOT=None):
        plain = B.tree_jobs(cfg)
    with env(PTO_ISA_ROOT=STANDIN):
        vend = B.tree_jobs(cfg)
    for hint in ("kernel:add", "orchestration:main"):
        p, v = _job(plain, hint), _job(vend, hint)
        assert p.include_dirs[0] == B.INCLUDE_DIR and not p.system_include_dirs
        assert not any(f.startswith("-std=") for f in p.extra_flags)
        assert list(v.system_include_dirs) == [STANDIN / "include", B.INCLUDE_DIR]   # pto-isa first, as -isystem
        assert B.INCLUDE_DIR not in v.include_dirs
        flags = list(v.extra_flags)
        assert "-std=c++20" in flags and flags[flags.index("-include") + 1] == "stdint.h"
        merged = B._flag_list(v.defines, v.extra_flags)
        assert [f for f in merged if f.startswith("-std=")] == ["-std=c++20"]      # replaces the base c++17
    # the folder itself is accepted when it has no include/
    with env(PTO_ISA_ROOT=STANDIN / "include"):
        assert T.vendor_include() == STANDIN / "include"


def test_bf16_kernel_flags_when_the_compiler_has_std_bfloat16(tmp_path, monkeypatch):
    src = tmp_path / "k.cpp"
    src.write_text("__gm__ bfloat16_t* p;\n")
    with env(PTO_ISA_ROOT=STANDIN):
        defines, flags = T.kernel_flags(src)
    assert "-std=c++23" in flags and "PTO_CPU_SIM_ENABLE_BF16" in defines
    src.write_text("__gm__ half* p;\n")
    with env(PTO_ISA_ROOT=STANDIN):
        defines, flags = T.kernel_flags(src)
    assert "-std=c++20" in flags and "PTO_CPU_SIM_ENABLE_BF16" not in defines
    assert "PTO_CPU_OOL_OPS" not in defines            # the vendor library has no out-of-line operations
    with env(PTO_ISA_ROOT=None):
        # ptokit's own library: the kernel calls the operations libptosim compiles once
        assert T.kernel_flags(src) == (("PTO_CPU_OOL_OPS",), ())


def test_fifo_rule_hook(elementwise):
    """The unsplit-FIFO rule reaches every kernel's defines (vendor_api_cases tests what it does)."""
    assert T.DEFAULT_FIFO_RULE == "pypto-head" and T.FIFO_RULES["pypto-head"] == ()
    cfg = read_kernel_config(elementwise)
    head = [j for j in B.tree_jobs(cfg) if j.name_hint.startswith("kernel:")]
    old = [j for j in B.tree_jobs(cfg, "ptoas-0.27") if j.name_hint.startswith("kernel:")]
    assert all("PTO_CPU_FIFO_NOSPLIT_LANE0" not in j.defines for j in head)
    assert all("PTO_CPU_FIFO_NOSPLIT_LANE0" in j.defines for j in old)
    with pytest.raises(ValueError, match="unknown FIFO rule 'x'"):
        B.build_tree(elementwise, fifo_rule="x")


# ---------------------------------------------------------------------------------------------
# the stand-in's requirements are real, and the vendor mode meets them
# ---------------------------------------------------------------------------------------------

def _syntax(cxx, flags, isa=STANDIN):
    probe = "#include <pto/pto-inst.hpp>\n"
    cmd = [cxx, "-fsyntax-only", "-x", "c++", "-D__CPU_SIM", "-Wall", "-Werror", *flags, "-"]
    return subprocess.run(cmd, input=probe, capture_output=True, text=True, timeout=120,
                          cwd=str(isa)).returncode == 0


@pytest.mark.parametrize("cxx", ["g++"] + ([CLANG] if CLANG else []))
def test_standin_needs_what_pto_isa_needs(cxx):
    inc = str(STANDIN / "include")
    sys_ = ["-isystem", inc, "-isystem", str(B.INCLUDE_DIR)]
    assert _syntax(cxx, ["-std=c++20", "-include", "stdint.h", *sys_])
    assert not _syntax(cxx, ["-std=c++17", "-include", "stdint.h", *sys_])            # C++20 only
    assert not _syntax(cxx, ["-std=c++20", *sys_])                                    # uint8_t before includes
    assert not _syntax(cxx, ["-std=c++20", "-include", "stdint.h", "-I", inc, "-I", str(B.INCLUDE_DIR)])  # -Wall


@pytest.mark.parametrize("cxx", ["g++"] + ([CLANG] if CLANG else []))
@pytest.mark.parametrize("program", ["Elementwise", "Matmul_64_FP16"])
def test_vendor_mode_builds_and_runs_like_ptokits_library(cxx, program, tmp_path):
    prog = programs.Elementwise if program == "Elementwise" else programs.make_matmul(64, 64, 64, ptokit.language.FP16)
    with env(PTOAS_ROOT=None):
        tree = ptokit.compile(prog, output_dir=tmp_path / "t").output_dir
    with env(PTOKIT_CXX=cxx):
        ref = run_outputs(tree, "tensormap_and_ringbuffer")
        with env(PTO_ISA_ROOT=STANDIN):
            built = B.build_tree(tree)
            got = run_outputs(tree, "tensormap_and_ringbuffer")
    assert_same_outputs(ref, got, f"{program} against the stand-in ({cxx})")
    cmd = json.loads(next(iter(built.kernel_sos.values())).with_suffix(".json").read_text())["command"]
    assert cmd[0] == cxx and "-std=c++20" in cmd and cmd[cmd.index("-isystem") + 1] == str(STANDIN / "include")


def test_vendor_mode_refuses_mixed_kernels(tmp_path):
    with env(PTOAS_ROOT=None):
        tree = ptokit.compile(mixed_programs.MatmulExp, output_dir=tmp_path / "t").output_dir
    with env(PTO_ISA_ROOT=STANDIN), pytest.raises(UserError) as ei:
        B.build_tree(tree)
    msg = str(ei.value)
    assert "mm_exp_aic" in msg and "mm_exp_aiv" in msg and "cross-core FIFO" in msg and "unset PTO_ISA_ROOT" in msg


def test_vendor_mode_refuses_bf16_that_would_run_as_fp16(tmp_path, monkeypatch):
    with env(PTOAS_ROOT=None):
        tree = ptokit.compile(programs.make_matmul(64, 64, 64, ptokit.language.BF16), output_dir=tmp_path / "t").output_dir
    monkeypatch.setattr(T, "bf16_supported", lambda cxx: False)
    with env(PTO_ISA_ROOT=STANDIN), pytest.raises(UserError) as ei:
        B.build_tree(tree)
    assert "kernel(s) mm use bfloat16" in str(ei.value) and "silently compute them as fp16" in str(ei.value)
    # without the vendor library the same tree builds (ptokit's library has real bf16)
    with env(PTO_ISA_ROOT=None):
        B.build_tree(tree)


@pytest.mark.parametrize("cxx", ["g++"] + ([CLANG] if CLANG else []))
def test_a_library_without_stdfloat_has_no_real_bf16(cxx):
    has_stdfloat = subprocess.run([cxx, "-std=c++23", "-x", "c++", "-fsyntax-only", "-"], input="#include <stdfloat>\n",
                                  capture_output=True, text=True, timeout=60).returncode == 0
    if has_stdfloat:
        pytest.skip("this C++ library has <stdfloat>")
    assert not T.bf16_supported(cxx)


@pytest.mark.skipif((T.gcc_major("g++") or 99) >= 13, reason="needs a g++ older than 13")
def test_old_gxx_is_refused_with_a_compiler_that_can(elementwise):
    T._check_vendor_compiler.cache_clear()
    with env(PTOKIT_CXX="g++", PTO_ISA_ROOT=STANDIN_GXX13), pytest.raises(BuildError) as ei:
        B.build_tree(elementwise)
    msg = str(ei.value)
    assert "static_assert(false)" in msg and "PTOKIT_CXX=clang++-19" in msg and "apt-get install clang-19" in msg


@pytest.mark.skipif(CLANG is None, reason="no clang++ installed")
def test_clang_compiles_what_old_gxx_cannot(elementwise):
    with env(PTOKIT_CXX=CLANG, PTO_ISA_ROOT=STANDIN_GXX13):
        built = B.build_tree(elementwise)
    assert len(built.kernel_sos) == 2


def test_vendor_header_failure_is_reported(tmp_path, elementwise):
    bad = tmp_path / "isa" / "include" / "pto"
    bad.mkdir(parents=True)
    (bad / "pto-inst.hpp").write_text("this is not C++\n")
    with env(PTO_ISA_ROOT=tmp_path / "isa"), pytest.raises(BuildError) as ei:
        B.build_tree(elementwise)
    assert "cannot compile pto-isa's <pto/pto-inst.hpp>" in str(ei.value) and str(tmp_path / "isa" / "include") in str(ei.value)
