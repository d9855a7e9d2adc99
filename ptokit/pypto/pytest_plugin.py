"""pytest plugin: test modules written for pypto run unchanged on ptokit.

    python -m pytest -p ptokit.pypto.pytest_plugin tests_for_pypto/           # alias on
    python -m pytest -p ptokit.pypto.pytest_plugin --no-simulate-hardware ... # hardware refused

The alias is installed as soon as the plugin is registered -- before any test module is
collected, and before the plugins named after it (``-p ptokit.pypto.pytest_plugin -p
their_plugin``), so a plugin or harness that imports pypto gets ptokit too -- and removed when
the session ends.  ``--pypto-alias=off`` removes it again when the options are read, before
anything is collected.  A test that fails because it
asks for a pypto name ptokit does not provide fails with that one line.
"""
from __future__ import annotations

import pytest

from . import alias
from .missing import explain, explain_text


def pytest_addoption(parser):
    # registration time: the options are not parsed yet, so the alias goes in now and
    # pytest_configure takes it out again for --pypto-alias=off
    alias.install()
    group = parser.getgroup("ptokit-pypto", "run pypto tests on ptokit (docs/pypto.md)")
    group.addoption("--pypto-alias", choices=("on", "off"), default="on",
                    help="resolve `import pypto` to ptokit in this session (default: on)")
    group.addoption("--no-simulate-hardware", action="store_true", default=False,
                    help="refuse hardware platforms (a2a3, a5) instead of running them on their simulator")


def pytest_configure(config):
    if config.getoption("pypto_alias") == "on":
        alias.install(simulate_hardware=not config.getoption("no_simulate_hardware"))
        config._ptokit_pypto_installed = True
    else:
        alias.uninstall()


def pytest_unconfigure(config):
    if getattr(config, "_ptokit_pypto_installed", False):
        alias.uninstall()


def pytest_report_header(config):
    if getattr(config, "_ptokit_pypto_installed", False):
        return "ptokit: `import pypto` resolves to ptokit (docs/pypto.md)"
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and report.failed:
        message = explain(call.excinfo.value)
        if message is not None:
            report.longrepr = message


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    # a test module whose import fails reaches the report as text only (pytest formats the
    # ImportError itself): the one line is found in that text
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        message = explain_text(str(report.longrepr))
        if message is not None:
            report.longrepr = message
