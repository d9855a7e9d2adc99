"""``build.build_library``: a shared library of several translation units, each compiled to its own
cached object at the same time and then linked (libptosim's runtime and cube units)."""
import ctypes
import os
import subprocess

import pytest

from ptokit.errors import BuildError
from ptokit.runtime import build
from ptokit.runtime.sim import driver

A = 'extern "C" int unit_a(int x) { return x + 1; }\n'
B = 'extern "C" int unit_b(int x) { return x * 3; }\n'


@pytest.fixture
def units(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "a.cpp").write_text(A)
    (tmp_path / "b.cpp").write_text(B)
    return [build.BuildJob(tmp_path / "a.cpp", extra_flags=("-Werror",), name_hint="a"),
            build.BuildJob(tmp_path / "b.cpp", extra_flags=("-O1",), name_hint="b")]


def _objects(tmp_path):
    return {p.name: p.stat().st_ino for p in (tmp_path / "cache" / "build").glob("*/*.o")}


def test_units_are_linked_into_one_library_and_cached(units, tmp_path):
    assert build.cached_library(units) is None
    lib = build.build_library(units, name_hint="two")
    so = ctypes.CDLL(str(lib))
    assert so.unit_a(4) == 5 and so.unit_b(4) == 12
    assert len(_objects(tmp_path)) == 2                     # one object per unit
    assert build.cache_stat()["objects"] == 3               # `ptokit cache stat` counts them with the library
    assert build.cached_library(units) == lib
    inode = lib.stat().st_ino
    assert build.build_library(units, name_hint="two") == lib and lib.stat().st_ino == inode


def test_a_changed_unit_rebuilds_that_unit_only(units, tmp_path):
    lib = build.build_library(units)
    before = _objects(tmp_path)
    (tmp_path / "b.cpp").write_text(B.replace("x * 3", "x * 5"))
    assert build.cached_library(units) is None              # the library's key follows its units
    lib2 = build.build_library(units)
    assert lib2 != lib and ctypes.CDLL(str(lib2)).unit_b(4) == 20
    after = _objects(tmp_path)
    assert len(after) == 3 and all(after[name] == ino for name, ino in before.items())   # a.o was not rebuilt


def test_a_unit_flag_or_a_link_flag_is_part_of_the_key(units):
    key = build.library_key(units)
    other = [units[0], build.BuildJob(units[1].source, extra_flags=("-O2",), name_hint="b")]
    assert build.library_key(other) != key
    assert build.library_key(units, ("-pthread",)) != key
    assert build.library_key(list(units)) == key


def test_a_damaged_library_is_linked_again(units):
    lib = build.build_library(units)
    data = bytearray(lib.read_bytes())
    data[-1] ^= 0xFF
    lib.write_bytes(bytes(data))
    assert build.cached_library(units) is None
    again = build.build_library(units)
    assert ctypes.CDLL(str(again)).unit_a(1) == 2


def test_a_failing_unit_is_a_build_error_naming_it(units, tmp_path):
    (tmp_path / "b.cpp").write_text("int broken( {\n")
    with pytest.raises(BuildError, match="b.cpp"):
        build.build_library(units)


def test_libptosim_is_its_runtime_cube_and_operations_units():
    names = [os.path.basename(str(u.source)) for u in driver.LIBRARY_UNITS]
    assert names == ["ptosim.cpp", "ptosim_cube.cpp", "ptosim_ops.cpp", "ptosim_ops_reduce.cpp"]
    lib = ctypes.CDLL(str(driver.library_path()))
    assert lib.pto_cpu_gemm_f32 and lib.pto_cpu_widen16 and lib.ptosim_run   # the cube's hooks are in it
    assert lib.pto_cpu_op_gm and lib.pto_cpu_op_elementwise and lib.pto_cpu_op_reduce   # the operations' too


def _defined_symbols(obj) -> set:
    out = subprocess.run(["nm", "--defined-only", "-g", str(obj)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in out.stdout.splitlines() if line.strip()}


def test_the_reductions_are_a_unit_of_their_own():
    # each hook is defined by exactly one of the two operations units (a duplicate would not link;
    # a missing one would leave the kernels' weak reference empty)
    driver.library_path()
    objs = {os.path.basename(str(u.source)): build.cached_object(build._unit_job(u)) for u in driver.LIBRARY_UNITS}
    ops, red = _defined_symbols(objs["ptosim_ops.cpp"]), _defined_symbols(objs["ptosim_ops_reduce.cpp"])
    assert {s for s in red if s.startswith("pto_cpu_op_")} == {"pto_cpu_op_reduce"}
    assert "pto_cpu_op_reduce" not in ops and {"pto_cpu_op_elementwise", "pto_cpu_op_gm", "pto_cpu_op_cvt",
                                                 "pto_cpu_op_copy", "pto_cpu_op_matmul", "pto_cpu_op_fifo"} <= ops


def test_a_units_optimisation_level_replaces_the_base_one():
    base = build._flag_list((), ())
    assert "-O2" in base
    own = build._flag_list((), ("-O1", "-Werror"))
    assert "-O1" in own and "-O2" not in own and own.count("-O1") == 1
    # libptosim: the runtime at -O1 (its compile is the longest of a first run), the operations but the
    # reductions at -O1 with the vectoriser, the cube's kernel and the reductions at -O2
    flags = {os.path.basename(str(u.source)): build._flag_list(u.defines, u.extra_flags) for u in driver.LIBRARY_UNITS}
    assert "-O1" in flags["ptosim.cpp"] and "-O2" not in flags["ptosim.cpp"]
    assert "-O2" in flags["ptosim_cube.cpp"] and "-O2" in flags["ptosim_ops_reduce.cpp"]
    ops = flags["ptosim_ops.cpp"]
    assert "-O2" not in ops and {"-O1", "-ftree-vectorize", "-fstrict-aliasing"} <= set(ops)
