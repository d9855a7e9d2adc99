"""The ptokit DSL: ``import ptokit.language as pl``.

Names only: types, dtypes, decorators and ops.  Source-compatible with the
public ``pypto.language`` API for the surface documented in docs/language.md.
The front end that reads DSL code lives in this package's modules (``parser`` and its parts).
"""
from functools import lru_cache as _lru_cache
from importlib import import_module as _import_module

from ..ir.nodes import FunctionType
from ..ir.types import AtomicType, MemorySpace, PadValue, TensorLayout, TileLayout
from .decorators import (at, cluster, incore, const, func_attr, function, inline, manual_scope, max, min,  # noqa: A004
                         parallel, pipeline, program, range, scope, spmd, split_aiv, static_assert, static_print,
                         submit, unroll, while_, cond, yield_)
from .types import DTYPES as _DTYPES
from .types import (CompactMode, InOut, Level, Mem, MemRef, Out, PipeType, Role, Scalar, ScopeMode, SplitMode, TaskId,
                    Tensor, TensorView, Tile, TileView, Tuple, cross_core_slot, dynamic, split)
from .text import loads, parse

globals().update(_DTYPES)      # pl.FP32, pl.UINT16, ...
ND, DN, NZ, MX_A_ZZ, MX_B_NN = (TensorLayout.ND, TensorLayout.DN, TensorLayout.NZ, TensorLayout.MX_A_ZZ,
                                TensorLayout.MX_B_NN)   # pl.Tensor[shape, dtype, layout]


@_lru_cache(maxsize=None)     # made once: a later miss (hasattr(pl, 'x')) does not rebuild it
def _ops_names() -> dict:
    # the op names (pl.add, pl.tile, pl.tensor, ... from .ops) and pl.AUTO: made from the op table,
    # which is loaded on the first use of one of them (a parse), not with the package, so that a
    # warm @pl.jit call (its program already compiled on disk) never loads the op table
    _ops = _import_module(__name__ + ".ops")      # not `from . import ops`: that asks __getattr__
    from ..ir.ops.pipes import AUTO   # pl.reserve_buffer(base=pl.AUTO)
    names = {k: v for k, v in vars(_ops).items() if not k.startswith("_")}
    names["AUTO"] = AUTO
    names["_OPS"] = names["OPS"]      # the pl-level names ({dsl name: marker}), as before
    return names


def __getattr__(name):
    # `pl.jit` is the jit package's decorator, and the jit package is built on this one (it parses
    # with this package's front end).  It is imported on first use so that neither package imports
    # the other while it loads, and `import ptokit.language` stays free of the compiler stack.
    if name == "jit":
        from ..jit import jit
        return jit
    if name == "__all__":
        globals()["__all__"] = value = _ALL + sorted(_ops_names()["OPS"])
        return value
    if not name.startswith("__"):
        names = _ops_names()
        if name in names:
            for k, v in names.items():  # once: later lookups are plain module attributes
                globals().setdefault(k, v)
            return names[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    names = _ops_names()     # first: loading the op names binds the ops submodule here too
    return sorted(set(globals()) | set(names) | {"jit"})


_ALL = [
    "FunctionType", "AtomicType", "MemorySpace", "Mem", "PadValue", "TileLayout", "TensorLayout", "ND", "DN", "NZ",
    "MX_A_ZZ", "MX_B_NN", "Level", "Tensor", "Tile", "Scalar",
    "Out", "InOut", "dynamic", "program", "function", "range", "parallel", "unroll", "at", "incore", "spmd", "tile",
    "jit",  # noqa: F405 (module __getattr__)
    "func_attr", "SplitMode", "split", "split_aiv", "ScopeMode", "Role", "PipeType", "scope", "manual_scope", "cluster", "submit",
    "const", "min", "max", "static_assert", "static_print", "tensor", "pipeline", "yield_", "while_", "cond",
    "array", "prefetch", "system", "AUTO", "cross_core_slot", "TaskId", "TileView", "CompactMode", "TensorView", "MemRef", "Tuple",
    "inline", "parse", "loads",
] + sorted(_DTYPES)   # + the op names: __all__ is completed on first use (__getattr__)
