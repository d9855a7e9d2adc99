"""The artifact tree's file formats that more than one stage reads.

Each format has one writer and one reader, here: the backend writes a tree, the runtime and the
``@pl.jit`` cache read it, and neither imports the other to do so.
"""

# folders a tree may hold beside its sources, written after the fact (not part of the build):
PROFILE_DIR = "report"          # the compile profile (RunConfig(compile_profiling=True))
DFX_DIR = "dfx_outputs"         # run diagnostics (RunConfig's enable_* switches)
