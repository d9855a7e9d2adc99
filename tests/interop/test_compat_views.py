"""Under ``ptoas_compat="0.27"`` a ``pto.treshape`` to another shape or layout carries its valid region
in its result type, or is refused at its DSL line: ptoas 0.27's C++ starts a dynamic-valid view with
the SOURCE's valid sizes (a 32x1 column seen as 1x32 gets valid rows 32), where ptokit's library
starts it whole, so a dynamic-valid view would mean one thing there and another with the real tool."""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import ToolRefusal
from ptokit.targets import PTOAS_COMPAT_ENV

TESTS = Path(__file__).parents[1]


def _programs(rel: str):
    path = TESTS / rel
    spec = importlib.util.spec_from_file_location(f"compat_views_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


shared = _programs("programs.py")
forms = _programs("e2e/tensor_form_programs.py")

# program, how many shape-changing views its kernels hold (so that the check below cannot pass empty)
VIEWS = [(shared.LayerNormish, 2), (shared.AuditFixes, 1), (forms.TensorTransposeView, 1)]


_FIELDS = re.compile(r"rows=(\d+), cols=(\d+), v_row=(\?|\d+), v_col=(\?|\d+), blayout=(\w+)")


def _reshapes(out: Path):
    """(source fields, result fields, file) of every pto.treshape that changes shape or layout; a field
    tuple is (rows, cols, v_row, v_col, blayout), a dynamic valid size '?'."""
    found = []
    for f in sorted(out.rglob("*.pto")):
        for line in f.read_text().splitlines():
            if "= pto.treshape " not in line:
                continue
            src, res = _FIELDS.findall(line)
            if (src[0], src[1], src[4]) != (res[0], res[1], res[4]):
                found.append((src, res, f.name))
    return found


@pytest.mark.parametrize("program, count", VIEWS, ids=[p.name for p, _ in VIEWS])
def test_a_whole_view_states_its_valid_region_for_027(tmp_path, program, count):
    ptokit.compile(program, output_dir=tmp_path / "compat", ptoas_compat="0.27")
    views = _reshapes(tmp_path / "compat")
    assert len(views) == count, views
    for src, res, where in views:
        assert "?" not in (res[2], res[3]), f"{where}: {src} -> {res} has a dynamic valid region"
        assert int(res[2]) <= int(res[0]) and int(res[3]) <= int(res[1]), (where, res)


def test_pypto_heads_form_is_kept_without_the_option(tmp_path, monkeypatch):
    monkeypatch.delenv(PTOAS_COMPAT_ENV, raising=False)     # --real-tools with a 0.27 sets it
    ptokit.compile(shared.AuditFixes, output_dir=tmp_path / "head")
    views = _reshapes(tmp_path / "head")
    assert views and all(res[2] == "?" for _, res, _ in views), views


@pl.program
class RuntimeValidViews:
    """A partial tile with run-time valid rows seen as another dtype: as INT32 (the same shape) it is
    stored; as FP16 (twice the columns) it is not written for ptoas 0.27."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INT32],
          z: pl.Out[pl.Tensor[[32, 64], pl.INT32]]):
        t = pl.load(a, [0, 0], [32, 64], valid_shape=[n, 64])
        z = pl.store(pl.tile.reinterpret_view(t, pl.INT32), [0, 0], z)
        return z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INT32],
             z: pl.Out[pl.Tensor[[32, 64], pl.INT32]]):
        z = self.k(a, n, z)
        return z


@pl.program
class RuntimeValidWiden:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INT32],
          z: pl.Out[pl.Tensor[[32, 128], pl.FP16]]):
        t = pl.load(a, [0, 0], [32, 64], valid_shape=[n, 64])
        z = pl.store(pl.tile.reinterpret_view(t, pl.FP16), [0, 0], z)
        return z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INT32],
             z: pl.Out[pl.Tensor[[32, 128], pl.FP16]]):
        z = self.k(a, n, z)
        return z


@pytest.mark.parametrize("compat", [None, "0.27"])
def test_a_run_time_valid_view_has_its_valid_region_set(tmp_path, compat):
    """The view's own valid rows (n), not the whole tile (ptokit's library) nor whatever the source's
    handle holds (0.27's C++): the store writes rows 0..n-1 only."""
    a = np.random.default_rng(1).standard_normal((32, 64)).astype(np.float32)
    z = np.full((32, 64), 7, np.int32)
    kernel = ptokit.compile(RuntimeValidViews, output_dir=tmp_path / "out", ptoas_compat=compat)
    text = "".join(p.read_text() for p in (kernel.output_dir / "ptoas").glob("*.pto"))
    assert re.search(r"(%\w+) = pto\.treshape .*\n(\s*%\w+ = arith\..*\n)*\s*pto\.set_validshape \1, ", text), text
    kernel(a, 5, z)
    assert np.array_equal(z[:5], a[:5].view(np.int32))
    assert (z[5:] == 7).all()


def test_a_run_time_valid_view_of_another_shape_is_a_located_error_for_027(tmp_path, monkeypatch):
    with pytest.raises(ToolRefusal) as info:
        ptokit.compile(RuntimeValidWiden, output_dir=tmp_path / "compat", ptoas_compat="0.27")
    err = info.value
    assert "'pto.treshape'" in err.message and "ptoas 0.27" in err.message, err.message
    assert err.loc is not None and "pl.tile.reinterpret_view(t, pl.FP16)" in err.loc.source_line, err.loc
    assert not list((tmp_path / "compat").rglob("*.pto")), "no .pto is written for the release"
    monkeypatch.delenv(PTOAS_COMPAT_ENV, raising=False)     # --real-tools with a 0.27 sets it
    ptokit.compile(RuntimeValidWiden, output_dir=tmp_path / "head")      # pypto HEAD's form is written


matmul_valid = _programs("e2e/matmul_valid_programs.py")


def _bias_allocs(out: Path):
    return [line for f in sorted(out.rglob("*.pto")) for line in f.read_text().splitlines()
            if "pto.alloc_tile" in line and "loc=bias" in line]


def test_a_bias_tile_states_its_valid_region_for_027(tmp_path, monkeypatch):
    """ptoas 0.27 turns a dynamic-valid Bias tile at an address into ``uint64_t v = bias.data();``, C++
    that no library compiles; with the valid region in its type it writes ``Tile<Bias, ..., 1, 48> v;``
    + TASSIGN. The numbers stay a @ b + bias."""
    kernel = ptokit.compile(matmul_valid.StaticTail, output_dir=tmp_path / "compat", ptoas_compat="0.27")
    (alloc,) = _bias_allocs(tmp_path / "compat")
    assert "v_row=1, v_col=48" in alloc and "valid_row" not in alloc, alloc
    rng = np.random.default_rng(2)
    M, K, N, TM = matmul_valid.M, matmul_valid.K, matmul_valid.N, matmul_valid.TM
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    bias = rng.standard_normal((1, N)).astype(np.float32)
    y, yb = (np.zeros((M, N), np.float32) for _ in range(2))
    kernel(a, b, bias, y, yb)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(yb[2 * TM:], (ref + bias)[2 * TM:], rtol=1e-3, atol=1e-3)
    monkeypatch.delenv(PTOAS_COMPAT_ENV, raising=False)     # --real-tools with a 0.27 sets it
    ptokit.compile(matmul_valid.StaticTail, output_dir=tmp_path / "head")     # pypto HEAD's form is kept
    (alloc,) = _bias_allocs(tmp_path / "head")
    assert "v_row=?, v_col=?" in alloc and "valid_row = " in alloc, alloc
