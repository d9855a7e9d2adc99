"""DSL op names.  Each is a marker object the parser recognises by its
``__pto_op__`` attribute; calling one as Python is an error with a hint."""
from __future__ import annotations

import types as _types

from .decorators import dsl_marker

_TILE_OPS = [
    "load", "store", "create_tile", "move", "add", "sub", "mul", "div", "maximum", "minimum",
    "adds", "subs", "muls", "divs", "maxs", "mins", "exp", "log", "sqrt", "rsqrt", "recip", "neg",
    "abs", "relu", "cast", "row_sum", "row_max", "row_min", "col_sum", "col_max", "col_min",
    "row_expand", "row_expand_add", "row_expand_sub", "row_expand_mul", "row_expand_div",
    "col_expand", "col_expand_add", "col_expand_sub", "col_expand_mul", "col_expand_div",
    "reshape", "concat", "slice", "assemble", "fillpad", "matmul", "matmul_acc", "create_tensor",
]
_SPMD_OPS = ["get_block_idx", "get_block_num", "get_subblock_idx"]
# cross-core FIFO (pl.tile only): aic -> aiv, and the aiv -> aic direction
_FIFO_OPS = ["tpush_to_aiv", "tpop_from_aic", "tfree_from_aic", "tpush_to_aic", "tpop_from_aiv", "tfree_from_aiv"]


def _marker(name):
    return dsl_marker(name, "__pto_op__")


OPS = {name: _marker(name) for name in _TILE_OPS}
globals().update(OPS)

# pl.tile.<op>: the same ops, plus the SPMD identity ops
tile = _types.SimpleNamespace(**OPS, **{n: _marker(n) for n in _SPMD_OPS + _FIFO_OPS})

# ``out, tid = pl.spmd_submit(self.kernel, *args, core_num=n)`` in orchestration (parser.py spmd_submit)
spmd_submit = dsl_marker("spmd_submit")
