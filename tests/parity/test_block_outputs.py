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


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_tile_named_after_its_block_crosses_as_a_tensor(tmp_path, runtime):
    x = rand(B.R, B.C, seed=2)
    y = np.zeros_like(x)
    ptokit.compile(B.TileAcross, output_dir=tmp_path / "out", runtime=runtime)(x, y)
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_values_of_blocks_read_by_a_later_block(tmp_path, runtime):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((B.M, 2 * B.K)) * 0.1).astype(np.float16)
    w = (rng.standard_normal((2 * B.K, 2 * B.N)) * 0.1).astype(np.float16)
    v = rng.standard_normal((B.M, B.N)).astype(np.float32)
    y = np.zeros((B.M, 2 * B.N), np.float32)
    ptokit.compile(B.ValuesAcross, output_dir=tmp_path / "out", runtime=runtime)(a, w, v, y)
    ref = (a.astype(np.float32) @ w.astype(np.float32)) * np.tile(np.exp(-v) + 1.0, (1, 2))
    np.testing.assert_allclose(y, ref, rtol=1e-3, atol=1e-4)


def test_values_of_blocks_become_intermediate_tensors():
    prog = outline_incore_scopes(N.copy_program(B.ValuesAcross.ir), PassContext(platform="a2a3sim"))
    proj, gate, combine = (prog.functions[k] for k in ("proj", "gate", "combine"))
    assert [(p.name, p.direction.name) for p in proj.params][-1] == ("acc_out", "OUT")
    assert [(p.name, p.direction.name) for p in gate.params] == [("v", "IN"), ("g_out", "OUT")]
    assert {"acc", "g"} <= {p.name for p in combine.params}
    loop = prog.functions["main"].body[0]
    made = [s.targets[0].name for s in loop.body if isinstance(s, N.Assign)]
    assert made == ["acc", "g"]                  # created in the loop body, right before their blocks


@pytest.mark.parametrize("program, message, line", [
    (B.ScalarAcross, "'half' is a scalar computed inside the pl.at block of kernel 'make'",
     "y = pl.store(pl.load(x, [half, 0], [T, C]), [0, 0], y)"),
    (B.ReadAfterLoop, "'e' is computed inside the pl.at block of kernel 'make', which stands in a loop",
     "y = pl.assemble(y, e, [0, 0])"),
])
def test_values_that_cannot_cross_are_located_errors(tmp_path, program, message, line):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    assert message in str(info.value)
    assert info.value.loc.file == B.__file__ and line in str(info.value).splitlines()[1]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_created_tensor_filled_by_a_loop_of_blocks_then_read(tmp_path, runtime):
    x = rand(B.R, B.C, seed=4)
    y = np.zeros_like(x)
    ptokit.compile(B.BandsThenRead, output_dir=tmp_path / "out", runtime=runtime)(x, y)
    np.testing.assert_allclose(y, np.exp(x) + 1.0, rtol=1e-5)
