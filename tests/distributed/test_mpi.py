"""The MPI transport on one host: W = 2 ranks under mpirun (skipped, saying why, where mpirun or
mpi4py is missing: install an MPI and `pip install ptokit[mpi]`)."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dist_util import tensor, write_tree

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PUT_HOST = '''
def entry(rt, tensors, world_size):
    x, y = tensors
    src, dst, sig = rt.alloc_domain([256, 256, 32])
    ws, wd, wg = rt.window(src, [1, 64], "FP32"), rt.window(dst, [1, 64], "FP32"), rt.window(sig, [8], "INT32")
    for r in range(world_size):
        rt.dispatch(r, "put", [x[r], y[r], ws, wd, wg], [0])
'''


def _missing():
    if shutil.which("mpirun") is None:
        return "mpirun is not installed (e.g. apt-get install openmpi-bin libopenmpi-dev)"
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py is not installed (pip install ptokit[mpi])"
    return None


@pytest.mark.skipif(_missing() is not None, reason=_missing() or "")
def test_put_over_mpi_one_sided_windows(tmp_path):
    tree = write_tree(tmp_path / "put", PUT_HOST, ["put"], [tensor("x", "FP32", ["NR", 1, 64]),
                                                          tensor("y", "FP32", ["NR", 1, 64], "OUT")])
    env = dict(os.environ, PYTHONPATH=str(REPO), OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    cmd = ["mpirun", "-n", "1", sys.executable, str(HERE / "mpi_smoke.py"), str(tree), ":",
           "-n", "2", sys.executable, "-m", "ptokit.distributed.worker", "--mpi"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0 and "MPI SMOKE OK" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
