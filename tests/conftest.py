import os
import sys
from pathlib import Path

import pytest

# the shared DSL programs (tests/programs.py) import as a plain module
sys.path.insert(0, str(Path(__file__).parent))

# every artifact tree the suite builds must compile without a warning (-Wall -Werror)
os.environ.setdefault("PTOKIT_WERROR", "1")

# The suite builds with the built-in assembler and ptokit's tile library. A vendor ptoas / pto-isa
# given to the test run is kept for the interop tests that compare the combinations
# (tests/interop/test_combinations.py), not applied to every test.
for _var in ("PTOAS_ROOT", "PTO_ISA_ROOT"):
    if os.environ.get(_var):
        os.environ.setdefault(f"PTOKIT_TEST_{_var}", os.environ[_var])
    os.environ.pop(_var, None)


def pytest_collection_modifyitems(config, items):
    """Mark the slow part of the suite (tests/slow.py): `-m "not slow"` runs the fast tier."""
    from slow import is_slow     # tests/ is on sys.path (above)
    root = Path(__file__).parent.parent
    for item in items:
        try:
            nodeid = Path(item.path).resolve().relative_to(root).as_posix() + item.nodeid[item.nodeid.index("::"):]
        except (ValueError, AttributeError):
            continue
        if is_slow(nodeid):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory):
    """Keep test builds out of the user's cache unless a cache dir is set explicitly;
    one cache for the whole session so built kernels are shared between tests."""
    if "PTOKIT_CACHE_DIR" not in os.environ:
        os.environ["PTOKIT_CACHE_DIR"] = str(tmp_path_factory.getbasetemp() / "ptokit-cache")
    yield
