"""The op table: every op ptokit knows, declared once (see ``_core`` for the vocabulary).

Importing this package declares every op; ``OPS`` maps IR op names to ``OpDef`` rows.
``docs/adding-an-op.md`` is the checklist for a new op.
"""
from ._core import (OPERAND_KINDS, OPS, REQUIRED, TRAITS, OpDef, OpTypeError, Param, Scratch, dsl_name,  # noqa: F401
                    fifo_ops, infer, lookup, ops_with)
from . import elementwise, reduce, expand, layout, memory, cube, fifo, spmd, scalar, orch, tasks  # noqa: F401,E402
from . import view, gather, sort  # noqa: F401,E402  (section C vector ops: views, gathers/scatters, sorting)
from . import compare, bitwise, arith, argreduce, generate, element  # noqa: F401,E402  (vector ops, part 2)
from . import pipes  # noqa: F401,E402  (hand-written pipes, cross-core events and barriers)
from . import comm  # noqa: F401,E402  (distributed programs: pld in kernel code)
from . import prefetch  # noqa: F401,E402  (pl.prefetch: asynchronous GM -> L2 prefetch)
from . import lanes  # noqa: F401,E402  (marks the positional ops, after all are declared)
from .scalar import BY_PYTHON, SCALAR_OPERATORS, ScalarOperator  # noqa: F401,E402

__all__ = ["OPS", "OpDef", "Param", "OpTypeError", "infer", "lookup", "ops_with", "fifo_ops", "SCALAR_OPERATORS",
           "BY_PYTHON", "ScalarOperator", "REQUIRED", "TRAITS", "OPERAND_KINDS"]
