"""What codegen tells the backend about each kernel's C-level interface.

The kernel wrapper (backend/wrapper.py) needs the parameter list of the
assembled function in `.pto` order, plus how each dynamic dimension is
recovered from a tensor descriptor.  Codegen fills these records; the backend
only reads them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Tuple

from ..ir.types import DType

# IR dtype name -> (MLIR type in .pto, C++ element type)
DTYPES = {d.name: (d.mlir, d.ctype) for d in DType if d.supported}


@dataclass(frozen=True)
class TensorArg:
    name: str          # DSL parameter name, e.g. "a"
    dtype: str         # IR dtype name, e.g. "FP32"
    direction: str     # "IN" | "OUT" | "INOUT"
    ndim: int = 2
    pipe_shard: bool = False   # the GM pipe buffer of a mixed group: the wrapper passes this block's shard


@dataclass(frozen=True)
class ScalarArg:
    name: str
    dtype: str         # IR dtype name (FP32, INT32, INT64, INDEX, BOOL, ...)
    pointer: bool = False   # an address the kernel takes as ``__gm__ T*`` (a window's CommContext, !pto.ptr<i64>)


@dataclass(frozen=True)
class DynDim:
    """A dynamic dimension variable, recovered from a tensor descriptor.

    ``expr`` is the DSL expression found at ``shapes[dim]`` of tensor number
    ``tensor_index`` (index into KernelABI.tensors), written in terms of
    ``name``: "M", "M * 2", "M + 1", "2 + M", "M // 4", ...  The wrapper
    inverts it; a non-invertible expression is a compile error naming it.
    """

    name: str
    tensor_index: int
    dim: int
    expr: str


@dataclass(frozen=True)
class KernelABI:
    """The C-level interface of one InCore kernel, in `.pto` parameter order:
    tensors, scalars, dynamic dims, the SDMA workspace (pl.prefetch), then the synthetic SPMD
    parameters."""

    name: str                          # function name in .pto / C++
    core_type: str                     # "aiv" | "aic"
    tensors: Tuple[TensorArg, ...] = ()
    scalars: Tuple[ScalarArg, ...] = ()
    dyn_dims: Tuple[DynDim, ...] = ()
    uses_block: bool = False           # passes __pypto_spmd_block_idx, __pypto_spmd_block_num
    uses_subblock: bool = False        # passes __pypto_spmd_subblock_idx
    uses_sdma: bool = False            # pl.prefetch: passes the runtime's SDMA workspace before the SPMD ones
    declares_block: bool = False       # SPMD-group sibling: declare block locals, do not pass
    split_lane: bool = False           # vector side of a split FIFO endpoint (issue 6)
    simt_anchor: bool = False          # a5 device build: call the SIMT anchor from kernel_entry
    extra: Tuple[Tuple[str, str], ...] = field(default_factory=tuple)
