"""Kernel wrapper: goldens, dynamic-dim inversion, compile and run through kernel_entry(args).

Regenerate goldens with ``PTOKIT_UPDATE_GOLDEN=1``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ptokit.backend.assembler import assemble_text
from ptokit.backend.wrapper import invert_dim_expr, preprocess_asm, wrap_kernel
from ptokit.codegen.abi import DynDim, KernelABI, ScalarArg, TensorArg
from ptokit.errors import CompileError

HERE = Path(__file__).parent
INPUTS = HERE / "pto_inputs"
GOLDEN = HERE / "golden" / "wrapper"
INCLUDE = HERE.parent.parent / "ptokit" / "runtime" / "include"
HAVE_HEADERS = all((INCLUDE / h).is_file() for h in ("pto/pto-inst.hpp", "tensor.h", "intrinsic.h"))
HAVE_GXX = shutil.which("g++") is not None
UPDATE = os.environ.get("PTOKIT_UPDATE_GOLDEN") == "1"


def asm(name: str) -> str:
    level = "level2" if "level2" in name else "level3"
    return assemble_text((INPUTS / f"{name}.pto").read_text(), f"{name}.pto", level=level)


CASES = {
    "plain": ("vadd", KernelABI("vadd", "aiv", (TensorArg("a", "FP32", "IN"), TensorArg("b", "FP32", "IN"),
                                               TensorArg("out", "FP32", "OUT")))),
    "scalar": ("scalar_op", KernelABI("axpb", "aiv", (TensorArg("x", "FP32", "IN"), TensorArg("y", "FP32", "OUT")),
                                      (ScalarArg("s", "FP32"),))),
    "dyn_dim": ("dyn_dim", KernelABI("rowexp", "aiv", (TensorArg("x", "FP32", "IN"), TensorArg("y", "FP32", "OUT")),
                                     dyn_dims=(DynDim("M", 0, 0, "M * 2"),))),
    "block_idx": ("spmd_level2", KernelABI("relu_blocks", "aiv", (TensorArg("x", "FP32", "IN"),
                                                                  TensorArg("y", "FP32", "OUT")), uses_block=True)),
    "cube": ("matmul", KernelABI("matmul", "aic", (TensorArg("a", "FP32", "IN"), TensorArg("b", "FP32", "IN"),
                                                  TensorArg("c", "FP32", "OUT")))),
}


def wrapped(case: str) -> str:
    src, abi = CASES[case]
    return wrap_kernel(asm(src), abi)


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case):
    text = wrapped(case)
    golden = GOLDEN / f"{case}.cpp"
    if UPDATE:
        golden.write_text(text)
    assert golden.exists(), f"missing {golden}; run with PTOKIT_UPDATE_GOLDEN=1"
    assert text == golden.read_text()
    assert wrapped(case) == text


def test_structure():
    text = wrapped("scalar")
    lines = text.splitlines()
    assert lines.index("#include <cstdint>") < lines.index("#include <pto/pto-inst.hpp>") < \
        lines.index('#include "tensor.h"')
    assert '#include "intrinsic.h"' not in text
    assert text.count("using namespace pto;") == 1
    assert text.count("pto-inst.hpp") == 1
    gen = lines.index("// --- ptoas-generated code ---")
    entry = lines.index("// --- Kernel entry point ---")
    assert gen < entry
    assert "static __aicore__ void axpb(__gm__ float* v1, __gm__ float* v2, float v3) {" in text
    assert "__global__" not in text and "AICORE" not in text.replace("__aicore__", "")
    assert "    union { uint64_t u64; float val; } s_conv;\n    s_conv.u64 = args[2];\n    float s = s_conv.val;" in text
    assert "    axpb(x, y, s);\n}" in text
    assert ("__gm__ float* x = reinterpret_cast<__gm__ float*>(x_tensor->buffer.addr) + x_tensor->start_offset;"
            in text)


def test_block_identity():
    text = wrapped("block_idx")
    assert '#include "intrinsic.h"' in text
    assert "int32_t __pypto_spmd_block_idx = get_block_idx(args);" in text
    assert "relu_blocks(x, y, __pypto_spmd_block_idx, __pypto_spmd_block_num);" in text
    # an SPMD sibling that does not use identity declares the locals but does not pass them
    src, abi = CASES["plain"]
    sib = wrap_kernel(asm(src), KernelABI("vadd", "aiv", abi.tensors, declares_block=True))
    assert "get_block_num(args);" in sib and "vadd(a, b, out);" in sib
    assert "(void)__pypto_spmd_block_idx;" in sib
    sub = wrap_kernel(asm(src).replace("__gm__ float* v3)", "__gm__ float* v3, int32_t v4)"),
                      KernelABI("vadd", "aiv", abi.tensors, uses_subblock=True))
    assert "int32_t __pypto_spmd_subblock_idx = get_sub_block_id(args);" in sub
    assert "vadd(a, b, out, __pypto_spmd_subblock_idx);" in sub
    assert "get_block_idx" not in sub


def test_preprocess():
    src = ('#include "pto/pto-inst.hpp"\n#include <cstdint>\nusing namespace pto;\n'
           'extern "C" __global__ AICORE void k(Tensor t, GlobalTensor<float> g) {}\n'
           '__global__ AICORE void j() {}\nAICORE inline int helper() { return 0; }\n')
    out = preprocess_asm(src)
    assert out.splitlines() == [
        "static __aicore__ void k(ChipTensor t, GlobalTensor<float> g) {}",
        "static __aicore__ void j() {}",
        "__aicore__ inline int helper() { return 0; }",
    ]


@pytest.mark.parametrize("expr", ["M", "M + 3", "M - 3", "3 + M", "100 - M", "M * 2", "4 * M", "M // 4", "(M*2)"])
def test_inversion(expr):
    x = "x"
    inv = invert_dim_expr(DynDim("M", 0, 0, expr), x)
    for m in (4, 8, 40, 64):
        shape = eval(expr, {"M": m})
        # C++ integer division of positive values == Python floor division
        got = eval(inv.replace("/", "//").replace("////", "//"), {"x": shape})
        assert got == (m if "//" not in expr else m - m % 4), (expr, inv)


@pytest.mark.parametrize("expr", ["M * M", "M % 3", "N + 1", "M + 1.5", "2 ** M", "M * 0", "M +", "-M"])
def test_non_invertible(expr):
    src, abi = CASES["dyn_dim"]
    bad = KernelABI(abi.name, abi.core_type, abi.tensors, dyn_dims=(DynDim("M", 0, 0, expr),))
    with pytest.raises(CompileError) as ei:
        wrap_kernel(asm(src), bad)
    assert f"'{expr}'" in str(ei.value) and "'M'" in str(ei.value)


def test_missing_function():
    with pytest.raises(CompileError):
        wrap_kernel(asm("vadd"), KernelABI("other", "aiv"))


needs_cxx = pytest.mark.skipif(not (HAVE_HEADERS and HAVE_GXX), reason="runtime headers or g++ not available")


@needs_cxx
@pytest.mark.parametrize("case", sorted(CASES))
def test_wrapped_compiles(case, tmp_path):
    f = tmp_path / f"{case}.cpp"
    f.write_text(wrapped(case))
    define = "-D__DAV_CUBE__" if CASES[case][1].core_type == "aic" else "-D__DAV_VEC__"
    proc = subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-D__CPU_SIM", define,
                           "-I", str(INCLUDE), str(f)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


HARNESS = r"""
#include <cstdio>
#include <cstring>
static ChipTensor make(float* p, uint32_t rows, uint32_t cols, uint64_t start) {
  ChipTensor t; std::memset(&t, 0, sizeof t);
  t.buffer.addr = reinterpret_cast<uint64_t>(p); t.buffer.size = 4096 * sizeof(float);
  t.start_offset = start; t.ndims = 2; t.shapes[0] = rows; t.shapes[1] = cols;
  t.strides[0] = cols; t.strides[1] = 1;
  return t;
}
int main(int, char** argv) {
  static float x[4096], y[4096], z[4096];
  FILE* f = fopen(argv[1], "rb"); if (fread(x, 4, 4096, f) != 4096) return 2; fclose(f);
  for (int i = 0; i < 4096; ++i) { y[i] = -7.0f; z[i] = -7.0f; }
  int64_t args[64] = {0};
  // dyn_dim: x.shape[0] = M * 2 = 40 -> M = 20 rows processed; x viewed from element 64 (start_offset)
  ChipTensor tx = make(x, 40, 64, 64), ty = make(y, 40, 64, 0);
  args[0] = (int64_t)&tx; args[1] = (int64_t)&ty;
  entry_dyn(args);
  // scalar: y2 = x * s + 1.5 with s = -2.0 passed as 64-bit pattern
  ChipTensor sx = make(x, 16, 64, 0), sz = make(z, 16, 64, 0);
  union { uint64_t u; float v; } conv; conv.u = 0; conv.v = -2.0f;
  int64_t sargs[64] = {0};
  sargs[0] = (int64_t)&sx; sargs[1] = (int64_t)&sz; sargs[2] = (int64_t)conv.u;
  entry_scalar(sargs);
  // block_idx: 4 blocks of 16 rows, identity from the LocalContext at args[48]
  static float w[4096]; for (int i = 0; i < 4096; ++i) w[i] = -7.0f;
  ChipTensor bx = make(x, 64, 32, 0), bw = make(w, 64, 32, 0);
  for (int b = 0; b < 4; ++b) {
    LocalContext lc; std::memset(&lc, 0, sizeof lc); lc.block_idx = b; lc.block_num = 4;
    GlobalContext gc; std::memset(&gc, 0, sizeof gc);
    int64_t bargs[64] = {0};
    bargs[0] = (int64_t)&bx; bargs[1] = (int64_t)&bw; bargs[48] = (int64_t)&lc; bargs[49] = (int64_t)&gc;
    entry_block(bargs);
  }
  f = fopen(argv[2], "wb"); fwrite(y, 4, 4096, f); fwrite(z, 4, 4096, f); fwrite(w, 4, 4096, f); fclose(f);
  return 0;
}
"""


@needs_cxx
def test_wrapped_kernels_run(tmp_path):
    parts = []
    for case, entry in (("dyn_dim", "entry_dyn"), ("scalar", "entry_scalar"), ("block_idx", "entry_block")):
        (tmp_path / f"{case}.cpp").write_text(wrapped(case))
        parts.append(f'#define kernel_entry {entry}\n#include "{case}.cpp"\n#undef kernel_entry')
    (tmp_path / "main.cpp").write_text("\n".join(parts) + HARNESS)
    exe = tmp_path / "run"
    proc = subprocess.run(["g++", "-std=c++17", "-O1", "-Wall", "-Werror", "-D__CPU_SIM", "-D__DAV_VEC__",
                           "-I", str(INCLUDE), "-I", str(tmp_path), str(tmp_path / "main.cpp"), "-o", str(exe)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    x = np.random.default_rng(3).standard_normal(4096).astype(np.float32)
    x.tofile(tmp_path / "x.bin")
    proc = subprocess.run([str(exe), str(tmp_path / "x.bin"), str(tmp_path / "out.bin")], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    y, z, w = np.fromfile(tmp_path / "out.bin", dtype=np.float32).reshape(3, 4096)
    np.testing.assert_allclose(y[:20 * 64], np.exp(x[64:64 + 20 * 64]), rtol=1e-5)
    assert np.all(y[20 * 64:] == -7.0)
    np.testing.assert_allclose(z[:1024], x[:1024] * -2.0 + 1.5, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w[:2048], np.maximum(x[:2048], 0))
    assert np.all(w[2048:] == -7.0)
