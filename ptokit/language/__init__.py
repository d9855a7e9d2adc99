"""The ptokit DSL: ``import ptokit.language as pl``.

Names only: types, dtypes, decorators and ops.  Source-compatible with the
public ``pypto.language`` API for the surface documented in docs/language.md.
The front end that reads DSL code lives in this package's modules (``parser`` and its parts).
"""
from ..ir.nodes import FunctionType
from ..ir.types import AtomicType, MemorySpace, PadValue, TensorLayout, TileLayout
from .decorators import (at, cluster, const, func_attr, function, inline, manual_scope, max, min,  # noqa: A004
                         parallel, pipeline, program, range, scope, spmd, split_aiv, static_assert, static_print,
                         submit, unroll, while_, cond, yield_)
from .ops import *  # noqa: F401,F403
from .ops import OPS as _OPS
from .ops import array, prefetch, system, tensor, tile
from .types import DTYPES as _DTYPES
from .types import (CompactMode, InOut, Level, Mem, MemRef, Out, PipeType, Role, Scalar, ScopeMode, SplitMode, TaskId,
                    Tensor, TensorView, Tile, TileView, Tuple, cross_core_slot, dynamic, split)
from .text import loads, parse
from ..ir.ops.pipes import AUTO  # noqa: E402  (pl.reserve_buffer(base=pl.AUTO))

globals().update(_DTYPES)      # pl.FP32, pl.UINT16, ...
ND, DN, NZ, MX_A_ZZ, MX_B_NN = (TensorLayout.ND, TensorLayout.DN, TensorLayout.NZ, TensorLayout.MX_A_ZZ,
                                TensorLayout.MX_B_NN)   # pl.Tensor[shape, dtype, layout]


def __getattr__(name):
    # `pl.jit` is the jit package's decorator, and the jit package is built on this one (it parses
    # with this package's front end).  It is imported on first use so that neither package imports
    # the other while it loads, and `import ptokit.language` stays free of the compiler stack.
    if name == "jit":
        from ..jit import jit
        return jit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FunctionType", "AtomicType", "MemorySpace", "Mem", "PadValue", "TileLayout", "TensorLayout", "ND", "DN", "NZ",
    "MX_A_ZZ", "MX_B_NN", "Level", "Tensor", "Tile", "Scalar",
    "Out", "InOut", "dynamic", "program", "function", "range", "parallel", "unroll", "at", "spmd", "tile",
    "jit",  # noqa: F405 (module __getattr__)
    "func_attr", "SplitMode", "split", "split_aiv", "ScopeMode", "Role", "PipeType", "scope", "manual_scope", "cluster", "submit",
    "const", "min", "max", "static_assert", "static_print", "tensor", "pipeline", "yield_", "while_", "cond",
    "array", "prefetch", "system", "AUTO", "cross_core_slot", "TaskId", "TileView", "CompactMode", "TensorView", "MemRef", "Tuple",
    "inline", "parse", "loads",
] + sorted(_DTYPES) + sorted(_OPS)
