"""Loop-carried tiles whose valid region changes inside the loop (issue 13): the loop carries the
extents as scalars, so the next iteration and the code after the loop (store, row_sum) see the
region the last iteration left, under both runtime kinds.  Rows outside a region must keep the
SENTINEL.  Before, the carried type kept the entry region: the tail programs did not assemble,
the while loop read past the tensor and the accumulated row sums wrote rows outside the region."""
import os
from pathlib import Path

import numpy as np
import pytest

import ptokit

from . import loop_valid_programs as lp

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
SENTINEL = -7.0
GOLDEN = Path(__file__).parent / "golden" / "loop_valid"
TR, C, R = lp.TR, lp.C, lp.R
_CACHE = {}


def _compiled(prog, runtime, tmp_path_factory):
    key = (id(prog), runtime)
    if key not in _CACHE:
        _CACHE[key] = ptokit.compile(prog, output_dir=tmp_path_factory.mktemp(f"loopvalid_{runtime}"), runtime=runtime)
    return _CACHE[key]


def _x():
    return np.random.default_rng(13).standard_normal((R, C)).astype(np.float32)


def _full(shape):
    return np.full(shape, SENTINEL, np.float32)


def _expect(out, want, rows, atol=1e-5, what=""):
    """out[:rows] is want[:rows]; the rest keeps SENTINEL."""
    np.testing.assert_allclose(out[:rows], want[:rows], rtol=1e-5, atol=atol, err_msg=what)
    assert (out[rows:] == SENTINEL).all(), f"{what}: rows past {rows} were written"


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("n", [200, 40, R, 129])
def test_last_iteration_loads_a_tail(runtime, n, tmp_path_factory):
    x = _x()
    nb = (n + TR - 1) // TR
    y, ys, yb = _full((TR, C)), _full((TR, 1)), _full((TR, C))
    _compiled(lp.Tail, runtime, tmp_path_factory)(x, n, nb, y, ys, yb)
    tail = n - (nb - 1) * TR
    last = x[(nb - 1) * TR:(nb - 1) * TR + TR]
    _expect(y, last, tail, what="store after the loop")
    _expect(ys, last.astype(np.float64).sum(axis=1, keepdims=True), tail, atol=1e-4, what="row_sum after the loop")
    _expect(yb, x[:TR], TR if nb > 1 else n, what="backward: block 0 last")


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("d", [8, 0, 20])
def test_accumulating_with_valid_rows_changing(runtime, d, tmp_path_factory):
    x = _x()
    y, ys = _full((TR, C)), _full((R, 1))
    _compiled(lp.Accumulate, runtime, tmp_path_factory)(x, d, y, ys)
    acc, rows = x[:TR].astype(np.float64), TR
    want_ys = _full((R, 1)).astype(np.float64)
    for i in range(1, lp.NB):
        want_ys[(i - 1) * TR:(i - 1) * TR + rows, 0] = acc[:rows].sum(axis=1)
        r = TR - i * d
        acc[:r] = x[i * TR:i * TR + r] + acc[:r]
        rows = r
    _expect(y, acc, rows, atol=1e-4, what="acc after the loop")
    np.testing.assert_allclose(ys, want_ys, rtol=1e-5, atol=1e-4, err_msg="row sums of the region at the top")


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("n", [200, 40, R])
def test_while_loop_carries_the_tail(runtime, n, tmp_path_factory):
    x = _x()
    nb = (n + TR - 1) // TR
    y = _full((TR, C))
    _compiled(lp.While, runtime, tmp_path_factory)(x, n, y)
    _expect(y, x[(nb - 1) * TR:(nb - 1) * TR + TR], n - (nb - 1) * TR, what="pl.while_ result")


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("n", [200, R, 150])
def test_nested_loops(runtime, n, tmp_path_factory):
    x = _x()
    y, ys = _full((TR, C)), _full((R, 1))
    _compiled(lp.Nested, runtime, tmp_path_factory)(x, n, y, ys)
    want_ys = _full((R, 1)).astype(np.float64)
    for p in range(lp.NB // 2):
        blk = 2 * p + 1
        rows = max(min(TR, n - blk * TR), 1)
        want_ys[p * TR:p * TR + rows, 0] = x[blk * TR:blk * TR + rows].astype(np.float64).sum(axis=1)
    np.testing.assert_allclose(ys, want_ys, rtol=1e-5, atol=1e-4, err_msg="row sums after each outer step")
    _expect(y, x[3 * TR:4 * TR], rows, what="store after both loops")


def test_pto_carries_the_extents(tmp_path_factory):
    """The tail's extent is an iter_arg of the loop, and the store after it uses the loop's result."""
    pto = (_compiled(lp.Tail, RUNTIMES[0], tmp_path_factory).output_dir / "ptoas" / "k.pto").read_text()
    assert "iter_args(%__t_valid0_1 = " in pto
    assert "sizes = [%__t_valid0_3, %c128_index]" in pto


def test_unaffected_program_pto_is_unchanged(tmp_path_factory):
    """A carried tile whose (static) region is the same at entry and at the end of the body: the
    .pto is the one ptokit made before loops carried valid extents (the golden was made then)."""
    t = _compiled(lp.Steady, RUNTIMES[0], tmp_path_factory).output_dir
    got = (t / "ptoas" / "k.pto").read_text()
    g = GOLDEN / "k.pto"
    if os.environ.get("PTOKIT_UPDATE_GOLDEN"):
        g.parent.mkdir(parents=True, exist_ok=True)
        g.write_text(got)
    assert got == g.read_text(), f"k.pto differs from {g}"
    assert "set_validshape" not in got and "iter_args" not in got


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_unaffected_program_runs(runtime, tmp_path_factory):
    x = _x()
    y = _full((TR, C))
    _compiled(lp.Steady, runtime, tmp_path_factory)(x, y)
    _expect(y, x.reshape(lp.NB, TR, C).astype(np.float64).sum(axis=0), 16, atol=1e-4, what="steady region")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_yield_binds_the_values_before_it(runtime, tmp_path_factory):
    x = _x()
    y = _full((TR, C))
    _compiled(lp.YieldSwap, runtime, tmp_path_factory)(x, y)
    _expect(y, x[:TR] + 5.0, 5, what="a = 5, t with b's old value (5) rows")


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("n", [40, 48, 33])
def test_matmul_with_run_time_valid_rows_in_a_loop(runtime, n, tmp_path_factory):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3 * lp.MT, lp.MK)).astype(np.float16)
    b = rng.standard_normal((lp.MK, lp.MN)).astype(np.float16)
    y = _full((lp.MT, lp.MN))
    k = _compiled(lp.MatmulTail, runtime, tmp_path_factory)
    k(a, b, n, y)
    ref = a[2 * lp.MT:].astype(np.float64) @ b.astype(np.float64)
    _expect(y, ref, n - 2 * lp.MT, atol=1e-3, what="Acc after the loop")
    pto = (k.output_dir / "ptoas" / "k.pto").read_text()
    assert "iter_args(%__acc_valid0_1 = " in pto      # the Acc's valid rows are carried
