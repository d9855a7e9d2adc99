"""The module-level ``__getattr__`` of every surface module: a name the module does not define
is looked up in the ptokit modules it stands for; one neither has is
``NotProvidedAttribute`` naming it (an AttributeError, so ``hasattr`` stays False)."""
from __future__ import annotations

import importlib

from ..missing import not_provided_attribute


def surface_getattr(pypto_name: str, *sources: str, why: dict = None, lazy: dict = None):
    """``__getattr__`` for the surface module of ``pypto_name``; ``lazy`` maps a name to the
    ``"module:attribute"`` it is (loaded on first use, so ``import pypto`` stays light);
    ``sources`` are ptokit module names asked in order; ``why`` maps a name pypto has to the
    reason ptokit does not."""
    why = why or {}
    lazy = lazy or {}

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in lazy:
            module, attr = lazy[name].split(":")
            return getattr(importlib.import_module(module), attr)
        if name not in why:
            for src in sources:
                try:
                    return getattr(importlib.import_module(src), name)
                except AttributeError:
                    continue
        if name in why:
            raise not_provided_attribute(pypto_name, name, why[name])
        raise not_provided_attribute(pypto_name, name)
    return __getattr__
