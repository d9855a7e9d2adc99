"""Write and read ``kernel_config.py``, the artifact tree's manifest.

The file format is fixed by the spec (artifacts.md): a comment line, ``from
pathlib import Path``, ``_ROOT_DIR = Path(__file__).parent``, then the three
tab-indented dicts ``RUNTIME_CONFIG``, ``ORCHESTRATION`` and ``KERNELS``.  Every
source is named relative to the file's own folder, so a tree can be moved.

This module is the only place that turns a :class:`RuntimeKind` into its wire
name and back, and it does so only through ``runtime_kind_to_name`` /
``runtime_kind_from_name``.

Reading never runs the file: it is parsed with ``ast`` and only a closed subset is
evaluated (``ptokit.artifacts.config_eval``): literals, the two imports and the
``Path(__file__).parent`` / ``str(ROOT / "a" / "b.cpp")`` / ``ArgDirection`` forms
that ptokit's writer and the peer toolchain's writer produce.  Anything else is a
located ``UserError``.

Reading is tolerant of trees written by other tools: ``RUNTIME_CONFIG`` may be
absent (defaults: ``tensormap_and_ringbuffer``, ``aicpu_thread_num`` 0), a kernel
may omit ``name`` (the source's stem is used) and ``signature`` (empty), and
``ORCHESTRATION`` may omit ``signature`` and ``params``.

A chip tree of a distributed program (docs/distributed.md) also records
``RUNTIME_CONFIG["distributed"] = {"world_size": W or "NR", "comm_abi": 1}`` (no rank: every
rank runs the same tree) and marks its ``params`` as ``"kind": "window"`` (a DistributedTensor)
and ``"kind": "comm_ctx", "for": <window param>`` (the hidden CommContext scalar); trees
without them read as before.
"""
from __future__ import annotations

import ast
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ..errors import ConfigError, UserError
from .config_eval import load_config_namespace
from ..targets import (PLATFORMS, RuntimeKind, runtime_kind_from_name, runtime_kind_to_name,
                       validate_ptoas_compat)

CORE_TYPES = ("aiv", "aic")
DIRECTIONS = ("IN", "OUT", "INOUT")
FUNC_ID_MAX = 2**31 - 1     # the callable image stores func_ids as int32 (runtime.md: child_func_ids)
HEADER_COMMENT = "# Kernel and Orchestration Configuration"

# ORCHESTRATION["params"] kinds. A "window" param is a DistributedTensor (a view of a window slot
# of the executing rank: a tensor argument, INOUT unless it says otherwise); a "comm_ctx" param
# is the hidden uint64 scalar that carries the CommContext address of the window param named by
# its "for" key. Scalar-like kinds take a scalar argument slot, the others a tensor slot.
PARAM_KINDS = ("tensor", "scalar", "window", "comm_ctx")
SCALAR_PARAM_KINDS = ("scalar", "comm_ctx")
COMM_CTX_DTYPE = "UINT64"
COMM_ABI = 1                # RUNTIME_CONFIG["distributed"]["comm_abi"]: the CommContext layout


# The dtype names a ``params`` entry may carry: every DType of ptokit's IR that has storage
# (tests/backend/test_kernel_config.py keeps the two lists equal; the floor cannot import the IR).
PARAM_DTYPES = ("FP16", "BF16", "FP32", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32",
                "UINT64", "BOOL", "INDEX", "FP8E4M3FN", "FP8E5M2", "FP8E8M0", "FP4", "FP4E2M1", "INT4", "UINT4")

_ARITH = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
          ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}


def eval_dim(text: str, dims: dict) -> Optional[int]:
    """A dimension expression of ``params`` (``"M"``, ``"(M // 2)"``) over bound dims; None when a
    name is unbound.  Parsed, never executed: only integers, names and + - * // %; anything else
    is a ValueError."""
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            return dims.get(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = ev(node.operand)
            return None if v is None else -v
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            a, b = ev(node.left), ev(node.right)
            return None if a is None or b is None else _ARITH[type(node.op)](a, b)
        raise ValueError(f"dimension {text!r} is not an integer expression of dimension names")
    try:
        tree = ast.parse(str(text), mode="eval")
    except SyntaxError:
        raise ValueError(f"dimension {text!r} is not an integer expression of dimension names") from None
    return ev(tree)


def is_scalar_param(p: dict) -> bool:
    """True when an ORCHESTRATION params entry takes a scalar argument slot."""
    return p.get("kind") in SCALAR_PARAM_KINDS


def param_direction(p: dict) -> str:
    """IN / OUT / INOUT of a tensor-slot param (a window is INOUT unless it says otherwise)."""
    return str(p.get("direction", "INOUT" if p.get("kind") == "window" else "IN")).upper()


def param_dtype(p: dict):
    """The IR dtype of a scalar-slot param (the CommContext address is a UINT64), else None."""
    if p.get("kind") == "comm_ctx":
        return COMM_CTX_DTYPE
    return p.get("dtype") if p.get("kind") == "scalar" else None


@dataclass
class KernelEntry:
    func_id: int
    name: str
    source: Path
    core_type: str
    signature: list[str] = field(default_factory=list)


@dataclass
class OrchestrationEntry:
    source: Path
    function_name: str
    signature: list[str] = field(default_factory=list)
    params: Optional[list[dict]] = None


@dataclass
class KernelConfig:
    runtime: RuntimeKind
    aicpu_thread_num: int
    orchestration: OrchestrationEntry
    kernels: list[KernelEntry]
    root: Path
    platform: Optional[str] = None     # RUNTIME_CONFIG["platform"]: what the tree was compiled for
    # RUNTIME_CONFIG["distributed"]: {"world_size": W or a dynamic name such as "NR", "comm_abi": 1}
    # for a chip tree of a distributed program (its rank is known only at run time); None otherwise
    distributed: Optional[dict] = None
    # RUNTIME_CONFIG["ptoas_compat"]: the assembler release the tree's .pto is written for ("0.27"),
    # absent for pypto HEAD's form; its kernels are built with that release's FIFO rule
    ptoas_compat: Optional[str] = None
    # RUNTIME_CONFIG["sync_start_clusters"]: the clusters the program's sync-start tasks need to start
    # all their blocks together (the platform's count when a block count is known only at run time);
    # absent (0) when it has none.  A run whose RunConfig leaves ``clusters`` unset simulates at least these.
    sync_start_clusters: int = 0

    def kernel(self, func_id: int) -> KernelEntry:
        for k in self.kernels:
            if k.func_id == func_id:
                return k
        raise KeyError(func_id)

    def runtime_config(self) -> dict:
        """``RUNTIME_CONFIG`` as a dict: the runtime kind's wire name, ``aicpu_thread_num``, and the
        platform / assembler release the tree records."""
        rc = {"runtime": runtime_kind_to_name(self.runtime), "aicpu_thread_num": self.aicpu_thread_num}
        if self.platform:
            rc["platform"] = self.platform
        if self.ptoas_compat:
            rc["ptoas_compat"] = self.ptoas_compat
        if self.sync_start_clusters:
            rc["sync_start_clusters"] = self.sync_start_clusters
        return rc


# ---------------------------------------------------------------------------
# writer
# ---------------------------------------------------------------------------

def _literal(value: Any) -> str:
    """A deterministic Python literal (double-quoted strings, as the spec shows)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        # json.dumps yields a valid Python string literal (\uXXXX, \", \\ escapes).
        return json.dumps(value)
    if isinstance(value, Path):
        return json.dumps(str(value))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(str(k))}: {_literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"kernel_config.py cannot hold a value of type {type(value).__name__}: {value!r}")


def _source_expr(source: Path, base_dir: Path, root: Path) -> str:
    """``str(_ROOT_DIR / "a" / "b.cpp")`` for a source, relative to the file's folder; a source
    outside the tree by its absolute path."""
    src = Path(source)
    if not src.is_absolute():
        src = Path(root) / src
    rel = os.path.relpath(os.path.abspath(src), os.path.abspath(base_dir))
    parts = Path(rel).parts
    if parts and parts[0] == "..":
        return json.dumps(os.path.abspath(src))   # a file outside the tree (a kernel's external_source=)
    return "str(_ROOT_DIR" + "".join(f" / {json.dumps(p)}" for p in parts) + ")"


def render_kernel_config(cfg: KernelConfig, base_dir: Optional[Path] = None) -> str:
    """The text of ``kernel_config.py`` for ``cfg``, sources relative to ``base_dir``
    (default ``cfg.root``)."""
    base = Path(base_dir if base_dir is not None else cfg.root)
    root = Path(cfg.root)
    for k in cfg.kernels:
        if k.core_type not in CORE_TYPES:
            raise UserError(f"kernel {k.name!r}: core_type {k.core_type!r} is not one of {', '.join(CORE_TYPES)}")
    ids = [k.func_id for k in cfg.kernels]
    if len(set(ids)) != len(ids):
        raise UserError(f"duplicate kernel func_id in {ids}")
    out = [
        HEADER_COMMENT,
        "from pathlib import Path",
        "_ROOT_DIR = Path(__file__).parent",
        "",
        "RUNTIME_CONFIG = {",
        f"\t\"runtime\": {_literal(runtime_kind_to_name(cfg.runtime))},",
        f"\t\"aicpu_thread_num\": {int(cfg.aicpu_thread_num)},",
    ] + ([f"\t\"platform\": {_literal(cfg.platform)},"] if cfg.platform else []) + (
        [f"\t\"distributed\": {_literal(_check_distributed(cfg.distributed, None))},"] if cfg.distributed else []) + (
        [f"\t\"ptoas_compat\": {_literal(validate_ptoas_compat(cfg.ptoas_compat))},"] if cfg.ptoas_compat else []) + (
        [f"\t\"sync_start_clusters\": {int(cfg.sync_start_clusters)},"] if cfg.sync_start_clusters else []) + [
        "}",
        "ORCHESTRATION = {",
        f"\t\"source\": {_source_expr(cfg.orchestration.source, base, root)},",
        f"\t\"function_name\": {_literal(cfg.orchestration.function_name)},",
        f"\t\"signature\": {_literal(list(cfg.orchestration.signature))},",
    ]
    if cfg.orchestration.params is not None:
        out.append("\t\"params\": [")
        for p in cfg.orchestration.params:
            out.append(f"\t\t{_literal(dict(p))},")
        out.append("\t],")
    out.append("}")
    out.append("KERNELS = [")
    for k in sorted(cfg.kernels, key=lambda e: e.func_id):
        out.append(
            "\t{"
            f"\"func_id\": {int(k.func_id)}, "
            f"\"name\": {_literal(k.name)}, "
            f"\"source\": {_source_expr(k.source, base, root)}, "
            f"\"core_type\": {_literal(k.core_type)}, "
            f"\"signature\": {_literal(list(k.signature))}"
            "},"
        )
    out.append("]")
    return "\n".join(out) + "\n"


def write_kernel_config(path, cfg: KernelConfig) -> Path:
    """Write ``cfg`` to ``path`` (sources relative to the file's folder); returns the path."""
    path = Path(path)
    text = render_kernel_config(cfg, base_dir=path.parent)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


# ---------------------------------------------------------------------------
# reader
# ---------------------------------------------------------------------------

def _check_distributed(value: Any, path: Optional[Path]) -> dict:
    """RUNTIME_CONFIG["distributed"], validated (writer and reader alike)."""
    where = "RUNTIME_CONFIG['distributed']"

    def bad(key: str, what: str):
        return _err(path, f"{where}{key}", what) if path is not None else UserError(f"{where}{key}: {what}")

    if not isinstance(value, dict):
        raise bad("", f"expected a dict, got {type(value).__name__}")
    if "world_size" not in value:
        raise bad("['world_size']", "missing key")
    w = value["world_size"]
    if isinstance(w, bool) or not ((isinstance(w, int) and 1 <= w <= 64) or (isinstance(w, str) and w.isidentifier())):
        raise bad("['world_size']", f"expected a rank count 1..64 or a dynamic name such as 'NR', got {w!r}")
    abi = value.get("comm_abi", COMM_ABI)
    if abi != COMM_ABI:
        raise bad("['comm_abi']", f"CommContext ABI {abi!r} is not the one this ptokit implements ({COMM_ABI})")
    return {"world_size": w, "comm_abi": abi}


def _check_param(p: dict, i: int, path: Path, names: list) -> None:
    where = f"ORCHESTRATION['params'][{i}]"
    if p["kind"] not in PARAM_KINDS:
        raise _err(path, f"{where}['kind']", f"{p['kind']!r} is not one of {', '.join(repr(k) for k in PARAM_KINDS)}")
    if not isinstance(p["name"], str) or not p["name"]:
        raise _err(path, f"{where}['name']", f"expected a non-empty string, got {p['name']!r}")
    if "dtype" in p and p["dtype"] not in PARAM_DTYPES:
        raise _err(path, f"{where}['dtype']", f"{p['dtype']!r} is not a dtype name; expected one of "
                   f"{', '.join(PARAM_DTYPES)}")
    shape = p.get("shape")
    if shape is not None:
        if not isinstance(shape, (list, tuple)):
            raise _err(path, f"{where}['shape']", f"expected a list of dimensions such as [64, 64] or "
                       f"['M', 64], got {shape!r}")
        for k, d in enumerate(shape):
            if isinstance(d, bool) or not isinstance(d, (int, str)) or (isinstance(d, int) and d < 0):
                raise _err(path, f"{where}['shape'][{k}]", f"expected a non-negative int or a dimension name "
                           f"such as 'M', got {d!r}")
            if isinstance(d, str):
                try:
                    eval_dim(d, {})
                except ValueError as exc:
                    raise _err(path, f"{where}['shape'][{k}]", str(exc)) from None
    if p["kind"] in ("tensor", "window"):
        d = p.get("direction", "IN")
        if not isinstance(d, str) or d.upper() not in DIRECTIONS:
            raise _err(path, f"{where}['direction']", f"direction {d!r} is not one of {', '.join(DIRECTIONS)}")
    if p["kind"] == "comm_ctx":
        target = p.get("for")
        windows = [q for q in names if q[1] == "window"]
        if not isinstance(target, str) or target not in [n for n, _ in windows]:
            raise _err(path, f"{where}['for']", f"{target!r} does not name a window param "
                       f"({', '.join(n for n, _ in windows) or 'there is none'})")


def _err(path: Path, key: str, what: str) -> UserError:
    return UserError(f"{path}: {key}: {what}")


def _require(d: dict, key: str, path: Path, where: str) -> Any:
    if key not in d:
        return_key = f"{where}[{key!r}]"
        raise _err(path, return_key, "missing key")
    return d[key]


def _as_path(value: Any, path: Path, key: str, root: Path) -> Path:
    if not isinstance(value, (str, os.PathLike)):
        raise _err(path, key, f"expected a path string, got {type(value).__name__}")
    p = Path(value)
    return p if p.is_absolute() else (root / p)


def _signature(value: Any, path: Path, key: str) -> list[str]:
    if not isinstance(value, (list, tuple)):
        raise _err(path, key, f"expected a list of directions, got {type(value).__name__}")
    sig = []
    for i, d in enumerate(value):
        if not isinstance(d, str) or d.upper() not in DIRECTIONS:
            raise _err(path, f"{key}[{i}]", f"direction {d!r} is not one of {', '.join(DIRECTIONS)}")
        sig.append(d.upper())
    return sig


def read_kernel_config(path) -> KernelConfig:
    """Read a ``kernel_config.py`` as data (never executed) and validate it.

    ``path`` may be the file or the tree folder holding it.  Problems are a
    ``UserError`` naming the file and the line (a form the reader does not accept)
    or the key (a bad value); an unknown runtime wire name is a ``ConfigError``
    (a UserError that is also a ValueError) listing the valid names.
    """
    path = Path(path)
    if path.is_dir():
        path = path / "kernel_config.py"
    path = path.resolve()
    if not path.is_file():
        raise UserError(f"{path}: no kernel_config.py there")
    root = path.parent
    ns = load_config_namespace(path)

    rc = ns.get("RUNTIME_CONFIG", {})
    if not isinstance(rc, dict):
        raise _err(path, "RUNTIME_CONFIG", "expected a dict")
    try:
        runtime = runtime_kind_from_name(rc.get("runtime", runtime_kind_to_name(RuntimeKind.TENSORMAP_AND_RINGBUFFER)))
    except ValueError as exc:
        raise ConfigError(f"{path}: RUNTIME_CONFIG['runtime']: {exc}") from None
    threads = rc.get("aicpu_thread_num", 0)
    platform = rc.get("platform")
    if platform is not None and platform not in PLATFORMS:
        raise _err(path, "RUNTIME_CONFIG['platform']", f"expected one of {', '.join(PLATFORMS)}, got {platform!r}")
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
        raise _err(path, "RUNTIME_CONFIG['aicpu_thread_num']", f"expected a non-negative int, got {threads!r}")

    if "ORCHESTRATION" not in ns:
        raise _err(path, "ORCHESTRATION", "missing key")
    orch = ns["ORCHESTRATION"]
    if not isinstance(orch, dict):
        raise _err(path, "ORCHESTRATION", "expected a dict")
    osrc = _as_path(_require(orch, "source", path, "ORCHESTRATION"), path, "ORCHESTRATION['source']", root)
    fname = _require(orch, "function_name", path, "ORCHESTRATION")
    if not isinstance(fname, str) or not fname:
        raise _err(path, "ORCHESTRATION['function_name']", f"expected a non-empty string, got {fname!r}")
    osig = _signature(orch.get("signature", []), path, "ORCHESTRATION['signature']")
    params = orch.get("params")
    if params is not None:
        if not isinstance(params, list) or not all(isinstance(p, dict) for p in params):
            raise _err(path, "ORCHESTRATION['params']", "expected a list of dicts")
        seen = []
        for i, p in enumerate(params):
            for key in ("name", "kind"):
                if key not in p:
                    raise _err(path, f"ORCHESTRATION['params'][{i}][{key!r}]", "missing key")
            _check_param(p, i, path, seen)
            seen.append((p["name"], p["kind"]))
        params = [dict(p) for p in params]
    distributed = _check_distributed(rc["distributed"], path) if "distributed" in rc else None
    compat = rc.get("ptoas_compat")
    try:
        validate_ptoas_compat(compat)
    except ValueError as exc:
        raise ConfigError(f"{path}: RUNTIME_CONFIG['ptoas_compat']: {exc}") from None

    sync_clusters = rc.get("sync_start_clusters", 0)
    if not isinstance(sync_clusters, int) or isinstance(sync_clusters, bool) or sync_clusters < 0:
        raise _err(path, "RUNTIME_CONFIG['sync_start_clusters']", f"expected a non-negative int, got {sync_clusters!r}")

    if "KERNELS" not in ns:
        raise _err(path, "KERNELS", "missing key")
    kernels_raw = ns["KERNELS"]
    if not isinstance(kernels_raw, (list, tuple)):
        raise _err(path, "KERNELS", "expected a list")
    kernels: list[KernelEntry] = []
    for i, k in enumerate(kernels_raw):
        where = f"KERNELS[{i}]"
        if not isinstance(k, dict):
            raise _err(path, where, "expected a dict")
        fid = _require(k, "func_id", path, where)
        if not isinstance(fid, int) or isinstance(fid, bool) or fid < 0:
            raise _err(path, f"{where}['func_id']", f"expected a non-negative int, got {fid!r}")
        if fid > FUNC_ID_MAX:
            raise _err(path, f"{where}['func_id']", f"{fid} is out of range: a func_id is an int32 (at most {FUNC_ID_MAX})")
        src = _as_path(_require(k, "source", path, where), path, f"{where}['source']", root)
        ctype = _require(k, "core_type", path, where)
        if ctype not in CORE_TYPES:
            raise _err(path, f"{where}['core_type']", f"{ctype!r} is not one of {', '.join(CORE_TYPES)}")
        name = k.get("name", src.stem)
        if not isinstance(name, str) or not name:
            raise _err(path, f"{where}['name']", f"expected a non-empty string, got {name!r}")
        sig = _signature(k.get("signature", []), path, f"{where}['signature']")
        if kernels and fid <= kernels[-1].func_id:
            raise _err(path, f"{where}['func_id']",
                       f"KERNELS must be sorted by unique func_id ({fid} follows {kernels[-1].func_id})")
        kernels.append(KernelEntry(func_id=fid, name=name, source=src, core_type=ctype, signature=sig))

    return KernelConfig(
        runtime=runtime,
        aicpu_thread_num=threads,
        orchestration=OrchestrationEntry(source=osrc, function_name=fname, signature=osig, params=params),
        kernels=kernels,
        root=root,
        platform=platform,
        distributed=distributed,
        ptoas_compat=compat,
        sync_start_clusters=sync_clusters,
    )


__all__ = [
    "KernelEntry", "OrchestrationEntry", "KernelConfig",
    "write_kernel_config", "read_kernel_config", "render_kernel_config",
    "PARAM_KINDS", "PARAM_DTYPES", "SCALAR_PARAM_KINDS", "eval_dim", "is_scalar_param", "param_direction", "param_dtype", "COMM_ABI",
]
