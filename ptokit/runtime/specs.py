"""``TensorSpec`` and ``ScalarSpec``: the arguments of a golden-checked ``runtime.run``.

A ``TensorSpec`` names an orchestration tensor parameter and says how to make its value
(``create_tensor``); ``is_output=True`` marks a result to compare with the golden.  A
``ScalarSpec`` gives a scalar parameter its value and pypto's C type name.  Arguments are
matched to the program's parameters by name.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from .arrays import coerce_dtype, is_array, new_output, to_numpy

# pypto's ctype names, and the kind of parameter dtype each one can carry
SCALAR_CTYPES = {"int64": "i", "int32": "i", "uint64": "u", "uint32": "u", "float": "f", "double": "f"}


def _torch_dtype(dtype) -> bool:
    return str(dtype).startswith("torch.")


@dataclass
class TensorSpec:
    """One tensor argument.  ``dtype`` is a pl dtype, numpy dtype or torch dtype (then the value
    is a torch tensor).  ``init_value``: None (zeros), a number (every element), an array or
    tensor of the shape, a factory called with the shape (``np.zeros``, ``np.ones``,
    ``np.random.rand``, ``np.random.randn``, ``torch.randn``, ``torch.rand``, ``torch.zeros``,
    ``torch.ones``), or any other callable taking no argument and returning the values.
    An output (``is_output=True``) starts as zeros."""

    name: str
    shape: list
    dtype: Any
    init_value: Any = None
    is_output: bool = False

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"TensorSpec name must be a parameter name, got {self.name!r}")
        self.shape = [int(d) for d in self.shape]
        if any(d < 0 for d in self.shape):
            raise ValueError(f"TensorSpec {self.name!r}: shape {self.shape} has a negative dimension")
        coerce_dtype(self.dtype, f"TensorSpec {self.name!r}")

    @property
    def ir_dtype(self):
        return coerce_dtype(self.dtype, f"TensorSpec {self.name!r}")

    def create_tensor(self):
        """The initial value: a numpy array, or a torch tensor when ``dtype`` is a torch dtype."""
        torch_like = _torch_dtype(self.dtype)
        out = new_output(self.shape, self.ir_dtype, torch_like)
        v = self.init_value
        if v is None or self.is_output:
            return out
        if isinstance(v, (bool, int, float, np.generic)):
            values = np.full(self.shape, v)
        elif is_array(v):
            values = to_numpy(v)
            if list(values.shape) != self.shape:
                raise ValueError(f"TensorSpec {self.name!r}: init_value has shape {list(values.shape)}, the spec "
                                 f"says {self.shape}")
        elif callable(v):
            values = self._call_factory(v)
        else:
            raise TypeError(f"TensorSpec {self.name!r}: unsupported init_value {type(v).__name__} (a number, an "
                            f"array, or a callable)")
        values = np.asarray(values)
        if list(values.shape) != self.shape:
            raise ValueError(f"TensorSpec {self.name!r}: init_value gave shape {list(values.shape)}, the spec "
                             f"says {self.shape}")
        to_numpy(out)[...] = values.astype(self.ir_dtype.numpy())
        return out

    def _call_factory(self, fn):
        if fn in (np.zeros, np.ones, np.empty):
            return fn(self.shape)
        if fn in (np.random.rand, np.random.randn):
            return fn(*self.shape)
        torch = sys.modules.get("torch")
        if torch is not None and fn in (torch.randn, torch.rand, torch.zeros, torch.ones):
            return to_numpy(fn(self.shape, dtype=torch.float32))
        return to_numpy(fn())


@dataclass
class ScalarSpec:
    """One scalar argument: ``value`` and pypto's C type name (``int64``, ``int32``, ``uint64``,
    ``uint32``, ``float``, ``double``), which must suit the parameter's dtype."""

    name: str
    value: Any
    ctype: str = "int64"

    def __post_init__(self):
        if self.ctype not in SCALAR_CTYPES:
            raise ValueError(f"unsupported ctype {self.ctype!r} for scalar {self.name!r}; supported: "
                             f"{', '.join(SCALAR_CTYPES)}")

    def suits(self, dtype) -> bool:
        """Can a value of this C type be the parameter's ``dtype`` (an IR DType)?"""
        kind = dtype.numpy().kind
        want = SCALAR_CTYPES[self.ctype]
        return kind == want or (want == "i" and kind in "iu") or (want == "u" and kind == "u")
