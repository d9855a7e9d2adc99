"""Loads tests/mixed/split_programs.py under a name of its own."""
import importlib.util
import sys
from pathlib import Path

_NAME = "ptokit_tests_mixed_split_programs"
if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).with_name("split_programs.py"))
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _mod
    _spec.loader.exec_module(_mod)
SP = sys.modules[_NAME]
