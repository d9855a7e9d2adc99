"""The host side of the MPI smoke test (tests/distributed/test_mpi.py): MPI rank 0 of
`mpirun -n 1 python mpi_smoke.py TREE : -n 2 python -m ptokit.distributed.worker --mpi`."""
import sys

import numpy as np

from ptokit.distributed.launcher import run_distributed
from ptokit.runtime.config import RunConfig
from ptokit.targets import DistributedConfig

tree = sys.argv[1]
x = (np.arange(64, dtype=np.float32)[None, None, :] + 100 * np.arange(2, dtype=np.float32)[:, None, None])
y = np.zeros_like(x)
res = run_distributed(tree, [x, y], RunConfig(clusters=2, timeout=30, distributed_config=DistributedConfig(
    device_ids=[0, 1], transport="mpi")), quiet=True)
assert np.array_equal(y, np.roll(x, 1, axis=0)), y[:, 0, :4]
assert [r.tasks for r in res.ranks] == [1, 1]
print("MPI SMOKE OK", flush=True)
