"""Forms ptoas 0.27 reads differently from pypto HEAD, written its way under ``ptoas_compat="0.27"`` (the
0.27 text was run through the real 0.27: tests/interop/fixtures/rows/); pypto HEAD's form stays the default."""
from __future__ import annotations

import numpy as np

import ptokit
import ptokit.language as pl
from ptokit.backend.assembler import assemble_text


@pl.program
class Descending:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, start: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[1, 32], pl.INT32]]):
        y = pl.store(pl.arange(start, [1, 32], dtype=pl.INT32, descending=True), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, start: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[1, 32], pl.INT32]]):
        y = self.k(start, y)
        return y


def _pto(out):
    return "".join(p.read_text() for p in sorted((out / "ptoas").glob("*.pto")))


def test_tci_descending_is_written_inside_ins_for_027(tmp_path):
    head = ptokit.compile(Descending, output_dir=tmp_path / "head")
    text = _pto(tmp_path / "head")
    assert ") {descending = true}" in text and "{descending = true} : i32)" not in text   # pypto HEAD's place
    old = ptokit.compile(Descending, output_dir=tmp_path / "027", ptoas_compat="0.27")
    text = _pto(tmp_path / "027")
    assert "pto.tci ins(" in text and "{descending = true} : i32) outs(" in text, text    # 0.27's assembly format
    assert ") {descending = true}" not in text
    # the built-in assembler reads both places as the same op: the same C++ call and the same numbers
    (pto,) = (tmp_path / "027" / "ptoas").glob("*.pto")
    assert "::DType, 1>(" in assemble_text(pto.read_text(), str(pto))
    for prog in (head, old):
        y = np.zeros((1, 32), np.int32)
        prog(np.int32(40), y)
        assert np.array_equal(y[0], 40 - np.arange(32, dtype=np.int32))


@pl.program
class HalfRemainder:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP16], y: pl.Out[pl.Tensor[[16, 64], pl.FP16]]):
        t = pl.load(a, [0, 0], [16, 64])
        tmp = pl.tile.create_tile([16, 64], dtype=pl.FP16)
        y = pl.store(pl.tile.rems(t, 3.0, tmp), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP16], y: pl.Out[pl.Tensor[[16, 64], pl.FP16]]):
        y = self.k(a, y)
        return y


def test_a_remainder_scalar_is_written_as_the_tile_element_type(tmp_path):
    """pto.trems / pto.tfmods want the scalar of exactly the tile's type (the real verifier: "expects scalar
    type to match the tile element type"); an FP32 literal next to an FP16 tile is written as f16 (3.0 is
    exact in both), in both modes."""
    prog = ptokit.compile(HalfRemainder, output_dir=tmp_path / "o", platform="a5sim")
    text = _pto(tmp_path / "o")
    line = next(x for x in text.splitlines() if "pto.trems" in x)
    assert ", f16, !pto.tile_buf" in line and "f32" not in line.split("outs(")[0], line
    a = (np.arange(16 * 64, dtype=np.float32).reshape(16, 64) / 7 - 40).astype(np.float16)
    y = np.zeros_like(a)
    prog(a, y)
    want = np.fmod(a.astype(np.float32), np.float32(3)).astype(np.float16)
    np.testing.assert_allclose(y.astype(np.float32), want.astype(np.float32), atol=2e-2)


def test_a_boolean_constant_is_written_as_0_or_1():
    """pypto HEAD writes `arith.constant 1 : i1`; ptoas 0.27 refuses `arith.constant false : i1` ("expected
    operation name in quotes"); ptokit's reader takes the integer form."""
    from ptokit.pto.builder import format_literal
    from ptokit.pto.types import ScalarType
    assert (format_literal(True, ScalarType("i1")), format_literal(False, ScalarType("i1"))) == ("1", "0")
    text = ('module {\n  func.func @k(%arg0: !pto.ptr<f32>, %a: i32) attributes {pto.kernel_kind = '
            '#pto.kernel_kind<vector>} {\n    %c1_i1 = arith.constant 1 : i1\n    %c0 = arith.constant 0 : i32\n'
            '    %s = arith.select %c1_i1, %a, %c0 : i32\n    return\n  }\n}\n')
    assert "__global__" in assemble_text(text, "b.pto")
