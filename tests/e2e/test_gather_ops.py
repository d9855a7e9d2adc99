"""Gathers and scatters against numpy, for every dtype each op takes, on partial valid regions,
with duplicate scatter indices (the last write in row-major order wins), the mgather
out-of-range modes, and every out-of-range index as a run-time error naming the instruction, the
index and the kernel, under both runtime kinds."""
import re

import ml_dtypes
import numpy as np
import pytest

import ptokit
from ptokit.errors import RuntimeFailure

from . import gather_programs as gp

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
R, C, IC, SC = gp.R, gp.C, gp.IC, gp.SC
BF16 = ml_dtypes.bfloat16
_TREES = {}


# Gathers takes INT16 indices (by_index's last gather): an a5 form (on a2a3 the real assembler wants i32
# indices, test_int16_indices_are_an_a5_form), so it is built for a5
PLATFORM = {"Gathers": "a5sim"}


def tree(program, runtime, tmp_path_factory):
    if (program, runtime) not in _TREES:
        out = tmp_path_factory.mktemp(f"gather_{program.name}_{runtime}")
        _TREES[program, runtime] = ptokit.compile(program, output_dir=out, runtime=runtime,
                                                  platform=PLATFORM.get(program.name, "a2a3sim"))
    return _TREES[program, runtime]


def test_int16_indices_are_an_a5_form(tmp_path):
    from ptokit.errors import CompileError
    with pytest.raises(CompileError) as info:
        ptokit.compile(gp.Gathers, output_dir=tmp_path / "a2a3", platform="a2a3sim")
    assert info.value.message.startswith("'pto.tgather' op expects indices element type to be i32")
    assert "pl.load(idx16" in info.value.loc.source_line


def rng(seed):
    return np.random.default_rng(seed)


def fails(call, *patterns):
    with pytest.raises(RuntimeFailure) as ei:
        call()
    msg = ei.value.message
    assert ei.value.code == 101, msg
    for p in patterns:
        assert re.search(p, msg), msg
    return msg


# ----------------------------------------------------------------------------- tile gathers

def gather_inputs(seed=0, bad=None):
    g = rng(seed)
    srcs = [g.standard_normal((R, C)).astype(np.float32), g.standard_normal((R, C)).astype(np.float16),
            g.integers(-30000, 30000, (R, C)).astype(np.int16), g.integers(-2**31, 2**31 - 1, (R, C)).astype(np.int32)]
    idx = g.integers(0, R * C, (R, IC)).astype(np.int32)
    idx16 = g.integers(0, R * C, (R, IC)).astype(np.int16)
    off = (g.integers(0, R * C * 4 // 32, (R, 8)) * 32).astype(np.uint32)
    if bad is not None:
        name, where, value = bad
        {"idx": idx, "idx16": idx16, "off": off}[name][where] = value
    return srcs, idx, idx16, off


def gather_outputs():
    by_index = [np.full((R, IC), 9, d) for d in (np.float32, np.float16, np.int16, np.int32, np.float16)]
    masks = [np.zeros((R, n), np.float32) for n in (32, 32, 16, 16, 16, 16, 64)] + [
        np.zeros((R, 32), np.uint32), np.zeros((R, 16), np.float16), np.zeros((R, 16), np.uint16),
        np.zeros((R, 32), np.int32), np.full((R, 16), 9, np.float32),
        np.zeros((R, 64), np.float32), np.zeros((R, 128), np.float16)]
    return by_index, masks


def run_gathers(runtime, tmp_path_factory, **kw):
    srcs, idx, idx16, off = gather_inputs(**kw)
    by_index, masks = gather_outputs()
    tree(gp.Gathers, runtime, tmp_path_factory)(*srcs, idx, idx16, off, *by_index, *masks)
    return srcs, idx, idx16, off, by_index, masks


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_gather_by_flat_offset_every_dtype(runtime, tmp_path_factory):
    srcs, idx, idx16, _, by_index, _ = run_gathers(runtime, tmp_path_factory)
    for src, out in zip(srcs, by_index[:4]):
        want = np.full((R, IC), 9, src.dtype)
        want[:6, :24] = src.reshape(-1)[idx[:6, :24]]       # the index tile's valid region
        assert np.array_equal(out, want), src.dtype
    assert np.array_equal(by_index[4], srcs[1].reshape(-1)[idx16])   # INT16 indices with a 16-bit source


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_gather_mask_every_pattern_and_gatherb(runtime, tmp_path_factory):
    srcs, _, _, off, _, m = run_gathers(runtime, tmp_path_factory)
    f32, f16, i16, i32 = srcs
    cols = {1: slice(0, None, 2), 2: slice(1, None, 2), 3: slice(0, None, 4), 4: slice(1, None, 4),
            5: slice(2, None, 4), 6: slice(3, None, 4), 7: slice(None)}
    for p in range(1, 8):
        assert np.array_equal(m[p - 1], f32[:, cols[p]]), p
    assert np.array_equal(m[7], f32.view(np.uint32)[:, 1::2])     # output_dtype: the same bits as UINT32
    assert np.array_equal(m[8], f16[:, 0::4])
    assert np.array_equal(m[9], i16.view(np.uint16)[:, 3::4])
    assert np.array_equal(m[10], i32[:, 0::2])
    want = np.full((R, 16), 9, np.float32)
    want[:5, :7] = f32[:5, 2:30:4]                                # valid [5, 30]: columns 2, 6, ..., 26
    assert np.array_equal(m[11], want)
    flat = f32.reshape(-1)
    blocks = np.stack([np.concatenate([flat[o // 4:o // 4 + 8] for o in row]) for row in off])
    assert np.array_equal(m[12], blocks)
    assert np.array_equal(m[13].view(np.uint16), blocks.view(np.uint16))   # the same 32-byte blocks as FP16


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_out_of_range_gather_indices_are_runtime_errors(runtime, tmp_path_factory):
    fails(lambda: run_gathers(runtime, tmp_path_factory, bad=("idx", (2, 5), R * C)),
          r"kernel 'by_index'", rf"TGATHER: index {R * C} at indices\[2, 5\] is outside the {R}x{C} source tile")
    fails(lambda: run_gathers(runtime, tmp_path_factory, bad=("idx16", (0, 3), -1)),
          r"TGATHER: index -1 at indices\[0, 3\]")
    fails(lambda: run_gathers(runtime, tmp_path_factory, bad=("off", (1, 2), 2048)),
          r"kernel 'by_mask'", r"TGATHERB: byte offset 2048 at offset\[1, 2\] is not a 32-byte block of the 2048-byte")
    fails(lambda: run_gathers(runtime, tmp_path_factory, bad=("off", (4, 0), 40)), r"TGATHERB: byte offset 40 at")


def test_an_index_outside_the_valid_region_is_not_read(tmp_path_factory):
    # idx[7, 30] lies outside the [6, 24] valid region of the index tile: never used, so no error
    srcs, idx, _, _, by_index, _ = run_gathers(RUNTIMES[0], tmp_path_factory, bad=("idx", (7, 30), 10 ** 6))
    assert np.array_equal(by_index[0][:6, :24], srcs[0].reshape(-1)[idx[:6, :24]])
    assert (by_index[0][6:] == 9).all()


# ----------------------------------------------------------------------------- tile scatters

def scatter_inputs(seed=1, bad=None):
    g = rng(seed)
    d32 = g.standard_normal((R, C)).astype(np.float32)
    s32 = g.standard_normal((R, SC)).astype(np.float32)
    ix32 = g.integers(0, R * C, (R, SC)).astype(np.int32)
    ix32[1, 3] = ix32[0, 0]                       # duplicates: the later one (row-major) wins
    ix32[6, 11] = ix32[0, 0]
    ix32[7, 15] = ix32[0, 1]                      # outside the [7, 12] valid region: not scattered
    di = g.integers(-1000, 1000, (R, C)).astype(np.int32)
    si = g.integers(-1000, 1000, (R, SC)).astype(np.int32)
    d16 = g.standard_normal((R, C)).astype(np.float16)
    s16 = g.standard_normal((R, SC)).astype(np.float16)
    ix16 = g.permutation(R * C)[:R * SC].reshape(R, SC).astype(np.int16)
    ix16[5, 5] = ix16[2, 2]
    db = g.standard_normal((R, C)).astype(BF16)
    sb = g.standard_normal((R, SC)).astype(BF16)
    dh = g.integers(-3000, 3000, (R, C)).astype(np.int16)
    sh = g.integers(-3000, 3000, (R, SC)).astype(np.int16)
    d8 = g.integers(-100, 100, (R, C)).astype(np.int8)
    s8 = g.integers(-100, 100, (R, 32)).astype(np.int8)
    ix8 = g.integers(0, R * C, (R, 32)).astype(np.int16)
    sm = g.standard_normal((R, 32)).astype(np.float32)
    ins = dict(d32=d32, s32=s32, ix32=ix32, di=di, si=si, d16=d16, s16=s16, ix16=ix16, db=db, sb=sb, dh=dh, sh=sh,
               d8=d8, s8=s8, ix8=ix8, sm=sm)
    if bad is not None:
        name, where, value = bad
        ins[name][where] = value
    return ins


def scatter_ref(dst, src, idx, vr=None, vc=None):
    out = dst.copy().reshape(-1)
    vr = idx.shape[0] if vr is None else vr
    vc = idx.shape[1] if vc is None else vc
    for r in range(vr):
        for c in range(vc):
            out[idx[r, c]] = src[r, c]
    return out.reshape(dst.shape)


def run_scatters(runtime, tmp_path_factory, **kw):
    ins = scatter_inputs(**kw)
    outs = [np.zeros((R, C), d) for d in (np.float32, np.int32, np.float16, BF16, np.int16, np.int8)]
    outs += [np.full((R, C), 5, np.float32), np.zeros((R, C), np.float32)]
    tree(gp.Scatters, runtime, tmp_path_factory)(*ins.values(), *outs)
    return ins, outs


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_scatter_every_dtype_with_duplicate_indices(runtime, tmp_path_factory):
    i, (o32, oi, o16, ob, oh, o8, om1, om2) = run_scatters(runtime, tmp_path_factory)
    assert np.array_equal(o32, scatter_ref(i["d32"], i["s32"], i["ix32"], 7, 12))
    assert o32.reshape(-1)[i["ix32"][0, 0]] == i["s32"][6, 11]       # the last duplicate won
    assert np.array_equal(oi, scatter_ref(i["di"], i["si"], i["ix32"], 7, 12))
    assert np.array_equal(o16, scatter_ref(i["d16"], i["s16"], i["ix16"]))
    assert np.array_equal(ob.view(np.uint16), scatter_ref(i["db"], i["sb"], i["ix16"]).view(np.uint16))
    assert np.array_equal(oh, scatter_ref(i["dh"], i["sh"], i["ix16"]))
    assert np.array_equal(o8, scatter_ref(i["d8"], i["s8"], i["ix8"]))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_scatter_mask_fills_the_marked_columns_and_zeroes_the_rest(runtime, tmp_path_factory):
    i, outs = run_scatters(runtime, tmp_path_factory)
    om1, om2 = outs[6], outs[7]
    want = np.zeros((R, C), np.float32)
    want[:, 0:60:2] = i["sm"][:, :30]             # P0101 over the [8, 60] valid region
    want[:, 60:] = 5                              # outside the valid region: not stored
    assert np.array_equal(om1, want)
    want = np.zeros((R, C), np.float32)
    want[:, 1::2] = i["sm"]
    assert np.array_equal(om2, want)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_out_of_range_scatter_indices_are_runtime_errors(runtime, tmp_path_factory):
    fails(lambda: run_scatters(runtime, tmp_path_factory, bad=("ix32", (3, 4), R * C + 7)),
          r"kernel 'k'", rf"TSCATTER: index {R * C + 7} at indexes\[3, 4\] is outside the {R}x{C} destination tile")
    fails(lambda: run_scatters(runtime, tmp_path_factory, bad=("ix8", (0, 31), -2)),
          r"TSCATTER: index -2 at indexes\[0, 31\]")


# ----------------------------------------------------------------------------- global memory

TR, TC = gp.TR, gp.TC


def gm_inputs(seed=2, **over):
    g = rng(seed)
    ins = dict(table=g.standard_normal((TR, TC)).astype(np.float32),
               itab=g.integers(-1000, 1000, (TR, TC)).astype(np.int16),
               rows=np.array([[3, 0, 63, 17, 17, 40, 8, 1]], np.int32), rows_col=None,
               orows=np.array([[3, 70, 63, -3, 64, 40, -64, -65]], np.int32),
               elems=g.integers(0, TR * TC, (R, 16)).astype(np.int32),
               oelems=g.integers(-3 * TR * TC, 3 * TR * TC, (R, 16)).astype(np.int32),
               sidx=g.permutation(TR * TC)[:R * 16].reshape(R, 16).astype(np.int32),
               src=g.standard_normal((R, 16)).astype(np.float32),
               htab=g.standard_normal((TR, TC)).astype(np.float16),
               itab32=g.integers(-2**31, 2**31 - 1, (TR, TC)).astype(np.int32))
    ins["sidx"][2, 2] = ins["sidx"][0, 1]            # a duplicate: the later write (row-major) wins
    ins.update(over)
    ins["rows_col"] = ins["rows"].reshape(8, 1).copy()
    return ins


def run_gm(runtime, tmp_path_factory, **over):
    ins = gm_inputs(**over)
    more = [np.zeros((R, 16), np.float16), np.zeros((R, 16), np.int32), np.full((TR, TC), 3.0, np.float16)]
    outs = [np.zeros((8, TC), np.float32) for _ in range(5)] + [np.full((R, 16), 4, np.float32),
                                                                np.zeros((R, 16), np.float32),
                                                                np.zeros((8, TC), np.int16)]
    out = np.full((TR, TC), -1.0, np.float32)
    tree(gp.GlobalGathers, runtime, tmp_path_factory)(*ins.values(), *more, *outs, out)
    ins["more"] = more
    return ins, outs, out


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_mgather_rows_elements_oob_modes_and_mscatter(runtime, tmp_path_factory):
    i, outs, out = run_gm(runtime, tmp_path_factory)
    g_row, g_col, g_clamp, g_wrap, g_zero, g_elem, g_ewrap, g_i16 = outs
    table, orows = i["table"], i["orows"][0]
    assert np.array_equal(g_row, table[i["rows"][0]])
    assert np.array_equal(g_col, table[i["rows"][0]])            # a [R, 1] index column
    assert np.array_equal(g_clamp, table[np.clip(orows, 0, TR - 1)])
    assert np.array_equal(g_wrap, table[orows % TR])
    inside = (orows >= 0) & (orows < TR)
    assert np.array_equal(g_zero, np.where(inside[:, None], table[np.clip(orows, 0, TR - 1)], 0))
    assert np.array_equal(g_i16, np.where(inside[:, None], i["itab"][np.clip(orows, 0, TR - 1)], 0))
    want = np.full((R, 16), 4, np.float32)
    want[:6] = table.reshape(-1)[i["elems"][:6]]                 # the index tile's valid rows
    assert np.array_equal(g_elem, want)
    assert np.array_equal(g_ewrap, table.reshape(-1)[i["oelems"] % (TR * TC)])
    want = np.full(TR * TC, -1.0, np.float32)
    for r in range(6):                                           # the source's valid rows
        for c in range(16):
            want[i["sidx"][r, c]] = i["src"][r, c]
    assert np.array_equal(out, want.reshape(TR, TC))
    assert out.reshape(-1)[i["sidx"][0, 1]] == i["src"][2, 2]
    g_h, g_i32, hout = i["more"]
    assert np.array_equal(g_h[:6], i["htab"].reshape(-1)[i["elems"][:6]])          # FP16 and INT32 element gathers
    assert np.array_equal(g_i32[:6], i["itab32"].reshape(-1)[i["elems"][:6]])
    want = np.full(TR * TC, 3.0, np.float16)
    for r in range(6):                                                            # FP16 mscatter
        for c in range(16):
            want[i["sidx"][r, c]] = g_h[r, c]
    assert np.array_equal(hout.reshape(-1), want)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_out_of_range_global_indices_are_runtime_errors(runtime, tmp_path_factory):
    msg = fails(lambda: run_gm(runtime, tmp_path_factory, rows=np.array([[3, 70, 63, 5, 17, 40, 8, 1]], np.int32)),
                r"kernel 'k'", rf"MGATHER: index 70 at idx\[0, 1\] is outside the {TR} rows of the source tensor "
                r"\(gather_oob=undefined\)")
    assert "task" in msg
    e = gm_inputs()["elems"]
    e[4, 9] = -1
    fails(lambda: run_gm(runtime, tmp_path_factory, elems=e),
          rf"MGATHER: index -1 at idx\[4, 9\] is outside the {TR * TC} elements of the source tensor")
    sidx = gm_inputs()["sidx"]
    sidx[5, 15] = TR * TC
    fails(lambda: run_gm(runtime, tmp_path_factory, sidx=sidx),
          rf"MSCATTER: index {TR * TC} at idx\[5, 15\] is outside the {TR * TC} elements of the destination tensor")


def test_mgather_pto_forms(tmp_path_factory):
    c = tree(gp.GlobalGathers, RUNTIMES[0], tmp_path_factory)
    text = (c.output_dir / "ptoas" / "k.pto").read_text()
    assert "{coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob clamp>}" in text
    assert "{coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob zero>}" in text
    assert re.search(r"pto.mgather ins\(%table_pview(_\d+)?, %r : !pto.partition_tensor_view<64x32xf32>, "
                     r"!pto.tile_buf<[^>]*>\) outs\(%_t\d+ : !pto.tile_buf<[^>]*>\) \{coalesce = #pto<coalesce row>\}",
                     text)
    assert "{coalesce = #pto<coalesce elem>}" in text
    assert re.search(r"pto.mscatter ins\(%_t\d+, %_t\d+ : [^)]*\) outs\(%out_pview : "
                     r"!pto.partition_tensor_view<64x32xf32>\)", text)


# ----------------------------------------------------------------------------- row updates

UR, UD, UB, US, BLK, BS = gp.UR, gp.UD, gp.UB, gp.US, gp.BLK, gp.BS


def run_row_updates(runtime, tmp_path_factory, index):
    g = rng(5)
    ins = dict(inp=g.standard_normal((UR, UD)).astype(np.float32), index=index,
               src=g.standard_normal((UB * US, UD)).astype(np.float32),
               hinp=g.standard_normal((UR, UD)).astype(np.float16),
               hsrc=g.standard_normal((UB * US, UD)).astype(np.float16),
               cache=g.standard_normal((BLK, BS, 1, UD)).astype(np.float32),
               csrc=g.standard_normal((UB, US, 1, UD)).astype(np.float32))
    outs = [np.zeros((UR, UD), np.float32), np.zeros((UR, UD), np.float16), np.zeros((BLK, BS, 1, UD), np.float32)]
    tree(gp.RowUpdates, runtime, tmp_path_factory)(*ins.values(), *outs)
    return ins, outs


def row_update_ref(inp, index, src):
    want = inp.copy()
    for k, row in enumerate(index.reshape(-1)):     # in order: a repeated row keeps the last update
        want[row] = src[k]
    return want


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_scatter_update_writes_whole_rows_in_index_order(runtime, tmp_path_factory):
    index = rng(6).permutation(UR)[:UB * US].reshape(UB, US).astype(np.int32)
    index[1, 7] = index[0, 2]                       # a repeated row: the later src row wins
    i, (out, hout, cout) = run_row_updates(runtime, tmp_path_factory, index)
    assert np.array_equal(out, row_update_ref(i["inp"], index, i["src"]))
    assert np.array_equal(out[index[0, 2]], i["src"][UB * US - 1])
    assert np.array_equal(hout, row_update_ref(i["hinp"], index, i["hsrc"]))
    untouched = np.setdiff1d(np.arange(UR), index)
    assert len(untouched) and np.array_equal(out[untouched], i["inp"][untouched])
    # the 4-D form: cache[index // BS, index % BS, 0] = src[b, s, 0]
    want = i["cache"].copy()
    for (b, s), row in np.ndenumerate(index):
        want[row // BS, row % BS, 0] = i["csrc"][b, s, 0]
    assert np.array_equal(cout, want)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_scatter_update_row_outside_the_input_is_a_runtime_error(runtime, tmp_path_factory):
    index = np.arange(UB * US, dtype=np.int32).reshape(UB, US)
    index[1, 3] = UR                                # one row past the end: flat offsets UR * UD + c
    fails(lambda: run_row_updates(runtime, tmp_path_factory, index), r"kernel 'k'",
          rf"TSCATTER: index {UR * UD} at indexes\[11, 0\] is outside the {UR}x{UD} destination tile")
