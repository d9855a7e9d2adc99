"""IR nodes: a program of functions whose bodies are statement lists.

Expressions are values (variables, constants, op calls, function calls);
statements bind them.  Every node carries the SourceLoc of the DSL text it came
from, so a later stage can still point the user at their own code.

Passes treat nodes as values: they build new lists rather than editing a tree
another pass may still hold (``copy_function`` gives a private deep copy).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from importlib import import_module
from typing import Dict, Iterator, List, Optional, Tuple

from ..errors import SourceLoc
from .attrs import FunctionAttrs
from .kinds import Direction, FunctionType  # noqa: F401  (re-exported: the nodes' kinds)


# The IR's text form (``as_python()``) is the printer's (``ir/printer.py``).  The printer reads
# these nodes, so it registers its two functions here when it loads; until then TEXT_FORM holds
# stand-ins that load it (by name, on the first ``as_python()``): no import of the printer here.
def _printer_form(kind: str):
    def text(*args, **kwargs):
        import_module(__package__ + ".printer")   # registers the real functions over these
        return TEXT_FORM[kind](*args, **kwargs)
    return text


TEXT_FORM: Dict[str, object] = {"function": _printer_form("function"), "program": _printer_form("program")}


# ---------------------------------------------------------------- expressions

@dataclass(eq=False)
class Expr:
    type: object = field(default=None, kw_only=True)
    loc: Optional[SourceLoc] = field(default=None, kw_only=True, repr=False)


@dataclass(eq=False)
class Var(Expr):
    name: str


@dataclass(eq=False)
class Const(Expr):
    value: object          # int, float, bool, or a DType / MemorySpace / PadValue for attributes


@dataclass(eq=False)
class OpCall(Expr):
    """A registered op (ir/ops.py): tile ops, scalar arithmetic, tensor creation."""
    op: str
    args: List[Expr]
    attrs: Dict[str, object] = field(default_factory=dict)


@dataclass(eq=False)
class FuncCall(Expr):
    """A call of another function of the program (a task in orchestration)."""
    callee: str
    args: List[Expr]
    attrs: Dict[str, object] = field(default_factory=dict)


@dataclass(eq=False)
class ListExpr(Expr):
    """A literal list, e.g. load offsets ``[i * 32, 0]``."""
    items: List[Expr]


# ---------------------------------------------------------------- statements

@dataclass(eq=False)
class Stmt:
    loc: Optional[SourceLoc] = field(default=None, kw_only=True, repr=False)


@dataclass(eq=False)
class Assign(Stmt):
    targets: List[Var]
    value: Expr


@dataclass(eq=False)
class ExprStmt(Stmt):
    expr: Expr


@dataclass(eq=False)
class Return(Stmt):
    values: List[Expr]


@dataclass(eq=False)
class For(Stmt):
    """``for var in pl.range(start, stop, step)``.

    After SSA conversion, ``iter_args`` pairs each loop-carried variable (as
    seen inside the body) with its initial value, ``yields`` are the values at
    the end of an iteration and ``results`` the variables bound after the loop.
    """
    var: Var
    start: Expr
    stop: Expr
    step: Expr
    body: List[Stmt]
    kind: str = "range"                       # range | parallel | unroll | pipeline
    stage: int = 1                            # pl.pipeline(stage=k): body copies per iteration
    iter_args: List[Tuple[Var, Expr]] = field(default_factory=list)
    yields: List[Expr] = field(default_factory=list)
    results: List[Var] = field(default_factory=list)


@dataclass(eq=False)
class While(Stmt):
    """``while cond:`` (and ``pl.while_``).  ``body`` holds, at its top level, exactly one
    ``Condition``: the statements before it compute the condition each time round, the loop ends
    when it is false, and the statements after it are the loop body proper.  Carried values are
    as in ``For``: ``iter_args`` (seen by the whole body), ``yields`` at the end of an iteration,
    ``results`` after the loop (the values the condition last saw).
    """
    body: List[Stmt]
    iter_args: List[Tuple[Var, Expr]] = field(default_factory=list)
    yields: List[Expr] = field(default_factory=list)
    results: List[Var] = field(default_factory=list)

    def split(self) -> Tuple[List[Stmt], "Condition", List[Stmt]]:
        """(statements before the condition, the condition, the loop body proper)."""
        for k, st in enumerate(self.body):
            if isinstance(st, Condition):
                return self.body[:k], st, self.body[k + 1:]
        raise ValueError("a While without its Condition")


@dataclass(eq=False)
class Condition(Stmt):
    """The test of the enclosing ``While``: the loop goes on while ``cond`` is true."""
    cond: Expr


@dataclass(eq=False)
class Break(Stmt):
    """``break``: ends the innermost enclosing loop.  The front end writes it as the program says;
    CtrlFlowTransform (``passes/ctrl_flow.py``) rewrites it into structured control flow."""


@dataclass(eq=False)
class Continue(Stmt):
    """``continue``: ends this iteration of the innermost enclosing loop (CtrlFlowTransform)."""


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then_body: List[Stmt]
    else_body: List[Stmt]
    results: List[Var] = field(default_factory=list)
    then_yields: List[Expr] = field(default_factory=list)
    else_yields: List[Expr] = field(default_factory=list)


@dataclass(eq=False)
class Scope(Stmt):
    """Orchestration-level block: ``with pl.spmd(n):``, ``with pl.at(...) as tid:``."""
    kind: str                                 # spmd | at
    body: List[Stmt]
    attrs: Dict[str, object] = field(default_factory=dict)


# ---------------------------------------------------------------- functions

@dataclass(eq=False)
class Param:
    name: str
    type: object
    direction: Direction = Direction.IN
    loc: Optional[SourceLoc] = field(default=None, repr=False)

    @property
    def name_hint(self) -> str:         # pypto's spelling of a parameter's name
        return self.name


@dataclass(eq=False)
class Function:
    name: str
    kind: FunctionType
    params: List[Param]
    return_types: List[object]
    body: List[Stmt]
    loc: Optional[SourceLoc] = field(default=None, repr=False)
    attrs: Dict[str, object] = field(default_factory=FunctionAttrs)     # declared keys only (ir/attrs.py)

    def __post_init__(self):
        if not isinstance(self.attrs, FunctionAttrs):
            self.attrs = FunctionAttrs(self.attrs)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    # pypto's names for what users read off a function
    @property
    def func_type(self) -> FunctionType:
        return self.kind

    @property
    def param_directions(self) -> List[Direction]:
        return [p.direction for p in self.params]

    def as_python(self) -> str:
        """This function as DSL text (a ``@pl.function`` method of a program class)."""
        return TEXT_FORM["function"](self)


class GlobalVar(str):
    """The key of a program's function table, as pypto names it: the function's name, with
    ``.name``.  It is the name itself (hash and equality by name), so ``functions["main"]``
    finds the function whose key is ``GlobalVar("main")``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return str.__str__(self)

    @property
    def name_hint(self) -> str:
        return str.__str__(self)


@dataclass(eq=False)
class Program:
    name: str
    functions: Dict[str, Function]
    source_file: str = "<unknown>"
    dyn_vars: Tuple[str, ...] = ()
    lowered: bool = False          # the passes have run (ptokit.compile then only generates code)

    def __post_init__(self):
        self.functions = with_global_vars(self.functions)

    def of_kind(self, *kinds: FunctionType) -> List[Function]:
        return [f for f in self.functions.values() if f.kind in kinds]

    # pypto's program surface
    def get_function(self, name: str) -> Optional[Function]:
        """The function named ``name``, or None."""
        return self.functions.get(str(name))

    def __getitem__(self, name: str) -> Function:
        fn = self.functions.get(str(name))
        if fn is None:
            raise KeyError(f"program {self.name} has no function {name!r}; its functions are "
                           f"{', '.join(self.functions)}")
        return fn

    def as_python(self) -> str:
        """The program as DSL text: a module with its ``@pl.program`` class."""
        return TEXT_FORM["program"](self)


def with_global_vars(functions: Dict[str, Function]) -> Dict[str, Function]:
    """The function table keyed by ``GlobalVar`` s (same order); already so, it is returned as is."""
    if all(type(k) is GlobalVar for k in functions):
        return functions
    return {GlobalVar(k): f for k, f in functions.items()}


def copy_program(p: Program) -> Program:
    return copy.deepcopy(p)


# ---------------------------------------------------------------- walking

def walk_stmts(body: List[Stmt]):
    """Yield every statement in ``body``, depth first, nested bodies included."""
    for s in body:
        yield s
        for sub in child_bodies(s):
            yield from walk_stmts(sub)


def child_bodies(s: Stmt) -> List[List[Stmt]]:
    if isinstance(s, (For, While)):
        return [s.body]
    if isinstance(s, If):
        return [s.then_body, s.else_body]
    if isinstance(s, Scope):
        return [s.body]
    return []


def walk_expr(e: Expr):
    yield e
    if isinstance(e, (OpCall, FuncCall)):
        for a in e.args:
            yield from walk_expr(a)
    elif isinstance(e, ListExpr):
        for a in e.items:
            yield from walk_expr(a)


def stmt_exprs(s: Stmt) -> List[Expr]:
    """The expressions a statement itself reads (not those of nested bodies)."""
    if isinstance(s, Assign):
        return [s.value]
    if isinstance(s, ExprStmt):
        return [s.expr]
    if isinstance(s, Return):
        return list(s.values)
    if isinstance(s, For):
        return [s.start, s.stop, s.step] + [init for _, init in s.iter_args]
    if isinstance(s, While):
        return [init for _, init in s.iter_args]
    if isinstance(s, Condition):
        return [s.cond]
    if isinstance(s, If):
        return [s.cond]
    if isinstance(s, Scope):
        return [v for v in s.attrs.values() if isinstance(v, Expr)]
    return []


def iter_exprs(body: List[Stmt]) -> Iterator[Tuple[Stmt, Expr]]:
    """Every expression node under ``body`` with the statement that holds it: each statement's own
    expressions (``stmt_exprs``) and all their sub-expressions, nested bodies included."""
    for s in walk_stmts(body):
        for e in stmt_exprs(s):
            for sub in walk_expr(e):
                yield s, sub


def walk_ops(body: List[Stmt], *names: str) -> Iterator[Tuple[Stmt, "OpCall"]]:
    """The op calls under ``body`` (only those named ``names`` when given), with their statements."""
    for s, e in iter_exprs(body):
        if isinstance(e, OpCall) and (not names or e.op in names):
            yield s, e


def walk_calls(body: List[Stmt]) -> Iterator[Tuple[Stmt, "FuncCall"]]:
    """The calls of program functions under ``body``, with their statements."""
    for s, e in iter_exprs(body):
        if isinstance(e, FuncCall):
            yield s, e
