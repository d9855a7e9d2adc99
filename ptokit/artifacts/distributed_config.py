"""Write and read ``distributed_config.py``, the manifest of a distributed artifact tree.

```
output_dir/
├── distributed_config.py       # DISTRIBUTED = {...}: this file
├── orchestration/host_orch.py  # entry(rt, tensors, world_size): artifacts/host_orch.py
├── next_levels/<fn>/           # one single-chip tree per chip (D) function, builtin collectives too
└── sub_workers/<fn>.py         # SubWorker bodies
```

The file is one assignment ``DISTRIBUTED = {...}`` of literals (strings, numbers, booleans,
None, lists, dicts), after an optional comment and docstring.  It is read as data: parsed with
``ast`` and evaluated with ``ast.literal_eval``, never executed; anything else is a located
``UserError``.  The schema is in docs/contracts.md ("distributed_config.py"); paths are
relative to the tree, with ``/``.
"""
from __future__ import annotations

import ast
import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, List, Optional

from ..errors import ConfigError, SourceLoc, UserError
from ..targets import (MAX_RANKS, PLATFORMS, TRANSPORTS, RuntimeKind, check_device_ids, runtime_kind_from_name,
                       runtime_kind_to_name)

FILE_NAME = "distributed_config.py"
FORMAT = 1
HEADER_COMMENT = "# Distributed Program Configuration"
MAX_BYTES = 4 << 20
COLLECTIVE_OPS = ("allreduce", "allgather", "all_to_all", "reduce_scatter", "broadcast", "barrier")


@dataclass
class ScriptEntry:
    """A plain-Python program of the tree (executed only with a matching sha256)."""
    source: Path
    function_name: str
    sha256: str
    name: str = ""               # sub_workers: the SubWorker's name
    runtime_bound: bool = False  # sub_workers: an abstract SubWorker (`...` body), bound by prepare(callbacks=)


@dataclass
class ChipEntry:
    """A chip (per-device, D) function: a single-chip artifact tree."""
    name: str
    path: Path


@dataclass
class DistributedManifest:
    world_size: int
    device_ids: List[int]
    platform: str
    runtime: RuntimeKind
    entry: ScriptEntry
    chips: List[ChipEntry]
    root: Path
    aicpu_thread_num: int = 0
    num_sub_workers: int = 0
    transport: str = "shm"
    world_size_name: Optional[str] = None    # "NR" when the host signature has NR = pl.dynamic("NR")
    params: List[dict] = field(default_factory=list)
    domains: List[dict] = field(default_factory=list)
    collectives: List[dict] = field(default_factory=list)
    sub_workers: List[ScriptEntry] = field(default_factory=list)

    def chip(self, name: str) -> ChipEntry:
        for c in self.chips:
            if c.name == name:
                return c
        raise KeyError(name)

    def domain(self, name: str) -> dict:
        for d in self.domains:
            if d["name"] == name:
                return d
        raise KeyError(name)


# ---------------------------------------------------------------------------
# validation (shared by writer and reader)
# ---------------------------------------------------------------------------

def _int(v: Any, lo: int = 0) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= lo


def _rel(p: Path, root: Path) -> str:
    rel = os.path.relpath(os.path.abspath(p if Path(p).is_absolute() else root / p), os.path.abspath(root))
    return PurePosixPath(*Path(rel).parts).as_posix()


# ---------------------------------------------------------------------------
# writer
# ---------------------------------------------------------------------------

def _literal(value: Any, indent: int = 0) -> str:
    """A deterministic Python literal; dicts and lists of dicts one entry per line."""
    pad = "\t" * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{pad}\t{json.dumps(str(k))}: {_literal(v, indent + 1)}," for k, v in value.items()]
        return "{\n" + "\n".join(items) + f"\n{pad}}}"
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, dict) for v in value):
            items = [f"{pad}\t{_literal(v, indent + 1)}," for v in value]
            return "[\n" + "\n".join(items) + f"\n{pad}]"
        return "[" + ", ".join(_literal(v, indent) for v in value) + "]"
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, Path):
        return json.dumps(value.as_posix())
    if isinstance(value, str):
        return json.dumps(value)
    raise TypeError(f"distributed_config.py cannot hold a value of type {type(value).__name__}: {value!r}")


def manifest_dict(m: DistributedManifest) -> dict:
    """The ``DISTRIBUTED`` dict of a manifest (paths relative to ``m.root``)."""
    root = Path(m.root)
    check_device_ids(m.device_ids)
    if m.world_size != len(m.device_ids):
        raise UserError(f"world_size {m.world_size} but {len(m.device_ids)} device ids")
    d = {
        "format": FORMAT,
        "world_size": int(m.world_size),
        "world_size_name": m.world_size_name,
        "device_ids": [int(x) for x in m.device_ids],
        "platform": m.platform,
        "runtime": runtime_kind_to_name(m.runtime),
        "aicpu_thread_num": int(m.aicpu_thread_num),
        "num_sub_workers": int(m.num_sub_workers),
        "transport": m.transport,
        "entry": {"source": _rel(m.entry.source, root), "function_name": m.entry.function_name,
                  "sha256": m.entry.sha256},
        "params": [dict(p) for p in m.params],
        "domains": [dict(x) for x in m.domains],
        "chips": [{"name": c.name, "path": _rel(c.path, root)} for c in m.chips],
        "collectives": [dict(c) for c in m.collectives],
        "sub_workers": [dict({"name": s.name, "source": _rel(s.source, root), "function_name": s.function_name,
                              "sha256": s.sha256}, **({"runtime_bound": True} if s.runtime_bound else {}))
                        for s in m.sub_workers],
    }
    try:
        _validate(d, root, None)
    except _Bad as b:
        raise UserError(f"{b.key}: {b.what}") from None
    return d


def render_distributed_config(m: DistributedManifest) -> str:
    return f"{HEADER_COMMENT}\nDISTRIBUTED = {_literal(manifest_dict(m))}\n"


def write_distributed_config(path, m: DistributedManifest) -> Path:
    """Write ``m`` to ``path`` (a file, or the tree folder); returns the file's path."""
    path = Path(path)
    if path.is_dir() or path.name != FILE_NAME:
        path = path / FILE_NAME
    text = render_distributed_config(m)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


# ---------------------------------------------------------------------------
# reader
# ---------------------------------------------------------------------------

class _Bad(Exception):
    def __init__(self, key: str, what: str):
        super().__init__(what)
        self.key, self.what = key, what


def _need(d: dict, key: str, where: str):
    if not isinstance(d, dict):
        raise _Bad(where, f"expected a dict, got {type(d).__name__}")
    if key not in d:
        raise _Bad(f"{where}[{key!r}]", "missing key")
    return d[key]


def _str(v: Any, key: str) -> str:
    if not isinstance(v, str) or not v:
        raise _Bad(key, f"expected a non-empty string, got {v!r}")
    return v


def _path(v: Any, key: str, root: Path) -> Path:
    s = _str(v, key)
    p = PurePosixPath(s)
    if p.is_absolute() or ".." in p.parts:
        raise _Bad(key, f"{s!r}: paths are relative to the tree and stay inside it")
    return root / Path(*p.parts)


def _script(d: Any, where: str, root: Path, named: bool) -> ScriptEntry:
    src = _path(_need(d, "source", where), f"{where}['source']", root)
    fn = _str(d.get("function_name", "entry" if not named else None), f"{where}['function_name']")
    sha = _str(_need(d, "sha256", where), f"{where}['sha256']")
    if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
        raise _Bad(f"{where}['sha256']", f"expected 64 lowercase hex digits, got {sha!r}")
    name = _str(_need(d, "name", where), f"{where}['name']") if named else ""
    bound = d.get("runtime_bound", False)
    if not isinstance(bound, bool):
        raise _Bad(f"{where}['runtime_bound']", f"expected True or False, got {bound!r}")
    return ScriptEntry(src, fn, sha, name, bound)


def _validate(d: Any, root: Path, path: Optional[Path]) -> DistributedManifest:
    if not isinstance(d, dict):
        raise _Bad("DISTRIBUTED", f"expected a dict, got {type(d).__name__}")
    fmt = d.get("format", FORMAT)
    if fmt != FORMAT:
        raise _Bad("DISTRIBUTED['format']", f"format {fmt!r}; this ptokit reads format {FORMAT}")
    try:
        ids = check_device_ids(_need(d, "device_ids", "DISTRIBUTED"), "DISTRIBUTED['device_ids']")
    except ValueError as exc:
        raise _Bad("DISTRIBUTED['device_ids']", str(exc)) from None
    w = d.get("world_size", len(ids))
    if not _int(w, 1) or w != len(ids):
        raise _Bad("DISTRIBUTED['world_size']", f"{w!r} does not equal the {len(ids)} device ids")
    wname = d.get("world_size_name")
    if wname is not None and (not isinstance(wname, str) or not wname.isidentifier()):
        raise _Bad("DISTRIBUTED['world_size_name']", f"expected a name such as 'NR' or None, got {wname!r}")
    platform = _need(d, "platform", "DISTRIBUTED")
    if platform not in PLATFORMS:
        raise _Bad("DISTRIBUTED['platform']", f"expected one of {', '.join(PLATFORMS)}, got {platform!r}")
    try:
        runtime = runtime_kind_from_name(d.get("runtime", runtime_kind_to_name(RuntimeKind.TENSORMAP_AND_RINGBUFFER)))
    except ValueError as exc:
        raise _Bad("DISTRIBUTED['runtime']", str(exc)) from None
    for key in ("aicpu_thread_num", "num_sub_workers"):
        if not _int(d.get(key, 0)):
            raise _Bad(f"DISTRIBUTED[{key!r}]", f"expected a non-negative int, got {d.get(key)!r}")
    transport = d.get("transport", "shm")
    if transport not in TRANSPORTS:
        raise _Bad("DISTRIBUTED['transport']", f"expected one of {', '.join(TRANSPORTS)}, got {transport!r}")
    entry = _script(_need(d, "entry", "DISTRIBUTED"), "DISTRIBUTED['entry']", root, named=False)
    params = d.get("params", [])
    if not isinstance(params, list):
        raise _Bad("DISTRIBUTED['params']", "expected a list of dicts")
    for i, p in enumerate(params):
        where = f"DISTRIBUTED['params'][{i}]"
        _str(_need(p, "name", where), f"{where}['name']")
        if _need(p, "kind", where) not in ("tensor", "scalar"):
            raise _Bad(f"{where}['kind']", f"{p['kind']!r} is not 'tensor' or 'scalar' (host parameters)")
        _str(p.get("dtype", "FP32"), f"{where}['dtype']")
        if p["kind"] == "tensor":
            if str(p.get("direction", "IN")).upper() not in ("IN", "OUT", "INOUT"):
                raise _Bad(f"{where}['direction']", f"{p.get('direction')!r} is not IN, OUT or INOUT")
            shape = p.get("shape", [])
            if not isinstance(shape, list) or not all(_int(s) or (isinstance(s, str) and s.isidentifier()) for s in shape):
                raise _Bad(f"{where}['shape']", f"expected a list of sizes or dynamic names, got {shape!r}")
    domains = d.get("domains", [])
    if not isinstance(domains, list):
        raise _Bad("DISTRIBUTED['domains']", "expected a list of dicts")
    for i, dom in enumerate(domains):
        where = f"DISTRIBUTED['domains'][{i}]"
        _str(_need(dom, "name", where), f"{where}['name']")
        slots = _need(dom, "slots", where)
        if not isinstance(slots, list):
            raise _Bad(f"{where}['slots']", "expected a list of dicts")
        for j, s in enumerate(slots):
            sw = f"{where}['slots'][{j}]"
            _str(_need(s, "name", sw), f"{sw}['name']")
            if not _int(_need(s, "nbytes", sw), 1):
                raise _Bad(f"{sw}['nbytes']", f"expected a positive byte count, got {s['nbytes']!r}")
    chips_raw = _need(d, "chips", "DISTRIBUTED")
    if not isinstance(chips_raw, list):
        raise _Bad("DISTRIBUTED['chips']", "expected a list of dicts")
    chips = []
    for i, c in enumerate(chips_raw):
        where = f"DISTRIBUTED['chips'][{i}]"
        name = _str(_need(c, "name", where), f"{where}['name']")
        if any(x.name == name for x in chips):
            raise _Bad(f"{where}['name']", f"chip {name!r} is listed twice")
        chips.append(ChipEntry(name, _path(_need(c, "path", where), f"{where}['path']", root)))
    colls = d.get("collectives", [])
    if not isinstance(colls, list):
        raise _Bad("DISTRIBUTED['collectives']", "expected a list of dicts")
    for i, c in enumerate(colls):
        where = f"DISTRIBUTED['collectives'][{i}]"
        if _need(c, "op", where) not in COLLECTIVE_OPS:
            raise _Bad(f"{where}['op']", f"{c['op']!r} is not one of {', '.join(COLLECTIVE_OPS)}")
        _str(_need(c, "key", where), f"{where}['key']")
        chip = _str(_need(c, "chip", where), f"{where}['chip']")
        if not any(x.name == chip for x in chips):
            raise _Bad(f"{where}['chip']", f"{chip!r} is not one of the tree's chips")
    subs_raw = d.get("sub_workers", [])
    if not isinstance(subs_raw, list):
        raise _Bad("DISTRIBUTED['sub_workers']", "expected a list of dicts")
    subs = [_script(s, f"DISTRIBUTED['sub_workers'][{i}]", root, named=True) for i, s in enumerate(subs_raw)]
    return DistributedManifest(world_size=w, device_ids=ids, platform=platform, runtime=runtime, entry=entry,
                               chips=chips, root=root, aicpu_thread_num=d.get("aicpu_thread_num", 0),
                               num_sub_workers=d.get("num_sub_workers", 0), transport=transport,
                               world_size_name=wname, params=[dict(p) for p in params],
                               domains=[dict(x) for x in domains], collectives=[dict(c) for c in colls],
                               sub_workers=subs)


def is_distributed_tree(path) -> bool:
    """True when ``path`` (a folder) holds a distributed_config.py."""
    return (Path(path) / FILE_NAME).is_file()


def read_distributed_config(path) -> DistributedManifest:
    """Read a distributed tree's manifest (``path``: the file or the tree folder) as data."""
    path = Path(path)
    if path.is_dir():
        path = path / FILE_NAME
    path = path.resolve()
    if not path.is_file():
        raise UserError(f"{path}: no {FILE_NAME} there")
    try:
        if path.stat().st_size > MAX_BYTES:
            raise UserError(f"{path}: larger than {MAX_BYTES} bytes; not a distributed_config.py")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read: {exc}") from None
    lines = text.splitlines()

    def located(node, what):
        line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1
        src = lines[line - 1] if 0 < line <= len(lines) else None
        return UserError(f"{FILE_NAME} is read as data, never run: {what}", SourceLoc(str(path), line, col, src))

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise located(exc, f"not valid Python syntax ({exc.msg})") from None
    value = None
    for st in tree.body:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
            continue
        if (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                and st.targets[0].id == "DISTRIBUTED" and value is None):
            try:
                value = ast.literal_eval(st.value)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                raise located(st.value, "the value of DISTRIBUTED must be literals only "
                                        "(strings, numbers, True/False/None, lists, dicts)") from None
            continue
        raise located(st, "only one `DISTRIBUTED = {...}` assignment of literals is accepted")
    if value is None:
        raise UserError(f"{path}: DISTRIBUTED: missing")
    try:
        return _validate(value, path.parent, path)
    except _Bad as b:
        cls = ConfigError if b.key in ("DISTRIBUTED['runtime']", "DISTRIBUTED['transport']") else UserError
        raise cls(f"{path}: {b.key}: {b.what}") from None


__all__ = ["DistributedManifest", "ChipEntry", "ScriptEntry", "write_distributed_config", "read_distributed_config",
           "render_distributed_config", "manifest_dict", "is_distributed_tree", "check_device_ids", "FILE_NAME",
           "COLLECTIVE_OPS", "MAX_RANKS"]
