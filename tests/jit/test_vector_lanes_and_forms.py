"""@pl.jit forms met in pypto's codegen system tests: a vector-only kernel with pl.split_aiv
regions runs on both vector lanes (pypto's dual AIV dispatch); pl.at(allow_early_resolve=...);
pl.gather_row into a Vec tile; pl.tensor.dim in the orchestration body.  Each against numpy,
and each new refusal as a located error."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))


def _rand(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _located_error(fn, *args, needles):
    with pytest.raises(CompileError) as ei:
        fn(*args)
    text = str(ei.value)
    assert all(n in text for n in needles) and "^" in text, text


# --------------------------------------------------------------- both vector lanes
@pl.jit
def lanes_none(x: pl.Tensor[[96, 32], pl.FP32], y: pl.Out[pl.Tensor[[96, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="lanes_none"):
        for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            r = lane * 48
            t = pl.muls(pl.load(x, [r, 0], [48, 32]), 3.0)
            y = pl.store(pl.adds(t, lane), [r, 0], y)
    return y


@pl.jit
def lanes_up_down_in_blocks(x: pl.Tensor[[64, 16], pl.FP32], y: pl.Out[pl.Tensor[[64, 16], pl.FP32]]):
    for blk in pl.spmd(2):
        for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            r = blk * 32 + lane * 16          # the body is per lane: each lane names its own rows
            y = pl.store(pl.exp(pl.load(x, [r, 0], [16, 16])), [r, 0], y)
    return y


def test_vector_only_none_region_runs_on_both_lanes():
    x = _rand((96, 32), 1)
    y = np.full_like(x, -5.0)
    lanes_none(x, y)
    want = x * 3.0
    want[48:] += 1.0                          # lane 1 adds its lane index
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)
    orch = next((lanes_none.compile(x, y).output_dir / "orchestration").glob("*.cpp")).read_text()
    assert "MixedKernels" in orch and "INVALID_KERNEL_ID" in orch


def test_vector_only_up_down_region_in_spmd_blocks():
    x = _rand((64, 16), 2)
    y = np.zeros_like(x)
    lanes_up_down_in_blocks(x, y)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------- pl.at(allow_early_resolve=)
@pl.jit
def early(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True):
        y[:] = pl.adds(x, 0.5)
    return y


@pl.jit
def early_bad(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve="yes"):
        y[:] = pl.adds(x, 0.5)
    return y


def test_at_allow_early_resolve_is_accepted():
    x = _rand((16, 64), 3)
    y = np.zeros_like(x)
    early(x, y)
    np.testing.assert_allclose(y, x + 0.5, rtol=1e-6)


def test_at_allow_early_resolve_must_be_a_bool():
    x = _rand((16, 64), 3)
    _located_error(early_bad, x, np.zeros_like(x), needles=["allow_early_resolve= takes True or False, got 'yes'"])


# --------------------------------------------------------------- pl.gather_row into Vec
@pl.jit
def vec_gather(table: pl.Tensor[[200, 48], pl.FP32], rows: pl.Tensor[[8], pl.INT32],
               y: pl.Out[pl.Tensor[[8, 48], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="vec_gather"):
        acc = pl.full([8, 48], dtype=pl.FP32, value=0.0)
        for k in pl.range(8):
            src = pl.cast(pl.read(rows, [k]), pl.INDEX)
            acc = pl.gather_row(acc, table, [k, 0], [src, 0], [1, 48])
        y = pl.store(pl.adds(acc, 1.0), [0, 0], y)
    return y


@pl.jit
def vec_gather_transposed(table: pl.Tensor[[200, 48], pl.FP32], y: pl.Out[pl.Tensor[[48, 8], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([48, 8], dtype=pl.FP32, value=0.0)
        acc = pl.gather_row(acc, table, [0, 0], [3, 0], [1, 48], transpose=True)
        y = pl.store(acc, [0, 0], y)
    return y


def test_gather_row_into_a_vec_tile():
    table = _rand((200, 48), 4)
    rows = np.array([5, 199, 0, 17, 17, 64, 3, 120], np.int32)
    y = np.zeros((8, 48), np.float32)
    vec_gather(table, rows, y)
    np.testing.assert_array_equal(y, table[rows] + 1.0)


def test_gather_row_transpose_needs_an_l1_tile():
    _located_error(vec_gather_transposed, _rand((200, 48), 5), np.zeros((48, 8), np.float32),
                   needles=["pl.gather_row transpose=True", "not a Vec tile"])


# --------------------------------------------------------------- pl.tensor.dim in the orchestration
D = pl.dynamic("D")


@pl.jit
def per_row_block(x: pl.Tensor[[D, 32], pl.FP32], y: pl.Out[pl.Tensor[[D, 32], pl.FP32]]):
    n = pl.tensor.dim(x, 0)
    for i in pl.range(0, n, 8):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="blockwise"):
            y = pl.store(pl.muls(pl.load(x, [i, 0], [8, 32]), 2.0), [i, 0], y)
    return y


@pl.jit
def dim_bad(x: pl.Tensor[[D, 32], pl.FP32], y: pl.Out[pl.Tensor[[D, 32], pl.FP32]]):
    n = pl.tensor.dim(x)
    for i in pl.range(0, n, 8):
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.store(pl.load(x, [i, 0], [8, 32]), [i, 0], y)
    return y


@pytest.mark.parametrize("rows", [24, 40])
def test_tensor_dim_bounds_an_orchestration_loop(rows):
    x = _rand((rows, 32), rows)
    y = np.zeros_like(x)
    per_row_block(x, y)
    np.testing.assert_allclose(y, 2.0 * x, rtol=1e-6)


def test_tensor_dim_needs_an_axis_in_a_jit_body():
    x = _rand((16, 32), 6)
    _located_error(dim_bad, x, np.zeros_like(x), needles=["pl.tensor.dim takes a tensor and an axis"])


# --------------------------------------------------------------- pl.slice of a tensor in kernel code
@pl.jit
def slice_window(x: pl.Tensor[[24, 32], pl.FP32], y: pl.Out[pl.Tensor[[8, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.adds(pl.slice(x, [8, 32], [10, 0]), 1.0)
    return y


@pl.jit
def slice_past_the_end(a: pl.Tensor[[11, 64], pl.FP16], w: pl.Tensor[[32, 64], pl.FP16],
                       y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="ragged_mm"):
        rows = pl.slice(a, [16, 64], [0, 0], valid_shape=[11, 64])      # a 16-row box, 11 rows real
        y[:] = pl.muls(pl.matmul(rows, w, b_trans=True, out_dtype=pl.FP32), 0.5)
    return y


@pl.jit
def slice_bad(x: pl.Tensor[[24, 32], pl.FP32], y: pl.Out[pl.Tensor[[8, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.slice(x, [8, 32], [0, 0], drop_dims=[0])
    return y


def test_slice_of_a_tensor_is_a_window():
    x = _rand((24, 32), 9)
    y = np.zeros((8, 32), np.float32)
    slice_window(x, y)
    np.testing.assert_allclose(y, x[10:18] + 1.0, rtol=1e-6)


def test_slice_with_a_valid_shape_past_the_tensor_end():
    a = (_rand((11, 64), 10) * 0.3).astype(np.float16)
    w = (_rand((32, 64), 11) * 0.3).astype(np.float16)
    y = np.full((16, 32), 5.0, np.float32)
    slice_past_the_end(a, w, y)
    np.testing.assert_allclose(y[:11], 0.5 * (a.astype(np.float64) @ w.astype(np.float64).T), rtol=1e-3, atol=1e-3)


def test_slice_of_a_tensor_refuses_other_keywords():
    x = _rand((24, 32), 12)
    _located_error(slice_bad, x, np.zeros((8, 32), np.float32),
                   needles=["pl.slice of a tensor in kernel code takes (tensor, shape, offset, valid_shape=None)",
                            "drop_dims= is not supported here"])


@pl.jit
def ragged_k_split(a: pl.Tensor[[5, 256], pl.FP16], w: pl.Tensor[[256, 256], pl.FP16],
                   y: pl.Out[pl.Tensor[[16, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):     # K = 256 of a 256-column rhs: a loop over K tiles
        y[:] = pl.matmul(pl.slice(a, [16, 256], [0, 0], valid_shape=[5, 256]), w, b_trans=True, out_dtype=pl.FP32)
    return y


@pl.jit
def k_cut(a: pl.Tensor[[16, 256], pl.FP16], w: pl.Tensor[[256, 256], pl.FP16], y: pl.Out[pl.Tensor[[16, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.matmul(pl.slice(a, [16, 256], [0, 0], valid_shape=[16, 200]), w, b_trans=True, out_dtype=pl.FP32)
    return y


def test_valid_rows_of_a_k_split_matmul_operand():
    a = (_rand((5, 256), 13) * 0.2).astype(np.float16)
    w = (_rand((256, 256), 14) * 0.2).astype(np.float16)
    y = np.full((16, 256), 3.0, np.float32)
    ragged_k_split(a, w, y)
    np.testing.assert_allclose(y[:5], a.astype(np.float64) @ w.astype(np.float64).T, rtol=1e-3, atol=1e-3)


def test_a_valid_shape_cutting_k_of_a_split_matmul_is_refused():
    _located_error(k_cut, np.zeros((16, 256), np.float16), np.zeros((256, 256), np.float16),
                   np.zeros((16, 256), np.float32), needles=["a valid_shape that cuts the K axis (200 of 256)"])


# --------------------------------------------------------------- pl.incore(): pypto's InCore scope
@pl.jit.inline
def plus_two(a: pl.Tensor, c: pl.Tensor):
    with pl.incore(name_hint="plus_two"):
        pl.store(pl.adds(pl.load(a, [0, 0], [32, 32]), 2.0), [0, 0], c)
    return c


@pl.jit
def incore_chain(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    mid = pl.create_tensor([32, 32], dtype=pl.FP32)
    mid = plus_two(a, mid)
    with pl.incore():
        c[:] = pl.muls(mid, 3.0)
    return c


@pl.jit
def incore_bad(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.incore(split="rows"):
        c[:] = pl.muls(a, 3.0)
    return c


def test_incore_scope_is_a_kernel():
    a = _rand((32, 32), 15)
    c = np.zeros_like(a)
    incore_chain(a, c)
    np.testing.assert_allclose(c, (a + 2.0) * 3.0, rtol=1e-6)
    names = [f.name for f in incore_chain.lower(a, c).functions.values()]
    assert any(n.endswith("plus_two") for n in names) and len(names) == 3, names   # two kernels + orchestration


def test_incore_split_must_be_a_split_mode():
    a = _rand((32, 32), 16)
    _located_error(incore_bad, a, np.zeros_like(a), needles=["pl.incore's split takes a pl.SplitMode (NONE, UP_DOWN, LEFT_RIGHT), got 'rows'"])


# --------------------------------------------------------------- compile / lower from the annotations
@pl.jit
def declared(x: pl.Tensor[[16, 32], pl.FP32], k: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.muls(x, k)
    return y


@pl.jit
def bare(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.exp(x)
    return y


def test_compile_and_lower_from_declared_shapes():
    from ptokit.passes.context import PassContext
    with PassContext([], runtime="host_build_graph"):          # pypto's (instruments, *, runtime=...) form
        c = declared.compile(k=1.0)                             # x from its annotation, y an output
    assert "host_build_graph" in (c.output_dir / "kernel_config.py").read_text()
    x = _rand((16, 32), 17)
    y = np.zeros_like(x)
    c(x, 2.5, y)
    np.testing.assert_allclose(y, 2.5 * x, rtol=1e-6)
    assert any(f.name == "declared" for f in declared.lower(k=1.0).functions.values())


def test_a_bare_tensor_still_needs_its_argument():
    with pytest.raises(ptokit.errors.UserError, match="is missing its 'x' argument"):
        bare.compile()
    with pytest.raises(ptokit.errors.UserError, match="is missing its 'x' argument"):
        declared(k=1.0)                                          # a call needs real inputs


def test_pass_instruments_are_refused():
    from ptokit.passes.context import PassContext
    with pytest.raises(ValueError, match="pass instruments are not supported by ptokit"):
        PassContext([object()])
