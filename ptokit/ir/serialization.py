"""``ptokit.ir.serialize`` / ``deserialize`` (pypto's ``pypto.ir.serialize`` / ``deserialize``):
an IR node (``Function``, ``Program``) to bytes and back.

The bytes are ptokit's own format (a tagged pickle of the node), not pypto's msgpack: they
round-trip within ptokit.  As with any pickle, deserialize only bytes you wrote."""
from __future__ import annotations

import pickle

from ..errors import UserError
from . import nodes as N

_MAGIC = b"PTOKIT-IR\x00"
_FORMAT = 1


def serialize(node) -> bytes:
    if not isinstance(node, (N.Function, N.Program)):
        raise TypeError(f"serialize takes an ir.Function or ir.Program, got {type(node).__name__}")
    return _MAGIC + bytes([_FORMAT]) + pickle.dumps(node, protocol=pickle.HIGHEST_PROTOCOL)


def deserialize(data: bytes):
    data = bytes(data)
    if not data.startswith(_MAGIC) or len(data) <= len(_MAGIC):
        raise UserError("deserialize: these bytes were not written by ptokit's ir.serialize (pypto's msgpack "
                        "format is not read)")
    if data[len(_MAGIC)] != _FORMAT:
        raise UserError(f"deserialize: format {data[len(_MAGIC)]} is not this ptokit's ({_FORMAT})")
    node = pickle.loads(data[len(_MAGIC) + 1:])  # noqa: S301 - bytes of our own serialize (documented)
    if not isinstance(node, (N.Function, N.Program)):
        raise UserError(f"deserialize: expected an IR function or program, got {type(node).__name__}")
    return node
