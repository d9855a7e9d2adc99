"""The import alias: ``pypto`` and ``pypto.X.Y`` resolve to ptokit modules, in this process only.

A ``sys.meta_path`` finder placed first (so an installed pypto is not found while it is there;
nothing is written to disk and nothing outlives the process):

* ``pypto`` is ``ptokit.pypto.surface``; ``pypto.X.Y`` is ``ptokit.pypto.surface.X.Y`` when that
  module exists (pypto's names for ptokit's objects: ``pypto.runtime``, ``pypto.ir``,
  ``pypto.backend``, ``pypto.pypto_core``, ...), else ``ptokit.X.Y`` for the packages pypto and
  ptokit share (``pypto.language`` *is* ``ptokit.language``: the DSL's objects keep their
  identity), else ``missing.NotProvidedModule`` naming it;
* the module object is ptokit's own (``sys.modules["pypto.language"] is ptokit.language``), so
  nothing is copied and ``pl.add is ptokit.language.add``.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from typing import Optional

from .. import targets
from ..errors import UserError
from .missing import SERVED as _served
from .missing import NotProvidedModule

SURFACE = "ptokit.pypto.surface"
# pypto packages whose modules ptokit keeps at the same dotted path (when no surface module exists)
SHARED = ("language", "ir", "runtime", "backend", "jit", "pypto_core")

def served_as(ptokit_module: str) -> Optional[str]:
    return _served.get(ptokit_module)


def _exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def target_of(pypto_name: str) -> str:
    """The ptokit module ``pypto_name`` resolves to; NotProvidedModule when there is none."""
    rest = pypto_name[len("pypto"):]               # "" or ".X.Y"
    surface = SURFACE + rest
    if _exists(surface):
        return surface
    parts = rest.lstrip(".").split(".")
    if parts[0] in SHARED and _exists("ptokit" + rest):
        return "ptokit" + rest
    raise NotProvidedModule(pypto_name)


class PyptoAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``pypto`` and ``pypto.*``; loads each as the ptokit module it names."""

    def __init__(self):
        self._specs = {}

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "pypto" and not fullname.startswith("pypto."):
            return None
        real = target_of(fullname)
        real_spec = importlib.util.find_spec(real)
        spec = importlib.util.spec_from_loader(fullname, self,
                                               is_package=real_spec.submodule_search_locations is not None)
        spec.loader_state = real
        return spec

    def create_module(self, spec):
        module = importlib.import_module(spec.loader_state)
        _served.setdefault(module.__name__, spec.name)
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module):
        # ptokit's module is loaded already (create_module imported it); the import system has
        # just set its __spec__ to the alias's, which would make it look like a pypto module to
        # importlib: it keeps its own
        module.__spec__ = self._specs.pop(module.__name__, module.__spec__)


_finder: Optional[PyptoAlias] = None


def installed() -> bool:
    return _finder is not None and _finder in sys.meta_path


def install(simulate_hardware: bool = True) -> None:
    """Resolve ``pypto`` to ptokit in this process; a program asking for a hardware platform
    runs on its simulator unless ``simulate_hardware`` is False.  Idempotent."""
    global _finder
    targets.simulate_hardware(simulate_hardware)
    if installed():
        return
    loaded = sorted(n for n in sys.modules if n == "pypto" or n.startswith("pypto."))
    if loaded:
        raise UserError(f"pypto is imported already in this process ({loaded[0]} from "
                        f"{getattr(sys.modules[loaded[0]], '__file__', '?')}); ptokit's alias must come first")
    _finder = PyptoAlias()
    sys.meta_path.insert(0, _finder)


def uninstall() -> None:
    """Remove the alias and forget the ``pypto`` modules it served (ptokit's modules stay loaded)."""
    global _finder
    if _finder is not None and _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    _finder = None
    for name in [n for n in sys.modules if n == "pypto" or n.startswith("pypto.")]:
        del sys.modules[name]
    _served.clear()
    targets.simulate_hardware(False)
