"""The pl.tensor.* forms of the tile-only names, and the C0 parameters ptokit refuses, misused once
each: a located error (the line, a caret under the argument at fault) saying what was expected."""
import pytest

from .test_vector_c_errors import test_located_rule_error as _located

# (the erroneous statement, a fragment of the message, the text the caret points at)
CASES = [
    ("x = pl.tensor.sel(i8, f, f)", "tensor.sel takes a mask of values shaped like the data", "i8,"),
    ("x = pl.tensor.sel(f, u8, u8)", "tile.tensor.sel requires a tile of dtype", "u8, u8"),
    ("x = pl.tensor.sel(f, f, h)", "tile.tensor.sel requires matching dtypes", "h)"),
    ("x = pl.tensor.sels(f, f, f)", "tile.tensor.sels requires a scalar", "f)"),
    ("x = pl.tensor.sels(i8, f, 1.0)", "tensor.sels takes a mask of values shaped like the data", "i8,"),
    ("x = pl.tensor.prelu(i, i)", "tile.prelu requires a tile of dtype", "i, i"),
    ("x = pl.tensor.lrelu(i, 0.5)", "tile.lrelu requires a tile of dtype", "i, 0.5"),
    ("x = pl.tensor.sin(h)", "tile.sin requires an FP32 tile", "h)"),
    ("x = pl.tensor.transpose_view(f)", "tile.transpose_view swaps the fractal layout of a Mat tile", "f)"),
    ("x = pl.tensor.tri(0, [16, 64], dtype=pl.INT8)", "tile.tri requires", "pl.INT8"),
    ("x = pl.tensor.extract(f, 0, 0, [32, 64], target_memory=pl.Mem.Vec)", "must be a 2-D window", "[32, 64]"),
    ("x = pl.tensor.gatherb(f, i)", "tile.gatherb offsets are UINT32 byte offsets", "i)"),
    ("x = pl.rsqrt(f, high_precision=n)", "pl.rsqrt high_precision must be a compile-time bool", "n)"),
    ("x = pl.row_expand_add(f, pl.row_sum(f), scratch=t)", "pl.row_expand_add has no parameter 'scratch'", "t)"),
    ("x = pl.tensor.gather(f, kvalue=1.0, cmp_mode=0, out_cols=8)",
     "compare form (cmp_mode=, kvalue=, out_cols=) is not supported: which matches it keeps", "pl.tensor.gather"),
]


@pytest.mark.parametrize("line,message,caret", CASES, ids=[c[0][4:44] for c in CASES])
def test_located_tensor_form_error(tmp_path, line, message, caret):
    _located(tmp_path, line, message, caret)
