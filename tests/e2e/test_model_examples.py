"""The model-sized examples of examples/ at small sizes against their numpy references: the
auto-tiled matmul (tiles from the platform's cube buffer capacities, edge tiles by valid shapes;
a2a3sim and a5sim), the split-K matmul (SPMD K slices reduced by atomic-add stores) and one
LLaMA-style decoder layer; and the two compiler fixes they needed (a tile reloaded in a loop with
another run-time valid region, set_validshape on an Acc tile staying on the cube)."""
import sys
from pathlib import Path

import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.ir.types import CAPACITY, MemorySpace

sys.path.insert(0, str(Path(__file__).parents[2] / "examples"))
import auto_tiled_matmul as atm  # noqa: E402
import decoder_layer as dl  # noqa: E402
import decoder_layer_blocked as dlb  # noqa: E402
import splitk_matmul as skm  # noqa: E402


def _kernel_rows(compiled):
    """{name: core_type} of a compiled tree's kernels."""
    text = (compiled.output_dir / "kernel_config.py").read_text()
    import re
    return dict(re.findall(r'"name": "(\w+)", "source": [^,]+, "core_type": "(\w+)"', text))


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_auto_tiled_matmul_edges(platform, tmp_path):
    m, n, k = 150, 300, 200                   # no dimension a multiple of its tile
    tm, tn, tk = atm.choose_tiles(platform, m, n, k)
    cap = CAPACITY["a5" if platform.startswith("a5") else "a2a3"]
    assert tm * tn * 4 <= cap[MemorySpace.Acc] and tm * tk * 2 <= cap[MemorySpace.Left] \
        and tk * tn * 2 <= cap[MemorySpace.Right]
    assert m % tm and n % tn and k % tk and -(-k // tk) >= 2 and -(-n // tn) >= 2
    a, b = atm.make_inputs(m, n, k, seed=3)
    c = np.full((m, n), np.nan, np.float32)
    compiled = ptokit.compile(atm.make_matmul(m, n, k, tm, tn, tk), output_dir=tmp_path / "t", platform=platform)
    compiled(a, b, c)
    ref = atm.reference(a, b)
    np.testing.assert_allclose(c, ref, rtol=0, atol=atm.tolerance(k) * np.abs(ref).max())
    assert _kernel_rows(compiled) == {"matmul": "aic"}      # set_validshape on the Acc tile stays on the cube


def test_choose_tiles_follows_the_capacity_table():
    # a2a3: Acc 128 KiB -> 128 x 256 fp32, then Left/Right 64 KiB -> K 128; a5's 256 KiB Acc -> 256 x 256
    assert atm.choose_tiles("a2a3sim", 4096, 4096, 4096) == (128, 256, 128)
    assert atm.choose_tiles("a5sim", 4096, 4096, 4096) == (256, 256, 128)
    assert atm.choose_tiles("a2a3sim", 20, 40, 50) == (32, 48, 64)         # never past the problem's fractals


def test_splitk_matmul(tmp_path):
    m, n, k, split, tk = 40, 72, 1000, 4, 96     # slices of 256 (the last 232) in K blocks of 96, 96, 64 / 40
    a, b = atm.make_inputs(m, n, k, seed=4)
    c = np.full((m, n), np.nan, np.float32)      # the zeroing task must overwrite all of it
    compiled = ptokit.compile(skm.make_splitk(m, n, k, 48, 80, tk, split), output_dir=tmp_path / "t")
    result = compiled(a, b, c)
    ref = atm.reference(a, b)
    np.testing.assert_allclose(c, ref, rtol=0, atol=skm.tolerance(k) * np.abs(ref).max())
    assert result.summary().blocks == 1 + split


def test_splitk_refuses_an_empty_slice():
    with pytest.raises(ValueError, match="too small for 8 slices of 16"):
        skm.slice_of(100, 8)


def test_decoder_layer(tmp_path):
    dims = (4, 16, 256, 4, 512)                  # batch, seq, hidden, heads (head dim 64), ffn
    inputs = dl.make_inputs(*dims, seed=5)
    out = np.zeros((64, 256), np.float16)
    compiled = ptokit.compile(dl.make_decoder(*dims), output_dir=tmp_path / "t")
    compiled(*inputs, out)
    ref = dl.reference(*inputs, 4, 16, 4)
    err = np.abs(out.astype(np.float64) - ref).max()
    assert err < 2e-3 * np.abs(ref).max(), err


def test_decoder_layer_refuses_unaligned_sizes():
    with pytest.raises(ValueError, match="head dim 48"):
        dl.make_decoder(4, 16, 384, 8, 512)



@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_decoder_layer_blocked(tmp_path, runtime):
    # two token blocks of the projections, four of proj_rope, two column blocks of the RMSNorm, two
    # query blocks per head (the second masked from its own first row on): the blocked forms a
    # hidden 4096 layer needs, at a size a test can afford
    dims = (2, 64, 1024, 8, 512)                 # batch, seq, hidden, heads (head dim 128), ffn
    inputs = dlb.make_inputs(*dims, seed=6)
    out = np.zeros((128, 1024), np.float16)
    compiled = ptokit.compile(dlb.make_decoder(*dims), output_dir=tmp_path / "t", runtime=runtime)
    compiled(*inputs, out)
    ref = dlb.reference(*inputs, 2, 64, 8)
    err = np.abs(out.astype(np.float32) - ref).max()
    assert err < 2e-3 * np.abs(ref).max(), err


def test_decoder_layer_blocked_refuses_unaligned_sizes():
    with pytest.raises(ValueError, match="a multiple of 128"):
        dlb.make_decoder(1, 64, 512, 4, 512)          # 64 tokens: not a whole token block
    with pytest.raises(ValueError, match="head dim 256"):
        dlb.make_decoder(2, 64, 1024, 4, 512)

@pl.program
class ReloadInLoop:
    """t is loaded whole, then reloaded in a loop with a run-time valid row count (the last block
    of 40 rows is 8 rows): each reload must narrow the buffer's valid region first."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[40, 16], pl.FP32], c: pl.Out[pl.Tensor[[40, 16], pl.FP32]]):
        t = pl.load(a, [0, 0], [16, 16])
        c = pl.store(t, [0, 0], c)
        for p in pl.range(1, 3):
            rows = pl.min(16, 40 - p * 16)
            t = pl.load(a, [p * 16, 0], [16, 16], valid_shape=[rows, 16])
            c = pl.store(pl.adds(t, 1.0), [p * 16, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[40, 16], pl.FP32], c: pl.Out[pl.Tensor[[40, 16], pl.FP32]]):
        c = self.k(a, c)
        return c


def test_reloaded_tile_takes_its_new_valid_shape(tmp_path):
    compiled = ptokit.compile(ReloadInLoop, output_dir=tmp_path / "t")
    pto = (compiled.output_dir / "ptoas" / "k.pto").read_text()
    assert "pto.set_validshape %t, %s2, %c16_index" in pto
    a = np.arange(640, dtype=np.float32).reshape(40, 16)
    c = np.zeros_like(a)
    compiled(a, c)
    np.testing.assert_array_equal(c, np.concatenate([a[:16], a[16:] + 1]))
