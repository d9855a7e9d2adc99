"""cmp / cmps (packed masks), sel / sels and pl.cmp's scalar dispatch against numpy, for every dtype
they take, on a partial valid region (ties and, for floats, a NaN included)."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl

from . import vecgen as V
from .vecgen import Op

MODES = [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
         ("ge", np.greater_equal)]
# BF16 is not compared by the vector unit on either platform (pto.tcmps, pto.tsel: the real assembler's
# element types, test_bf16_compare_is_refused_at_the_dsl_line); 8-bit and 16-bit compares run on a5
MASK_DTYPES = ["FP32", "FP16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8"]
SELECT_DTYPES = {"FP32", "FP16", "BF16", "INT32", "INT16", "UINT32", "UINT16"}     # 2- and 4-byte elements


def ops(dtype):
    out = []
    for k, (m, f) in enumerate(MODES):
        out.append(Op(f"cmp_{m}", f"pl.cmp(a, b, cmp_type={k})", lambda a, b, c, f=f: f(a, b), "mask"))
        out.append(Op(f"cmps_{m}", f"pl.tile.cmps(a, 3, cmp_type={k})", lambda a, b, c, f=f: f(a, 3), "mask"))
    if dtype in SELECT_DTYPES:
        for k, (m, f) in enumerate(MODES):
            out.append(Op(f"sel_{m}", f"pl.tile.sel(pl.tile.cmp(a, b, cmp_type={k}), a, b, m8)",
                          lambda a, b, c, f=f: np.where(f(a, b), a, b)))
        s = 5 if dtype.startswith(("INT", "UINT")) else 2.5       # the scalar takes src's element type
        out.append(Op("sels_gt", f"pl.tile.sels(pl.cmp(a, c, cmp_type=4), a, m8, {s})",
                      lambda a, b, c: np.where(a > c, a, a.dtype.type(s))))
        out.append(Op("cmp_scalar_dispatch", "pl.tile.sel(pl.cmp(a, 2, cmp_type=3), b, c, m8)",
                      lambda a, b, c: np.where(a <= 2, b, c)))
    return out


def inputs(dtype):
    rng = np.random.default_rng(11)
    t = V.NP[dtype]
    a, b, c = (rng.integers(0, 7, (V.ROWS, V.COLS)).astype(t) for _ in range(3))
    if dtype in ("FP32", "FP16", "BF16"):
        a[1, 2] = np.nan          # compares unequal to everything, ordered comparisons false
        a[2, 3] = -np.inf
    return a, b, c


_MASK_ROWS = V.pto_isa_differs("numbers", "its CPU TCMPS packs the source's whole tile rows into one bit stream and "
                                          "refills the mask's rows from it; the device (its a2a3 TCmps) writes row r's "
                                          "bits at mask row r, as ptokit does")
_CMP_TYPES = V.pto_isa_differs("build", "its CPU TCMP takes int32, half and float sources only")


@pytest.mark.parametrize("dtype", V.params(MASK_DTYPES, {"FP32": _MASK_ROWS, "FP16": _MASK_ROWS, "INT32": _MASK_ROWS,
                                                         **{d: _CMP_TYPES for d in MASK_DTYPES[3:]}}))
def test_compare_and_select(tmp_path_factory, dtype):
    a, b, c = inputs(dtype)
    table = ops(dtype)
    outs = V.run(tmp_path_factory.getbasetemp(), f"Compare{dtype}", dtype, table, a, b, c)
    V.check(table, outs, a, b, c, dtype)


@_MASK_ROWS
def test_compare_and_select_under_host_build_graph(tmp_path_factory):
    a, b, c = inputs("FP32")
    table = ops("FP32")
    outs = V.run(tmp_path_factory.getbasetemp(), "CompareFP32", "FP32", table, a, b, c, runtime="host_build_graph")
    V.check(table, outs, a, b, c, "FP32")


def test_mask_encoding_is_one_bit_per_element_lsb_first(tmp_path_factory):
    """The bytes cover ceil(valid cols / 8) columns; bits past the last valid column are zero."""
    a, b, c = inputs("INT32")
    table = [Op("lt", "pl.cmp(a, b, cmp_type=2)", lambda a, b, c: a < b, "mask")]
    (mask,) = V.run(tmp_path_factory.getbasetemp(), "MaskBits", "INT32", table, a, b, c)
    vr, vc = V.VALID
    row = mask[0, :(vc + 7) // 8]
    bits = [(int(row[j // 8]) >> (j % 8)) & 1 for j in range(8 * len(row))]
    assert bits[:vc] == [int(x) for x in (a[0, :vc] < b[0, :vc])] and not any(bits[vc:])


@pl.program
class DynamicMask:
    """A runtime valid column count: the mask's valid columns are (n + 7) // 8."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
          m: pl.Out[pl.Tensor[[16, 32], pl.UINT8]]):
        t = pl.load(a, [0, 0], [16, 64], valid_shape=[16, n])
        mask = pl.cmp(t, 0.0, cmp_type=4)
        tmp = pl.tile.create_tile([1, 32], dtype=pl.UINT8)
        y = pl.store(pl.tile.sels(mask, t, tmp, -1.0), [0, 0], y)
        m = pl.store(mask, [0, 0], m)
        return y, m

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             m: pl.Out[pl.Tensor[[16, 32], pl.UINT8]]):
        y, m = self.k(a, n, y, m)
        return y, m


@V.pto_isa_differs("numbers", "select through the compare mask of a runtime valid region gives other values "
                            "(the mask row layout above; not isolated further)")
def test_mask_of_a_runtime_valid_region(tmp_path):
    a = np.random.default_rng(13).standard_normal((16, 64)).astype(np.float32)
    y, m = np.zeros_like(a), np.zeros((16, 32), np.uint8)
    ptokit.compile(DynamicMask, output_dir=tmp_path / "o")(a, 37, y, m)
    assert np.array_equal(y[:, :37], np.where(a > 0, a, -1)[:, :37]) and not y[:, 37:].any()
    assert np.array_equal(m[:, :5], np.packbits(a[:, :37] > 0, axis=1, bitorder="little")) and not m[:, 5:].any()


@pytest.mark.parametrize("platform, word", [("a2a3sim", "A2/A3"), ("a5sim", "A5")])
def test_bf16_compare_is_refused_at_the_dsl_line(tmp_path, platform, word):
    from ptokit.errors import CompileError
    table = [Op("cmps_ge", "pl.tile.cmps(a, 3, cmp_type=5)", lambda a, b, c: a >= 3, "mask")]
    prog = V.program(tmp_path, "CmpsBF16", "BF16", table)
    with pytest.raises(CompileError) as info:
        ptokit.compile(prog, output_dir=tmp_path / "out", platform=platform)
    assert info.value.message.startswith(f"'pto.tcmps' op expects {word} tcmps input element type to be ")
    assert "pl.tile.cmps(ta, 3" in info.value.loc.source_line
