"""Shared by the dialect tests: every `.pto` file the suite knows, and where the interop fixtures are."""
import os
from pathlib import Path

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError

import programs
from mixed.mixed_util import P as mixed_programs

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
PLATFORMS = ("a2a3sim", "a5sim")
# factory-made programs of the interop manifest
FACTORIES = {
    "programs": ["make_matmul(64, 64, 64, pl.FP32)", "make_matmul(64, 64, 64, pl.FP16)",
                 "make_matmul(64, 64, 64, pl.BF16)", "make_matmul(128, 128, 128, pl.FP32)",
                 "make_matmul(128, 128, 128, pl.FP16)", "make_matmul(128, 128, 128, pl.BF16)",
                 "make_spmd_rows(4)"],
    "mixed": ["make_matmul_exp_spmd(4)", "make_fused_mlp_spmd(4)", "make_fused_mlp_spmd(4, True)"],
}


FIXTURES = TESTS / "interop" / "fixtures"


def interop_dir():
    """The interop fixtures (cases/, rejected/, manifest.tsv, rejections.txt): the ones kept with the
    tests (tests/interop/fixtures), or a fresher set named by PTOKIT_INTEROP_DIR."""
    env = os.environ.get("PTOKIT_INTEROP_DIR")
    return Path(env) if env else FIXTURES


def label_of(source: str) -> str:
    """Manifest notation (``tests/programs.py:Name``, ``tests/mixed/programs.py:make_x(4)``) -> our label."""
    path, _, expr = source.partition(":")
    return f"{'mixed' if 'mixed' in path else 'programs'}:{expr}"


def suite_programs():
    """(label, program) of every @pl.program in tests/programs.py and tests/mixed/programs.py."""
    out = []
    for tag, module in (("programs", programs), ("mixed", mixed_programs)):
        for name, obj in sorted(vars(module).items()):
            if type(obj).__name__ == "ProgramSpec":
                out.append((f"{tag}:{name}", obj))
        for call in FACTORIES[tag]:
            out.append((f"{tag}:{call}", eval(call, {"pl": pl, **vars(module)})))
    return out


def compile_pto(program, out: Path, platform: str):
    """The `.pto` files ptokit writes for a program ({unit: text}); None when ptokit refuses it on purpose."""
    try:
        ptokit.compile(program, output_dir=out, platform=platform)
    except CompileError:
        return None
    return {p.stem: p.read_text() for p in sorted((out / "ptoas").glob("*.pto"))}
