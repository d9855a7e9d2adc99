"""The SIMT anchor header: written into the tree, compiles for the CPU simulator, and in a
mock device build keeps its branch, its static linkage and both vector-function uses."""
from __future__ import annotations

import ctypes
import subprocess

import pytest

from ptokit.launch import elf_meta, write_anchor_header
from ptokit.launch.simt_anchor import ANCHOR_HEADER_NAME, FORCE_SIMT_ANCHOR_SLOT

KERNEL = """\
#include <cstdint>
#include "ptokit_simt_anchor.h"
extern "C" __attribute__((always_inline)) inline void kernel_body(__gm__ int64_t* args) { args[0] += 1; }
extern "C" void vec_dispatch_mix_aiv(__gm__ int64_t* args)
{
    PTOKIT_SIMT_ANCHOR(args);
    kernel_body(args);
}
"""

# Just enough of the device spellings for g++ to compile the device branch.
MOCK_DEVICE = """\
#include <cstdint>
#define __simt_vf__
#define __simd_vf__
#define __launch_bounds__(n)
#define __ubuf__
struct dim3 { unsigned x, y, z; dim3(unsigned a, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
struct ThreadIdx { unsigned x; };
extern ThreadIdx threadIdx;
typedef float vector_float __attribute__((vector_size(256)));
typedef bool vector_bool;
extern "C" bool asc_update_mask_b32(uint32_t& n);
extern "C" void mock_vf_launch(const void* fn, int nargs);
template <typename R, typename P> inline void asc_loadalign(R& r, P p) { r = *reinterpret_cast<R*>(p); }
template <typename P, typename R> inline void asc_storealign(P p, R& r, bool) { *reinterpret_cast<R*>(p) = r; }
template <auto F, typename... A> inline void asc_vf_call(A...) { mock_vf_launch((const void*)F, sizeof...(A)); }
"""


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    out = tmp_path_factory.mktemp("a5tree")
    path = write_anchor_header(out)
    (path.parent / "k.cpp").write_text(KERNEL)
    return out


def test_written_where_the_tree_expects(tree):
    path = tree / "kernels" / "aiv" / ANCHOR_HEADER_NAME
    text = path.read_text()
    assert "static __simt_vf__" in text               # static linkage of the SIMT side
    assert "__simd_vf__" in text and "asc_loadalign" in text   # a SIMD vector op too: MIX
    assert "always_inline" in text
    assert "if (*force_simt_anchor != 0)" in text     # branch on a value loaded from GM
    assert f"#define PTOKIT_FORCE_SIMT_ANCHOR_SLOT {FORCE_SIMT_ANCHOR_SLOT}" in text
    assert write_anchor_header(tree) == path and path.read_text() == text  # idempotent


def test_cpu_sim_build_is_a_noop(tree, tmp_path):
    so = tmp_path / "k.so"
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-O2", "-fPIC", "-shared", "-D__CPU_SIM",
                    "-D__DAV_VEC__", str(tree / "kernels" / "aiv" / "k.cpp"), "-o", str(so)], check=True)
    lib = ctypes.CDLL(str(so))
    args = (ctypes.c_int64 * 64)()
    args[FORCE_SIMT_ANCHOR_SLOT] = 1   # even when set, nothing runs on the CPU
    lib.vec_dispatch_mix_aiv(args)
    assert args[0] == 1
    syms = elf_meta.read_function_symbols(so.read_bytes())
    assert not any("anchor" in s.name for s in syms)


def test_mock_device_build_keeps_the_anchor(tree, tmp_path):
    mock = tmp_path / "mock_device.h"
    mock.write_text(MOCK_DEVICE)
    obj = tmp_path / "k.o"
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-O2", "-fPIC", "-c", "-include", str(mock),
                    str(tree / "kernels" / "aiv" / "k.cpp"), "-o", str(obj)], check=True)
    syms = elf_meta.read_function_symbols(obj.read_bytes())
    globals_ = {s.name for s in syms if s.bind == "GLOBAL"}
    locals_ = {s.name for s in syms if s.bind == "LOCAL"}
    # exactly the entry is exported; the vector functions survive -O2 (branch not folded) as LOCAL
    assert globals_ == {"vec_dispatch_mix_aiv"}
    assert any("ptokit_simt_anchor_vf" in n for n in locals_)
    assert any("ptokit_simd_anchor_vf" in n for n in locals_)
    # inlined into the entry: no out-of-line copy of the anchor wrapper itself
    assert not any(n.endswith("ptokit_simt_anchor") or "ptokit_simt_anchorPK" in n for n in globals_ | locals_)
    # the entry really calls the launcher (the dead branch stayed)
    dis = subprocess.run(["objdump", "-dr", str(obj)], capture_output=True, text=True).stdout
    assert "mock_vf_launch" in dis
