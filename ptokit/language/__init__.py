"""The ptokit DSL: ``import ptokit.language as pl``.

Names only: types, dtypes, decorators and ops.  Source-compatible with the
public ``pypto.language`` API for the surface documented in docs/language.md.
"""
from ..ir.nodes import FunctionType
from ..ir.types import MemorySpace, PadValue
from .decorators import at, function, parallel, program, range, spmd, unroll  # noqa: A004
from ..jit import jit  # noqa: F401  (@pl.jit, @pl.jit.incore, @pl.jit.inline)
from .ops import *  # noqa: F401,F403
from .ops import OPS as _OPS
from .ops import tile
from .types import (BF16, BOOL, FP16, FP32, INDEX, INT8, INT16, INT32, INT64, UINT8, InOut, Level,
                    Mem, Out, Scalar, Tensor, Tile, dynamic)

__all__ = [
    "FunctionType", "MemorySpace", "Mem", "PadValue", "Level", "Tensor", "Tile", "Scalar", "Out",
    "InOut", "dynamic", "program", "function", "range", "parallel", "unroll", "at", "spmd", "tile",
    "FP16", "BF16", "FP32", "INT8", "INT16", "INT32", "INT64", "UINT8", "BOOL", "INDEX",
] + sorted(_OPS)
