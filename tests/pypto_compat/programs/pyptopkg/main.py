"""Run as a module (python -m pyptopkg.main): a relative import, as pypto's model examples do."""
import sys

import numpy as np
from pypto.runtime import RunConfig, run

from .kernels import N, Square

if __name__ == "__main__":
    x = np.full((N, N), float(sys.argv[1]), dtype=np.float32)
    y = np.zeros_like(x)
    run(Square, x, y, config=RunConfig(platform="a2a3sim"))
    np.testing.assert_array_equal(y, x * x)
    print(f"OK {y[0, 0]:g}")
