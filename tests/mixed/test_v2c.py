"""The vector -> cube direction of the cross-core FIFO (V2C) end to end against numpy under both
runtime kinds: a fused two-matmul kernel (C2V then V2C), the explicit pl.tile.tpush_to_aic /
tpop_from_aiv / tfree_from_aiv ops, an SPMD version (also launched with pl.spmd_submit), and a
softmax-then-matmul attention in one kernel; plus the located errors and the runtime timeout of
a cube pop nobody pushes to."""
import re
import shutil
import time

import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError, RuntimeFailure
from ptokit.runtime.config import RunConfig
from ptokit.runtime.launcher import run_tree

from .mixed_util import P

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
_CACHE = {}


def compiled(key, prog, tmp_path_factory, runtime=RUNTIMES[0], platform="a2a3sim"):
    if (key, runtime, platform) not in _CACHE:
        d = tmp_path_factory.mktemp(f"{key}_{runtime[:4]}_{platform}")
        _CACHE[(key, runtime, platform)] = ptokit.compile(prog, output_dir=d, runtime=runtime, platform=platform)
    return _CACHE[(key, runtime, platform)]


def rand(shape, seed, scale=0.25):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float16)


def f64(x):
    return x.astype(np.float64)


def mlp_ref(x, w1, w2):
    h = np.maximum(f64(x) @ f64(w1), 0).astype(np.float16)      # the vector side casts h to fp16
    return f64(h) @ f64(w2)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_fused_two_matmuls_c2v_then_v2c(runtime, tmp_path_factory):
    x, w1, w2 = rand((64, 64), 1), rand((64, 64), 2), rand((64, 64), 3)
    y = np.zeros((64, 64), np.float32)
    prog = compiled("mlp", P.FusedMlp, tmp_path_factory, runtime)
    assert [k.core_type for k in prog.config.kernels] == ["aic", "aiv"]
    prog(x, w1, w2, y)
    np.testing.assert_allclose(y, mlp_ref(x, w1, w2), rtol=1e-3, atol=2e-3)   # h is rounded to fp16


def test_fused_two_matmuls_on_a5(tmp_path_factory):
    """a5: the Vec->Mat move of a mixed kernel is the V2C FIFO too (on chip, no GM pipe buffer)."""
    x, w1, w2 = rand((64, 64), 4), rand((64, 64), 5), rand((64, 64), 6)
    y = np.zeros((64, 64), np.float32)
    prog = compiled("mlp", P.FusedMlp, tmp_path_factory, platform="a5sim")
    pto = (prog.output_dir / "ptoas" / "mlp.pto").read_text()
    assert "pto.tpush_to_aic(" in pto and "pto.tpop_from_aiv" in pto and "gm_slot_buffer" not in pto
    prog(x, w1, w2, y)
    np.testing.assert_allclose(y, mlp_ref(x, w1, w2), rtol=1e-3, atol=2e-3)   # h is rounded to fp16


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_explicit_v2c_ops(runtime, tmp_path_factory):
    x, w = rand((32, 64), 7), rand((64, 32), 8)
    y = np.zeros((32, 32), np.float32)
    prog = compiled("explicit", P.ExplicitV2C, tmp_path_factory, runtime)
    prog(x, w, y)
    e = np.exp(f64(x)).astype(np.float16)
    np.testing.assert_allclose(y, f64(e) @ f64(w), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("blocks", [4, 12])      # 12 blocks > 8 clusters
def test_spmd_fused_mlp(blocks, runtime, tmp_path_factory):
    x, w1, w2 = rand((blocks * 64, 64), 9), rand((64, 64), 10), rand((64, 32), 11)
    y = np.zeros((blocks * 64, 32), np.float32)
    compiled(f"spmd{blocks}", P.make_fused_mlp_spmd(blocks), tmp_path_factory, runtime)(x, w1, w2, y)
    np.testing.assert_allclose(y, mlp_ref(x, w1, w2), rtol=1e-3, atol=2e-3)   # h is rounded to fp16


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_spmd_submit(runtime, tmp_path_factory):
    x, w1, w2 = rand((6 * 64, 64), 12), rand((64, 64), 13), rand((64, 32), 14)
    y = np.zeros((6 * 64, 32), np.float32)
    prog = compiled("submit6", P.make_fused_mlp_spmd(6, True), tmp_path_factory, runtime)
    orch = next((prog.output_dir / "orchestration").glob("*.cpp")).read_text()
    assert "set_block_num(6)" in orch
    prog(x, w1, w2, y)
    np.testing.assert_allclose(y, mlp_ref(x, w1, w2), rtol=1e-3, atol=2e-3)   # h is rounded to fp16


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_softmax_then_matmul_in_one_kernel(runtime, tmp_path_factory):
    q = rand((P.AQ, P.HD), 15, 1.0)
    kt = rand((P.HD, P.BS), 16, 1.0)
    v = rand((P.BS, P.HD), 17, 1.0)
    o = np.zeros((P.AQ, P.HD), np.float32)
    compiled("attn", P.OneKernelAttention, tmp_path_factory, runtime)(q, kt, v, o)
    s = (f64(q) @ f64(kt)) * 0.125
    p = np.exp(s - s.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    ref = f64(p.astype(np.float16)) @ f64(v)
    np.testing.assert_allclose(o, ref, rtol=2e-3, atol=2e-3 * np.abs(ref).max())


def test_pop_from_aiv_without_push_is_a_located_error(tmp_path):
    with pytest.raises(CompileError, match="tpop_from_aiv has no matching pl.tile.tpush_to_aic before it") as ei:
        ptokit.compile(P.UnpairedPopFromAiv, output_dir=tmp_path)
    assert ei.value.loc.file == P.__file__
    assert "tpop_from_aiv(shape=[64, 64]" in P.__loader__.get_source(P.__name__).splitlines()[ei.value.loc.line - 1]


def test_mat_tile_read_after_the_next_transfer_is_a_located_error(tmp_path):
    with pytest.raises(CompileError, match="Mat tile 'a' received from the vector side is still read after") as ei:
        ptokit.compile(P.MatTileOutlivesSlot, output_dir=tmp_path)
    assert ei.value.loc.file == P.__file__ and ei.value.loc.line > 0


def test_cube_pop_without_vector_push_times_out_not_hangs(tmp_path_factory):
    """A hand-edited AIV kernel that never pushes V2C: the cube's TPOP times out naming kernel and pipe."""
    src = compiled("explicit", P.ExplicitV2C, tmp_path_factory)
    tree = tmp_path_factory.mktemp("v2c_misuse") / "tree"
    shutil.copytree(src.output_dir, tree)
    aiv = tree / "kernels" / "aiv" / "vexp_mm_aiv.cpp"
    text = aiv.read_text()
    edited = re.sub(r"^\s*TPUSH<.*$", "", text, flags=re.M)
    assert edited != text
    aiv.write_text(edited)
    x, w = np.zeros((32, 64), np.float16), np.zeros((64, 32), np.float16)
    y = np.zeros((32, 32), np.float32)
    t = time.monotonic()
    with pytest.raises(RuntimeFailure) as ei:
        run_tree(tree, [x, w, y], RunConfig(timeout=0.5), quiet=True)
    assert time.monotonic() - t < 10
    assert "kernel 'vexp_mm_aic'" in ei.value.message
    assert "TPOP: timed out waiting on pipe 0 (V2C, lane 0)" in ei.value.message


def test_spmd_submit_errors(tmp_path):
    @pl.program
    class NoCoreNum:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
            y = pl.store(pl.load(x, [0, 0], [32, 64]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
            y, tid = pl.spmd_submit(self.k, x, y)
            return y

    with pytest.raises(CompileError, match="needs the block count as core_num=") as ei:
        ptokit.compile(NoCoreNum, output_dir=tmp_path / "a")
    assert ei.value.loc.file == __file__

    @pl.program
    class NotATuple:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
            y = pl.store(pl.load(x, [0, 0], [32, 64]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
            y = pl.spmd_submit(self.k, x, y, core_num=2)
            return y

    with pytest.raises(CompileError, match="returns the kernel's result"):
        ptokit.compile(NotATuple, output_dir=tmp_path / "b")


def test_spmd_submit_task_id_orders_a_later_task(tmp_path):
    """`tid` from pl.spmd_submit names the SPMD task for a later pl.at(deps=[tid])."""
    @pl.program
    class Chain:
        @pl.function(type=pl.FunctionType.InCore)
        def rows(self, x: pl.Tensor[[128, 64], pl.FP32], y: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
            b = pl.tile.get_block_idx()
            y = pl.store(pl.adds(pl.load(x, [b * 32, 0], [32, 64]), b), [b * 32, 0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def twice(self, y: pl.Tensor[[128, 64], pl.FP32], z: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
            z = pl.store(pl.muls(pl.load(y, [0, 0], [128, 64]), 2.0), [0, 0], z)
            return z

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[128, 64], pl.FP32], y: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
                 z: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
            y, t0 = pl.spmd_submit(self.rows, x, y, core_num=4)
            with pl.at(deps=[t0]):
                z = self.twice(y, z)
            return y, z

    prog = ptokit.compile(Chain, output_dir=tmp_path)
    x = np.random.default_rng(0).standard_normal((128, 64)).astype(np.float32)
    y, z = np.zeros_like(x), np.zeros_like(x)
    prog(x, y, z)
    ref = x + np.repeat(np.arange(4), 32)[:, None]
    np.testing.assert_allclose(y, ref, rtol=1e-6)
    np.testing.assert_allclose(z, ref * 2, rtol=1e-6)
