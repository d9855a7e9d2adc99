"""`ptokit compile FILE.py:Program [-o DIR] [--platform P] [--runtime R] [--dump-passes]`."""
from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from ..errors import UserError
from ..targets import PLATFORMS


def load_program(spec: str):
    """Import ``path/to/file.py:Name`` and return the ``@pl.program`` object ``Name``."""
    from ..language.decorators import ProgramSpec
    if ":" not in spec:
        raise UserError(f"expected FILE.py:ProgramName, got {spec!r}")
    path, name = spec.rsplit(":", 1)
    file = Path(path)
    if not file.is_file():
        raise UserError(f"no such file: {file}")
    mod_name = f"_ptokit_user_{file.stem}"
    mspec = importlib.util.spec_from_file_location(mod_name, file)
    module = importlib.util.module_from_spec(mspec)
    sys.modules[mod_name] = module
    sys.path.insert(0, str(file.parent.resolve()))
    try:
        mspec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    obj = getattr(module, name, None)
    if not isinstance(obj, ProgramSpec):
        raise UserError(f"{file} has no @pl.program named {name!r}")
    return obj


def compile_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit compile", description="compile a DSL program into an artifact tree")
    ap.add_argument("program", help="FILE.py:ProgramName")
    ap.add_argument("-o", "--output-dir", default=None)
    ap.add_argument("--platform", default="a2a3sim", choices=PLATFORMS)
    ap.add_argument("--runtime", default=None, choices=["tensormap_and_ringbuffer", "host_build_graph"])
    ap.add_argument("--dump-passes", action="store_true")
    ap.add_argument("--dump-ptoas-passes", action="store_true")
    args = ap.parse_args(argv)
    from .. import compile as ptokit_compile
    prog = load_program(args.program)
    compiled = ptokit_compile(prog, output_dir=args.output_dir, platform=args.platform, runtime=args.runtime,
                              dump_passes=args.dump_passes, dump_ptoas_passes=args.dump_ptoas_passes)
    print(compiled.output_dir)
    return 0
