"""Forms pypto's example programs use that ptokit refused or mis-ran before the compat-lang pass."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from . import compat_lang_programs as P


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_row_reductions_with_column_scratch(tmp_path, runtime):
    x = np.random.default_rng(11).standard_normal((P.R, P.C)).astype(np.float32)
    y = np.zeros_like(x)
    ptokit.compile(P.ColumnScratchReductions, output_dir=tmp_path / "out", runtime=runtime)(x, y)
    want = (x - x.max(1, keepdims=True) + x.min(1, keepdims=True)) * x.sum(1, keepdims=True)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("shape", [[P.R, 2], [1, P.C], [P.R // 2, P.C]])
def test_row_reduction_scratch_of_another_shape(tmp_path, shape):
    with pytest.raises(CompileError) as info:
        ptokit.compile(P._bad_scratch_program(shape), output_dir=tmp_path / "out")
    text = str(info.value)
    assert (f"tile.row_max requires tmp of the input's shape [{P.R}, {P.C}] or of the result's shape [{P.R}, 1], "
            f"but got [{shape[0]}, {shape[1]}]") in text, text
    assert info.value.loc.file == P.__file__ and "pl.row_max(t, tmp)" in text.splitlines()[1]
