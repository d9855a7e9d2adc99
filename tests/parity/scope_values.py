"""A1: values from the enclosing scope in every argument slot (programs made by factories)."""
import ptokit.language as pl


def make_scope_values(m, n, dt, space, pad):
    SHAPE = [m, n]
    vshape = [m, n - 24]
    CFG = {"rows": m, "shape": (m, n)}
    OFFS = (0, 0)
    SCALE = 2

    @pl.program
    class ScopeValues:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[m, n], dt], y: pl.Out[pl.Tensor[[m, n], dt]]):
            t = pl.load(a, OFFS, SHAPE, valid_shape=vshape, target_memory=space)
            t = pl.fillpad(t, pad_value=pad)
            u = pl.create_tile(shape=[CFG["rows"], SHAPE[1]], dtype=dt)
            u = pl.muls(t, SCALE)
            y = pl.store(u, [OFFS[0], 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[CFG["shape"], dt], y: pl.Out[pl.Tensor[[m, n], dt]]):
            y = self.k(a, y)
            return y

    return ScopeValues


def make_missing_key():
    CFG = {"rows": 16}

    @pl.program
    class MissingKey:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
            y = pl.store(pl.load(a, [0, 0], [CFG["cols"], 64]), [0, 0], y)
            return y

    return MissingKey
