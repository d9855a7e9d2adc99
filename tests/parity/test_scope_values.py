"""A1: closure and global values (ints, floats, nested lists/tuples, dicts, dtypes, memory spaces,
enums) are accepted in every argument slot; a bad one is a located error."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError

from . import scope_values as S


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_scope_values_everywhere(tmp_path, runtime):
    prog = S.make_scope_values(16, 64, pl.FP32, pl.Mem.Vec, pl.PadValue.zero)
    a = np.random.default_rng(0).standard_normal((16, 64)).astype(np.float32)
    y = np.zeros_like(a)
    ptokit.compile(prog, output_dir=tmp_path / "out", runtime=runtime)(a, y)
    want = a * 2
    want[:, 40:] = 0
    np.testing.assert_array_equal(y, want)


def test_missing_key_is_located(tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(S.make_missing_key(), output_dir=tmp_path / "out")
    err = info.value
    assert "CFG['cols']: index 'cols' is out of range of CFG" in str(err)
    assert 'CFG["cols"]' in str(err).splitlines()[1] and err.loc.file == S.__file__
