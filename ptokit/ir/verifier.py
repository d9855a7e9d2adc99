"""Structural checks run after each pass (when the PassContext asks for them).

The IR's invariants are named *properties*.  Every pass declares which properties it requires
and which it establishes or gives up (``passes/manager.py``); after a pass the verifier checks
every property the pipeline claims at that point.  A failure here is a ptokit bug, not a user
error: it raises InternalError naming the pass that broke the invariant.

Properties:

* ``defined`` (always): every name is defined before use and every value is typed.
* ``ssa``: every name is defined once; loop-carried and merged values are explicit.
* ``structured_ctrl_flow``: no ``break`` / ``continue`` statement is left (CtrlFlowTransform).
* ``outlined``: no ``incore`` scope statement is left (each block of kernel code is a kernel).
* ``inlined``: no call of an ``Inline`` function is left.
* ``assembles_fused``: no ``pl.assemble`` of tensors is left in orchestration code (each became a
  window of its target).
* ``no_fifo``: no cross-core FIFO op is left (they are moves until SplitMixed).
* ``tile_ops``: no tensor-level op is left in a kernel (ConvertTensorToTileOps lowered them).
* ``flat``: no tile op is nested inside another op's arguments.
* ``tile_memory``: every cube operand sits in the space its op names (Left / Right / Bias), and no
  tile operand still asks for a transpose (``a_trans`` / ``b_trans``).
* ``tile_2d``: no kernel value is an N-D tile (FlattenTileNdTo2D lowered them to 2-D).
* ``classified``: every ``InCore`` kernel is ``AIC``, ``AIV`` or marked mixed.
* ``planned``: every kernel has a buffer and an address for each tile it defines.
* ``directions``: every task call in orchestration has its argument kinds.
* ``split``: no mixed kernel is left (each became an AIC + AIV group).
"""
from __future__ import annotations

from typing import Callable, Dict, Set

from ..errors import InternalError
from . import nodes as N
from .access import assembles_tensor
from .ops import OPS
from .ops.tensor_level import keeps_tensor_operand
from .types import MemorySpace, TileType


def verify_program(prog: N.Program, after: str, ssa: bool) -> None:
    for fn in prog.functions.values():
        defined: Set[str] = {p.name for p in fn.params}
        defined.update(prog.dyn_vars)
        _verify_body(fn, fn.body, defined, after, ssa, set())


def _verify_body(fn, body, defined, after, ssa, seen_defs):
    for s in body:
        for e in N.stmt_exprs(s):
            for sub in N.walk_expr(e):
                if isinstance(sub, N.Var) and sub.name not in defined:
                    raise InternalError(f"after {after}: {fn.name} uses {sub.name!r} before defining it")
                if isinstance(sub, (N.OpCall, N.Var)) and sub.type is None:
                    raise InternalError(f"after {after}: {fn.name} has an untyped value {sub!r}")
        defs = []
        if isinstance(s, N.Assign):
            defs = [t.name for t in s.targets]
        if isinstance(s, N.For):
            inner = set(defined) | {s.var.name} | {p.name for p, _ in s.iter_args}
            _verify_body(fn, s.body, inner, after, ssa, seen_defs)
            defs = [r.name for r in s.results]
        elif isinstance(s, N.While):
            if sum(isinstance(st, N.Condition) for st in s.body) != 1:
                raise InternalError(f"after {after}: a while loop in {fn.name} has no single top-level Condition")
            inner = set(defined) | {p.name for p, _ in s.iter_args}
            _verify_body(fn, s.body, inner, after, ssa, seen_defs)
            defs = [r.name for r in s.results]
        elif isinstance(s, N.If):
            then_defined, else_defined = set(defined), set(defined)
            _verify_body(fn, s.then_body, then_defined, after, ssa, seen_defs)
            _verify_body(fn, s.else_body, else_defined, after, ssa, seen_defs)
            defs = [r.name for r in s.results]
            if not ssa:
                # before SSA conversion a name assigned in both arms is defined after the if
                defs += sorted((then_defined & else_defined) - defined)
        elif isinstance(s, N.Scope):
            _verify_body(fn, s.body, defined, after, ssa, seen_defs)
        for d in defs:
            if ssa and d in seen_defs:
                raise InternalError(f"after {after}: {fn.name} defines {d!r} twice (not SSA)")
            seen_defs.add(d)
            defined.add(d)


# ----------------------------------------------------------------- properties

def _fail(after: str, fn: N.Function, prop: str, what: str):
    raise InternalError(f"after {after}: {fn.name} breaks '{prop}': {what}")


def _check_structured_ctrl_flow(prog: N.Program, after: str) -> None:
    for fn in prog.functions.values():
        for s in N.walk_stmts(fn.body):
            if isinstance(s, (N.Break, N.Continue)):
                _fail(after, fn, "structured_ctrl_flow", f"a `{type(s).__name__.lower()}` is left")


def _check_outlined(prog: N.Program, after: str) -> None:
    for fn in prog.functions.values():
        for s in N.walk_stmts(fn.body):
            if isinstance(s, N.Scope) and s.kind == "incore":
                _fail(after, fn, "outlined", f"the block of kernel {s.attrs.get('name')} is not outlined")


def _check_inlined(prog: N.Program, after: str) -> None:
    for fn in prog.functions.values():
        for _, call in N.walk_calls(fn.body):
            callee = prog.functions.get(call.callee)
            if callee is not None and callee.kind is N.FunctionType.Inline:
                _fail(after, fn, "inlined", f"it still calls Inline function {call.callee}")


def _check_assembles_fused(prog: N.Program, after: str) -> None:
    for fn in prog.functions.values():
        for _, op in N.walk_ops(fn.body):
            if assembles_tensor(op):
                _fail(after, fn, "assembles_fused", "a pl.assemble of tensors is left")


def _check_no_fifo(prog: N.Program, after: str) -> None:
    for fn in prog.functions.values():
        if fn.attrs.get("fifo", {}).get("hand"):
            continue       # hand-written pipe ends stay (passes/hand_pipes.py)
        for _, op in N.walk_ops(fn.body):
            if OPS[op.op].fifo:
                _fail(after, fn, "no_fifo", f"it still holds {op.op}")


def _check_tile_ops(prog: N.Program, after: str) -> None:
    for fn in prog.of_kind(N.FunctionType.InCore, N.FunctionType.AIC, N.FunctionType.AIV):
        for _, op in N.walk_ops(fn.body):
            if keeps_tensor_operand(op):
                _fail(after, fn, "tile_ops", f"the tensor-level op {op.op} is left in a kernel")


def _check_flat(prog: N.Program, after: str) -> None:
    for fn in prog.functions.values():
        for _, op in N.walk_ops(fn.body):
            for a in op.args:
                if isinstance(a, N.OpCall) and isinstance(a.type, TileType):
                    _fail(after, fn, "flat", f"{a.op} is nested in the arguments of {op.op}")


def _check_tile_2d(prog: N.Program, after: str) -> None:
    for fn in prog.of_kind(N.FunctionType.InCore, N.FunctionType.AIC, N.FunctionType.AIV):
        for _, e in N.iter_exprs(fn.body):
            if isinstance(e.type, TileType) and e.type.nd is not None:
                _fail(after, fn, "tile_2d", f"the N-D tile {e.type} is left")


def _check_unrolled(prog: N.Program, after: str) -> None:
    for fn in prog.functions.values():
        for s in N.walk_stmts(fn.body):
            if isinstance(s, N.For) and s.kind in ("unroll", "pipeline"):
                _fail(after, fn, "unrolled", f"a pl.{s.kind} loop is still a loop")


def _check_tile_memory(prog: N.Program, after: str) -> None:
    for fn in prog.of_kind(N.FunctionType.InCore, N.FunctionType.AIC, N.FunctionType.AIV):
        for _, op in N.walk_ops(fn.body):
            for a, p in zip(op.args, OPS[op.op].operand_params):
                if p.space in (MemorySpace.Left, MemorySpace.Right, MemorySpace.Bias) and isinstance(a.type, TileType) \
                        and a.type.memory is not p.space:
                    _fail(after, fn, "tile_memory", f"{op.op} reads its {p.name} from a "
                          f"{a.type.memory.name} tile, not {p.space.name}")
                if p.transposed_by and op.attrs.get(p.transposed_by) and isinstance(a.type, TileType):
                    _fail(after, fn, "tile_memory", f"{op.op} still has {p.transposed_by}=True on a tile operand")


def _check_classified(prog: N.Program, after: str) -> None:
    for fn in prog.of_kind(N.FunctionType.InCore):
        if not fn.attrs.get("mixed"):
            _fail(after, fn, "classified", "an InCore kernel is neither AIC, AIV nor mixed")


def _check_planned(prog: N.Program, after: str) -> None:
    for fn in prog.of_kind(N.FunctionType.AIC, N.FunctionType.AIV, N.FunctionType.InCore):
        buffer_of = fn.attrs.get("buffer_of")
        addr = fn.attrs.get("tile_addr")
        if buffer_of is None or addr is None:
            _fail(after, fn, "planned", "it has no memory plan")
        for s in N.walk_stmts(fn.body):
            popped = isinstance(s, N.Assign) and isinstance(s.value, N.OpCall) and \
                (OPS[s.value.op].fifo or ("", ""))[1] == "pop"     # lives in the FIFO's slot buffer
            if isinstance(s, N.Assign) and not popped:
                for t in s.targets:
                    if isinstance(t.type, TileType) and buffer_of.get(t.name, t.name) not in addr:
                        _fail(after, fn, "planned", f"tile {t.name!r} has no address")


def _check_directions(prog: N.Program, after: str) -> None:
    for fn in prog.of_kind(N.FunctionType.Orchestration):
        if "kernel_ids" not in fn.attrs:
            _fail(after, fn, "directions", "it has no kernel ids")
        for _, call in N.walk_calls(fn.body):
            if "arg_kinds" not in call.attrs:
                _fail(after, fn, "directions", f"the call of {call.callee} has no argument kinds")


def _check_split(prog: N.Program, after: str) -> None:
    for fn in prog.of_kind(N.FunctionType.InCore):
        if fn.attrs.get("mixed"):
            _fail(after, fn, "split", "a mixed kernel is left")


PROPERTY_CHECKS: Dict[str, Callable[[N.Program, str], None]] = {
    "structured_ctrl_flow": _check_structured_ctrl_flow,
    "outlined": _check_outlined,
    "inlined": _check_inlined,
    "assembles_fused": _check_assembles_fused,
    "no_fifo": _check_no_fifo,
    "tile_ops": _check_tile_ops,
    "flat": _check_flat,
    "tile_2d": _check_tile_2d,
    "unrolled": _check_unrolled,
    "tile_memory": _check_tile_memory,
    "classified": _check_classified,
    "planned": _check_planned,
    "directions": _check_directions,
    "split": _check_split,
}
PROPERTIES = frozenset({"defined", "ssa"}) | frozenset(PROPERTY_CHECKS)


def verify_properties(prog: N.Program, after: str, props: Set[str]) -> None:
    """Check every property in ``props`` (``defined`` always, ``ssa`` when claimed)."""
    unknown = set(props) - PROPERTIES
    if unknown:
        raise InternalError(f"after {after}: unknown IR properties {sorted(unknown)}")
    verify_program(prog, after, "ssa" in props)
    for name in sorted(props & set(PROPERTY_CHECKS)):
        PROPERTY_CHECKS[name](prog, after)
