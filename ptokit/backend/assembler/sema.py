"""Semantic checks: SSA resolution, operand counts and kinds, type agreement.

Annotates the AST in place: every Use gets ``.value`` (a ValueInfo), every Op
gets ``.result_types``; constants get their Python value.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from ...errors import AssemblerError
from ...pto import dialect, rules
from . import events, prefetch
from ...pto.ast import Block, Func, Module, Op, Use
from ...pto.lexer import SourceText, int_value
from ...pto.types import (LocalArrayType, PartitionViewType, PtrType, ScalarType, TensorViewType, TileBufType,
                          VectorType)

_ARRAY_ELEMS = ("i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64")

INDEX = ScalarType("index")
I1 = ScalarType("i1")
I64 = ScalarType("i64")


@dataclass(eq=False)
class ValueInfo:
    name: str
    type: Any
    line: int
    col: int
    kind: str = "op"            # arg | op | iv | iter | result
    op: Optional[Op] = None
    const: Any = None           # Python value of an arith.constant
    cxx: str = ""               # C++ name (set by the emitter)
    uses: int = 0


def _kind_name(ty) -> str:
    if isinstance(ty, TileBufType):
        return "a tile (!pto.tile_buf)"
    if isinstance(ty, PartitionViewType):
        return "a partition view"
    if isinstance(ty, TensorViewType):
        return "a tensor view"
    if isinstance(ty, PtrType):
        return "a pointer"
    return str(ty)


class Sema:
    def __init__(self, module: Module, src: SourceText, arch: str = "a2a3", compat: Optional[str] = None):
        self.module = module
        self.src = src
        self.arch = arch
        self.compat = compat
        self.scopes: List[Dict[str, ValueInfo]] = []
        self.func: Optional[Func] = None

    def error(self, message: str, line: int, col: int) -> AssemblerError:
        return self.src.error(message, line, col)

    # ------------------------------------------------------------------ scopes
    def lookup(self, name: str) -> Optional[ValueInfo]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def define(self, name: str, ty, line: int, col: int, kind: str = "op", op: Optional[Op] = None) -> ValueInfo:
        if self.lookup(name) is not None:
            prev = self.lookup(name)
            raise self.error(f"redefinition of '%{name}' (first defined at line {prev.line})", line, col)
        vi = ValueInfo(name, ty, line, col, kind, op)
        self.scopes[-1][name] = vi
        return vi

    def resolve(self, use: Use, expect=None, what: str = "operand") -> ValueInfo:
        vi = self.lookup(use.name)
        if vi is None:
            raise self.error(f"use of undefined value '%{use.name}'", use.line, use.col)
        if use.type is not None and use.type != vi.type:
            raise self.error(f"type mismatch: '%{use.name}' has type {vi.type} but is used here as {use.type}",
                             use.line, use.col)
        if expect is not None and vi.type != expect:
            raise self.error(f"{what} '%{use.name}' must have type {expect}, but it has type {vi.type}",
                             use.line, use.col)
        use.value = vi
        vi.uses += 1
        return vi

    # ------------------------------------------------------------------ module / func
    def run(self) -> None:
        names = set()
        for f in self.module.funcs:
            if f.name in names:
                raise self.error(f"redefinition of function '@{f.name}'", f.line, f.col)
            names.add(f.name)
            self.check_func(f)

    def check_func(self, f: Func) -> None:
        self.func = f
        self.scopes = [{}]
        for a in f.args:
            if not isinstance(a.type, (PtrType, ScalarType)):
                raise self.error(f"parameter '%{a.name}' must be a !pto.ptr or a scalar, not {a.type}", a.line, a.col)
            a.value = self.define(a.name, a.type, a.line, a.col, "arg")  # type: ignore[attr-defined]
        if f.body is not None:
            self.check_block(f.body, parent=None)
            broken = rules.function_rule(f, self.arch) or rules.form_function_rule(f, self.arch, self.compat)
            if broken is not None:
                raise self.error(broken[1], *broken[0].extra["name_tok"])
            for i, op in enumerate(f.body.ops):
                if op.name in dialect.RETURN_OPS and i != len(f.body.ops) - 1:
                    raise self.error("'return' must be the last operation of the function", op.line, op.col)
        self.scopes = []

    def check_block(self, block: Block, parent: Optional[Op], results=()) -> None:
        for i, op in enumerate(block.ops):
            if op.name == "scf.condition":
                if parent is None or parent.name != "scf.while" or block is not parent.regions[0]:
                    raise self.error("'scf.condition' outside the condition region of scf.while", op.line, op.col)
                if i != len(block.ops) - 1:
                    raise self.error("'scf.condition' must be the last operation of its region", op.line, op.col)
                self.check_condition(op, parent.arrow_types)
                continue
            if op.name == "scf.yield":
                if parent is None:
                    raise self.error("'scf.yield' outside of scf.for / scf.if / scf.while", op.line, op.col)
                if parent.name == "scf.while" and block is parent.regions[0]:
                    raise self.error("the condition region of scf.while ends with 'scf.condition', not 'scf.yield'",
                                     op.line, op.col)
                if i != len(block.ops) - 1:
                    raise self.error("'scf.yield' must be the last operation of its region", op.line, op.col)
                self.check_yield(op, results)
                continue
            if op.name in dialect.RETURN_OPS:
                if parent is not None:
                    raise self.error(f"'{op.name}' inside a {parent.name} region", op.line, op.col)
                if op.operands:
                    raise self.error("kernel functions return nothing", op.operands[0].line, op.operands[0].col)
                continue
            self.check_op(op)
        if parent is not None and results and (not block.ops or block.ops[-1].name != "scf.yield"):
            raise self.error(f"region of {parent.name} must end with 'scf.yield' of {len(results)} value(s)",
                             block.end_line, block.end_col)

    def check_yield(self, op: Op, results) -> None:
        if len(op.operands) != len(results):
            raise self.error(f"'scf.yield' yields {len(op.operands)} value(s) but its parent has "
                             f"{len(results)} result(s)", op.line, op.col)
        if len(op.colon_types) != len(op.operands):
            raise self.error(f"'scf.yield' has {len(op.operands)} value(s) but {len(op.colon_types)} type(s)",
                             op.line, op.col)
        for use, ty, want in zip(op.operands, op.colon_types, results):
            use.type = ty
            self.resolve(use)
            if ty != want:
                raise self.error(f"'scf.yield' value '%{use.name}' has type {ty} but the result type is {want}",
                                 use.line, use.col)

    def check_condition(self, op: Op, results) -> None:
        self.resolve(op.operands[0], I1, "scf.condition")
        passed = op.operands[1:]
        if len(passed) != len(results):
            raise self.error(f"'scf.condition' passes on {len(passed)} value(s) but the loop has {len(results)} "
                             f"result(s)", op.line, op.col)
        if len(op.colon_types) != len(passed):
            raise self.error(f"'scf.condition' has {len(passed)} value(s) but {len(op.colon_types)} type(s)",
                             op.line, op.col)
        for use, ty, want in zip(passed, op.colon_types, results):
            use.type = ty
            self.resolve(use)
            if ty != want:
                raise self.error(f"'scf.condition' value '%{use.name}' has type {ty} but the result type is {want}",
                                 use.line, use.col)

    def bind_results(self, op: Op, types: list) -> None:
        n = sum(r.count for r in op.results)
        if n != len(types):
            line, col = (op.results[0].line, op.results[0].col) if op.results else op.extra["name_tok"]
            raise self.error(f"'{op.name}' produces {len(types)} result(s) but {n} are named", line, col)
        op.result_types = list(types)
        k = 0
        infos = []
        for r in op.results:
            if r.count == 1:
                infos.append(self.define(r.name, types[k], r.line, r.col, "op", op))
                k += 1
            else:
                for j in range(r.count):
                    infos.append(self.define(f"{r.name}#{j}", types[k], r.line, r.col, "op", op))
                    k += 1
        op.extra["result_infos"] = infos

    # ------------------------------------------------------------------ ops
    def check_op(self, op: Op) -> None:
        name = op.name
        nl, nc = op.extra["name_tok"]
        if name == "arith.constant":
            self.check_constant(op)
        elif name in dialect.ARITH_INT_BINARY or name in dialect.ARITH_FLOAT_BINARY or name in dialect.ARITH_UNARY:
            arity = 1 if name in dialect.ARITH_UNARY else 2
            self.count(op, op.operands, arity, "operands")
            if len(op.colon_types) != 1:
                raise self.error(f"'{name}' takes one type after ':'", nl, nc)
            ty = op.colon_types[0]
            want_float = name not in dialect.ARITH_INT_BINARY
            if not isinstance(ty, ScalarType) or (ty.is_float != want_float):
                raise self.error(f"'{name}' needs {'a float' if want_float else 'an integer or index'} type, got {ty}",
                                 nl, nc)
            for u in op.operands:
                u.type = ty
                self.resolve(u)
            self.bind_results(op, [ty])
        elif name in ("arith.cmpi", "arith.cmpf"):
            self.count(op, op.operands, 2, "operands")
            ty = op.colon_types[0]
            if not isinstance(ty, ScalarType) or ty.is_float != (name == "arith.cmpf"):
                raise self.error(f"'{name}' cannot compare values of type {ty}", nl, nc)
            for u in op.operands:
                u.type = ty
                self.resolve(u)
            self.bind_results(op, [I1])
        elif name == "arith.select":
            self.count(op, op.operands, 3, "operands")
            types = op.colon_types
            if len(types) == 2:
                if types[0] != I1:
                    raise self.error(f"'arith.select' condition type must be i1, got {types[0]}", nl, nc)
                ty = types[1]
            elif len(types) == 1:
                ty = types[0]
            else:
                raise self.error("'arith.select' takes ': T' or ': i1, T'", nl, nc)
            op.operands[0].type = I1
            op.operands[1].type = ty
            op.operands[2].type = ty
            for u in op.operands:
                self.resolve(u)
            self.bind_results(op, [ty])
        elif name in dialect.ARITH_CASTS:
            self.count(op, op.operands, 1, "operands")
            src, dst = op.colon_types[0], op.arrow_types[0]
            for t in (src, dst):
                if not isinstance(t, ScalarType):
                    raise self.error(f"'{name}' converts scalars, not {t}", nl, nc)
            op.operands[0].type = src
            self.resolve(op.operands[0])
            self.bind_results(op, [dst])
        elif name == "scf.for":
            self.check_for(op)
        elif name == "scf.if":
            self.check_if(op)
        elif name == "scf.while":
            self.check_while(op)
        elif name in dialect.PTO_OPS:
            spec = dialect.PTO_OPS[name]
            check = {"tensor_view": self.check_make_tensor_view, "partition_view": self.check_partition_view,
                     "alloc": self.check_alloc_tile, "dps": self.check_tile_op, "view": self.check_view,
                     "plain": self.check_plain, **{form: self.check_call for form in dialect.CALL_FORMS},
                     "event": lambda o, _s: events.check(self, o),
                     "prefetch": lambda o, _s: prefetch.check(self, o),
                     **{form: self.check_element for form in dialect.ELEMENT_FORMS}}
            check.get(spec.form, self.check_cross_core)(op, spec)
        else:  # pragma: no cover - KNOWN_OPS and this dispatch agree
            raise self.error(f"unknown operation '{name}'", nl, nc)

    def count(self, op: Op, uses: list, n: int, what: str, at=None) -> None:
        if len(uses) != n:
            line, col = at if at else op.extra["name_tok"]
            raise self.error(f"'{op.name}' expects {n} {what}, got {len(uses)}", line, col)

    def check_constant(self, op: Op) -> None:
        ty = op.colon_types[0]
        lit = op.extra["literal"]
        line, col = op.extra["lit_tok"]
        if isinstance(ty, VectorType) or lit.startswith("dense<"):
            # a vector splat (tmrgsort's executed counts): a C++ variable, never inlined
            if not (isinstance(ty, VectorType) and lit.startswith("dense<")):
                raise self.error(f"dense<...> goes with a vector type (and a vector constant needs dense<...>), "
                                 f"got {lit} : {ty}", line, col)
            self.bind_results(op, [ty])
            op.extra["value"] = None
            return
        if not isinstance(ty, ScalarType):
            raise self.error(f"arith.constant must have a scalar type, not {ty}", line, col)
        if lit in ("true", "false"):
            if ty != I1:
                raise self.error(f"boolean constant needs type i1, not {ty}", line, col)
            value: Any = lit == "true"
        elif ty.is_float:
            if lit.lower().lstrip("-").startswith("0x"):
                bits = int_value(lit)
                try:
                    if ty.name == "f32":
                        value = struct.unpack("<f", struct.pack("<I", bits))[0]
                    elif ty.name == "f64":
                        value = struct.unpack("<d", struct.pack("<Q", bits))[0]
                    elif ty.name == "f16":
                        value = struct.unpack("<e", struct.pack("<H", bits))[0]
                    else:
                        value = struct.unpack("<f", struct.pack("<I", bits << 16))[0]
                except struct.error:
                    raise self.error(f"bit pattern {lit} does not fit {ty}", line, col) from None
            else:
                value = float(lit)
        else:
            if "." in lit or "e" in lit.lower() and not lit.lower().startswith(("0x", "-0x")):
                raise self.error(f"integer constant of type {ty} cannot be {lit}", line, col)
            if ty.name.startswith("ui"):      # MLIR's rule: write the signless constant, then bridge it
                raise self.error(f"'arith.constant' op integer return type must be signless (write "
                                 f"'arith.constant {lit} : {ty.name[1:]}' and '{dialect.UNSIGNED_BRIDGE} %c : "
                                 f"{ty.name[1:]} to {ty.name}')", line, col)
            value = int_value(lit)
            if ty == I1:
                if value not in (0, 1, -1):
                    raise self.error(f"i1 constant must be 0 or 1, got {lit}", line, col)
                value = bool(value)
        self.bind_results(op, [ty])
        op.extra["result_infos"][0].const = value
        op.extra["value"] = value

    def check_for(self, op: Op) -> None:
        nl, nc = op.extra["name_tok"]
        iv_type = op.extra["iv_type"] or INDEX
        if not (isinstance(iv_type, ScalarType) and iv_type.is_int and iv_type != I1):
            raise self.error(f"scf.for induction variable must be an integer or index, not {iv_type}", nl, nc)
        lo, hi, st = op.operands[:3]
        for u in (lo, hi, st):
            vi = self.resolve(u)
            if vi.type != iv_type:
                raise self.error(f"loop bound '%{u.name}' has type {vi.type}, expected {iv_type}", u.line, u.col)
        inits = op.operands[3:]
        iter_args = op.extra["iter_args"]
        if len(op.arrow_types) != len(iter_args):
            raise self.error(f"scf.for has {len(iter_args)} iter_args but {len(op.arrow_types)} result type(s)",
                             nl, nc)
        for u, ty in zip(inits, op.arrow_types):
            vi = self.resolve(u)
            if vi.type != ty:
                raise self.error(f"iter_args initial value '%{u.name}' has type {vi.type}, expected {ty}",
                                 u.line, u.col)
        self.scopes.append({})
        ivn, ivl, ivc = op.extra["iv"]
        op.extra["iv_info"] = self.define(ivn, iv_type, ivl, ivc, "iv", op)
        op.extra["iter_infos"] = [self.define(n, ty, l, c, "iter", op)
                                  for (n, l, c), ty in zip(iter_args, op.arrow_types)]
        self.check_block(op.regions[0], op, op.arrow_types)
        self.scopes.pop()
        self.bind_results(op, op.arrow_types)

    def check_while(self, op: Op) -> None:
        nl, nc = op.extra["name_tok"]
        iter_args = op.extra["iter_args"]
        if len(op.colon_types) != len(iter_args):
            raise self.error(f"scf.while has {len(iter_args)} loop argument(s) but {len(op.colon_types)} initial "
                             f"type(s)", nl, nc)
        for u, ty in zip(op.operands, op.colon_types):
            vi = self.resolve(u)
            if vi.type != ty:
                raise self.error(f"loop argument initial value '%{u.name}' has type {vi.type}, expected {ty}",
                                 u.line, u.col)
        if len(op.regions) != 2:
            raise self.error("scf.while needs a condition region and a 'do' region", nl, nc)
        before, after = op.regions
        if not before.ops or before.ops[-1].name != "scf.condition":
            raise self.error("the condition region of scf.while must end with 'scf.condition'",
                             before.end_line, before.end_col)
        self.scopes.append({})
        op.extra["iter_infos"] = [self.define(n, ty, l, c, "iter", op)
                                  for (n, l, c), ty in zip(iter_args, op.colon_types)]
        self.check_block(before, op)
        self.scopes.pop()
        if [a.type for a in after.args] != list(op.arrow_types):
            raise self.error(f"the 'do' region of scf.while takes the loop's result types "
                             f"({', '.join(map(str, op.arrow_types)) or 'none'}) as its block arguments",
                             (after.args[0].line if after.args else nl), (after.args[0].col if after.args else nc))
        self.scopes.append({})
        op.extra["after_infos"] = [self.define(a.name, a.type, a.line, a.col, "iter", op) for a in after.args]
        self.check_block(after, op, op.colon_types)
        self.scopes.pop()
        self.bind_results(op, op.arrow_types)

    def check_if(self, op: Op) -> None:
        nl, nc = op.extra["name_tok"]
        self.resolve(op.operands[0], I1, "scf.if condition")
        if op.arrow_types and len(op.regions) < 2:
            raise self.error("scf.if with results needs an else region", nl, nc)
        for region in op.regions:
            self.scopes.append({})
            self.check_block(region, op, op.arrow_types)
            self.scopes.pop()
        self.bind_results(op, op.arrow_types)

    # ------------------------------------------------------------------ pto
    def _clause(self, op: Op, kind: str, name: str, required: bool = True):
        for c in op.clauses:
            if c.kind == kind and c.name == name:
                return c
        if required:
            nl, nc = op.extra["name_tok"]
            what = {"list": f"'{name} = [...]'", "kw": f"'{name} = %value'", "group": f"'{name}(...)'",
                    "results": f"'{name} : type'", "indexed": "'%ptr[%index]'", "operand": "an operand"}[kind]
            raise self.error(f"'{op.name}' is missing {what}", nl, nc)
        return None

    def _no_other_clauses(self, op: Op, allowed) -> None:
        for c in op.clauses:
            if (c.kind, c.name) not in allowed:
                desc = f"'{c.name}'" if c.name else "operand" if c.kind == "operand" else "'(...)'"
                raise self.error(f"unexpected {desc} in '{op.name}'", c.line, c.col)

    def _index_operands(self, uses, what: str) -> None:
        for u in uses:
            vi = self.resolve(u)
            if not (isinstance(vi.type, ScalarType) and vi.type.is_int):
                raise self.error(f"{what} '%{u.name}' must be an index or integer, not {vi.type}", u.line, u.col)

    def _single_type(self, op: Op, types, cls, what: str):
        nl, nc = op.extra["name_tok"]
        if len(types) != 1 or not isinstance(types[0], cls):
            raise self.error(f"'{op.name}' needs {what}", nl, nc)
        return types[0]

    def check_make_tensor_view(self, op: Op, spec: dialect.OpSpec) -> None:
        self._no_other_clauses(op, {("operand", ""), ("list", "shape"), ("list", "strides")})
        ptrs = [c for c in op.clauses if c.kind == "operand"]
        self.count(op, ptrs, 1, "base pointer operand")
        shape = self._clause(op, "list", "shape")
        strides = self._clause(op, "list", "strides")
        vt = self._single_type(op, op.colon_types, TensorViewType, "a result type ': !pto.tensor_view<...>'")
        base = self.resolve(ptrs[0].uses[0])
        if not isinstance(base.type, PtrType):
            u = ptrs[0].uses[0]
            raise self.error(f"'%{u.name}' must be a !pto.ptr, not {base.type}", u.line, u.col)
        if base.type.elem != vt.elem:
            u = ptrs[0].uses[0]
            raise self.error(f"pointer element type {base.type.elem} does not match view element type {vt.elem}",
                             u.line, u.col)
        rank = len(vt.shape)
        self.count(op, shape.uses, rank, "shape operands (the view's rank)", (shape.line, shape.col))
        self.count(op, strides.uses, rank, "stride operands (the view's rank)", (strides.line, strides.col))
        self._index_operands(shape.uses, "shape")
        self._index_operands(strides.uses, "stride")
        self.bind_results(op, [vt])

    def check_partition_view(self, op: Op, spec: dialect.OpSpec) -> None:
        self._no_other_clauses(op, {("operand", ""), ("list", "offsets"), ("list", "sizes")})
        srcs = [c for c in op.clauses if c.kind == "operand"]
        self.count(op, srcs, 1, "source view operand")
        offsets = self._clause(op, "list", "offsets")
        sizes = self._clause(op, "list", "sizes")
        st = self._single_type(op, op.colon_types, TensorViewType, "': !pto.tensor_view<...> -> !pto.partition_tensor_view<...>'")
        pt = self._single_type(op, op.arrow_types, PartitionViewType, "a result type '-> !pto.partition_tensor_view<...>'")
        u = srcs[0].uses[0]
        u.type = st
        self.resolve(u)
        if len(st.shape) != len(pt.shape) or st.elem != pt.elem:
            raise self.error(f"partition {pt} does not match source view {st} (rank and element type)",
                             *op.extra["name_tok"])
        self.count(op, offsets.uses, len(st.shape), "offsets (the view's rank)", (offsets.line, offsets.col))
        self.count(op, sizes.uses, len(st.shape), "sizes (the view's rank)", (sizes.line, sizes.col))
        self._index_operands(offsets.uses, "offset")
        self._index_operands(sizes.uses, "size")
        self.bind_results(op, [pt])

    def check_alloc_tile(self, op: Op, spec: dialect.OpSpec) -> None:
        self._no_other_clauses(op, {("kw", "addr"), ("kw", "valid_row"), ("kw", "valid_col")})
        tt = self._single_type(op, op.colon_types, TileBufType, "a result type ': !pto.tile_buf<...>'")
        addr = self._clause(op, "kw", "addr", required=False)
        if addr is not None:
            # a byte offset in the tile's memory space: exactly an i64, as the real assembler wants
            u = addr.uses[0]
            vi = self.resolve(u)
            if vi.type != I64:
                raise self.error(f"address '%{u.name}' of 'pto.alloc_tile' must be an i64, not {vi.type}",
                                 u.line, u.col)
        for key, dyn in (("valid_row", tt.v_row is None), ("valid_col", tt.v_col is None)):
            c = self._clause(op, "kw", key, required=False)
            if c is None and dyn:
                nl, nc = op.extra["name_tok"]
                raise self.error(f"'pto.alloc_tile' of a tile with {key[6:]}=? needs '{key} = %value'", nl, nc)
            if c is not None:
                self._index_operands(c.uses, key)
        self.bind_results(op, [tt])

    def check_tile_op(self, op: Op, spec: dialect.OpSpec) -> None:
        self._no_other_clauses(op, {("group", "ins"), ("group", "outs")})
        ins = self._clause(op, "group", "ins")
        outs = self._clause(op, "group", "outs")
        if op.results:
            raise self.error(f"'{op.name}' writes its outs(...) operand and has no results",
                             op.results[0].line, op.results[0].col)
        if spec.variants:
            spec = self.pick_variant(op, spec, ins, outs)
        elif ins.axis is not None:
            raise self.error(f"'{op.name}' takes no \"{ins.axis}\" after its ins types", ins.line, ins.col)
        op.extra["row"] = spec
        lo, hi = len(spec.ins) - spec.optional, len(spec.ins)
        if not lo <= len(ins.uses) <= hi:
            want = str(hi) if lo == hi else f"{lo} or {hi}"
            raise self.error(f"'{op.name}' expects {want} operand(s) in ins(...), got {len(ins.uses)}",
                             ins.line, ins.col)
        if len(outs.uses) != len(spec.outs):
            raise self.error(f"'{op.name}' expects {len(spec.outs)} operand(s) in outs(...), got {len(outs.uses)}",
                             outs.line, outs.col)
        roles = []
        for grp, operands in ((ins, spec.ins), (outs, spec.outs)):
            if not grp.typed:
                raise self.error(f"'{grp.name}(...)' of '{op.name}' needs ': types' for its operands",
                                 grp.line, grp.col)
            if len(grp.types) != len(grp.uses):
                raise self.error(f"'{grp.name}(...)' has {len(grp.uses)} operand(s) but {len(grp.types)} type(s)",
                                 grp.line, grp.col)
            for i, (u, ty, operand) in enumerate(zip(grp.uses, grp.types, operands)):
                u.type = ty
                vi = self.resolve(u)
                if not dialect.accepts(operand.kind, vi.type):
                    raise self.error(f"{grp.name} operand {i + 1} of '{op.name}' must be "
                                     f"{dialect.kind_name(operand.kind)}, got {_kind_name(vi.type)}", u.line, u.col)
                roles.append((operand.role, u, vi.type))
        # the real assembler's layout rule: these operands must be row-major tiles (a [r, 1] column is
        # col_major; writers view it as a [1, r] row through pto.treshape)
        for role, u, ty in roles:
            if role in spec.row_major and isinstance(ty, TileBufType) and ty.blayout != "row_major":
                raise self.error(spec.layout_message(role), u.line, u.col)
        # the real assembler's verifier rules of the row (element types, memory spaces, shapes)
        broken = rules.check(spec, {role: ty for role, _, ty in roles}, self.arch, self.compat)
        if broken is not None:
            u = next(u for role, u, _ in roles if role == broken[0])
            raise self.error(broken[1], u.line, u.col)
        self.check_attrs(op, spec)
        self.bind_results(op, [])

    def pick_variant(self, op: Op, spec: dialect.OpSpec, ins, outs) -> dialect.OpSpec:
        """The form of a many-form op (pto.tgather, pto.tscatter, pto.tmrgsort) its operands select."""
        types = []
        for grp in (ins, outs):
            if not grp.typed or len(grp.types) != len(grp.uses):
                raise self.error(f"'{grp.name}(...)' of '{op.name}' needs one type per operand", grp.line, grp.col)
            types.append(list(grp.types))
        row = dialect.variant(spec, types[0], types[1], ins.axis)
        if row is None:
            forms = "; ".join(
                f"ins({', '.join(o.role for o in v.ins)}{' : ..., ' + repr(v.axis) if v.axis else ''}) "
                f"outs({', '.join(o.role for o in v.outs)})" for v in spec.variants)
            raise self.error(f"'{op.name}' has no form with these operands; its forms are {forms}", ins.line, ins.col)
        return row

    def check_element(self, op: Op, spec: dialect.OpSpec) -> None:
        """pto.tgetval / pto.load_scalar / pto.store_scalar: one element of a tile or a tensor."""
        nl, nc = op.extra["name_tok"]
        form = spec.form
        if form.startswith("array_"):
            self.check_local_array(op, spec)
            return
        if form == "getval":
            self._no_other_clauses(op, {("group", "ins"), ("results", "outs")})
            ins = self._clause(op, "group", "ins")
            outs = self._clause(op, "results", "outs")
            uses = ins.uses
            self.count(op, uses, 2, "operands in ins(...)", at=(ins.line, ins.col))
            if len(ins.types) != 2 or len(outs.types) != 1:
                raise self.error(f"'{op.name}' is written ins(%tile, %index : T, index) outs : element-type", nl, nc)
            for u, t in zip(uses, ins.types):
                u.type = t
            result = outs.types[0]
            elem_of = uses[0]
        else:
            want = ({("indexed", "")} if form == "load_scalar" else {("operand", ""), ("indexed", "")})
            self._no_other_clauses(op, want)
            idx = self._clause(op, "indexed", "")
            uses = ([] if form == "load_scalar" else [self._clause(op, "operand", "").uses[0]]) + idx.uses
            ptr_t = op.colon_types[0] if op.colon_types else None
            if not isinstance(ptr_t, PtrType):
                raise self.error(f"'{op.name}' needs the pointer's type after ':'", nl, nc)
            idx.uses[0].type = ptr_t
            if form == "load_scalar":
                if len(op.arrow_types) != 1:
                    raise self.error(f"'{op.name}' needs its element type after '->'", nl, nc)
                result = op.arrow_types[0]
            else:
                if len(op.colon_types) != 2:
                    raise self.error(f"'{op.name}' is written %value, %ptr[%index] : !pto.ptr<E>, E", nl, nc)
                uses[0].type = op.colon_types[1]
                result = None
            elem_of = idx.uses[0]
        for u, operand in zip(uses, spec.ins):
            vi = self.resolve(u)
            if not dialect.accepts(operand.kind, vi.type):
                raise self.error(f"{operand.role} of '{op.name}' must be {dialect.kind_name(operand.kind)}, got "
                                 f"{_kind_name(vi.type)}", u.line, u.col)
        elem = elem_of.value.type.dtype if form == "getval" else elem_of.value.type.elem
        value_t = result if form != "store_scalar" else uses[0].value.type
        if not isinstance(value_t, ScalarType) or value_t.name != elem:
            raise self.error(f"'{op.name}' moves a {elem} element, but the value's type is {value_t}", nl, nc)
        self.bind_results(op, [result] if result is not None else [])

    def check_local_array(self, op: Op, spec: dialect.OpSpec) -> None:
        """pto.declare_local_array / local_array_get / local_array_set."""
        nl, nc = op.extra["name_tok"]
        form = spec.form
        if form == "array_declare":
            self._no_other_clauses(op, set())
            if len(op.arrow_types) != 1 or not isinstance(op.arrow_types[0], LocalArrayType):
                raise self.error(f"'{op.name}' is written -> !pto.local_array<NxT>", nl, nc)
            if op.arrow_types[0].elem not in _ARRAY_ELEMS:
                raise self.error(f"a local array holds integers or i1, not {op.arrow_types[0].elem}", nl, nc)
            self.bind_results(op, [op.arrow_types[0]])
            return
        want = {("indexed", "")} | ({("operand", "")} if form == "array_set" else set())
        self._no_other_clauses(op, want)
        idx = self._clause(op, "indexed", "")
        arr_t = op.colon_types[0] if op.colon_types else None
        if not isinstance(arr_t, LocalArrayType):
            raise self.error(f"'{op.name}' needs the array's type after ':'", nl, nc)
        idx.uses[0].type = arr_t
        uses = list(idx.uses)
        if form == "array_get":
            if len(op.arrow_types) != 1:
                raise self.error(f"'{op.name}' needs the element type after '->'", nl, nc)
            value_t = op.arrow_types[0]
        else:
            if len(op.colon_types) != 2:
                raise self.error(f"'{op.name}' is written %a[%i], %v : !pto.local_array<NxT>, T", nl, nc)
            value = self._clause(op, "operand", "").uses[0]
            value.type = value_t = op.colon_types[1]
            uses.append(value)
        for u, operand in zip(uses, spec.ins):
            vi = self.resolve(u)
            if not dialect.accepts(operand.kind, vi.type):
                raise self.error(f"{operand.role} of '{op.name}' must be {dialect.kind_name(operand.kind)}, got "
                                 f"{_kind_name(vi.type)}", u.line, u.col)
        if not isinstance(value_t, ScalarType) or value_t.name != arr_t.elem:
            raise self.error(f"'{op.name}' moves a {arr_t.elem} element, but the value's type is {value_t}", nl, nc)
        self.bind_results(op, [value_t] if form == "array_get" else [])

    def check_call(self, op: Op, spec: dialect.OpSpec) -> None:
        """``[%r =] pto.X %a, %b : Ta, Tb [-> R]`` (dialect.CALL_FORMS: the signal ops); the ``addptr`` form
        types the pointer only, the offset is an index: ``%r = pto.addptr %p, %off : !pto.ptr<T> -> !pto.ptr<T>``."""
        nl, nc = op.extra["name_tok"]
        self._no_other_clauses(op, {("operand", "")})
        uses = [c.uses[0] for c in op.clauses]
        self.count(op, uses, len(spec.ins), "operands")
        types = list(op.colon_types)
        if spec.form == "addptr":
            if len(types) != 1:
                raise self.error(f"'{op.name}' is written %ptr, %offset : !pto.ptr<T> -> !pto.ptr<T>", nl, nc)
            types.append(ScalarType("index"))
        if len(types) != len(uses):
            raise self.error(f"'{op.name}' needs one type per operand after ':'", nl, nc)
        for u, t, operand in zip(uses, types, spec.ins):
            u.type = t
            vi = self.resolve(u)
            if not dialect.accepts(operand.kind, vi.type):
                raise self.error(f"{operand.role} of '{op.name}' must be {dialect.kind_name(operand.kind)}, got "
                                 f"{_kind_name(vi.type)}", u.line, u.col)
        if spec.outs:
            if len(op.arrow_types) != 1 or not dialect.accepts(spec.outs[0].kind, op.arrow_types[0]):
                raise self.error(f"'{op.name}' needs its result type ({dialect.kind_name(spec.outs[0].kind)}) "
                                 f"after '->'", nl, nc)
            if spec.form == "addptr" and op.arrow_types[0] != types[0]:
                raise self.error(f"'{op.name}' op failed to verify that all of {{ptr, result}} have same type",
                                 nl, nc)
            self.bind_results(op, [op.arrow_types[0]])
        else:
            if op.arrow_types:
                raise self.error(f"'{op.name}' has no result", nl, nc)
            self.bind_results(op, [])

    def check_plain(self, op: Op, spec: dialect.OpSpec) -> None:
        """``pto.set_validshape %tile, %valid_row, %valid_col : T``."""
        nl, nc = op.extra["name_tok"]
        self._no_other_clauses(op, {("operand", "")})
        uses = [c.uses[0] for c in op.clauses]
        self.count(op, uses, len(spec.ins), "operands")
        ty = self._single_type(op, op.colon_types, TileBufType, "the tile's type after ':'")
        for i, (u, operand) in enumerate(zip(uses, spec.ins)):
            if i == 0:
                u.type = ty
            vi = self.resolve(u)
            if not dialect.accepts(operand.kind, vi.type):
                raise self.error(f"operand {i + 1} of '{op.name}' must be {dialect.kind_name(operand.kind)}, got "
                                 f"{_kind_name(vi.type)}", u.line, u.col)
        if ty.v_row is not None or ty.v_col is not None:
            raise self.error(f"'{op.name}' op expects source tile_buf to have dynamic validShape (?, ?)", nl, nc)
        if op.results:
            raise self.error(f"'{op.name}' changes its tile in place and has no results",
                             op.results[0].line, op.results[0].col)
        self.bind_results(op, [])

    def check_attrs(self, op: Op, spec: dialect.OpSpec) -> None:
        """Declared attributes of a pto op: presence, kind and allowed values (others pass through)."""
        nl, nc = op.extra["name_tok"]
        for a in spec.attrs:
            got = op.attrs.get(a.name)
            if got is None:
                if a.required:
                    raise self.error(f"'{op.name}': missing {a.kind} attribute '{a.name}'", nl, nc)
                continue
            word = dialect.attr_word(a, got)
            if a.kind == "round_mode":
                if word not in a.allowed:
                    raise self.error(f"unknown rounding mode {got.text}", nl, nc)
            elif a.kind == "enum":
                parts = dialect.attr_parts(a, word)
                if word not in a.allowed or not isinstance(got.value, tuple) or got.value[0] != parts[0] \
                        or got.value[1].split() != parts[1].split():
                    want = ", ".join("#{}<{}>".format(*dialect.attr_parts(a, v)) for v in a.allowed)
                    raise self.error(f"'{op.name}': attribute '{a.name}' must be {want}, got {got.text}", nl, nc)
            elif a.kind == "bool" and not isinstance(word, bool):
                raise self.error(f"'{op.name}': attribute '{a.name}' must be true or false, got {got.text}", nl, nc)
            elif a.kind in ("int", "i32"):
                if not isinstance(word, int) or isinstance(word, bool) or (a.allowed and word not in a.allowed):
                    want = f"one of {list(a.allowed)}" if a.allowed else "an integer"
                    raise self.error(f"'{op.name}': attribute '{a.name}' must be {want}, got {got.text}", nl, nc)

    def check_view(self, op: Op, spec: dialect.OpSpec) -> None:
        """``%dst = pto.treshape %src : T1 -> T2``: the same bytes seen as another tile type."""
        nl, nc = op.extra["name_tok"]
        groups = [c for c in op.clauses if c.kind == "group"]
        if groups:
            g = groups[0]
            raise self.error(f"'{op.name}' is an SSA view: write '%dst = {op.name} %src : !pto.tile_buf<...> -> "
                             f"!pto.tile_buf<...>' (the ins(...) outs(...) form is not accepted)", g.line, g.col)
        self._no_other_clauses(op, {("operand", "")})
        srcs = [c for c in op.clauses if c.kind == "operand"]
        self.count(op, srcs, 1, "source operand")
        st = self._single_type(op, op.colon_types, TileBufType, "': !pto.tile_buf<...> -> !pto.tile_buf<...>'")
        dt = self._single_type(op, op.arrow_types, TileBufType, "a result type '-> !pto.tile_buf<...>'")
        if sum(r.count for r in op.results) != 1:
            raise self.error(f"'{op.name}' has one result: '%dst = {op.name} %src : T1 -> T2'", nl, nc)
        u = srcs[0].uses[0]
        u.type = st
        self.resolve(u)
        if st.loc != dt.loc:
            raise self.error(f"'{op.name}' op expects src and dst to use the same loc", nl, nc)
        if st.nbytes != dt.nbytes:
            raise self.error(f"'{op.name}' op expects src and dst to have the same total byte size "
                             f"({st.nbytes} vs {dt.nbytes})", nl, nc)
        if st.boxed != dt.boxed:
            raise self.error(f"'{op.name}' op cannot reshape between boxed and non-boxed tile layouts", nl, nc)
        self.bind_results(op, [dt])

    def check_cross_core(self, op: Op, spec: dialect.OpSpec) -> None:
        self.check_cross_core_form(op, spec)
        for c in op.clauses:
            if c.kind == "group" and c.typed:
                if len(c.types) != len(c.uses):
                    raise self.error(f"'({c.name})' has {len(c.uses)} operand(s) but {len(c.types)} type(s)",
                                     c.line, c.col)
                for u, ty in zip(c.uses, c.types):
                    u.type = ty
        for u in op.operands:
            self.resolve(u)
        types = op.arrow_types or (op.colon_types if op.results else [])
        self.bind_results(op, types if op.results else [])


    # ------------------------------------------------------------------ cross-core forms
    def check_cross_core_form(self, op: Op, spec: dialect.OpSpec) -> None:
        """The shapes of docs/mixed-kernels.md; each problem is located at the op."""
        nl, nc = op.extra.get("name_tok", (op.line, op.col))
        name = op.name

        def fail(msg):
            return self.error(f"'{name}': {msg}", nl, nc)

        def int_attr(key):
            want = spec.attr(key)
            a = op.attrs.get(key)
            if a is None:
                if want.required:
                    raise fail(f"missing integer attribute '{key}'")
                return None
            if not isinstance(a.value, int) or isinstance(a.value, bool):
                raise fail(f"attribute '{key}' must be an integer, got {a.text}")
            if want.allowed is not None and a.value not in want.allowed:
                raise fail(f"attribute '{key}' must be one of {sorted(want.allowed)}, got {a.value}")
            if want.positive and a.value <= 0:
                raise fail(f"attribute '{key}' must be positive, got {a.value}")
            return a.value

        def str_attr(key):
            a = op.attrs.get(key)
            if a is None or not isinstance(a.value, str):
                raise fail(f"needs a string attribute '{key}'")
            return a.value

        groups = [c for c in op.clauses if c.kind == "group"]
        others = [c for c in op.clauses if c.kind != "group"]
        if others:
            raise fail(f"unexpected '{others[0].name or 'operand'}' clause")
        n_res = sum(r.count for r in op.results)
        if name in ("pto.reserve_buffer", "pto.import_reserved_buffer"):
            if groups or n_res != 1 or op.arrow_types != [ScalarType("i32")]:
                raise fail("expected '%buf = " + name + " {...} -> i32'")
            str_attr("name")
            if name == "pto.reserve_buffer":
                int_attr("size")
                loc = op.attrs.get("location")
                places = spec.attr("location").allowed
                if loc is not None and not (isinstance(loc.value, tuple) and loc.value[1] in places):
                    raise fail(f"location must be #pto.address_space<vec> or <mat>, got {loc.text}")
                auto = op.attrs.get("auto")
                if op.attrs.get("base") is None:
                    if auto is None or auto.value is not True:
                        raise fail("needs 'base = N' (or auto = true)")
                    raise fail("auto = true (assembler-placed slot buffers) is not supported by the built-in "
                               "assembler; give 'base = N'")
                int_attr("base")
            else:
                peer = op.attrs.get("peer_func")
                if peer is None or not (isinstance(peer.value, tuple) and peer.value[0] == "@"):
                    raise fail("needs 'peer_func = @function'")
        elif name in ("pto.aic_initialize_pipe", "pto.aiv_initialize_pipe"):
            int_attr("dir_mask")
            int_attr("slot_size")
            int_attr("slot_num")
            int_attr("local_slot_num")
            int_attr("id")
            if n_res or len(groups) != 1 or not groups[0].keys:
                raise fail("expected '{dir_mask = D, slot_size = S} (c2v_consumer_buf = %a : i32, "
                           "v2c_consumer_buf = %b : i32)' with no results")
            g = groups[0]
            allowed = {o.role for o in spec.ins}
            for k, u, t in zip(g.keys, g.uses, g.types):
                if k not in allowed:
                    raise self.error(f"'{name}': unknown operand '{k}' (expected {', '.join(sorted(allowed))})",
                                     u.line, u.col)
                if k == "gm_slot_buffer" and not isinstance(t, PtrType):
                    raise self.error(f"'{name}': gm_slot_buffer must be a !pto.ptr, got {t}", u.line, u.col)
                if k != "gm_slot_buffer" and not (isinstance(t, ScalarType) and t.is_int):
                    raise self.error(f"'{name}': {k} must be an i32, got {t}", u.line, u.col)
            if len(set(g.keys)) != len(g.keys):
                raise fail("an operand is given twice")
            for k in ("c2v_consumer_buf", "v2c_consumer_buf"):
                if k not in g.keys:
                    raise fail(f"missing operand '{k}'")
        elif name in ("pto.tpush_to_aiv", "pto.tpush_to_aic"):
            int_attr("split")
            int_attr("id")
            if n_res or len(groups) != 1 or len(groups[0].uses) != 1 or not groups[0].typed:
                raise fail("expected '" + name + "(%tile : !pto.tile_buf<...>) {split = N}'")
            if not isinstance(groups[0].types[0], TileBufType):
                raise fail(f"pushes a tile, got {groups[0].types[0]}")
            broken = rules.check(spec, {"tile": groups[0].types[0]}, self.arch, self.compat)
            if broken is not None:
                u = groups[0].uses[0]
                raise self.error(broken[1], u.line, u.col)
        elif name in ("pto.tpop_from_aic", "pto.tpop_from_aiv"):
            int_attr("split")
            int_attr("id")
            if groups and (len(groups) != 1 or len(groups[0].uses) != 2 or groups[0].typed or groups[0].keys):
                raise fail("a run-time valid region is '%t = " + name + "(%valid_row, %valid_col) {split = N} -> T'")
            if groups:
                for u in groups[0].uses:
                    u.type = ScalarType("index")
            if n_res != 1 or len(op.arrow_types) != 1 or not isinstance(op.arrow_types[0], TileBufType):
                raise fail("expected '%t = " + name + " {split = N} -> !pto.tile_buf<...>'")
        elif name in ("pto.tfree_from_aic", "pto.tfree_from_aiv"):
            int_attr("split")
            int_attr("id")
            if groups or n_res:
                raise fail("expected '" + name + " {split = N}' with no operands or results")


def float_literal(value: float, cxx_type: str) -> str:
    """A C++ literal for a float constant of the given C++ type."""
    if math.isnan(value):
        text = '__builtin_nanf("")'
    elif math.isinf(value):
        text = "__builtin_inff()" if value > 0 else "-__builtin_inff()"
    else:
        text = repr(float(value))
        if "e" not in text and "." not in text:
            text += ".0"
        text += "f" if cxx_type != "double" else ""
        if cxx_type == "double":
            return text
    if cxx_type in ("float", "double"):
        return text
    return f"{cxx_type}({text})"
