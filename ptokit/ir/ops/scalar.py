"""Scalar arithmetic and comparisons: one table of operators, read by the front end (Python
operators and constant folding), the IR printer, PTO codegen (``arith`` ops) and orchestration
codegen (C++ expressions)."""
from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from typing import Callable, Dict, Optional

from ..types import BOOL, DType, ScalarType
from ._core import OpTypeError, P, declare


@dataclass(frozen=True)
class ScalarOperator:
    name: str                         # IR op "scalar.<name>"
    symbol: str                       # Python (and IR printer) spelling: "+", "//", "min"
    python: Optional[type]            # the ast operator class, or None for min/max
    fold: Optional[Callable]          # constant folding (None: not folded)
    arith_int: Optional[str]          # PTO: arith op (binary) or cmpi predicate (comparison)
    arith_float: Optional[str]        # PTO: arith op or cmpf predicate
    cxx: Optional[str] = None         # orchestration C++: an infix operator that means the same as Python's,
                                      # or an expression over {a} and {b} that does
    compare: bool = False
    tile_op: Optional[str] = None     # the tile op to call instead when an operand is a tile


# C++ expressions with Python's meaning: floor division, and % whose result takes the divisor's sign
_ADJUST = "((({a}) % ({b}) != 0) && ((({a}) < 0) != (({b}) < 0)))"
_FLOORDIV_CXX = "(({a}) / ({b}) - " + _ADJUST + ")"
_MOD_CXX = "(({a}) % ({b}) + (" + _ADJUST + " ? ({b}) : 0))"

ARITH = [
    ScalarOperator("add", "+", ast.Add, operator.add, "arith.addi", "arith.addf", "+", tile_op="add"),
    ScalarOperator("sub", "-", ast.Sub, operator.sub, "arith.subi", "arith.subf", "-", tile_op="sub"),
    ScalarOperator("mul", "*", ast.Mult, operator.mul, "arith.muli", "arith.mulf", "*", tile_op="mul"),
    ScalarOperator("floordiv", "//", ast.FloorDiv, operator.floordiv, "arith.floordivsi", None, _FLOORDIV_CXX),
    ScalarOperator("mod", "%", ast.Mod, operator.mod, "arith.remsi", None, _MOD_CXX),
    ScalarOperator("truediv", "/", ast.Div, operator.truediv, None, "arith.divf", "/", tile_op="div"),
    ScalarOperator("min", "min", None, None, "arith.minsi", "arith.minimumf", "(({a}) < ({b}) ? ({a}) : ({b}))"),
    ScalarOperator("max", "max", None, None, "arith.maxsi", "arith.maximumf", "(({a}) > ({b}) ? ({a}) : ({b}))"),
    ScalarOperator("pow", "**", ast.Pow, operator.pow, None, None),     # folded only (constants)
    ScalarOperator("lshift", "<<", ast.LShift, operator.lshift, "arith.shli", None, "<<"),
    ScalarOperator("rshift", ">>", ast.RShift, operator.rshift, "arith.shrsi", None, ">>"),
    ScalarOperator("bitand", "&", ast.BitAnd, operator.and_, "arith.andi", None, "&"),
    ScalarOperator("bitor", "|", ast.BitOr, operator.or_, "arith.ori", None, "|"),
    ScalarOperator("bitxor", "^", ast.BitXor, operator.xor, "arith.xori", None, "^"),
]
_INTEGER_ONLY = {"floordiv", "mod", "lshift", "rshift", "bitand", "bitor", "bitxor"}
COMPARE = [
    ScalarOperator("lt", "<", ast.Lt, operator.lt, "slt", "olt", "<", compare=True),
    ScalarOperator("le", "<=", ast.LtE, operator.le, "sle", "ole", "<=", compare=True),
    ScalarOperator("gt", ">", ast.Gt, operator.gt, "sgt", "ogt", ">", compare=True),
    ScalarOperator("ge", ">=", ast.GtE, operator.ge, "sge", "oge", ">=", compare=True),
    ScalarOperator("eq", "==", ast.Eq, operator.eq, "eq", "oeq", "==", compare=True),
    ScalarOperator("ne", "!=", ast.NotEq, operator.ne, "ne", "one", "!=", compare=True),
]
SCALAR_OPERATORS: Dict[str, ScalarOperator] = {f"scalar.{o.name}": o for o in ARITH + COMPARE}
BY_PYTHON: Dict[type, ScalarOperator] = {o.python: o for o in ARITH + COMPARE if o.python is not None}


def _no_task_ids(ts, what):
    if any(isinstance(t, ScalarType) and t.dtype is DType.TASK_ID for t in ts):
        raise OpTypeError(f"{what} on a task id: a pl.TaskId is a handle for deps=, not a number")


def _scalar_arith(op):
    def rule(ts, attrs):
        for t in ts:
            if not isinstance(t, ScalarType):
                raise OpTypeError(f"scalar.{op} requires scalar operands, but got {t}")
        _no_task_ids(ts, f"scalar.{op}")
        a, b = ts[0].dtype, ts[1].dtype
        if a.is_float or b.is_float:
            if op in _INTEGER_ONLY:
                raise OpTypeError(f"scalar.{op} requires integer operands, but got {a!r} and {b!r}")
            return ScalarType(a if a.is_float else b)
        if op == "truediv":
            raise OpTypeError(f"scalar division '/' requires floating-point operands, but got {a!r} and {b!r}; use '//'")
        return ScalarType(a if a is not DType.INDEX else b) if a != b and DType.INDEX in (a, b) else ScalarType(a)
    return rule


def _scalar_cmp(ts, attrs):
    for t in ts:
        if not isinstance(t, ScalarType):
            raise OpTypeError(f"scalar comparison requires scalar operands, but got {t}")
    _no_task_ids(ts, "a comparison")
    return BOOL


_OPERANDS = (P("lhs", "scalar"), P("rhs", "scalar"))
for _o in ARITH:
    declare(f"scalar.{_o.name}", _OPERANDS, _scalar_arith(_o.name), form="scalar_arith", traits={"scalar"},
            namespaces=(), doc=f"a {_o.symbol} b")
for _o in COMPARE:
    declare(f"scalar.{_o.name}", _OPERANDS, _scalar_cmp, form="scalar_cmp", traits={"scalar"}, namespaces=(),
            doc=f"a {_o.symbol} b")


def _scalar_neg(ts, attrs):
    if not isinstance(ts[0], ScalarType):
        raise OpTypeError(f"scalar negation requires a scalar, but got {ts[0]}")
    _no_task_ids(ts, "negation")
    return ts[0]


declare("scalar.neg", (P("operand", "scalar"),), _scalar_neg, form="scalar_arith", traits={"scalar"}, namespaces=(),
        doc="-a")


def _scalar_cast(ts, attrs):
    if not isinstance(ts[0], ScalarType):
        raise OpTypeError(f"a scalar cast needs a scalar, but got {ts[0]}")
    target = attrs.get("target_type")
    if not isinstance(target, DType) or not target.supported:
        raise OpTypeError(f"a scalar cast needs a target dtype such as pl.INDEX, got {target!r}", "target_type")
    return ScalarType(target)


# pl.cast(s, pl.INDEX) on a scalar (the binder picks it for a scalar operand of pl.cast)
declare("scalar.cast", (P("operand", "scalar"), P("target_type", "dtype")), _scalar_cast, form="scalar_arith",
        traits={"scalar"}, namespaces=(), doc="a scalar converted to target_type")
