"""CPU tile library: error paths, the weak simulator hooks, the FIFO over hooks,
-Wall -Werror cleanliness."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tile_lib_util import CASES, CXX_FLAGS, INCLUDE, compile_cxx, finish


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("tile_errors")
    jobs = {
        "errors": compile_cxx([CASES / "tile_errors.cpp"], d / "tile_errors", shared=False),
        "runtime": compile_cxx([CASES / "fake_runtime.cpp"], d / "fake_runtime.so", extra=("-pthread",)),
        "kernel": compile_cxx([CASES / "hook_kernel.cpp"], d / "hook_kernel.so", opt="-O2", extra=("-D__DAV_CUBE__",)),
    }
    for p in jobs.values():
        finish(p)
    return {"errors": d / "tile_errors", "runtime": d / "fake_runtime.so", "kernel": d / "hook_kernel.so"}


def run_case(built, name):
    return subprocess.run([str(built["errors"]), name], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("case,instr,text", [
    ("capacity", "TASSIGN", "Vec tile of 4096 bytes at offset 186368 exceeds capacity 188416"),
    ("capacity_left", "TASSIGN", "Left tile of 65536 bytes at offset 128 exceeds capacity 65536"),
    ("negative", "TASSIGN", "Vec tile of 4096 bytes at offset -128 exceeds capacity"),
    ("misaligned", "TASSIGN", "Vec tile offset 64 is not 128-byte aligned"),
    ("oob_load", "TLOAD", "is outside every live buffer"),
    ("oob_store", "TSTORE", "is outside every live buffer"),
    ("shape_too_small", "TLOAD", "global tensor of 8x32 is smaller than the tile's valid region 32x32"),
    ("unbound", "TADD", "used before TASSIGN"),
    ("valid_too_big", "Tile", "valid rows 33 outside 0..32"),
    ("fifo_no_runtime", "TPUSH", "needs the simulator"),
])
def test_fatal_errors_abort_with_message(built, case, instr, text):
    r = run_case(built, case)
    assert r.returncode != 0
    assert f"PTO fatal [{instr}]: " in r.stderr
    assert text in r.stderr


def test_checked_access_in_bounds_passes(built):
    r = run_case(built, "ok")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok 1"


@pytest.fixture(scope="module")
def hooks(built):
    # A separate process: the fake runtime is loaded RTLD_GLOBAL and must not leak into pytest.
    r = subprocess.run([sys.executable, str(CASES / "hooks_driver.py"), str(built["runtime"]), str(built["kernel"])],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout)


def test_weak_hooks_resolve_to_runtime_core_buffers(hooks):
    assert hooks["tile_addr_failed"] == 0
    # the kernel .so's tile lives in the runtime's Vec buffer of core 1, at offset 256
    assert hooks["tile_addr"] == hooks["vec_base_core1"] + 256
    assert hooks["runtime_buffer_matches"] and hooks["gm_after"]


def test_runtime_fatal_and_gm_check_hooks(hooks):
    assert hooks["capacity"] == [1, "TASSIGN: Vec tile of 2048 bytes at offset 188416 exceeds capacity 188416"]
    failed, msg = hooks["oob"]
    assert failed == 1 and msg.startswith("TLOAD: global access of 1024 bytes") and "outside every live buffer" in msg
    assert hooks["in_bounds"] == [0, ""]


@pytest.mark.parametrize("case", ["c2v_nosplit", "c2v_updown", "c2v_leftright", "v2c"])
def test_fifo_over_hooks(hooks, case):
    runs, ok = hooks[case]
    assert all(r == [0, ""] for r in runs), runs
    assert ok


def test_fifo_timeout_is_an_error_naming_the_pipe(hooks):
    assert hooks["timeout"] == [1, "TPOP: timed out waiting on pipe 3 (C2V, lane 0)"]


@pytest.mark.parametrize("core", ["-D__DAV_VEC__", "-D__DAV_CUBE__"])
def test_small_kernel_is_warning_clean(tmp_path, core):
    """-Wall -Wextra -Werror on both core kinds (how long it takes is bench/run.py's business)."""
    out = tmp_path / "k.so"
    cmd = ["g++", "-std=c++17", "-O2", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror", "-D__CPU_SIM", core,
           f"-I{INCLUDE}", str(CASES / "small_kernel.cpp"), "-o", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 0


def test_header_compiles_standalone_and_as_c_hooks_header(tmp_path):
    # cpu_sim_hooks.h is valid C, and pto-inst.hpp needs nothing before it
    c = tmp_path / "h.c"
    c.write_text('#include "pto/cpu_sim_hooks.h"\nint main(void) { PtoCpuCore c; (void)c; return 0; }\n')
    r = subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", f"-I{INCLUDE}", str(c), "-o", str(tmp_path / "h")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cpp = tmp_path / "p.cpp"
    cpp.write_text('#include "pto/pto-inst.hpp"\nint main() { return 0; }\n')
    r = subprocess.run(["g++", *CXX_FLAGS, "-fsyntax-only", str(cpp)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
