"""The seven distributed examples (examples/distributed/01 .. 07, the spec's section 4.1) run in this
process through their own main(): each prints OK (its numpy check passed); 07 also at W = 3 and 4.
Ranks of 2 clusters; /dev/shm holds none of this process's segments afterwards."""
import importlib.util
import sys
from pathlib import Path

import pytest

from dist_util import my_segments

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "distributed"

CASES = [
    ("01_hello_rank", []),
    ("02_programming_model", ["-p", "a5sim"]),
    ("03_window_buffer", []),
    ("04_barrier", []),
    ("04_barrier", ["--use-builtin"]),
    ("05_remote_load_store", ["--mode", "load"]),
    ("05_remote_load_store", ["--mode", "store"]),
    ("06_put_get", ["--mode", "put"]),
    ("06_put_get", ["--mode", "get"]),
    ("07_dynamic_rank_count", ["--mode", "put", "-d", "0,1"]),
    ("07_dynamic_rank_count", ["--mode", "get", "-d", "0,1,2"]),
    ("07_dynamic_rank_count", ["--mode", "put", "-d", "0,1,2,3"]),
]


def _module(name):
    spec = importlib.util.spec_from_file_location(f"example_dist_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _main(name, argv, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", [name] + argv + ["--output-dir", str(tmp_path / "tree"), "--clusters", "2"])
    return _module(name).main()


@pytest.mark.parametrize("name,argv", CASES, ids=[" ".join([n[:2]] + a) for n, a in CASES])
def test_example(name, argv, tmp_path, monkeypatch, capsys):
    before = set(my_segments())
    assert _main(name, argv, tmp_path, monkeypatch) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "OK"
    assert set(my_segments()) <= before, "an example left shared-memory segments behind"


def test_compile_only_hardware_platform(tmp_path, monkeypatch, capsys):
    """-p a2a3 --compile-only builds the tree (no run) and names its folder."""
    assert _main("04_barrier", ["-p", "a2a3", "--compile-only", "--use-builtin"], tmp_path, monkeypatch) == 0
    out = capsys.readouterr().out.strip()
    assert out == f"compile_only done: {(tmp_path / 'tree').resolve()}"
    assert (tmp_path / "tree" / "distributed_config.py").is_file()
    assert (tmp_path / "tree" / "orchestration" / "host_orch.py").is_file()


def test_hardware_platform_without_compile_only(tmp_path, monkeypatch):
    with pytest.raises(SystemExit, match="real hardware"):
        _main("01_hello_rank", ["-p", "a2a3"], tmp_path, monkeypatch)


def test_ptokit_run_on_an_example_tree(tmp_path, monkeypatch, capsys):
    """`ptokit run DIR` on the tree a DSL example compiled (07 at W = 3): every rank runs; on one of
    its chip trees, one rank with private windows."""
    from ptokit.cli import main as cli_main
    assert _main("07_dynamic_rank_count", ["--compile-only", "-d", "0,1,2"], tmp_path, monkeypatch) == 0
    capsys.readouterr()
    tree = tmp_path / "tree"
    before = set(my_segments())
    assert cli_main(["run", str(tree), "--no-summary", "-q"]) == 0
    out = capsys.readouterr().out
    assert "ran 3 rank(s)" in out and "y: float32[3, 1, 64]" in out
    assert cli_main(["run", str(tree / "next_levels" / "per_rank_put"), "--no-summary", "-q"]) == 0
    assert "ran 1 rank(s)" in capsys.readouterr().out
    assert set(my_segments()) <= before
