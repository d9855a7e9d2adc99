"""The op table: every op ptokit knows, declared once (see ``_core`` for the vocabulary).

Importing this package declares every op; ``OPS`` maps IR op names to ``OpDef`` rows.
``docs/adding-an-op.md`` is the checklist for a new op.
"""
from ._core import (OPERAND_KINDS, OPS, REQUIRED, TRAITS, OpDef, OpTypeError, Param, Scratch, fifo_ops, infer,  # noqa: F401
                    lookup, ops_with)
from . import elementwise, reduce, expand, layout, memory, cube, fifo, spmd, scalar, orch  # noqa: F401,E402
from . import compare, bitwise, arith, argreduce, generate  # noqa: F401,E402  (vector ops, part 2)
from .scalar import BY_PYTHON, SCALAR_OPERATORS, ScalarOperator  # noqa: F401,E402

__all__ = ["OPS", "OpDef", "Param", "OpTypeError", "infer", "lookup", "ops_with", "fifo_ops", "SCALAR_OPERATORS",
           "BY_PYTHON", "ScalarOperator", "REQUIRED", "TRAITS", "OPERAND_KINDS"]
