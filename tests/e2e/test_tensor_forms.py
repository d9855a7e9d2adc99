"""The ``pl.tensor.*`` forms of the names that were tile-only (pypto-parity.md section F) against numpy:
on whole tensors in kernel code (FP32, the load path), and on tiles with a partial valid region for
every dtype each op takes (integer edge values included)."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from . import tensor_form_programs as T
from . import vecgen as V
from .vecgen import Op

FLOATS = ("FP32", "FP16", "BF16")
HALF_OR_WORD = ("FP32", "FP16", "BF16", "INT32", "INT16", "UINT32", "UINT16")
TRI = ("FP32", "FP16", "INT32", "INT16", "UINT32", "UINT16")
ALL = ("FP32", "FP16", "BF16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")


def test_tensor_forms_on_whole_tensors(tmp_path):
    rng = np.random.default_rng(5)
    R, C = T.R, T.C
    x = rng.standard_normal((R, C)).astype(np.float32)
    y = rng.standard_normal((R, C)).astype(np.float32)
    x[0, :4] = y[0, :4]                                          # ties: x < y is false
    offs = (rng.integers(0, R * C // 8, (R, 8)) * 32).astype(np.uint32)   # 32-byte blocks of x
    table = rng.standard_normal((T.TR, C)).astype(np.float32)
    rows = rng.integers(0, T.TR, (1, R)).astype(np.int32)
    shapes = [(R, C)] * 10 + [(8, 32), (R, 32), (R, C), (R, C), (R, C), (R, C)]
    outs = [np.zeros(s, np.float32) for s in shapes]
    ptokit.compile(T.TensorForms, output_dir=tmp_path / "out")(x, y, offs, table, rows, *outs)
    sel, sels, cmps, sin, cos, lrelu, prelu, mx, mn, tri, ext, gmask, gb, mg, pad, rs = outs
    lt = x < y
    assert np.array_equal(sel, np.where(lt, x, y))
    assert np.array_equal(sels, np.where(lt, x, np.float32(0.5)))
    assert np.array_equal(cmps, (x > 0).astype(np.float32))
    np.testing.assert_allclose(sin, np.sin(x), atol=2e-6)
    np.testing.assert_allclose(cos, np.cos(x), atol=2e-6)
    np.testing.assert_allclose(lrelu, np.where(x > 0, x, np.float32(0.1) * x), rtol=1e-6)
    np.testing.assert_allclose(prelu, np.where(x > 0, x, y * x), rtol=1e-6)
    assert np.array_equal(mx, np.maximum(x, np.float32(0.25)))
    assert np.array_equal(mn, np.minimum(x, np.float32(0.25)))
    i, j = np.indices((R, C))
    assert np.array_equal(tri, (j <= i + 1).astype(np.float32))
    assert np.array_equal(ext, x[2:10, 8:40])
    assert np.array_equal(gmask, x[:, 0::2])
    blocks = x.reshape(-1)
    want_gb = np.stack([np.concatenate([blocks[o // 4: o // 4 + 8] for o in row]) for row in offs])
    assert np.array_equal(gb, want_gb)
    assert np.array_equal(mg, table[rows[0]])
    want_pad = np.full((R, C), np.finfo(np.float32).max, np.float32)
    want_pad[:10, :40] = x[:10, :40]
    got = pad.copy()
    got[np.isinf(got)] = np.finfo(np.float32).max              # PadValue.max is the largest value (or +inf)
    assert np.array_equal(got, want_pad)
    np.testing.assert_allclose(rs, 1 / np.sqrt(np.abs(x)), rtol=1e-6)


def test_tensor_transpose_view_feeds_matmul(tmp_path):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((16, 32)).astype(np.float16)
    b = rng.standard_normal((16, 32)).astype(np.float16)
    out = np.zeros((16, 16), np.float32)
    ptokit.compile(T.TensorTransposeView, output_dir=tmp_path / "out")(a, b, out)
    np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32).T, rtol=1e-3, atol=1e-3)


def _ops(dtype):
    is_int = not dtype.startswith(("FP", "BF"))
    s = 3 if is_int else 2.5
    # pto.tmaxs / tmins on a2a3 take no BF16 or 8-bit tile (the real assembler's rule, refused at the DSL
    # line: tests/e2e/test_arith_ops.py::test_scalar_minmax_element_rule)
    minmax = dtype not in ("BF16", "INT8", "UINT8")
    out = [Op("maximums", f"pl.tensor.maximums(a, {s})", lambda a, b, c: np.maximum(a, a.dtype.type(s))),
           Op("minimums", f"pl.tensor.minimums(a, {s})", lambda a, b, c: np.minimum(a, a.dtype.type(s)))] if minmax \
        else []
    # BF16 is not compared, selected or leaky-relu'd by the vector unit on either platform (the real
    # assembler's element types: tests/e2e/test_compare_ops.py::test_bf16_compare_is_refused_at_the_dsl_line)
    bf16 = dtype == "BF16"
    out += [] if bf16 else [Op("cmps", f"pl.tensor.cmps(a, {s}, cmp_type=5)", lambda a, b, c: a >= a.dtype.type(s),
                               "mask")]
    if dtype in HALF_OR_WORD and not bf16:     # the mask is c's values: nonzero selects
        out += [Op("sel", "pl.tensor.sel(c, a, b)", lambda a, b, c: np.where(c != 0, a, b)),
                Op("sels", f"pl.tensor.sels(c, a, {s})", lambda a, b, c: np.where(c != 0, a, a.dtype.type(s)))]
    if dtype in FLOATS:
        out += [] if bf16 else [Op("lrelu", "pl.tensor.lrelu(a, 0.5)",
                                   lambda a, b, c: np.where(a > 0, a, a * a.dtype.type(0.5)))]
        # pto.tlrelu and pto.tprelu take f16 / f32 only, on both platforms (the real assembler's element types)
        out += [] if bf16 else [Op("prelu", "pl.tensor.prelu(a, b)", lambda a, b, c: np.where(a > 0, a, b * a))]
    if dtype in TRI:
        vr, vc = V.VALID
        out.append(Op("tri", f"pl.tensor.tri(-2, [{V.ROWS}, {V.COLS}], valid_shape=[{vr}, {vc}], dtype=pl.{dtype}, "
                             f"upper=True)", lambda a, b, c: (np.indices(a.shape)[1] >= np.indices(a.shape)[0] - 2)))
    return out


def _inputs(dtype):
    rng = np.random.default_rng(7)
    t = V.NP[dtype]
    if dtype in FLOATS:
        a = rng.uniform(-6, 6, (V.ROWS, V.COLS)).astype(np.float32).astype(t)
        b = rng.uniform(0, 1, (V.ROWS, V.COLS)).astype(np.float32).astype(t)
    else:
        lo, hi = np.iinfo(t).min, np.iinfo(t).max
        a = rng.integers(lo, hi, (V.ROWS, V.COLS), endpoint=True).astype(t)
        b = rng.integers(lo, hi, (V.ROWS, V.COLS), endpoint=True).astype(t)
        a[0, :4] = [lo, hi, 3, lo + 1]                      # the type's edges and the scalar itself
        b[0, :4] = [hi, lo, lo, hi]
    c = rng.integers(0, 3, (V.ROWS, V.COLS)).astype(t)      # a 1/0/2 value mask (about a third zeros)
    if dtype in FLOATS:
        a[1, 1] = np.inf
        a[1, 2] = -np.inf
    return a, b, c


@pytest.mark.parametrize("dtype", ALL)
def test_tensor_forms_every_dtype_partial_valid(tmp_path_factory, dtype):
    a, b, c = _inputs(dtype)
    table = _ops(dtype)
    if dtype == "BF16":
        # no op of the table takes bf16 on the device: prelu is f16 / f32 only on both platforms, refused at
        # the DSL line (the real assembler's words)
        assert not table
        prelu = [Op("prelu", "pl.tensor.prelu(a, b)", None)]
        prog = V.program(tmp_path_factory.getbasetemp(), "TensorFormsBF16Prelu", dtype, prelu)
        for platform in ("a2a3sim", "a5sim"):
            with pytest.raises(CompileError) as info:
                ptokit.compile(prog, output_dir=tmp_path_factory.mktemp("bf16prelu"), platform=platform)
            assert "'pto.tprelu' op expects dst/src0/src1 element type to be f16 or f32" in info.value.message
            assert "pl.tensor.prelu" in info.value.loc.source_line
        return
    outs = V.run(tmp_path_factory.getbasetemp(), f"TensorForms{dtype}", dtype, table, a, b, c)
    V.check(table, outs, a, b, c, dtype)
