"""The compile cache of ``ptokit.compile``: a ``@pl.program`` whose source did not change is not
compiled again, not even in a new process.

``ptokit.compile(spec, ...)`` computes a key from what decides the artifact tree (below); on a
hit it writes the cached tree into ``output_dir`` and returns its ``CompiledProgram`` without
importing the front end, the passes, the code generators or the assembler. On a miss it compiles
as always (``distributed_build.compile_entry``) into a new entry and publishes it (the jit cache's
entries: ``jit/cache.py``). Entries live in ``<cache root>/jit/program.<module.qualname>-<hash>/``,
so ``ptokit cache stat|clear`` cover them.

Key components (``program_key``):

* ``program``: ``module.qualname`` of the class, and ``strict_ssa``;
* ``program_source``: sha256 of the class's source lines and of every module-level
  ``@pl.function`` it reaches by bare name (transitively), each with its file and first line
  (``files``: a program moved in its file or to another file is a new entry, since its tree
  records source locations);
* ``constants``: every name the class source (and those functions) reads from its defining scope
  (module globals, then the closure variables of its methods, as the front end sees them),
  by value: numbers, strings, enums, dimensions and containers of those, ptokit objects by their
  type and ``repr``, builtins and C functions of other modules by name. A name bound to anything
  else (a Python function, an array, an object) makes the program **uncacheable**: it is then
  compiled as always, every time, and ``PTOKIT_EXPLAIN_CACHE=1`` says which name;
* ``platform``, ``runtime``, ``ptoas_compat``, ``verify`` (the resolved ``PassContext``) and
  ``with_loc``;
* ``ptokit``: ptokit's version and the hash of its installed code (``cache.ptokit_identity``).

Not cached (compiled as always): an ``ir.Program``, a program with a host function (the
distributed build), ``dump_passes`` / ``dump_ptoas_passes`` / ``profiling`` or other options,
``PTOKIT_CACHE=0``, and an external assembler (``PTOAS_ROOT`` set or ``ptoas`` on ``PATH``: its
output is not ptokit's to key).

Safety is the jit entries': every file of an entry is re-hashed against its manifest (itself
hashed) before it is used; a mismatch is a miss, and the entry is rebuilt.
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import inspect
import os
import shutil
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ..artifacts import default_output_dir
from ..artifacts.kernel_config import read_kernel_config
from ..compiled import CompiledProgram
from ..errors import CompileError
from ..language.decorators import ProgramSpec
from ..language.source import Source, function_scope
from ..language.types import Level
from ..passes.context import resolve_context
from ..targets import platform_to_use
from . import cache as C
from .function import _Item, _MISSING, _follow, _index_item, _path_text, _simple_value

FORMAT = 1
# a program calling these shows something while it is compiled, which a cache hit would not
PRINTS_WHILE_COMPILING = ("static_print",)


class Uncacheable(Exception):
    """The program reads something the key cannot hold: compile it as always."""


# ---------------------------------------------------------------- the key

def _is_ptokit_module(v) -> bool:
    return inspect.ismodule(v) and v.__name__.split(".")[0] == "ptokit"


def _value_text(v, where: str) -> str:
    """The key text of one value the program reads from its scope (``Uncacheable`` if none)."""
    s = _simple_value(v)
    if s is not None:
        return s
    if inspect.ismodule(v):
        return f"module:{v.__name__}"
    if inspect.isbuiltin(v):
        if getattr(builtins, getattr(v, "__name__", ""), None) is v:
            return f"builtin:{v.__name__}"
        return f"cfunction:{getattr(v, '__module__', None)}.{v.__qualname__}"
    if isinstance(v, type) and v.__module__ == "builtins":
        return f"builtin:{v.__name__}"
    owner = getattr(v, "__module__", None) if (inspect.isfunction(v) or isinstance(v, type)) \
        else type(v).__module__
    if isinstance(owner, str) and owner.split(".")[0] == "ptokit":
        if inspect.isfunction(v) or isinstance(v, type):
            return f"ptokit:{owner}.{v.__qualname__}"      # its code is in ptokit's identity
        text = repr(v)
        if " at 0x" not in text:
            return f"ptokit:{type(v).__qualname__}:{text}"
    if type(v).__name__ == "ufunc" and type(v).__module__ == "numpy":
        return f"ufunc:numpy.{v.__name__}"
    raise Uncacheable(f"{where} is {type(v).__name__} {v!r:.60}, a value the compile cache cannot key")


def _source_unit(obj) -> Tuple[Source, dict]:
    src = Source(obj)
    return src, {"file": os.path.abspath(src.file), "start": src.start,
                 "sha256": hashlib.sha256("".join(src.lines).encode()).hexdigest()}


class _Scanner:
    def __init__(self):
        self.units: List[dict] = []
        self.constants: Dict[str, str] = {}
        self.seen = set()

    def key_paths(self, tree, local, scope, label: str) -> List:
        """Key every path into ``scope`` that ``tree`` reads; returns the module-level DSL
        functions reached (to scan in turn)."""
        reached = []
        for d in sorted(_read_paths(tree, local, scope), key=lambda p: (len(p), _path_text(p))):
            root = scope[d[0]]
            if _is_ptokit_module(root):
                continue        # the DSL itself: covered by ptokit's identity
            v = _follow(root, d[1:])
            name = f"{label}:{_path_text(d)}"
            if v is _MISSING:
                self.constants[name] = "missing"
                continue
            if inspect.isfunction(v) and getattr(v, "__pto_function__", None) is not None:
                reached.append(v)
                self.constants[name] = f"dsl-function:{v.__module__}.{v.__qualname__}"
                continue
            if inspect.ismodule(v) and len(d) > 1 or inspect.ismodule(root) and len(d) == 1:
                self.constants[name] = f"module:{v.__name__}"    # its attributes read are keyed apart
                continue
            self.constants[name] = _value_text(v, _path_text(d))
        return reached

    def scan_function_def(self, item, scope, label: str) -> List:
        """One ``def``: decorators, annotations and defaults see the scope; the body its own names too."""
        local = {a.arg for a in _all_args(item.args)}
        for n in ast.walk(item):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                local.add(n.id)
            elif isinstance(n, ast.Call) and \
                    getattr(n.func, "attr", getattr(n.func, "id", None)) in PRINTS_WHILE_COMPILING:
                raise Uncacheable(f"{label}.{item.name} calls {PRINTS_WHILE_COMPILING[0]}, which prints while it is "
                                  f"compiled")
        reached = []
        outer = list(item.decorator_list) + [a.annotation for a in _all_args(item.args) if a.annotation] + \
            list(item.args.defaults) + [d for d in item.args.kw_defaults if d is not None]
        if item.returns is not None:
            outer.append(item.returns)
        for node in outer:
            reached += self.key_paths(node, set(), scope, label)
        for st in item.body:
            reached += self.key_paths(st, local, scope, label)
        return reached

    def key_evaluated(self, pyfn, label: str) -> None:
        """What Python evaluated when the function was defined and the front end takes as it is:
        its annotations and its ``@pl.function(...)`` declaration. A value that only an annotation
        or a decorator reads (``pl.Tensor[[W, 1], ...]`` in a factory) is in no scope the source
        scan sees."""
        for arg, value in sorted(getattr(pyfn, "__annotations__", {}).items()):
            self.constants[f"{label}:annotation {arg}"] = _value_text(value, f"the annotation of {arg}")
        decl = getattr(pyfn, "__pto_decl__", None)
        self.constants[f"{label}:declaration"] = _value_text(decl if decl is not None else pyfn.__pto_function__,
                                                             "the @pl.function declaration")

    def scan_module_function(self, fn) -> None:
        src, unit = _source_unit(fn)
        ident = (unit["file"], unit["start"])
        if ident in self.seen:
            return
        self.seen.add(ident)
        self.units.append(unit)
        self.key_evaluated(fn, f"{fn.__module__}.{fn.__qualname__}")
        item = src.tree.body[0]
        for f in self.scan_function_def(item, function_scope(fn), f"{fn.__module__}.{fn.__qualname__}"):
            self.scan_module_function(f)


def _read_paths(tree, local, scope) -> set:
    """The paths into ``scope`` whose values ``tree`` reads: each outermost ``NAME(.attr)*([lit])*``
    (the front end resolves a chain to its last value, so ``cfg.n`` keys ``cfg.n``, not ``cfg``),
    cut before an index that is not a literal (then the container is keyed whole)."""
    inner = set()
    out = set()
    for n in ast.walk(tree):          # breadth first: a chain's outer node comes before its inner ones
        if not isinstance(n, (ast.Name, ast.Attribute, ast.Subscript)):
            continue
        if not isinstance(n, ast.Name):
            inner.add(id(n.value))
        if id(n) in inner:
            continue
        p = _chain(n)
        if not p or p[0] in local or p[0] not in scope:
            continue
        cut = next((i for i, a in enumerate(p) if isinstance(a, _Item) and a.key is _MISSING), len(p))
        out.add(tuple(p[:cut]))
    return out


def _chain(node) -> Optional[list]:
    """``NAME`` followed by attributes and indexes in any order, as [name, attr | _Item, ...]; an
    index that is not a literal int or string is ``_Item(_MISSING)``; None when the chain does not
    start at a name (``f(x).y``: ``f`` and ``x`` are read paths of their own)."""
    steps = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        steps.append(node.attr if isinstance(node, ast.Attribute) else _index_item(node.slice))
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id] + steps[::-1]


def _all_args(args: ast.arguments):
    return list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs) + \
        [a for a in (args.vararg, args.kwarg) if a is not None]


def program_key(spec: ProgramSpec, ctx, with_loc: bool) -> dict:
    """The key components of compiling ``spec`` for ``ctx`` (``Uncacheable`` when it reads a
    value that cannot be keyed)."""
    cls = spec.cls
    try:
        src, unit = _source_unit(cls)
    except CompileError as exc:
        raise Uncacheable(str(exc)) from None
    cdef = src.tree.body[0]
    if not isinstance(cdef, ast.ClassDef):
        raise Uncacheable("the decorated source is not a class")
    # the front end's scope of a class (language/units.py): the module's globals, then the
    # closure variables of each DSL method in turn
    scope = dict(sys.modules[cls.__module__].__dict__) if cls.__module__ in sys.modules else {}
    for item in cdef.body:
        pyfn = cls.__dict__.get(getattr(item, "name", None))
        if isinstance(item, ast.FunctionDef) and getattr(pyfn, "__pto_function__", None) is not None:
            try:
                scope.update(inspect.getclosurevars(pyfn).nonlocals)
            except (TypeError, ValueError):
                pass
    scan = _Scanner()
    scan.units.append(unit)
    label = f"{cls.__module__}.{cls.__qualname__}"
    reached = list(scan.key_paths(ast.Module(body=list(cdef.decorator_list) + list(cdef.bases), type_ignores=[]),
                                  set(), scope, label))
    for name, value in sorted(vars(cls).items()):
        # class attributes as Python evaluated them (their text is in the source, but a value they
        # took from the defining function is in no scope the scan sees)
        if not (name.startswith("__") and name.endswith("__")) and getattr(value, "__pto_function__", None) is None:
            scan.constants[f"{label}:attribute {name}"] = _value_text(value, f"class attribute {name}")
    for item in cdef.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            reached += scan.scan_function_def(item, scope, label)
            pyfn = cls.__dict__.get(item.name)
            if getattr(pyfn, "__pto_function__", None) is not None:
                scan.key_evaluated(pyfn, f"{label}.{item.name}")
        else:
            reached += scan.key_paths(item, set(), scope, label)
    try:
        for fn in reached:
            scan.scan_module_function(fn)
    except CompileError as exc:
        raise Uncacheable(str(exc)) from None
    h = hashlib.sha256()
    for u in scan.units:
        h.update(u["sha256"].encode())
    return {
        "format": FORMAT,
        "function": f"program:{label}",
        "program_source": h.hexdigest(),
        "files": [[u["file"], u["start"]] for u in scan.units],
        "constants": scan.constants,
        "options": {"strict_ssa": bool(getattr(spec, "strict_ssa", False)), "with_loc": bool(with_loc),
                    "ptoas_compat": ctx.ptoas_compat, "verify": bool(ctx.verify),
                    **({"memory_planner": ctx.memory_planner.name} if ctx.memory_planner else {})},
        "platform": ctx.platform,
        "runtime": ctx.runtime_kind.value,
        "ptokit": C.ptokit_identity(),
    }


# ---------------------------------------------------------------- compile

def _external_assembler() -> bool:
    """An external ``ptoas`` would assemble the tree (``backend.ptoas.find_ptoas``, which loads
    the built-in assembler): its output is not ptokit's, so such compiles are not cached."""
    return bool(os.environ.get("PTOAS_ROOT")) or shutil.which("ptoas") is not None


def _why_not_cached(program, dump_passes, dump_ptoas_passes, options) -> Optional[str]:
    if not isinstance(program, ProgramSpec):
        return "not a @pl.program class"
    if not C.cache_enabled():
        return "the cache is off (PTOKIT_CACHE=0)"
    if dump_passes or dump_ptoas_passes or options.get("profiling") or options.get("times") is not None:
        return "dumps or a compile profile were asked for"
    other = sorted(k for k, v in options.items() if k not in ("with_loc", "ptoas_compat", "memory_planner", "profiling", "times")
                   and v is not None)
    if other:
        return f"option(s) {', '.join(other)} given"
    for member in vars(program.cls).values():
        decl = getattr(member, "__pto_decl__", None)
        if getattr(decl, "level", None) == Level.HOST:
            return "a distributed program (it has a host function)"
    if _external_assembler():
        return "an external assembler (PTOAS_ROOT or ptoas on PATH) writes its C++"
    return None


def compile_cached(program, output_dir=None, platform="a2a3sim", runtime=None, dump_passes=False,
                   dump_ptoas_passes=False, **options):
    """``ptokit.compile``: from the cache when the program's key has an entry, else compiled (and
    entered when it can be)."""
    why = _why_not_cached(program, dump_passes, dump_ptoas_passes, options)
    key = None
    if why is None:
        platform = platform_to_use(platform)
        with_loc = options.get("with_loc", True)
        ctx = resolve_context(platform, runtime, options.get("ptoas_compat"), options.get("memory_planner"))
        try:
            components = program_key(program, ctx, with_loc)
        except Uncacheable as exc:
            why = f"uncacheable: {exc}"
        else:
            key = C.key_hash(components)
    if key is None:
        name = getattr(program, "name", program)
        if isinstance(program, ProgramSpec):
            C.explain(f"compiling program {name} without the cache: {why}")
        return _compile(program, output_dir, platform, runtime, dump_passes, dump_ptoas_passes, **options)
    group = C.jit_cache_dir() / C.group_name(components["function"])
    entry = group / key
    times = None
    manifest = _valid_manifest(entry, key)
    if manifest is not None:
        C.STATS["disk_hits"] += 1
        C.explain(f"disk hit for program {program.name}: {entry}")
    else:
        with C.key_lock(group, key):
            manifest = _valid_manifest(entry, key)
            if manifest is not None:
                C.STATS["disk_hits"] += 1
                C.explain(f"disk hit for program {program.name} (compiled by another process): {entry}")
            else:
                _ok, why = C.validate_entry(entry, key)
                tmp = C.start_miss(group, entry, key, f"program {program.name}", why,
                                   lambda: _explain_miss(program.name, group, components))
                C.STATS["codegen_runs"] += 1
                try:
                    compiled = _compile(program, tmp, platform, runtime, False, False, **options)
                except Exception:     # noqa: BLE001 - compiled again below, where the user asked
                    compiled = None
                    shutil.rmtree(tmp, ignore_errors=True)
                except BaseException:
                    shutil.rmtree(tmp, ignore_errors=True)
                    raise
                if type(compiled) is not CompiledProgram:
                    # a failing compile fails where the user asked for the tree: its error names
                    # those paths, and what it wrote before failing is left there, as without the cache
                    shutil.rmtree(tmp, ignore_errors=True)
                    return _compile(program, output_dir, platform, runtime, dump_passes, dump_ptoas_passes,
                                    **options)
                times = compiled.times
                C.enter(tmp, entry, key, components)
                manifest = C.read_manifest(entry)
    out = _materialize(entry, manifest, output_dir, program.name)
    compiled = CompiledProgram(out, read_kernel_config(out), ctx.platform, ctx.runtime_kind, times,
                               _program=lambda: program.ir)

    def recompile(**kw):
        kw.setdefault("ptoas_compat", ctx.ptoas_compat)
        kw.setdefault("memory_planner", ctx.memory_planner)
        from ..toolchain import compile_program   # lazy: the compiler
        return compile_program(program, runtime=ctx.runtime_kind, with_loc=with_loc, **kw)
    compiled.recompile = recompile
    return compiled


def _compile(program, output_dir, platform, runtime, dump_passes, dump_ptoas_passes, **options):
    from ..distributed_build import compile_entry   # lazy: the compiler
    return compile_entry(program, output_dir=output_dir, platform=platform, runtime=runtime,
                         dump_passes=dump_passes, dump_ptoas_passes=dump_ptoas_passes, **options)


def _explain_miss(name: str, group: Path, components: dict) -> None:
    if not (C.explain_enabled() or C.debug_enabled()):
        return
    closest, diffs = C.closest_entry(group, components)
    if closest is None:
        C.explain(f"cache miss for program {name}: no earlier entry for this program")
    else:
        C.explain(f"cache miss for program {name}: " + "; ".join(diffs) + f" (closest earlier entry: {closest.name})")


def _valid_manifest(entry: Path, key: str) -> Optional[dict]:
    """The entry's manifest when the entry is intact: its manifest's own hash, the key, and every
    file's hash (as ``cache.validate_entry``), else None."""
    ok, _why = C.validate_entry(entry, key)
    return C.read_manifest(entry) if ok else None


def _materialize(entry: Path, manifest: dict, output_dir, name: str) -> Path:
    """The entry's files written into ``output_dir`` (default: ``build_output/<name>_<time>``);
    a file already there with the same bytes is left as it is (its stat, which the build cache's
    remembered keys compare, does not change)."""
    out = (Path(output_dir) if output_dir is not None else default_output_dir(name)).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for rel, digest in sorted((manifest.get("files") or {}).items()):
        data = (entry / rel).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:      # changed since it was validated
            raise OSError(f"the cached file {entry / rel} changed while it was read; compile again")
        dst = out / rel
        try:
            if dst.read_bytes() == data:
                continue
        except OSError:
            pass
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(data)
    return out
