"""Mixed cube+vector kernels and SPMD identity end to end on the simulator, against numpy,
under both runtime kinds; and a FIFO misuse that must fail with the timeout error, not hang."""
import re
import shutil
import time

import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import RuntimeFailure
from ptokit.runtime.config import RunConfig
from ptokit.runtime.launcher import run_tree

from .mixed_util import P

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
_CACHE = {}


def compiled(key, prog, tmp_path_factory, runtime):
    if (key, runtime) not in _CACHE:
        _CACHE[(key, runtime)] = ptokit.compile(prog, output_dir=tmp_path_factory.mktemp(f"{key}_{runtime[:4]}"),
                                                runtime=runtime)
    return _CACHE[(key, runtime)]


def rand(shape, dtype, seed, scale=0.2):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def f64(x):
    return x.astype(np.float64)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_matmul_exp_mixed_kernel(runtime, tmp_path_factory):
    a, b = rand((64, 64), np.float16, 1), rand((64, 64), np.float16, 2)
    y = np.zeros((64, 64), np.float32)
    compiled("mmexp", P.MatmulExp, tmp_path_factory, runtime)(a, b, y)
    np.testing.assert_allclose(y, np.exp(f64(a) @ f64(b)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("blocks", [4, 12])      # 12 blocks > 8 clusters: blocks wait for a free cluster
def test_spmd_mixed_kernel(blocks, runtime, tmp_path_factory):
    a, w = rand((blocks * 64, 64), np.float16, 3), rand((64, 64), np.float16, 4)
    y = np.zeros((blocks * 64, 64), np.float32)
    compiled(f"spmd{blocks}", P.make_matmul_exp_spmd(blocks), tmp_path_factory, runtime)(a, w, y)
    np.testing.assert_allclose(y, np.exp(f64(a) @ f64(w)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_spmd_group_with_non_spmd_sibling(runtime, tmp_path_factory):
    a, w = rand((64, 64), np.float16, 5), rand((64, 64), np.float16, 6)
    y = np.zeros((256, 64), np.float32)
    compiled("sibling", P.SpmdSibling, tmp_path_factory, runtime)(a, w, y)
    ref = np.concatenate([(f64(a) @ f64(w)) * (b + 1) for b in range(4)])
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_loop_around_the_boundary(runtime, tmp_path_factory):
    a, w = rand((64, 64), np.float16, 7), rand((64, 64), np.float16, 8)
    y = np.zeros((64, 64), np.float32)
    compiled("rows", P.RowBlocksLoop, tmp_path_factory, runtime)(a, w, y)
    np.testing.assert_allclose(y, np.maximum(f64(a) @ f64(w), 0) + 1, rtol=1e-5, atol=1e-6)


def test_two_popped_tiles_live_at_once(tmp_path_factory):
    a, b, c = rand((32, 64), np.float32, 9), rand((64, 64), np.float32, 10), rand((64, 64), np.float32, 11)
    y = np.zeros((32, 64), np.float32)
    prog = compiled("two", P.TwoPushes, tmp_path_factory, RUNTIMES[0])
    prog(a, b, c, y)
    np.testing.assert_allclose(y, f64(a) @ f64(b) + f64(a) @ f64(c), rtol=1e-5, atol=1e-5)
    pto = (prog.output_dir / "ptoas" / "two.pto").read_text()
    assert "%v1__slot = pto.tpop_from_aic" in pto     # copied out of its slot before the next pop


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_paged_attention_decode(runtime, tmp_path_factory):
    q = rand((P.QR, P.HD), np.float16, 12, 1.0)
    kt = rand((P.HD, P.NB * P.BS), np.float16, 13, 1.0)
    v = rand((P.NB * P.BS, P.HD), np.float16, 14, 1.0)
    out = np.zeros((P.QR, P.HD), np.float32)
    compiled("paged", P.PagedDecode, tmp_path_factory, runtime)(q, kt, v, out)
    s = (f64(q) @ f64(kt)) * 0.125
    p = np.exp(s - s.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    ref = p @ f64(v)
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-3 * np.abs(ref).max())


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_block_idx_vector_kernel(runtime, tmp_path_factory):
    x = rand((128, 64), np.float32, 15)
    y = np.zeros_like(x)
    compiled("blockrows", P.BlockRows, tmp_path_factory, runtime)(x, y)
    np.testing.assert_allclose(y, x * 2 + np.repeat(np.arange(4), 32)[:, None], rtol=1e-6)


def test_lone_aiv_kernel_sees_its_cores_lane(tmp_path_factory):
    x = rand((32, 64), np.float32, 16)
    y = np.zeros_like(x)
    compiled("lane", P.SubblockLane, tmp_path_factory, RUNTIMES[0])(x, y)
    lane = float(np.round(y - x).flat[0])
    assert lane in (0.0, 1.0)
    np.testing.assert_allclose(y, x + lane, rtol=1e-6)


def test_pop_without_push_fails_with_timeout_not_hang(tmp_path_factory):
    """A hand-edited AIC kernel that never pushes: the AIV lanes' TPOP time out, naming kernel and pipe."""
    src = compiled("rows", P.RowBlocksLoop, tmp_path_factory, RUNTIMES[0])
    tree = tmp_path_factory.mktemp("misuse") / "tree"
    shutil.copytree(src.output_dir, tree)
    aic = tree / "kernels" / "aic" / "rows_aic.cpp"
    text = aic.read_text()
    edited = re.sub(r"^\s*TPUSH<.*$", "", text, flags=re.M)
    assert edited != text
    aic.write_text(edited)
    a, w = np.zeros((64, 64), np.float16), np.zeros((64, 64), np.float16)
    y = np.zeros((64, 64), np.float32)
    t = time.monotonic()
    with pytest.raises(RuntimeFailure) as ei:
        run_tree(tree, [a, w, y], RunConfig(timeout=0.5), quiet=True)
    assert time.monotonic() - t < 10
    msg = ei.value.message
    assert ei.value.code == 101
    assert "kernel 'rows_aiv'" in msg and "TPOP: timed out waiting on pipe 0 (C2V, lane" in msg


@pl.program
class TwoSlotSizes:
    """Two mixed kernels whose pipe 0 has different slot sizes ([32, 64] and [64, 64] FP32 tiles)."""

    @pl.function(type=pl.FunctionType.InCore)
    def small(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
              y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        ta = pl.move(pl.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
        y = pl.store(pl.exp(v), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def large(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
              y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
        y = pl.store(pl.exp(v), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a1: pl.Tensor[[32, 64], pl.FP16], a2: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             y1: pl.Out[pl.Tensor[[32, 64], pl.FP32]], y2: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y1 = self.small(a1, b, y1)
        y2 = self.large(a2, b, y2)
        return y1, y2


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_one_cluster_runs_kernels_with_other_slot_sizes_on_one_pipe(runtime, tmp_path_factory):
    """On one cluster the second kernel's pipe 0 reuses the FIFO the first one used: an idle FIFO
    takes the new slot size (it kept the first kernel's and failed 'slot size mismatch' before)."""
    a1, a2, b = rand((32, 64), np.float16, 3), rand((64, 64), np.float16, 4), rand((64, 64), np.float16, 5)
    y1, y2 = np.zeros((32, 64), np.float32), np.zeros((64, 64), np.float32)
    compiled("slots", TwoSlotSizes, tmp_path_factory, runtime)(a1, a2, b, y1, y2, config=RunConfig(clusters=1))
    np.testing.assert_allclose(y1, np.exp(f64(a1) @ f64(b)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y2, np.exp(f64(a2) @ f64(b)), rtol=1e-5, atol=1e-6)
