"""A13 against numpy on both platforms and under both runtime kinds."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from . import forms13_programs as F
from . import movement_programs as M

PLATFORMS = ["a2a3sim", "a5sim"]
RNG = np.random.default_rng(11)
F16 = [RNG.standard_normal((64, 64)).astype(np.float16) for _ in range(2)]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_annotations_without_a_memory_space(tmp_path, platform):
    a, b = F16
    y = np.zeros((64, 64), np.float32)
    ptokit.compile(M.SpaceFreeAnnotations, output_dir=tmp_path / "out", platform=platform)(a, b, y)
    np.testing.assert_allclose(y, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
@pytest.mark.parametrize("platform", PLATFORMS)
def test_mat_to_vec_is_a_hand_over(tmp_path, platform, runtime):
    a = F16[0]
    y = np.zeros((64, 64), np.float16)
    out = ptokit.compile(M.MatToVec, output_dir=tmp_path / "out", platform=platform, runtime=runtime)
    out(a, y)
    np.testing.assert_array_equal(y, (a + np.float16(1.0)))
    kernels = sorted(p.name for p in (tmp_path / "out" / "kernels").rglob("*.cpp"))
    assert kernels == ["k_aic.cpp", "k_aiv.cpp"]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_acc_assembled_into_mat(tmp_path, platform):
    a, b, c = (x[:32, :32] for x in (F16[0], F16[1], F16[0].T.copy()))
    y = np.zeros((32, 32), np.float32)
    ptokit.compile(M.AccIntoMat, output_dir=tmp_path / "out", platform=platform)(a, b, c, y)
    ab = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(y, ab @ c.astype(np.float32), rtol=1e-4, atol=1e-3)
    assert "pto.tinsert" in (tmp_path / "out" / "ptoas" / "k.pto").read_text()


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_clamped_loads(tmp_path, runtime):
    x = np.random.default_rng(7).standard_normal((48, 64)).astype(np.float32)
    compiled = ptokit.compile(M.ClampedLoads, output_dir=tmp_path / "out", runtime=runtime)
    for n in (40, 47, 60):                               # 60: the window starts past the end, nothing loads
        y = np.full((64, 64), -1, np.float32)
        compiled(x, n, y)
        want = np.zeros((64, 64), np.float32)
        want[:32] += x[16:]
        want[:max(0, 48 - n)] += x[n:]
        want[:, 32:] = 0
        want[:4, 32:] = x[40:44, 32:]
        np.testing.assert_array_equal(y, want)
    pto = (tmp_path / "out" / "ptoas" / "k.pto").read_text()
    assert "v_row=32" in pto or "%c32" in pto             # the constant window's valid rows, folded


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
@pytest.mark.parametrize("program", [M.TileViews, F.TileViewRestated])    # the latter restates placement too
def test_tile_views_set_the_valid_region(tmp_path, runtime, program):
    x = np.random.default_rng(8).standard_normal((16, 64)).astype(np.float32)
    compiled = ptokit.compile(program, output_dir=tmp_path / "out", runtime=runtime)
    for n in (5, 16):
        y = np.zeros_like(x)
        compiled(x, n, y)
        want = np.zeros_like(x)
        want[:n] = x[:n]
        np.testing.assert_array_equal(y, want + np.float32(1))
    pto = (tmp_path / "out" / "ptoas" / "k.pto").read_text()
    # the restating views add nothing (a column filled through its row view states that view's region)
    assert sum(1 for line in pto.splitlines()
               if "pto.set_validshape" in line and "_row," not in line) == 1, pto


@pytest.mark.parametrize("program,message,needle", [
    (M.TileViewPlacement, "pl.TileView(fractal=1024): a Vec tile's fractal is 512 on ptokit's targets",
     "fractal=1024"),
    (M.UnclampedOverrun, "tile.load window [64, 64] exceeds the tensor's shape [48, 64]; give valid_shape= for the "
                         "part inside it, or clamp=True", "pl.load(x, [16, 0], [64, 64])"),
    (M.ClampNotABool, "pl.load clamp must be a compile-time bool", "clamp=n"),
    (M.AnnotationShapeStillChecked, "annotation says pl.Tile[[64, 64], pl.FP32] but the value is "
                                    "pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat]", "ta: pl.Tile"),
    (M.VecIntoMat, "tile.assemble writes a tile into one of the same memory space (or an Acc tile into a Mat tile), "
                   "but got Vec into Mat", "pl.tile.assemble(m, v"),
])
def test_movement_errors(tmp_path, program, message, needle):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    assert message in str(info.value), str(info.value)
    assert needle in str(info.value).splitlines()[1]
