"""Build ``.pto`` modules without formatting text: the writer's API over ``ast``.

A ``Builder`` appends ops to one block (or inserts them at a fixed point, for a function's
constant prologue).  Each ``pto.*`` op is checked against its row of the dialect table when it
is created (operand count and kinds, declared attributes, the row-major rule), so a writer
that builds an op the table does not describe fails at once with an InternalError, not later
in an assembler.  Print the result with ``ptokit.pto.printer.print_module``.

    mod = new_module({"pto.target_arch": Attr.string("a2a3")})
    fb = add_function(mod, "k", [("arg0", PtrType("f32"))], {"pto.kernel_kind": Attr.dialect(...)})
    c = fb.prologue.constant("c0_index", 0, INDEX)
    ...
    fb.body.return_()
"""
from __future__ import annotations

import math
import struct
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import InternalError
from . import dialect
from .ast import Attr, Block, BlockArg, Clause, Func, Module, Op, ResultDef, Use
from .types import ScalarType, TileBufType, VectorType

SrcLoc = Optional[Tuple[str, int, int]]


class Value:
    """An SSA value as a writer refers to it: name (without ``%``) and type."""

    __slots__ = ("name", "type")

    def __init__(self, name: str, type):
        self.name = name
        self.type = type

    def __repr__(self) -> str:
        return f"%{self.name} : {self.type}"


def _bad(message: str) -> InternalError:
    return InternalError(f"pto builder: {message}")


def format_literal(value, ty: ScalarType) -> str:
    """The literal text of an ``arith.constant`` of type ``ty``: six significant digits when they give
    the value back in that type, else as many as a float32 (nine) or float64 (seventeen) needs."""
    if isinstance(ty, VectorType):
        return f"dense<{int(value)}>"
    if ty.is_float:
        v = float(value)
        if not math.isfinite(v):      # MLIR spells inf and nan as the type's bit pattern in hex
            return _NON_FINITE[ty.name][0 if math.isnan(v) else 1 if v > 0 else 2]
        text = f"{v:e}"
        if ty.name == "f32" and math.isfinite(v):
            if _f32(float(text)) != _f32(v):
                text = f"{v:.8e}"
        elif ty.name == "f64" and math.isfinite(v) and float(text) != v:
            text = f"{v:.16e}"
        return text
    if ty.name == "i1":      # as pypto HEAD writes it; ptoas 0.27 (MLIR 19) refuses "false : i1"
        return "1" if value else "0"
    return str(int(value))


# (nan, +inf, -inf) bit patterns per float type
_NON_FINITE = {"f16": ("0x7E00", "0x7C00", "0xFC00"), "bf16": ("0x7FC0", "0x7F80", "0xFF80"),
               "f32": ("0x7FC00000", "0x7F800000", "0xFF800000"),
               "f64": ("0x7FF8000000000000", "0x7FF0000000000000", "0xFFF0000000000000")}


def _f32(v: float) -> float:
    return struct.unpack("f", struct.pack("f", v))[0]


def new_module(attrs: Dict[str, Attr]) -> Module:
    return Module(dict(attrs), list(attrs), [])


class FunctionBuilder:
    """A function being built: ``prologue`` (constants, printed first) and ``body``."""

    def __init__(self, func: Func, params: List[Value]):
        self.func = func
        self.params = params
        self.prologue = Builder(func.body, insert_at=0)
        self.body = Builder(func.body)


def add_function(mod: Module, name: str, params: Sequence[Tuple[str, object]],
                 attrs: Dict[str, Attr]) -> FunctionBuilder:
    args = [BlockArg(n, t, 0, 0) for n, t in params]
    f = Func(name, 0, 0, args, dict(attrs), list(attrs), Block())
    mod.funcs.append(f)
    return FunctionBuilder(f, [Value(n, t) for n, t in params])


def _use(v: Value) -> Use:
    if not isinstance(v, Value):
        raise _bad(f"expected a Value, got {v!r}")
    return Use(v.name, 0, 0, v.type)


def _results(name: str, types: Sequence) -> Tuple[List[ResultDef], List[Value]]:
    if not types:
        return [], []
    if len(types) == 1:
        return [ResultDef(name, 1, 0, 0)], [Value(name, types[0])]
    return [ResultDef(name, len(types), 0, 0)], [Value(f"{name}#{k}", t) for k, t in enumerate(types)]


class Builder:
    """Creates ops in one block: appended, or inserted from ``insert_at`` on."""

    def __init__(self, block: Block, insert_at: Optional[int] = None):
        self.block = block
        self.cursor = insert_at

    def _add(self, op: Op) -> Op:
        if self.cursor is None:
            self.block.ops.append(op)
        else:
            self.block.ops.insert(self.cursor, op)
            self.cursor += 1
        return op

    @staticmethod
    def _op(name: str, results=(), loc: SrcLoc = None) -> Op:
        if name not in dialect.KNOWN_OPS:
            raise _bad(f"'{name}' is not an op of the dialect table")
        op = Op(name, 0, 0, list(results))
        op.srcloc = loc
        return op

    @staticmethod
    def _set_attrs(op: Op, spec: Optional[dialect.OpSpec], attrs: Dict[str, Attr]) -> None:
        for key, attr in attrs.items():
            if spec is not None and spec.attr(key) is None:
                raise _bad(f"'{op.name}' declares no attribute '{key}'")
            op.set_attr(key, attr)
        if spec is not None:
            for a in spec.attrs:
                if a.required and a.name not in op.attrs:
                    raise _bad(f"'{op.name}' needs attribute '{a.name}'")
                if a.allowed is not None and a.name in op.attrs and a.kind in dialect.CHECKED_KINDS \
                        and dialect.attr_word(a, op.attrs[a.name]) not in a.allowed:
                    raise _bad(f"'{op.name}' attribute '{a.name}' = {op.attrs[a.name].text} is not one of "
                               f"{list(a.allowed)}")

    @staticmethod
    def _spec(name: str, form: str) -> dialect.OpSpec:
        spec = dialect.PTO_OPS.get(name)
        if spec is None or spec.form != form:
            raise _bad(f"'{name}' is not a {form} op of the dialect table")
        return spec

    @staticmethod
    def _check(spec: dialect.OpSpec, operand: dialect.Operand, v: Value) -> None:
        if not dialect.accepts(operand.kind, v.type):
            raise _bad(f"{spec.name} {operand.role} must be {dialect.kind_name(operand.kind)}, got %{v.name}: {v.type}")
        if operand.role in spec.row_major and isinstance(v.type, TileBufType) and v.type.blayout != "row_major":
            raise _bad(spec.layout_message(operand.role) + f" (%{v.name}: {v.type})")

    # ------------------------------------------------------------ arith
    def constant(self, name: str, value, ty: ScalarType) -> Value:
        """``%name = arith.constant V : T``; an unsigned T (ui32 ...) is written as the signless constant and
        ``builtin.unrealized_conversion_cast`` (arith.constant takes signless integers only)."""
        if isinstance(ty, ScalarType) and ty.name.startswith("ui"):
            signless = self.constant(f"{name}_signless", value, ScalarType(ty.name[1:]))
            return self.cast(dialect.UNSIGNED_BRIDGE, signless, ty, name)
        res, vals = _results(name, [ty])
        op = self._op("arith.constant", res)
        op.extra["literal"] = format_literal(value, ty)
        op.colon_types = [ty]
        self._add(op)
        return vals[0]

    def arith(self, name: str, operands: Sequence[Value], ty: ScalarType, result: str, loc: SrcLoc = None) -> Value:
        arity = 1 if name in dialect.ARITH_UNARY else 2
        if name not in dialect.ARITH_INT_BINARY and name not in dialect.ARITH_FLOAT_BINARY \
                and name not in dialect.ARITH_UNARY:
            raise _bad(f"'{name}' is not an arith operator")
        if len(operands) != arity:
            raise _bad(f"'{name}' takes {arity} operand(s), got {len(operands)}")
        if ty.is_float != (name not in dialect.ARITH_INT_BINARY):
            raise _bad(f"'{name}' cannot compute on {ty}")
        res, vals = _results(result, [ty])
        op = self._op(name, res, loc)
        op.operands = [_use(v) for v in operands]
        op.colon_types = [ty]
        self._add(op)
        return vals[0]

    def cmp(self, name: str, pred: str, lhs: Value, rhs: Value, ty: ScalarType, result: str,
            loc: SrcLoc = None) -> Value:
        preds = dialect.CMPI_PREDS if name == "arith.cmpi" else dialect.CMPF_PREDS
        if name not in ("arith.cmpi", "arith.cmpf") or pred not in preds:
            raise _bad(f"no comparison '{name} {pred}'")
        res, vals = _results(result, [ScalarType("i1")])
        op = self._op(name, res, loc)
        op.extra["pred"] = pred
        op.operands = [_use(lhs), _use(rhs)]
        op.colon_types = [ty]
        self._add(op)
        return vals[0]

    def cast(self, name: str, src: Value, to: ScalarType, result: str, loc: SrcLoc = None) -> Value:
        if name not in dialect.ARITH_CASTS:
            raise _bad(f"'{name}' is not a cast")
        res, vals = _results(result, [to])
        op = self._op(name, res, loc)
        op.operands = [_use(src)]
        op.colon_types = [src.type]
        op.arrow_types = [to]
        self._add(op)
        return vals[0]

    # ------------------------------------------------------------ views and tiles
    def make_tensor_view(self, result: str, ptr: Value, shape: Sequence[Value], strides: Sequence[Value], ty,
                         layout: str = "nd", loc: SrcLoc = None) -> Value:
        spec = self._spec("pto.make_tensor_view", "tensor_view")
        self._check(spec, spec.ins[0], ptr)
        if len(shape) != len(ty.shape) or len(strides) != len(ty.shape):
            raise _bad(f"tensor view {ty} needs {len(ty.shape)} sizes and strides")
        res, vals = _results(result, [ty])
        op = self._op(spec.name, res, loc)
        op.clauses = [Clause("operand", "", [_use(ptr)]), Clause("list", "shape", [_use(v) for v in shape]),
                      Clause("list", "strides", [_use(v) for v in strides])]
        self._set_attrs(op, spec, {"layout": Attr.dialect("pto.layout", layout)})
        op.colon_types = [ty]
        self._finish(op)
        return vals[0]

    def partition_view(self, result: str, view: Value, offsets: Sequence[Value], sizes: Sequence[Value], ty,
                       loc: SrcLoc = None) -> Value:
        spec = self._spec("pto.partition_view", "partition_view")
        self._check(spec, spec.ins[0], view)
        res, vals = _results(result, [ty])
        op = self._op(spec.name, res, loc)
        op.clauses = [Clause("operand", "", [_use(view)]), Clause("list", "offsets", [_use(v) for v in offsets]),
                      Clause("list", "sizes", [_use(v) for v in sizes])]
        op.colon_types = [view.type]
        op.arrow_types = [ty]
        self._finish(op)
        return vals[0]

    def alloc_tile(self, result: str, ty: TileBufType, valid_row: Value, valid_col: Value,
                   addr: Optional[Value] = None, loc: SrcLoc = None) -> Value:
        spec = self._spec("pto.alloc_tile", "alloc")
        res, vals = _results(result, [ty])
        op = self._op(spec.name, res, loc)
        for key, v in (("addr", addr), ("valid_row", valid_row), ("valid_col", valid_col)):
            if v is not None:
                self._check(spec, next(o for o in spec.ins if o.role == key), v)
                op.clauses.append(Clause("kw", key, [_use(v)]))
        op.colon_types = [ty]
        self._finish(op)
        return vals[0]

    def dps(self, name: str, ins: Sequence[Value], outs: Sequence[Value], attrs: Optional[Dict[str, Attr]] = None,
            loc: SrcLoc = None, axis: Optional[str] = None) -> Op:
        """``pto.X ins(...) outs(...)``, checked against the op's row (count, kinds, layout); ``axis`` is a
        string after the ins types (``ins(%src, {maskPattern = ...} : T, "row")``)."""
        spec = self._spec(name, "dps")
        lo, hi = len(spec.ins) - spec.optional, len(spec.ins)
        if not spec.variants and (not lo <= len(ins) <= hi or len(outs) != len(spec.outs)):
            raise _bad(f"{name} takes {lo}..{hi} ins and {len(spec.outs)} outs, got {len(ins)} and {len(outs)}")
        row = dialect.variant(spec, [v.type for v in ins], [v.type for v in outs], axis) if spec.variants else spec
        if row is None:
            raise _bad(f"{name} has no form taking ins {[str(v.type) for v in ins]}, outs "
                       f"{[str(v.type) for v in outs]}" + (f' and axis "{axis}"' if axis else ""))
        for operand, v in list(zip(row.ins, ins)) + list(zip(row.outs, outs)):
            self._check(row, operand, v)
        op = self._op(name, (), loc)
        op.clauses = [Clause("group", "ins", [_use(v) for v in ins], types=[v.type for v in ins], typed=True,
                             axis=axis),
                      Clause("group", "outs", [_use(v) for v in outs], types=[v.type for v in outs], typed=True)]
        attrs = attrs or {}
        self._set_attrs(op, row, attrs)
        # attributes the dialect writes inside ins(...), after the last operand (ins(%a, %tmp {exhausted = ...} : ...))
        inner = [k for k in attrs if row.attr(k) is not None and row.attr(k).place == "ins"]
        if inner:
            op.clauses[0].attrs = [("attrs", {k: attrs[k] for k in inner}, inner, len(ins))]
        if any(k in attrs for k in row.generic_if):
            op.extra["generic"] = True      # printed as "pto.X"(...) {attrs} : (...) -> ()
        return self._finish(op)

    def element(self, name: str, operands: Sequence[Value], result: str = "", result_type=None,
                loc: SrcLoc = None) -> Optional[Value]:
        """One element of a tile, tensor or local array (dialect.ELEMENT_FORMS): ``%r = pto.tgetval
        ins(%t, %i : T, index) outs : E``, ``%r = pto.load_scalar %p[%i] : P -> E``, ``pto.store_scalar %v,
        %p[%i] : P, E``, ``%a = pto.declare_local_array -> A``, ``%v = pto.local_array_get %a[%i] : A -> E``,
        ``pto.local_array_set %a[%i], %v : A, E``."""
        row = dialect.PTO_OPS.get(name)
        spec_form = row.form if row is not None and row.form in dialect.ELEMENT_FORMS else "getval"
        spec = self._spec(name, spec_form)
        if len(operands) != len(spec.ins):
            raise _bad(f"{name} takes {len(spec.ins)} operands, got {len(operands)}")
        for operand, v in zip(spec.ins, operands):
            self._check(spec, operand, v)
        res, vals = _results(result, [result_type] if result else [])
        op = self._op(name, res, loc)
        if spec_form == "getval":
            op.clauses = [Clause("group", "ins", [_use(v) for v in operands], types=[v.type for v in operands],
                                 typed=True), Clause("results", "outs", [], types=[result_type], typed=True)]
        elif spec_form in ("load_scalar", "array_get"):
            op.clauses = [Clause("indexed", "", [_use(operands[0]), _use(operands[1])])]
            op.colon_types, op.arrow_types = [operands[0].type], [result_type]
        elif spec_form == "array_declare":
            op.arrow_types = [result_type]
        elif spec_form == "array_set":
            op.clauses = [Clause("indexed", "", [_use(operands[0]), _use(operands[1])]),
                          Clause("operand", "", [_use(operands[2])])]
            op.colon_types = [operands[0].type, operands[2].type]
        else:
            op.clauses = [Clause("operand", "", [_use(operands[0])]),
                          Clause("indexed", "", [_use(operands[1]), _use(operands[2])])]
            op.colon_types = [operands[1].type, operands[0].type]
        self._finish(op)
        return vals[0] if vals else None

    def call(self, name: str, operands: Sequence[Value], result: str = "", result_type=None,
             loc: SrcLoc = None) -> Optional[Value]:
        """A call-form op (dialect.CALL_FORMS): ``[%r =] pto.X %a, %b : Ta, Tb [-> R]``; the ``addptr`` form
        types its pointer only: ``%r = pto.addptr %p, %off : !pto.ptr<T> -> !pto.ptr<T>``."""
        row = dialect.PTO_OPS.get(name)
        spec = self._spec(name, row.form if row is not None and row.form in dialect.CALL_FORMS else "call")
        if len(operands) != len(spec.ins):
            raise _bad(f"{name} takes {len(spec.ins)} operands, got {len(operands)}")
        for operand, v in zip(spec.ins, operands):
            self._check(spec, operand, v)
        if bool(spec.outs) != bool(result):
            raise _bad(f"{name} {'has a result' if spec.outs else 'has no result'}")
        res, vals = _results(result, [result_type] if result else [])
        op = self._op(name, res, loc)
        op.clauses = [Clause("operand", "", [_use(v)]) for v in operands]
        op.colon_types = [v.type for v in operands][:1 if spec.form == "addptr" else None]
        if result:
            op.arrow_types = [result_type]
        self._finish(op)
        return vals[0] if vals else None

    def plain(self, name: str, operands: Sequence[Value], loc: SrcLoc = None) -> Op:
        """``pto.X %a, %b, ... : T`` (T the first operand's type): pto.set_validshape."""
        spec = self._spec(name, "plain")
        if len(operands) != len(spec.ins):
            raise _bad(f"{name} takes {len(spec.ins)} operands, got {len(operands)}")
        for operand, v in zip(spec.ins, operands):
            self._check(spec, operand, v)
        op = self._op(name, (), loc)
        op.clauses = [Clause("operand", "", [_use(v)]) for v in operands]
        op.colon_types = [operands[0].type]
        return self._finish(op)

    def view(self, name: str, result: str, src: Value, ty: TileBufType, loc: SrcLoc = None) -> Value:
        """``%result = pto.X %src : T1 -> T2`` (pto.treshape)."""
        spec = self._spec(name, "view")
        self._check(spec, spec.ins[0], src)
        if not isinstance(ty, TileBufType) or ty.loc != src.type.loc or ty.nbytes != src.type.nbytes \
                or ty.boxed != src.type.boxed:
            raise _bad(f"{name} cannot view {src.type} as {ty}")
        res, vals = _results(result, [ty])
        op = self._op(name, res, loc)
        op.clauses = [Clause("operand", "", [_use(src)])]
        op.colon_types = [src.type]
        op.arrow_types = [ty]
        self._finish(op)
        return vals[0]

    # ------------------------------------------------------------ cross-core FIFO
    @staticmethod
    def _fifo_attrs(split: int, pipe_id: Optional[int]) -> Dict[str, Attr]:
        """``{split = N}``, or ``{id = K, split = N}`` for a hand-written pipe's end (docs/mixed-kernels.md)."""
        return ({} if pipe_id is None else {"id": Attr.int(pipe_id)}) | {"split": Attr.int(split)}

    def push(self, name: str, tile: Value, split: int, loc: SrcLoc = None, pipe_id: Optional[int] = None) -> Op:
        spec = self._spec(name, "push")
        self._check(spec, spec.ins[0], tile)
        op = self._op(name, (), loc)
        op.clauses = [Clause("group", "", [_use(tile)], types=[tile.type], typed=True)]
        self._set_attrs(op, spec, self._fifo_attrs(split, pipe_id))
        return self._finish(op)

    def pop(self, name: str, result: str, ty: TileBufType, split: int, loc: SrcLoc = None,
            pipe_id: Optional[int] = None, valid: Sequence[Value] = ()) -> Value:
        """``%t = pto.tpop_from_X {split = N} -> T``; with a run-time valid region
        ``%t = pto.tpop_from_X(%vr, %vc) {split = N} -> T``."""
        spec = self._spec(name, "pop")
        res, vals = _results(result, [ty])
        op = self._op(name, res, loc)
        self._set_attrs(op, spec, self._fifo_attrs(split, pipe_id))
        op.attr_pos = 0
        if valid:
            op.clauses = [Clause("group", "", [_use(v) for v in valid])]
            op.attr_pos = 1
        op.arrow_types = [ty]
        self._finish(op)
        return vals[0]

    def free(self, name: str, split: int, loc: SrcLoc = None, pipe_id: Optional[int] = None) -> Op:
        spec = self._spec(name, "free")
        op = self._op(name, (), loc)
        self._set_attrs(op, spec, self._fifo_attrs(split, pipe_id))
        return self._finish(op)

    def reserve(self, name: str, result: str, attrs: Dict[str, Attr], loc: SrcLoc = None) -> Value:
        """``pto.reserve_buffer`` / ``pto.import_reserved_buffer``: ``%r = pto.X {...} -> i32``."""
        spec = self._spec(name, "reserve")
        i32 = ScalarType("i32")
        res, vals = _results(result, [i32])
        op = self._op(name, res, loc)
        self._set_attrs(op, spec, attrs)
        op.attr_pos = 0
        op.arrow_types = [i32]
        self._finish(op)
        return vals[0]

    def initialize_pipe(self, name: str, attrs: Dict[str, Attr], operands: Sequence[Tuple[str, Value]],
                        loc: SrcLoc = None) -> Op:
        spec = self._spec(name, "pipe_init")
        for key, v in operands:
            operand = next((o for o in spec.ins if o.role == key), None)
            if operand is None:
                raise _bad(f"{name} has no operand '{key}'")
            self._check(spec, operand, v)
        op = self._op(name, (), loc)
        self._set_attrs(op, spec, attrs)
        op.attr_pos = 0
        op.clauses = [Clause("group", "", [_use(v) for _, v in operands], types=[v.type for _, v in operands],
                             typed=True, keys=[k for k, _ in operands])]
        return self._finish(op)

    # ------------------------------------------------------------ control flow
    def for_(self, iv: str, lo: Value, hi: Value, step: Value, iter_args: Sequence[Tuple[str, Value]] = (),
             result: str = "", loc: SrcLoc = None) -> Tuple["Builder", Value, List[Value], List[Value]]:
        """``scf.for``; returns (body builder, induction variable, iteration arguments, results)."""
        types = [init.type for _, init in iter_args]
        res, vals = _results(result, types)
        op = self._op("scf.for", res, loc)
        op.operands = [_use(lo), _use(hi), _use(step)] + [_use(init) for _, init in iter_args]
        op.extra["iv"] = (iv, 0, 0)
        op.extra["iv_type"] = None
        op.extra["iter_args"] = [(n, 0, 0) for n, _ in iter_args]
        op.arrow_types = types
        op.regions = [Block()]
        self._add(op)
        iters = [Value(n, init.type) for n, init in iter_args]
        return Builder(op.regions[0]), Value(iv, lo.type), iters, vals

    def while_(self, inits: Sequence[Tuple[str, Value]], after_args: Sequence[str], result: str = "",
               loc: SrcLoc = None) -> Tuple["Builder", List[Value], "Builder", List[Value], List[Value]]:
        """``scf.while``; returns (condition builder, its arguments, body builder, its arguments, results).

        The condition region ends with ``condition(...)``, which passes on values of the result
        types (here the initial values' types); the body region ends with ``yield_``.
        """
        types = [init.type for _, init in inits]
        res, vals = _results(result, types)
        op = self._op("scf.while", res, loc)
        op.operands = [_use(init) for _, init in inits]
        op.extra["iter_args"] = [(n, 0, 0) for n, _ in inits]
        op.colon_types = list(types)
        op.arrow_types = list(types)
        op.regions = [Block(), Block(args=[BlockArg(n, t, 0, 0) for n, t in zip(after_args, types)])]
        self._add(op)
        before = [Value(n, t) for (n, _), t in zip(inits, types)]
        after = [Value(n, t) for n, t in zip(after_args, types)]
        return Builder(op.regions[0]), before, Builder(op.regions[1]), after, vals

    def condition(self, cond: Value, values: Sequence[Value] = ()) -> Op:
        op = self._op("scf.condition")
        op.operands = [_use(cond)] + [_use(v) for v in values]
        op.colon_types = [v.type for v in values]
        return self._add(op)

    def if_(self, cond: Value, types: Sequence = (), result: str = "", with_else: bool = False,
            loc: SrcLoc = None) -> Tuple["Builder", Optional["Builder"], List[Value]]:
        """``scf.if``; returns (then builder, else builder or None, results)."""
        res, vals = _results(result, list(types))
        op = self._op("scf.if", res, loc)
        op.operands = [_use(cond)]
        op.arrow_types = list(types)
        op.regions = [Block()] + ([Block()] if with_else or types else [])
        self._add(op)
        return Builder(op.regions[0]), (Builder(op.regions[1]) if len(op.regions) > 1 else None), vals

    def yield_(self, values: Sequence[Value]) -> Op:
        op = self._op("scf.yield")
        op.operands = [_use(v) for v in values]
        op.colon_types = [v.type for v in values]
        return self._add(op)

    def return_(self) -> Op:
        return self._add(self._op("return"))

    # ------------------------------------------------------------ cross-core events (pto/events.py)
    def sync_event(self, name: str, pipe: str, event, attrs: Dict[str, Attr], loc: SrcLoc = None) -> Op:
        """``pto.sync.set <PIPE_X>, E {attrs}`` / ``pto.sync.wait <PIPE_X>, E`` (E an int or an index value)."""
        op = self._op(name, (), loc)
        self._set_attrs(op, dialect.PTO_OPS[name], attrs)
        op.extra["pipe"] = pipe
        if isinstance(event, Value):
            op.operands = [_use(event)]
        else:
            op.extra["event"] = int(event)
        return self._add(op)

    def set_ffts(self, workspace: Value, loc: SrcLoc = None) -> Op:
        op = self._op("pto.set_ffts", (), loc)
        op.operands = [_use(workspace)]
        op.colon_types = [workspace.type]
        return self._add(op)

    def syncall(self, mode: str, core_type: str, operands: Sequence[Value] = (), loc: SrcLoc = None) -> Op:
        op = self._op("pto.syncall", (), loc)
        op.operands = [_use(v) for v in operands]
        op.colon_types = [v.type for v in operands]
        op.extra["mode"], op.extra["core_type"] = mode, core_type
        return self._add(op)

    # ------------------------------------------------------------ asynchronous prefetch (pto/prefetch.py)
    def prefetch(self, name: str, operands: Sequence[Value], result: str, result_type, loc: SrcLoc = None) -> Value:
        """``%r = pto.X(%a, ... : Ta, ...) -> R`` (``pto.get_prefetch_async_session %ctx : T -> R``)."""
        res, vals = _results(result, [result_type])
        op = self._op(name, res, loc)
        op.operands = [_use(v) for v in operands]
        op.colon_types = [v.type for v in operands]
        op.arrow_types = [result_type]
        self._add(op)
        return vals[0]

    def _finish(self, op: Op) -> Op:
        op.operands = [u for c in op.clauses for u in c.uses]
        return self._add(op)


__all__ = ["Value", "Builder", "FunctionBuilder", "new_module", "add_function", "format_literal"]
