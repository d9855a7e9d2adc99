"""PassManager: the fixed pipeline of IR passes, with dumps and verification.

``run_passes(program, ctx, dump_dir)`` copies the program, runs every pass in
order, verifies the IR after each (``ctx.verify``) and, with a dump folder,
writes ``00_frontend.py`` then ``NN_after_<PassName>.py``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, List, Optional, Tuple

from ..ir.nodes import Program, copy_program
from ..ir.printer import print_program
from ..ir.verifier import verify_program
from .classify import classify_kernels
from .context import PassContext
from .directions import derive_directions
from .fifo_to_move import fifo_to_move
from .inline import inline_functions
from .memory_plan import plan_memory
from .memory_space import check_memory_spaces
from .split_mixed import split_mixed
from .ssa import flatten, to_ssa

# (name used in dumps, function, IR is in SSA form afterwards)
PIPELINE: List[Tuple[str, Callable, bool]] = [
    ("InlineFunctions", inline_functions, False),
    ("FifoToMove", fifo_to_move, False),
    ("Flatten", flatten, False),
    ("ConvertToSSA", to_ssa, True),
    ("InferMemorySpace", check_memory_spaces, True),
    ("ClassifyKernels", classify_kernels, True),
    ("PlanMemory", plan_memory, True),
    ("DeriveArgDirections", derive_directions, True),
    ("SplitMixed", split_mixed, True),
]


def run_passes(program: Program, ctx: PassContext, dump_dir: Optional[Path] = None) -> Program:
    prog = copy_program(program)
    if dump_dir is not None:
        dump_dir = Path(dump_dir)
        dump_dir.mkdir(parents=True, exist_ok=True)
        (dump_dir / "00_frontend.py").write_text(print_program(prog))
    for i, (name, fn, ssa) in enumerate(PIPELINE, start=1):
        prog = fn(prog, ctx)
        if ctx.verify:
            verify_program(prog, name, ssa)
        if dump_dir is not None:
            (dump_dir / f"{i:02d}_after_{name}.py").write_text(print_program(prog))
    return prog
