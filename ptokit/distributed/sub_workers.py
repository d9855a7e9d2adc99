"""How a SubWorker's Python runs when the host function calls it (``rt.sub(name, args)``, which
passes numpy views of the host tensors, after the dispatches writing them):

* ``body(fn)``: a SubWorker declared with a body is called ``fn(*tensors)``; the tensors are
  torch tensors sharing the host memory when the program has imported torch (a pypto SubWorker's
  body is torch code), the numpy views otherwise;
* ``callback(fn)``: a callback bound with ``prepare(callbacks={name: fn})`` is called
  ``fn(args)`` with the list of numpy views, as pypto passes its list of mapped arguments
  (``pypto.runtime.distributed_runner._tensor_from_continuous`` turns one into a torch tensor).

torch is never imported here: it is used only when the program loaded it.
"""
from __future__ import annotations

from typing import Callable, Dict, Mapping, Optional

from ..runtime.arrays import as_torch


def body(fn: Callable) -> Callable:
    def run(*views):
        return fn(*(as_torch(v) for v in views))
    run.__name__ = getattr(fn, "__name__", "sub_worker")
    return run


def callback(fn: Callable) -> Callable:
    def run(*views):
        return fn(list(views))
    run.__name__ = getattr(fn, "__name__", "callback")
    return run


def bind(bodies: Optional[Mapping[str, Callable]], callbacks: Optional[Mapping[str, Callable]]) -> Dict[str, Callable]:
    """The functions that run a tree's SubWorkers in place of its scripts: the declared bodies,
    with the bound callbacks over them."""
    out = {name: body(fn) for name, fn in (bodies or {}).items()}
    out.update({name: callback(fn) for name, fn in (callbacks or {}).items()})
    return out


__all__ = ["body", "callback", "bind"]
