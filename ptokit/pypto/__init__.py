"""Run a pypto program on ptokit as it is: ``import pypto...`` resolves to ptokit's modules.

``ptokit pypto SCRIPT.py`` (``-m package.module``, ``python -m ptokit.pypto``, or the pytest
plugin ``-p ptokit.pypto.pytest_plugin``) installs an import alias in its own process only
(``alias.install``): ``pypto.language`` *is* ``ptokit.language``, and the other pypto packages
are ``ptokit.pypto.surface`` modules that hold pypto's names for ptokit's objects.  A pypto
name ptokit lacks fails with one message naming it (``missing.NotProvided``).  A program written
for a hardware platform runs on the matching simulator (``hardware``).  See docs/pypto.md.
"""
from .alias import install, installed, uninstall
from .missing import NotProvided, explain

__all__ = ["install", "installed", "uninstall", "NotProvided", "explain"]
