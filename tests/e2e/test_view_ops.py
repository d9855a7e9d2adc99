"""Views and layouts against numpy: transpose for every dtype on a partial valid region,
reinterpret_view, set_validshape, extract (Vec->Vec, Mat->Left, Acc->Mat), and the layouts the
cube reads through (transpose_view, create_tile(transpose=True / flat_layout=True),
move(blayout=, slayout=)), under both runtime kinds."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import RuntimeFailure

from . import view_programs as vp

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
GROUPS = [(pl.FP32, pl.FP16, pl.BF16), (pl.INT8, pl.UINT8, pl.INT16), (pl.UINT16, pl.INT32, pl.UINT32)]
_TREES = {}


def tree(key, make, runtime, tmp_path_factory):
    if (key, runtime) not in _TREES:
        out = tmp_path_factory.mktemp(f"views_{key}_{runtime}")
        _TREES[key, runtime] = ptokit.compile(make(), output_dir=out, runtime=runtime)
    return _TREES[key, runtime]


def values(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    npt = dtype.numpy()
    if np.issubdtype(npt, np.integer):
        info = np.iinfo(npt)
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(npt)
    return rng.standard_normal(shape).astype(npt)


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("group", range(len(GROUPS)), ids=lambda g: "-".join(d.name for d in GROUPS[g]))
def test_transpose_every_dtype_on_a_partial_valid_region(group, runtime, tmp_path_factory):
    dts = GROUPS[group]
    c = tree(f"t{group}", lambda: vp.make_transpose3(*dts), runtime, tmp_path_factory)
    xs = [values(d, (vp.R, vp.C), seed=k) for k, d in enumerate(dts)]
    ys = [np.full((vp.C, vp.R), 7, d.numpy()) for d in dts]
    c(*xs, *ys)
    for x, y in zip(xs, ys):
        want = np.full((vp.C, vp.R), 7, x.dtype)
        want[:vp.VC, :vp.VR] = x[:vp.VR, :vp.VC].T
        assert np.array_equal(y.view(np.uint8), want.view(np.uint8))     # bit for bit (NaN, -0 kept)


def _vec_views(runtime, tmp_path_factory, n):
    c = tree("vec", lambda: vp.VecViews, runtime, tmp_path_factory)
    f = values(pl.FP32, (8, 64), 1)
    h = values(pl.FP16, (8, 64), 2)
    i = values(pl.INT32, (8, 16), 3)
    outs = dict(bits=np.zeros((8, 64), np.int32), halves=np.zeros((8, 128), np.int8),
                wide=np.zeros((8, 32), np.float16), rows16=np.zeros((16, 64), np.int16),
                narrow=np.zeros((8, 64), np.float32), dyn=np.zeros((8, 64), np.float32),
                sub=np.zeros((4, 32), np.float32))
    c(f, h, i, n, *outs.values())
    return f, h, i, outs


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_reinterpret_view_set_validshape_and_vec_extract(runtime, tmp_path_factory):
    f, h, i, o = _vec_views(runtime, tmp_path_factory, 6)
    want_bits = np.zeros((8, 64), np.int32)
    want_bits[:5, :40] = f.view(np.int32)[:5, :40]           # the partial valid region is carried through
    assert np.array_equal(o["bits"], want_bits)
    assert np.array_equal(o["halves"], h.view(np.int8))       # FP16 [8, 64] -> INT8 [8, 128]
    assert np.array_equal(o["wide"].view(np.uint16), i.view(np.uint16))   # INT32 [8, 16] -> FP16 [8, 32]
    assert np.array_equal(o["rows16"], f.reshape(-1).view(np.int16).reshape(16, 64))
    want = np.zeros((8, 64), np.float32)
    want[:3, :24] = f[:3, :24]                                # set_validshape(3, 24): only that is stored
    assert np.array_equal(o["narrow"], want)
    want = np.zeros((8, 64), np.float32)
    want[:6, :16] = f[:6, :16]                                # set_validshape(n, 16) with n = 6 at run time
    assert np.array_equal(o["dyn"], want)
    assert np.array_equal(o["sub"], f[2:6, 8:40])


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_set_validshape_past_the_tile_is_a_runtime_error(runtime, tmp_path_factory):
    with pytest.raises(RuntimeFailure) as ei:
        _vec_views(runtime, tmp_path_factory, 9)
    assert ei.value.code == 101
    assert "kernel 'k'" in ei.value.message and "valid rows 9 outside 0..8 of a 8x64 Vec tile" in ei.value.message


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_layouts_the_cube_reads_through(runtime, tmp_path_factory):
    c = tree("cube", lambda: vp.CubeLayouts, runtime, tmp_path_factory)
    rng = np.random.default_rng(4)
    a = rng.standard_normal((vp.M, vp.K)).astype(np.float16)
    b = rng.standard_normal((vp.N, vp.K)).astype(np.float16)
    cm = rng.standard_normal((vp.K, vp.N)).astype(np.float16)
    a2 = rng.standard_normal((vp.M, 2 * vp.K)).astype(np.float16)
    c2 = rng.standard_normal((vp.K, 2 * vp.N)).astype(np.float16)
    eye = np.eye(vp.N, dtype=np.float32)
    ys = [np.zeros((vp.M, vp.N), np.float32) for _ in range(6)]
    c(a, b, cm, a2, c2, eye, *ys)
    f32 = lambda x: x.astype(np.float32)   # noqa: E731
    y_view, y_zn, y_right, y_flat, y_ext, y_acc = ys
    np.testing.assert_allclose(y_view, f32(a) @ f32(b).T, rtol=1e-5, atol=1e-5)
    for y in (y_zn, y_right, y_flat, y_acc):
        np.testing.assert_allclose(y, f32(a) @ f32(cm), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y_ext, f32(a2[:, vp.K:]) @ f32(c2[:, vp.N:]), rtol=1e-5, atol=1e-5)


def test_views_pto_forms(tmp_path_factory):
    c = tree("vec", lambda: vp.VecViews, RUNTIMES[0], tmp_path_factory)
    text = (c.output_dir / "ptoas" / "k.pto").read_text()
    assert "pto.set_validshape %full, %c3_index, %c24_index : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=64" \
        in text
    assert "= pto.treshape %tf : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=64" in text
    assert "-> !pto.tile_buf<loc=vec, dtype=i32, rows=8, cols=64" in text
    assert "pto.textract ins(%full, %c2_index, %c8_index : " in text
    cube = tree("cube", lambda: vp.CubeLayouts, RUNTIMES[0], tmp_path_factory)
    text = (cube.output_dir / "ptoas" / "k.pto").read_text()
    assert ("pto.treshape %tb : !pto.tile_buf<loc=mat, dtype=f16, rows=16, cols=32, v_row=?, v_col=?, "
            "blayout=col_major, slayout=row_major, fractal=512, pad=0> -> !pto.tile_buf<loc=mat, dtype=f16, rows=32, "
            "cols=16, v_row=?, v_col=?, blayout=row_major, slayout=col_major, fractal=512, pad=0>") in text
    assert "dtype=f16, rows=32, cols=16, v_row=?, v_col=?, blayout=row_major, slayout=none_box" in text
