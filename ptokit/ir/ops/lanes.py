"""Ops a split vector lane cannot run (trait ``positional``): their result depends on where an
element sits in the whole tile, or they read elements other than their own position, so a lane
holding half of the tile (docs/mixed-kernels.md, "Split transfers") does not have what they need.
Marked here, after every op is declared, so the op modules stay as they are."""
from __future__ import annotations

import dataclasses

from ._core import OPS

POSITIONAL = (
    "reshape", "concat", "slice", "assemble", "transpose", "transpose_view", "set_validshape", "extract",
    "gather", "scatter", "gather_mask", "scatter_mask", "gatherb", "mgather", "mscatter", "scatter_update",
    "sort32", "mrgsort", "ci", "arange", "tri", "random", "fillpad_expand", "getval", "setval", "read", "write",
)

for _name in POSITIONAL:
    OPS[_name] = dataclasses.replace(OPS[_name], traits=OPS[_name].traits | {"positional"})
