"""Recursive-descent parser: PTO-dialect MLIR text -> ``ast.Module``.

Syntax only (op names come from the dialect table); SSA resolution and type checks are the
built-in assembler's sema.  Every error is an AssemblerError located at the offending token.
"""
from __future__ import annotations

from typing import List, Optional

from ..errors import AssemblerError
from . import dialect, events, prefetch
from .ast import Attr, Block, BlockArg, Clause, Func, Module, Op, ResultDef, Use
from .lexer import (AT, EOF, FLOAT, HASH, IDENT, INT, PERCENT, PUNCT, STRING, TYPE, SourceText, Token, int_value,
                    tokenize)
from .types import SCALARS, ScalarType, TypeSyntaxError, VectorType, parse_dialect_type


def _describe(tok: Token) -> str:
    if tok.kind == EOF:
        return "end of file"
    if tok.kind == PERCENT:
        return f"'%{tok.text}'"
    if tok.kind == AT:
        return f"'@{tok.text}'"
    if tok.kind == STRING:
        return f'"{tok.text}"'
    return f"'{tok.text}'"


class Parser:
    def __init__(self, text: str, filename: str = "<pto>"):
        self.src = SourceText(text, filename)
        self.toks = tokenize(self.src)
        self.pos = 0
        self.type_aliases = {}

    # ------------------------------------------------------------------ helpers
    @property
    def tok(self) -> Token:
        return self.toks[self.pos]

    def peek(self, k: int = 1) -> Token:
        return self.toks[min(self.pos + k, len(self.toks) - 1)]

    def next(self) -> Token:
        t = self.toks[self.pos]
        if t.kind != EOF:
            self.pos += 1
        return t

    def error(self, message: str, tok: Optional[Token] = None) -> AssemblerError:
        tok = tok or self.tok
        if tok.kind == EOF:
            message = f"unexpected end of file: {message}"
        return self.src.error(message, tok.line, tok.col)

    def is_punct(self, p: str, tok: Optional[Token] = None) -> bool:
        tok = tok or self.tok
        return tok.kind == PUNCT and tok.text == p

    def is_ident(self, word: str, tok: Optional[Token] = None) -> bool:
        tok = tok or self.tok
        return tok.kind == IDENT and tok.text == word

    def accept(self, p: str) -> Optional[Token]:
        if self.is_punct(p):
            return self.next()
        return None

    def expect(self, p: str, what: str = "") -> Token:
        if not self.is_punct(p):
            raise self.error(f"expected '{p}'{' ' + what if what else ''}, found {_describe(self.tok)}")
        return self.next()

    def expect_ident(self, word: str) -> Token:
        if not self.is_ident(word):
            raise self.error(f"expected '{word}', found {_describe(self.tok)}")
        return self.next()

    # ------------------------------------------------------------------ module
    def parse_module(self) -> Module:
        funcs: List[Func] = []
        attrs, order = {}, []
        name = ""
        self.skip_aliases()
        if self.is_ident("module"):
            self.next()
            if self.tok.kind == AT:
                name = self.next().text
            if self.is_ident("attributes"):
                self.next()
                attrs, order = self.parse_attr_dict()
            self.expect("{", "to open the module body")
            while not self.is_punct("}"):
                if self.tok.kind == EOF:
                    raise self.error("expected '}' to close the module")
                self.skip_aliases()
                if self.is_punct("}"):
                    break
                funcs.append(self.parse_func())
            self.next()
            self.skip_loc()
            self.skip_aliases()
        else:
            while self.tok.kind != EOF:
                self.skip_aliases()
                if self.tok.kind == EOF:
                    break
                funcs.append(self.parse_func())
            if not funcs:
                # the real assembler refuses an input without a module as well
                raise self.error("expected a module ('module { ... }') or a 'func.func'")
        if self.tok.kind != EOF:
            raise self.error(f"unexpected {_describe(self.tok)} after the module")
        return Module(attrs, order, funcs, name, dict(self.type_aliases))

    def skip_aliases(self) -> None:
        """Top-level ``!alias = type`` and ``#alias = attr`` definitions."""
        while self.tok.kind in (TYPE, HASH) and self.tok.body is None and self.is_punct("=", self.peek()):
            t = self.next()
            self.next()
            if t.kind == TYPE:
                self.type_aliases[t.name] = self.parse_type()
            else:
                self.parse_attr_value()

    def parse_func(self) -> Func:
        if not self.is_ident("func.func"):
            raise self.error(f"expected 'func.func', found {_describe(self.tok)}")
        ftok = self.next()
        vis = ""
        if self.tok.kind == IDENT and self.tok.text in ("private", "public", "nested"):
            vis = self.next().text
        if self.tok.kind != AT:
            raise self.error(f"expected a function name '@name', found {_describe(self.tok)}")
        name = self.next().text
        self.expect("(", "to open the parameter list")
        args: List[BlockArg] = []
        if not self.is_punct(")"):
            while True:
                if self.tok.kind != PERCENT:
                    raise self.error(f"expected a parameter '%name', found {_describe(self.tok)}")
                at = self.next()
                self.expect(":", "after the parameter name")
                ty = self.parse_type()
                if self.is_punct("{"):
                    self.parse_attr_dict()
                self.skip_loc()
                args.append(BlockArg(at.text, ty, at.line, at.col))
                if self.accept(","):
                    continue
                break
        self.expect(")", "to close the parameter list")
        if self.accept("->"):
            if self.accept("("):
                if not self.is_punct(")"):
                    raise self.error("kernel functions must return nothing")
                self.next()
            else:
                raise self.error("kernel functions must return nothing")
        attrs, order = {}, []
        if self.is_ident("attributes"):
            self.next()
            attrs, order = self.parse_attr_dict()
        body = None
        if self.is_punct("{"):
            body = self.parse_region()
        srcloc = self.parse_loc()
        return Func(name, ftok.line, ftok.col, args, attrs, order, body, vis, srcloc)

    # ------------------------------------------------------------------ regions and ops
    def parse_region(self, block_args: bool = False) -> Block:
        """``{ ops }``; with ``block_args`` (the body of scf.while) an optional ``^bb0(%a: T, ...):`` first."""
        self.expect("{")
        block = Block()
        if self.tok.kind == IDENT and self.tok.text.startswith("^"):
            if not block_args:
                raise self.error("explicit blocks (^bb) are not supported")
            self.next()
            self.expect("(", "after the block label")
            while not self.is_punct(")"):
                if self.tok.kind != PERCENT:
                    raise self.error(f"expected a block argument '%name: type', found {_describe(self.tok)}")
                a = self.next()
                self.expect(":", "after the block argument's name")
                block.args.append(BlockArg(a.text, self.parse_type(), a.line, a.col))
                if not self.accept(","):
                    break
            self.expect(")", "after the block arguments")
            self.expect(":", "after the block header")
            if self.tok.kind == IDENT and self.tok.text.startswith("^"):
                raise self.error("a region with more than one block is not supported")
        while not self.is_punct("}"):
            if self.tok.kind == EOF:
                raise self.error("expected '}' to close the region")
            block.ops.append(self.parse_op())
        end = self.next()
        block.end_line, block.end_col = end.line, end.col
        return block

    def parse_op(self) -> Op:
        results: List[ResultDef] = []
        first = self.tok
        if self.tok.kind == PERCENT:
            while True:
                if self.tok.kind != PERCENT:
                    raise self.error(f"expected a result name, found {_describe(self.tok)}")
                rt = self.next()
                if "#" in rt.text:
                    raise self.error("a result name cannot contain '#'", rt)
                count = 1
                if self.accept(":"):
                    if self.tok.kind != INT:
                        raise self.error(f"expected a result count after ':', found {_describe(self.tok)}")
                    count = int_value(self.next().text)
                    if count <= 0:
                        raise self.error("result count must be positive", rt)
                results.append(ResultDef(rt.text, count, rt.line, rt.col))
                if self.accept(","):
                    continue
                break
            self.expect("=", "after the result names")
        if self.tok.kind == STRING:
            return self.parse_generic_form(results, first)
        if self.tok.kind != IDENT:
            raise self.error(f"expected an operation name, found {_describe(self.tok)}")
        ntok = self.next()
        name = ntok.text
        if name not in dialect.KNOWN_OPS:
            raise self.error(f"unknown operation '{name}'", ntok)
        op = Op(name, ntok.line, ntok.col, results)
        if results:
            op.line, op.col = first.line, first.col
        op.extra["name_tok"] = (ntok.line, ntok.col)
        if name == "arith.constant":
            self.parse_constant(op)
        elif name in ("arith.cmpi", "arith.cmpf"):
            pred = self.tok
            if pred.kind != IDENT:
                raise self.error(f"expected a comparison predicate, found {_describe(pred)}")
            preds = dialect.CMPI_PREDS if name == "arith.cmpi" else dialect.CMPF_PREDS
            if pred.text not in preds:
                raise self.error(f"unknown {name} predicate '{pred.text}'", pred)
            self.next()
            op.extra["pred"] = pred.text
            self.expect(",", "after the predicate")
            op.operands = self.parse_operand_list(min_count=2)
            self.parse_opt_attrs(op)
            self.expect(":", "before the operand type")
            op.colon_types = [self.parse_type()]
        elif name in dialect.ARITH_CASTS:
            op.operands = self.parse_operand_list(min_count=1)
            self.parse_opt_attrs(op)
            self.expect(":", "before the source type")
            op.colon_types = [self.parse_type()]
            self.expect_ident("to")
            op.arrow_types = [self.parse_type()]
        elif name.startswith("arith."):
            op.operands = self.parse_operand_list(min_count=1)
            self.parse_opt_attrs(op)
            self.expect(":", "before the operand type")
            op.colon_types = self.parse_type_list()
        elif name == "scf.for":
            self.parse_for(op)
        elif name == "scf.if":
            self.parse_if(op)
        elif name == "scf.while":
            self.parse_while(op)
        elif name == "scf.condition":
            self.expect("(", "after scf.condition")
            op.operands = [self.parse_use()]
            self.expect(")", "after the condition")
            if self.tok.kind == PERCENT:
                op.operands += self.parse_operand_list()
                self.expect(":", "before the types of the values passed on")
                op.colon_types = self.parse_type_list()
        elif dialect.form_of(name) == "event":
            events.parse(self, op)
        elif dialect.form_of(name) == "prefetch":
            prefetch.parse(self, op)
        elif name == "scf.yield" or name in dialect.RETURN_OPS:
            if self.tok.kind == PERCENT:
                op.operands = self.parse_operand_list()
                self.expect(":", "before the yielded types")
                op.colon_types = self.parse_type_list()
        else:
            self.parse_generic(op)
        op.srcloc = self.parse_loc()
        return op

    def parse_generic_form(self, results, first) -> Op:
        """MLIR's generic form of a destination-passing tile op: ``"pto.X"(%ins..., %outs...) {attrs} :
        (types) -> ()``, read into the same ins/outs clauses as the custom form (the table's row says how
        many trailing operands are outs)."""
        ntok = self.next()
        name = ntok.text
        spec = dialect.PTO_OPS.get(name)
        if spec is None or spec.form != "dps":
            raise self.error(f"the generic op form (\"dialect.op\"(...)) is supported for destination-passing "
                             f"pto ops only, not '{name}'", ntok)
        if results:
            raise self.error(f"'{name}' writes its last operand and has no results", first)
        op = Op(name, ntok.line, ntok.col, results)
        op.extra["name_tok"] = (ntok.line, ntok.col)
        op.extra["generic"] = True
        open_tok = self.expect("(", f"after \"{name}\"")
        uses = [] if self.is_punct(")") else self.parse_operand_list()
        self.expect(")", "to close the operand list")
        if self.is_punct("{"):
            op.attr_pos = 0
            attrs, order = self.parse_attr_dict()
            for k in order:
                op.set_attr(k, attrs[k])
        self.expect(":", "before the function type of the generic form")
        types = self.parse_paren_type_list()
        self.expect("->", "in the function type of the generic form")
        if self.parse_paren_type_list():
            raise self.error(f"'{name}' has no results: its generic form ends in '-> ()'")
        if len(types) != len(uses):
            raise self.error(f"'{name}' has {len(uses)} operand(s) but {len(types)} type(s)", open_tok)
        n_out = len(spec.outs)
        if len(uses) < n_out:
            raise self.error(f"'{name}' needs its {n_out} destination operand(s) last", open_tok)
        k = len(uses) - n_out
        op.clauses = [Clause("group", "ins", uses[:k], types=types[:k], typed=True, line=open_tok.line,
                             col=open_tok.col),
                      Clause("group", "outs", uses[k:], types=types[k:], typed=True, line=open_tok.line,
                             col=open_tok.col)]
        op.operands = list(uses)
        op.srcloc = self.parse_loc()
        return op

    def parse_constant(self, op: Op) -> None:
        t = self.tok
        if t.kind in (INT, FLOAT):
            self.next()
            op.extra["literal"] = t.text
        elif t.kind == IDENT and t.text in ("true", "false"):
            self.next()
            op.extra["literal"] = t.text
        elif self.is_ident("dense") and self.is_punct("<", self.peek()):
            # a splat of a vector constant: dense<0> : vector<4xi16>
            self.next()
            self.next()
            v = self.tok
            if v.kind not in (INT, FLOAT):
                raise self.error(f"expected the splat value of dense<...>, found {_describe(v)}")
            self.next()
            self.expect(">", "to close dense<...>")
            op.extra["literal"] = f"dense<{v.text}>"
        else:
            raise self.error(f"expected a constant value, found {_describe(t)}")
        op.extra["lit_tok"] = (t.line, t.col)
        self.parse_opt_attrs(op)
        self.expect(":", "before the constant's type")
        op.colon_types = [self.parse_type()]

    def parse_for(self, op: Op) -> None:
        if self.tok.kind != PERCENT:
            raise self.error(f"expected the induction variable '%name', found {_describe(self.tok)}")
        iv = self.next()
        self.expect("=")
        lo = self.parse_use()
        self.expect_ident("to")
        hi = self.parse_use()
        self.expect_ident("step")
        st = self.parse_use()
        op.operands = [lo, hi, st]
        iter_args = []
        if self.is_ident("iter_args"):
            self.next()
            self.expect("(")
            while True:
                if self.tok.kind != PERCENT:
                    raise self.error(f"expected an iteration argument '%name', found {_describe(self.tok)}")
                a = self.next()
                self.expect("=")
                init = self.parse_use()
                iter_args.append((a, init))
                op.operands.append(init)
                if self.accept(","):
                    continue
                break
            self.expect(")")
        if self.accept("->"):
            op.arrow_types = self.parse_paren_type_list()
        iv_type = None
        if self.accept(":"):
            iv_type = self.parse_type()
        op.extra["iv"] = (iv.text, iv.line, iv.col)
        op.extra["iv_type"] = iv_type
        op.extra["iter_args"] = [(a.text, a.line, a.col) for a, _ in iter_args]
        op.regions = [self.parse_region()]
        self.parse_opt_attrs(op)

    def parse_while(self, op: Op) -> None:
        iter_args = []
        if self.accept("("):
            while True:
                if self.tok.kind != PERCENT:
                    raise self.error(f"expected a loop argument '%name', found {_describe(self.tok)}")
                a = self.next()
                self.expect("=")
                iter_args.append((a, self.parse_use()))
                if self.accept(","):
                    continue
                break
            self.expect(")")
        op.operands = [u for _, u in iter_args]
        self.expect(":", "before the loop's types '(inits) -> (results)'")
        op.colon_types = self.parse_paren_type_list()
        self.expect("->", "between the initial and the result types")
        op.arrow_types = self.parse_paren_type_list()
        op.extra["iter_args"] = [(a.text, a.line, a.col) for a, _ in iter_args]
        op.regions = [self.parse_region()]
        if not self.is_ident("do"):
            raise self.error(f"expected 'do' and the loop body after the condition region, found {_describe(self.tok)}")
        self.next()
        op.regions.append(self.parse_region(block_args=True))
        self.parse_opt_attrs(op)

    def parse_if(self, op: Op) -> None:
        op.operands = [self.parse_use()]
        if self.accept("->"):
            op.arrow_types = self.parse_paren_type_list()
        op.regions = [self.parse_region()]
        if self.is_ident("else"):
            self.next()
            op.regions.append(self.parse_region())
        self.parse_opt_attrs(op)

    def parse_generic(self, op: Op) -> None:
        """Clause-based form shared by all pto.* ops."""
        while True:
            t = self.tok
            if t.kind == PUNCT and t.text == ",":
                self.next()
                continue
            if t.kind == IDENT and "." not in t.text and t.text != "loc" and t.text not in dialect.RETURN_OPS:
                nxt = self.peek()
                if t.text == "outs" and self.is_punct(":", nxt):       # scalar results: outs : f32
                    self.next()
                    self.next()
                    op.clauses.append(Clause("results", "outs", [], types=self.parse_type_list(), typed=True,
                                             line=t.line, col=t.col))
                    continue
                if self.is_punct("(", nxt):
                    self.next()
                    op.clauses.append(self.parse_group(t.text, t))
                    continue
                if self.is_punct("=", nxt):
                    self.next()
                    self.next()
                    if self.is_punct("["):
                        self.next()
                        uses = self.parse_operand_list() if not self.is_punct("]") else []
                        self.expect("]", f"to close '{t.text} = ['")
                        op.clauses.append(Clause("list", t.text, uses, line=t.line, col=t.col))
                    elif self.tok.kind == PERCENT:
                        op.clauses.append(Clause("kw", t.text, [self.parse_use()], line=t.line, col=t.col))
                    else:
                        op.set_attr(t.text, self.parse_attr_value())
                    continue
                raise self.error(f"unexpected '{t.text}' in {op.name}", t)
            if self.is_punct("("):
                op.clauses.append(self.parse_group("", t))
                continue
            if t.kind == PERCENT and not self.starts_op_results():
                use = self.parse_use()
                if self.accept("["):                                   # %ptr[%index]
                    index = self.parse_use()
                    self.expect("]", "to close the element index")
                    op.clauses.append(Clause("indexed", "", [use, index], line=t.line, col=t.col))
                    continue
                op.clauses.append(Clause("operand", "", [use], line=t.line, col=t.col))
                continue
            if self.is_punct("{"):
                if op.attr_pos is None:
                    op.attr_pos = len(op.clauses)
                attrs, order = self.parse_attr_dict()
                for k in order:
                    op.set_attr(k, attrs[k])
                continue
            if self.is_punct(":"):
                self.next()
                op.colon_types = self.parse_type_list()
                if self.accept("->"):
                    op.arrow_types = self.parse_type_list()
                continue
            if self.is_punct("->"):
                self.next()
                op.arrow_types = self.parse_type_list()
                continue
            break
        for c in op.clauses:
            op.operands.extend(c.uses)
            for _, attrs, order, _at in c.attrs:
                for k in order:
                    op.set_attr(k, attrs[k])

    def starts_op_results(self) -> bool:
        """At a '%x' that begins the next op's result list ('%x =', '%x:2 =', '%x, %y =')."""
        k = 1
        while True:
            t = self.peek(k)
            if self.is_punct("=", t):
                return True
            if self.is_punct(":", t) and self.peek(k + 1).kind == INT:
                k += 2
                continue
            if self.is_punct(",", t) and self.peek(k + 1).kind == PERCENT:
                k += 2
                continue
            return False

    def parse_group(self, name: str, at: Token) -> Clause:
        self.expect("(")
        clause = Clause("group", name, line=at.line, col=at.col)
        if self.tok.kind == IDENT and self.is_punct("=", self.peek()):
            # keyword operands, each with its own type: (key = %v : T, key2 = %w : T2)
            clause.typed = True
            while True:
                if self.tok.kind != IDENT or not self.is_punct("=", self.peek()):
                    raise self.error(f"expected 'name = %value : type' in '{name or op_name_hint(at)}(', "
                                     f"found {_describe(self.tok)}")
                key = self.next()
                self.next()
                clause.keys.append(key.text)
                clause.uses.append(self.parse_use())
                self.expect(":", f"before the type of '{key.text}'")
                clause.types.append(self.parse_type())
                if self.accept(","):
                    continue
                break
            self.expect(")", f"to close '{name}('" if name else "to close '('")
            return clause
        if not self.is_punct(")") and not self.is_punct(":"):
            while True:
                clause.uses.append(self.parse_use())
                if self.is_punct(",") and self.is_punct("{", self.peek()):
                    self.next()       # ins(%src, {maskPattern = ...} : T, "row"): the dict after a comma
                if self.is_punct("{"):
                    attrs, order = self.parse_attr_dict()
                    clause.types.append(("attrs", attrs, order, len(clause.uses)))
                if self.accept(","):
                    continue
                break
        # attribute dicts written after an operand (ins(%src {rmode = ...} : T))
        clause.attrs = [x for x in clause.types if isinstance(x, tuple)]
        clause.types = []
        if self.accept(":"):
            clause.typed = True
            clause.types = self.parse_type_list()
            if self.is_punct(",") and self.peek().kind == STRING:
                self.next()
                clause.axis = self.next().text
        self.expect(")", f"to close '{name}('" if name else "to close '('")
        return clause

    # ------------------------------------------------------------------ operands
    def parse_use(self) -> Use:
        t = self.tok
        if t.kind != PERCENT:
            raise self.error(f"expected an SSA operand '%name', found {_describe(t)}")
        self.next()
        return Use(t.text, t.line, t.col)

    def parse_operand_list(self, min_count: int = 0) -> List[Use]:
        uses = [self.parse_use()]
        while self.is_punct(",") and self.peek().kind == PERCENT:
            self.next()
            uses.append(self.parse_use())
        if len(uses) < min_count:
            if self.is_punct(","):
                self.next()
            raise self.error(f"expected {min_count} operands, found {len(uses)}; next is {_describe(self.tok)}")
        return uses

    # ------------------------------------------------------------------ types
    def parse_type(self):
        t = self.tok
        if t.kind == IDENT and t.text in SCALARS:
            self.next()
            return ScalarType(t.text)
        if self.is_ident("vector") and self.is_punct("<", self.peek()):
            return self.parse_vector_type()
        if t.kind == TYPE:
            self.next()
            if t.body is None and t.name in self.type_aliases:
                return self.type_aliases[t.name]
            if t.body is None and not t.name.startswith("pto."):
                raise self.error(f"unknown type alias '!{t.name}'", t)
            try:
                return parse_dialect_type(t.name, t.body)
            except TypeSyntaxError as exc:
                line, col = t.line, t.col
                if t.body is None and self.tok.kind == EOF:
                    exc.message = "unexpected end of file: " + exc.message
                if t.body is not None:
                    before = t.body[:exc.offset]
                    nl = before.count("\n")
                    line = t.body_line + nl
                    col = (t.body_col + len(before)) if nl == 0 else len(before) - before.rfind("\n")
                raise self.src.error(exc.message, line, col)
        if t.kind == IDENT and (t.text.startswith("i") or t.text.startswith("f") or t.text.startswith("ui")):
            raise self.error(f"unknown type '{t.text}'", t)
        raise self.error(f"expected a type, found {_describe(t)}")

    def parse_vector_type(self) -> VectorType:
        """``vector<4xi16>``: the lexer sees 4, xi16 (a dimension and 'x' + the element type)."""
        at = self.next()
        self.next()
        shape = []
        while self.tok.kind == INT:
            shape.append(int_value(self.next().text))
            if not (self.tok.kind == IDENT and self.tok.text.startswith("x")):
                raise self.error(f"expected 'x' in vector<...>, found {_describe(self.tok)}")
            rest = self.next().text[1:]
            if rest:
                if rest not in SCALARS:
                    raise self.error(f"unknown vector element type {rest!r}", at)
                self.expect(">", "to close vector<...>")
                if not shape or any(d <= 0 for d in shape):
                    raise self.error("vector dimensions must be positive", at)
                return VectorType(tuple(shape), rest)
        raise self.error(f"expected a vector type like vector<4xi16>, found {_describe(self.tok)}", at)

    def parse_type_list(self) -> list:
        types = [self.parse_type()]
        while self.is_punct(","):
            # stop before ', key = ...' style continuations (and before a trailing "row" string)
            nxt = self.peek()
            if not (nxt.kind == TYPE or (nxt.kind == IDENT and (nxt.text in SCALARS or nxt.text == "vector"))):
                break
            self.next()
            types.append(self.parse_type())
        return types

    def parse_paren_type_list(self) -> list:
        if self.accept("("):
            if self.accept(")"):
                return []
            types = self.parse_type_list()
            self.expect(")", "to close the type list")
            return types
        return [self.parse_type()]

    # ------------------------------------------------------------------ attributes and locations
    def parse_attr_dict(self):
        self.expect("{")
        attrs, order = {}, []
        if self.accept("}"):
            return attrs, order
        while True:
            k = self.tok
            if k.kind == STRING:
                key = k.text
            elif k.kind == IDENT:
                key = k.text
            else:
                raise self.error(f"expected an attribute name, found {_describe(k)}")
            self.next()
            if self.accept("="):
                val = self.parse_attr_value()
            else:
                val = Attr("unit", True)
            if key not in attrs:
                order.append(key)
            attrs[key] = val
            if self.accept(","):
                continue
            break
        self.expect("}", "to close the attribute dictionary")
        return attrs, order

    def parse_attr_value(self) -> Attr:
        t = self.tok
        if t.kind == STRING:
            self.next()
            return Attr(f'"{t.text}"', t.text)
        if t.kind in (INT, FLOAT):
            self.next()
            value = int_value(t.text) if t.kind == INT else float(t.text)
            text = t.text
            if self.is_punct(":"):
                self.next()
                ty = self.parse_type()
                text += f" : {ty}"
            return Attr(text, value)
        if t.kind == IDENT and t.text in ("true", "false", "unit"):
            self.next()
            return Attr(t.text, t.text != "false")
        if t.kind == AT:
            self.next()
            return Attr(f"@{t.text}", ("@", t.text))
        if t.kind == HASH:
            self.next()
            body = None if t.body is None else " ".join(t.body.split())
            return Attr(t.text if t.body is None else f"#{t.name}<{body}>", (t.name, body))
        if t.kind == TYPE or (t.kind == IDENT and t.text in SCALARS):
            ty = self.parse_type()
            return Attr(str(ty), ty)
        if self.is_punct("["):
            self.next()
            items = []
            if not self.is_punct("]"):
                while True:
                    items.append(self.parse_attr_value())
                    if self.accept(","):
                        continue
                    break
            self.expect("]", "to close the array attribute")
            return Attr("[" + ", ".join(a.text for a in items) + "]", [a.value for a in items])
        if self.is_punct("{"):
            attrs, order = self.parse_attr_dict()
            return Attr("{" + ", ".join(f"{k} = {attrs[k].text}" for k in order) + "}", attrs)
        if t.kind == IDENT and t.text == "loc" and self.is_punct("(", self.peek()):
            loc = self.parse_loc()
            return Attr("loc(...)", loc)
        raise self.error(f"expected an attribute value, found {_describe(t)}")

    def parse_opt_attrs(self, op: Op) -> None:
        if self.is_punct("{"):
            attrs, order = self.parse_attr_dict()
            for k in order:
                op.set_attr(k, attrs[k])

    def skip_loc(self) -> None:
        self.parse_loc()

    def parse_loc(self):
        """``loc("file.py":12:5)`` -> ("file.py", 12, 5); other loc forms are skipped."""
        if not (self.is_ident("loc") and self.is_punct("(", self.peek())):
            return None
        self.next()
        open_tok = self.next()
        result = None
        if self.tok.kind == STRING and self.is_punct(":", self.peek()) and self.peek(2).kind == INT:
            f = self.next().text
            self.next()
            line = int_value(self.next().text)
            col = 0
            if self.is_punct(":") and self.peek().kind == INT:
                self.next()
                col = int_value(self.next().text)
            result = (f, line, col)
        depth = 1
        while depth:
            t = self.tok
            if t.kind == EOF:
                raise self.error("unterminated loc(...)", open_tok)
            if self.is_punct("("):
                depth += 1
            elif self.is_punct(")"):
                depth -= 1
            self.next()
        return result


def parse(text: str, filename: str = "<pto>") -> Module:
    """Parse PTO assembly text into a Module (syntax only)."""
    p = Parser(text, filename)
    mod = p.parse_module()
    mod.source = p.src  # type: ignore[attr-defined]
    return mod


def op_name_hint(tok) -> str:
    return getattr(tok, "text", "")
