"""The drift fixed by the one op table and the one front end: parameter names are the table's
(pypto's), and the program parser and @pl.jit read pl.at / pl.spmd / windows the same way."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from . import drift_programs as D

SRC = D.__file__


def _line_of(text, after=None):
    seen = after is None
    for i, line in enumerate(open(SRC), start=1):
        seen = seen or after in line
        if seen and text in line:
            return i
    raise AssertionError(text)


def located(err, needle, after=None):
    assert err.loc is not None and err.loc.file == SRC and err.loc.line == _line_of(needle, after), (err.loc, needle)
    assert needle in str(err).splitlines()[1]


def compile_error(program, tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    return info.value


def test_row_sum_names_its_real_parameters(tmp_path):
    err = compile_error(D.RowSumTmpKeyword, tmp_path)
    assert "pl.row_sum has no parameter 'tmp' (parameters: tile, tmp_tile)" in str(err)
    located(err, "pl.row_sum(t, tmp=tmp)")
    assert str(err).splitlines()[2].index("^") == str(err).splitlines()[1].index("tmp)")


def test_pypto_spellings_and_aliases_run(tmp_path):
    c = ptokit.compile(D.PyptoSpellings, output_dir=tmp_path / "out")
    a = np.random.default_rng(1).standard_normal((16, 64)).astype(np.float32)
    out = np.zeros_like(a)
    c(a, out)
    s = a.sum(axis=1, keepdims=True, dtype=np.float64).astype(np.float32)
    r = (a - a.max(axis=1, keepdims=True)) + s
    want = np.concatenate([r[:8] + 2, r[8:]], axis=1).reshape(16, 64)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
    pto = (c.output_dir / "ptoas" / "k.pto").read_text()
    assert "pto.trowsum" in pto and "pto.trowmax" in pto and "pto.tconcat" in pto
    # pl.adds(top, 2) next to an f32 tile: an f32 constant, no integer-to-float conversion at run time
    assert "arith.constant 2.000000e+00 : f32" in pto and "sitofp" not in pto


@pytest.mark.parametrize("program,message,needle", [
    (D.AtUnknownKeyword, "pl.at has no parameter 'windowize' (parameters: level, name_hint, deps, dumps, no_dep_args, optimizations, allow_early_resolve)", "windowize=True"),
    (D.AtDepsNotNames, "deps= takes task ids (bound with `as`, by pl.submit or pl.system.task_dummy) and "
                         "pl.TASK_ID arrays, but '0' is pl.Scalar[pl.INDEX]", "deps=[0]"),
    (D.SpmdKeyword, "pl.spmd has no parameter 'stride' (parameters: core_num, sync_start, name_hint, deps, allow_early_resolve, "
                   "predicate, optimizations)", "pl.spmd(4, stride"),
    (D.RangeKeyword, "pl.range takes its bounds positionally (start, stop, step)", "pl.range(2, step=1)"),
])
def test_orchestration_and_loops_reject_what_they_do_not_understand(tmp_path, program, message, needle):
    err = compile_error(program, tmp_path)
    assert message in str(err)
    located(err, needle)


def test_jit_reads_pl_at_like_programs(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    x = np.zeros((64, 64), np.float32)
    with pytest.raises(CompileError) as info:
        D.jit_at_unknown_keyword.parse(x, np.zeros_like(x))
    assert "pl.at has no parameter 'windowize' (parameters: level, name_hint, deps, dumps, no_dep_args, optimizations, allow_early_resolve)" in str(info.value)
    located(info.value, "windowize=True", after="def jit_at_unknown_keyword")


def test_window_writes_fold_their_bounds(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    x = np.zeros((32, 64), np.float32)
    with pytest.raises(CompileError) as info:
        D.window_write_mismatch.parse(x, np.zeros_like(x))
    assert "is [32, 64] but the value is a [16, 64] tile" in str(info.value)
    located(info.value, "y[i * 32:(i + 1) * 32, :] = t")
    x = np.random.default_rng(2).standard_normal((32, 64)).astype(np.float32)
    y = np.zeros_like(x)
    D.window_write_folded(x, y)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_jit_bodies_pass_windows_as_task_arguments(tmp_path, monkeypatch, runtime):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    from ptokit.runtime import RunConfig
    x = np.random.default_rng(3).standard_normal((64, 64)).astype(np.float32)
    y = np.zeros_like(x)
    D.jit_window_task_args(x, y, config=RunConfig(runtime=runtime))
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)


def test_every_pypto_dtype_name_exists():
    import ptokit.language as pl
    for name in ("UINT8", "UINT16", "UINT32", "UINT64", "INT4", "UINT4", "FP4", "FP8E4M3FN", "FP8E5M2", "FP8E8M0",
                 "FP4E2M1", "FP4E1M2", "FP4E2M1X2", "HF4", "HF8", "BF16", "INDEX"):
        assert getattr(pl, name).name == name
    assert pl.UINT16.get_byte() == 2 and pl.FP8E4M3FN.get_byte() == 1 and pl.FP4.get_byte() == 1
    assert pl.UINT32.is_unsigned and not pl.INT32.is_unsigned and pl.FP8E5M2.is_float


def test_hifloat_formats_are_a_located_error(tmp_path):
    err = compile_error(D.Fp8Tensor, tmp_path)
    assert "tensors of pl.HF8 are not supported: the HiFloat formats have no published encoding" in str(err)
    located(err, "a: pl.Tensor[[16, 64], pl.HF8]")


def test_uint16_tensors_run(tmp_path):
    a = np.arange(16 * 64, dtype=np.uint16).reshape(16, 64) * 61
    out = np.zeros_like(a)
    ptokit.compile(D.Uint16Copy, output_dir=tmp_path / "out")(a, out)
    assert np.array_equal(out, a)
