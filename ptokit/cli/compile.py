"""``ptokit compile FILE.py:Program [-o DIR] [--platform P] [--runtime R] [--dump-passes] [--ptoas-compat 0.27]``."""
from __future__ import annotations

import argparse

from ..targets import PLATFORMS, PTOAS_COMPAT, RuntimeKind
from ..toolchain import compile_program, load_program


def compile_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit compile", description="compile a DSL program into an artifact tree")
    ap.add_argument("program", help="FILE.py:ProgramName")
    ap.add_argument("-o", "--output-dir", default=None)
    ap.add_argument("--platform", default="a2a3sim", choices=PLATFORMS)
    ap.add_argument("--runtime", default=None, choices=[k.value for k in RuntimeKind])
    ap.add_argument("--dump-passes", action="store_true")
    ap.add_argument("--dump-ptoas-passes", action="store_true")
    ap.add_argument("--ptoas-compat", default=None, choices=PTOAS_COMPAT,
                    help="write the .pto an installed ptoas of that release accepts (default: pypto HEAD's)")
    args = ap.parse_args(argv)
    prog = load_program(args.program)
    compiled = compile_program(prog, output_dir=args.output_dir, platform=args.platform, runtime=args.runtime,
                               dump_passes=args.dump_passes, dump_ptoas_passes=args.dump_ptoas_passes,
                               ptoas_compat=args.ptoas_compat)
    print(compiled.output_dir)
    return 0
