"""The ptokit DSL: ``import ptokit.language as pl``.

Names only: types, dtypes, decorators and ops.  Source-compatible with the
public ``pypto.language`` API for the surface documented in docs/language.md.
The front end that reads DSL code lives in this package's modules (``parser`` and its parts).
"""
from ..ir.nodes import FunctionType
from ..ir.types import MemorySpace, PadValue, TileLayout
from .decorators import at, function, parallel, program, range, spmd, unroll  # noqa: A004
from .ops import *  # noqa: F401,F403
from .ops import OPS as _OPS
from .ops import tile
from .types import DTYPES as _DTYPES
from .types import InOut, Level, Mem, Out, Scalar, Tensor, Tile, dynamic

globals().update(_DTYPES)      # pl.FP32, pl.UINT16, ...


def __getattr__(name):
    # `pl.jit` is the jit package's decorator, and the jit package is built on this one (it parses
    # with this package's front end).  It is imported on first use so that neither package imports
    # the other while it loads, and `import ptokit.language` stays free of the compiler stack.
    if name == "jit":
        from ..jit import jit
        return jit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FunctionType", "MemorySpace", "Mem", "PadValue", "TileLayout", "Level", "Tensor", "Tile", "Scalar", "Out",
    "InOut", "dynamic", "program", "function", "range", "parallel", "unroll", "at", "spmd", "tile", "jit",
] + sorted(_DTYPES) + sorted(_OPS)
