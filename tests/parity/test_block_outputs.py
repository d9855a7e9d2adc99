"""A tensor a pl.at block names by a store (``y_next = pl.store(t, [r, 0], y_b)``) and code after the
block reads: the kernel writes its parameter in place, so after the block the name is that tensor
(pypto's OutlineIncoreScopes returns the parameter for a store target).  Both runtime kinds."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError
from ptokit.ir import nodes as N
from ptokit.passes.context import PassContext
from ptokit.passes.outline_scopes import outline_incore_scopes

from . import block_output_programs as B

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_named_store_carried_by_loops(tmp_path, runtime):
    x = rand(B.R, B.C)
    y = np.zeros_like(x)
    ptokit.compile(B.CarriedStore, output_dir=tmp_path / "out", runtime=runtime)(x, y)
    np.testing.assert_allclose(y, x + 1, rtol=1e-6)
    main = B.CarriedStore.ir.functions["main"]
    assert "y_next" not in main.as_python()          # the name is the tensor the kernel wrote


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_second_block_reads_the_first_blocks_named_store(tmp_path, runtime):
    x = rand(B.R, B.C, seed=1)
    mid, y = np.zeros_like(x), np.zeros_like(x)
    ptokit.compile(B.ChainedBlocks, output_dir=tmp_path / "out", runtime=runtime)(x, mid, y)
    np.testing.assert_allclose(mid, x * 2, rtol=1e-6)
    np.testing.assert_allclose(y, x * 2 + 3, rtol=1e-6)
    prog = outline_incore_scopes(N.copy_program(B.ChainedBlocks.ir), PassContext(platform="a2a3sim"))
    second = prog.functions["second"]
    assert [p.name for p in second.params] == ["mid", "y"]


def test_a_tile_named_after_its_block_is_a_located_error(tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(B.TileAcross, output_dir=tmp_path / "out")
    assert "'a' is computed inside the pl.at block of kernel 'make'" in str(info.value)
    assert info.value.loc.file == B.__file__ and "y = pl.store(a, [0, 0], y)" in str(info.value).splitlines()[1]
