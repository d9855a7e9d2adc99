"""expands, full, ci / arange, tri, random (against a numpy Philox-4x32), fillpad_expand and
fillpad_inplace, with runtime scalars and partial valid regions."""
import numpy as np
import pytest

import ptokit

from . import vecgen as V
from .generate_programs import C, R, VC, VR, Generate
from .vecgen import Op

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85


def philox(key, counter, n, rounds):
    """Words 0..n-1 of Philox-4x32-rounds: word i is lane i % 4 of the block at counter + i // 4."""
    mask = (1 << 32) - 1
    blocks = (n + 3) // 4
    base = counter[0] | counter[1] << 32 | counter[2] << 64 | counter[3] << 96
    ctr = np.array([[(base + b) >> (32 * j) & mask for j in range(4)] for b in range(blocks)], dtype=np.uint64)
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    for r in range(rounds):
        if r:
            k0, k1 = (k0 + np.uint64(W0)) & np.uint64(mask), (k1 + np.uint64(W1)) & np.uint64(mask)
        p0 = ctr[:, 0] * np.uint64(M0)
        p1 = ctr[:, 2] * np.uint64(M1)
        ctr = np.stack([(p1 >> np.uint64(32)) ^ ctr[:, 1] ^ k0, p1 & np.uint64(mask),
                        (p0 >> np.uint64(32)) ^ ctr[:, 3] ^ k1, p0 & np.uint64(mask)], axis=1)
    return ctr.reshape(-1)[:n].astype(np.uint32)


def test_philox_reference_matches_the_published_vector():
    # Random123's known-answer test for philox4x32_10: counter = key = 0
    assert [hex(w) for w in philox((0, 0), (0, 0, 0, 0), 4, 10)] == ["0x6627e8d5", "0xe169c58d", "0xbc57ac4c",
                                                                      "0x9b00dbd8"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (R, C)).astype(np.float32)
    outs = [np.full(s, 77, d) for s, d in (((R, C), np.float32), ((R, C), np.float16), ((1, C), np.int32),
                                           ((1, 32), np.int16), ((R, C), np.int32), ((R, C), np.float32),
                                           ((R, C), np.uint32), ((R, C), np.int32), ((2 * R, 2 * C), np.float32),
                                           ((R, C), np.float32))]
    ptokit.compile(Generate, output_dir=tmp_path_factory.mktemp("gen"))(a, 100, 3, 0x7fffffff, *outs)
    return a, outs


def _only_valid(got, want, vr, vc):
    assert np.array_equal(got[:vr, :vc], want[:vr, :vc])
    outside = got.copy()
    outside[:vr, :vc] = 77
    assert np.all(outside == 77)


def test_expands_and_full(run):
    a, (y0, y1, *_) = run
    _only_valid(y0, np.full((R, C), 2.5, np.float32), VR, VC)
    assert np.array_equal(y1, np.full((R, C), 1.5, np.float16))


def test_ci_and_arange(run):
    _, (_, _, y2, y3, *_) = run
    assert np.array_equal(y2[0], 5 + np.arange(C, dtype=np.int32))
    assert np.array_equal(y3[0], (100 - np.arange(32)).astype(np.int16))


def test_tri(run):
    _, (*_, y4, y5, _, _, _, _) = run
    i, j = np.indices((R, C))
    _only_valid(y4, (j <= i + 3).astype(np.int32), VR, VC)
    assert np.array_equal(y5, (j >= i - 2).astype(np.float32))


def test_random_is_philox_over_the_valid_region(run):
    _, (*_, y6, y7, _, _) = run
    want6 = philox((1, 2), (3, 4, 5, 6), VR * VC, 10).reshape(VR, VC)
    _only_valid(y6, np.pad(want6, ((0, R - VR), (0, C - VC))), VR, VC)
    # seeds are 32-bit words: -1 is 0xffffffff, so the block counter carries into counter1
    want7 = philox((0x7fffffff, 7), (0xffffffff, 0, 0, 9), R * C, 7).reshape(R, C).view(np.int32)
    assert np.array_equal(y7, want7)
    assert len(np.unique(y7)) > R * C - 2        # words, not a pattern


def test_fillpad_expand_and_inplace(run):
    a, (*_, y8, y9) = run
    want8 = np.full((2 * R, 2 * C), np.inf, np.float32)
    want8[:VR, :VC] = a[:VR, :VC]
    assert np.array_equal(y8, want8)
    want9 = np.full((R, C), -np.inf, np.float32)
    want9[:VR, :VC] = a[:VR, :VC]
    assert np.array_equal(y9, want9)


# pto.texpands on a2a3 fills 16- and 32-bit integer, f16 and f32 tiles (the real assembler's rule; BF16
# and 8-bit tiles are refused at the DSL line, test_expands_element_rule)
NUMERIC = ["FP32", "FP16", "INT32", "INT16", "UINT32", "UINT16"]
TRI = {"FP32", "FP16", "INT32", "INT16", "UINT32", "UINT16"}


@pytest.mark.parametrize("dtype", ["BF16", "INT8", "UINT8"])
def test_expands_element_rule(tmp_path, dtype):
    from ptokit.errors import CompileError
    table = [Op("expands", "pl.expands(a, 3)", lambda a, b, c: a)]
    prog = V.program(tmp_path, f"Expands{dtype}", dtype, table)
    with pytest.raises(CompileError) as info:
        ptokit.compile(prog, output_dir=tmp_path / "out")
    assert info.value.message.startswith("'pto.texpands' op expects A2/A3 texpands dst element type to be "
                                         "i16/i32/f16/f32"), info.value.message
    assert "pl.expands(ta, 3)" in info.value.loc.source_line
    if dtype != "BF16":
        ptokit.compile(prog, output_dir=tmp_path / "a5", platform="a5sim")     # a5 fills 8-bit tiles


@pytest.mark.parametrize("dtype", NUMERIC)
def test_expands_full_and_tri_in_every_dtype(tmp_path_factory, dtype):
    t = V.NP[dtype]
    a = np.random.default_rng(6).integers(0, 9, (V.ROWS, V.COLS)).astype(t)
    i, j = np.indices(a.shape)
    table = [Op("expands", "pl.expands(a, 3)", lambda a, b, c: np.full(a.shape, 3, t)),
             Op("full", f"pl.add(a, pl.full([{V.ROWS}, {V.COLS}], pl.{dtype}, 2))", lambda a, b, c: a + t(2))]
    if dtype in TRI:
        table.append(Op("tri", f"pl.tile.tri(1, [{V.ROWS}, {V.COLS}], valid_shape=[{V.VALID[0]}, {V.VALID[1]}], "
                               f"dtype=pl.{dtype})", lambda a, b, c: (j <= i + 1).astype(t)))
    outs = V.run(tmp_path_factory.getbasetemp(), f"Fill{dtype}", dtype, table, a, a, a)
    V.check(table, outs, a, a, a, dtype)
