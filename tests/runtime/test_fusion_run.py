"""Fused runs in the simulator: a row softmax and a layer norm (the assembler fuses their tile
instructions, docs/assembler.md "Fused runs") give the same bytes fused, with
RunConfig(fusion=False), and under the debug NaN fill (which takes the unfused path)."""
from __future__ import annotations

import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.runtime.config import RunConfig

ROWS, COLS, BLK = 256, 128, 64     # 32 KiB tiles: a run's tiles do not fit an L1


@pl.program
class RowKernels:
    @pl.function(type=pl.FunctionType.InCore)
    def softmax(self, x: pl.Tensor[[ROWS, COLS], pl.FP32],
                out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        for i in pl.range(ROWS // BLK):
            t = pl.load(x, [i * BLK, 0], [BLK, COLS])
            tmp = pl.create_tile([BLK, COLS], dtype=pl.FP32)
            e = pl.exp(pl.row_expand_sub(t, pl.row_max(t, tmp)))
            out = pl.store(pl.row_expand_div(e, pl.row_sum(e, tmp)), [i * BLK, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def norm(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], gamma: pl.Tensor[[1, COLS], pl.FP32],
             out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        g = pl.load(gamma, [0, 0], [1, COLS])
        for i in pl.range(ROWS // BLK):
            t = pl.load(x, [i * BLK, 0], [BLK, COLS])
            tmp = pl.create_tile([BLK, COLS], dtype=pl.FP32)
            c = pl.row_expand_sub(t, pl.muls(pl.row_sum(t, tmp), 1.0 / COLS))
            var = pl.muls(pl.row_sum(pl.mul(c, c), tmp), 1.0 / COLS)
            y = pl.col_expand_mul(pl.row_expand_mul(c, pl.rsqrt(pl.adds(var, 1e-5))), g)
            out = pl.store(y, [i * BLK, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], gamma: pl.Tensor[[1, COLS], pl.FP32],
             y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
             z: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        y = self.softmax(x, y)
        z = self.norm(x, gamma, z)
        return z


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    return ptokit.compile(RowKernels, output_dir=tmp_path_factory.mktemp("rowk"))


def test_fused_runs_match_unfused_and_nan_fill_runs(compiled, monkeypatch):
    cpp = "".join(p.read_text() for p in (compiled.output_dir / "kernels" / "aiv").glob("*.cpp"))
    assert cpp.count("// fused:") >= 3 and "pto::cpu::row_chunk<16>" in cpp
    rng = np.random.default_rng(5)
    x = rng.standard_normal((ROWS, COLS), dtype=np.float32)
    g = rng.standard_normal((1, COLS), dtype=np.float32)
    got = {}

    def run(name, cfg):
        y = np.zeros_like(x)
        z = np.zeros_like(x)
        compiled(x, g, y, z, config=cfg)
        got[name] = (y.tobytes(), z.tobytes())

    run("fused", RunConfig())
    run("unfused", RunConfig(fusion=False))
    run("nan_fill", RunConfig(debug_nan_fill=True))
    monkeypatch.setenv("PTOKIT_NO_FUSION", "1")      # the build without the fused path
    run("built_unfused", RunConfig())
    run("built_unfused_nan_fill", RunConfig(debug_nan_fill=True))
    assert got["fused"] == got["unfused"] == got["built_unfused"]
    # the NaN fill of each TASSIGN lands where the unfused order puts it
    assert got["nan_fill"] == got["built_unfused_nan_fill"]
    y = np.frombuffer(got["fused"][0], np.float32).reshape(ROWS, COLS)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    z = np.frombuffer(got["fused"][1], np.float32).reshape(ROWS, COLS)
    c = x - x.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(z, c / np.sqrt((c * c).mean(axis=1, keepdims=True) + 1e-5) * g, rtol=1e-4, atol=1e-5)
