"""``@pl.program`` -> ``ir.Program``: which functions form the program, what each is, and in
which order they are parsed.

A program is its class's ``@pl.function`` methods plus every module-level ``@pl.function`` they
call by bare name (transitively).  A function's kind is its decorator's ``type``; pypto's default
``Opaque`` is resolved here: an Opaque function that submits work (``pl.at`` / ``pl.spmd``
blocks, ``pl.spmd_submit``, calls of other non-inline program functions, ``pl.create_tensor``)
is the Orchestration, one that does not is a kernel (InCore).  The decorator's other keywords
(``level``, ``role``, ``attrs`` / ``pl.func_attr``, ``auto_scope``, ``strict_ssa``,
``external_source``) are checked here.

Functions are parsed callees first (inline ones, then kernels, then the orchestration where
nothing calls across), so that a caller knows each callee's return types and what it binds from a
call follows the callee's parsed returns (``returns_params``, ``parsed_returns``), whatever form
they take.
"""
from __future__ import annotations

import ast
import inspect
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS
from ..ir.access import tensor_accesses, written_operand
from ..ir.types import DType, ScalarType, TensorType
from .annotations import TENSOR_VALID, annot_to_type, evaluated as annotation_of
from .dist_front import add_ctx_params
from .outline import Outliner
from .regions import check_regions
from .binder import header_args
from .signatures import Signature, return_types
from .source import Source, eval_static, function_scope
from .types import DynamicDim, FunctionDecl, Level, split_code

# function attributes ptokit knows (pypto's `attrs=` / pl.func_attr keys), and what it does with them
KNOWN_ATTRS = ("split", "dual_aiv_dispatch")


@dataclass
class Unit:
    """One DSL function to parse: its source, scope and declaration."""

    item: ast.FunctionDef
    name: str
    decl: FunctionDecl
    src: Source
    g: dict
    method: bool
    annotations: dict = field(default_factory=dict)
    kind: N.FunctionType = N.FunctionType.Opaque


def dyn_dims_of(scope: dict) -> Dict[str, DynamicDim]:
    return {v.name: v for v in scope.values() if isinstance(v, DynamicDim)}


def _resolve(node, g):
    if isinstance(node, ast.Name):
        return g.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, g)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def _class_units(spec) -> List[Unit]:
    cls = spec.cls
    src = Source(cls)
    g = dict(sys.modules[cls.__module__].__dict__) if cls.__module__ in sys.modules else {}
    cdef = src.tree.body[0]
    if not isinstance(cdef, ast.ClassDef):
        raise CompileError("@pl.program must decorate a class", src.loc(cdef))
    units = []
    for item in cdef.body:
        if not isinstance(item, ast.FunctionDef):
            continue
        pyfn = cls.__dict__.get(item.name)
        if getattr(pyfn, "__pto_function__", None) is None:
            continue
        # a program defined inside a function sees that function's locals (closure cells)
        try:
            g.update(inspect.getclosurevars(pyfn).nonlocals)
        except (TypeError, ValueError):
            pass
        units.append(Unit(item, pyfn.__pto_name__, _decl_of(pyfn), src, g, True,
                          getattr(pyfn, "__annotations__", {})))
    if not units:
        raise CompileError(f"program {cls.__name__} has no @pl.function methods", src.loc(cdef))
    return units


def _decl_of(pyfn) -> FunctionDecl:
    return getattr(pyfn, "__pto_decl__", None) or FunctionDecl(pyfn.__pto_function__)


def _module_units(units: List[Unit]) -> List[Unit]:
    """Module-level ``@pl.function``s called by bare name, found transitively."""
    seen = {id(u.item) for u in units}
    names = {u.name for u in units}
    out: List[Unit] = []
    todo = list(units)
    while todo:
        u = todo.pop()
        for node in ast.walk(u.item):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            pyfn = u.g.get(node.func.id)
            if getattr(pyfn, "__pto_function__", None) is None or not inspect.isfunction(pyfn):
                continue
            src = Source(pyfn)
            item = src.tree.body[0]
            key = (src.file, src.start)
            if key in seen:
                continue
            seen.add(key)
            if pyfn.__pto_name__ in names:
                raise CompileError(f"module-level function {pyfn.__pto_name__!r} has the name of a method of this "
                                   f"program", u.src.loc(node))
            names.add(pyfn.__pto_name__)
            mu = Unit(item, pyfn.__pto_name__, _decl_of(pyfn), src, function_scope(pyfn), False,
                      getattr(pyfn, "__annotations__", {}))
            out.append(mu)
            todo.append(mu)
    return out


def _submits_work(u: Unit, inline_names) -> bool:
    """Does an Opaque function submit tasks (then it is the orchestration)?"""
    for node in ast.walk(u.item):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and \
                getattr(_resolve(node.iter.func, u.g), "__pto_marker__", None) == "spmd":
            return True                        # for b in pl.spmd(n): a block per iteration
        if isinstance(node, ast.With):
            for it in node.items:
                call = it.context_expr
                if isinstance(call, ast.Call) and getattr(_resolve(call.func, u.g), "__pto_marker__", None) in (
                        "at", "spmd"):
                    return True
        if isinstance(node, ast.Call):
            f = node.func
            target = _resolve(f, u.g)
            if getattr(target, "__pto_marker__", None) in ("spmd_submit", "submit"):
                return True
            op = getattr(target, "__pto_op__", None)
            if op == "create_tensor" or (op is not None and OPS[op].has("orchestration_only")):
                return True
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" and \
                    f.attr not in inline_names:
                return True
            if getattr(target, "__pto_function__", None) not in (None, N.FunctionType.Inline):
                return True
    return False


def external_source(u: Unit) -> Path:
    """``external_source=``: the C++ file of a kernel whose DSL function declares only its
    signature (an AIV or AIC function whose body is ``...``); a path relative to the program's
    source file.  The file is compiled where it lies, so its relative includes resolve."""
    d, loc = u.decl, u.src.loc(u.item)
    if d.type not in (N.FunctionType.AIV, N.FunctionType.AIC):
        raise CompileError(f"{u.name}: external_source= gives the body of an AIV or AIC kernel "
                           f"(type=pl.FunctionType.AIV / AIC), not of a {getattr(d.type, 'name', 'plain')} function", loc)
    body = [b for b in u.item.body if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant)
                                           and isinstance(b.value.value, str))]
    if not (len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and body[0].value.value is Ellipsis):
        raise CompileError(f"{u.name}: a function with external_source= declares only its signature; its body is "
                           f"`...` (the kernel's code is the file)", u.src.loc(body[0] if body else u.item))
    path = Path(d.external_source)
    if not path.is_absolute():
        path = Path(u.src.file).parent / path
    if not path.is_file():
        raise CompileError(f"{u.name}: external_source={str(d.external_source)!r} names no file ({path})", loc)
    if not re.search(r"\bkernel_entry\s*\(", path.read_text(errors="replace")):
        raise CompileError(f"{u.name}: {path} defines no kernel_entry(__gm__ int64_t* args), the entry point a "
                           f"kernel file gives the runtime", loc)
    return path.resolve()


def _check_decl(u: Unit) -> None:
    d = u.decl
    loc = u.src.loc(u.item)
    if d.external_source is not None:
        external_source(u)
    if d.level is not None and d.level not in (Level.CORE_GROUP,):
        if d.level == Level.HOST:
            raise CompileError(f"{u.name}: level=pl.Level.HOST makes a distributed program: compile it with "
                               f"ptokit.compile(Program, distributed_config=ptokit.DistributedConfig(...))", loc)
        raise CompileError(f"{u.name}: level={d.level!r} is not supported; functions run at "
                           f"pl.Level.CORE_GROUP (kernels) or orchestrate them", loc)
    if d.role is not None:
        raise CompileError(f"{u.name}: role= applies to host functions (level=pl.Level.HOST) only", loc)
    if d.auto_scope is not None and not isinstance(d.auto_scope, bool):
        raise CompileError(f"{u.name}: auto_scope= takes True or False, got {d.auto_scope!r}", loc)
    if d.auto_scope is False:
        # pypto's auto_scope=False leaves the orchestration body outside any runtime scope (the user
        # opens pl.scope() blocks); ptokit's orchestration always runs in one (auto_scope=True)
        raise CompileError(f"{u.name}: auto_scope=False is not supported yet: ptokit always runs the "
                           f"orchestration inside one runtime scope (auto_scope=True); pl.scope() blocks "
                           f"inside it still release their tasks and tensors when they end", loc)
    attrs = dict(d.attrs or {})
    attrs.update(_func_attr_stmt(u))
    for key, value in attrs.items():
        if key not in KNOWN_ATTRS:
            raise CompileError(f"{u.name}: unknown function attribute {key!r} (known: {', '.join(KNOWN_ATTRS)})", loc)
        if key == "split":
            try:
                split_code(value)
            except ValueError:
                raise CompileError(f"{u.name}: attrs={{'split': {value!r}}}: the split mode is pl.SplitMode.NONE (0), "
                                   f"UP_DOWN (1) or LEFT_RIGHT (2); the odd-size codes 3 and 4 are chosen by the "
                                   f"compiler", loc) from None
        if key == "dual_aiv_dispatch" and value and u.decl.type not in (N.FunctionType.AIV, N.FunctionType.Group):
            raise CompileError(f"{u.name}: attrs={{'dual_aiv_dispatch': True}} belongs to a hand-written "
                               f"FunctionType.AIV (or Group) function: both vector lanes run it", loc)


def _func_attr_stmt(u: Unit) -> dict:
    """``pl.func_attr({...})`` as the first statement (after a docstring)."""
    body = [s for s in u.item.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                           and isinstance(s.value.value, str))]
    for i, s in enumerate(body):
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
                getattr(_resolve(s.value.func, u.g), "__pto_marker__", None) == "func_attr":
            if i != 0:
                raise CompileError("pl.func_attr({...}) must be the first statement of the function", u.src.loc(s))
            call = s.value
            if len(call.args) != 1 or call.keywords:
                raise CompileError("pl.func_attr takes one dict of function attributes", u.src.loc(call))
            value = eval_static(call.args[0], u.src, u.g, "function attributes")
            if not isinstance(value, dict):
                raise CompileError(f"pl.func_attr takes a dict, got {value!r}", u.src.loc(call))
            return value
    return {}


def parse_header(item: ast.FunctionDef, kind, name, src, g, method: bool, evaluated=None) -> N.Function:
    params = []
    views = {}
    for a, sp in header_args(item, src, g, method):
        if a.annotation is None:
            raise CompileError(f"parameter {a.arg!r} needs a type annotation", src.loc(a))
        valid: list = []
        ty, direction = annot_to_type(annotation_of(a, src, g, evaluated), src.loc(a.annotation), valid)
        if valid:                     # pl.TensorView(valid_shape=...): every load of it sees that region
            if kind is N.FunctionType.Orchestration:
                raise CompileError(f"parameter {a.arg!r}: a pl.TensorView valid_shape describes what a kernel's loads "
                                   f"see; orchestration passes whole tensors to its tasks, so give the view to the "
                                   f"kernel's parameter", src.loc(a.annotation))
            views[a.arg] = valid[0]
        if isinstance(ty, ScalarType) and ty.dtype is DType.TASK_ID:
            raise CompileError(f"parameter {a.arg!r}: a task id (pl.TaskId) is made by orchestration code (`with "
                               f"pl.at(...) as tid`, pl.submit); it cannot be a function parameter",
                               src.loc(a.annotation))
        if sp.default is not inspect.Parameter.empty and not (
                isinstance(ty, ScalarType) and isinstance(sp.default, (bool, int, float))):
            raise CompileError(f"parameter {a.arg!r}: only a scalar parameter takes a default value (a number), "
                               f"got {sp.default!r} for a {ty}", src.loc(a))
        params.append(N.Param(a.arg, ty, direction, src.loc(a)))
    fn = N.Function(name, kind, params, [], [], src.loc(item))
    if views:
        fn.attrs[TENSOR_VALID] = views
    add_ctx_params(fn)                # the hidden CommContext of each window (language/distributed/front.py)
    return fn


def parsed_returns(fn: N.Function) -> Optional[List[int]]:
    """For each returned value of a parsed function, the parameter it is (-1 for other values):
    ``return out``, ``return r`` (``r = pl.store(..., out)``), ``return pl.store(t, off, out)``,
    ``return a, b``.  None when the function has no return value."""
    names = [p.name for p in fn.params]
    result = None
    for s in N.walk_stmts(fn.body):
        if not isinstance(s, N.Return) or not s.values:
            continue
        idx = []
        for v in s.values:
            written = written_operand(v) if isinstance(v, N.OpCall) else None
            v = v.args[written] if written is not None else v
            idx.append(names.index(v.name) if isinstance(v, N.Var) and v.name in names else -1)
        result = idx
    return result


def _parse_order(units: List[Unit], key) -> List[Unit]:
    """``units`` with each function's callees (``self.f(...)``, a module-level ``f(...)``) before it,
    otherwise in ``key`` order; a call cycle (recursion, refused when parsed) keeps ``key`` order."""
    by_name = {u.name: u for u in units}
    done: List[Unit] = []

    def callees(u: Unit) -> List[Unit]:
        out = []
        for node in ast.walk(u.item):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
                name = f.attr
            else:
                name = getattr(_resolve(f, u.g), "__pto_name__", None)
            if name in by_name and by_name[name] is not u:
                out.append(by_name[name])
        return sorted(out, key=key)

    def visit(u: Unit, path: set) -> None:
        if u in done or u.name in path:
            return
        path.add(u.name)
        for c in callees(u):
            visit(c, path)
        done.append(u)

    for u in sorted(units, key=key):
        visit(u, set())
    return done


def parse_program(spec, parser_class, units: Optional[List[Unit]] = None, name: Optional[str] = None) -> N.Program:
    """The IR program of ``spec`` (a ``@pl.program``), or of ``units`` named ``name`` (a
    function parsed alone: ``function_units``)."""
    units = _class_units(spec) if units is None else list(units)
    name = name or spec.cls.__name__
    units += _module_units(units)
    inline = {u.name for u in units if u.decl.type is N.FunctionType.Inline}
    for u in units:
        _check_decl(u)
        u.kind = u.decl.type
        if u.kind is N.FunctionType.Opaque:
            u.kind = N.FunctionType.Orchestration if _submits_work(u, inline) else N.FunctionType.InCore
    headers: Dict[str, N.Function] = {}
    sigs: Dict[str, Signature] = {}
    for u in units:
        fn = parse_header(u.item, u.kind, u.name, u.src, u.g, method=u.method, evaluated=u.annotations)
        fn.attrs["declared_type"] = u.decl.type
        declared = dict(u.decl.attrs or {}, **_func_attr_stmt(u))
        split = split_code(declared.get("split", 0))
        if split:
            fn.attrs["split"] = split
        if declared.get("dual_aiv_dispatch"):
            fn.attrs["dual_aiv_dispatch"] = True     # a hand-written AIV function on both lanes (hand_pipes.py)
        headers[u.name] = fn
        sigs[u.name] = Signature(fn, [], [p for _, p in header_args(u.item, u.src, u.g, u.method)])
    dyn: Dict[str, DynamicDim] = {}
    for u in units:
        dyn.update(dyn_dims_of(u.g))
    strict = getattr(spec, "strict_ssa", False)
    outliner = Outliner(name, set(headers))
    order = {N.FunctionType.Inline: 0, N.FunctionType.Orchestration: 2}
    for u in _parse_order(units, lambda u: order.get(u.kind, 1)):
        fp = parser_class(u.src, u.g, sigs, dyn)
        fp.strict_ssa = strict or u.decl.strict_ssa
        fp.outliner = outliner
        fn = headers[u.name]
        if u.decl.external_source is not None:
            # the kernel's body is the user's C++ file (backend/generate.py builds it as it is);
            # it returns its written tensors, in order, as the declared return type says
            fn.attrs["external_source"] = str(external_source(u))
            ret = u.item.returns
            count = 0 if ret is None or isinstance(ret, ast.Constant) and ret.value is None else \
                len(ret.slice.elts) if isinstance(ret, ast.Subscript) and isinstance(ret.value, ast.Name) and \
                ret.value.id == "tuple" and isinstance(ret.slice, ast.Tuple) else 1
            written = [i for i, p in enumerate(fn.params) if p.direction is not N.Direction.IN][:count]
            fn.return_types = [fn.params[i].type for i in written]
            sigs[u.name].returns_params = written
            continue
        fn.body = fp.parse_body(u.item, fn)
        check_regions(fn, fp)
        fn.return_types = return_types(fn.body)
        sigs[u.name].returns_params = parsed_returns(fn) or []
        if fn.kind is N.FunctionType.InCore:
            check_kernel_writes(fn, headers)
    first = units[0]
    return N.Program(name, headers, first.src.file, tuple(sorted(dyn)))


def check_kernel_writes(fn: N.Function, functions) -> None:
    """A kernel writes only its pl.Out / pl.InOut tensors.  An output it never writes is allowed,
    as in pypto (a pass-through kernel that binds shapes): it keeps its contents, which for a
    runtime-created tensor are zeros."""
    written = tensor_accesses(fn.body, functions)[1]     # the one read/write analysis (ir/access.py)
    for p in fn.params:
        if isinstance(p.type, TensorType) and p.direction is N.Direction.IN and p.name in written:
            raise CompileError(f"kernel {fn.name} writes {p.name!r}, an input parameter: declare it "
                               f"pl.Out[...] (written only) or pl.InOut[...] (read and written)", written[p.name])


def function_units(pyfn) -> List[Unit]:
    """A ``@pl.function`` as the one unit of a program of its own, to parse it alone (a method
    when its first parameter is ``self``); the module-level functions it calls join as usual."""
    src = Source(pyfn)
    item = src.tree.body[0]
    method = bool(item.args.args) and item.args.args[0].arg == "self"
    return [Unit(item, pyfn.__pto_name__, _decl_of(pyfn), src, function_scope(pyfn), method,
                 getattr(pyfn, "__annotations__", {}))]
