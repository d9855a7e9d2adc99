"""The cube op set against numpy (pypto-parity.md D): matmul with a_trans/b_trans on tensors,
matmul_bias, matmul_acc with init_cond (runtime and literal), gemv / gemv_acc / gemv_bias, for
FP32, FP16 and BF16 inputs accumulating in FP32."""
import sys
from pathlib import Path

import numpy as np
import pytest

import ptokit
import ptokit.language as pl

from . import cube_programs as cp

_CACHE = {}


def _compiled(key, make, tmp_path_factory):
    if key not in _CACHE:
        _CACHE[key] = ptokit.compile(make(), output_dir=tmp_path_factory.mktemp(key))
    return _CACHE[key]


def _compiled_rt(key, program, runtime, tmp_path_factory):
    key = f"{key}_{runtime}"
    if key not in _CACHE:
        _CACHE[key] = ptokit.compile(program, output_dir=tmp_path_factory.mktemp(key), runtime=runtime)
    return _CACHE[key]


def _rand(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32).astype(dtype)


def _close(got, ref, dtype):
    tol = 1e-5 if dtype == "FP32" else 1e-3
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * max(np.abs(ref).max(), 1.0))


@pytest.mark.parametrize("dtype", ["FP32", "FP16", "BF16"])
def test_cube_family(dtype, tmp_path_factory):
    pdt = getattr(pl, dtype)
    run = _compiled(f"cube_{dtype}", lambda: cp.make_cube_family(pdt), tmp_path_factory)
    nd = pdt.numpy()
    a, b = _rand((cp.M, cp.K), nd, 1), _rand((cp.K, cp.N), nd, 2)
    bt, at = _rand((cp.N, cp.K), nd, 3), _rand((cp.K, cp.M), nd, 4)
    v, bias = _rand((1, cp.K), nd, 5), _rand((1, cp.N), np.float32, 6)
    outs = [np.zeros((cp.M, cp.N), np.float32) for _ in range(6)] + [np.zeros((1, cp.N), np.float32)
                                                                      for _ in range(3)]
    run(a, b, bt, at, v, bias, *outs)
    f = lambda x: x.astype(np.float64)   # noqa: E731
    ab = f(a) @ f(b)
    vb = f(v) @ f(b)
    refs = [f(a) @ f(bt).T, f(at).T @ f(b), ab + bias, ab + bias, ab, ab, vb, 2 * vb, vb + bias]
    names = ["y_bt", "y_at", "y_bias", "y_tbias", "y_init", "y_true", "y_gemv", "y_gacc", "y_gbias"]
    for name, got, ref in zip(names, outs, refs):
        try:
            _close(got, ref, dtype)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


def test_batch_matmul_broadcasts_and_transposes(tmp_path_factory):
    run = _compiled("batch", lambda: cp.BatchMatmul, tmp_path_factory)
    a3, b3 = _rand((cp.BB, cp.BM, cp.BK), np.float16, 7), _rand((cp.BB, cp.BK, cp.BN), np.float16, 8)
    b2, bt3 = _rand((cp.BK, cp.BN), np.float16, 9), _rand((1, cp.BN, cp.BK), np.float16, 10)
    outs = [np.zeros((cp.BB, cp.BM, cp.BN), np.float32) for _ in range(3)] + [np.zeros((cp.BM, cp.BN), np.float32)]
    run(a3, b3, b2, bt3, *outs)
    f = lambda x: x.astype(np.float64)   # noqa: E731
    refs = [f(a3) @ f(b3), f(a3) @ f(b2), f(a3) @ np.swapaxes(f(bt3), -1, -2), f(a3[1]) @ f(b3[2])]
    for name, got, ref in zip(["y3", "yb", "yt", "y1"], outs, refs):
        try:
            _close(got, ref, "FP16")
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_batch_matmul_acc_accumulates_per_batch(runtime, tmp_path_factory):
    run = _compiled_rt("batch_acc", cp.BatchMatmulAcc, runtime, tmp_path_factory)
    a3, b3 = _rand((cp.BB, cp.BM, cp.BK), np.float16, 27), _rand((cp.BB, cp.BK, cp.BN), np.float16, 28)
    b2, bt3 = _rand((cp.BK, cp.BN), np.float16, 29), _rand((1, cp.BN, cp.BK), np.float16, 30)
    outs = [np.full((cp.BB, cp.BM, cp.BN), 5.0, np.float32) for _ in range(4)] + [np.zeros((cp.BM, cp.BN), np.float32)]
    run(a3, b3, b2, bt3, *outs)
    f = lambda x: x.astype(np.float64)   # noqa: E731
    ab, a2 = f(a3) @ f(b3), f(a3) @ f(b2)
    refs = [ab + a2, ab, ab + f(a3) @ np.swapaxes(f(bt3), -1, -2), a2, 2 * f(a3[1]) @ f(b3[2])]
    for name, got, ref in zip(["ya", "yk", "yt", "yi", "y1"], outs, refs):
        try:
            _close(got, ref, "FP16")
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


def test_batch_matmul_acc_without_batches_is_matmul_acc(tmp_path_factory):
    run = _compiled("batch_acc_2d", lambda: cp.BatchMatmulAcc2D, tmp_path_factory)
    a, b = _rand((cp.BM, cp.BK), np.float16, 31), _rand((cp.BK, cp.BN), np.float16, 32)
    ab = a.astype(np.float64) @ b.astype(np.float64)
    for c, scale in ((0, 1), (3, 2)):
        y, y2 = np.zeros((cp.BM, cp.BN), np.float32), np.zeros((cp.BM, cp.BN), np.float32)
        run(a, b, y, y2, c)
        _close(y, 2 * ab, "FP16")
        _close(y2, scale * ab, "FP16")


def test_create_l1_and_gather_row_feed_the_cube(tmp_path_factory):
    run = _compiled("gather_l1", lambda: cp.GatherL1, tmp_path_factory)
    q, p = _rand((cp.GM_, cp.GD), np.float16, 11), _rand((cp.GM_, cp.GR), np.float16, 12)
    pool = _rand((cp.GP, cp.GD), np.float16, 13)
    idx = np.random.default_rng(14).permutation(cp.GP)[:cp.GR].astype(np.int32).reshape(1, cp.GR)
    s, s2 = np.zeros((cp.GM_, cp.GR), np.float32), np.zeros((cp.GM_, cp.GR), np.float32)
    o = np.zeros((cp.GM_, cp.GD), np.float32)
    run(q, p, pool, idx, s, s2, o)
    kv = pool[idx[0]].astype(np.float64)
    _close(s, q.astype(np.float64) @ kv.T, "FP16")
    _close(s2, q.astype(np.float64) @ kv.T, "FP16")
    _close(o, p.astype(np.float64) @ kv, "FP16")


def test_paged_gather_over_a_block_table(tmp_path_factory):
    run = _compiled("paged", lambda: cp.PagedGather, tmp_path_factory)
    rng = np.random.default_rng(15)
    q, p = _rand((cp.GM_, cp.PD), np.float16, 16), _rand((cp.GM_, cp.PNI), np.float16, 17)
    pool = _rand((cp.PB * cp.PBS, cp.PD), np.float16, 18)
    table = rng.permutation(cp.PB).astype(np.int32).reshape(1, cp.PB)
    idx = rng.integers(0, cp.PB * cp.PBS, (1, cp.PNI)).astype(np.int32)
    s, s2 = np.zeros((cp.GM_, cp.PNI), np.float32), np.zeros((cp.GM_, cp.PNI), np.float32)
    o, oh = np.zeros((cp.GM_, cp.PD), np.float32), np.zeros((cp.GM_, cp.PD // 2), np.float32)
    run(q, p, pool, idx, table, s, s2, o, oh)
    i = idx[0]
    phys = table[0, i // cp.PBS] * cp.PBS + i % cp.PBS
    kv = pool[phys].astype(np.float64)
    _close(s, q.astype(np.float64) @ kv.T, "FP16")
    _close(s2, q.astype(np.float64) @ kv.T, "FP16")
    _close(o, p.astype(np.float64) @ kv, "FP16")
    _close(oh, p.astype(np.float64) @ kv[:, cp.PD // 2:], "FP16")



def test_flash_attention_example(tmp_path_factory):
    """examples/flash_attention.py at a small size: online softmax over 4 key blocks, fp16 inputs."""
    sys.path.insert(0, str(Path(__file__).parents[2] / "examples"))
    import flash_attention as fa
    nq, ns, nd, nb = 16, 128, 64, 32
    run = _compiled("flash", lambda: fa.make_flash(nq, ns, nd, nb), tmp_path_factory)
    q, k, v = (_rand(s, np.float16, seed) for s, seed in (((nq, nd), 19), ((ns, nd), 20), ((ns, nd), 21)))
    o = np.zeros((nq, nd), np.float32)
    run(q, k, v, o)
    ref = fa.reference(q, k, v)
    np.testing.assert_allclose(o, ref, rtol=2e-3, atol=2e-3 * np.abs(ref).max())


@pytest.mark.parametrize("spmd", [False, True], ids=["one_task", "spmd"])
def test_paged_attention_example(spmd, tmp_path_factory):
    """examples/paged_attention.py at a small size: 8 sequences of 1 .. 4 pages of 16 keys (a full
    table, whole pages, a single key, partial last pages), one task looping over them or one SPMD
    block each."""
    sys.path.insert(0, str(Path(__file__).parents[2] / "examples"))
    import paged_attention as pa
    batch, heads, dim, bs, maxb = 8, 16, 64, 16, 4
    pages = batch * maxb + 3                  # a pool with pages no sequence uses
    run = _compiled(f"paged_attention_{spmd}", lambda: pa.make_paged_attention(batch, heads, dim, bs, maxb, pages,
                                                                              spmd=spmd), tmp_path_factory)
    q, kc, vc, table, _ = pa.make_inputs(batch, heads, dim, bs, maxb, pages, seed=22)
    lens = np.array([64, 32, 1, 17, 63, 16, 40, 5], np.int32)
    out = np.full((batch * heads, dim), np.nan, np.float32)
    run(q, kc, vc, table, lens, out)
    ref = pa.reference(q, kc, vc, table, lens, heads, bs, maxb)
    np.testing.assert_allclose(out, ref, rtol=2e-3, atol=2e-3 * np.abs(ref).max())
