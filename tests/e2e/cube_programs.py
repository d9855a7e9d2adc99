"""Programs of the cube op set (pypto-parity.md D): transposed tensor operands, matmul_bias,
matmul_acc with init_cond, the GEMV family.  One kernel holds many ops (one build per dtype)."""
import functools

import ptokit.language as pl

M, K, N = 32, 64, 48          # N: not a power of two; K split into KT blocks of KB
KB = 16
KT = K // KB


@functools.lru_cache(maxsize=None)
def make_cube_family(dtype):
    """Each output against numpy:
    y_bt   = a @ bt.T      pl.matmul(a, bt, b_trans=True) on tensors (bt stored [N, K])
    y_at   = at.T @ b      pl.matmul(at, b, a_trans=True) on tensors (at stored [K, M])
    y_bias = a @ b + bias  pl.matmul_bias on tiles (bias moved Mat -> Bias)
    y_tbias= a @ b + bias  pl.matmul_bias on tensors (the bias tensor is brought to Bias)
    y_init = a @ b         a K loop of matmul_acc(init_cond=(k == 0)) into an Acc tile holding a @ b already
    y_true = a @ b         matmul_acc(2 a @ b, l, r, init_cond=True): the product overwrites the accumulator
    y_gemv = v @ b, y_gacc = 2 v @ b (gemv then gemv_acc), y_gbias = v @ b + bias."""

    @pl.program
    class CubeFamily:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[M, K], dtype], b: pl.Tensor[[K, N], dtype], bt: pl.Tensor[[N, K], dtype],
              at: pl.Tensor[[K, M], dtype], v: pl.Tensor[[1, K], dtype], bias: pl.Tensor[[1, N], pl.FP32],
              y_bt: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_at: pl.Out[pl.Tensor[[M, N], pl.FP32]],
              y_bias: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_tbias: pl.Out[pl.Tensor[[M, N], pl.FP32]],
              y_init: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_true: pl.Out[pl.Tensor[[M, N], pl.FP32]],
              y_gemv: pl.Out[pl.Tensor[[1, N], pl.FP32]], y_gacc: pl.Out[pl.Tensor[[1, N], pl.FP32]],
              y_gbias: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            y_bt = pl.store(pl.matmul(a, bt, b_trans=True), [0, 0], y_bt)
            y_at = pl.store(pl.matmul(at, b, a_trans=True), [0, 0], y_at)
            left = pl.move(pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            right = pl.move(pl.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            brow = pl.move(pl.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
            y_bias = pl.store(pl.matmul_bias(left, right, brow), [0, 0], y_bias)
            y_tbias = pl.store(pl.matmul_bias(a, b, bias), [0, 0], y_tbias)
            acc = pl.matmul(left, right)
            for kb in pl.range(KT):
                lk = pl.move(pl.load(a, [0, kb * KB], [M, KB], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
                rk = pl.move(pl.load(b, [kb * KB, 0], [KB, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
                acc = pl.matmul_acc(acc, lk, rk, init_cond=(kb == 0))
            y_init = pl.store(acc, [0, 0], y_init)
            junk = pl.matmul(left, right)
            junk = pl.matmul_acc(junk, left, right)                       # 2 a @ b
            junk = pl.matmul_acc(junk, left, right, init_cond=True)       # overwritten: a @ b
            y_true = pl.store(junk, [0, 0], y_true)
            vl = pl.move(pl.load(v, [0, 0], [1, K], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            g = pl.tile.gemv(vl, right)
            y_gemv = pl.store(g, [0, 0], y_gemv)
            g = pl.tile.gemv_acc(g, vl, right, acc_phase="final")
            y_gacc = pl.store(g, [0, 0], y_gacc)
            y_gbias = pl.store(pl.tile.gemv_bias(vl, right, brow), [0, 0], y_gbias)
            return y_bt, y_at, y_bias, y_tbias, y_init, y_true, y_gemv, y_gacc, y_gbias

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[M, K], dtype], b: pl.Tensor[[K, N], dtype], bt: pl.Tensor[[N, K], dtype],
                 at: pl.Tensor[[K, M], dtype], v: pl.Tensor[[1, K], dtype], bias: pl.Tensor[[1, N], pl.FP32],
                 y_bt: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_at: pl.Out[pl.Tensor[[M, N], pl.FP32]],
                 y_bias: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_tbias: pl.Out[pl.Tensor[[M, N], pl.FP32]],
                 y_init: pl.Out[pl.Tensor[[M, N], pl.FP32]], y_true: pl.Out[pl.Tensor[[M, N], pl.FP32]],
                 y_gemv: pl.Out[pl.Tensor[[1, N], pl.FP32]], y_gacc: pl.Out[pl.Tensor[[1, N], pl.FP32]],
                 y_gbias: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            y_bt, y_at, y_bias, y_tbias, y_init, y_true, y_gemv, y_gacc, y_gbias = self.k(
                a, b, bt, at, v, bias, y_bt, y_at, y_bias, y_tbias, y_init, y_true, y_gemv, y_gacc, y_gbias)
            return y_bt, y_at, y_bias, y_tbias, y_init, y_true, y_gemv, y_gacc, y_gbias

    return CubeFamily


BB, BM, BK, BN = 3, 16, 32, 32


@pl.program
class BatchMatmul:
    """y3 = a3 @ b3 per batch (pl.batch_matmul), yb = a3 @ b2 (pl.matmul, b2 broadcast over the batch),
    yt = a3 @ bt3^T per batch (pl.matmul b_trans=True on rank-3 tensors), y1 = a3[1] @ b3[2] (a window
    of each), stored as c[:, :, :] = ... and pl.store(..., shapes=...)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a3: pl.Tensor[[BB, BM, BK], pl.FP16], b3: pl.Tensor[[BB, BK, BN], pl.FP16],
          b2: pl.Tensor[[BK, BN], pl.FP16], bt3: pl.Tensor[[1, BN, BK], pl.FP16],
          y3: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]], yb: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]],
          yt: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]], y1: pl.Out[pl.Tensor[[BM, BN], pl.FP32]]):
        y3[:, :, :] = pl.batch_matmul(a3, b3)
        yb = pl.store(pl.matmul(a3, b2), [0, 0, 0], yb, shapes=[BB, BM, BN])
        yt[:, :, :] = pl.matmul(a3, bt3, b_trans=True)
        y1[:, :] = pl.batch_matmul(a3[1:2, :, :], b3[2:3, :, :])
        return y3, yb, yt, y1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a3: pl.Tensor[[BB, BM, BK], pl.FP16], b3: pl.Tensor[[BB, BK, BN], pl.FP16],
             b2: pl.Tensor[[BK, BN], pl.FP16], bt3: pl.Tensor[[1, BN, BK], pl.FP16],
             y3: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]], yb: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]],
             yt: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]], y1: pl.Out[pl.Tensor[[BM, BN], pl.FP32]]):
        y3, yb, yt, y1 = self.k(a3, b3, b2, bt3, y3, yb, yt, y1)
        return y3, yb, yt, y1


@pl.program
class BatchMatmulAcc:
    """pl.batch_matmul_acc into batch_matmul's Acc layout [B * M, N] (batch b in rows b * M ..):
    ya = a3 @ b3 + a3 @ b2     batch_matmul, then batch_matmul_acc with b2 broadcast over the batch
    yk = a3 @ b3               a K loop of pl.tile.batch_matmul_acc(init_cond=(k == 0)) on K windows,
                               into an accumulator holding a3 @ b2 before the loop (overwritten at k == 0)
    yt = a3 @ b3 + a3 @ bt3^T  pl.matmul_acc on rank-3 tensors with b_trans=True
    yi = a3 @ b2               init_cond=True: every band overwritten
    y1 = 2 a3[1] @ b3[2]       one batch (windows of each): a plain matmul_acc"""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a3: pl.Tensor[[BB, BM, BK], pl.FP16], b3: pl.Tensor[[BB, BK, BN], pl.FP16],
          b2: pl.Tensor[[BK, BN], pl.FP16], bt3: pl.Tensor[[1, BN, BK], pl.FP16],
          ya: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]], yk: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]],
          yt: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]], yi: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]],
          y1: pl.Out[pl.Tensor[[BM, BN], pl.FP32]]):
        acc = pl.batch_matmul(a3, b3)
        acc = pl.batch_matmul_acc(acc, a3, b2)
        ya[:, :, :] = acc
        kacc = pl.batch_matmul(a3, b2)
        for kb in pl.range(2):
            kacc = pl.tile.batch_matmul_acc(kacc, a3[:, :, kb * 16:kb * 16 + 16], b3[:, kb * 16:kb * 16 + 16, :],
                                            init_cond=(kb == 0))
        yk = pl.store(kacc, [0, 0, 0], yk, shapes=[BB, BM, BN])
        tacc = pl.batch_matmul(a3, b3)
        tacc = pl.matmul_acc(tacc, a3, bt3, b_trans=True)
        yt[:, :, :] = tacc
        iacc = pl.batch_matmul(a3, b3)
        iacc = pl.batch_matmul_acc(iacc, a3, b2, True)
        yi[:, :, :] = iacc
        one = pl.batch_matmul(a3[1:2, :, :], b3[2:3, :, :])
        one = pl.batch_matmul_acc(one, a3[1:2, :, :], b3[2:3, :, :])
        y1[:, :] = one
        return ya, yk, yt, yi, y1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a3: pl.Tensor[[BB, BM, BK], pl.FP16], b3: pl.Tensor[[BB, BK, BN], pl.FP16],
             b2: pl.Tensor[[BK, BN], pl.FP16], bt3: pl.Tensor[[1, BN, BK], pl.FP16],
             ya: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]], yk: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]],
             yt: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]], yi: pl.Out[pl.Tensor[[BB, BM, BN], pl.FP32]],
             y1: pl.Out[pl.Tensor[[BM, BN], pl.FP32]]):
        ya, yk, yt, yi, y1 = self.k(a3, b3, b2, bt3, ya, yk, yt, yi, y1)
        return ya, yk, yt, yi, y1


@pl.program
class BatchMatmulAcc2D:
    """batch_matmul_acc without batch dimensions is matmul_acc: on 2-D tensors (y = 2 a @ b) and on
    Left / Right tiles with a runtime init_cond (y2 = a @ b where c == 0, else 2 a @ b)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[BM, BK], pl.FP16], b: pl.Tensor[[BK, BN], pl.FP16],
          y: pl.Out[pl.Tensor[[BM, BN], pl.FP32]], y2: pl.Out[pl.Tensor[[BM, BN], pl.FP32]], c: pl.Scalar[pl.INDEX]):
        acc = pl.matmul(a, b)
        acc = pl.batch_matmul_acc(acc, a, b)
        y = pl.store(acc, [0, 0], y)
        left = pl.move(pl.load(a, [0, 0], [BM, BK], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        right = pl.move(pl.load(b, [0, 0], [BK, BN], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc2 = pl.matmul(left, right)
        acc2 = pl.tile.batch_matmul_acc(acc2, left, right, init_cond=(c == 0))
        y2 = pl.store(acc2, [0, 0], y2)
        return y, y2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[BM, BK], pl.FP16], b: pl.Tensor[[BK, BN], pl.FP16],
             y: pl.Out[pl.Tensor[[BM, BN], pl.FP32]], y2: pl.Out[pl.Tensor[[BM, BN], pl.FP32]], c: pl.Scalar[pl.INDEX]):
        y, y2 = self.k(a, b, y, y2, c)
        return y, y2


GM_, GR, GD, GP = 16, 32, 64, 128      # query rows, gathered rows, row size, pool rows


@pl.program
class GatherL1:
    """Rows of a GM pool picked by an index table, gathered into L1 and fed to the cube:
    s  = q @ kv^T   kv = create_l1([R, D]) filled row by row, matmul b_trans=True (a transpose_view);
    s2 = q @ kv^T   kvT = create_l1([D, R], transpose=True) filled by transposing gathers (rows as columns),
                    matmul b_trans=True reads it through its layout;
    o  = p @ kv     kv as the B operand as it is."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, q: pl.Tensor[[GM_, GD], pl.FP16], p: pl.Tensor[[GM_, GR], pl.FP16],
          pool: pl.Tensor[[GP, GD], pl.FP16], idx: pl.Tensor[[1, GR], pl.INT32],
          s: pl.Out[pl.Tensor[[GM_, GR], pl.FP32]], s2: pl.Out[pl.Tensor[[GM_, GR], pl.FP32]],
          o: pl.Out[pl.Tensor[[GM_, GD], pl.FP32]]):
        kv = pl.create_l1([GR, GD], pl.FP16)
        kvt = pl.create_l1([GD, GR], pl.FP16, transpose=True)
        for r in pl.range(GR):
            phys = pl.cast(pl.read(idx, [0, r]), pl.INDEX)
            kv = pl.gather_row(kv, pool, [r, 0], [phys, 0], [1, GD])
            kvt = pl.gather_row(kvt, pool, [0, r], [phys, 0], [1, GD], transpose=True)
        s = pl.store(pl.matmul(q, kv, b_trans=True), [0, 0], s)
        s2 = pl.store(pl.matmul(q, kvt, b_trans=True), [0, 0], s2)
        o = pl.store(pl.matmul(p, kv), [0, 0], o)
        return s, s2, o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[GM_, GD], pl.FP16], p: pl.Tensor[[GM_, GR], pl.FP16],
             pool: pl.Tensor[[GP, GD], pl.FP16], idx: pl.Tensor[[1, GR], pl.INT32],
             s: pl.Out[pl.Tensor[[GM_, GR], pl.FP32]], s2: pl.Out[pl.Tensor[[GM_, GR], pl.FP32]],
             o: pl.Out[pl.Tensor[[GM_, GD], pl.FP32]]):
        s, s2, o = self.k(q, p, pool, idx, s, s2, o)
        return s, s2, o


PB, PBS, PNI, PD = 8, 16, 32, 64        # pool blocks, block size, gathered rows, row size


@pl.program
class PagedGather:
    """kv = pl.paged_gather over a block table: s = q @ kv^T (b_trans=True), s2 the same from the
    transposed gather (is_trans=True, read through its layout), o = p @ kv (gathered with pypto's
    is_b_matrix=True hint), oh = p @ kv[:, 32:] (col_off)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, q: pl.Tensor[[GM_, PD], pl.FP16], p: pl.Tensor[[GM_, PNI], pl.FP16],
          pool: pl.Tensor[[PB * PBS, PD], pl.FP16], idx: pl.Tensor[[1, PNI], pl.INT32],
          table: pl.Tensor[[1, PB], pl.INT32],
          s: pl.Out[pl.Tensor[[GM_, PNI], pl.FP32]], s2: pl.Out[pl.Tensor[[GM_, PNI], pl.FP32]],
          o: pl.Out[pl.Tensor[[GM_, PD], pl.FP32]], oh: pl.Out[pl.Tensor[[GM_, PD // 2], pl.FP32]]):
        kv = pl.paged_gather(pool, idx, table, PBS, PD, PNI)
        kvt = pl.paged_gather(pool, idx, table, PBS, PD, PNI, is_trans=True)
        kvh = pl.paged_gather(pool, idx, table, block_size=PBS, size=PD // 2, max_indices=PNI, col_off=PD // 2)
        kvb = pl.paged_gather(pool, idx, table, PBS, PD, PNI, is_b_matrix=True)
        s = pl.store(pl.matmul(q, kv, b_trans=True), [0, 0], s)
        s2 = pl.store(pl.matmul(q, kvt, b_trans=True), [0, 0], s2)
        o = pl.store(pl.matmul(p, kvb), [0, 0], o)
        oh = pl.store(pl.matmul(p, kvh), [0, 0], oh)
        return s, s2, o, oh

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[GM_, PD], pl.FP16], p: pl.Tensor[[GM_, PNI], pl.FP16],
             pool: pl.Tensor[[PB * PBS, PD], pl.FP16], idx: pl.Tensor[[1, PNI], pl.INT32],
             table: pl.Tensor[[1, PB], pl.INT32],
             s: pl.Out[pl.Tensor[[GM_, PNI], pl.FP32]], s2: pl.Out[pl.Tensor[[GM_, PNI], pl.FP32]],
             o: pl.Out[pl.Tensor[[GM_, PD], pl.FP32]], oh: pl.Out[pl.Tensor[[GM_, PD // 2], pl.FP32]]):
        s, s2, o, oh = self.k(q, p, pool, idx, table, s, s2, o, oh)
        return s, s2, o, oh

