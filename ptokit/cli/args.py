"""Argument types shared by the commands (argparse ``type=`` callables)."""
from __future__ import annotations

import argparse
import re


def count(minimum: int):
    """An integer >= ``minimum`` (``-j 0`` or ``--top -1`` is a usage error, not ignored)."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if n < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {n}")
        return n
    return parse


def byte_count(text: str) -> int:
    """``16384``, ``16K``, ``16KB``, ``0x4000``."""
    m = re.fullmatch(r"\s*(0x[0-9a-fA-F]+|\d+)\s*([kKmM]i?[bB]?)?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"not a byte count: {text!r}")
    n = int(m.group(1), 0)
    unit = (m.group(2) or "").lower()
    if unit.startswith("k"):
        n *= 1024
    elif unit.startswith("m"):
        n *= 1024 * 1024
    return n
