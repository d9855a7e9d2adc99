"""Golden .pto modules and wrapped kernels for SPMD identity and mixed (split) kernels, and a
-Wall -Werror compile of every generated C++ file.

Regenerate after an intended change with ``PTOKIT_UPDATE_GOLDEN=1 pytest tests/mixed`` and review the diff.
"""
import os
import subprocess
from pathlib import Path

import pytest

import ptokit

from .mixed_util import P

GOLDEN = Path(__file__).parent / "golden"
INCLUDE = Path(ptokit.__file__).parent / "runtime" / "include"
CASES = {
    "block_idx": P.BlockRows,                       # vector kernel reading block identity
    "subblock": P.SubblockLane,                     # vector kernel reading its lane
    "spmd_sibling": P.SpmdSibling,                  # SPMD group, AIC member without block identity
    "split_mixed": P.MatmulExp,                     # matmul -> FIFO -> exp
    "split_loop_a5": (P.RowBlocksLoop, "a5sim"),    # loop around the boundary, no GM pipe on a5
    "split_v2c": P.ExplicitV2C,                     # vector -> cube only (dir_mask 2)
    "split_both": P.FusedMlp,                       # C2V then V2C in one group (dir_mask 3)
}


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    out = {}
    for name, case in CASES.items():
        prog, platform = case if isinstance(case, tuple) else (case, "a2a3sim")
        d = tmp_path_factory.mktemp(name)
        ptokit.compile(prog, output_dir=d, platform=platform)
        out[name] = d
    return out


def _files(tree: Path):
    return sorted([p for p in (tree / "ptoas").glob("*.pto")] + list((tree / "kernels").glob("*/*.cpp"))
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
    tree = trees[case]
    for f in _files(tree):
        if f.suffix != ".cpp":
            continue
        flags = {"aic": ["-D__DAV_CUBE__"], "aiv": ["-D__DAV_VEC__"]}.get(f.parent.name, [])
        cmd = ["g++", "-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-D__CPU_SIM", *flags,
               f"-I{INCLUDE}", str(f)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, f"{f}:\n{r.stderr}"


def test_split_structure(trees):
    t = trees["split_mixed"]
    pto = (t / "ptoas" / "mm_exp.pto").read_text()
    # one module, both functions, consumer reserves / producer imports, pipe over GM on a2a3
    assert pto.count("func.func @") == 2
    assert 'pto.reserve_buffer {name = "c2v_slot_buffer", size = 32768, location = #pto.address_space<vec>' in pto
    assert 'pto.import_reserved_buffer {name = "c2v_slot_buffer", peer_func = @mm_exp_aiv} -> i32' in pto
    assert "gm_slot_buffer = %arg3 : !pto.ptr<ui8>" in pto
    assert "pto.tpush_to_aiv(%acc" in pto and "pto.tpop_from_aic {split = 0}" in pto
    assert "%__pypto_spmd_subblock_idx: i32" in pto        # private lane parameter of the AIV side
    aiv = (t / "kernels" / "aiv" / "mm_exp_aiv.cpp").read_text()
    aic = (t / "kernels" / "aic" / "mm_exp_aic.cpp").read_text()
    assert "mm_exp_aic(" not in aiv and "mm_exp_aiv(" not in aic   # each file keeps its own function
    assert "#if defined(__CPU_SIM) || defined(__COSTMODEL)" in aiv and ", v5);" in aiv  # 3-arg device TPOP
    assert "__gm_pipe_buffer += static_cast<int64_t>(__gm_pipe_buffer_tensor->shapes[0]) / " \
           "__pypto_spmd_block_num * __pypto_spmd_block_idx;" in aic
    orch = (t / "orchestration" / "main.cpp").read_text()
    assert "MixedKernels mk_t0 = {0, 1, 1};" in orch and "rt_submit_task(mk_t0, params_t0);" in orch
    cfg = (t / "kernel_config.py").read_text()
    assert '"name": "mm_exp_aic"' in cfg and '"core_type": "aic"' in cfg and '"core_type": "aiv"' in cfg


def test_sibling_declares_but_does_not_pass_block_locals(trees):
    t = trees["spmd_sibling"]
    aic = (t / "kernels" / "aic" / "scaled_aic.cpp").read_text()
    aiv = (t / "kernels" / "aiv" / "scaled_aiv.cpp").read_text()
    assert "int32_t __pypto_spmd_block_idx = get_block_idx(args);" in aic
    assert "(void)__pypto_spmd_block_idx;" in aic
    assert "scaled_aic(a, w, y, __gm_pipe_buffer);" in aic
    assert "scaled_aiv(a, w, y, __gm_pipe_buffer, __pypto_spmd_block_idx, __pypto_spmd_block_num, " \
           "__pypto_spmd_subblock_idx);" in aiv
    orch = (t / "orchestration" / "main.cpp").read_text()
    assert "{32768u * static_cast<uint32_t>(4)}" in orch and "set_block_num(4)" in orch


def test_a5_has_no_gm_pipe(trees):
    pto = (trees["split_loop_a5"] / "ptoas" / "rows.pto").read_text()
    assert "gm_slot_buffer" not in pto and "__gm_pipe_buffer" not in (
        trees["split_loop_a5"] / "kernels" / "aiv" / "rows_aiv.cpp").read_text()
    assert "scf.for" in pto and pto.count("pto.tpop_from_aic") == 1 and pto.count("pto.tpush_to_aiv") == 1


def test_v2c_structure(trees):
    pto = (trees["split_v2c"] / "ptoas" / "vexp_mm.pto").read_text()
    aic, aiv = pto.split("func.func @vexp_mm_aiv")
    # the consumer (cube) reserves its slots in Mat after its planned tiles; the producer imports them
    assert ('%v2c_slot_buffer = pto.reserve_buffer {name = "v2c_slot_buffer", size = 8192, '
            'location = #pto.address_space<mat>, auto = false, base = 4096} -> i32') in aic
    assert ('pto.aic_initialize_pipe {dir_mask = 2, slot_size = 4096, slot_num = 2} (gm_slot_buffer = %arg3 : '
            '!pto.ptr<ui8>, c2v_consumer_buf = %c0_i32 : i32, v2c_consumer_buf = %v2c_slot_buffer : i32)') in aic
    assert '%v2c_slot_buffer = pto.import_reserved_buffer {name = "v2c_slot_buffer", peer_func = @vexp_mm_aic}' in aiv
    assert "pto.aiv_initialize_pipe {dir_mask = 2," in aiv and "c2v_slot_buffer" not in pto
    assert "%m = pto.tpop_from_aiv {split = 0} -> !pto.tile_buf<loc=mat, dtype=f16, rows=32, cols=64" in aic
    assert aic.index("pto.tfree_from_aiv {split = 0}") > aic.index("outs(%tl")      # freed after its last use
    # both lanes push (lane 1's tile is the "empty push" the cube drops): the push is outside the lane guard
    guard_end = aiv.rindex("  }\n  pto.tpush_to_aic(")
    assert aiv.count("scf.if %is_lane0") == 1 and guard_end > aiv.index("scf.if %is_lane0")
    aic_cpp = (trees["split_v2c"] / "kernels" / "aic" / "vexp_mm_aic.cpp").read_text()
    assert "TPipe<0, Direction::DIR_V2C, 4096, 2, 2, true>" in aic_cpp and "TASSIGN(" in aic_cpp
    orch = (trees["split_v2c"] / "orchestration" / "main.cpp").read_text()
    assert "gm_pipe_t0_shapes[1] = {8192u}" in orch


def test_both_directions_structure(trees):
    t = trees["split_both"]
    pto = (t / "ptoas" / "mlp.pto").read_text()
    assert pto.count("dir_mask = 3, slot_size = 16384, slot_num = 4") == 2       # 4 slots per direction
    assert 'location = #pto.address_space<vec>, auto = false, base = 24576}' in pto
    assert 'location = #pto.address_space<mat>, auto = false, base = 8192}' in pto
    assert pto.count("c2v_consumer_buf = %c2v_slot_buffer : i32, v2c_consumer_buf = %v2c_slot_buffer : i32") == 2
    orch = (t / "orchestration" / "main.cpp").read_text()
    assert "gm_pipe_t0_shapes[1] = {131072u}" in orch      # both directions' slots through GM on a2a3
