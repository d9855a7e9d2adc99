"""``ptokit`` command line: one module per command group, dispatched from here.

The command modules hold argument parsing and reporting only; the work is done by plain
functions of the stages below.  They are imported when their command runs, so that
``ptokit --help`` stays fast and a broken stage does not break the other commands.  Every error
is reported by ``report.run_command``: one message and a non-zero exit, never a traceback.
"""
from __future__ import annotations

import importlib
import sys

from .. import __version__
from .report import output_closed, run_command

# subcommand -> (module, function, one-line help)
COMMANDS = {
    "compile": ("ptokit.cli.compile", "compile_main", "compile a DSL program (file.py:Class) into an artifact tree"),
    "build": ("ptokit.cli.run", "build_main", "build an artifact tree with g++ (build cache)"),
    "run": ("ptokit.cli.run", "run_main", "build and run an artifact tree on the CPU simulator"),
    "ptoas": ("ptokit.cli.ptoas", "main", "the built-in PTO assembler (ptoas command line)"),
    "inspect-elf": ("ptokit.cli.launch", "inspect_elf_main", "check .ascend.meta kernel classification of an ELF"),
    "callable-layout": ("ptokit.cli.launch", "callable_layout_main", "print the ChipCallable layout and alignment verdict"),
    "cache": ("ptokit.cli.cache", "cache_main", "build/compile cache: stat | clear | path"),
    "trace": ("ptokit.cli.trace", "trace_main", "read back a run trace: summarize FILE | view FILE"),
    "pypto": ("ptokit.cli.pypto", "pypto_main", "run a pypto program unchanged: SCRIPT.py | -m MODULE [ARGS...]"),
}


def _usage() -> str:
    lines = ["usage: ptokit <command> [args...]", "", "commands:"]
    for name, (_, _, text) in COMMANDS.items():
        lines.append(f"  {name:<16} {text}")
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(argv)
    except BrokenPipeError:
        return output_closed()


def _dispatch(argv) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    if argv[0] in ("--version", "version"):
        print(f"ptokit {__version__}")
        return 0
    name = argv[0]
    if name not in COMMANDS:
        print(f"ptokit: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module, func, _ = COMMANDS[name]

    def handler(args):
        # lazy: only the chosen command's stages are imported (see the module docstring)
        return getattr(importlib.import_module(module), func)(args)

    return run_command(name, handler, argv[1:])
