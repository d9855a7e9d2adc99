"""DSL op names, made from the op table (``ptokit.ir.ops``): each op is exposed in the
namespaces its row lists (``pl.<op>``, ``pl.tile.<op>``).  Each name is a marker object the
parser recognises by its ``__pto_op__`` attribute; calling one as Python is an error with a hint."""
from __future__ import annotations

import types as _types

from ..ir.ops import OPS as _TABLE
from .decorators import dsl_marker


def _marker(name):
    return dsl_marker(name, "__pto_op__")


def _namespace(ns: str) -> dict:
    return {name: _marker(name) for name, op in _TABLE.items() if ns in op.namespaces}


OPS = _namespace("pl")
globals().update(OPS)

# pl.tile.<op>: the tile-level names
tile = _types.SimpleNamespace(**_namespace("pl.tile"))

# pl.tensor.<op>: the tensor-level spellings: every pl.<op> (in kernel code its tensor operands are
# loaded, language/tensor_level.py), plus tensor-only names
tensor = _types.SimpleNamespace(**_namespace("pl"), create=OPS["create_tensor"], dim=dsl_marker("dim"))

# ``out, tid = pl.spmd_submit(self.kernel, *args, core_num=n)`` in orchestration (parser.py spmd_submit)
spmd_submit = dsl_marker("spmd_submit")
