"""Write and load the plain-Python programs of a distributed artifact tree.

``orchestration/host_orch.py`` (the host function) and ``sub_workers/<fn>.py`` (SubWorker
bodies) are the only files of a tree that are *executed*, in the caller's process.  So:

* the one writer, ``write_script``, checks that the text parses, defines the entry function
  and imports nothing, writes it and returns its sha256, which ``distributed_config.py``
  records (``entry.sha256``);
* the one loader, ``load_script_function``, reads the bytes, compares their sha256 with the
  recorded one (a file ptokit's writer did not produce is never run), checks again that it
  imports nothing, and executes it in a fresh namespace whose builtins have no ``__import__``.

``host_orch.py`` defines ``entry(rt, tensors, world_size)``: ``rt`` is the parent's host runtime
(``alloc_domain``, ``window``, ``dispatch``, ``collective``, ``sub``, ``wait_for``, see
docs/distributed.md), ``tensors`` the host tensors in ``DISTRIBUTED["params"]`` order.
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import os
from pathlib import Path
from typing import Callable, Optional

from ..errors import SourceLoc, UserError

ENTRY_FUNCTION = "entry"
ENTRY_PARAMS = ("rt", "tensors", "world_size")
MAX_BYTES = 4 << 20


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check(text: str, filename: str, function_name: str, params: Optional[tuple]) -> None:
    try:
        tree = ast.parse(text, filename=filename)
    except SyntaxError as exc:
        line = (text.splitlines() or [""])[max((exc.lineno or 1) - 1, 0)] if text else ""
        raise UserError(f"not valid Python ({exc.msg})", SourceLoc(filename, exc.lineno or 1, exc.offset or 1, line)) from None
    lines = text.splitlines()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            src = lines[node.lineno - 1] if 0 < node.lineno <= len(lines) else None
            raise UserError("a distributed tree's Python programs import nothing (they get everything through `rt`)",
                            SourceLoc(filename, node.lineno, node.col_offset + 1, src))
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function_name]
    if not fns:
        raise UserError(f"{filename}: defines no function `{function_name}`")
    if params is not None:
        got = tuple(a.arg for a in fns[0].args.args)
        if got != params:
            raise UserError(f"{filename}: `{function_name}` takes ({', '.join(got)}); expected ({', '.join(params)})")


def write_script(path, text: str, function_name: str = ENTRY_FUNCTION, params: Optional[tuple] = ENTRY_PARAMS) -> str:
    """Check ``text`` (parses, defines ``function_name(*params)``, imports nothing), write it to
    ``path`` and return its sha256 (to record in distributed_config.py)."""
    path = Path(path)
    _check(text, str(path), function_name, params)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return sha256_text(text)


def load_script_function(path, sha256: str, function_name: str = ENTRY_FUNCTION,
                         params: Optional[tuple] = ENTRY_PARAMS) -> Callable:
    """The function ``function_name`` of the script at ``path``, executed only when its bytes
    have the recorded ``sha256`` (UserError otherwise: the file changed since ptokit wrote it)."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_BYTES:
            raise UserError(f"{path}: larger than {MAX_BYTES} bytes; not a program ptokit wrote")
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror or exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    if not isinstance(sha256, str) or digest != sha256.lower():
        raise UserError(f"{path}: its sha256 is {digest}, but distributed_config.py records {sha256!r}: the file "
                        f"changed after ptokit wrote it, so it is not run (compile the program again)")
    text = data.decode("utf-8")
    _check(text, str(path), function_name, params)
    safe = {k: v for k, v in vars(builtins).items() if k not in ("__import__",)}
    ns = {"__builtins__": safe, "__name__": f"ptokit_script_{path.stem}", "__file__": str(path)}
    exec(compile(text, str(path), "exec"), ns)  # noqa: S102 - verified: ptokit's own output (sha256 above)
    return ns[function_name]


__all__ = ["write_script", "load_script_function", "sha256_text", "ENTRY_FUNCTION", "ENTRY_PARAMS"]
