"""The artifact tree's file formats that more than one stage reads.

Each format has one writer and one reader, here: the backend writes a tree, the runtime and the
``@pl.jit`` cache read it, and neither imports the other to do so.
"""
import datetime
from pathlib import Path

# folders a tree may hold beside its sources, written after the fact (not part of the build):
PROFILE_DIR = "report"          # the compile profile (RunConfig(compile_profiling=True))
DFX_DIR = "dfx_outputs"         # run diagnostics (RunConfig's enable_* switches)


def default_output_dir(name: str) -> Path:
    """Where a compile without ``output_dir`` writes its tree: ``build_output/<name>_<time>``."""
    stamp = datetime.datetime.now().strftime("%Y%m%d_%H%M%S_%f")
    return Path("build_output") / f"{name}_{stamp}"
