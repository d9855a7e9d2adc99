"""pl.tile.sin / cos (composites of muls/adds/mul/sub/cast) against numpy over [-100, 100], with the
points next to the zeros of sin and cos where range reduction loses the most: within 2.5 ulp."""
import numpy as np

from . import vecgen as V
from .vecgen import Op


def test_sin_cos_within_a_few_ulp(tmp_path_factory):
    rng = np.random.default_rng(12)
    x = rng.uniform(-100, 100, (V.ROWS, V.COLS)).astype(np.float32)
    k = np.arange(-31, 32)
    hard = np.concatenate([k * np.pi, (k + 0.5) * np.pi]).astype(np.float32)      # zeros of sin and cos
    vr, vc = V.VALID
    flat = x[:vr, :vc].reshape(-1)
    flat[:hard.size] = hard
    flat[hard.size:2 * hard.size] = np.nextafter(hard, np.float32(np.inf))
    flat[-2:] = [0.0, -0.0]
    x[:vr, :vc] = flat.reshape(vr, vc)
    table = [Op("sin", "pl.tile.sin(a)", lambda a, b, c: np.sin(a.astype(np.float64))),
             Op("cos", "pl.tile.cos(a)", lambda a, b, c: np.cos(a.astype(np.float64)))]
    outs = V.run(tmp_path_factory.getbasetemp(), "SinCos", "FP32", table, x, x, x)
    for op, got in zip(table, outs):
        want = op.ref(x, x, x)[:vr, :vc]
        ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
        err = np.abs(got[:vr, :vc].astype(np.float64) - want) / ulp
        assert err.max() <= 2.5, (op.name, err.max(), x[:vr, :vc].flat[err.argmax()])
        assert np.all(got[vr:] == V.SENTINEL) and np.all(got[:, vc:] == V.SENTINEL)
    assert outs[0][:vr, :vc].flat[-2] == 0 and outs[0][:vr, :vc].flat[-1] == 0     # sin(+-0) (the zero's sign is
    # not kept: the reduction adds zeros of both signs)
