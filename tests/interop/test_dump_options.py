"""``dump_ptoas_passes`` with an external ptoas 0.27 is refused before anything is assembled, naming the
option and the release: 0.27's command line has no ``--mlir-print-ir-*`` options (it stops with
``Unknown command line argument '--mlir-print-ir-after-all'``)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import ptokit
from ptokit.backend.ptoas import DUMP_OPTIONS, check_dump_options
from ptokit.errors import VendorRefusal

_path = Path(__file__).parents[1] / "programs.py"          # the shared programs, loaded by path
_spec = importlib.util.spec_from_file_location("dump_options_programs", _path)
programs = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = programs        # the DSL reads a program's source through its module
_spec.loader.exec_module(programs)


def _standin(tmp_path: Path, release: str) -> Path:
    """A ptoas that reports ``release`` and, like 0.27, stops on an option it does not know (the
    message is the real tool's); anything else it is not asked to do here."""
    root = tmp_path / f"ptoas-{release}"
    root.mkdir()
    exe = root / "ptoas"
    exe.write_text("#!/bin/sh\n"
                   f"if [ \"$1\" = --version ]; then echo 'ptoas {release}'; exit 0; fi\n"
                   "for a in \"$@\"; do case \"$a\" in --mlir-print-ir-*) "
                   "echo \"ptoas: Unknown command line argument '$a'.\" >&2; exit 1;; esac; done\n"
                   "exit 3\n")
    exe.chmod(0o755)
    return root


def test_dump_ptoas_passes_with_ptoas_027_is_refused_naming_the_option(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOAS_ROOT", str(_standin(tmp_path, "0.27")))
    with pytest.raises(VendorRefusal) as info:
        ptokit.compile(programs.ScalarOperand, output_dir=tmp_path / "tree", ptoas_compat="0.27",
                       dump_ptoas_passes=True)
    msg = str(info.value)
    assert DUMP_OPTIONS[0] == "--mlir-print-ir-after-all" and DUMP_OPTIONS[0] in msg and "ptoas 0.27" in msg and "dump_ptoas_passes" in msg, msg
    assert not (tmp_path / "tree" / "ptoas").exists(), "refused before any unit is written or assembled"


def test_a_release_with_the_options_and_the_built_in_assembler_are_not_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOAS_ROOT", str(_standin(tmp_path, "0.57")))
    check_dump_options()                        # a newer release: the options go on its command line
    monkeypatch.delenv("PTOAS_ROOT")
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    check_dump_options()                        # the built-in assembler dumps its own stages
    out = ptokit.compile(programs.ScalarOperand, output_dir=tmp_path / "tree", ptoas_compat="0.27",
                         dump_ptoas_passes=True).output_dir
    assert any((out / "ptoas_passes").iterdir())
