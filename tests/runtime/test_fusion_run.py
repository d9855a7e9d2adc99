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


# ---------------------------------------------------------------- long chains (issue 31, finding 5)

CHAIN_TEMPLATE = '''\
import ptokit.language as pl


@pl.program
class Chain:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[{n}, {n}], pl.FP32],
          out: pl.Out[pl.Tensor[[{n}, {n}], pl.FP32]]) -> pl.Tensor[[{n}, {n}], pl.FP32]:
        t = pl.load(x, [0, 0], [{n}, {n}])
{body}
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[{n}, {n}], pl.FP32], y: pl.Out[pl.Tensor[[{n}, {n}], pl.FP32]]):
        y = self.k(x, y)
        return y
'''


def _chain_factor(i: int) -> float:
    return 1.0 + (i % 7) * 0.001


def chain_program(folder, ops: int, side: int):
    """A kernel of ``ops`` element-wise instructions, one after the other on [side, side] FP32 tiles."""
    from source_modules import import_source
    body = "\n".join(f"        t = pl.{'adds' if i % 2 == 0 else 'muls'}(t, {_chain_factor(i)})" for i in range(ops))
    name = f"fusion_chain_{ops}_{side}"
    return import_source(folder / f"{name}.py", name, CHAIN_TEMPLATE.format(n=side, body=body)).Chain


def chain_reference(x, ops: int):
    t = x.copy()
    for i in range(ops):
        t = (t + np.float32(_chain_factor(i))) if i % 2 == 0 else (t * np.float32(_chain_factor(i)))
    return t


def _fusion_work(pto_text: str) -> int:
    """Lines of ptokit/backend/assembler/fusion.py executed while assembling ``pto_text``: the
    work of finding runs and checking their order, counted, not timed."""
    import sys
    from ptokit.backend.assembler import assemble_text, fusion
    target = fusion.__file__
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if frame.f_code.co_filename != target:
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        assemble_text(pto_text, filename="k.pto", arch="a2a3")
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize("side", [64, 128], ids=["unfused_small_tiles", "fused"])
def test_run_search_work_is_linear_in_chain_length(tmp_path, side):
    """Twice the instructions, about twice the work (it was cubic: 3 to 10 times more per doubling)."""
    work = {}
    for ops in (24, 48, 96):
        c = ptokit.compile(chain_program(tmp_path, ops, side), output_dir=tmp_path / f"c{ops}")
        work[ops] = _fusion_work((c.output_dir / "ptoas" / "k.pto").read_text())
    assert work[48] <= 2.6 * work[24] and work[96] <= 2.6 * work[48], work


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_a_150_instruction_chain_is_one_run_with_the_same_bytes(tmp_path, runtime):
    ops = 150
    c = ptokit.compile(chain_program(tmp_path, ops, 128), output_dir=tmp_path / "c", runtime=runtime)
    cpp = (c.output_dir / "kernels" / "aiv" / "k.cpp").read_text()
    assert f"// fused: {ops} instructions over 128 rows in chunks of 16" in cpp
    x = np.random.default_rng(3).standard_normal((128, 128), dtype=np.float32)
    fused, unfused = np.zeros_like(x), np.zeros_like(x)
    c(x, fused)
    c(x, unfused, config=RunConfig(fusion=False))
    assert fused.tobytes() == unfused.tobytes()
    np.testing.assert_allclose(fused, chain_reference(x, ops), rtol=1e-5, atol=1e-5)
