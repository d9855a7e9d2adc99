"""``ptokit pypto [--no-simulate-hardware] SCRIPT.py | -m MODULE [ARGS...]``: run a pypto
program unchanged (``ptokit.pypto.runner``; docs/pypto.md)."""
from __future__ import annotations


def pypto_main(argv) -> int:
    from ..pypto.runner import main     # lazy: the alias and surfaces load only for this command
    return main(list(argv))
