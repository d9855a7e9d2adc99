"""kernel_config.py is read as data (parsed with ast), never executed (issue 18, item 2)."""
from __future__ import annotations

import runpy
import shutil
import time

import numpy as np
import pytest

from ptokit.artifacts.kernel_config import read_kernel_config, render_kernel_config
from ptokit.errors import UserError
from ptokit.runtime.launcher import run_tree

from .conftest import rand, scalar_reference

GOOD_HEAD = 'from pathlib import Path\n_ROOT_DIR = Path(__file__).parent\n'
GOOD_TAIL = ('ORCHESTRATION = {"source": str(_ROOT_DIR / "o.cpp"), "function_name": "f"}\n'
             'KERNELS = [{"func_id": 0, "source": str(_ROOT_DIR / "k.cpp"), "core_type": "aiv"}]\n')


def _write(tmp_path, text):
    path = tmp_path / "kernel_config.py"
    path.write_text(text)
    return path


@pytest.mark.parametrize("code, line, snippet", [
    ('import os; os.system("touch {marker}")\n', 3, "import os"),
    ('import sys\nsys.exit(0)\n', 3, "import sys"),
    ('KERNELS = [__import__("os").system("touch {marker}")]\n', 3, "__import__"),
    ('X = open("{marker}", "w")\n', 3, "open("),
    ('while True:\n    pass\n', 3, "while True"),
    ('def f():\n    pass\n', 3, "def f"),
    ('N = [i for i in range(10**12)]\n', 3, "for i in range"),
    ('N = 10 ** 10 ** 10\n', 3, "10 ** 10"),
    ('S = f"{{_ROOT_DIR}}"\n', 3, "f'"),
    ('P = _ROOT_DIR.joinpath("x")\n', 3, "joinpath"),
])
def test_code_in_the_file_never_runs(tmp_path, code, line, snippet):
    marker = tmp_path / "marker"
    path = _write(tmp_path, GOOD_HEAD + code.format(marker=marker) + GOOD_TAIL)
    t0 = time.monotonic()
    with pytest.raises(UserError) as ei:
        read_kernel_config(path)
    assert time.monotonic() - t0 < 5           # an endless loop is not run, so nothing hangs
    msg = str(ei.value)
    assert f"{path.resolve()}:{line}:" in msg and "read as data" in msg, msg
    assert snippet in msg, msg
    assert not marker.exists()


def test_foreign_import_names_the_line(tmp_path):
    path = _write(tmp_path, GOOD_HEAD + "from os import system as Path\n" + GOOD_TAIL)
    with pytest.raises(UserError, match=r"kernel_config.py:3:1: error: .*from os import system"):
        read_kernel_config(path)


def test_syntax_error_is_located(tmp_path):
    path = _write(tmp_path, GOOD_HEAD + "KERNELS = [\n")
    with pytest.raises(UserError) as ei:
        read_kernel_config(path)
    assert f"{path.resolve()}:3:" in str(ei.value) and "syntax" in str(ei.value)


def test_undefined_name_is_located(tmp_path):
    path = _write(tmp_path, GOOD_HEAD + 'ORCHESTRATION = {"source": str(ROOT / "o.cpp"), "function_name": "f"}\n')
    with pytest.raises(UserError, match=r":3:\d+: error: .*the name `ROOT`"):
        read_kernel_config(path)


def test_unknown_arg_direction_member(tmp_path):
    head = GOOD_HEAD + "from simpler.task_interface import ArgDirection as D\n"
    tail = GOOD_TAIL.replace('"core_type": "aiv"', '"core_type": "aiv", "signature": [D.IN, D.SIDEWAYS]')
    with pytest.raises(UserError, match=r":5:\d+: error: .*D.SIDEWAYS.*IN, OUT, INOUT"):
        read_kernel_config(_write(tmp_path, head + tail))


def _pypto_style(cfg, alias="_D"):
    """The tree's config as the peer toolchain writes it: ArgDirection members, its import."""
    text = render_kernel_config(cfg)
    for d in ("INOUT", "OUT", "IN"):
        text = text.replace(f'"{d}"', f"{alias}.{d}")
    return text.replace("from pathlib import Path\n",
                        f"from pathlib import Path\n\nfrom simpler.task_interface import ArgDirection as {alias}\n")


@pytest.mark.parametrize("alias", ["_D", "Dir"])
def test_pypto_style_tree_builds_and_runs(scalar_tree, tmp_path, alias):
    tree = tmp_path / "pypto_tree"
    shutil.copytree(scalar_tree.output_dir, tree)
    text = _pypto_style(read_kernel_config(tree), alias)
    assert f"{alias}.IN, {alias}.OUT" in text.replace('"SCALAR"', "")
    (tree / "kernel_config.py").write_text(text)
    cfg = read_kernel_config(tree)
    assert cfg.kernels[0].signature == ["IN", "OUT"] and cfg.orchestration.signature == ["IN", "OUT"]
    x = rand(64, 64, seed=3)
    y = np.zeros_like(x)
    run_tree(tree, [x, 2.0, y], quiet=True)
    np.testing.assert_allclose(y, scalar_reference(x, 2.0), rtol=1e-6)


def test_writer_output_is_plain_python_and_reads_back(scalar_tree):
    path = scalar_tree.output_dir / "kernel_config.py"
    cfg = read_kernel_config(path)
    ns = runpy.run_path(str(path))            # our own file: still loadable with plain runpy (spec)
    assert ns["KERNELS"][0]["source"] == str(cfg.kernels[0].source)
    assert ns["ORCHESTRATION"]["params"] == cfg.orchestration.params
    assert render_kernel_config(cfg) == path.read_text()


def test_unknown_runtime_name_is_a_user_error_and_a_value_error(tmp_path):
    path = _write(tmp_path, GOOD_HEAD + 'RUNTIME_CONFIG = {"runtime": "fast"}\n' + GOOD_TAIL)
    with pytest.raises(UserError) as ei:
        read_kernel_config(path)
    assert isinstance(ei.value, ValueError) and "valid names" in str(ei.value)
