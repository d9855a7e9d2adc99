"""What AutoTileMatmulL0 (``auto_tile_matmul.py``, ``split_k_grid.py``) and InferAccumulatorSpace
ask of an op, by the op table's traits and parameters, and the ops they build.

The matmul family is the ops with the ``matmul`` trait: a product whose Left and Right operands are
the parameters of those spaces, an accumulating one (``cube`` and ``shares_operand0``) reading its
accumulator as operand 0, a biased one with a Bias operand; ``acc_form`` names the op that adds a
further product into the result.
"""
from __future__ import annotations

from typing import Optional

from ..ir.ops import OPS
from ..ir.types import MemorySpace

# The ops these passes build or look through, one name each (op-table names): data movement and
# index arithmetic the rewrite writes itself, not a family a trait would describe.
MOVE = "move"
EXTRACT = "extract"
LOAD = "load"
STORE = "store"
CAST = "cast"
CREATE_TILE = "create_tile"
FULL = "full"
ASSEMBLE = "assemble"
TRANSPOSE_VIEW = "transpose_view"
SLICE = "slice"
MUL = "scalar.mul"
ADD = "scalar.add"
EQ = "scalar.eq"


def is_matmul(op: str) -> bool:
    """A 2-D product AutoTileMatmulL0 may tile (matmul, matmul_acc, matmul_bias)."""
    d = OPS.get(op)
    return d is not None and d.has("matmul")


def accumulates(op: str) -> bool:
    """An op that reads an accumulator as operand 0 and adds its product into it (matmul_acc family)."""
    d = OPS.get(op)
    return d is not None and d.cube and d.has("shares_operand0")


def operand_index(op: str, space: MemorySpace) -> Optional[int]:
    """The IR argument index of the op's operand that the cube reads from ``space`` (Left, Right, Bias)."""
    for i, p in enumerate(OPS[op].operand_params):
        if p.space is space:
            return i
    return None


def init_cond_given(call) -> bool:
    """Whether an accumulating call passes its optional scalar operand (matmul_acc's init_cond)."""
    return len(call.args) > sum(1 for p in OPS[call.op].operand_params if p.kind == "tile")


def has_bias(op: str) -> bool:
    return operand_index(op, MemorySpace.Bias) is not None


def acc_form(op: str) -> str:
    """The op that adds a further product of ``op``'s kind into its result (matmul -> matmul_acc)."""
    form = OPS[op].acc_form
    if form is None:
        raise KeyError(f"op {op!r} declares no acc_form")
    return form


def init_form(op: str) -> str:
    """The plain product of a matmul op: the op itself, or for an accumulating one the product it adds."""
    return OPS[op].init_form or op
