"""``external_source=``: an AIV kernel whose body is a hand-written C++ file (pypto's external kernel
form).  The DSL declares its signature (body ``...``); the tree names the file where it lies, so its
relative includes resolve, and the build compiles it against the runtime's headers with warnings on.
Both runtime kinds, against numpy; each misuse a located error."""
from pathlib import Path

import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.artifacts.kernel_config import read_kernel_config
from ptokit.errors import CompileError
from source_modules import import_source

KERNEL = Path(__file__).parent / "external_kernels" / "aiv" / "scale_row.cpp"
ROWS, COLS = 4, 16


@pl.program
class ScaleRows:
    @pl.function(type=pl.FunctionType.AIV, external_source=KERNEL)
    def scale_row(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
                  k: pl.Scalar[pl.INDEX]) -> pl.Tensor[[ROWS, COLS], pl.FP32]: ...

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
             k: pl.Scalar[pl.INDEX]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        with pl.spmd(core_num=ROWS):
            y = self.scale_row(x, y, k)
        return y


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_external_kernel_runs(tmp_path, runtime):
    compiled = ptokit.compile(ScaleRows, output_dir=tmp_path / "out", runtime=runtime)
    entry = read_kernel_config(compiled.output_dir).kernels[0]
    assert entry.source == KERNEL.resolve() and entry.signature == ["IN", "OUT"] and entry.core_type == "aiv"
    assert not (compiled.output_dir / "ptoas" / "scale_row.pto").exists()      # no code of ptokit's for it
    x = np.random.default_rng(2).standard_normal((ROWS, COLS)).astype(np.float32)
    y = np.zeros_like(x)
    compiled(x, y, 3)
    np.testing.assert_allclose(y, x * 3 + np.arange(ROWS, dtype=np.float32)[:, None], rtol=1e-6)


def _program(tmp_path, kind, body, source):
    text = f'''import ptokit.language as pl


@pl.program
class Bad:
    @pl.function(type={kind}, external_source={str(source)!r})
    def k(self, x: pl.Tensor[[4, 16], pl.FP32], y: pl.Out[pl.Tensor[[4, 16], pl.FP32]]):
        {body}

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 16], pl.FP32], y: pl.Out[pl.Tensor[[4, 16], pl.FP32]]):
        self.k(x, y)
'''
    return import_source(tmp_path / "bad.py", f"external_bad_{abs(hash((kind, body, str(source))))}", text).Bad


@pytest.mark.parametrize("kind, body, source, message", [
    ("pl.FunctionType.InCore", "...", KERNEL, "external_source= gives the body of an AIV or AIC kernel"),
    ("pl.FunctionType.AIV", "pl.store(pl.load(x, [0, 0], [4, 16]), [0, 0], y)", KERNEL,
     "a function with external_source= declares only its signature; its body is `...`"),
    ("pl.FunctionType.AIV", "...", "no_such_kernel.cpp", "external_source='no_such_kernel.cpp' names no file"),
    ("pl.FunctionType.AIV", "...", KERNEL.parent.parent / "common" / "row_layout.h", "defines no kernel_entry"),
])
def test_external_source_misuse_is_located(tmp_path, kind, body, source, message):
    with pytest.raises(CompileError) as info:
        ptokit.compile(_program(tmp_path, kind, body, source), output_dir=tmp_path / "out")
    assert message in str(info.value) and info.value.loc.file == str(tmp_path / "bad.py")
