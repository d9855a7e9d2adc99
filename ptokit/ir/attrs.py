"""What a function carries from one stage to the next besides its signature and body.

Each key of ``Function.attrs`` is declared here once: the type of its value, the stage that sets it
and what it means.  ``Function.attrs`` is a ``FunctionAttrs``, which checks every write against this
table, so a stage that writes an undeclared key, or a value of the wrong type, fails at the write
with an ``InternalError`` instead of leaving a later stage to misread it.  ``docs/passes.md``
("What a function carries between passes") is rendered from the table (``markdown()``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple

from ..errors import InternalError
from .kinds import FunctionType


@dataclass(frozen=True)
class FunctionAttr:
    key: str
    type: type                    # the value's type (checked with isinstance)
    set_by: str                   # the stage (module or pass) that writes it
    doc: str
    values: Tuple = ()            # the values it may take, where it is an enumeration


_TABLE = (
    # ---- the front end: what the program declared
    FunctionAttr("declared_type", FunctionType, "front end (`language/units.py`)",
                 "the function type the program declared, before ptokit chose one for `Opaque`"),
    FunctionAttr("split", int, "front end (`attrs=`, `optimizations=`, `pl.split_aiv`), FifoToMove",
                 "the vector side's split mode (`pl.SplitMode`): 1 up-down, 2 left-right", (1, 2)),
    FunctionAttr("dual_aiv_dispatch", bool, "front end (`attrs=`)",
                 "a hand-written AIV function that both vector lanes run"),
    FunctionAttr("dual_lanes", bool, "front end (`pl.split_aiv(mode=NONE)`)",
                 "both vector lanes run the whole vector body"),
    FunctionAttr("split_regions", dict, "front end (`pl.split_aiv`)",
                 "the kernel's `pl.split_aiv` regions: their mode and where they stand"),
    FunctionAttr("tensor_valid", dict, "front end (`language/units.py`)",
                 "parameter name -> its `pl.TensorView(valid_shape=...)`"),
    FunctionAttr("jit_outlined", bool, "front end (`language/outline.py`)",
                 "a kernel made from a `pl.at` block of a `@pl.jit` function"),
    FunctionAttr("slot_num", int, "front end (`pl.cross_core_slot`)", "the cross-core pipe's ring depth"),
    FunctionAttr("external_source", str, "front end (`language/units.py`)",
                 "an AIV / AIC kernel whose body is this C++ file (`external_source=`); the tree builds it as it is"),
    FunctionAttr("added_outs", tuple, "front end (`language/signatures.py`)",
                 "the `pl.Out` parameters added for the tiles a kernel returns, in order (its callers pass them)"),
    FunctionAttr("jit_helper", str, "`@pl.jit` front end", "the qualified name of the Python helper it came from"),
    FunctionAttr("jit_uses", tuple, "`@pl.jit` front end",
                 "(tensors read, tensors written) by the helper, for its callers' directions"),
    # ---- passes
    FunctionAttr("fifo_split_seen", bool, "FifoToMove",
                 "a transfer's `split=` has been checked against the kernel's split mode"),
    FunctionAttr("mixed", bool, "ClassifyKernels", "an `InCore` kernel with both cube and vector work"),
    FunctionAttr("mixed_at", tuple, "ClassifyKernels",
                 "(first cube op, first vector op) source locations of a mixed kernel, for messages"),
    FunctionAttr("core_type", str, "ClassifyKernels, HandPipes, SplitMixed",
                 "which core runs the kernel", ("aic", "aiv", "mixed")),
    FunctionAttr("buffer_of", dict, "PlanMemory", "tile name -> the tile whose buffer it shares"),
    FunctionAttr("tile_addr", dict, "PlanMemory", "buffer representative -> its address in its memory space"),
    FunctionAttr("tile_slot", dict, "PlanMemory",
                 "buffer representative -> (slot bytes, run-time slot index): its address is addr + index * slot"),
    FunctionAttr("memory_peak", dict, "PlanMemory, PlacePipeBuffers, SplitMixed",
                 "memory space name -> bytes the kernel uses there"),
    FunctionAttr("group", str, "HandPipes, SplitMixed", "the Group function an AIC or AIV half belongs to"),
    FunctionAttr("fifo", dict, "HandPipes, SplitMixed",
                 "the cross-core FIFO geometry of a Group's half (slots, bases, direction, its role)"),
    FunctionAttr("aic", str, "SplitMixed", "of a Group: the name of its AIC half"),
    FunctionAttr("aiv", str, "SplitMixed", "of a Group: the name of its AIV half"),
    FunctionAttr("kernel_ids", dict, "DeriveArgDirections, SplitMixed",
                 "of an orchestration: kernel name -> the id its tasks are submitted with"),
)
FUNCTION_ATTRS: Dict[str, FunctionAttr] = {a.key: a for a in _TABLE}


def check(key, value) -> None:
    decl = FUNCTION_ATTRS.get(key)
    if decl is None:
        raise InternalError(f"Function.attrs[{key!r}] is not declared (ptokit/ir/attrs.py)")
    if not isinstance(value, decl.type):
        raise InternalError(f"Function.attrs[{key!r}] holds a {decl.type.__name__}, got {type(value).__name__}: "
                            f"{value!r}")
    if decl.values and value not in decl.values:
        raise InternalError(f"Function.attrs[{key!r}] is one of {list(decl.values)}, got {value!r}")


class FunctionAttrs(dict):
    """A dict whose every write is checked against the declarations above."""

    def __init__(self, items=(), **kw):
        super().__init__()
        self.update(items, **kw)

    def __setitem__(self, key, value):
        check(key, value)
        super().__setitem__(key, value)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, items=(), **kw):
        for k, v in dict(items, **kw).items():
            self[k] = v

    def __ior__(self, other):
        self.update(other)
        return self

    def copy(self) -> "FunctionAttrs":
        return FunctionAttrs(self)

    def __reduce__(self):
        return (FunctionAttrs, (dict(self),))


def markdown() -> str:
    lines = ["| key | type | set by | meaning |", "|---|---|---|---|"]
    for a in _TABLE:
        meaning = a.doc + (f" (one of {', '.join(repr(v) for v in a.values)})" if a.values else "")
        lines.append(f"| `{a.key}` | `{a.type.__name__}` | {a.set_by} | {meaning} |")
    return "\n".join(lines) + "\n"


_BEGIN, _END = "<!-- function-attrs:begin -->\n", "<!-- function-attrs:end -->"


def render_into(text: str) -> str:
    """``text`` (docs/passes.md) with the table between its markers rendered again."""
    head, rest = text.split(_BEGIN, 1)
    _, tail = rest.split(_END, 1)
    return head + _BEGIN + markdown() + _END + tail


if __name__ == "__main__":      # python -m ptokit.ir.attrs --write docs/passes.md
    import sys
    from pathlib import Path
    if len(sys.argv) != 3 or sys.argv[1] != "--write":
        sys.exit("usage: python -m ptokit.ir.attrs --write docs/passes.md")
    page = Path(sys.argv[2])
    page.write_text(render_into(page.read_text(encoding="utf-8")), encoding="utf-8")
