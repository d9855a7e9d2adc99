"""The target as an object: PassContext carries a Target, and passes size and decide from its facts
(capacities per memory space, chip features), not from the platform name."""
import pytest

import ptokit.language as pl
from ptokit.errors import CompileError
from ptokit.ir.ops import infer
from ptokit.ir.ops._core import OpTypeError
from ptokit.ir.types import DType, MemorySpace, TileType
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.manager import run_passes
from ptokit.pto import facts
from ptokit.targets import BUFFER_CAPACITY, Target, default_pipe_slots, smallest_capacity


def test_target_facts_per_chip_family():
    a2, a5 = Target.of("a2a3sim"), Target.of("a5sim")
    assert (a2.arch, a5.arch) == ("a2a3", "a5")
    assert a2.capacity("vec") == 188416 and a5.capacity(MemorySpace.Vec) == 245760
    assert a2.capacity(MemorySpace.Acc) == 131072 and a5.capacity("acc") == 262144
    assert not a2.mx_scales and a5.mx_scales
    assert a2.gm_pipe and not a5.gm_pipe
    assert a2.can_move("mat", "left") and not a2.can_move(MemorySpace.Vec, MemorySpace.Mat)
    assert a5.can_move(MemorySpace.Vec, MemorySpace.Mat) and a5.can_move("mat", "left_scale")
    assert a2.pipe_slots(1) == (8, 8) and a5.pipe_slots(1) == (8, 2) and a5.pipe_slots(3) == (4, 2)
    assert default_pipe_slots("a5", 3) == a5.pipe_slots(3)
    assert (a2.sim_aicpu_threads, a5.sim_clusters) == (4, 36)


def test_hardware_and_simulator_targets():
    assert Target.of("a5").simt_anchor and not Target.of("a5sim").simt_anchor
    assert not Target.of("a2a3").simt_anchor
    assert Target.of("a5").sim_platform == "a5sim" and not Target.of("a5").is_simulator
    assert Target.of("a5sim") is Target.of("a5sim")
    assert Target.of_arch("a5") is Target.of("a5sim")


def test_unknown_platform_and_arch_are_refused():
    with pytest.raises(ValueError, match="unknown platform 'a9'"):
        Target.of("a9")
    with pytest.raises(ValueError, match="unknown arch 'a3'"):
        Target.of_arch("a3")


def test_one_capacity_table():
    # the .pto dialect's table is the targets' table, and the front end's fallback is its minimum
    assert facts.CAPACITY is BUFFER_CAPACITY
    assert smallest_capacity("vec") == 188416 and smallest_capacity("acc") == 131072


def test_pass_context_carries_the_target():
    assert PassContext(platform="a5sim").target is Target.of("a5sim")
    assert PassContext().target is Target.of("a2a3sim")
    assert PassContext(platform="a5").arch == "a5"


def _vec_program(rows: int):
    """One kernel holding two [rows, 256] FP32 Vec tiles at once."""
    @pl.program
    class Big:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[rows, 256], pl.FP32],
              y: pl.Out[pl.Tensor[[rows, 256], pl.FP32]]) -> pl.Tensor[[rows, 256], pl.FP32]:
            t = pl.load(x, [0, 0], [rows, 256])
            u = pl.exp(t)
            v = pl.add(t, u)
            y = pl.store(v, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[rows, 256], pl.FP32],
                 y: pl.Out[pl.Tensor[[rows, 256], pl.FP32]]) -> pl.Tensor[[rows, 256], pl.FP32]:
            y = self.k(x, y)
            return y
    return Big


def test_memory_plan_sizes_from_the_target():
    # t and u are live together: 2 * 96 rows * 1 KB = 192 KB, over a2a3's 184 KB Vec, within a5's 240 KB
    prog = parse_program(_vec_program(96))
    run_passes(prog, PassContext(platform="a5sim"))
    with pytest.raises(CompileError, match=r"capacity on a2a3 is 188416 bytes"):
        run_passes(prog, PassContext(platform="a2a3sim"))


def test_move_legality_asks_the_target():
    # the type rule of tile.move with the target InferMemorySpace hands it: the MX scale buffers exist
    # on a5 only; without a target (the front end) the scale move is left to the pass
    mat = TileType((64, 2), DType.FP8E8M0, MemorySpace.Mat)
    attrs = {"target_memory": MemorySpace.LeftScale}
    with pytest.raises(OpTypeError, match="MX scale buffers exist on a5 only .* not on a2a3"):
        infer("move", [mat], dict(attrs, target=Target.of("a2a3sim")))
    for target in (Target.of("a5sim"), None):       # past the target check, to the tile's own rules
        with pytest.raises(OpTypeError, match="takes scales loaded from"):
            infer("move", [mat], dict(attrs, target=target))
    vec = TileType((16, 16), DType.FP16, MemorySpace.Vec)
    with pytest.raises(OpTypeError, match="Vec->Bias is not a legal move on a5; legal moves: Acc->Mat, Mat->Bias"):
        infer("move", [vec], {"target_memory": MemorySpace.Bias, "target": Target.of("a5sim")})
