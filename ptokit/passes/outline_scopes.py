"""OutlineIncoreScopes: each ``incore`` scope statement of an orchestration function (the body of a
``with pl.at(level=pl.Level.CORE_GROUP, ...)`` block, or of ``pl.spmd``, as the front end parsed it)
becomes an InCore kernel of its own, called where the scope stood.

* The kernel's parameters are the scope's live-in values: names the body reads before it binds
  them.  Tensors come first (the enclosing function's parameters in their order, then the others
  in order of first reading), then scalars; a scalar that is a dimension of a tensor parameter's
  type is not passed (the kernel reads it off the tensor).  A tensor window the orchestration
  bound to a name (``band = x[a:b, :]`` in ``@pl.jit`` code) is passed as that window.
* Directions come from the one write analysis (``ir/access.py``): a tensor only read is IN, only
  written OUT, both INOUT.  The kernel returns its written tensors (the parameters themselves, so
  a caller's name for a block's store is the tensor it passed).
* The call carries the block's task marks: ``dumps=`` / ``no_dep_args=`` names and the tensors
  ``pl.dump_tag`` marked earlier, resolved to argument positions here.

Values a block binds and later code reads cross the boundary as tensors: the front end resolves a
name bound to the block's store (``y2 = pl.store(t, [r, 0], y)``) to the tensor written, so the
orchestration reads the kernel's output in place.  A ``pl.Out`` / ``pl.InOut`` tensor the block
binds to a tensor-level value (``result = pl.add(x, 1.0)``) is a written parameter of the kernel;
ConvertTensorToTileOps stores the value there.  Any other value the block computes (a tensor-level
value, a tile, a matmul's accumulator) that code after the block reads becomes an intermediate
tensor, as pypto's pass returns it and ConvertTensorToTileOps makes the returned value an ``Out``
parameter the orchestration creates: the orchestration creates a tensor of the value's shape and
dtype under the value's name right before the block, the kernel takes it as an ``Out`` parameter
(``<name>_out``, after the others) and stores the value into it last.  The reads must follow the
block in the statements that hold it (a name the block binds in a loop or an ``if`` arm and read
after that statement is a located error, as is a scalar, which a kernel does not hand back).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.access import tensor_accesses
from ..ir.ops import OpTypeError, infer
from ..ir.ops.tensor_level import is_tensor_level, whole_load, whole_store
from ..ir.types import ScalarType, TensorType, dim_vars, intermediate_tensor_type

CREATE = "create_tensor"        # the orchestration op of an intermediate tensor

KIND = "incore"


def outline_incore_scopes(prog: N.Program, ctx) -> N.Program:
    if not any(scope_names(f.body) for f in prog.functions.values()):
        return prog
    prog = N.copy_program(prog)          # the bodies are rewritten in place below
    made: Dict[str, N.Function] = {}
    for fn in list(prog.functions.values()):     # orchestrations, and helpers inlined into them later
        orch_bound = _bound_outside_blocks(fn)
        fn.body = _outline_body(fn, fn.body, prog, made, _Crossing(orch_bound, {}, None))
    prog.functions.update(made)
    prog.functions = N.with_global_vars(prog.functions)
    return prog


class _Crossing:
    """Where the walk stands, for the values blocks hand on: ``orch_bound`` (names the function
    binds outside its blocks: never a block's own), ``beyond`` (name -> first read, of the names
    read after the statement list holding the block ends, past a loop, branch or runtime scope:
    a created tensor would not reach them), ``later`` (names read after the block in its own
    list) and ``creates`` (the statements that make the intermediate tensors, put before the
    statement holding the block; given to the body of a task block's wrapper, None elsewhere)."""

    def __init__(self, orch_bound: Set[str], beyond: Dict[str, N.Var], creates: Optional[List[N.Stmt]],
                 later: Dict[str, N.Var] = None):
        self.orch_bound, self.beyond, self.creates = orch_bound, beyond, creates
        self.later = later or {}


def _outline_body(fn: N.Function, body: List[N.Stmt], prog: N.Program, made, at: _Crossing) -> List[N.Stmt]:
    out: List[N.Stmt] = []
    hoisted = at.creates is not None         # the body of a task block's wrapper: creates go before it
    for i, s in enumerate(body):
        later = {v.name: v for v in live_in(body[i + 1:])}
        here = _Crossing(at.orch_bound, at.beyond, at.creates if hoisted else [], {**later, **at.later})
        if isinstance(s, N.Scope) and s.kind == KIND:
            s = _outline(fn, s, prog, made, here)
        elif isinstance(s, N.Scope) and s.kind == "at":
            # a task block's wrapper: what follows it in this list follows the block too
            s.body = _outline_body(fn, s.body, prog, made, here)
        else:
            inner = _Crossing(at.orch_bound, {**later, **at.later, **at.beyond}, None)
            if isinstance(s, (N.For, N.While, N.Scope)):
                s.body = _outline_body(fn, s.body, prog, made, inner)
            elif isinstance(s, N.If):
                s.then_body = _outline_body(fn, s.then_body, prog, made, inner)
                s.else_body = _outline_body(fn, s.else_body, prog, made, inner)
        if not hoisted:
            out.extend(here.creates)
        out.append(s)
    return out


def _bound_outside_blocks(fn: N.Function) -> Set[str]:
    """The names ``fn`` binds (or takes) outside its blocks of kernel code."""
    names = {p.name for p in fn.params}

    def walk(stmts):
        for s in stmts:
            if isinstance(s, N.Scope) and s.kind == KIND:
                continue
            if isinstance(s, N.Assign):
                names.update(t.name for t in s.targets)
            elif isinstance(s, N.For):
                names.add(s.var.name)
            if isinstance(s, (N.For, N.While, N.If)):
                names.update(r.name for r in s.results)
                names.update(v.name for v, _ in getattr(s, "iter_args", ()))
            for sub in N.child_bodies(s):
                walk(sub)

    walk(fn.body)
    return names


def _final_types(body: List[N.Stmt]) -> Dict[str, object]:
    """name -> the type of the last binding of it in ``body`` (walk order), for the names it binds."""
    types: Dict[str, object] = {}
    for s in N.walk_stmts(body):
        if isinstance(s, N.Assign):
            types.update({t.name: t.type for t in s.targets})
        elif isinstance(s, (N.For, N.While, N.If)):
            types.update({r.name: r.type for r in s.results})
    return types


def live_in(body: List[N.Stmt]) -> List[N.Var]:
    """The first read of every name ``body`` reads before binding it, in order of reading."""
    seen: Dict[str, N.Var] = {}

    def reads(exprs, bound):
        for e in exprs:
            for sub in N.walk_expr(e):
                if isinstance(sub, N.Var) and sub.name not in bound:
                    seen.setdefault(sub.name, sub)
                reads(_type_exprs(sub.type), bound)     # a run-time valid shape reads its scalars

    def walk(stmts, bound: Set[str]):
        for s in stmts:
            reads(N.stmt_exprs(s), bound)
            if isinstance(s, N.For):
                walk(s.body, bound | {s.var.name} | {v.name for v, _ in s.iter_args})
                reads(s.yields, bound | {s.var.name} | {v.name for v, _ in s.iter_args})
                bound |= {r.name for r in s.results}
            elif isinstance(s, N.While):
                walk(s.body, bound | {v.name for v, _ in s.iter_args})
                bound |= {r.name for r in s.results}
            elif isinstance(s, N.If):
                then_bound, else_bound = set(bound), set(bound)
                walk(s.then_body, then_bound)
                walk(s.else_body, else_bound)
                # a name both arms bind is bound after the if (before SSA there are no If.results)
                bound |= {r.name for r in s.results} | (then_bound & else_bound)
            elif isinstance(s, N.Scope):
                walk(s.body, bound)
            elif isinstance(s, N.Assign):
                reads([x for t in s.targets for x in _type_exprs(t.type)], bound)     # their valid shapes
                bound |= {t.name for t in s.targets}

    walk(body, set())
    return list(seen.values())


def bound_outputs(fn: N.Function, body: List[N.Stmt]) -> Dict[str, TensorType]:
    """The ``pl.Out`` / ``pl.InOut`` tensors of ``fn`` the block binds to a tensor-level value
    (``result = pl.add(x, 1.0)``): the block writes them (ConvertTensorToTileOps stores the value
    there), so they are parameters of its kernel even when it never reads them."""
    outs = {p.name: p.type for p in fn.params if isinstance(p.type, TensorType)
            and p.direction in (N.Direction.OUT, N.Direction.INOUT)}
    return {s.targets[0].name: outs[s.targets[0].name] for s in N.walk_stmts(body)
            if isinstance(s, N.Assign) and len(s.targets) == 1 and s.targets[0].name in outs
            and is_tensor_level(s.value)}


def _type_exprs(t) -> List[N.Expr]:
    """The scalar expressions a type holds (a tile's run-time valid shape)."""
    return [d for d in (getattr(t, "valid", None) or ()) if isinstance(d, N.Expr)]


def _order_key(v: N.Var):
    loc = v.loc
    return (getattr(loc, "line", 0), getattr(loc, "col", 0))


def _outline(fn: N.Function, s: N.Scope, prog: N.Program, made, at: _Crossing) -> N.Stmt:
    name = s.attrs["name"]
    views: Dict[str, N.OpCall] = s.attrs.get("views", {})
    body = s.body
    tensors: Dict[str, object] = {}
    scalars: Dict[str, object] = {}
    inputs = live_in(body)
    for v in sorted(inputs, key=_order_key):
        t = views[v.name].type if v.name in views else v.type
        if isinstance(t, TensorType):
            tensors.setdefault(v.name, t)
        elif isinstance(t, ScalarType):
            scalars.setdefault(v.name, t)
        elif v.name not in prog.dyn_vars:
            raise CompileError(f"{v.name!r} is a {t} defined outside this pl.at block; a kernel takes only "
                               f"tensors and scalars from its orchestration, so create it inside the block",
                               v.loc or s.loc)
    bound_outs = bound_outputs(fn, body)
    for o, t in bound_outs.items():
        tensors.setdefault(o, t)
    order = [p.name for p in fn.params]
    tensors = dict(sorted(tensors.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))
    dims = {d for t in tensors.values() for x in t.shape for d in dim_vars(x)}
    scalar_names = [x for x in scalars if x not in dims]
    params = [N.Param(o, t, N.Direction.IN, s.loc) for o, t in tensors.items()]
    params += [N.Param(x, scalars[x], N.Direction.IN, s.loc) for x in scalar_names]
    body = list(body)
    crossing = _crossing_values(name, body, {v.name for v in inputs} | set(tensors), at)
    taken = {p.name for p in params} | {t.name for st in N.walk_stmts(body) if isinstance(st, N.Assign)
                                        for t in st.targets}
    for value, t in crossing:
        param = _fresh(f"{value.name}_out", taken)
        params.append(N.Param(param, t, N.Direction.OUT, s.loc))
        body.append(N.ExprStmt(_store_value(value, N.Var(param, type=t, loc=s.loc), name, s.loc), loc=s.loc))
        at.creates.append(N.Assign([N.Var(value.name, type=t, loc=s.loc)], _create(t, s.loc), loc=s.loc))
    kfn = N.Function(name, N.FunctionType.InCore, params, [], body, s.loc)
    kfn.attrs.update(s.attrs.get("kernel_attrs", {}))
    reads, writes = tensor_accesses(kfn.body, {**prog.functions, **made})
    outs = []
    for i, p in enumerate(params):
        if isinstance(p.type, TensorType) and (p.name in writes or p.name in bound_outs):
            p.direction = N.Direction.INOUT if p.name in reads else N.Direction.OUT
            outs.append(i)
    if outs:
        kfn.body.append(N.Return([N.Var(params[i].name, type=params[i].type) for i in outs], loc=s.loc))
    kfn.return_types = [params[i].type for i in outs]
    made[name] = kfn
    args = [N.OpCall(views[o].op, list(views[o].args), dict(views[o].attrs), type=t, loc=s.loc)
            if o in views else N.Var(o, type=t, loc=s.loc) for o, t in tensors.items()]
    args += [N.Var(x, type=scalars[x], loc=s.loc) for x in scalar_names]
    args += [N.Var(value.name, type=t, loc=s.loc) for value, t in crossing]
    call = N.FuncCall(name, args, loc=s.loc)
    _task_marks(call, s)
    return N.ExprStmt(call, loc=s.loc)


def _crossing_values(kernel: str, body: List[N.Stmt], inputs: Set[str], at: _Crossing) -> List[Tuple[N.Var, TensorType]]:
    """The values ``body`` computes that later code reads (not a tensor it receives, not a name the
    function binds itself), each with the intermediate tensor it becomes, in order of reading."""
    types = _final_types(body)
    mine = [n for n in types if n not in inputs and n not in at.orch_bound]
    for n in mine:
        read = at.beyond.get(n)
        if read is not None and n not in at.later:
            raise CompileError(f"{n!r} is computed inside the pl.at block of kernel {kernel!r}, which stands in a loop, "
                               f"a branch or a scope, and read after that statement; read it in the same statements as "
                               f"the block, or create a tensor before the loop and store into it in the block",
                               read.loc)
    out = []
    for n in sorted((n for n in mine if n in at.later), key=lambda n: _order_key(at.later[n])):
        read, t = at.later[n], intermediate_tensor_type(types[n])
        if t is None:
            raise CompileError(f"{n!r} is a {types[n]} computed inside the pl.at block of kernel {kernel!r}; a kernel "
                               f"hands back only tensors, so code after the block cannot read it (compute it "
                               f"outside the block, or both parts in one block)", read.loc)
        out.append((N.Var(n, type=types[n], loc=read.loc), t))
    return out


def _store_value(value: N.Var, dst: N.Var, kernel: str, loc) -> N.OpCall:
    """The kernel's last statement for a value it hands on: a store of it (a tensor-level value
    through a whole load, which ConvertTensorToTileOps reads as the value's tile) into ``dst``."""
    try:
        tile = whole_load(value, loc) if isinstance(value.type, TensorType) else value
        return whole_store(tile, dst, loc)
    except OpTypeError as exc:
        raise CompileError(f"{value.name!r} is computed inside the pl.at block of kernel {kernel!r} and read after "
                           f"it, so the kernel stores it into an intermediate tensor, but {exc}", value.loc or loc) from None


def _create(t: TensorType, loc) -> N.OpCall:
    attrs = {"shape": list(t.shape), "dtype": t.dtype}
    return N.OpCall(CREATE, [], attrs, type=infer(CREATE, [], attrs), loc=loc)


def _fresh(base: str, taken: Set[str]) -> str:
    name, k = base, 0
    while name in taken:
        name, k = f"{base}{k}", k + 1
    taken.add(name)
    return name


def _task_marks(call: N.FuncCall, s: N.Scope) -> None:
    """The block's ``dumps=`` / ``no_dep_args=`` names and earlier ``pl.dump_tag`` s as argument
    positions of its call."""
    def positions(name: str) -> Set[int]:
        hits = set()
        for j, a in enumerate(call.args):
            base = a.args[0] if isinstance(a, N.OpCall) and a.args else a
            if isinstance(base, N.Var) and base.name == name:
                hits.add(j)
        return hits

    for key, what in (("dumps", "dumps"), ("no_dep", "no_dep_args")):
        for name, loc in s.attrs.get(key, ()):
            hits = positions(name)
            if not hits:
                raise CompileError(f"{what}= names {name!r}, which is not a tensor argument of this block's task", loc)
            call.attrs[key] = sorted(set(call.attrs.get(key, ())) | hits)
    tagged = set().union(*(positions(t) for t in s.attrs.get("dump_tags", ())))
    if tagged:
        call.attrs["dumps"] = sorted(set(call.attrs.get("dumps", ())) | tagged)


def scope_names(body: List[N.Stmt]) -> List[Tuple[str, N.Scope]]:
    """(kernel name, scope) of every incore scope left under ``body``."""
    return [(s.attrs.get("name", "?"), s) for s in N.walk_stmts(body) if isinstance(s, N.Scope) and s.kind == KIND]
