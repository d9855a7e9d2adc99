"""The package's layering, checked from source: no import circle, and no stage imports a stage
above its floor.

Every module of ``ptokit/`` is parsed with ``ast``; every ``import`` counts, at module level and
inside functions alike (a lazy import is still a dependency).  An edge goes to the module an
import names (``from ..runtime import build`` -> ``ptokit.runtime.build``; ``from ..errors import
UserError`` -> ``ptokit.errors``); the parent packages Python loads on the way are not edges.
The rules are the table in docs/contracts.md ("Layering"), written here as an allow-list per layer.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "ptokit"

# Every layer (the first name under ptokit/; "ptokit" is the package's own __init__) and the layers
# it may import besides itself: an allow-list, so a new layer or a new edge is refused until this
# table (and docs/contracts.md) says otherwise.  Written in pipeline order.
_FLOOR = {"errors", "targets", "locks", "artifacts"}
_EVERYTHING = {"errors", "targets", "locks", "artifacts", "pto", "ir", "language", "passes", "codegen", "launch",
               "backend", "runtime", "distributed", "compiled", "distributed_compiled", "toolchain",
               "distributed_build", "harness", "jit", "cli", "pypto", "pypto_core", "ptokit"}
_COMPILER = _FLOOR | {"pto", "ir", "language", "passes", "codegen", "launch", "backend"}
_RUNNERS = _FLOOR | {"pto", "ir", "launch", "runtime", "distributed", "compiled", "distributed_compiled"}
ALLOWED = {
    "errors":    set(),
    "targets":   {"errors"},
    "locks":     {"errors"},
    "artifacts": {"errors", "targets", "locks"},
    "pto":       {"errors", "targets"},                         # the .pto dialect package
    "ir":        {"errors", "targets", "pto"},
    "language":  {"errors", "targets", "pto", "ir"},            # the DSL front end builds IR, nothing later
    "passes":    _FLOOR | {"pto", "ir"},
    "codegen":   _FLOOR | {"pto", "ir", "passes"},
    "launch":    set(_FLOOR),                                   # the ELF gate: facts only
    "backend":   _FLOOR | {"pto", "ir", "passes", "codegen", "launch"},
    "pypto_core": _FLOOR | {"pto", "ir", "passes", "backend"},  # pypto's core names: dtype, core kinds, pass enums
    "runtime":   _FLOOR | {"pto", "ir", "launch"},              # builds and simulates trees, compiles nothing
    "distributed": _FLOOR | {"runtime"},                        # runs distributed trees (docs/distributed.md)
    "compiled":  _FLOOR | {"pto", "ir", "launch", "runtime"},
    "distributed_compiled": _FLOOR | {"pto", "ir", "launch", "runtime", "distributed", "compiled"},
    "toolchain": _COMPILER | {"runtime", "compiled"},           # the pipeline driver
    "distributed_build": _COMPILER | _RUNNERS | {"toolchain"},  # a host function: the toolchain per chip
    "harness":   _COMPILER | _RUNNERS | {"toolchain", "distributed_build"},  # pypto.runtime's compile-and-run
    "jit":       _EVERYTHING - {"cli", "pypto"},
    "cli":       set(_EVERYTHING),
    "ptokit":    set(_EVERYTHING),
    # pypto's names for ptokit's objects (``ptokit pypto``): the top, beside the command line
    "pypto":     set(_EVERYTHING),
}

# Edges that break ALLOWED today, each with why.  The floor check leaves them out; each is also a
# strict xfail (test_known_edge_is_gone) that fails once the edge is gone, so the list cannot rot.
# All are names pypto programs spell in a lower package, re-exported by that package's module-level
# __getattr__ on first use (never at import time, so they create no import circle and no load-time
# dependency); test_compat_reexports_are_lazy checks that.
KNOWN_EDGES = {
    ("ptokit.language", "ptokit.jit"): "pl.jit (pypto.language.jit) is re-exported by ptokit.language",
    ("ptokit.ir", "ptokit"): "ptokit.ir.compile (pypto.ir.compile) is ptokit.compile",
    ("ptokit.runtime", "ptokit.harness"): "ptokit.runtime.run / compile_program (pypto.runtime's) compile first",
    # pypto's module paths for classes of the stages that run trees, below those stages
    ("ptokit.ir.compiled_program", "ptokit.compiled"): "pypto.ir.compiled_program.CompiledProgram",
    ("ptokit.ir.distributed_compiled_program", "ptokit.distributed_compiled"):
        "pypto.ir.distributed_compiled_program.DistributedCompiledProgram",
    ("ptokit.runtime.distributed_runner", "ptokit.distributed_compiled"):
        "pypto.runtime.distributed_runner's DistributedWorker / execute_distributed_compiled",
    ("ptokit.backend.compiled", "ptokit.compiled"):
        "CompiledProgram's earlier home (before it moved above the backend), still imported from there",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict:
    return {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _imports(name: str, path: Path, modules) -> set:
    """The ptokit modules ``name`` imports anywhere in its source."""
    is_pkg = path.name == "__init__.py"
    out = set()

    def target(dotted: str):
        # the longest prefix that is one of our modules (import a.b.c names a.b.c, or a.b if c is
        # an attribute)
        parts = dotted.split(".")
        while parts and ".".join(parts) not in modules:
            parts.pop()
        return ".".join(parts) if parts else None

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = name.split(".") if is_pkg else name.split(".")[:-1]
                pkg = pkg[:len(pkg) - (node.level - 1)]
                base = ".".join(pkg + ([node.module] if node.module else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for n in names:
            t = target(n) if n.split(".")[0] == "ptokit" else None
            if t is not None and t != name:
                out.add(t)
    return out


def _graph() -> dict:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


GRAPH = _graph()


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "ptokit"


def _cycle(graph):
    """One import circle as a list of modules, or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    color = {m: WHITE for m in graph}
    stack = []

    def visit(m):
        color[m] = GREY
        stack.append(m)
        for n in sorted(graph[m]):
            if color.get(n) == GREY:
                return stack[stack.index(n):] + [n]
            if color.get(n) == WHITE:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        color[m] = BLACK
        return None

    for m in sorted(graph):
        if color[m] == WHITE:
            found = visit(m)
            if found:
                return found
    return None


def _without_known(graph):
    return {m: {n for n in deps if (m, n) not in KNOWN_EDGES} for m, deps in graph.items()}


def test_graph_sees_every_kind_of_import():
    # sanity of the parser itself: a relative from-import of a module, of a name, and a
    # function-level import all produce edges
    assert "ptokit.errors" in GRAPH["ptokit.targets"] or "ptokit.errors" in GRAPH["ptokit.locks"]
    assert "ptokit.runtime.records" in GRAPH["ptokit.runtime.trace"]
    assert len(GRAPH) > 60


def test_no_import_cycle():
    cycle = _cycle(_without_known(GRAPH))
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def violations(graph, allowed=None) -> list:
    """Every edge of ``graph`` (module -> imported modules) that leaves its layer's allow-list, as
    "a imports b" lines; a module of a layer with no row is a violation of its own."""
    allowed = ALLOWED if allowed is None else allowed
    bad = []
    for m, deps in sorted(graph.items()):
        layer = _layer(m)
        if layer not in allowed:
            bad.append(f"{m} is in layer {layer!r}, which has no row in the layering table")
            continue
        for d in sorted(deps):
            other = _layer(d)
            if other != layer and other not in allowed[layer]:
                bad.append(f"{m} imports {d} ({layer} may import only {', '.join(sorted(allowed[layer])) or 'nothing'})")
    return bad


def test_every_layer_has_a_row():
    layers = {_layer(m) for m in GRAPH}
    unknown = layers - set(ALLOWED)
    assert not unknown, f"modules outside the layering table: {sorted(unknown)} (add them to ALLOWED)"
    assert set(ALLOWED) == _EVERYTHING
    for layer, names in ALLOWED.items():
        assert names <= _EVERYTHING, (layer, names - _EVERYTHING)


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_floor_rules(layer):
    graph = {m: deps for m, deps in _without_known(GRAPH).items() if _layer(m) == layer}
    bad = violations(graph)
    assert not bad, f"{layer} breaks its floor:\n  " + "\n  ".join(bad)


# The checker itself can fail: synthetic edges it must refuse, and the ones it must let through.
@pytest.mark.parametrize("edge", [
    ("ptokit.codegen.pto", "ptokit.launch.elf_meta"),       # codegen never reaches the ELF gate
    ("ptokit.codegen.pto", "ptokit.harness"),
    ("ptokit.passes.inline", "ptokit.language.parser"),      # a pass never calls the front end
    ("ptokit.language.parser", "ptokit.passes.manager"),     # the front end lowers nothing
    ("ptokit.runtime.build", "ptokit.backend.generate"),
    ("ptokit.launch.elf_meta", "ptokit.runtime.build"),
    ("ptokit.ir.nodes", "ptokit.language.types"),
    ("ptokit.errors", "ptokit.targets"),
    ("ptokit.toolchain", "ptokit.jit.function"),
    ("ptokit.jit.function", "ptokit.cli.compile"),
    ("ptokit.newstage.x", "ptokit.errors"),                  # a layer with no row
])
def test_checker_refuses_a_forbidden_edge(edge):
    a, b = edge
    bad = violations({a: {b}})
    assert len(bad) == 1 and a in bad[0], bad


@pytest.mark.parametrize("edge", [
    ("ptokit.backend.generate", "ptokit.launch.simt_anchor"),
    ("ptokit.codegen.pto", "ptokit.ir.nodes"),
    ("ptokit.passes.inline", "ptokit.passes.ssa"),
    ("ptokit.cli.compile", "ptokit.jit.function"),
])
def test_checker_allows_a_permitted_edge(edge):
    a, b = edge
    assert violations({a: {b}}) == []


def test_checker_refuses_a_circle():
    assert _cycle({"ptokit.ir.a": {"ptokit.ir.b"}, "ptokit.ir.b": {"ptokit.ir.a"}}) is not None


@pytest.mark.xfail(strict=True, reason="a known exemption: fails (as expected) while the edge exists")
@pytest.mark.parametrize("edge", sorted(KNOWN_EDGES), ids=lambda e: f"{e[0]}->{e[1]}")
def test_known_edge_is_gone(edge):
    importer, imported = edge
    # once this passes, the exemption is stale: remove it from KNOWN_EDGES (and docs/contracts.md)
    assert imported not in GRAPH.get(importer, set()), KNOWN_EDGES[edge]
    assert not violations({importer: {imported}}), "the edge is allowed now; drop the exemption"


def test_known_lists_name_existing_modules():
    # an entry whose module was removed or renamed would otherwise pass for the wrong reason
    names = {m for edge in KNOWN_EDGES for m in edge}
    assert not names - set(GRAPH), sorted(names - set(GRAPH))


@pytest.mark.parametrize("edge", sorted(KNOWN_EDGES), ids=lambda e: f"{e[0]}->{e[1]}")
def test_compat_reexports_are_lazy(edge):
    importer, imported = edge
    path = _MODULES[importer]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    getattr_fn = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "__getattr__"]
    assert getattr_fn, f"{importer} must re-export through a module-level __getattr__ ({KNOWN_EDGES[edge]})"
    inside = {id(n) for n in ast.walk(getattr_fn[0])}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in inside:
            sub = {imported} & _imports_of_node(importer, path, node)
            assert not sub, f"{importer} imports {imported} outside __getattr__ (line {node.lineno})"


def _imports_of_node(name, path, node) -> set:
    """The dotted module names one import statement of module ``name`` names."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    if not node.level:
        return {node.module}
    pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    pkg = pkg[:len(pkg) - (node.level - 1)]
    return {".".join(pkg + ([node.module] if node.module else []))}


# ------------------------------------------------------------------ function-level imports

def _unexplained_function_level_imports(path: Path) -> list:
    """Imports inside a function with no comment saying why: on the import line itself, or above
    it in the same function with at most two other statements between (imports do not count, so
    one comment covers a group of them)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    bad = []

    def explained(lineno: int, func_line: int) -> bool:
        if "#" in lines[lineno - 1]:
            return True
        other = 0
        for i in range(lineno - 2, func_line - 1, -1):
            text = lines[i].strip()
            if text.startswith("#"):
                return True
            if text.startswith(("import ", "from ")):    # one comment may cover a group of imports
                if "#" in text:
                    return True
                continue
            other += 1
            if other == 3:
                return False
        return False

    class Visitor(ast.NodeVisitor):
        funcs: list = []

        def visit_FunctionDef(self, node):
            self.funcs.append(node.lineno)
            self.generic_visit(node)
            self.funcs.pop()

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Import(self, node):
            if self.funcs and not explained(node.lineno, self.funcs[-1]):
                bad.append(f"{path.name}:{node.lineno}: {lines[node.lineno - 1].strip()}")

        visit_ImportFrom = visit_Import

    Visitor().visit(ast.parse("\n".join(lines), str(path)))
    return bad


_MODULES = _modules()


@pytest.mark.parametrize("module", sorted(_MODULES))
def test_function_level_imports_say_why(module):
    bad = _unexplained_function_level_imports(_MODULES[module])
    assert not bad, ("an import inside a function either moves to the top of the module or says why it is "
                     "lazy (a comment, by convention `# lazy: ...`):\n  " + "\n  ".join(bad))
