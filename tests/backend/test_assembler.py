"""Built-in PTO assembler: golden outputs, C++ validity, and real execution of the goldens.

Regenerate the goldens with ``PTOKIT_UPDATE_GOLDEN=1 python -m pytest tests/backend/test_assembler.py``
and review the diff by eye.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ptokit.backend.assembler import assemble_text
from ptokit.cli import main as cli_main
from ptokit.pto.parser import parse
from ptokit.pto.printer import print_module
from ptokit.errors import AssemblerError

HERE = Path(__file__).parent
INPUTS = HERE / "pto_inputs"
GOLDEN = HERE / "golden" / "asm"
REPO = HERE.parent.parent
INCLUDE = REPO / "ptokit" / "runtime" / "include"
HAVE_HEADERS = (INCLUDE / "pto" / "pto-inst.hpp").is_file()
HAVE_GXX = shutil.which("g++") is not None
UPDATE = os.environ.get("PTOKIT_UPDATE_GOLDEN") == "1"

CASES = sorted(p.stem for p in INPUTS.glob("*.pto"))


def _level(name: str) -> str:
    return "level2" if "level2" in name else "level3"


def _assemble(name: str, **kw) -> str:
    path = INPUTS / f"{name}.pto"
    return assemble_text(path.read_text(), filename=path.name, level=_level(name), **kw)


def test_inputs_present():
    assert {"vadd", "scalar_op", "dyn_dim", "loop", "softmax", "matmul", "spmd_level2"} <= set(CASES)


@pytest.mark.parametrize("name", CASES)
def test_golden(name):
    cpp = _assemble(name)
    golden = GOLDEN / f"{name}.cpp"
    if UPDATE or not golden.exists():
        if not UPDATE:
            pytest.fail(f"missing golden {golden}; run with PTOKIT_UPDATE_GOLDEN=1")
        golden.write_text(cpp)
    assert cpp == golden.read_text()
    # deterministic
    assert _assemble(name) == cpp


@pytest.mark.parametrize("name", CASES)
def test_output_shape(name):
    cpp = _assemble(name)
    assert cpp.startswith('#include "pto/pto-inst.hpp"\nusing namespace pto;\n')
    assert "__global__ AICORE void " in cpp
    guard = "#if defined(__DAV_CUBE__)" if name == "matmul" else "#if defined(__DAV_VEC__)"
    assert guard in cpp
    assert cpp.rstrip().endswith("}")
    assert "pipe_barrier(PIPE_ALL);" in cpp
    nosync = _assemble(name, insert_sync=False)
    assert "set_flag" not in nosync and "pipe_barrier" not in nosync


def test_vadd_lowering_details():
    cpp = _assemble("vadd")
    assert "__global__ AICORE void vadd(__gm__ float* v1, __gm__ float* v2, __gm__ float* v3) {" in cpp
    tile = ("Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, "
            "PadValue::Null, CompactMode::Null>")
    assert f"{tile} v4 =\n      {tile}(32, 32);\n  TASSIGN(v4, 0);" in cpp
    assert "TASSIGN(v8, 4096);" in cpp and "TASSIGN(v12, 8192);" in cpp
    assert ("GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, "
            "pto::Layout::ND>(v1, v5, v6);") in cpp
    load = cpp.index("TLOAD(v8, v11);")
    add = cpp.index("TADD(v12, v4, v8);")
    assert "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);" in cpp[load:add]
    assert "// vadd.py:12" in cpp


def test_dynamic_dims_and_offsets():
    cpp = _assemble("loop")
    assert "int64_t v4) {" in cpp                                    # index param
    assert "pto::Shape<1, 1, 1, -1, 32>(1, 1, 1, v12, 32)" in cpp   # runtime extent
    assert "(v1 + v9 * 32, " in cpp                                  # base + offsets . strides
    # floordivsi is floor division, not C truncation
    assert "v5 / 16 - (((v5 % 16) != 0) && (v5 < 0))" in cpp
    assert "for (int64_t v8 = 0; v8 < v6; ++v8) {" in cpp
    assert "if (v11) {" in cpp and "} else {" in cpp


def test_level2_plans_memory():
    cpp = _assemble("spmd_level2")
    assert "TASSIGN(v7, 0);" in cpp and "TASSIGN(v11, 2048);" in cpp
    text = (INPUTS / "spmd_level2.pto").read_text()
    big = text.replace("rows=16, cols=32", "rows=192, cols=128")  # 96 KiB each
    with pytest.raises(AssemblerError) as ei:
        assemble_text(big, "big.pto", level="level2")
    assert "does not fit in the Vec buffer" in str(ei.value)
    assert ei.value.loc.line == text.splitlines().index(
        next(l for l in text.splitlines() if "%ty = pto.alloc_tile" in l)) + 1
    # a5 has a bigger UB: both fit
    ok = assemble_text(big, "big.pto", level="level2", arch="a5")
    assert re.search(r"TASSIGN\(v\d+, 98304\);", ok)   # (the v number depends on what the run absorbs)


def test_reprint_roundtrip(tmp_path):
    for name in CASES:
        text = (INPUTS / f"{name}.pto").read_text()
        again = print_module(parse(text, name))
        assert assemble_text(again, name, level=_level(name)).replace("// " + name, "") == \
            _assemble(name).replace("// " + name, "")


def test_cli_and_dumps(tmp_path, capsys):
    out = tmp_path / "o" / "vadd.cpp"
    dump = tmp_path / "passes"
    rc = cli_main(["ptoas", str(INPUTS / "vadd.pto"), "-o", str(out), "--enable-insert-sync", "--pto-level=level3",
                     "--pto-arch", "a3", "--mlir-print-ir-after-all", "--mlir-print-ir-module-scope",
                     f"--mlir-print-ir-tree-dir={dump}"])
    assert rc == 0
    assert "TADD(v12, v4, v8);" in out.read_text()
    names = sorted(p.name for p in dump.iterdir())
    assert names == ["00_parsed.mlir", "01_after_plan_memory.mlir", "02_emit.cpp"]
    assert parse((dump / "00_parsed.mlir").read_text()).funcs[0].name == "vadd"
    planned = tmp_path / "p"
    rc = cli_main(["ptoas", str(_as_a5(INPUTS / "spmd_level2.pto", tmp_path)), "-o", str(tmp_path / "s.cpp"),
                   "--pto-level=level2",
                     "--pto-arch", "a5", "--mlir-print-ir-after-all", f"--mlir-print-ir-tree-dir={planned}"])
    assert rc == 0
    after = (planned / "01_after_plan_memory.mlir").read_text()
    assert "addr = %__plan_2048_i64" in after
    assemble_text(after, "after.mlir")  # the dump is itself valid input
    bad = tmp_path / "bad.pto"
    bad.write_text((INPUTS / "vadd.pto").read_text().replace("pto.tadd", "pto.tadd_typo"))
    rc = cli_main(["ptoas", str(bad), "-o", str(tmp_path / "bad.cpp")])
    err = capsys.readouterr().err
    assert rc == 1
    assert err.startswith(f"ptokit ptoas: {bad}:19:3: error: unknown operation 'pto.tadd_typo'"), err
    assert not (tmp_path / "bad.cpp").exists()


def _as_a5(path, tmp_path):
    """A copy of an a2a3 input that declares a5 (``--pto-arch`` must match what a module declares)."""
    copy = tmp_path / f"{path.stem}_a5.pto"
    copy.write_text(path.read_text().replace('pto.target_arch = "a2a3"', 'pto.target_arch = "a5"'))
    return copy


def test_ptokit_cli_dispatch(tmp_path):
    out = tmp_path / "m.cpp"
    assert cli_main(["ptoas", str(_as_a5(INPUTS / "matmul.pto", tmp_path)), "-o", str(out), "--pto-arch", "a5"]) == 0
    assert "TMATMUL(v14, v12, v13);" in out.read_text()


def test_ptoas_refuses_an_arch_the_module_does_not_declare(tmp_path, capsys):
    out = tmp_path / "m.cpp"
    assert cli_main(["ptoas", str(INPUTS / "matmul.pto"), "-o", str(out), "--pto-arch", "a5"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ptokit ptoas: {INPUTS / 'matmul.pto'}:6:20: error: --pto-arch a5 given for a module "
                          f"written for a2a3 (pto.target_arch); assemble it with --pto-arch a3"), err
    assert not out.exists()
    assert cli_main(["ptoas", str(INPUTS / "matmul.pto"), "-o", str(out), "--pto-arch", "a2a3"]) == 0


def test_ptoas_errors_take_the_command_form(tmp_path, capsys):
    assert cli_main(["ptoas", str(tmp_path / "missing.pto"), "-o", str(tmp_path / "o.cpp")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ptokit ptoas: error: {tmp_path / 'missing.pto'}: No such file or directory"), err
    latin = tmp_path / "latin.pto"
    latin.write_bytes(b"\xff\xfe")
    assert cli_main(["ptoas", str(latin), "-o", str(tmp_path / "o.cpp")]) == 1
    assert capsys.readouterr().err.startswith(f"ptokit ptoas: error: cannot read {latin}: not UTF-8 text")


# --------------------------------------------------------------------------- C++ checks

needs_cxx = pytest.mark.skipif(not (HAVE_HEADERS and HAVE_GXX), reason="tile library headers or g++ not available")


@needs_cxx
@pytest.mark.parametrize("name", CASES)
def test_golden_compiles(name, tmp_path):
    cpp = tmp_path / f"{name}.cpp"
    cpp.write_text(_assemble(name))
    define = "-D__DAV_CUBE__" if name == "matmul" else "-D__DAV_VEC__"
    proc = subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-D__CPU_SIM", define,
                           "-I", str(INCLUDE), str(cpp)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


HARNESS = r"""
#include <cstdio>
#include <cstdint>
static void dump(const char* path, const float* p, int n) {
  FILE* f = fopen(path, "wb"); fwrite(p, sizeof(float), n, f); fclose(f);
}
static void load(const char* path, float* p, int n) {
  FILE* f = fopen(path, "rb"); if (fread(p, sizeof(float), n, f) != (size_t)n) {} fclose(f);
}
int main(int argc, char** argv) {
  (void)argc;
  const char* dir = argv[1];
  char path[1024];
  static float a[4096], b[4096], c[4096], z[4096];
  snprintf(path, sizeof path, "%s/a.bin", dir); load(path, a, 4096);
  snprintf(path, sizeof path, "%s/b.bin", dir); load(path, b, 4096);
#define OUT(name, n) snprintf(path, sizeof path, "%s/" name ".bin", dir); dump(path, c, n); for (int i = 0; i < 4096; ++i) c[i] = -7.0f;
  for (int i = 0; i < 4096; ++i) c[i] = -7.0f;
  vadd(a, b, c);               OUT("vadd", 1024)
  axpb(a, c, 0.5f);            OUT("scalar_op", 1024)
  rowexp(a, c, 20);            OUT("dyn_dim", 4096)
  blocked_add(a, b, c, 40);    OUT("loop", 4096)
  softmax(a, c);               OUT("softmax", 1024)
  matmul(a, b, c);             OUT("matmul", 1024)
  for (int blk = 0; blk < 4; ++blk) relu_blocks(a, c, blk, 4);
  OUT("spmd_level2", 2048)
  (void)z;
  return 0;
}
"""


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    d = tmp_path_factory.mktemp("asm_run")
    parts = []
    for name in CASES:
        (d / f"{name}.cpp").write_text(_assemble(name))
        parts.append(f'#include "{name}.cpp"')
    (d / "main.cpp").write_text("\n".join(parts) + HARNESS)
    exe = d / "run"
    proc = subprocess.run(["g++", "-std=c++17", "-O1", "-Wall", "-Werror", "-D__CPU_SIM", "-D__DAV_VEC__",
                           "-D__DAV_CUBE__", "-I", str(INCLUDE), "-I", str(d), str(d / "main.cpp"), "-o", str(exe)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rng = np.random.default_rng(7)
    a = rng.standard_normal(4096).astype(np.float32)
    b = rng.standard_normal(4096).astype(np.float32)
    a.tofile(d / "a.bin")
    b.tofile(d / "b.bin")
    proc = subprocess.run([str(exe), str(d)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = {name: np.fromfile(d / f"{name}.bin", dtype=np.float32) for name in CASES}
    return a.astype(np.float64), b.astype(np.float64), out


@needs_cxx
def test_goldens_execute_correctly(executed):
    a, b, out = executed
    np.testing.assert_allclose(out["vadd"], (a + b)[:1024], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["scalar_op"], a[:1024] * 0.5 + 1.5, rtol=1e-5, atol=1e-6)
    # dyn_dim: M = 20 rows of 64 -> exp of the first 20 rows, the rest untouched
    dyn = out["dyn_dim"]
    np.testing.assert_allclose(dyn[:20 * 64], np.exp(a[:20 * 64]), rtol=1e-5)
    assert np.all(dyn[20 * 64:] == -7.0)
    # loop: M = 40 rows of 32, blocks of 16 with a clamped last block
    loop = out["loop"]
    np.testing.assert_allclose(loop[:40 * 32], (a + b)[:40 * 32], rtol=1e-5, atol=1e-6)
    assert np.all(loop[40 * 32:] == -7.0)
    x = a[:1024].reshape(16, 64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out["softmax"].reshape(16, 64), e / e.sum(axis=1, keepdims=True), rtol=1e-5,
                               atol=1e-7)
    ma, mb = a[:1024].reshape(32, 32), b[:1024].reshape(32, 32)
    np.testing.assert_allclose(out["matmul"].reshape(32, 32), ma @ mb, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out["spmd_level2"], np.maximum(a[:2048], 0), rtol=1e-6)
