"""PassManager: the fixed pipeline of IR passes, with dumps and verification.

Each pass is declared with the IR properties it requires, establishes and gives up
(``ptokit.ir.verifier`` names and checks them).  ``run_passes(program, ctx, dump_dir)`` copies
the program, runs every pass in order, checks that each pass's requirements hold, verifies every
property the pipeline claims after each pass (``ctx.verify``) and, with a dump folder, writes
``00_frontend.py`` then ``NN_after_<PassName>.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, FrozenSet, List, Optional

from ..errors import InternalError
from ..ir.nodes import Program, copy_program
from ..ir.printer import print_program
from ..ir.verifier import PROPERTIES, verify_properties
from .acc_store_casts import fold_acc_store_casts
from .accumulators import infer_accumulator_space
from .auto_tile_matmul import auto_tile_matmul_l0
from .classify import classify_kernels
from .composites import expand_composites
from .context import PassContext
from .ctrl_flow import ctrl_flow_transform
from .directions import derive_directions
from .fifo_to_move import fifo_to_move
from .fuse_assemble import fuse_create_assemble_to_slice
from .flatten_nd import flatten_tile_nd_to_2d
from .hand_pipes import hand_pipes, place_pipe_buffers, split_hand_lanes
from .inline import inline_functions
from .memory_plan import plan_memory
from .memory_space import infer_tile_memory_space
from .outline_scopes import outline_incore_scopes
from .returned_outputs import returned_outputs
from .runtime_scopes import materialize_runtime_scopes
from .split_mixed import split_mixed
from .tensor_to_tile import convert_tensor_to_tile_ops
from .unroll import unroll_loops
from .valid_symbols import materialize_valid_shape_symbols
from .ssa import flatten, to_ssa


@dataclass(frozen=True)
class Pass:
    name: str                              # used in dumps and error messages
    run: Callable[[Program, PassContext], Program]
    requires: FrozenSet[str] = frozenset()
    produces: FrozenSet[str] = frozenset()
    gives_up: FrozenSet[str] = frozenset()

    def __post_init__(self):
        bad = (self.requires | self.produces | self.gives_up) - PROPERTIES
        if bad:
            raise ValueError(f"pass {self.name}: unknown IR properties {sorted(bad)}")


def _p(*names: str) -> FrozenSet[str]:
    return frozenset(names)


PIPELINE: List[Pass] = [
    Pass("OutlineIncoreScopes", outline_incore_scopes, produces=_p("outlined")),
    # right after outlining (which refuses, located, a value read after the loop holding its block,
    # before the verifier sees the name undefined): the front end writes break / continue as the
    # program does, and every later pass (inlining, unrolling, SSA) sees only structured loops
    Pass("CtrlFlowTransform", ctrl_flow_transform, produces=_p("structured_ctrl_flow")),
    Pass("InlineFunctions", inline_functions, requires=_p("outlined"), produces=_p("inlined")),
    Pass("FuseCreateAssembleToSlice", fuse_create_assemble_to_slice, requires=_p("outlined", "inlined"),
         produces=_p("assembles_fused")),
    Pass("ConvertTensorToTileOps", convert_tensor_to_tile_ops, requires=_p("inlined"), produces=_p("tile_ops")),
    # a pl.create_tensor accumulator that a loop binds to matmul products is an Acc tile (pypto's
    # InferTileMemorySpace loop-carry rule), settled before SSA, which refuses a value merged from two spaces
    Pass("InferAccumulatorSpace", infer_accumulator_space, requires=_p("inlined", "tile_ops")),
    # L0 tiles of a matmul larger than Left / Right / Acc, sized from ctx.target; before Flatten, so the
    # moves the front end wrote into the call are told from a program's own L0 operands
    Pass("AutoTileMatmulL0", auto_tile_matmul_l0, requires=_p("inlined", "tile_ops")),
    Pass("ReturnedOutputs", returned_outputs, requires=_p("inlined")),
    Pass("MaterializeValidShapeSymbols", materialize_valid_shape_symbols, requires=_p("inlined")),
    Pass("HandPipes", hand_pipes, requires=_p("inlined")),
    Pass("FifoToMove", fifo_to_move, requires=_p("inlined"), produces=_p("no_fifo")),
    Pass("Flatten", flatten, requires=_p("inlined"), produces=_p("flat")),
    Pass("UnrollLoops", unroll_loops, requires=_p("flat"), produces=_p("unrolled")),
    Pass("ExpandComposites", expand_composites, requires=_p("flat")),
    Pass("ConvertToSSA", to_ssa, requires=_p("structured_ctrl_flow", "flat", "unrolled"), produces=_p("ssa")),
    Pass("FlattenTileNdTo2D", flatten_tile_nd_to_2d, requires=_p("ssa", "tile_ops"), produces=_p("tile_2d")),
    Pass("InferTileMemorySpace", infer_tile_memory_space, requires=_p("ssa", "tile_ops", "flat", "tile_2d"),
         produces=_p("tile_memory")),
    Pass("FoldAccStoreCasts", fold_acc_store_casts, requires=_p("ssa", "tile_memory")),
    Pass("ClassifyKernels", classify_kernels, requires=_p("ssa", "no_fifo"), produces=_p("classified")),
    Pass("PlanMemory", plan_memory, requires=_p("ssa", "classified"), produces=_p("planned")),
    Pass("PlacePipeBuffers", place_pipe_buffers, requires=_p("planned")),
    Pass("SplitHandLanes", split_hand_lanes, requires=_p("planned")),
    Pass("MaterializeRuntimeScopes", materialize_runtime_scopes, requires=_p("ssa")),
    Pass("DeriveArgDirections", derive_directions, requires=_p("ssa", "inlined"), produces=_p("directions")),
    # the split kernels hold FIFO ops again, and the AIC/AIV halves keep the group's memory plan
    Pass("SplitMixed", split_mixed, requires=_p("planned", "directions"), produces=_p("split"),
         gives_up=_p("no_fifo")),
]


def run_passes(program: Program, ctx: PassContext, dump_dir: Optional[Path] = None) -> Program:
    prog = copy_program(program)
    if dump_dir is not None:
        dump_dir = Path(dump_dir)
        dump_dir.mkdir(parents=True, exist_ok=True)
        (dump_dir / "00_frontend.py").write_text(print_program(prog))
    held = {"defined"}
    for i, p in enumerate(PIPELINE, start=1):
        missing = p.requires - held
        if missing:
            raise InternalError(f"pass {p.name} needs IR properties {sorted(missing)} that no earlier pass "
                                f"established")
        prog = p.run(prog, ctx)
        held = (held - p.gives_up) | p.produces
        if ctx.verify:
            verify_properties(prog, p.name, held)
        if dump_dir is not None:
            (dump_dir / f"{i:02d}_after_{p.name}.py").write_text(print_program(prog))
    return prog
