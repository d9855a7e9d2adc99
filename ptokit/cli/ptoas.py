"""``ptokit ptoas``: the built-in assembler with the ptoas command line (artifacts.md)."""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..backend.assembler import assemble_text, normalize_arch
from ..errors import AssemblerError, source_loc_from_file


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ptokit ptoas", description="Assemble a .pto file into C++ (built-in ptoas).")
    p.add_argument("input", help="input .pto file")
    p.add_argument("-o", dest="output", required=True, help="output .cpp file")
    p.add_argument("--enable-insert-sync", action="store_true", help="insert set_flag/wait_flag/pipe_barrier")
    p.add_argument("--pto-level", default="level3", choices=["level2", "level3"],
                   help="level3: tile addresses from the .pto; level2: the assembler plans memory")
    p.add_argument("--pto-arch", default="a3", choices=["a3", "a5", "a2a3"], help="target architecture")
    p.add_argument("--mlir-print-ir-after-all", action="store_true", help="dump the IR after each stage")
    p.add_argument("--mlir-print-ir-module-scope", action="store_true", help="dump whole modules (always the case)")
    p.add_argument("--mlir-print-ir-tree-dir", default=None, help="folder for the per-stage dumps")
    p.add_argument("--ptoas-compat", default=None, choices=["0.27"],
                   help="(built-in assembler only) write what that ptoas release writes where it differs")
    return p


_TARGET_ARCH = re.compile(r'pto\.target_arch\s*=\s*"([^"]*)"')


def check_arch(text: str, filename: str, arch: str) -> None:
    """--pto-arch must be the architecture the module declares (``pto.target_arch``), when it declares one."""
    m = _TARGET_ARCH.search(text)
    if m is None:
        return
    declared = m.group(1)
    try:
        same = normalize_arch(declared) == normalize_arch(arch)
    except AssemblerError:
        same = False
    if not same:
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        raise AssemblerError(f"--pto-arch {arch} given for a module written for {declared} (pto.target_arch); "
                             f"assemble it with --pto-arch {'a5' if normalize_arch(declared) == 'a5' else 'a3'}",
                             source_loc_from_file(filename, line, col))


def main(argv=None) -> int:
    """Errors are raised (``ptokit ptoas: error: ...`` from the command runner, exit 1)."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    path = Path(args.input)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise AssemblerError(f"cannot read {path}: not UTF-8 text ({exc.reason})") from None
    check_arch(text, str(path), args.pto_arch)
    dump = None
    if args.mlir_print_ir_after_all:
        dump = args.mlir_print_ir_tree_dir or (str(Path(args.output).with_suffix("")) + "_passes")
    cpp = assemble_text(text, filename=str(path), arch=args.pto_arch, insert_sync=args.enable_insert_sync,
                        level=args.pto_level, dump_dir=dump, compat=args.ptoas_compat)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(cpp)
    return 0


if __name__ == "__main__":     # python -m ptokit.cli.ptoas: a drop-in `ptoas`
    from .report import run_command
    sys.exit(run_command("ptoas", main, sys.argv[1:]))
