"""DSL op names, made from the op table (``ptokit.ir.ops``): each op is exposed in the
namespaces its row lists (``pl.<op>``, ``pl.tile.<op>``).  Each name is a marker object the
parser recognises by its ``__pto_op__`` attribute; calling one as Python is an error with a hint."""
from __future__ import annotations

import types as _types

from ..ir.ops import OPS as _TABLE
from ..ir.ops import dsl_name as _dsl_name
from ..ir.types import MaskPattern
from .decorators import dsl_marker


def _marker(name):
    return dsl_marker(name, "__pto_op__")


def _namespace(ns: str) -> dict:
    names = {_dsl_name(name, ns): _marker(name) for name, op in _TABLE.items() if ns in op.namespaces}
    for name, op in _TABLE.items():     # other spellings of an op (pl.tile.create is create_tile)
        for alias in op.dsl_aliases:
            where, _, short = alias.rpartition(".")
            if where == ns:
                names[short] = _marker(name)
    return names


OPS = _namespace("pl")
globals().update(OPS)

# pl.tile.<op>: the tile-level names
tile = _types.SimpleNamespace(**_namespace("pl.tile"), MaskPattern=MaskPattern)

# pl.tensor.<op>: the tensor-level spellings: every pl.<op> (in kernel code its tensor operands are
# loaded, language/tensor_level.py), plus tensor-only names
tensor = _types.SimpleNamespace(**{**_namespace("pl"), **_namespace("pl.tensor")}, create=OPS["create_tensor"],
                                dim=dsl_marker("dim"))

# pl.array.create / get_element / update_element; pl.system.task_dummy / task_invalid
array = _types.SimpleNamespace(**_namespace("pl.array"))
system = _types.SimpleNamespace(**_namespace("pl.system"))
# pl.prefetch.make_context / async_prefetch / session / wait (ir/ops/prefetch.py)
prefetch = _types.SimpleNamespace(**_namespace("pl.prefetch"))

# ``out, tid = pl.spmd_submit(self.kernel, *args, core_num=n)`` in orchestration (parser.py spmd_submit)
spmd_submit = dsl_marker("spmd_submit")
