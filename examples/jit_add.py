"""@pl.jit: a kernel written inline with pl.at, a helper kernel, and the compile cache.

    python examples/jit_add.py              # PTOKIT_EXPLAIN_CACHE=1 shows why each compile happened
"""
import numpy as np

import ptokit.language as pl
from ptokit.ir.printer import print_program

N = 64


@pl.jit.incore
def scale(x: pl.Tensor, s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor]):
    out[:] = pl.mul(x, s)            # whole-tensor op: lowered to load / muls / store
    return out


@pl.jit
def add_scale(a: pl.Tensor, b: pl.Tensor, s: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor]):
    tmp = pl.create_tensor([N, N], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="add"):
        t = pl.add(pl.load(a, [0, 0], [N, N]), pl.load(b, [0, 0], [N, N]))
        pl.store(t, [0, 0], tmp)
    scale(tmp, s, y)
    return y


def main():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((N, N), dtype=np.float32)
    b = rng.standard_normal((N, N), dtype=np.float32)
    y = np.zeros((N, N), dtype=np.float32)
    print(print_program(add_scale.lower(a, b, 0.5, y)))
    add_scale(a, b, 0.5, y)                       # compiles on the first call (or loads from the cache), runs
    print(f"artifact tree: {add_scale.last_compiled.output_dir}")
    y2 = add_scale(a, b, 2.0)                     # return style: y allocated and returned; same compiled program
    err = max(float(np.max(np.abs(y - (a + b) * 0.5))), float(np.max(np.abs(y2 - (a + b) * 2.0))))
    print(f"max abs error vs numpy: {err:.3e}")
    return 0 if err < 1e-5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
