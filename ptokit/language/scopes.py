"""``with pl.at(...)`` and ``with pl.spmd(...)``: their arguments, read the same way by every
front end (program orchestration, ``@pl.jit`` outlining, ``pl.spmd_submit``)."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import List, Optional

from ..ir.types import ScalarType
from .source import eval_static
from .types import Level

AT_KEYWORDS = ("level", "name_hint", "deps")


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

    def parse_spmd(self, call: ast.Call):
        """The block count of ``pl.spmd(n)``: an integer scalar expression."""
        if len(call.args) != 1 or call.keywords:
            raise self.err("pl.spmd takes the block count", call)
        n = self.expr(call.args[0])
        if not isinstance(n.type, ScalarType) or n.type.dtype.is_float:
            raise self.err(f"the block count of pl.spmd must be an integer, but got {n.type}", call.args[0])
        return n
