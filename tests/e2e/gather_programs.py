"""Programs of the gathers-and-scatters family: gather, gather_mask, gatherb, scatter, scatter_mask,
mgather, mscatter.  Indices are inputs, so one build serves the in-range checks and the
out-of-range run-time errors."""
import ptokit.language as pl

R, C = 8, 64           # source tiles
IC = 32                # index tiles [R, IC]
MP = pl.tile.MaskPattern


@pl.program
class Gathers:
    @pl.function(type=pl.FunctionType.InCore)
    def by_index(self, f32: pl.Tensor[[R, C], pl.FP32], f16: pl.Tensor[[R, C], pl.FP16],
                 i16: pl.Tensor[[R, C], pl.INT16], i32: pl.Tensor[[R, C], pl.INT32],
                 idx: pl.Tensor[[R, IC], pl.INT32], idx16: pl.Tensor[[R, IC], pl.INT16],
                 o32: pl.Out[pl.Tensor[[R, IC], pl.FP32]], o16: pl.Out[pl.Tensor[[R, IC], pl.FP16]],
                 oi16: pl.Out[pl.Tensor[[R, IC], pl.INT16]], oi32: pl.Out[pl.Tensor[[R, IC], pl.INT32]],
                 oh: pl.Out[pl.Tensor[[R, IC], pl.FP16]]):
        ix = pl.load(idx, [0, 0], [R, IC], valid_shape=[6, 24])     # a partial valid region
        tmp = pl.tile.create([R, IC], pl.INT32)
        o32 = pl.store(pl.tile.gather(pl.load(f32, [0, 0], [R, C]), ix, tmp), [0, 0], o32)
        t16 = pl.load(f16, [0, 0], [R, C])
        o16 = pl.store(pl.tile.gather(t16, ix, tmp), [0, 0], o16)
        oi16 = pl.store(pl.tile.gather(src=pl.load(i16, [0, 0], [R, C]), indices=ix, tmp=tmp), [0, 0], oi16)
        oi32 = pl.store(pl.tile.gather(pl.load(i32, [0, 0], [R, C]), ix, tmp), [0, 0], oi32)
        oh = pl.store(pl.tile.gather(t16, pl.load(idx16, [0, 0], [R, IC]), tmp), [0, 0], oh)
        return o32

    @pl.function(type=pl.FunctionType.InCore)
    def by_mask(self, f32: pl.Tensor[[R, C], pl.FP32], f16: pl.Tensor[[R, C], pl.FP16],
                i16: pl.Tensor[[R, C], pl.INT16], i32: pl.Tensor[[R, C], pl.INT32],
                off: pl.Tensor[[R, 8], pl.UINT32],
                m1: pl.Out[pl.Tensor[[R, 32], pl.FP32]], m2: pl.Out[pl.Tensor[[R, 32], pl.FP32]],
                m3: pl.Out[pl.Tensor[[R, 16], pl.FP32]], m4: pl.Out[pl.Tensor[[R, 16], pl.FP32]],
                m5: pl.Out[pl.Tensor[[R, 16], pl.FP32]], m6: pl.Out[pl.Tensor[[R, 16], pl.FP32]],
                m7: pl.Out[pl.Tensor[[R, 64], pl.FP32]], mb: pl.Out[pl.Tensor[[R, 32], pl.UINT32]],
                mh: pl.Out[pl.Tensor[[R, 16], pl.FP16]], mi: pl.Out[pl.Tensor[[R, 16], pl.UINT16]],
                mi32: pl.Out[pl.Tensor[[R, 32], pl.INT32]], mv: pl.Out[pl.Tensor[[R, 16], pl.FP32]],
                gb: pl.Out[pl.Tensor[[R, 64], pl.FP32]], gh: pl.Out[pl.Tensor[[R, 128], pl.FP16]]):
        t = pl.load(f32, [0, 0], [R, C])
        m1 = pl.store(pl.tile.gather_mask(t, MP.P0101), [0, 0], m1)
        m2 = pl.store(pl.tile.gather_mask(t, MP.P1010), [0, 0], m2)
        m3 = pl.store(pl.tile.gather_mask(t, MP.P0001), [0, 0], m3)
        m4 = pl.store(pl.tile.gather_mask(t, MP.P0010), [0, 0], m4)
        m5 = pl.store(pl.tile.gather_mask(t, MP.P0100), [0, 0], m5)
        m6 = pl.store(pl.tile.gather_mask(t, mask_pattern=6), [0, 0], m6)
        m7 = pl.store(pl.tile.gather_mask(t, MP.P1111), [0, 0], m7)
        mb = pl.store(pl.tile.gather_mask(t, MP.P1010, output_dtype=pl.UINT32), [0, 0], mb)
        mh = pl.store(pl.tile.gather_mask(pl.load(f16, [0, 0], [R, C]), MP.P0001), [0, 0], mh)
        mi = pl.store(pl.tile.gather_mask(pl.load(i16, [0, 0], [R, C]), MP.P1000, output_dtype=pl.UINT16), [0, 0], mi)
        mi32 = pl.store(pl.tile.gather_mask(pl.load(i32, [0, 0], [R, C]), MP.P0101), [0, 0], mi32)
        part = pl.load(f32, [0, 0], [R, C], valid_shape=[5, 30])
        mv = pl.store(pl.tile.gather_mask(part, MP.P0100), [0, 0], mv)
        offs = pl.load(off, [0, 0], [R, 8])
        gb = pl.store(pl.tile.gatherb(t, offs), [0, 0], gb)
        gh = pl.store(pl.tile.gatherb(t, offs, output_dtype=pl.FP16), [0, 0], gh)
        return m1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, f32: pl.Tensor[[R, C], pl.FP32], f16: pl.Tensor[[R, C], pl.FP16],
             i16: pl.Tensor[[R, C], pl.INT16], i32: pl.Tensor[[R, C], pl.INT32],
             idx: pl.Tensor[[R, IC], pl.INT32], idx16: pl.Tensor[[R, IC], pl.INT16], off: pl.Tensor[[R, 8], pl.UINT32],
             o32: pl.Out[pl.Tensor[[R, IC], pl.FP32]], o16: pl.Out[pl.Tensor[[R, IC], pl.FP16]],
             oi16: pl.Out[pl.Tensor[[R, IC], pl.INT16]], oi32: pl.Out[pl.Tensor[[R, IC], pl.INT32]],
             oh: pl.Out[pl.Tensor[[R, IC], pl.FP16]],
             m1: pl.Out[pl.Tensor[[R, 32], pl.FP32]], m2: pl.Out[pl.Tensor[[R, 32], pl.FP32]],
             m3: pl.Out[pl.Tensor[[R, 16], pl.FP32]], m4: pl.Out[pl.Tensor[[R, 16], pl.FP32]],
             m5: pl.Out[pl.Tensor[[R, 16], pl.FP32]], m6: pl.Out[pl.Tensor[[R, 16], pl.FP32]],
             m7: pl.Out[pl.Tensor[[R, 64], pl.FP32]], mb: pl.Out[pl.Tensor[[R, 32], pl.UINT32]],
             mh: pl.Out[pl.Tensor[[R, 16], pl.FP16]], mi: pl.Out[pl.Tensor[[R, 16], pl.UINT16]],
             mi32: pl.Out[pl.Tensor[[R, 32], pl.INT32]], mv: pl.Out[pl.Tensor[[R, 16], pl.FP32]],
             gb: pl.Out[pl.Tensor[[R, 64], pl.FP32]], gh: pl.Out[pl.Tensor[[R, 128], pl.FP16]]):
        o32 = self.by_index(f32, f16, i16, i32, idx, idx16, o32, o16, oi16, oi32, oh)
        m1 = self.by_mask(f32, f16, i16, i32, off, m1, m2, m3, m4, m5, m6, m7, mb, mh, mi, mi32, mv, gb, gh)
        return o32


SC = 16                # scatter sources [R, SC]


@pl.program
class Scatters:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, d32: pl.Tensor[[R, C], pl.FP32], s32: pl.Tensor[[R, SC], pl.FP32], ix32: pl.Tensor[[R, SC], pl.INT32],
          di: pl.Tensor[[R, C], pl.INT32], si: pl.Tensor[[R, SC], pl.INT32],
          d16: pl.Tensor[[R, C], pl.FP16], s16: pl.Tensor[[R, SC], pl.FP16], ix16: pl.Tensor[[R, SC], pl.INT16],
          db: pl.Tensor[[R, C], pl.BF16], sb: pl.Tensor[[R, SC], pl.BF16],
          dh: pl.Tensor[[R, C], pl.INT16], sh: pl.Tensor[[R, SC], pl.INT16],
          d8: pl.Tensor[[R, C], pl.INT8], s8: pl.Tensor[[R, 32], pl.INT8], ix8: pl.Tensor[[R, 32], pl.INT16],
          sm: pl.Tensor[[R, 32], pl.FP32],
          o32: pl.Out[pl.Tensor[[R, C], pl.FP32]], oi: pl.Out[pl.Tensor[[R, C], pl.INT32]],
          o16: pl.Out[pl.Tensor[[R, C], pl.FP16]], ob: pl.Out[pl.Tensor[[R, C], pl.BF16]],
          oh: pl.Out[pl.Tensor[[R, C], pl.INT16]], o8: pl.Out[pl.Tensor[[R, C], pl.INT8]],
          om1: pl.Out[pl.Tensor[[R, C], pl.FP32]], om2: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        i32 = pl.load(ix32, [0, 0], [R, SC], valid_shape=[7, 12])
        t = pl.load(d32, [0, 0], [R, C])
        t = pl.tile.scatter(t, pl.load(s32, [0, 0], [R, SC]), i32)
        o32 = pl.store(t, [0, 0], o32)
        ti = pl.tile.scatter(pl.load(di, [0, 0], [R, C]), pl.load(si, [0, 0], [R, SC]), i32)
        oi = pl.store(ti, [0, 0], oi)
        i16 = pl.load(ix16, [0, 0], [R, SC])
        o16 = pl.store(pl.tile.scatter(dst=pl.load(d16, [0, 0], [R, C]), src=pl.load(s16, [0, 0], [R, SC]),
                                       indexes=i16), [0, 0], o16)
        ob = pl.store(pl.tile.scatter(pl.load(db, [0, 0], [R, C]), pl.load(sb, [0, 0], [R, SC]), i16), [0, 0], ob)
        oh = pl.store(pl.tile.scatter(pl.load(dh, [0, 0], [R, C]), pl.load(sh, [0, 0], [R, SC]), i16), [0, 0], oh)
        o8 = pl.store(pl.tile.scatter(pl.load(d8, [0, 0], [R, C]), pl.load(s8, [0, 0], [R, 32]),
                                      pl.load(ix8, [0, 0], [R, 32])), [0, 0], o8)
        src = pl.load(sm, [0, 0], [R, 32])
        om1 = pl.store(pl.tile.scatter_mask(pl.load(d32, [0, 0], [R, C], valid_shape=[R, 60]), src, MP.P0101), [0, 0],
                       om1)
        om2 = pl.store(pl.tile.scatter_mask(pl.load(d32, [0, 0], [R, C]), src, mask_pattern=MP.P1010), [0, 0], om2)
        return o32

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, d32: pl.Tensor[[R, C], pl.FP32], s32: pl.Tensor[[R, SC], pl.FP32],
             ix32: pl.Tensor[[R, SC], pl.INT32], di: pl.Tensor[[R, C], pl.INT32], si: pl.Tensor[[R, SC], pl.INT32],
             d16: pl.Tensor[[R, C], pl.FP16], s16: pl.Tensor[[R, SC], pl.FP16], ix16: pl.Tensor[[R, SC], pl.INT16],
             db: pl.Tensor[[R, C], pl.BF16], sb: pl.Tensor[[R, SC], pl.BF16],
             dh: pl.Tensor[[R, C], pl.INT16], sh: pl.Tensor[[R, SC], pl.INT16],
             d8: pl.Tensor[[R, C], pl.INT8], s8: pl.Tensor[[R, 32], pl.INT8], ix8: pl.Tensor[[R, 32], pl.INT16],
             sm: pl.Tensor[[R, 32], pl.FP32],
             o32: pl.Out[pl.Tensor[[R, C], pl.FP32]], oi: pl.Out[pl.Tensor[[R, C], pl.INT32]],
             o16: pl.Out[pl.Tensor[[R, C], pl.FP16]], ob: pl.Out[pl.Tensor[[R, C], pl.BF16]],
             oh: pl.Out[pl.Tensor[[R, C], pl.INT16]], o8: pl.Out[pl.Tensor[[R, C], pl.INT8]],
             om1: pl.Out[pl.Tensor[[R, C], pl.FP32]], om2: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        o32 = self.k(d32, s32, ix32, di, si, d16, s16, ix16, db, sb, dh, sh, d8, s8, ix8, sm,
                     o32, oi, o16, ob, oh, o8, om1, om2)
        return o32


TR, TC = 64, 32        # the GM table of mgather / mscatter


@pl.program
class GlobalGathers:
    """rows / elems feed the gather_oob="undefined" gathers, orows / oelems the clamp, wrap and zero
    ones, sidx the mscatter."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, table: pl.Tensor[[TR, TC], pl.FP32], itab: pl.Tensor[[TR, TC], pl.INT16],
          rows: pl.Tensor[[1, 8], pl.INT32], rows_col: pl.Tensor[[8, 1], pl.INT32], orows: pl.Tensor[[1, 8], pl.INT32],
          elems: pl.Tensor[[R, 16], pl.INT32], oelems: pl.Tensor[[R, 16], pl.INT32], sidx: pl.Tensor[[R, 16], pl.INT32],
          src: pl.Tensor[[R, 16], pl.FP32], htab: pl.Tensor[[TR, TC], pl.FP16], itab32: pl.Tensor[[TR, TC], pl.INT32],
          g_h: pl.Out[pl.Tensor[[R, 16], pl.FP16]], g_i32: pl.Out[pl.Tensor[[R, 16], pl.INT32]],
          hout: pl.InOut[pl.Tensor[[TR, TC], pl.FP16]],
          g_row: pl.Out[pl.Tensor[[8, TC], pl.FP32]], g_col: pl.Out[pl.Tensor[[8, TC], pl.FP32]],
          g_clamp: pl.Out[pl.Tensor[[8, TC], pl.FP32]], g_wrap: pl.Out[pl.Tensor[[8, TC], pl.FP32]],
          g_zero: pl.Out[pl.Tensor[[8, TC], pl.FP32]], g_elem: pl.Out[pl.Tensor[[R, 16], pl.FP32]],
          g_ewrap: pl.Out[pl.Tensor[[R, 16], pl.FP32]], g_i16: pl.Out[pl.Tensor[[8, TC], pl.INT16]],
          out: pl.InOut[pl.Tensor[[TR, TC], pl.FP32]]):
        r = pl.load(rows, [0, 0], [1, 8])
        g_row = pl.store(pl.tile.mgather(table, r), [0, 0], g_row)
        g_col = pl.store(pl.tile.mgather(table, pl.load(rows_col, [0, 0], [8, 1]), "row"), [0, 0], g_col)
        o = pl.load(orows, [0, 0], [1, 8])
        g_clamp = pl.store(pl.tile.mgather(table, o, gather_oob="clamp"), [0, 0], g_clamp)
        g_wrap = pl.store(pl.tile.mgather(table, o, 0, gather_oob="wrap"), [0, 0], g_wrap)
        g_zero = pl.store(pl.tile.mgather(mem=table, idx=o, gather_oob=3), [0, 0], g_zero)
        e = pl.load(elems, [0, 0], [R, 16], valid_shape=[6, 16])
        g_elem = pl.store(pl.tile.mgather(table, e, coalesce="elem"), [0, 0], g_elem)
        g_ewrap = pl.store(pl.tile.mgather(table, pl.load(oelems, [0, 0], [R, 16]), "elem", gather_oob="wrap"),
                           [0, 0], g_ewrap)
        g_i16 = pl.store(pl.tile.mgather(itab, o, gather_oob="zero"), [0, 0], g_i16)
        out = pl.tile.mscatter(pl.load(src, [0, 0], [R, 16], valid_shape=[6, 16]), pl.load(sidx, [0, 0], [R, 16]),
                               out)
        gh = pl.tile.mgather(htab, e, "elem")
        g_h = pl.store(gh, [0, 0], g_h)
        g_i32 = pl.store(pl.tile.mgather(itab32, e, "elem"), [0, 0], g_i32)
        hout = pl.mscatter(gh, pl.load(sidx, [0, 0], [R, 16]), hout)     # FP16, the gathered [6, 16] region
        return g_row

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, table: pl.Tensor[[TR, TC], pl.FP32], itab: pl.Tensor[[TR, TC], pl.INT16],
             rows: pl.Tensor[[1, 8], pl.INT32], rows_col: pl.Tensor[[8, 1], pl.INT32],
             orows: pl.Tensor[[1, 8], pl.INT32],
             elems: pl.Tensor[[R, 16], pl.INT32], oelems: pl.Tensor[[R, 16], pl.INT32],
             sidx: pl.Tensor[[R, 16], pl.INT32], src: pl.Tensor[[R, 16], pl.FP32],
             htab: pl.Tensor[[TR, TC], pl.FP16], itab32: pl.Tensor[[TR, TC], pl.INT32],
             g_h: pl.Out[pl.Tensor[[R, 16], pl.FP16]], g_i32: pl.Out[pl.Tensor[[R, 16], pl.INT32]],
             hout: pl.InOut[pl.Tensor[[TR, TC], pl.FP16]],
             g_row: pl.Out[pl.Tensor[[8, TC], pl.FP32]], g_col: pl.Out[pl.Tensor[[8, TC], pl.FP32]],
             g_clamp: pl.Out[pl.Tensor[[8, TC], pl.FP32]], g_wrap: pl.Out[pl.Tensor[[8, TC], pl.FP32]],
             g_zero: pl.Out[pl.Tensor[[8, TC], pl.FP32]], g_elem: pl.Out[pl.Tensor[[R, 16], pl.FP32]],
             g_ewrap: pl.Out[pl.Tensor[[R, 16], pl.FP32]], g_i16: pl.Out[pl.Tensor[[8, TC], pl.INT16]],
             out: pl.InOut[pl.Tensor[[TR, TC], pl.FP32]]):
        g_row = self.k(table, itab, rows, rows_col, orows, elems, oelems, sidx, src, htab, itab32, g_h, g_i32, hout,
                       g_row, g_col, g_clamp, g_wrap,
                       g_zero, g_elem, g_ewrap, g_i16, out)
        return g_row


UR, UD = 32, 32        # scatter_update: input [UR, UD], index [UB, US], src [UB * US, UD]
UB, US = 2, 8
BLK, BS = 4, 8         # the 4-D form: a cache [BLK, BS, 1, UD] (BLK * BS = UR rows), src [UB, US, 1, UD]


@pl.program
class RowUpdates:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, inp: pl.Tensor[[UR, UD], pl.FP32], index: pl.Tensor[[UB, US], pl.INT32],
          src: pl.Tensor[[UB * US, UD], pl.FP32], hinp: pl.Tensor[[UR, UD], pl.FP16],
          hsrc: pl.Tensor[[UB * US, UD], pl.FP16], cache: pl.Tensor[[BLK, BS, 1, UD], pl.FP32],
          csrc: pl.Tensor[[UB, US, 1, UD], pl.FP32],
          out: pl.Out[pl.Tensor[[UR, UD], pl.FP32]], hout: pl.Out[pl.Tensor[[UR, UD], pl.FP16]],
          cout: pl.Out[pl.Tensor[[BLK, BS, 1, UD], pl.FP32]]):
        ix = pl.load(index, [0, 0], [UB, US])
        t = pl.tile.scatter_update(pl.load(inp, [0, 0], [UR, UD]), -2, ix, pl.load(src, [0, 0], [UB * US, UD]))
        out = pl.store(t, [0, 0], out)
        h = pl.load(hinp, [0, 0], [UR, UD])
        h = pl.scatter_update(h, ix, pl.load(hsrc, [0, 0], [UB * US, UD]), dim=-2)    # FP16: INT16 offsets
        hout = pl.store(h, [0, 0], hout)
        c = pl.load(cache, [0, 0, 0, 0], [BLK, BS, 1, UD])
        c = pl.scatter_update(c, -2, index=ix, src=pl.load(csrc, [0, 0, 0, 0], [UB, US, 1, UD]))
        cout = pl.store(c, [0, 0, 0, 0], cout)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, inp: pl.Tensor[[UR, UD], pl.FP32], index: pl.Tensor[[UB, US], pl.INT32],
             src: pl.Tensor[[UB * US, UD], pl.FP32], hinp: pl.Tensor[[UR, UD], pl.FP16],
             hsrc: pl.Tensor[[UB * US, UD], pl.FP16], cache: pl.Tensor[[BLK, BS, 1, UD], pl.FP32],
             csrc: pl.Tensor[[UB, US, 1, UD], pl.FP32],
             out: pl.Out[pl.Tensor[[UR, UD], pl.FP32]], hout: pl.Out[pl.Tensor[[UR, UD], pl.FP16]],
             cout: pl.Out[pl.Tensor[[BLK, BS, 1, UD], pl.FP32]]):
        out = self.k(inp, index, src, hinp, hsrc, cache, csrc, out, hout, cout)
        return out
