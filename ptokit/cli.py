"""`ptokit` command line: one subcommand per pipeline stage.

Each subcommand lives next to the stage it exposes and is imported lazily, so
`ptokit --help` stays fast and a broken stage does not break the others.
"""
from __future__ import annotations

import importlib
import sys

# subcommand -> (module, function, one-line help)
COMMANDS = {
    "compile": ("ptokit.backend.cli", "compile_main", "compile a DSL program (file.py:Class) into an artifact tree"),
    "build": ("ptokit.runtime.cli", "build_main", "build an artifact tree with g++ (build cache)"),
    "run": ("ptokit.runtime.cli", "run_main", "build and run an artifact tree on the CPU simulator"),
    "ptoas": ("ptokit.backend.assembler.cli", "main", "the built-in PTO assembler (ptoas command line)"),
    "inspect-elf": ("ptokit.launch.cli", "inspect_elf_main", "check .ascend.meta kernel classification of an ELF"),
    "callable-layout": ("ptokit.launch.cli", "callable_layout_main", "print the ChipCallable layout and alignment verdict"),
    "cache": ("ptokit.runtime.cli", "cache_main", "build/compile cache: stat | clear | path"),
    "trace": ("ptokit.runtime.cli", "trace_main", "read back a run trace: summarize FILE"),
}


def _usage() -> str:
    lines = ["usage: ptokit <command> [args...]", "", "commands:"]
    for name, (_, _, text) in COMMANDS.items():
        lines.append(f"  {name:<16} {text}")
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    if argv[0] in ("--version", "version"):
        from . import __version__
        print(f"ptokit {__version__}")
        return 0
    name = argv[0]
    if name not in COMMANDS:
        print(f"ptokit: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module, func, _ = COMMANDS[name]
    handler = getattr(importlib.import_module(module), func)
    from .errors import PtokitError
    try:
        return int(handler(argv[1:]) or 0)
    except PtokitError as exc:
        print(f"ptokit {name}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
