"""Names a pl.at block binds itself, created tensors first written in a loop, values inside one block.

A loop variable of an earlier orchestration loop is not captured by a later block whose own
``for`` rebinds the name; a tensor created before a loop and first written inside it cannot be
read after the loop (the runtime allocates it per first writer), which is a located error.
"""
import os

import numpy as np
import pytest

import ptokit.language as pl
from ptokit.errors import CompileError

ROWS, COLS, BANDS = 96, 64, 3
BAND = ROWS // BANDS


@pl.jit
def scale_then_copy(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    for j in pl.range(BANDS):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
            t = pl.load(x, [j * BAND, 0], [BAND, COLS])
            pl.store(pl.add(t, 3.0), [j * BAND, 0], y)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="square"):
        for j in pl.range(BANDS):        # rebinds j: the block's own loop, not the one above
            t = pl.load(y, [j * BAND, 0], [BAND, COLS])
            pl.store(pl.mul(t, t), [j * BAND, 0], y)
    return y


@pl.jit
def bands_into_created(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    tmp = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    for j in pl.range(BANDS):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="fill"):
            t = pl.load(x, [j * BAND, 0], [BAND, COLS])
            pl.store(t, [j * BAND, 0], tmp)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="drain"):
        pl.store(pl.load(tmp, [0, 0], [ROWS, COLS]), [0, 0], y)
    return y


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory):
    old = os.environ.get("PTOKIT_CACHE_DIR")
    os.environ["PTOKIT_CACHE_DIR"] = str(tmp_path_factory.mktemp("scoping") / "cache")
    yield
    if old is None:
        os.environ.pop("PTOKIT_CACHE_DIR", None)
    else:
        os.environ["PTOKIT_CACHE_DIR"] = old


def test_inner_loop_rebinding_an_outer_name_is_the_blocks_own():
    x = np.random.default_rng(3).standard_normal((ROWS, COLS)).astype(np.float32)
    y = np.zeros_like(x)
    kernel = [f for f in outlined(scale_then_copy.parse(x, y)).functions.values() if f.name == "square"][0]
    assert [p.name for p in kernel.params] == ["y"]        # no scalar 'j' captured from the first loop
    scale_then_copy(x, y)
    np.testing.assert_allclose(y, (x + 3.0) ** 2, rtol=1e-5)


def refused(fn, pattern: str, where: str) -> None:
    """``fn`` on ones in, zeros out fails to compile with ``pattern`` at ``where`` of this file."""
    x = np.ones((ROWS, COLS), np.float32)
    with pytest.raises(CompileError, match=pattern) as e:
        fn(x, np.zeros_like(x))
    assert f"test_block_scoping.py:{where}" in str(e.value)


def test_created_tensor_first_written_in_a_loop_then_read_after_it_is_allocated_where_created():
    # each pass of the loop writes a band; the runtime allocates tmp at pl.create_tensor (as pypto's
    # orchestration does), not for the first band's task, so the read after the loop sees every band
    x = np.random.default_rng(4).standard_normal((ROWS, COLS)).astype(np.float32)
    y = np.zeros_like(x)
    bands_into_created(x, y)
    np.testing.assert_allclose(y, x)


@pl.jit
def halves_by_slice(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    for h in pl.range(2):
        src = pl.slice(x, [ROWS // 2, COLS], [h * (ROWS // 2), 0])      # views made in the orchestration
        dst = y[h * (ROWS // 2):(h + 1) * (ROWS // 2), :]
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="half"):
            t = pl.load(src, [0, 0], [ROWS // 2, COLS])
            pl.store(pl.sub(t, 1.5), [0, 0], dst)
    return y


@pl.jit
def column_slice(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    left = pl.slice(x, [ROWS, COLS // 2], [0, 0])
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(left, [0, 0], [ROWS, COLS // 2]), [0, 0], y)
    return y


def test_views_bound_in_the_orchestration_are_task_arguments_of_a_block():
    x = np.random.default_rng(5).standard_normal((ROWS, COLS)).astype(np.float32)
    y = np.full_like(x, 7.0)
    kernel = [f for f in outlined(halves_by_slice.parse(x, y)).functions.values() if f.name == "half"][0]
    assert [p.name for p in kernel.params] == ["src", "dst"]
    assert [tuple(p.type.shape) for p in kernel.params] == [(ROWS // 2, COLS)] * 2
    halves_by_slice(x, y)
    np.testing.assert_allclose(y, x - 1.5, rtol=1e-6)


def test_orchestration_slice_of_a_non_contiguous_window_is_refused():
    refused(column_slice, "is not contiguous in memory", "94:12")


@pl.jit
def tile_across_blocks(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="make"):
        doubled = pl.mul(pl.load(x, [0, 0], [ROWS, COLS]), 2.0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="use"):
        pl.store(pl.exp(doubled), [0, 0], y)
    return y


def test_a_value_of_one_block_used_by_the_next_is_an_intermediate_tensor():
    x = np.random.default_rng(6).standard_normal((ROWS, COLS)).astype(np.float32)
    y = np.zeros_like(x)
    make = [f for f in outlined(tile_across_blocks.parse(x, y)).functions.values() if f.name == "make"][0]
    assert [(p.name, p.direction.name) for p in make.params] == [("x", "IN"), ("doubled_out", "OUT")]
    tile_across_blocks(x, y)
    np.testing.assert_allclose(y, np.exp(2 * x), rtol=1e-5)


@pl.jit
def scalar_across_blocks(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="make"):
        n = pl.tensor.dim(x, 0) // 2
        pl.store(pl.load(x, [0, 0], [ROWS, COLS]), [0, 0], y)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="use"):
        pl.store(pl.load(x, [n, 0], [BAND, COLS]), [0, 0], y)
    return y


def test_a_scalar_of_one_block_used_by_the_next_is_a_located_error():
    refused(scalar_across_blocks, r"'n' is a scalar computed inside the pl.at block of kernel 'make' \(line \d+\) "
                                  r"and lives only in that kernel", "138:30")


@pl.jit
def hinted_chain(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    mid = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True, name_hint="first"):
        pl.store(pl.mul(pl.load(x, [0, 0], [ROWS, COLS]), 0.5), [0, 0], mid)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
        pl.store(pl.add(pl.load(mid, [0, 0], [ROWS, COLS]), 4.0), [0, 0], y)
    return y


@pl.jit
def hint_not_a_bool(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=1):
        pl.store(pl.load(x, [0, 0], [ROWS, COLS]), [0, 0], y)
    return y


def test_at_block_takes_the_early_resolve_hint():
    x = np.random.default_rng(9).standard_normal((ROWS, COLS)).astype(np.float32)
    y = np.zeros_like(x)
    hinted_chain(x, y)
    np.testing.assert_allclose(y, x * 0.5 + 4.0, rtol=1e-6)
    refused(hint_not_a_bool, r"allow_early_resolve= takes True or False, got 1", "159:63")


# a tensor-level pl.matmul whose K is looped over several tiles, bound to a name and then used by a
# vector op in the same block: the accumulator is named, not copied (an Acc tile has no copy)
MM_M, MM_K, MM_N = 64, 1024, 64


@pl.jit
def matmul_then_scale(a: pl.Tensor, b: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mm_scale"):
        prod = pl.matmul(a, b, out_dtype=pl.FP32)        # K spans several tiles: a K loop
        y[:] = pl.mul(prod, 0.25)
    return y


def test_k_looped_matmul_result_feeds_a_vector_op():
    rng = np.random.default_rng(11)
    a = rng.standard_normal((MM_M, MM_K)).astype(np.float16)
    b = rng.standard_normal((MM_K, MM_N)).astype(np.float16)
    y = np.zeros((MM_M, MM_N), np.float32)
    from ptokit.passes.context import PassContext      # (here: the error tests above pin their lines)
    from ptokit.passes.manager import run_passes
    parsed = matmul_then_scale.parse(a, b, y)
    assert "pl.matmul_acc(" not in parsed.as_python()       # the front end keeps the matmul as written
    lowered = run_passes(parsed, PassContext(platform="a2a3sim"))
    assert "pl.matmul_acc(" in lowered.as_python()           # AutoTileMatmulL0 made the K loop
    matmul_then_scale(a, b, y)
    np.testing.assert_allclose(y, (a.astype(np.float32) @ b.astype(np.float32)) * 0.25, rtol=2e-3, atol=2e-2)


# @pl.jit(auto_scope=): True is what ptokit does (one runtime scope around the body); False, pypto's
# "no automatic scope", is refused where it is written rather than compiled as True
@pl.jit(auto_scope=True)
def scoped_add(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.add(x, x)
    return y


def _jit_with_auto_scope(flag):
    @pl.jit(auto_scope=flag)
    def unscoped(x: pl.Tensor, y: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            y[:] = pl.add(x, x)
        return y
    return unscoped


@pytest.mark.parametrize("flag,message", [
    (False, "auto_scope=False is not supported yet: ptokit always runs the orchestration inside one runtime scope"),
    (1, "auto_scope=1 takes True or False, got 1"),
])
def test_jit_auto_scope(flag, message):
    x = np.random.default_rng(4).standard_normal((16, 32)).astype(np.float32)
    y = np.zeros_like(x)
    scoped_add(x, y)
    np.testing.assert_allclose(y, 2 * x, rtol=1e-6)
    with pytest.raises(CompileError) as info:
        _jit_with_auto_scope(flag)
    text = str(info.value)
    assert message in text and "test_block_scoping.py:" in text and "@pl.jit(auto_scope=flag)" in text, text


def outlined(prog):
    """The program after OutlineIncoreScopes: its pl.at blocks as kernels."""
    from ptokit.passes.context import PassContext
    from ptokit.passes.outline_scopes import outline_incore_scopes
    return outline_incore_scopes(prog, PassContext(platform="a2a3sim"))


# a pl.Out parameter bound to a tensor-level value in a block is written (pypto: the result bound to
# an output tensor is stored into it; ConvertTensorToTileOps); bound to a tile it would never be
# written, and is refused where it is bound (it used to run and leave the caller's array as it was)
@pl.jit
def out_bound_to_a_value(x: pl.Tensor, result: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        result = pl.add(x, 1.0)
    return result


@pl.jit
def out_bound_to_a_tile(x: pl.Tensor, result: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        result = pl.add(pl.load(x, [0, 0], [32, 32]), 1.0)
    return result


@pl.jit
def out_stored(x: pl.Tensor, result: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(pl.load(x, [0, 0], [32, 32]), 1.0)
        result = pl.store(t, [0, 0], result)
    return result


def test_out_parameter_bound_to_a_tensor_level_value_in_a_block_is_written():
    x = np.random.default_rng(1).standard_normal((32, 32)).astype(np.float32)
    y = np.zeros_like(x)
    out_bound_to_a_value(x, y)
    np.testing.assert_allclose(y, x + 1.0)


def test_out_parameter_bound_to_a_tile_in_a_block_is_refused():
    x = np.ones((32, 32), np.float32)
    y = np.zeros_like(x)
    with pytest.raises(CompileError) as info:
        out_bound_to_a_tile(x, y)
    text = str(info.value)
    assert "'result' is a pl.Out tensor of out_bound_to_a_tile, but this block binds the name to a tile" in text
    assert "test_block_scoping.py:" in text and "result = pl.add(pl.load(x, [0, 0], [32, 32]), 1.0)" in text, text
    out_stored(x, y)                                   # the fix the message gives
    np.testing.assert_allclose(y, x + 1.0)
