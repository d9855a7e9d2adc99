"""A tensor name rebound in an orchestration loop to a tensor of the loop body (`cur = nxt`) carries that
tensor across iterations (pypto's iter_arg of tensor type; see test_tensor_carry.py for the IR), and
rebinding a name to its own tensor (`y = self.k(x, y)`) stays fine.  Both runtime kinds."""
import numpy as np
import pytest

import ptokit
from source_modules import import_source

_PROGRAM = '''import ptokit.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def add_one(self, src: pl.Tensor[[16, 64], pl.FP32],
                dst: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        dst = pl.store(pl.adds(pl.load(src, [0, 0], [16, 64]), 1.0), [0, 0], dst)
        return dst

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32],
             c: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        cur = pl.create_tensor([16, 64], dtype=pl.FP32)
        cur = self.add_one(a, cur)
        for _ in pl.range(4):
BODY
        c = self.add_one(cur, c)
        return c
'''


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_carried_tensor_runs(tmp_path, runtime):
    body = ("            nxt = pl.create_tensor([16, 64], dtype=pl.FP32)\n"
            "            nxt = self.add_one(cur, nxt)\n"
            "            cur = nxt")
    mod = import_source(tmp_path / "carry.py", "orch_carry_rebind", _PROGRAM.replace("BODY", body))
    a = np.random.default_rng(3).standard_normal((16, 64)).astype(np.float32)
    c = np.zeros_like(a)
    ptokit.compile(mod.P, output_dir=tmp_path / "o", runtime=runtime)(a, c)
    np.testing.assert_allclose(c, a + 6.0, rtol=1e-6)


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_rebinding_a_name_to_its_own_tensor_runs(tmp_path, runtime):
    body = "            cur = self.add_one(a, cur)"
    mod = import_source(tmp_path / "carry_ok.py", "orch_carry_ok", _PROGRAM.replace("BODY", body))
    a = np.random.default_rng(4).standard_normal((16, 64)).astype(np.float32)
    c = np.zeros_like(a)
    ptokit.compile(mod.P, output_dir=tmp_path / "o", runtime=runtime)(a, c)
    np.testing.assert_allclose(c, a + 2.0, rtol=1e-6)
