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
# (tests/interop/test_combinations.py), not applied to every test -- unless the run is asked to use
# them everywhere: `pytest --real-tools` (or PTOKIT_TEST_REAL_TOOLS=1) keeps PTOAS_ROOT and
# PTO_ISA_ROOT, so every compile runs that ptoas and every build uses that pto-isa; a program ptokit
# refuses by design for them (ptokit.errors.VendorRefusal: the cross-core FIFO or bf16 on pto-isa,
# an op the ptoas release does not know, ...) is then a skip giving the reason, never a pass. A ptoas
# 0.27 switches every compile to ptoas_compat="0.27" (_real_ptoas_compat below).
REAL_TOOLS_VARS = ("PTOAS_ROOT", "PTO_ISA_ROOT")


def _real_tools_asked(argv) -> bool:
    return "--real-tools" in argv or os.environ.get("PTOKIT_TEST_REAL_TOOLS", "") not in ("", "0")


if _real_tools_asked(sys.argv):
    os.environ["PTOKIT_TEST_REAL_TOOLS"] = "1"       # read again by test workers (pytest -n), whose argv differs
for _var in REAL_TOOLS_VARS:
    if os.environ.get(_var):
        os.environ.setdefault(f"PTOKIT_TEST_{_var}", os.environ[_var])
    if not _real_tools_asked(sys.argv):
        os.environ.pop(_var, None)


def _real_ptoas_compat() -> None:
    """With the real tools, a ptoas whose release ptokit has a mode for (``ptoas --version``: 0.27) gets
    that mode's `.pto` in every compile (PTOKIT_PTOAS_COMPAT, read by ptokit where a compile names no
    ptoas_compat): what it does not know is then refused at the DSL line (ToolRefusal, a skip with its
    reason) instead of written and rejected. PTOKIT_PTOAS_COMPAT set beforehand (empty: pypto HEAD's
    .pto) is kept."""
    if "PTOKIT_PTOAS_COMPAT" in os.environ or not os.environ.get("PTOAS_ROOT"):
        return
    from ptokit.backend.ptoas import compat_of_release, find_ptoas, ptoas_release
    exe = find_ptoas()
    compat = compat_of_release(ptoas_release(exe)) if exe is not None else None
    if compat is not None:
        os.environ["PTOKIT_PTOAS_COMPAT"] = compat


if _real_tools_asked(sys.argv):
    _real_ptoas_compat()
else:
    os.environ.pop("PTOKIT_PTOAS_COMPAT", None)       # the suite checks pypto HEAD's forms by default


def pytest_addoption(parser):
    group = parser.getgroup("ptokit")
    group.addoption("--real-tools", action="store_true", default=False,
                    help="keep PTOAS_ROOT / PTO_ISA_ROOT: compile with that ptoas and build against that "
                         "pto-isa in every test; what ptokit refuses by design for them is skipped with the reason")
    group.addoption("--pto-corpus", metavar="DIR", default=None,
                    help="store every .pto the tests write in DIR (by content; also lowered under "
                         "ptoas_compat='0.27'), to run them through a real ptoas (tests/pto_corpus.py)")
    group.addoption("--perfsim-isa", metavar="DIR", default=None,
                    help="a pto-isa checkout whose perf-sim builds: compare ptokit's kernel estimates with the "
                         "vendor perf-sim on the same C++ (tests/estimate/test_vendor_perfsim.py)")
    group.addoption("--pto-corpus-only", action="store_true", default=False,
                    help="with --pto-corpus: build no C++ (a test is skipped at its first build)")


def pytest_report_header(config):
    if _real_tools_asked(sys.argv):
        return (f"real tools: PTOAS_ROOT={os.environ.get('PTOAS_ROOT') or '-'} "
                f"PTO_ISA_ROOT={os.environ.get('PTO_ISA_ROOT') or '-'} "
                f"ptoas_compat={os.environ.get('PTOKIT_PTOAS_COMPAT') or 'none (pypto HEAD .pto)'}")
    return None


def pytest_configure(config):
    if config.getoption("--pto-corpus"):
        from pto_corpus import PtoCorpus
        corpus = PtoCorpus(Path(config.getoption("--pto-corpus")), only=config.getoption("--pto-corpus-only"))
        corpus.install()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is None or not _real_tools_asked(sys.argv):
        return
    from ptokit.errors import VendorRefusal
    exc = call.excinfo.value
    while exc is not None and not isinstance(exc, VendorRefusal):
        exc = exc.__cause__ or exc.__context__
    if exc is not None and report.failed:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0,
                           "refused by design with the real tools: " + str(exc).splitlines()[0])


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
