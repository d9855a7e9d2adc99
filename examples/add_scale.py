"""Two element-wise kernels chained through a runtime-allocated intermediate.

    python examples/add_scale.py
"""
import numpy as np

import ptokit
import ptokit.language as pl

N = 64


@pl.program
class AddScale:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
            out: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        ta = pl.load(a, [0, 0], [N, N])
        tb = pl.load(b, [0, 0], [N, N])
        out = pl.store(pl.add(ta, tb), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[N, N], pl.FP32], s: pl.Scalar[pl.FP32],
              out: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        t = pl.load(x, [0, 0], [N, N])
        out = pl.store(pl.exp(pl.mul(t, s)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32], s: pl.Scalar[pl.FP32],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        tmp = pl.create_tensor([N, N], dtype=pl.FP32)
        tmp = self.add(a, b, tmp)
        y = self.scale(tmp, s, y)
        return y


def main():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((N, N), dtype=np.float32)
    b = rng.standard_normal((N, N), dtype=np.float32)
    y = np.zeros((N, N), dtype=np.float32)
    compiled = ptokit.compile(AddScale, output_dir="build_output/AddScale")
    print(f"artifact tree: {compiled.output_dir}")
    compiled(a, b, 0.5, y)
    ref = np.exp((a + b) * 0.5)
    err = float(np.max(np.abs(y - ref)))
    print(f"max abs error vs numpy: {err:.3e}")
    return 0 if err < 1e-4 else 1


if __name__ == "__main__":
    raise SystemExit(main())
