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
        ptokit.compile(P._scratch_program(shape), output_dir=tmp_path / "out")
    text = str(info.value)
    assert (f"tile.row_max requires tmp of at least the input's shape [{P.R}, {P.C}] or of the result's shape "
            f"[{P.R}, 1], but got [{shape[0]}, {shape[1]}]") in text, text
    assert info.value.loc.file == P.__file__ and "pl.row_max(t, tmp)" in text.splitlines()[1]


def test_row_reduction_scratch_larger_than_the_input(tmp_path):
    x = np.random.default_rng(13).standard_normal((P.R, P.C)).astype(np.float32)
    y = np.zeros((P.R, 1), np.float32)
    ptokit.compile(P._scratch_program([P.R + 8, 2 * P.C]), output_dir=tmp_path / "out")(x, y)
    np.testing.assert_array_equal(y, x.max(1, keepdims=True))


def test_incore_blocks_in_jit(tmp_path):
    x = np.random.default_rng(12).standard_normal((2 * P.R, P.C)).astype(np.float32)
    y, z = np.zeros_like(x), np.zeros((P.R, P.C), np.float32)
    P.incore_blocks(x, y, z)
    np.testing.assert_allclose(y, np.exp(x) * 0.5, rtol=1e-5)
    np.testing.assert_allclose(z, np.exp(x[P.R:]) * 0.5 + 1.0, rtol=1e-5)
    names = [f.name for f in P.incore_blocks.lower(x, y, z).functions.values()]
    assert any(n.endswith("second") for n in names), names


def test_incore_in_opaque_function(tmp_path):
    x = np.random.default_rng(13).standard_normal((P.R, P.C)).astype(np.float32)
    y = np.zeros_like(x)
    ptokit.compile(P.IncoreInOpaque, output_dir=tmp_path / "out")(x, y)
    np.testing.assert_allclose(y, x - x * x, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("args,message,caret", [
    ("level=1", "pl.incore has no parameter 'level' (parameters: split, name_hint)", "1)"),
    ("1", "pl.incore's split takes a pl.SplitMode (NONE, UP_DOWN, LEFT_RIGHT), got 1", "1"),
    ("pl.SplitMode.NONE, split=pl.SplitMode.UP_DOWN", "pl.incore got two values for its 'split' argument",
     "pl.SplitMode.UP_DOWN"),
    ("pl.SplitMode.NONE, 'k'", "pl.incore takes 1 positional argument, but 2 were given", "'k'"),
    ("name_hint='not a name'", "name_hint must be an identifier string, got 'not a name'", "'not a name'"),
])
def test_incore_errors(tmp_path, args, message, caret):
    with pytest.raises(CompileError) as info:
        ptokit.compile(P._incore_program(args), output_dir=tmp_path / "out")
    text = str(info.value)
    assert message in text, text
    src, marks = text.splitlines()[1:3]
    assert info.value.loc.file == "incore_case.py" and src[marks.index("^"):].startswith(caret), text


def test_returned_created_tensor_is_an_output(tmp_path):
    rng = np.random.default_rng(14)
    a, b = (rng.standard_normal((P.R, P.C)).astype(np.float32) for _ in range(2))
    compiled = ptokit.compile(P.ReturnsCreatedTensor, output_dir=tmp_path / "out")
    assert [p.name for p in compiled.params] == ["a", "b", "result"] and list(compiled.output_indices) == [2]
    got = compiled(a, b)                       # output left out: allocated and returned
    np.testing.assert_allclose(got, a * 0.5 + b, rtol=1e-6)
    out = np.zeros_like(a)
    compiled(a, b, out)                        # or passed after the inputs, written in place
    np.testing.assert_allclose(out, a * 0.5 + b, rtol=1e-6)


def test_older_store_spellings(tmp_path):
    rng = np.random.default_rng(15)
    a = rng.standard_normal((P.R, P.R)).astype(np.float32)
    b = rng.standard_normal((P.R, P.C)).astype(np.float32)
    y, z, w = (np.zeros((P.R, P.C), np.float32) for _ in range(3))
    ptokit.compile(P.OlderStoreSpellings, output_dir=tmp_path / "out")(a, b, y, z, w)
    np.testing.assert_allclose(y, a @ b, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(z, y)
    np.testing.assert_array_equal(w, -b)
