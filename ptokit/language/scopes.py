"""``with pl.at(...)`` and ``with pl.spmd(...)``: their arguments, read the same way by every
front end (program orchestration, ``@pl.jit`` outlining, ``pl.spmd_submit``)."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import List, Optional

from ..ir.types import ScalarType
from .source import eval_static
from .types import Level, ScopeMode

AT_KEYWORDS = ("level", "name_hint", "deps")
SPMD_KEYWORDS = ("core_num", "sync_start", "name_hint", "deps", "allow_early_resolve")


@dataclass
class SpmdSpec:
    """What a ``pl.spmd(...)`` call says."""

    block_num: object
    sync_start: bool = False
    name_hint: Optional[str] = None
    deps: List[str] = field(default_factory=list)
    name: Optional[str] = None
    call: Optional[ast.Call] = None

    def at(self) -> "AtSpec":
        return AtSpec(name_hint=self.name_hint, deps=list(self.deps), name=self.name, call=self.call)

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
    deps: List[str] = field(default_factory=list)
    name: Optional[str] = None          # the `as` name binding the task id
    call: Optional[ast.Call] = None

    def scope_attrs(self) -> dict:
        attrs = {}
        if self.deps:
            attrs["deps"] = list(self.deps)
        if self.name is not None:
            attrs["name"] = self.name
        return attrs


class ScopeMixin:
    """Mixin of FunctionParser (uses ``err``, ``src``, ``g``, ``expr``)."""

    def deps_list(self, node) -> List[str]:
        if not isinstance(node, (ast.List, ast.Tuple)) or not all(isinstance(d, ast.Name) for d in node.elts):
            raise self.err("deps= takes a list of task names bound with `as`", node)
        return [d.id for d in node.elts]

    def parse_at(self, call: ast.Call, as_target) -> AtSpec:
        spec = AtSpec(call=call)
        if len(call.args) > 1:
            raise self.err("pl.at takes the level, then keywords name_hint= and deps=", call)
        if call.args:
            spec.level = eval_static(call.args[0], self.src, self.g, "level")
        for kw in call.keywords:
            if kw.arg == "deps":
                spec.deps = self.deps_list(kw.value)
            elif kw.arg == "level":
                if call.args:
                    raise self.err("pl.at got the level twice", kw.value)
                spec.level = eval_static(kw.value, self.src, self.g, "level")
            elif kw.arg == "name_hint":
                hint = eval_static(kw.value, self.src, self.g, "name_hint")
                if not isinstance(hint, str) or not hint.isidentifier():
                    raise self.err(f"name_hint must be an identifier string, got {hint!r}", kw.value)
                spec.name_hint = hint
            else:
                raise self.err(f"pl.at has no parameter {kw.arg!r} (parameters: {', '.join(AT_KEYWORDS)})",
                               kw.value if kw.arg is None else kw)
        if spec.level != Level.CORE_GROUP:
            raise self.err(f"pl.at(level={spec.level!r}) is not supported yet; use level=pl.Level.CORE_GROUP", call)
        if as_target is not None:
            if not isinstance(as_target, ast.Name):
                raise self.err("`as` needs a simple name", as_target)
            spec.name = as_target.id
        return spec

    def parse_spmd(self, call: ast.Call, as_target=None) -> "SpmdSpec":
        """``pl.spmd(core_num, *, sync_start=False, name_hint="", deps=None, allow_early_resolve=False)``:
        the block count (an integer scalar expression, a runtime one too) and the task keywords."""
        kw = {k.arg: k.value for k in call.keywords}
        if None in kw:
            raise self.err("pl.spmd does not take **kwargs", call)
        unknown = set(kw) - set(SPMD_KEYWORDS)
        if unknown:
            bad = sorted(unknown)[0]
            why = " (not supported yet)" if bad in ("optimizations", "predicate") else ""
            raise self.err(f"pl.spmd has no parameter {bad!r}{why} (parameters: {', '.join(SPMD_KEYWORDS)})",
                           kw[bad])
        if len(call.args) > 1 or (call.args and "core_num" in kw) or (not call.args and "core_num" not in kw):
            raise self.err("pl.spmd takes the block count: pl.spmd(n) or pl.spmd(core_num=n)", call)
        node = call.args[0] if call.args else kw["core_num"]
        n = self.expr(node)
        if not isinstance(n.type, ScalarType) or n.type.dtype.is_float:
            raise self.err(f"the block count of pl.spmd must be an integer, but got {n.type}", node)
        spec = SpmdSpec(n, call=call)
        if "sync_start" in kw:
            spec.sync_start = bool(self._static_bool(kw["sync_start"], "sync_start"))
        if "allow_early_resolve" in kw:
            self._static_bool(kw["allow_early_resolve"], "allow_early_resolve")   # a scheduling hint: no effect
        if "name_hint" in kw:
            hint = eval_static(kw["name_hint"], self.src, self.g, "name_hint")
            if not isinstance(hint, str) or not (hint == "" or hint.isidentifier()):
                raise self.err(f"name_hint must be an identifier string, got {hint!r}", kw["name_hint"])
            spec.name_hint = hint or None
        if "deps" in kw:
            if as_target is None:
                raise self.err("pl.spmd(deps=...) is the `with pl.spmd(n, deps=[...]) as tid:` form", kw["deps"])
            spec.deps = self.deps_list(kw["deps"])
        if as_target is not None:
            if not isinstance(as_target, ast.Name):
                raise self.err("`as` needs a simple name", as_target)
            spec.name = as_target.id
        return spec

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
