"""A matmul's Acc result carries the Left operand's valid rows and the Right operand's valid
columns (issue 13): stored straight from the Acc, or moved to Vec, only those reach the tensor.
Static valid rows (M not a multiple of the tile, the last block loaded past the tensor's edge) and
run-time ones (a scalar parameter), under both runtime kinds."""
import numpy as np
import pytest

import ptokit

from . import matmul_valid_programs as mp

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
SENTINEL = -7.0
_CACHE = {}


def _compiled(prog, runtime, tmp_path_factory):
    key = (id(prog), runtime)
    if key not in _CACHE:
        _CACHE[key] = ptokit.compile(prog, output_dir=tmp_path_factory.mktemp(f"mmvalid_{runtime}"), runtime=runtime)
    return _CACHE[key]


def _inputs(rows):
    rng = np.random.default_rng(13)
    a = rng.standard_normal((rows, mp.K)).astype(np.float16)
    b = rng.standard_normal((mp.K, mp.N)).astype(np.float16)
    bias = rng.standard_normal((1, mp.N)).astype(np.float32)
    return a, b, bias


def _check(outs, a, b, bias, n, nc, row0=0):
    """Rows row0 .. n - 1 and columns 0 .. nc - 1 of each output hold the result, the rest SENTINEL."""
    ref = a.astype(np.float64) @ b.astype(np.float64)
    for name, out, want in zip(("matmul", "matmul_bias", "matmul_acc", "move to Vec"), outs,
                               (ref, ref + bias, ref, ref + 1)):
        np.testing.assert_allclose(out[row0:n, :nc], want[row0:n, :nc], rtol=1e-3, atol=1e-3, err_msg=name)
        rest = np.ones(out.shape, bool)
        rest[row0:n, :nc] = False
        assert (out[rest] == SENTINEL).all(), f"{name}: rows/cols outside the valid region were written"


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_static_valid_rows_past_the_edge(runtime, tmp_path_factory):
    a, b, bias = _inputs(mp.M)
    outs = [np.full((mp.M, mp.N), SENTINEL, np.float32) for _ in range(2)]
    _compiled(mp.StaticTail, runtime, tmp_path_factory)(a, b, bias, *outs)
    _check(outs, a, b, bias, mp.M, mp.N, row0=2 * mp.TM)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_row_blocks_with_a_partial_last_block(runtime, tmp_path_factory):
    a, b, bias = _inputs(mp.M)
    outs = [np.full((mp.M, mp.N), SENTINEL, np.float32) for _ in range(4)]
    _compiled(mp.Blocked, runtime, tmp_path_factory)(a, b, bias, *outs)
    _check(outs, a, b, bias, mp.M, mp.NV)


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("n,nc", [(mp.TM, mp.N), (5, mp.NV), (1, 17)])
def test_runtime_valid_rows(runtime, n, nc, tmp_path_factory):
    a, b, bias = _inputs(mp.TM)
    outs = [np.full((mp.TM, mp.N), SENTINEL, np.float32) for _ in range(4)]
    _compiled(mp.RuntimeValid, runtime, tmp_path_factory)(a, b, bias, n, nc, *outs)
    _check(outs, a, b, bias, n, nc)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_valid_rows_set_on_the_tile(runtime, tmp_path_factory):
    a, b, _ = _inputs(mp.TM)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    k = _compiled(mp.ViewValid, runtime, tmp_path_factory)
    for n in (5, mp.TM):
        y, y16 = np.full((mp.TM, mp.N), SENTINEL, np.float32), np.full((mp.TM, mp.N), SENTINEL, np.float16)
        k(a, b, n, y, y16)
        np.testing.assert_allclose(y[:n], ref[:n], rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(y16[:n].astype(np.float64), ref[:n], rtol=1e-2, atol=1e-2)
        assert (y[n:] == SENTINEL).all() and (y16[n:] == SENTINEL).all(), f"n={n}: rows past n were written"


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_valid_rows_merged_after_a_branch(runtime, tmp_path_factory):
    a, b, _ = _inputs(mp.TM)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    k = _compiled(mp.BranchValid, runtime, tmp_path_factory)
    for flag, rows in ((1, 5), (0, mp.TM)):
        y = np.full((mp.TM, mp.N), SENTINEL, np.float32)
        k(a, b, 5, flag, y)
        np.testing.assert_allclose(y[:rows], ref[:rows], rtol=1e-3, atol=1e-3, err_msg=f"flag={flag}")
        assert (y[rows:] == SENTINEL).all(), f"flag={flag}: rows past {rows} were written"


@pytest.mark.parametrize("n,nc", [(0, mp.N), (3, 0)])
def test_no_valid_rows_or_cols_is_a_run_time_error(n, nc, tmp_path_factory):
    """As on the cube, TMATMUL takes 1..4095 valid rows and columns: 0 stops the run with the numbers."""
    a, b, bias = _inputs(mp.TM)
    outs = [np.full((mp.TM, mp.N), SENTINEL, np.float32) for _ in range(4)]
    with pytest.raises(ptokit.errors.RuntimeFailure, match=rf"TMATMUL: m={n}, k={mp.K}, n={nc} .*1\.\.4095"):
        _compiled(mp.RuntimeValid, RUNTIMES[0], tmp_path_factory)(a, b, bias, n, nc, *outs)
