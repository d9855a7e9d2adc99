"""``JitFunction``: what ``@pl.jit`` returns.

``f(*arrays)`` specializes, compiles on a cache miss and runs on the simulator;
``f.compile(*arrays)`` returns the ``CompiledProgram``; ``f.lower(*arrays)``
returns the program after the passes; ``f.parse(*arrays)`` the program before them.
"""
from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import hashlib
import inspect
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from ..artifacts import PROFILE_DIR
from ..artifacts.kernel_config import read_kernel_config
from ..compiled import CompiledProgram
from ..passes.context import resolve_context
from ..runtime.config import RunConfig
from ..errors import CompileError, UserError, api_boundary
from ..targets import validate_ptoas_compat
from ..language.source import Source, eval_static
from ..language.types import DimExpr, DynamicDim
from . import cache as C
from .run_script import write_run_script
from .helpers import JitHelper, function_scope
from ..runtime.abi import scalar_value
from ..runtime.arrays import torch_view
from ..language.annotations import Annotation, function_params
from ..language.binder import Given, bind_values
from .specialize import ArgSpec, is_contiguous, is_torch_tensor, jit_param, output_like, specialize

# The compiler (``jit.frontend``, ``ptokit.toolchain``: DSL parser, passes, backend; ~150 ms to
# load) is imported inside the methods that compile, marked "lazy: the compiler": a module that
# defines @pl.jit functions runs this decorator at its own import time, which must stay cheap.

_MISSING = object()


# ---------------------------------------------------------------- dependencies

def _simple_value(v, depth: int = 0) -> Optional[str]:
    """A type-tagged text for values that can be folded into a program, else None: numbers,
    strings, enums, dims, and lists, tuples and dicts of those (nested; a long one by digest)."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return f"{type(v).__name__}:{v!r}"
    if isinstance(v, DynamicDim):
        return f"dynamic:{v.name}"
    if isinstance(v, DimExpr):
        return f"dim:{v.text}"
    if isinstance(v, enum.Enum):
        return f"{type(v).__name__}.{v.name}"
    if isinstance(v, np.generic):
        return f"{type(v).__name__}:{v.item()!r}"
    if depth > 16 or not isinstance(v, (tuple, list, dict)):
        return None
    items = v.items() if isinstance(v, dict) else enumerate(v)
    parts = []
    for k, x in items:
        p = _simple_value(x, depth + 1)
        kt = _simple_value(k, depth + 1) if isinstance(v, dict) else ""
        if p is None or kt is None:
            return None
        parts.append(f"{kt}: {p}" if isinstance(v, dict) else p)
    text = ", ".join(parts)
    if len(parts) > 64:     # a table: its digest keeps the key (and the explain log) short
        text = f"{len(parts)} items, sha256 {hashlib.sha256(text.encode()).hexdigest()[:32]}"
    return f"{type(v).__name__}({text})"


class _Item(NamedTuple):
    """One ``[key]`` step of a path into a module value (``CFG["scale"]``, ``SHAPES[0]``)."""
    key: object


def _path_text(path: tuple) -> str:
    return path[0] + "".join(f"[{a.key!r}]" if isinstance(a, _Item) else f".{a}" for a in path[1:])


def _static_path(node) -> Optional[List]:
    """``NAME(.attr)*([literal])*`` as [name, attr..., _Item(key)...], the values the front end
    folds from the defining scope; None for anything else.  An index that is not a literal int or
    string is ``_Item(_MISSING)``."""
    items = []
    while isinstance(node, ast.Subscript):
        items.append(_index_item(node.slice))
        node = node.value
    parts = _dotted(node)
    return None if parts is None else parts + items[::-1]


def _index_item(k) -> _Item:
    """The ``[k]`` step of a path: a literal int (also negative) or string, else ``_Item(_MISSING)``."""
    if isinstance(k, ast.UnaryOp) and isinstance(k.op, ast.USub) and isinstance(k.operand, ast.Constant) \
            and type(k.operand.value) is int:
        return _Item(-k.operand.value)
    if isinstance(k, ast.Constant) and type(k.value) in (int, str):
        return _Item(k.value)
    return _Item(_MISSING)


def _dotted(node) -> Optional[List[str]]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def _lookup(scope_fn, dotted: tuple):
    g = scope_fn.__globals__
    if dotted[0] in g:
        v = g[dotted[0]]
    else:
        v = function_scope(scope_fn).get(dotted[0], _MISSING)
    return _follow(v, dotted[1:])


def _follow(v, steps):
    """The value ``steps`` (attributes and ``_Item`` indexes) lead to from ``v``, or ``_MISSING``."""
    for a in steps:
        if v is _MISSING:
            break
        if isinstance(a, _Item):
            try:
                v = v[a.key] if isinstance(v, (list, tuple, dict)) else _MISSING
            except (LookupError, TypeError):
                v = _MISSING
        else:
            v = getattr(v, a, _MISSING)
    return v


def _token(v):
    if isinstance(v, JitHelper) or inspect.ismodule(v):
        return ("id", id(v))
    s = _simple_value(v)
    return ("val", s) if s is not None else ("id", id(v))


@dataclass
class Dependencies:
    source: str                       # sha256 of the entry's source
    helpers: Dict[str, str]           # qualified helper name -> "kind:sha256 of its source"
    constants: Dict[str, str]         # qualified name -> typed value text
    tokens: List[tuple]               # (scope function, dotted name, token) for in-process revalidation

    def still_valid(self) -> bool:
        for fn, dotted, tok in self.tokens:
            if _token(_lookup(fn, dotted)) != tok:
                return False
        return True


def _source_of(fn) -> Tuple[str, ast.FunctionDef, Source]:
    src = Source(fn)
    text = "".join(src.lines)
    return hashlib.sha256(text.encode()).hexdigest(), src.tree.body[0], src


def _with_bound_dims(infos: List[Annotation], fn) -> List[Annotation]:
    """Bare ``pl.Tensor`` parameters with the axes their ``x.bind_dynamic(axis, M)`` statements
    (at the top of the body) make dynamic; the parser checks the statements themselves."""
    src = Source(fn)
    item = src.tree.body[0]
    scope = None
    axes: Dict[str, list] = {}
    for st in item.body:
        call = st.value if isinstance(st, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "bind_dynamic" and isinstance(call.func.value, ast.Name)
                and len(call.args) == 2 and isinstance(call.args[0], ast.Constant)
                and isinstance(call.args[0].value, int)):
            continue
        scope = scope or function_scope(fn)
        try:
            dim = eval_static(call.args[1], src, scope, "dynamic dimension")
        except CompileError:       # the parser reports it, located
            continue
        if isinstance(dim, DynamicDim):
            axes.setdefault(call.func.value.id, []).append((call.args[0].value, dim))
    out = []
    for info in infos:
        if info.name in axes and (info.kind in ("tensor", "any") or info.kind == "number" and info.dtype is None) \
                and info.shape is None:
            info = dataclasses.replace(info, kind="tensor", dyn_axes=tuple(axes[info.name]))
        out.append(info)
    return out


def _scope_paths(tree, local, scope):
    """The paths into the defining scope that ``tree`` reads, as {path: node}, and the containers
    it indexes with something other than a literal, as {container path: node}."""
    paths, dynamic = {}, {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Subscript):
            p = _static_path(n)
        elif isinstance(n, (ast.Attribute, ast.Name)):
            p = _dotted(n)
        else:
            continue
        if not p or p[0] in local or p[0] not in scope:
            continue
        cut = next((i for i, a in enumerate(p) if isinstance(a, _Item) and a.key is _MISSING), None)
        if cut is not None:
            dynamic.setdefault(tuple(p[:cut]), n)
            p = p[:cut]
        paths.setdefault(tuple(p), n)
    return paths, dynamic


def scan_dependencies(fn) -> Dependencies:
    """Everything outside ``fn``'s own text that can change its program: helpers and folded
    constants.  A value read through attributes and literal indexes (``CFG["scale"]``,
    ``cfg.tiles[0]``) is keyed by what it holds; a container indexed by anything else is keyed
    whole, and one that cannot be keyed (it holds a value that is not a number, string, enum or a
    container of those) is a located ``CompileError``: its item would be folded unkeyed."""
    digest, item, src = _source_of(fn)
    deps = Dependencies(digest, {}, {}, [])
    seen = set()

    def visit(f, tree, src):
        scope = function_scope(f)
        local = {a.arg for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                local.add(n.id)
        mod = f.__module__
        paths, dynamic = _scope_paths(tree, local, scope)
        keyed = set()
        for d in sorted(paths, key=lambda p: (len(p), _path_text(p))):
            root = scope[d[0]]
            if inspect.ismodule(root) and root.__name__.split(".")[0] == "ptokit":
                continue      # the DSL itself: covered by ptokit's identity
            if any(d[:i] in keyed for i in range(1, len(d))):
                continue      # inside a value keyed whole
            v = _lookup(f, d)
            if v is _MISSING:
                continue
            if isinstance(v, JitHelper):
                q = f"{v.__module__}.{v.__qualname__}"
                deps.tokens.append((f, d, _token(v)))
                if id(v) not in seen:
                    seen.add(id(v))
                    hd, hitem, hsrc = _source_of(v.fn)
                    deps.helpers[q] = f"{v.kind.name}:{hd}"
                    visit(v.fn, hitem, hsrc)
                continue
            s = _simple_value(v)
            if s is None:
                continue
            keyed.add(d)
            deps.constants[f"{mod}.{_path_text(d)}"] = s
            deps.tokens.append((f, d, ("val", s)))
        for d, node in dynamic.items():
            if any(d[:i] in keyed for i in range(1, len(d) + 1)):
                continue
            if isinstance(_lookup(f, d), (list, tuple, dict)):
                raise CompileError(
                    f"{ast.unparse(node)!r} cannot be folded into a @pl.jit program: {_path_text(d)} is indexed "
                    f"by a computed value, so the compile cache would have to key all of it, and it holds "
                    f"something other than numbers, strings, enums and lists/tuples/dicts of those; index it "
                    f"with a literal ({_path_text(d)}[0], {_path_text(d)}[\"name\"]) or pass the value as an "
                    f"argument", src.loc(node))

    visit(fn, item, src)
    return deps


# ---------------------------------------------------------------- the jit function

class CacheKey(NamedTuple):
    """The key of one entry of ``JitFunction._cache``: the call's specialization, the compile
    target and options, the cache root, and the disk key (which covers the source, helpers and
    folded constants, so two entries differ whenever their programs may)."""

    args: tuple
    platform: str
    runtime: object
    options: tuple
    root: Optional[str]
    key: str

    def matches(self, other: tuple) -> bool:
        return tuple(self[:5]) == tuple(other)


class JitFunction:
    """A ``@pl.jit`` function: specialized per call signature, compiled once, cached."""

    __pto_jit__ = True     # how the front end recognises an entry point called from a jit body

    def __init__(self, fn, *, platform: str = "a2a3sim", runtime=None, dump_passes: bool = False,
                 dump_ptoas_passes: bool = False, with_loc: bool = True, ptoas_compat: Optional[str] = None,
                 auto_scope: bool = True):
        if not inspect.isfunction(fn):
            raise TypeError(f"@pl.jit decorates a function, got {fn!r}")
        if auto_scope is not True:
            # pypto's auto_scope=False: no runtime scope around the body (docs/decisions.md
            # "@pl.function(auto_scope=)"); ptokit's orchestration always runs inside one
            why = ("is not supported yet: ptokit always runs the orchestration inside one runtime scope "
                   "(auto_scope=True)" if auto_scope is False else f"takes True or False, got {auto_scope!r}")
            src = Source(fn)
            item = src.tree.body[0]
            at = next((d for d in item.decorator_list if any(isinstance(k, ast.keyword) and k.arg == "auto_scope"
                                                             for k in ast.walk(d))), item)
            raise CompileError(f"@pl.jit {fn.__name__}: auto_scope={auto_scope!r} {why}", src.loc(at))
        self.ptoas_compat = validate_ptoas_compat(ptoas_compat)
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.platform = platform
        self.runtime = runtime
        self.dump_passes = dump_passes
        self.dump_ptoas_passes = dump_ptoas_passes
        self.with_loc = with_loc
        self.qualified = f"{fn.__module__}.{fn.__qualname__}"
        self._infos: Optional[List[Annotation]] = None
        self._params: list = []
        # the in-process cache: CacheKey -> CompiledProgram (pypto's `_cache`; callers list and
        # clear it), and what each entry's program depended on, consulted only for keys in _cache
        self._cache: Dict[CacheKey, CompiledProgram] = {}
        self._deps: Dict[CacheKey, Dependencies] = {}
        self.last_compiled = None

    def __repr__(self) -> str:
        return f"<ptokit jit function {self.qualified}>"

    # ------------------------------------------------------------ arguments
    def param_infos(self) -> List[Annotation]:
        """Each parameter's annotation (language/annotations.py), read once."""
        if self._infos is None:
            read = function_params(self.fn)
            self._params = [sp for sp, _, _ in read]
            self._infos = _with_bound_dims([jit_param(ann, loc) for _, ann, loc in read], self.fn)
        return self._infos

    def _bind(self, args, kwargs, declared: bool = False):
        """Full argument list (None for omitted outputs), the indices of omitted outputs.  With
        ``declared`` (``compile`` / ``lower`` / ``parse``, as in pypto) a tensor argument left out whose
        annotation gives a static shape and a dtype stands for a zero array of that type."""
        infos = self.param_infos()
        outs = {i.name for i in infos if i.kind == "tensor" and i.direction == "OUT"}
        typed = {i.name for i in infos if declared and i.kind == "tensor" and i.dtype is not None
                 and i.shape is not None and all(isinstance(d, int) for d in i.shape)}
        bound = bind_values(self.fn.__name__, self._params, args, kwargs, omittable=outs | typed,
                            hint=" (only pl.Out tensors may be omitted; they are then allocated and returned)")
        full, omitted = [], []
        for i, info in enumerate(infos):
            a = bound.get(info.name, _MISSING)
            if isinstance(a, Given):        # a default; `= None` of an output: left out
                a = _MISSING if a.value is None and info.name in outs else a.value
            if a is not _MISSING:
                full.append(a)
            elif info.name in outs:
                full.append(None)
                omitted.append(i)
            else:
                full.append(np.zeros(info.shape, info.dtype.numpy()))     # only its type is used
        return full, omitted

    def specialize(self, *args, _declared: bool = False, **kwargs):
        """(ArgSpecs, run arguments, output arrays, return-style?) for one call (``_declared``: see
        ``_bind``)."""
        infos = self.param_infos()
        full, omitted = self._bind(args, kwargs, _declared)
        if omitted:
            present_infos = [i for i, a in zip(infos, full) if a is not None]
            present = [a for a in full if a is not None]
            _, dyn = specialize(present_infos, present)
            for i in omitted:
                full[i] = output_like(infos[i], infos, full, dyn)
        specs, _ = specialize(infos, full)
        run_args = []
        outputs = []
        for s, a in zip(specs, full):
            if s.kind == "tensor":
                if s.direction == "IN" and not is_contiguous(a):
                    a = a.contiguous() if is_torch_tensor(a) else np.ascontiguousarray(a)
                run_args.append(a)
                if s.direction != "IN":
                    outputs.append(a)
            elif s.kind == "scalar":
                run_args.append(scalar_value(a, s.dtype.name, f"argument {s.name!r}"))
        if omitted and any(is_torch_tensor(a) for a in full if a is not None):
            outputs = [torch_view(o) if isinstance(o, np.ndarray) else o for o in outputs]
        return specs, run_args, outputs, bool(omitted)

    # ------------------------------------------------------------ options
    def _options(self, config, platform, runtime, dump_passes, dump_ptoas_passes, output_dir=None):
        """Compile options from a RunConfig and/or the keyword options; giving one in both is an
        error.  Returns (platform, runtime, dump_passes, dump_ptoas_passes, profiling, output_dir)."""
        if config is None:
            return platform, runtime, dump_passes, dump_ptoas_passes, False, output_dir
        if not isinstance(config, RunConfig):
            raise TypeError(f"config must be a ptokit.runtime.RunConfig, got {type(config).__name__}")
        config.checked()
        both = [n for n, v in (("platform", platform), ("runtime", runtime), ("dump_passes", dump_passes),
                               ("dump_ptoas_passes", dump_ptoas_passes), ("output_dir", output_dir)) if v is not None]
        if both:
            raise TypeError(f"{self.fn.__name__}: {', '.join(both)} given both as keyword and in config=RunConfig(...); "
                            f"give each option in one place")
        if config.distributed_config is not None:
            raise UserError(f"{self.fn.__name__}: RunConfig(distributed_config=...) compiles a distributed program, "
                            f"whose entry is a @pl.jit.host function calling this one with device=r; run a @pl.jit "
                            f"function without it on one chip")
        return (config.platform, config.runtime, config.dump_passes or None, config.dump_ptoas_passes or None,
                config.compile_profiling, config.save_kernels_dir)

    # ------------------------------------------------------------ stages
    def parse(self, *args, **kwargs):
        """The IR program of this call's specialization, before the passes."""
        from .frontend import build_program   # lazy: the compiler
        specs, _, _, _ = self.specialize(*args, _declared=True, **kwargs)
        return build_program(self.fn, specs)

    def lower(self, *args, config=None, platform: Optional[str] = None, runtime=None, dump_dir=None, **kwargs):
        """Run the front end and the passes only; returns the post-pass ``ir.Program`` (its
        ``as_python()`` prints it as DSL text; ``ptokit.compile`` takes it and only generates
        code).  ``config=RunConfig(...)`` gives the platform and runtime kind."""
        from ..passes.manager import run_passes   # lazy: the compiler
        platform, runtime, _, _, _, _ = self._options(config, platform, runtime, None, None)
        ctx = resolve_context(platform or self.platform, runtime if runtime is not None else self.runtime,
                              (config.ptoas_compat if config is not None else None) or self.ptoas_compat,
                              config.memory_planner if config is not None else None)
        prog = run_passes(self.parse(*args, **kwargs), ctx, Path(dump_dir) if dump_dir else None)
        prog.lowered = True
        from ..ir.nodes import with_global_vars   # lazy: a warm call builds no IR
        prog.functions = with_global_vars(prog.functions)
        return prog

    @api_boundary
    def compile(self, *args, config=None, platform: Optional[str] = None, runtime=None,
                dump_passes: Optional[bool] = None, dump_ptoas_passes: Optional[bool] = None, output_dir=None,
                **kwargs):
        """Specialize and compile (or fetch from the cache); returns the ``CompiledProgram`` -- the
        very object ``_cache`` holds, so a later call with the same specialization gets it too.
        Options come from ``config=RunConfig(...)`` or the keywords; with ``output_dir`` (or
        ``save_kernels_dir``) the tree is copied there and that copy is returned."""
        platform, runtime, dump_passes, dump_ptoas_passes, profiling, output_dir = self._options(
            config, platform, runtime, dump_passes, dump_ptoas_passes, output_dir)
        specs, _, _, _ = self.specialize(*args, _declared=True, **kwargs)
        compiled = self._get(specs, platform, runtime, dump_passes, dump_ptoas_passes, profiling,
                             ptoas_compat=config.ptoas_compat if config is not None else None,
                             memory_planner=config.memory_planner if config is not None else None)
        if output_dir is not None:
            out = Path(output_dir)
            shutil.copytree(compiled.output_dir, out, dirs_exist_ok=True)
            compiled = CompiledProgram(out.resolve(), read_kernel_config(out), compiled.platform, compiled.runtime,
                                       compiled.times, _program=compiled._program)
        return compiled

    @api_boundary
    def __call__(self, *args, config=None, **kwargs):
        platform, runtime, dump_passes, dump_ptoas, profiling, _ = self._options(config, None, None, None, None)
        specs, run_args, outputs, _ = self.specialize(*args, **kwargs)
        compiled = self._get(specs, platform, runtime, dump_passes, dump_ptoas, profiling,
                             ptoas_compat=config.ptoas_compat if config is not None else None,
                             memory_planner=config.memory_planner if config is not None else None)
        if config is not None and config.codegen_only:
            return None
        compiled(*run_args, config=config)
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    # ------------------------------------------------------------ cache
    def cache_info(self) -> dict:
        return {"memory_entries": len(self._cache)}

    def cache_clear(self) -> None:
        """Forget the in-process entries (the disk cache is untouched): the next call compiles
        again or, more likely, finds its entry on disk.  ``_cache.clear()`` does the same."""
        self._cache.clear()
        self._deps.clear()

    def _memory_hit(self, mem_key: tuple) -> Optional[CompiledProgram]:
        for k, compiled in list(self._cache.items()):
            if not k.matches(mem_key):
                continue
            deps = self._deps.get(k)
            if deps is not None and deps.still_valid() and Path(compiled.output_dir).is_dir():
                return compiled
        return None

    def _get(self, specs: List[ArgSpec], platform, runtime, dump_passes, dump_ptoas_passes, profiling=False,
             ptoas_compat: Optional[str] = None, memory_planner=None):
        ctx = resolve_context(platform or self.platform, runtime if runtime is not None else self.runtime,
                              ptoas_compat or self.ptoas_compat, memory_planner)
        dump_passes = self.dump_passes if dump_passes is None else dump_passes
        dump_ptoas = self.dump_ptoas_passes if dump_ptoas_passes is None else dump_ptoas_passes
        options = {"with_loc": bool(self.with_loc)}
        if ctx.ptoas_compat:          # part of both cache keys (absent for pypto HEAD's form)
            options["ptoas_compat"] = ctx.ptoas_compat
        if ctx.memory_planner is not None:
            options["memory_planner"] = ctx.memory_planner.name
        enabled = C.cache_enabled()
        # the cache root is part of the in-process key: entries point into it
        mem_key = (tuple(specs), ctx.platform, ctx.runtime_kind, tuple(sorted(options.items())),
                   str(C.jit_cache_dir()) if enabled else None)
        for stale in [k for k in self._deps if k not in self._cache]:
            del self._deps[stale]             # entries the caller removed from _cache
        if enabled:
            hit = self._memory_hit(mem_key)
            if hit is not None:
                C.STATS["memory_hits"] += 1
                if C.debug_enabled():
                    C.logger().debug("memory hit for %s (%s)", self.fn.__name__, hit.output_dir.name)
                self._ensure_dumps(hit.output_dir, specs, ctx, dump_passes, dump_ptoas, profiling)
                self.last_compiled = hit
                return hit
        deps = scan_dependencies(self.fn)
        components = {
            "function": self.qualified,
            "source": deps.source,
            "helpers": deps.helpers,
            "constants": deps.constants,
            "args": [s.describe() for s in specs],
            "platform": ctx.platform,
            "runtime": ctx.runtime_kind.value,
            "options": options,
            "ptokit": C.ptokit_identity(),
            "compiler": C.compiler_id(),
        }
        key = C.key_hash(components)
        program = functools.partial(self._program_of, tuple(specs))
        if not enabled:
            import tempfile   # lazy: a warm call never makes a folder
            out = Path(tempfile.mkdtemp(prefix=f"ptokit-jit-{self.fn.__name__}-"))
            C.explain(f"cache disabled (PTOKIT_CACHE=0): compiling {self.fn.__name__} into {out}")
            compiled = self._codegen(specs, ctx, out, dump_passes, dump_ptoas, profiling)
            compiled._program = program
            C.STATS["misses"] += 1
            self.last_compiled = compiled
            return compiled
        group = C.jit_cache_dir() / C.group_name(self.qualified)
        entry = group / key
        ok, _ = C.validate_entry(entry, key)
        times = None
        if ok:
            C.STATS["disk_hits"] += 1
            C.explain(f"disk hit for {self.fn.__name__}: {entry}")
        else:
            with C.key_lock(group, key):
                ok, why = C.validate_entry(entry, key)
                if ok:
                    C.STATS["disk_hits"] += 1
                    C.explain(f"disk hit for {self.fn.__name__} (built by another process): {entry}")
                else:
                    tmp = C.start_miss(group, entry, key, self.fn.__name__, why,
                                       lambda: self._explain_miss(group, components, specs))
                    try:
                        times = self._codegen(specs, ctx, tmp, dump_passes, dump_ptoas, profiling).times
                    except BaseException:
                        shutil.rmtree(tmp, ignore_errors=True)
                        raise
                    C.enter(tmp, entry, key, components)
        compiled = CompiledProgram(entry.resolve(), read_kernel_config(entry), ctx.platform, ctx.runtime_kind, times,
                                   _program=program)
        self._ensure_dumps(entry, specs, ctx, dump_passes, dump_ptoas, profiling)
        ck = CacheKey(*mem_key, key)
        self._cache[ck] = compiled
        self._deps[ck] = deps
        self.last_compiled = compiled
        return compiled

    def _program_of(self, specs: tuple):
        """The IR program (before the passes) of a cached entry, parsed when first asked for."""
        from .frontend import build_program   # lazy: the compiler
        return build_program(self.fn, list(specs))

    def _explain_miss(self, group: Path, components: dict, specs) -> None:
        if not (C.explain_enabled() or C.debug_enabled()):
            return
        closest, diffs = C.closest_entry(group, components)
        if closest is None:
            C.explain(f"cache miss for {self.fn.__name__}: no earlier entry for this function "
                      f"(args: {'; '.join(s.describe() for s in specs)})")
        else:
            C.explain(f"cache miss for {self.fn.__name__}: " + "; ".join(diffs) +
                      f" (closest earlier entry: {closest.name})")

    def _codegen(self, specs, ctx, out: Path, dump_passes: bool, dump_ptoas: bool, profiling: bool = False):
        from ..toolchain import StageTimes, lower_to_tree   # lazy: the compiler
        from .frontend import build_program
        C.STATS["codegen_runs"] += 1
        times = StageTimes()
        t0 = time.perf_counter()
        ir = build_program(self.fn, specs)
        times.parse += time.perf_counter() - t0
        compiled = lower_to_tree(ir, out, ctx, dump_passes=dump_passes, dump_ptoas_passes=dump_ptoas,
                                 with_loc=self.with_loc, times=times, profiling=profiling)
        if compiled.params is not None:          # a re-runner beside the tree (pypto's debug/run.py)
            write_run_script(out, compiled.params)
        return compiled

    def _ensure_dumps(self, entry: Path, specs, ctx, dump_passes: bool, dump_ptoas: bool,
                      profiling: bool = False) -> None:
        """Diagnostics are not part of the key: on a hit, produce the requested dumps (and the
        compile profile) if the entry lacks them."""
        entry = Path(entry)
        want = [d for d, on in (("passes_dump", dump_passes), ("ptoas_passes", dump_ptoas),
                                (PROFILE_DIR, profiling)) if on]
        missing = [d for d in want if not (entry / d).is_dir()]
        if not missing:
            if want:
                C.explain(f"{self.fn.__name__}: requested dumps are in {entry} ({', '.join(want)})")
            return
        tmp = C.new_temp_dir(entry.parent, entry.name)
        try:
            self._codegen(specs, ctx, tmp, dump_passes, dump_ptoas, profiling)
            for d in missing:
                if (tmp / d).is_dir():
                    try:
                        (tmp / d).rename(entry / d)
                    except OSError:
                        pass      # another process added them first
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        C.explain(f"{self.fn.__name__}: cache hit, but {', '.join(missing)} requested: regenerated the dumps into "
                  f"{entry}")
