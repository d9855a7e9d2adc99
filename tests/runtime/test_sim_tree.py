"""run_image / run_tree / `ptokit build|run|cache` on a hand-written artifact tree."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ptokit.artifacts.kernel_config import KernelConfig, KernelEntry, OrchestrationEntry, write_kernel_config
from ptokit.errors import RuntimeFailure
from ptokit.targets import RuntimeKind
from ptokit.cli import cache as cli_cache, run as cli_run, trace as cli_trace
from ptokit.runtime.config import RunConfig
from ptokit.runtime.launcher import run_tree

CASES = Path(__file__).resolve().parent / "sim_cases"
PARAMS = [
    {"name": "x", "kind": "tensor", "dtype": "FP32", "shape": [8, "N"], "direction": "IN"},
    {"name": "out", "kind": "tensor", "dtype": "FP32", "shape": [8, "N"], "direction": "OUT"},
    {"name": "s", "kind": "scalar", "dtype": "FP32"},
]


def _tree(root: Path, runtime: RuntimeKind, params=PARAMS) -> Path:
    (root / "kernels" / "aiv").mkdir(parents=True)
    (root / "orchestration").mkdir()
    (root / "kernels" / "aiv" / "scale.cpp").write_text(f'#define K_SCALE 1\n#include "{CASES / "kernels.cpp"}"\n')
    (root / "orchestration" / "main.cpp").write_text(f'#define O_CHAIN 1\n#include "{CASES / "orchestrations.cpp"}"\n')
    cfg = KernelConfig(
        runtime=runtime, aicpu_thread_num=0,
        orchestration=OrchestrationEntry(root / "orchestration" / "main.cpp", "aicpu_orchestration_entry",
                                         ["IN", "OUT"], params),
        kernels=[KernelEntry(0, "scale", root / "kernels" / "aiv" / "scale.cpp", "aiv", ["IN", "OUT"])],
        root=root)
    write_kernel_config(root / "kernel_config.py", cfg)
    return root


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    base = tmp_path_factory.mktemp("simtrees")
    return {kind: _tree(base / kind.value, kind) for kind in RuntimeKind}


@pytest.mark.parametrize("kind", list(RuntimeKind))
def test_run_tree(trees, kind):
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    out = np.zeros_like(x)
    res = run_tree(trees[kind], [x, out, 0.5])
    assert res.runtime is kind                      # from the tree's kernel_config.py
    np.testing.assert_array_equal(out, x * 0.5 * 2)
    assert res.tasks == 2


def test_run_tree_config_overrides_runtime_and_checks_args(trees):
    x = np.ones((8, 2), np.float32)
    out = np.zeros_like(x)
    res = run_tree(trees[RuntimeKind.TENSORMAP_AND_RINGBUFFER], [x, out, 3.0], RunConfig(runtime="host_build_graph"))
    assert res.runtime is RuntimeKind.HOST_BUILD_GRAPH
    np.testing.assert_array_equal(out, 6.0)
    with pytest.raises(ValueError, match="takes 3 arguments"):
        run_tree(trees[RuntimeKind.TENSORMAP_AND_RINGBUFFER], [x, out])


def test_run_image_kernel_names_in_errors(trees):
    from ptokit.runtime.build import build_tree
    from ptokit.runtime.callable import pack_tree
    from ptokit.runtime.sim import run_image
    built = build_tree(trees[RuntimeKind.TENSORMAP_AND_RINGBUFFER])
    image = pack_tree(built)
    x = np.ones((8, 2), np.float32)
    out = np.zeros_like(x)
    res = run_image(image, [x, out, 2.0], RunConfig(), kernel_names={0: "scale"})
    np.testing.assert_array_equal(out, 4.0)
    assert res.timeline.kernel_names == {0: "scale"}
    with pytest.raises(RuntimeFailure) as ei:      # an aiv kernel declared aic: submission is rejected
        run_image(image, [x, out, 2.0], RunConfig(), kernel_names={0: "scale"}, kernel_core_types={0: "aic"})
    assert ei.value.code == 5 and "'scale'" in ei.value.message


def test_cli_build_run_cache(trees, tmp_path, capsys):
    tree = str(trees[RuntimeKind.TENSORMAP_AND_RINGBUFFER])
    assert cli_run.build_main([tree, "-q"]) == 0
    assert "kernel 0" in capsys.readouterr().out
    x = np.arange(16, dtype=np.float32).reshape(8, 2)
    np.save(tmp_path / "x.npy", x)
    outdir = tmp_path / "outs"
    assert cli_run.run_main([tree, "--inputs", str(tmp_path / "x.npy"), "--scalar", "s=1.5",
                         "--save-outputs", str(outdir)]) == 0
    text = capsys.readouterr().out
    assert "ran 2 task(s)" in text and "out: float32[8, 2]" in text
    np.testing.assert_array_equal(np.load(outdir / "out.npy"), x * 3.0)
    # generated inputs: the dynamic dimension must be given
    from ptokit.errors import UserError
    with pytest.raises(UserError, match="--dim N=N"):
        cli_run.run_main([tree])
    assert cli_run.run_main([tree, "--dim", "N=4", "--runtime", "host_build_graph", "--runtime-threads", "3"]) == 0
    assert "host_build_graph" in capsys.readouterr().out
    with pytest.raises(UserError, match="vendor toolchain"):
        cli_run.run_main([tree, "--dim", "N=4", "--platform", "a2a3"])
    assert cli_cache.cache_main(["path"]) == 0
    assert capsys.readouterr().out.strip()
    assert cli_trace.trace_main(["summarize", "x"]) == 2
