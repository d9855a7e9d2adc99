"""pl.slice of a tensor in orchestration code is a window passed to tasks, in @pl.program as in
@pl.jit (one implementation, language/tensor_level.py)."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError
from ptokit.ir import nodes as N
from ptokit.language.parser import parse_program
from source_modules import import_source


@pl.program
class SliceHalves:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        y = pl.store(pl.adds(t, 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        for h in pl.range(2):
            y = self.k(pl.slice(x, [16, 64], [h * 16, 0]), pl.slice(y, [16, 64], [h * 16, 0]))
        return y


def test_parsed_as_windows():
    main = parse_program(SliceHalves).functions["main"]
    calls = [c for _, c in N.walk_calls(main.body)]
    assert [[a.op for a in c.args] for c in calls] == [["tensor_view", "tensor_view"]]
    assert calls[0].args[0].type.shape == (16, 64)


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_runs(tmp_path, runtime):
    x = np.random.default_rng(3).standard_normal((32, 64)).astype(np.float32)
    y = np.zeros_like(x)
    ptokit.compile(SliceHalves, output_dir=tmp_path / "o", runtime=runtime)(x, y)
    np.testing.assert_allclose(y, x + 1.0, rtol=1e-6)


def _main(tmp_path, call: str):
    src = ("import ptokit.language as pl\n\n\n"
           "@pl.program\nclass P:\n"
           "    @pl.function(type=pl.FunctionType.InCore)\n"
           "    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
           "        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)\n"
           "        return y\n\n"
           "    @pl.function(type=pl.FunctionType.Orchestration)\n"
           "    def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
           f"        y = self.k({call}, y)\n"
           "        return y\n")
    return import_source(tmp_path / "sl.py", "orch_slice_errors", src).P


@pytest.mark.parametrize("call, message", [
    ("pl.slice(x, SHAPE, [0, 0])", "takes its shape and offset as lists of the same length"),
    ("pl.slice(x, [16, 64], [0])", "takes its shape and offset as lists of the same length"),
    ("pl.slice(x, [16, 64], [0, 0], pad=1)", "pl.slice of a tensor in orchestration code takes (tensor, shape, offset, "
                                             "valid_shape=None); pad= is not supported here"),
    ("pl.slice(x, [16, 64], [0, 0], valid_shape=[16])", "pl.slice valid_shape needs 2 extents"),
])
def test_located_errors(tmp_path, call, message):
    prog = _main(tmp_path, call.replace("SHAPE", "[16, 64][0:2]"))
    with pytest.raises(CompileError) as err:
        parse_program(prog)
    assert message in str(err.value)
    assert "sl.py:13:" in str(err.value) and "^" in str(err.value)
