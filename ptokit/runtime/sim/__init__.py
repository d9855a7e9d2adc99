"""The CPU simulator: runtime library driver, ``run_image`` and ``RunResult``."""
from ..records import BLOCK_RECORD_DTYPE, EDGE_DTYPE, RunResult, Timeline
from .driver import KernelBinary, library_path, load_library, marshal_args, run_binaries, run_image, shutdown

__all__ = ["run_image", "run_binaries", "RunResult", "Timeline", "KernelBinary", "load_library", "library_path",
           "marshal_args", "shutdown", "BLOCK_RECORD_DTYPE", "EDGE_DTYPE"]
