"""Trees remember their platform: hardware trees are not run, simulator trees run on their own
platform; `ptokit run` passes scalars to trees without ORCHESTRATION params and rejects unknown
scalar names."""
import re
import shutil

import numpy as np
import pytest

import ptokit
from ptokit.artifacts.kernel_config import read_kernel_config
from ptokit.errors import UserError
from ptokit.cli import run as cli_run
from ptokit.runtime import RunConfig
from ptokit.runtime.launcher import run_tree

import programs


def test_kernel_config_records_the_platform(tmp_path):
    c = ptokit.compile(programs.ScalarOperand, output_dir=tmp_path / "t", platform="a5sim")
    assert '\t"platform": "a5sim",' in (c.output_dir / "kernel_config.py").read_text()
    assert read_kernel_config(c.output_dir).platform == "a5sim"


def test_hardware_tree_is_not_run(tmp_path):
    c = ptokit.compile(programs.ScalarOperand, output_dir=tmp_path / "hw", platform="a5")
    x = np.ones((64, 64), np.float32)
    with pytest.raises(ValueError, match="'a5' hardware platform; running it needs the vendor toolchain"):
        run_tree(c.output_dir, [x, 1.0, np.zeros_like(x)])
    with pytest.raises(UserError, match="hardware platform"):
        cli_run.run_main([str(c.output_dir), "-q", "--no-summary"])


def test_simulator_tree_runs_on_its_own_platform(tmp_path, capsys):
    c = ptokit.compile(programs.ScalarOperand, output_dir=tmp_path / "a5", platform="a5sim")
    assert cli_run.run_main([str(c.output_dir), "-q", "--no-summary", "--scalar", "alpha=2"]) == 0
    assert re.search(r"ran 1 task\(s\).*a5sim\)", capsys.readouterr().out)
    x = np.ones((64, 64), np.float32)
    with pytest.raises(ValueError, match="compiled for a5sim, but the run asks for a2a3sim"):
        run_tree(c.output_dir, [x, 1.0, np.zeros_like(x)], RunConfig(platform="a2a3sim"))


def test_unknown_scalar_name_is_an_error(tmp_path):
    c = ptokit.compile(programs.ScalarOperand, output_dir=tmp_path / "t")
    with pytest.raises(UserError, match="--scalar q: the program has no such scalar parameter .its scalars: alpha."):
        cli_run.run_main([str(c.output_dir), "-q", "--scalar", "q=1"])


def test_scalars_reach_a_tree_without_params(tmp_path):
    c = ptokit.compile(programs.ScalarOperand, output_dir=tmp_path / "t")
    tree = tmp_path / "foreign"
    shutil.copytree(c.output_dir, tree)
    cfg = tree / "kernel_config.py"
    text = cfg.read_text()
    # drop the ptokit-only keys, as another tool would write the file
    text = re.sub(r'\t"params": \[\n(?:\t\t.*\n)*\t\],\n', "", text)
    text = re.sub(r'\t"platform": .*\n', "", text)
    cfg.write_text(text)
    assert read_kernel_config(tree).orchestration.params is None
    x = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", np.zeros_like(x))
    out = tmp_path / "out"
    assert cli_run.run_main([str(tree), "-q", "--no-summary", "--inputs", str(tmp_path / "x.npy"),
                         str(tmp_path / "y.npy"), "--scalar", "alpha=0.5", "--save-outputs", str(out)]) == 0
    saved = sorted(out.glob("*.npy"))
    assert saved, "no outputs saved"
    np.testing.assert_allclose(np.load(saved[-1]), x * 0.5 + 1.5, rtol=1e-6)
