"""Flags that keep clang's -Werror builds clean: a library unit compiled to an object (-c) gets no
-shared (clang: "argument unused during compilation"), and with pto-isa clang is told not to report
the vendor headers' vectorize pragmas it cannot honour (-Wpass-failed, which -isystem does not hide)."""
import shutil
from pathlib import Path

import pytest

from ptokit.runtime import build, compilers

CLANG = shutil.which("clang++-19") or shutil.which("clang++")


def test_a_unit_object_is_compiled_without_shared_and_a_library_with_it():
    assert "-shared" not in build._flag_list((), (build.COMPILE_ONLY,))
    assert "-shared" in build._flag_list((), ())


@pytest.mark.skipif(CLANG is None, reason="needs clang")
def test_clang_builds_a_unit_with_werror(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CXX", CLANG)
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "unit.cpp"
    src.write_text("int unit_value() { return 7; }\n")
    obj = build.compile_shared(src, extra_flags=("-Werror", build.COMPILE_ONLY))
    assert obj.suffix == ".o" and obj.is_file()


@pytest.mark.skipif(CLANG is None, reason="needs clang")
def test_with_pto_isa_clang_does_not_report_vendor_vectorize_pragmas(tmp_path, monkeypatch):
    monkeypatch.setenv("PTO_ISA_ROOT", str(tmp_path))
    src = tmp_path / "k.cpp"
    src.write_text("int k() { return 0; }\n")
    monkeypatch.setenv("PTOKIT_CXX", CLANG)
    assert "-Wno-pass-failed" in compilers.kernel_flags(src)[1]
    assert "-Wno-pass-failed" in compilers.orchestration_flags()
    monkeypatch.setenv("PTOKIT_CXX", "g++")
    assert "-Wno-pass-failed" not in compilers.kernel_flags(src)[1]
