"""Before/after goldens, one per pass: the IR printed just before and just after the pass on a
small program chosen to show what the pass does (docs/passes.md quotes them).

Regenerate after an intended change with ``PTOKIT_UPDATE_GOLDEN=1 pytest tests/passes`` and
review the diff.
"""
import os
from pathlib import Path

import pytest

from ptokit.ir.printer import print_program
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.manager import PIPELINE

from . import programs as P
from .valid_symbol_program import LoopOfTasks, ValidShapeSymbol

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "CtrlFlowTransform": P.BreakContinue,
    "OutlineIncoreScopes": P.AtBlocks,
    "InlineFunctions": P.InlineCall,
    "FuseCreateAssembleToSlice": P.AssembleCreated,
    "ConvertTensorToTileOps": P.TensorLevel,
    "ReturnedOutputs": P.ReturnsCreated,
    "MaterializeValidShapeSymbols": ValidShapeSymbol,
    "HandPipes": P.HandPipe,
    "FifoToMove": P.ExplicitPipe,
    "Flatten": P.Nested,
    "UnrollLoops": P.UnrollAndPipeline,
    "ExpandComposites": P.Composite,
    "InferAccumulatorSpace": P.SplitKChain,
    "AutoTileMatmulL0": P.OversizedMatmul,
    "ConvertToSSA": P.CarriedAndMerged,
    "FlattenTileNdTo2D": P.NdTiles,
    "InferTileMemorySpace": P.MatmulOperands,
    "FoldAccStoreCasts": P.NarrowedProduct,
    "ClassifyKernels": P.CubeAndVector,
    "PlanMemory": P.CarriedAndMerged,
    "PlacePipeBuffers": P.HandPipe,
    "SplitHandLanes": P.HandSplitPipe,
    "MaterializeRuntimeScopes": LoopOfTasks,
    "DeriveArgDirections": P.CubeAndVector,
    "SplitMixed": P.MatmulExp,
}

# further programs of a pass, golden file "<pass>.<suffix>.txt"
MORE = {
    ("ConvertTensorToTileOps", "as_written"): P.TensorLevelAsWritten,
    ("OutlineIncoreScopes", "intermediate"): P.BlockValues,
}


def before_after(program, name: str):
    prog = parse_program(program)
    ctx = PassContext(platform="a2a3sim")
    for p in PIPELINE:
        before = print_program(prog)
        prog = p.run(prog, ctx)
        if p.name == name:
            return before, print_program(prog)
    raise AssertionError(f"no pass {name}")


def test_every_pass_has_a_golden():
    assert sorted(CASES) == sorted(p.name for p in PIPELINE)


def check_golden(program, name: str, file: str) -> None:
    before, after = before_after(program, name)
    text = f"# ---- before {name}\n{before}\n# ---- after {name}\n{after}"
    golden = GOLDEN / file
    if os.environ.get("PTOKIT_UPDATE_GOLDEN") == "1":
        golden.write_text(text)
    assert golden.exists(), f"missing golden {golden}; run with PTOKIT_UPDATE_GOLDEN=1"
    assert text == golden.read_text()
    assert before != after, f"{name} changed nothing on its program"


@pytest.mark.parametrize("name", sorted(CASES))
def test_pass_before_after(name):
    check_golden(CASES[name], name, f"{name}.txt")


@pytest.mark.parametrize("name,suffix", sorted(MORE))
def test_more_pass_before_after(name, suffix):
    check_golden(MORE[name, suffix], name, f"{name}.{suffix}.txt")
