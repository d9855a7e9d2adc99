"""A pypto name ptokit does not provide: one message naming it.

``NotProvidedAttribute`` (an ``AttributeError``, so ``hasattr`` and ``getattr(m, n, default)``
keep working) is raised by the surface modules' ``__getattr__``; ``NotProvidedModule`` (an
``ImportError``, so a program's ``try: import ... except ImportError`` fallback still works)
by the import alias for a module path ptokit has nowhere.  ``explain(exc)`` gives the message
for either, and for the plain ``AttributeError`` / ``ImportError`` Python raises when a program
asks ``pypto.language`` (which *is* ``ptokit.language``) for a name it lacks.
"""
from __future__ import annotations

import re
import sys
from typing import Optional

WHY = "no ptokit counterpart yet; see docs/pypto.md"


class NotProvided(Exception):
    """Base of both kinds: ``pypto_name`` is the dotted pypto name asked for."""

    def __init__(self, pypto_name: str, why: str = WHY):
        self.pypto_name = pypto_name
        self.why = why
        super().__init__(f"{pypto_name} is not provided by ptokit ({why})")


class NotProvidedAttribute(NotProvided, AttributeError):
    pass


class NotProvidedModule(NotProvided, ImportError):
    pass


def not_provided_attribute(module_name: str, name: str, why: str = WHY) -> NotProvidedAttribute:
    exc = NotProvidedAttribute(f"{module_name}.{name}", why)
    exc.name = name
    return exc


# ptokit module name -> the pypto name it was first imported as (written by the alias)
SERVED: dict = {}


def _pypto_name_of(ptokit_module: str) -> Optional[str]:
    """The pypto name a ptokit module was imported under in this process."""
    return SERVED.get(ptokit_module)


_CANNOT_IMPORT = re.compile(r"cannot import name '([^']+)' from '([^']+)'")


def explain(exc: BaseException) -> Optional[str]:
    """``"pypto.X.name is not provided by ptokit (...)"`` when ``exc`` is a pypto name ptokit
    lacks, asked for by the program itself; None for any other error."""
    if isinstance(exc, NotProvided):
        return str(exc)
    if isinstance(exc, ImportError) and not isinstance(exc, ModuleNotFoundError):
        m = _CANNOT_IMPORT.search(str(exc))
        if m:
            where = _pypto_name_of(m.group(2))
            if where is not None:
                return _asked_again(m.group(2), m.group(1)) or str(NotProvided(f"{where}.{m.group(1)}"))
        return None
    if isinstance(exc, AttributeError):
        obj = getattr(exc, "obj", None)
        name = getattr(exc, "name", None)
        module = getattr(obj, "__name__", None) if obj is not None and type(obj).__name__ == "module" else None
        if module is None:
            module, name = _from_module_getattr(exc, name)
        if module is not None and name and _asked_by_program(exc):
            where = _pypto_name_of(module)
            if where is not None:
                return str(NotProvided(f"{where}.{name}"))
    return None


_NOT_PROVIDED = re.compile(r"(\S+ is not provided by ptokit \(.*\))")
_NO_ATTRIBUTE = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")


def explain_text(text: str) -> Optional[str]:
    """``explain`` for an error known only as formatted text (pytest's report of a test module
    that failed to import): the NotProvided line, or a served module's missing attribute."""
    m = _NOT_PROVIDED.search(text)
    if m:
        return m.group(1)
    for m in _NO_ATTRIBUTE.finditer(text):
        where = _pypto_name_of(m.group(1))
        if where is not None:
            return str(NotProvided(f"{where}.{m.group(2)}"))
    for m in _CANNOT_IMPORT.finditer(text):
        where = _pypto_name_of(m.group(2))
        if where is not None:
            return str(NotProvided(f"{where}.{m.group(1)}"))
    return None


def _asked_again(module: str, name: str) -> Optional[str]:
    """``from M import name`` turned the surface module's NotProvided into a bare ImportError:
    ask the module again for the reason it gives."""
    try:
        getattr(sys.modules.get(module), name)
    except NotProvided as exc:
        return str(exc)
    except Exception:  # noqa: BLE001 - any other answer: no reason to add
        return None
    return None


def _frames(exc):
    tb = exc.__traceback__
    out = []
    while tb is not None:
        out.append(tb.tb_frame)
        tb = tb.tb_next
    return out


def _from_module_getattr(exc, name):
    """An AttributeError raised by a module-level ``__getattr__`` (no ``obj``): its module and name."""
    frames = _frames(exc)
    if not frames or frames[-1].f_code.co_name != "__getattr__":
        return None, name
    g = frames[-1].f_globals
    if "__getattr__" not in g or g.get("__getattr__").__code__ is not frames[-1].f_code:
        return None, name
    if not name:
        name = frames[-1].f_locals.get("name")
    return g.get("__name__"), name


def _asked_by_program(exc) -> bool:
    """The failing lookup was written in the program (the frame that asked is not ptokit's own
    code): a lookup deep inside ptokit that fails is a ptokit bug, not a missing pypto name."""
    frames = _frames(exc)
    if frames and frames[-1].f_code.co_name == "__getattr__":
        frames = frames[:-1]
    if not frames:
        return False
    asker = frames[-1].f_globals.get("__name__", "")
    return not (asker == "ptokit" or asker.startswith("ptokit."))


def print_explained(prog: str, message: str) -> None:
    print(f"{prog}: error: {message}", file=sys.stderr)
