"""Golden .pto modules and wrapped kernels of split mixed kernels (both vector lanes at work), a
-Wall -Werror compile of every generated C++ file, and the wrapper rules on split programs.

Regenerate after an intended change with ``PTOKIT_UPDATE_GOLDEN=1 pytest tests/mixed`` and review the diff.
"""
import os
import subprocess
from pathlib import Path

import pytest

import ptokit

from .split_util import SP

GOLDEN = Path(__file__).parent / "golden"
INCLUDE = Path(ptokit.__file__).parent / "runtime" / "include"
CASES = {
    "split_up_down": SP.SplitSoftmax,          # UP_DOWN C->V, the function never calls get_subblock_idx
    "split_left_right_v2c": SP.SplitV2CLeftRight,   # LEFT_RIGHT V->C
    "split_both_dirs": SP.SplitMlp,            # UP_DOWN, both directions
    "split_spmd": SP.SplitSpmd,                # SPMD split kernel: lane after the block identity
}


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    out = {}
    for name, prog in CASES.items():
        d = tmp_path_factory.mktemp(name)
        ptokit.compile(prog, output_dir=d)
        out[name] = d
    return out


def _files(tree: Path):
    return sorted(list((tree / "ptoas").glob("*.pto")) + list((tree / "kernels").glob("*/*.cpp"))
                  + list((tree / "orchestration").glob("*.cpp")))


@pytest.mark.parametrize("case", list(CASES))
def test_golden(case, trees):
    tree = trees[case]
    for f in _files(tree):
        rel = f.relative_to(tree)
        g = GOLDEN / case / rel
        text = f.read_text()
        if os.environ.get("PTOKIT_UPDATE_GOLDEN"):
            g.parent.mkdir(parents=True, exist_ok=True)
            g.write_text(text)
        assert g.exists(), f"missing golden {g}; run with PTOKIT_UPDATE_GOLDEN=1"
        assert text == g.read_text(), f"{rel} differs from {g}"


@pytest.mark.parametrize("case", list(CASES))
def test_generated_cpp_is_warning_clean(case, trees):
    for f in _files(trees[case]):
        if f.suffix != ".cpp":
            continue
        flags = {"aic": ["-D__DAV_CUBE__"], "aiv": ["-D__DAV_VEC__"]}.get(f.parent.name, [])
        cmd = ["g++", "-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-D__CPU_SIM", *flags, f"-I{INCLUDE}", str(f)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, f"{f}:\n{r.stderr}"


def test_up_down_endpoints_and_private_lane(trees):
    t = trees["split_up_down"]
    pto = (t / "ptoas" / "mm_softmax.pto").read_text()
    aic, aiv = pto.split("func.func @mm_softmax_aiv")
    assert "pto.tpush_to_aiv(%" in aic and "{split = 1}" in aic
    # the vector side pops its [32, 64] half, frees with the same split, and has no lane guard
    assert "pto.tpop_from_aic {split = 1} -> !pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=64" in aiv
    assert "pto.tfree_from_aic {split = 1}" in aiv and "is_lane0" not in aiv and "scf.if" not in aiv
    assert "%__pypto_spmd_subblock_idx: i32" in aiv       # the lane, the only trailing parameter
    cpp = (t / "kernels" / "aiv" / "mm_softmax_aiv.cpp").read_text()
    # build guard: two-argument endpoint under the CPU simulation, three-argument (lane) on device
    sim, dev = cpp.split("#if defined(__CPU_SIM) || defined(__COSTMODEL)")[1].split("#else")[:2]
    assert "TileSplitAxis::TILE_UP_DOWN>(v6, v8);" in sim and "TileSplitAxis::TILE_UP_DOWN>(v6, v8, v5);" in dev
    assert "int32_t __pypto_spmd_subblock_idx = get_sub_block_id(args);" in cpp
    assert "mm_softmax_aiv(a, b, y, __gm_pipe_buffer, __pypto_spmd_subblock_idx);" in cpp
    aic_cpp = (t / "kernels" / "aic" / "mm_softmax_aic.cpp").read_text()
    assert "get_sub_block_id" not in aic_cpp and "TileSplitAxis::TILE_UP_DOWN>(v5, v16);" in aic_cpp


def test_left_right_v2c_pushes_from_both_lanes(trees):
    pto = (trees["split_left_right_v2c"] / "ptoas" / "prep_mm.pto").read_text()
    aic, aiv = pto.split("func.func @prep_mm_aiv")
    assert "%hm = pto.tpop_from_aiv {split = 2} -> !pto.tile_buf<loc=mat, dtype=f16, rows=64, cols=64" in aic
    assert "pto.tpush_to_aic(%h : !pto.tile_buf<loc=vec, dtype=f16, rows=64, cols=32" in aiv and "{split = 2}" in aiv
    assert "scf.if" not in aiv


def test_spmd_split_lane_after_block_identity(trees):
    t = trees["split_spmd"]
    aiv = (t / "kernels" / "aiv" / "mm_exp_aiv.cpp").read_text()
    assert "mm_exp_aiv(a, w, y, __gm_pipe_buffer, __pypto_spmd_block_idx, __pypto_spmd_block_num, " \
           "__pypto_spmd_subblock_idx);" in aiv
    assert "__gm_pipe_buffer += static_cast<int64_t>(__gm_pipe_buffer_tensor->shapes[0]) / " \
           "__pypto_spmd_block_num * __pypto_spmd_block_idx;" in aiv
    orch = (t / "orchestration" / "main.cpp").read_text()
    assert "set_block_num(4)" in orch
