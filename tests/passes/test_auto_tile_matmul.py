"""AutoTileMatmulL0 (IR in, IR out) and its tile chooser: a matmul larger than L0 is tiled for the
target of the pass context; what fits is left as written; an oversized result with nowhere to go is
a located error."""
import pytest

import ptokit.language as pl
from ptokit.errors import CompileError
from ptokit.ir import nodes as N
from ptokit.ir.types import MemorySpace
from ptokit.language.parser import parse_program
from ptokit.passes.auto_tile_matmul import auto_tile_matmul_l0
from ptokit.passes.context import PassContext
from ptokit.passes.l0_tile_chooser import L0TileConfig, Stationarity, choose_l0_tile
from ptokit.passes.manager import PIPELINE

from . import programs as P


def _before_tiling(program, platform="a2a3sim"):
    prog = parse_program(program)
    ctx = PassContext(platform=platform)
    for p in PIPELINE:
        if p.name == "AutoTileMatmulL0":
            return prog, ctx
        prog = p.run(prog, ctx)
    raise AssertionError("no AutoTileMatmulL0 in the pipeline")


def _ops(fn, name):
    return [e for _, e in N.walk_ops(fn.body, name)]


def _square(rows, depth, cols, dt):
    @pl.program
    class Square:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[rows, depth], dt], b: pl.Tensor[[depth, cols], dt],
              y: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            c = pl.matmul(a, b)
            y = pl.assemble(y, c, [0, 0])
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[rows, depth], dt], b: pl.Tensor[[depth, cols], dt],
                 y: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            y = self.k(a, b, y)
            return y
    return Square


def test_the_front_end_keeps_the_matmul_whole():
    prog, _ = _before_tiling(_square(256, 32, 256, pl.FP32))
    (mm,) = _ops(prog.functions["k"], "matmul")
    assert mm.type.shape == (256, 256)                 # 256 KB of FP32: more than a2a3's Acc


def test_tiles_are_sized_from_the_target():
    """[256, 256] FP32 is 256 KB: a grid of output tiles on a2a3 (Acc 128 KB), whole on a5 (256 KB)."""
    prog, ctx = _before_tiling(_square(256, 32, 256, pl.FP32), "a2a3sim")
    k = auto_tile_matmul_l0(prog, ctx).functions["k"]
    stores = _ops(k, "store")
    assert stores and all(s.args[0].type.shape[0] * s.args[0].type.shape[1] * 4 <= 131072 for s in stores)
    assert any(isinstance(s, N.For) for s in N.walk_stmts(k.body))
    assert not _ops(k, "move")                        # operands come as extracted windows
    assert {e.attrs["target_memory"].name for e in _ops(k, "extract")} == {"Left", "Right"}
    prog, ctx = _before_tiling(_square(256, 32, 256, pl.FP32), "a5sim")
    k = auto_tile_matmul_l0(prog, ctx).functions["k"]
    assert [e.type.shape for e in _ops(k, "matmul")] == [(256, 256)] and not _ops(k, "extract")


def test_what_fits_is_left_as_written():
    prog, ctx = _before_tiling(_square(64, 64, 64, pl.BF16))
    before = [e.op for _, e in N.iter_exprs(prog.functions["k"].body) if isinstance(e, N.OpCall)]
    k = auto_tile_matmul_l0(prog, ctx).functions["k"]
    assert [e.op for _, e in N.iter_exprs(k.body) if isinstance(e, N.OpCall)] == before and "matmul" in before


def test_k_only_tiling_is_a_loop_of_matmul_acc():
    prog, ctx = _before_tiling(P.OversizedMatmul)
    k = auto_tile_matmul_l0(prog, ctx).functions["k"]
    loops = [s for s in N.walk_stmts(k.body) if isinstance(s, N.For)]
    assert any(any(isinstance(b, N.Assign) and isinstance(b.value, N.OpCall) and b.value.op == "matmul_acc"
                   for b in s.body) for s in loops)
    bias = [e for e in _ops(k, "move") if e.attrs["target_memory"].name == "Bias"]
    assert bias and all(e.type.shape[1] * 4 <= ctx.target.capacity("bias") for e in bias)
    assert len(_ops(k, "matmul_bias")) == 1        # in the grid loop: the bias is added once per tile


def test_a_non_divisor_k_is_peeled():
    prog, ctx = _before_tiling(_square(128, 592, 128, pl.BF16))     # the chooser's k = 32: 18 blocks and 16
    k = auto_tile_matmul_l0(prog, ctx).functions["k"]
    widths = sorted({e.attrs["shape"][1] for e in _ops(k, "extract") if e.attrs["target_memory"].name == "Left"})
    assert widths == [16, 32]
    assert [e.op for e in _ops(k, "matmul_acc")][-1:] == ["matmul_acc"] and len(_ops(k, "matmul_acc")) == 2


def test_an_oversized_result_not_stored_is_a_located_error():
    @pl.program
    class Chained:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[256, 32], pl.FP32], b: pl.Tensor[[32, 256], pl.FP32],
              y: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:
            c = pl.matmul(a, b)
            d = pl.add(c, c)
            y = pl.assemble(y, d, [0, 0])
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[256, 32], pl.FP32], b: pl.Tensor[[32, 256], pl.FP32],
                 y: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:
            y = self.k(a, b, y)
            return y
    prog, ctx = _before_tiling(Chained)
    with pytest.raises(CompileError) as info:
        auto_tile_matmul_l0(prog, ctx)
    text = str(info.value)
    assert "result of this matmul needs 262144 bytes, more than Acc holds on a2a3sim (131072 bytes)" in text
    assert "c = pl.matmul(a, b)" in text and "^" in text


# ---------------------------------------------------------------- the chooser

def _a2a3(m, k, n, nbytes=4, dbc=True):
    return choose_l0_tile(L0TileConfig(M=m, N=n, K=k, l0a_bytes=65536, l0b_bytes=65536, l0c_bytes=131072,
                                       bytes_a=nbytes, bytes_b=nbytes, allow_a_stationary=True,
                                       allow_b_stationary=True, allow_double_buffer_c=dbc, allow_k_boundary=True))


@pytest.mark.parametrize("m, n, tile, stat", [
    (160, 160, (80, 128, 64), Stationarity.OutputStationary),
    (144, 144, (48, 128, 64), Stationarity.OutputStationary),
    (256, 256, (32, 256, 64), Stationarity.BStationary),
    (448, 448, (112, 128, 64), Stationarity.OutputStationary),
    (384, 256, (32, 256, 64), Stationarity.BStationary),
])
def test_chooser_design_points_with_a_double_buffered_acc(m, n, tile, stat):
    r = _a2a3(m, 64, n)
    assert (r.m, r.n, r.k) == tile and r.stationarity is stat and r.double_buffer_c


def test_chooser_one_dimensional_grids_hold_the_long_operand():
    r = _a2a3(16, 64, 256)
    assert (r.m, r.n, r.k, r.os_holds_a) == (16, 128, 64, True)
    r = _a2a3(256, 64, 16)
    assert (r.m, r.n, r.k, r.os_holds_a) == (128, 16, 64, False)


def test_chooser_defaults_split_k_and_decline_what_buys_nothing():
    base = dict(l0a_bytes=65536, l0b_bytes=65536, l0c_bytes=131072)
    r = choose_l0_tile(L0TileConfig(M=16, N=256, K=512, **base))
    assert (r.m, r.n, r.k, r.perf_hint) == (16, 256, 64, "")        # one drain, K split
    r = choose_l0_tile(L0TileConfig(M=4096, N=4096, K=4096, allow_double_buffer_c=True, **base))
    assert (r.m, r.n, r.k, r.double_buffer_c) == (128, 256, 64, False)   # compute-bound: no second Acc


def test_chooser_refuses_impossible_inputs():
    with pytest.raises(ValueError, match="M, N, K must all be positive"):
        choose_l0_tile(L0TileConfig(M=0, N=16, K=16, l0a_bytes=1, l0b_bytes=1, l0c_bytes=1))
    with pytest.raises(ValueError, match="cannot hold the minimum tile"):
        choose_l0_tile(L0TileConfig(M=16, N=16, K=16, l0a_bytes=64, l0b_bytes=65536, l0c_bytes=131072))


def test_a_chained_oversized_result_is_kept_in_a_mat_scratch():
    """c (256 KB of FP32) cast to BF16 with rint and read only by a matmul: each output tile is inserted
    into one [256, 256] BF16 Mat tile, the cast folded into the insert.  (The consumer matmul is put
    in by hand: reading an Acc product is InferTileMemorySpace's to type and move.)"""
    @pl.program
    class Chain:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[256, 32], pl.BF16], b: pl.Tensor[[32, 256], pl.BF16],
              e: pl.Tensor[[256, 64], pl.BF16], y: pl.Out[pl.Tensor[[256, 256], pl.BF16]]) -> pl.Tensor[[256, 256], pl.BF16]:
            c = pl.matmul(a, b)
            cb = pl.cast(c, pl.BF16, mode="rint")
            y = pl.store(cb, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[256, 32], pl.BF16], b: pl.Tensor[[32, 256], pl.BF16],
                 e: pl.Tensor[[256, 64], pl.BF16], y: pl.Out[pl.Tensor[[256, 256], pl.BF16]]) -> pl.Tensor[[256, 256], pl.BF16]:
            y = self.k(a, b, e, y)
            return y
    prog, ctx = _before_tiling(Chain)
    k = prog.functions["k"]
    (st,) = [s for s in k.body if isinstance(s, (N.Assign, N.ExprStmt)) and
             isinstance(getattr(s, "value", getattr(s, "expr", None)), N.OpCall) and
             getattr(s, "value", getattr(s, "expr", None)).op == "store"]
    cb = st.value.args[0] if isinstance(st, N.Assign) else st.expr.args[0]
    e_mat = N.Var("e_mat", type=cb.type.with_(shape=(256, 64), memory=MemorySpace.Mat))
    load = N.OpCall("load", [N.Var("e", type=k.param("e").type), N.ListExpr([N.Const(0), N.Const(0)])], {},
                    type=e_mat.type)
    d = N.OpCall("matmul", [N.Var(cb.name, type=cb.type), e_mat], {}, type=cb.type.with_(shape=(256, 64)))
    at = k.body.index(st)
    k.body[at:at + 1] = [N.Assign([e_mat], load), N.Assign([N.Var("d", type=d.type)], d)]
    k = auto_tile_matmul_l0(prog, ctx).functions["k"]
    (made,) = _ops(k, "create_tile")
    assert made.type.shape == (256, 256) and made.type.memory.name == "Mat" and made.type.dtype.name == "BF16"
    assert not _ops(k, "cast") and _ops(k, "assemble")
    assert all(a.args[1].type.memory.name == "Acc" for a in _ops(k, "assemble"))
    # the consumer (128 KB of BF16 Left: K-tiled too) reads its Left windows out of the scratch
    reads = [x for x in _ops(k, "extract") if x.args[0].name == cb.name]
    assert reads and all(x.args[0].type.memory.name == "Mat" and x.attrs["target_memory"].name == "Left"
                         for x in reads)


# ---------------------------------------------------------------- the canonical split-K chain

def test_a_create_tensor_accumulator_is_placed_in_acc():
    """InferAccumulatorSpace: the pl.create_tensor tile a loop binds to matmul products starts in Acc
    (the front end made it Vec); every read of it sees the Acc tile."""
    prog, _ = _before_tiling(P.SplitKChain)
    (made,) = _ops(prog.functions["k"], "create_tile")
    assert made.type.memory is MemorySpace.Acc and made.attrs["target_memory"] is MemorySpace.Acc
    (acc,) = _ops(prog.functions["k"], "matmul_acc")
    assert acc.args[0].type.memory is MemorySpace.Acc


def test_a_vector_read_keeps_the_created_tile_in_vec():
    @pl.program
    class VecRead:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
              y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
            t = pl.create_tensor([16, 16], dtype=pl.FP32)
            t = pl.adds(t, 1.0)
            p = pl.matmul(a, b)
            y = pl.store(p, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
                 y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
            y = self.k(a, b, y)
            return y
    prog, _ = _before_tiling(VecRead)
    (made,) = _ops(prog.functions["k"], "create_tile")
    assert made.type.memory is MemorySpace.Vec


def test_a_matmul_acc_on_a_computed_vec_tile_is_a_located_error(tmp_path):
    @pl.program
    class VecAcc:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
              x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
            acc = pl.load(x, [0, 0], [16, 16])
            acc = pl.matmul_acc(acc, a, b)
            y = pl.store(acc, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
                 x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
            y = self.k(a, b, x, y)
            return y
    import ptokit
    with pytest.raises(CompileError) as info:
        ptokit.compile(VecAcc, output_dir=tmp_path / "out")
    text = str(info.value)
    assert "pl.matmul_acc accumulates in place into an Acc tile, but 'acc" in text and "is a Vec tile" in text
    assert "acc = pl.matmul_acc(acc, a, b)" in text and "^" in text


def test_an_oversized_split_k_chain_is_a_grid_of_k_loops():
    """[160, 208] INT32 exceeds Acc: each output tile gets its own accumulator and copy of the K loop
    (loads narrowed to its rows of a and columns of b) and one store; no [160, 208] tile is made."""
    prog, ctx = _before_tiling(P.SplitKChain)
    k = auto_tile_matmul_l0(prog, ctx).functions["k"]
    made = _ops(k, "create_tile")
    assert made and all(m.type.memory is MemorySpace.Acc and m.type.nbytes <= 131072 for m in made)
    assert (160, 208) not in {m.type.shape for m in made}
    stores = _ops(k, "store")
    assert len(stores) == len(made)
    # every accumulator is bound to products of its own shape, over loads of its window
    for mm in _ops(k, "matmul") + _ops(k, "matmul_acc"):
        assert mm.type.shape in {m.type.shape for m in made}
    # INT8 Right tiles are whole 32-column boxes: the 80-column N tail is the last 96 columns, overlapping
    assert sorted((s.attrs["offsets_static"][1], s.args[0].type.shape[1]) for s in stores) == [(0, 128), (112, 96)]


def test_a_split_k_chain_that_fits_is_left_as_written():
    @pl.program
    class Small:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[64, 256], pl.BF16], b: pl.Tensor[[256, 64], pl.BF16],
              c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            acc = pl.create_tensor([64, 64], dtype=pl.FP32)
            for kb in pl.range(2):
                if kb == 0:
                    acc = pl.matmul(a[:, kb * 128:kb * 128 + 128], b[kb * 128:kb * 128 + 128, :])
                else:
                    acc = pl.matmul_acc(acc, a[:, kb * 128:kb * 128 + 128], b[kb * 128:kb * 128 + 128, :])
            c[0:64, 0:64] = acc
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 256], pl.BF16], b: pl.Tensor[[256, 64], pl.BF16],
                 c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            c = self.k(a, b, c)
            return c
    prog, ctx = _before_tiling(Small)
    k = auto_tile_matmul_l0(prog, ctx).functions["k"]
    assert [m.type.shape for m in _ops(k, "create_tile")] == [(64, 64)] and len(_ops(k, "store")) == 1


def test_a_split_k_loop_that_writes_memory_is_not_copied():
    """A loop that also stores is not run once per output tile: the oversized product stays the located
    error."""
    @pl.program
    class Writes:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[160, 256], pl.INT8], b: pl.Tensor[[256, 208], pl.INT8],
              x: pl.Tensor[[16, 16], pl.FP32], z: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
              c: pl.Out[pl.Tensor[[160, 208], pl.INT32]]) -> pl.Tensor[[160, 208], pl.INT32]:
            acc = pl.create_tensor([160, 208], dtype=pl.INT32)
            for kb in pl.range(2):
                z = pl.store(pl.load(x, [0, 0], [16, 16]), [0, 0], z)
                if kb == 0:
                    acc = pl.matmul(a[:, 0:128], b[0:128, :], out_dtype=pl.INT32)
                else:
                    acc = pl.matmul_acc(acc, a[:, 128:256], b[128:256, :])
            c[0:160, 0:208] = acc
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[160, 256], pl.INT8], b: pl.Tensor[[256, 208], pl.INT8],
                 x: pl.Tensor[[16, 16], pl.FP32], z: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
                 c: pl.Out[pl.Tensor[[160, 208], pl.INT32]]) -> pl.Tensor[[160, 208], pl.INT32]:
            c = self.k(a, b, x, z, c)
            return c
    prog, ctx = _before_tiling(Writes)
    with pytest.raises(CompileError, match=r"result of this matmul needs 133120 bytes"):
        auto_tile_matmul_l0(prog, ctx)


def test_a_result_that_fits_acc_but_not_one_right_tile_says_so():
    """[16, 1152] INT32 fits Acc; a K block of its 1152 INT8 columns does not fit Right: the error names
    Right, not Acc."""
    @pl.program
    class Wide:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 128], pl.INT8], b: pl.Tensor[[128, 1152], pl.INT8],
              c: pl.Out[pl.Tensor[[16, 1152], pl.INT32]]) -> pl.Tensor[[16, 1152], pl.INT32]:
            p = pl.matmul(a, b, out_dtype=pl.INT32)
            q = pl.add(p, p)
            c = pl.store(q, [0, 0], c)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 128], pl.INT8], b: pl.Tensor[[128, 1152], pl.INT8],
                 c: pl.Out[pl.Tensor[[16, 1152], pl.INT32]]) -> pl.Tensor[[16, 1152], pl.INT32]:
            c = self.k(a, b, c)
            return c
    prog, ctx = _before_tiling(Wide)
    with pytest.raises(CompileError) as info:
        auto_tile_matmul_l0(prog, ctx)
    text = str(info.value)
    assert "result of this matmul is computed in [16, " in text and "does not fit Right (65536 bytes)" in text
    assert "more than Acc holds" not in text


def test_a_split_k_chain_over_named_mat_loads_narrows_them():
    """The operands named in the loop (Mat loads read by both products): each output tile's copy loads
    only its rows of a and its columns of b."""
    @pl.program
    class Named:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[160, 256], pl.BF16], b: pl.Tensor[[256, 208], pl.BF16],
              c: pl.Out[pl.Tensor[[160, 208], pl.FP32]]) -> pl.Tensor[[160, 208], pl.FP32]:
            acc = pl.create_tensor([160, 208], dtype=pl.FP32)
            for kb in pl.range(2):
                a_mat = pl.load(a, [0, kb * 128], [160, 128], target_memory=pl.Mem.Mat)
                b_mat = pl.load(b, [kb * 128, 0], [128, 208], target_memory=pl.Mem.Mat)
                if kb == 0:
                    acc = pl.matmul(a_mat, b_mat)
                else:
                    acc = pl.matmul_acc(acc, a_mat, b_mat)
            c = pl.store(acc, [0, 0], c)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[160, 256], pl.BF16], b: pl.Tensor[[256, 208], pl.BF16],
                 c: pl.Out[pl.Tensor[[160, 208], pl.FP32]]) -> pl.Tensor[[160, 208], pl.FP32]:
            c = self.k(a, b, c)
            return c
    prog, ctx = _before_tiling(Named)
    k = auto_tile_matmul_l0(prog, ctx).functions["k"]
    made = _ops(k, "create_tile")
    assert len(made) > 1 and (160, 208) not in {m.type.shape for m in made}
    loads = _ops(k, "load")
    assert {ld.type.shape[0] for ld in loads if ld.args[0].name == "a"} <= {m.type.shape[0] for m in made}
    assert {ld.type.shape[1] for ld in loads if ld.args[0].name == "b"} <= {m.type.shape[1] for m in made}
