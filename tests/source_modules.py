"""DSL programs written by a test into a file and imported from it (ptokit parses a program from
its source file, so a program made from text needs one)."""
import importlib.util
import linecache
import sys
from pathlib import Path


def import_source(path: Path, name: str, text: str):
    """Write ``text`` to ``path`` and import it as module ``name`` (replacing any earlier one)."""
    path.write_text(text)
    linecache.clearcache()              # a rewritten file must not be read from the old lines
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
