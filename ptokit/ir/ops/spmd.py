"""The SPMD identity of the running block (and lane)."""
from __future__ import annotations

from ..types import INDEX
from ._core import declare


def _spmd_id(ts, attrs):
    return INDEX


# op -> the synthetic kernel parameter that carries its value (artifacts.md: the SPMD identity
# parameters come last, in this order)
SPMD_PARAMS = {}
for _n, _param, _what in (("get_block_idx", "__pypto_spmd_block_idx", "index of this block (0 .. block_num-1)"),
                          ("get_block_num", "__pypto_spmd_block_num", "number of blocks of this task"),
                          ("get_subblock_idx", "__pypto_spmd_subblock_idx", "vector lane of this block (0 or 1)")):
    declare(_n, (), _spmd_id, form="spmd", traits={"spmd"}, namespaces=("pl.tile",), doc=_what)
    SPMD_PARAMS[_n] = _param
