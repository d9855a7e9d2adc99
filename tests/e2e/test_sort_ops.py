"""sort32 and mrgsort against a Python reference of the documented order: descending, NaN before
every number, equal values (-0 == +0) with the smaller index first (sort32) or the earlier list
first (mrgsort); records of (value, index bits) -- FP32 2 elements, FP16 4 -- under both runtime
kinds."""
import math

import numpy as np
import pytest

import ptokit
from ptokit.errors import RuntimeFailure

from . import sort_programs as sp

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
_TREES = {}


def tree(runtime, tmp_path_factory):
    if runtime not in _TREES:
        out = tmp_path_factory.mktemp(f"sorts_{runtime}")
        _TREES[runtime] = ptokit.compile(sp.Sorts, output_dir=out, runtime=runtime)
    return _TREES[runtime]


def before(a, b):
    """a sorts before b (descending, NaN first); False for equal values."""
    if math.isnan(a):
        return not math.isnan(b)
    return not math.isnan(b) and a > b


def sort_block(vals, ids):
    """(value, index) records of one block in the documented order."""
    items = list(zip(vals.tolist(), ids.tolist()))
    out = []
    while items:
        best = 0
        for k in range(1, len(items)):
            v, i = items[k]
            bv, bi = items[best]
            if before(v, bv) or (not before(bv, v) and i < bi):
                best = k
        out.append(items.pop(best))
    return out


def merge(lists, exhausted=False):
    """k-way merge of record lists; ties take the earlier list; exhausted stops at the first empty list."""
    taken = [0] * len(lists)
    out = []
    while True:
        pick = None
        for n, lst in enumerate(lists):
            if taken[n] < len(lst) and (pick is None or before(lst[taken[n]][0], lists[pick][taken[pick]][0])):
                pick = n
        if pick is None:
            return out
        out.append(lists[pick][taken[pick]])
        taken[pick] += 1
        if exhausted and taken[pick] == len(lists[pick]):
            return out


def records(out, dtype):
    """The (value, index) records of a row of sort output."""
    if dtype == np.float32:
        v, i = out[0::2], out.view(np.uint32)[1::2]
        return list(zip(v.tolist(), i.tolist()))
    u = out.view(np.uint16)
    assert (u[1::4] == 0).all()                          # FP16 records: two bytes of zero after the value
    i = u[2::4].astype(np.uint32) | (u[3::4].astype(np.uint32) << 16)
    return list(zip(out[0::4].astype(np.float32).tolist(), i.tolist()))


def same(a, b):
    """Record lists equal, NaN equal to NaN, -0 distinct from +0 (the value's bits are kept)."""
    assert len(a) == len(b)
    for (va, ia), (vb, ib) in zip(a, b):
        assert ia == ib and ((math.isnan(va) and math.isnan(vb)) or
                             (va == vb and math.copysign(1, va) == math.copysign(1, vb))), (a, b)
    return True


def inputs(seed=0):
    g = np.random.default_rng(seed)
    v32 = g.integers(-8, 8, (4, 64)).astype(np.float32)      # many ties
    v32[0, 3] = v32[0, 40] = np.nan
    v32[1, 5], v32[1, 6] = -0.0, 0.0                         # -0 == +0: a tie
    v32[2, 33] = np.inf
    i32 = np.stack([g.permutation(64) for _ in range(4)]).astype(np.uint32) * 3 + 100000   # not monotone
    v32b = g.standard_normal((2, 64)).astype(np.float32)
    ishared = (np.arange(64, dtype=np.uint32) * 7) ^ 0x5a5a
    v16 = g.integers(-4, 4, (2, 64)).astype(np.float16)
    v16[1, 10] = np.nan
    w = g.standard_normal((1, 128)).astype(np.float32)
    w[0, 7] = w[0, 100]                                      # a tie across runs
    wh = g.standard_normal((1, 128)).astype(np.float16)
    wi = np.arange(128, dtype=np.uint32).reshape(1, 128)
    qs = [g.integers(-20, 20, (1, 32)).astype(np.float32) for _ in range(4)]
    qs[1][0, 0] = np.nan
    hs = [g.standard_normal((1, 32)).astype(np.float16) for _ in range(2)]
    qi = (np.arange(128, dtype=np.uint32) + 1000).reshape(4, 32)
    return dict(v32=v32, i32=i32, v32b=v32b, ishared=ishared.reshape(1, 64), v16=v16, w=w, wh=wh, wi=wi, bl=64,
                q0=qs[0], q1=qs[1], q2=qs[2], q3=qs[3], h0=hs[0], h1=hs[1], qi=qi)


def run(runtime, tmp_path_factory, **over):
    ins = inputs()
    ins.update(over)
    outs = dict(s32=np.full((4, 128), 5, np.float32), s32b=np.zeros((2, 128), np.float32),
                s16=np.zeros((2, 256), np.float16), f1=np.zeros((1, 256), np.float32),
                f1h=np.zeros((1, 512), np.float16), f1d=np.zeros((1, 256), np.float32),
                m2=np.zeros((1, 128), np.float32), m3=np.zeros((1, 192), np.float32),
                m4=np.zeros((1, 256), np.float32), m2e=np.zeros((1, 128), np.float32),
                m2h=np.zeros((1, 256), np.float16), m2c=np.zeros((1, 128), np.float32))
    tree(runtime, tmp_path_factory)(*ins.values(), *outs.values())
    return ins, outs


def sorted_rows(v, ids, rows, cols, shared=False):
    return [[rec for b in range(0, cols, 32)
             for rec in sort_block(v[r, b:min(b + 32, cols)], ids[0 if shared else r, b:min(b + 32, cols)])]
            for r in range(rows)]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_sort32_blocks_ties_nan_and_partial_valid_region(runtime, tmp_path_factory):
    i, o = run(runtime, tmp_path_factory)
    want = sorted_rows(i["v32"], i["i32"], 3, 48)             # valid [3, 48]: a block of 32 and one of 16
    for r in range(3):
        assert same(records(o["s32"][r, :96], np.float32), want[r])
    assert (o["s32"][3] == 5).all() and (o["s32"][:, 96:] == 5).all()   # outside the valid region: not stored
    first = records(o["s32"][0, :64], np.float32)
    assert math.isnan(first[0][0])                              # NaN sorts first
    want = sorted_rows(i["v32b"], i["ishared"], 2, 64, shared=True)   # one idx row for every row
    for r in range(2):
        assert same(records(o["s32b"][r], np.float32), want[r])
    want = sorted_rows(i["v16"].astype(np.float32), i["i32"], 2, 64)
    for r in range(2):
        assert same(records(o["s16"][r], np.float16), want[r])


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_mrgsort_format1_merges_groups_of_four_runs(runtime, tmp_path_factory):
    i, o = run(runtime, tmp_path_factory)
    runs = [sort_block(i["w"][0, b:b + 32], i["wi"][0, b:b + 32]) for b in range(0, 128, 32)]
    want = merge(runs)
    assert same(records(o["f1"][0], np.float32), want)
    assert same(records(o["f1d"][0], np.float32), want)     # block_len given at run time
    runs = [sort_block(i["wh"][0, b:b + 32].astype(np.float32), i["wi"][0, b:b + 32]) for b in range(0, 128, 32)]
    assert same(records(o["f1h"][0], np.float16), merge(runs))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_mrgsort_format2_two_to_four_lists_and_exhausted(runtime, tmp_path_factory):
    i, o = run(runtime, tmp_path_factory)
    lists = [sort_block(i[f"q{k}"][0], i["qi"][k]) for k in range(4)]
    assert same(records(o["m2"][0], np.float32), merge(lists[:2]))
    assert same(records(o["m3"][0], np.float32), merge(lists[:3]))
    assert same(records(o["m4"][0], np.float32), merge(lists))
    assert same(records(o["m2c"][0], np.float32), merge([lists[1], lists[0]]))
    short = sort_block(i["q3"][0, :8], i["qi"][3, :8])
    got = merge([lists[0], short], exhausted=True)
    assert len(got) < 40                                       # it stopped when the short list ran out
    assert same(records(o["m2e"][0, :2 * len(got)], np.float32), got)
    hl = [sort_block(i[f"h{k}"][0].astype(np.float32), i["qi"][k]) for k in range(2)]
    assert same(records(o["m2h"][0], np.float16), merge(hl))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_runtime_block_len_that_does_not_divide_the_row_is_an_error(runtime, tmp_path_factory):
    with pytest.raises(RuntimeFailure) as ei:
        run(runtime, tmp_path_factory, bl=96)
    assert ei.value.code == 101
    assert "kernel 'blocks'" in ei.value.message
    assert "TMRGSORT: 256 valid columns are not whole groups of 4 runs of blockLen 96" in ei.value.message


def test_sort_pto_forms(tmp_path_factory):
    c = tree(RUNTIMES[0], tmp_path_factory)
    text = (c.output_dir / "ptoas" / "lists.pto").read_text()
    assert "%executed = arith.constant dense<0> : vector<4xi16>" in text
    assert "{exhausted = true} : " in text and "{exhausted = false} : " in text
    assert ", vector<4xi16>)" in text
    text = (c.output_dir / "ptoas" / "blocks.pto").read_text()
    assert "pto.tsort32 ins(" in text
    assert "pto.tmrgsort ins(%runs, %c64_i32 : " in text
