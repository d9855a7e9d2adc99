"""``with pl.at(...)`` and ``with pl.spmd(...)``: their arguments, read the same way by every
front end (program orchestration, ``@pl.jit`` outlining, ``pl.spmd_submit``)."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import List, Optional

from ..ir import nodes as N
from ..ir.types import ScalarType, TupleType
from .binder import Given, bind_call, parameter
from .source import eval_static
from .types import CrossCoreSlot, Level, ScopeMode, SplitMode, SplitOptimization, cross_core_slots

AT_KEYWORDS = ("level", "name_hint", "deps", "dumps", "no_dep_args", "optimizations", "allow_early_resolve")
SPMD_KEYWORDS = ("core_num", "sync_start", "name_hint", "deps", "allow_early_resolve", "predicate", "optimizations")
# their signatures for the binder: the first parameter positional, the others keyword-only
AT_PARAMS = [parameter("level", None)] + [parameter(k, None, keyword_only=True) for k in AT_KEYWORDS[1:]]
SPMD_PARAMS = [parameter("core_num")] + [parameter(k, None, keyword_only=True) for k in SPMD_KEYWORDS[1:]]
INCORE_PARAMS = [parameter("split", None), parameter("name_hint", None, keyword_only=True)]


def _written(bound: dict) -> dict:
    """The arguments a call wrote (its defaults are the spec's)."""
    return {k: v for k, v in bound.items() if not isinstance(v, Given)}


@dataclass
class SpmdSpec:
    """What a ``pl.spmd(...)`` call says."""

    block_num: object
    sync_start: bool = False
    name_hint: Optional[str] = None
    deps: List[N.Expr] = field(default_factory=list)
    name: Optional[str] = None
    call: Optional[ast.Call] = None
    predicate: Optional[N.Expr] = None
    deps_loc: object = None
    split: int = 0                      # optimizations=[pl.split(mode)]
    slot_num: int = 0                   # optimizations=[pl.cross_core_slot(slot_num=N)]

    def at(self) -> "AtSpec":
        return AtSpec(name_hint=self.name_hint, deps=list(self.deps), name=self.name, call=self.call,
                      predicate=self.predicate, deps_loc=self.deps_loc, split=self.split, slot_num=self.slot_num)

    def scope_attrs(self) -> dict:
        attrs = {"block_num": self.block_num}
        if self.sync_start:
            attrs["sync_start"] = True
        return attrs


@dataclass
class AtSpec:
    """What a ``pl.at(...)`` call says."""

    level: object = Level.CORE_GROUP
    name_hint: Optional[str] = None
    deps: List[N.Expr] = field(default_factory=list)   # task ids and TASK_ID arrays (language/tasks.py)
    name: Optional[str] = None          # the `as` name binding the task id
    call: Optional[ast.Call] = None
    dumps: List[tuple] = field(default_factory=list)    # (tensor name, node): dumps=
    no_dep: List[tuple] = field(default_factory=list)   # (tensor name, node): no_dep_args=
    predicate: Optional[N.Expr] = None                  # predicate= (pl.submit, pl.spmd)
    deps_loc: object = None                             # where deps= is written
    split: int = 0                                      # optimizations=[pl.split(mode)]: the kernel's split
    slot_num: int = 0                                   # optimizations=[pl.cross_core_slot(slot_num=N)]

    def scope_attrs(self) -> dict:
        attrs = {}
        if self.deps:
            attrs["deps"] = N.ListExpr(list(self.deps), type=TupleType(tuple(d.type for d in self.deps)))
        if self.predicate is not None:
            attrs["predicate"] = self.predicate
        return attrs


class ScopeMixin:
    """Mixin of FunctionParser (uses ``err``, ``src``, ``g``, ``expr``)."""

    def deps_list(self, node) -> List[N.Expr]:
        return list(self.deps_value(node).items)

    def parse_at(self, call: ast.Call, as_target) -> AtSpec:
        if getattr(self._resolve(call.func), "__pto_incore__", False):
            return self.parse_incore(call, as_target)
        spec = AtSpec(call=call)
        bound = _written(bind_call("pl.at", AT_PARAMS, call, self.err))
        for key, node in bound.items():
            if key == "deps":
                spec.deps, spec.deps_loc = self.deps_list(node), self.loc(node)
            elif key == "dumps":
                spec.dumps = self.tensor_list(node, "dumps")
            elif key == "no_dep_args":
                spec.no_dep = self.tensor_list(node, "no_dep_args")
            elif key == "optimizations":
                spec.split = self.parse_optimizations(node)
                spec.slot_num = cross_core_slots(eval_static(node, self.src, self.g, "optimizations"))
            elif key == "allow_early_resolve":
                self._static_bool(node, "allow_early_resolve")   # a scheduling hint, as on pl.spmd / pl.submit
            elif key == "level":
                spec.level = eval_static(node, self.src, self.g, "level")
            elif key == "name_hint":
                spec.name_hint = self._name_hint(node, empty_ok=False)
        if spec.level != Level.CORE_GROUP:
            raise self.err(f"pl.at(level={spec.level!r}) is not supported yet; use level=pl.Level.CORE_GROUP", call)
        return self._bind_as(spec, as_target)

    def _name_hint(self, node, empty_ok: bool = True) -> Optional[str]:
        """A ``name_hint=`` value: an identifier string (``""``, pypto's default, is no hint where
        ``empty_ok``)."""
        hint = eval_static(node, self.src, self.g, "name_hint")
        if not isinstance(hint, str) or not (hint.isidentifier() or (empty_ok and hint == "")):
            raise self.err(f"name_hint must be an identifier string, got {hint!r}", node)
        return hint or None

    def _bind_as(self, spec, as_target):
        """``with ... as tid``: the name that binds the block's task id (an AtSpec or SpmdSpec)."""
        if as_target is not None:
            if not isinstance(as_target, ast.Name):
                raise self.err("`as` needs a simple name", as_target)
            spec.name = as_target.id
        return spec

    def parse_spmd(self, call: ast.Call, as_target=None) -> "SpmdSpec":
        """``pl.spmd(core_num, *, sync_start=False, name_hint="", deps=None, allow_early_resolve=False)``:
        the block count (an integer scalar expression, a runtime one too) and the task keywords."""
        kw = _written(bind_call("pl.spmd", SPMD_PARAMS, call, self.err))
        node = kw["core_num"]
        n = self.expr(node)
        if not isinstance(n.type, ScalarType) or n.type.dtype.is_float:
            raise self.err(f"the block count of pl.spmd must be an integer, but got {n.type}", node)
        spec = SpmdSpec(n, call=call)
        if "sync_start" in kw:
            spec.sync_start = bool(self._static_bool(kw["sync_start"], "sync_start"))
        if "optimizations" in kw:
            spec.split = self.parse_optimizations(kw["optimizations"])
            spec.slot_num = cross_core_slots(eval_static(kw["optimizations"], self.src, self.g, "optimizations"))
        if "allow_early_resolve" in kw:
            self._static_bool(kw["allow_early_resolve"], "allow_early_resolve")   # a scheduling hint: no effect
        if "name_hint" in kw:
            spec.name_hint = self._name_hint(kw["name_hint"])
        if "deps" in kw:
            if as_target is None:
                raise self.err("pl.spmd(deps=...) is the `with pl.spmd(n, deps=[...]) as tid:` form", kw["deps"])
            spec.deps, spec.deps_loc = self.deps_list(kw["deps"]), self.loc(kw["deps"])
        if "predicate" in kw:
            spec.predicate = self.predicate_value(kw["predicate"])
        return self._bind_as(spec, as_target)

    def parse_incore(self, call: ast.Call, as_target) -> AtSpec:
        """``pl.incore(split=pl.SplitMode.NONE, *, name_hint="")``: pypto's shorthand for a
        ``pl.at(level=pl.Level.CORE_GROUP, name_hint=..., optimizations=[pl.split(split)])`` block."""
        spec = AtSpec(call=call)
        kw = _written(bind_call("pl.incore", INCORE_PARAMS, call, self.err))
        node = kw.get("split")
        if node is not None:
            mode = eval_static(node, self.src, self.g, "split")
            if not isinstance(mode, SplitMode):
                raise self.err(f"pl.incore's split takes a pl.SplitMode (NONE, UP_DOWN, LEFT_RIGHT), got {mode!r}",
                               node)
            spec.split = int(mode)
        if "name_hint" in kw:
            spec.name_hint = self._name_hint(kw["name_hint"])
        return self._bind_as(spec, as_target)

    def parse_optimizations(self, node) -> int:
        """``optimizations=[pl.split(mode)]``: the split code of the outlined kernel (0 without one)."""
        value = eval_static(node, self.src, self.g, "optimizations")
        if not isinstance(value, (list, tuple)):
            raise self.err(f"optimizations= takes a list such as [pl.split(pl.SplitMode.UP_DOWN)], got {value!r}", node)
        split = 0
        for item in value:
            if isinstance(item, CrossCoreSlot):
                continue               # the ring depth (cross_core_slots below)
            if not isinstance(item, SplitOptimization):
                raise self.err(f"unknown optimization {item!r}; the known ones are pl.split(mode) and "
                               f"pl.cross_core_slot(slot_num=N)", node)
            if split:
                raise self.err("optimizations= names pl.split(...) twice", node)
            split = int(item.mode)
        return split

    def _static_bool(self, node, what):
        v = eval_static(node, self.src, self.g, what)
        if not isinstance(v, bool):
            raise self.err(f"{what}= takes True or False, got {v!r}", node)
        return v

    def parse_scope_mode(self, call: ast.Call, marker: str) -> str:
        """``pl.scope(mode=pl.ScopeMode.AUTO)`` / ``pl.manual_scope()``: "auto" or "manual"."""
        if marker == "manual_scope":
            if call.args or call.keywords:
                raise self.err("pl.manual_scope() takes no arguments", call)
            return "manual"
        kw = {k.arg: k.value for k in call.keywords}
        if set(kw) - {"mode"} or len(call.args) > 1 or (call.args and kw):
            raise self.err("pl.scope takes mode=pl.ScopeMode.AUTO or pl.ScopeMode.MANUAL", call)
        node = call.args[0] if call.args else kw.get("mode")
        if node is None:
            return "auto"
        mode = eval_static(node, self.src, self.g, "mode")
        if mode not in (ScopeMode.AUTO, ScopeMode.MANUAL):
            raise self.err(f"pl.scope(mode=...) takes pl.ScopeMode.AUTO or pl.ScopeMode.MANUAL, got {mode!r}", node)
        return "manual" if mode is ScopeMode.MANUAL else "auto"
