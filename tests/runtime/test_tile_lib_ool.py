"""The tile library's out-of-line operations (pto/cpu/op_refs.hpp): the simulator builds its
kernels with them, such a kernel calls the runtime library's loops instead of instantiating its
own, and one loaded where nothing defines them fails naming the instruction. That they give the
inlined instructions' bits: test_tile_lib.py::test_out_of_line_bits."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ptokit.runtime import compilers
from tile_lib_util import CASES, compile_cxx, finish

OPS_HOOKS = ("pto_cpu_op_assign", "pto_cpu_op_gm", "pto_cpu_op_elementwise", "pto_cpu_op_fifo")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    d = tmp_path_factory.mktemp("tile_ool")
    jobs = {kind: compile_cxx([CASES / "hook_kernel.cpp"], d / f"{kind}.so", opt="-O2",
                              extra=("-D__DAV_CUBE__",) + extra)
            for kind, extra in (("inline", ()), ("out_of_line", ("-DPTO_CPU_OOL_OPS",)))}
    for p in jobs.values():
        finish(p)
    return {kind: d / f"{kind}.so" for kind in jobs}


def undefined(so: Path) -> set:
    out = subprocess.run(["nm", "-D", "--undefined-only", str(so)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in out.stdout.splitlines() if line.strip()}


def test_simulator_kernels_are_built_with_the_out_of_line_operations():
    if compilers.vendor_include() is not None:
        pytest.skip("kernels are built against the vendor's tile library")
    defines, _ = compilers.kernel_flags(Path("k.cpp"))
    assert "PTO_CPU_OOL_OPS" in defines


def test_kernel_calls_the_runtime_library_instead_of_its_own_loops(kernels):
    assert set(OPS_HOOKS) <= undefined(kernels["out_of_line"])
    assert not set(OPS_HOOKS) & undefined(kernels["inline"])


def test_kernel_has_no_fifo_bodies_of_its_own(kernels):
    """A kernel built with the define hands its TPUSH / TPOP transfers to pto_cpu_op_fifo (above)
    and compiles no copy of the FIFO's push and pop bodies; without the define it does."""
    def defined(so):
        out = subprocess.run(["nm", "-C", "--defined-only", str(so)], capture_output=True, text=True, check=True)
        return out.stdout
    assert "fifo_push_tile" not in defined(kernels["out_of_line"])
    assert "fifo_pop_tile" not in defined(kernels["out_of_line"])
    assert "fifo_push_tile" in defined(kernels["inline"])


def test_missing_operations_fail_naming_the_instruction(kernels):
    code = ("import ctypes, sys\n"
            "k = ctypes.CDLL(sys.argv[1])\n"
            "buf = (ctypes.c_float * 512)()\n"
            "out = ctypes.c_void_p()\n"
            "args = (ctypes.c_int64 * 2)(ctypes.addressof(buf), ctypes.addressof(out))\n"
            "k.k_tile_addr(args)\n")
    p = subprocess.run([sys.executable, "-c", code, str(kernels["out_of_line"])], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode != 0
    assert "PTO fatal [TASSIGN]: the runtime library does not provide the tile library's out-of-line operations" \
        in p.stderr
    p = subprocess.run([sys.executable, "-c", code, str(kernels["inline"])], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr


def test_runtime_library_exports_only_the_hooks():
    """libptosim exports the operations' extern "C" hooks, not the tile library's C++ functions:
    a kernel (or a stand-alone object) loaded after it keeps its own copies, built with its own
    defines, instead of binding to the runtime library's."""
    from ptokit.runtime.sim import driver
    out = subprocess.run(["nm", "-D", "--defined-only", str(driver.library_path())], capture_output=True, text=True,
                         check=True).stdout
    names = {line.split()[-1] for line in out.splitlines() if line.strip()}
    assert {"pto_cpu_op_gm", "pto_cpu_op_elementwise", "pto_cpu_op_matmul", "pto_cpu_op_fifo"} <= names
    # the instructions' C++ loops (the runtime's own users of the library, the cube's blocked
    # kernel and the shared-memory atomics, are not this test's)
    loops = ("elementwise", "binary_run", "unary_run", "reduce", "expand", "copy_block", "convert", "load_rows",
             "store_rows", "check_region", "matmul", "bind_bytes", "assign_value")
    assert not [n for n in names if n.startswith("_ZN3pto") and any(w in n for w in loops)]
