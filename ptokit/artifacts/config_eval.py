"""Read ``kernel_config.py`` as data: parse it with ``ast``, evaluate a closed subset.

The file is Python by format (the spec says so, and other tools ``runpy`` it), but ptokit
never runs it: code in a foreign tree would run on every build, run and ``@pl.jit`` disk
hit.  Accepted, and nothing else:

* a docstring or other bare string; ``from __future__ import ...``;
* ``from pathlib import Path`` and ``from simpler.task_interface import ArgDirection``,
  each under any alias;
* ``NAME = <expr>`` (also ``NAME: T = <expr>``; the annotation is not evaluated), where
  ``<expr>`` is built from

  - literals: str, int, float, bool, None, and dict / list / tuple displays of them;
    unary ``-``/``+`` on a number;
  - a name assigned earlier in the file;
  - ``Path(__file__)`` (the file's own resolved path), ``P.parent``, ``P.resolve()``,
    ``P / "part"`` on such a path, and ``str(P)``;
  - ``D.IN`` / ``D.OUT`` / ``D.INOUT`` / ``D.SCALAR`` on the imported ``ArgDirection``,
    read as the direction's name (``"IN"``, ...).

Anything else -- another import, a call, a loop, a comprehension, an f-string -- is a
``UserError`` located at the file, line and column, with the line and a caret.
"""
from __future__ import annotations

import ast
import warnings
from pathlib import Path
from typing import Any, Dict

from ..errors import SourceLoc, UserError

MAX_BYTES = 16 << 20          # a kernel_config.py is a few KB; refuse to parse a huge file
DIRECTION_NAMES = ("SCALAR", "IN", "OUT", "INOUT")   # ArgDirection members (runtime.md)

_ACCEPTED = ("literals, `from pathlib import Path`, `from simpler.task_interface import ArgDirection`, "
             "`NAME = Path(__file__).parent`, `str(NAME / \"dir\" / \"file.cpp\")` and ArgDirection members")


class _Marker:
    """A name bound by one of the accepted imports."""

    def __init__(self, what: str):
        self.what = what

    def __repr__(self) -> str:
        return f"<{self.what}>"


_PATH = _Marker("pathlib.Path")
_ARG_DIRECTION = _Marker("simpler.task_interface.ArgDirection")
_FILE = _Marker("__file__")
_IMPORTS = {("pathlib", "Path"): _PATH, ("simpler.task_interface", "ArgDirection"): _ARG_DIRECTION}
_LITERALS = (str, int, float, bool, type(None))


class _Reject(Exception):
    def __init__(self, node: ast.AST, what: str):
        super().__init__(what)
        self.node = node
        self.what = what


def _snippet(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - only for the message
        return type(node).__name__
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


class _Evaluator:
    def __init__(self, path: Path):
        self.path = path
        self.ns: Dict[str, Any] = {}

    def reject(self, node: ast.AST, what: str) -> _Reject:
        return _Reject(node, what)

    # ---------------------------------------------------------------- statements
    def statement(self, st: ast.stmt) -> None:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
            return                                              # docstring / bare string
        if isinstance(st, ast.ImportFrom):
            self.import_from(st)
            return
        if isinstance(st, ast.Assign):
            value = self.expr(st.value)
            for t in st.targets:
                if not isinstance(t, ast.Name):
                    raise self.reject(t, f"assignment to `{_snippet(t)}` (only `NAME = value` is accepted)")
                self.ns[t.id] = value
            return
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            self.ns[st.target.id] = self.expr(st.value)
            return
        raise self.reject(st, f"the statement `{_snippet(st)}`")

    def import_from(self, st: ast.ImportFrom) -> None:
        if st.module == "__future__" and not st.level:
            return
        for alias in st.names:
            marker = _IMPORTS.get((st.module, alias.name)) if not st.level else None
            if marker is None:
                raise self.reject(st, f"the import `{_snippet(st)}`")
            self.ns[alias.asname or alias.name] = marker

    # ---------------------------------------------------------------- expressions
    def expr(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, _LITERALS):
                return node.value
            raise self.reject(node, f"the constant `{_snippet(node)}`")
        if isinstance(node, ast.List):
            return [self.expr(e) for e in node.elts]
        if isinstance(node, ast.Tuple):
            return tuple(self.expr(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            out = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    raise self.reject(v, f"dict unpacking `**{_snippet(v)}`")
                key = self.expr(k)
                if not isinstance(key, _LITERALS):
                    raise self.reject(k, f"the dict key `{_snippet(k)}` (keys are strings or numbers)")
                out[key] = self.expr(v)
            return out
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = self.expr(node.operand)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return -v if isinstance(node.op, ast.USub) else v
            raise self.reject(node, f"the expression `{_snippet(node)}`")
        if isinstance(node, ast.Name):
            if node.id == "__file__":
                return _FILE
            if node.id in self.ns:
                return self.ns[node.id]
            raise self.reject(node, f"the name `{node.id}`, which is not assigned earlier in the file")
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            left, right = self.expr(node.left), self.expr(node.right)
            if isinstance(left, Path) and isinstance(right, (str, Path)):
                return left / right
            raise self.reject(node, f"the expression `{_snippet(node)}` (`/` joins a path and a string)")
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.reject(node, f"the expression `{_snippet(node)}`")

    def attribute(self, node: ast.Attribute) -> Any:
        base = self.expr(node.value)
        if base is _ARG_DIRECTION:
            if node.attr in DIRECTION_NAMES:
                return node.attr
            raise self.reject(node, f"`{_snippet(node)}` (ArgDirection has {', '.join(DIRECTION_NAMES)})")
        if isinstance(base, Path) and node.attr == "parent":
            return base.parent
        raise self.reject(node, f"the attribute `{_snippet(node)}`")

    def call(self, node: ast.Call) -> Any:
        if node.keywords or len(node.args) > 1 or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.reject(node, f"the call `{_snippet(node)}`")
        f = node.func
        if isinstance(f, ast.Name) and f.id == "str" and "str" not in self.ns and len(node.args) == 1:
            v = self.expr(node.args[0])
            if isinstance(v, (Path, str)):
                return str(v)
            raise self.reject(node, f"the call `{_snippet(node)}` (`str()` takes a path)")
        if isinstance(f, ast.Name) and self.ns.get(f.id) is _PATH and len(node.args) == 1:
            v = self.expr(node.args[0])
            if v is _FILE:
                return self.path
            raise self.reject(node, f"the call `{_snippet(node)}` (only `Path(__file__)` is accepted)")
        if isinstance(f, ast.Attribute) and f.attr == "resolve" and not node.args:
            base = self.expr(f.value)
            if isinstance(base, Path):
                return base          # the file's own path is already resolved
        raise self.reject(node, f"the call `{_snippet(node)}`")


def _located(path: Path, lines: list, line: int, col: int, message: str) -> UserError:
    src = lines[line - 1] if 0 < line <= len(lines) else None
    return UserError(message, SourceLoc(str(path), line, col, src))


def load_config_namespace(path: Path) -> Dict[str, Any]:
    """The names a ``kernel_config.py`` assigns, evaluated without running it (module doc)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise UserError(f"{path}: {size} bytes; a kernel_config.py is at most {MAX_BYTES} bytes")
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror or exc}") from None
    text = data.decode("utf-8", "replace")
    lines = text.splitlines()
    try:
        with warnings.catch_warnings():           # odd literals warn; the file is data, not code
            warnings.simplefilter("ignore")
            tree = ast.parse(data, filename=str(path))
    except SyntaxError as exc:
        line, col = exc.lineno or 1, exc.offset or 1
        raise _located(path, lines, line, col, f"cannot load: not valid Python syntax ({exc.msg})") from None
    except (ValueError, UnicodeDecodeError) as exc:      # null bytes, bad encoding
        raise UserError(f"{path}: cannot load: {exc}") from None
    except (RecursionError, MemoryError):
        raise UserError(f"{path}: cannot load: the file is nested too deeply to parse") from None
    ev = _Evaluator(path)
    try:
        for st in tree.body:
            ev.statement(st)
    except _Reject as r:
        line, col = getattr(r.node, "lineno", 1), getattr(r.node, "col_offset", 0) + 1
        raise _located(path, lines, line, col,
                       f"kernel_config.py is read as data, never run: {r.what} is not accepted here "
                       f"(accepted: {_ACCEPTED})") from None
    except RecursionError:
        raise UserError(f"{path}: cannot load: a value is nested too deeply") from None
    return ev.ns


__all__ = ["load_config_namespace", "DIRECTION_NAMES"]
