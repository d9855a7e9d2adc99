"""Every rule of the views-and-layouts, gathers-and-scatters and sorting families, broken once: a
located error (the line, a caret under the argument at fault) saying what was wrong and what was
expected."""
import hashlib
import importlib.util
import sys

import pytest

import ptokit
from ptokit.errors import CompileError

PRELUDE = """\
import ptokit.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], a16: pl.Tensor[[16, 64], pl.FP16],
          ai: pl.Tensor[[16, 64], pl.INT32], ai16: pl.Tensor[[16, 64], pl.INT16],
          au8: pl.Tensor[[16, 64], pl.UINT8], au32: pl.Tensor[[16, 64], pl.UINT32],
          ar: pl.Tensor[[1, 8], pl.INT32], a1: pl.Tensor[[1, 64], pl.FP32], a1h: pl.Tensor[[1, 64], pl.FP16],
          au1: pl.Tensor[[1, 64], pl.UINT32], n: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        f = pl.load(a, [0, 0], [16, 64])
        small = pl.load(a, [0, 0], [8, 64])
        h = pl.load(a16, [0, 0], [16, 64])
        h8 = pl.load(a16, [0, 0], [8, 64])
        i = pl.load(ai, [0, 0], [16, 64])
        smalli = pl.load(ai, [0, 0], [8, 64])
        i8 = pl.load(ai, [0, 0], [16, 8])
        ix = pl.load(ai, [0, 0], [16, 32])
        s16 = pl.load(ai16, [0, 0], [16, 64])
        u8 = pl.load(au8, [0, 0], [16, 64])
        iu = pl.load(au32, [0, 0], [16, 64])
        ixr = pl.load(ar, [0, 0], [1, 8])
        f16c = pl.load(a, [0, 0], [16, 16])
        fm = pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        flat = pl.create_tile([16, 64], pl.FP32, pl.Mem.Mat, flat_layout=True)
        rows8 = pl.load(a, [0, 0], [16, 64], valid_shape=[8, 64])
        dyn = pl.load(a, [0, 0], [16, 64], valid_shape=[16, n])
        t = pl.tile.create([16, 64], dtype=pl.FP32)
        r1 = pl.sort32(pl.load(a1, [0, 0], [1, 64]), pl.load(au1, [0, 0], [1, 64]))
        rh = pl.sort32(pl.load(a1h, [0, 0], [1, 64]), pl.load(au1, [0, 0], [1, 64]))
        ixv = pl.load(ar, [0, 0], [1, 8], valid_shape=[1, 6])
"""

# (the erroneous statement, a fragment of the message, the text the caret points at)
CASES = [
    # ---------------------------------------------------------------- views and layouts
    ("x = pl.reshape(f, [16, 32, 2])", "tile.reshape of [16, 64] to [16, 32, 2]: ptokit reshapes tiles to 2-D "
     "shapes only", "pl.reshape"),
    ("x = pl.reshape(f, [16, 32])", "tile.reshape requires the same number of elements, but got [16, 64] and "
     "[16, 32]", "pl.reshape"),
    ("x = pl.transpose(fm, 0, 1)", "tile.transpose runs on the vector unit and requires a Vec tile", "pl.transpose"),
    ("x = pl.transpose(f, 1, -1)", "tile.transpose needs two different axes, but got axis1=1 and axis2=-1", "-1)"),
    ("x = pl.transpose(f, 0, 2)", "tile.transpose axis2=2 is not an axis of a 2-D tile (0, 1, -2 or -1)", "2)"),
    ("x = pl.transpose(h8, 0, 1)", "gives a [64, 8] tile, whose rows of 8 x 2 bytes are not a multiple of 32", "h8,"),
    ("x = pl.transpose(f, 0, 1, tmp_tile=small)", "tmp_tile must be a Vec tile like the source", "small)"),
    ("x = pl.tile.transpose_view(f)", "tile.transpose_view swaps the fractal layout of a Mat tile", "f)"),
    ("x = pl.tile.transpose_view(flat)", "of a flat (slayout=none_box) Mat tile: it has no fractal layout", "flat)"),
    ("x = pl.reinterpret_view(f, pl.FP32)", "needs a dtype different from the source's (pl.FP32)", "pl.FP32)"),
    ("x = pl.reinterpret_view(f, pl.INT16, shape=[16, 64])",
     "shape [16, 64] of pl.INT16 is not the 4096 bytes of the [16, 64] pl.FP32 source", "[16, 64])"),
    ("x = pl.reinterpret_view(rows8, pl.INT32, shape=[32, 32])", "of a tile with a partial valid region",
     "[32, 32])"),
    ("x = pl.reinterpret_view(dyn, pl.FP16)", "to a different element size needs a static valid column count",
     "dyn,"),
    ("x = pl.set_validshape(f, 17, 8)", "tile.set_validshape valid_rows=17 is outside 0..16 of the [16, 64] tile",
     "17,"),
    ("x = pl.tile.set_validshape(f, 4, 65)", "valid_cols=65 is outside 0..64", "65)"),
    ("x = pl.set_validshape(f, 1.5, 8)", "pl.set_validshape valid_rows must be an integer or an integer scalar",
     "1.5,"),
    ("x = pl.tile.extract(f, 0, 0, [8, 32], target_memory=pl.Mem.Left)",
     "tile.extract Vec->Left is not an extract the tile ISA has", "pl.Mem.Left)"),
    ("x = pl.tile.extract(f, 0, 0, [32, 64], target_memory=pl.Mem.Vec)",
     "shape [32, 64] must be a 2-D window of the [16, 64] source", "[32, 64]"),
    ("x = pl.tile.extract(f, 12, 0, [8, 64], target_memory=pl.Mem.Vec)",
     "of a [8, 64] window at index_row=12 leaves the [16, 64] source", "12,"),
    ("x = pl.tile.extract(f, 0.5, 0, [8, 64], target_memory=pl.Mem.Vec)",
     "pl.extract index_row must be an integer or an integer scalar", "0.5,"),
    ("x = pl.tile.create([16, 64], pl.FP32, transpose=True)",
     "transpose=True allocates the transposed (ZN) Mat layout; it needs target_memory=pl.Mem.Mat", "True)"),
    ("x = pl.create_tile([16, 64], pl.FP32, pl.Mem.Mat, transpose=True, flat_layout=True)",
     "transpose=True and flat_layout=True exclude each other", "True)"),
    ("x = pl.move(fm, target_memory=pl.Mem.Left, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)",
     "a Left tile with blayout=row_major, slayout=none_box is not a layout ptokit's tile library models",
     "pl.TileLayout.row_major"),
    ("x = pl.move(f, target_memory=pl.Mem.Mat, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)",
     "crosses between the cube and the vector core, and the FIFO delivers the default layout",
     "pl.TileLayout.row_major"),
    ("x = pl.move(fm, target_memory=pl.Mem.Right, slayout=pl.Mem.Vec)", "slayout must be a constant such as "
     "pl.TileLayout.row_major", "pl.Mem.Vec)"),
    # ---------------------------------------------------------------- gathers and scatters
    ("x = pl.tile.gather(u8, ix, t)", "tile.gather gathers FP16, FP32, INT16 or INT32 elements, but got pl.UINT8",
     "u8,"),
    ("x = pl.tile.gather(f, s16, t)", "indices are INT32 (or INT16 with a 16-bit source), but got pl.INT16", "s16,"),
    ("x = pl.tile.gather(fm, ix, t)", "tile.gather runs on the vector unit and requires a Vec source, but got a Mat",
     "fm,"),
    ("x = pl.tile.gather(h, i8, t)", "gives a [16, 8] pl.FP16 tile, whose rows of 8 x 2 bytes", "i8,"),
    ("x = pl.tile.scatter(f, i, i)", "tile.scatter requires matching dtypes, but got dst pl.FP32 and src pl.INT32",
     "i, i)"),
    ("x = pl.tile.scatter(f, f, s16)", "tile.scatter of 4-byte elements takes pl.INT32 indexes, but got pl.INT16",
     "s16)"),
    ("x = pl.tile.scatter(f, f, smalli)", "tile.scatter indexes must have the source's shape [16, 64]", "smalli)"),
    ("x = pl.tile.scatter(u8, u8, s16)", "scatters FP16, FP32, BF16, INT8, INT16 or INT32 elements, but got pl.UINT8",
     "u8, s16"),
    ("x = pl.tile.gather_mask(f, 9)", "pl.gather_mask mask_pattern must be a pl.tile.MaskPattern constant", "9)"),
    ("x = pl.tile.gather_mask(f, 1, output_dtype=pl.FP16)",
     "output_dtype reinterprets the bits of the pl.FP32 source, so it needs a 4-byte dtype", "pl.FP16)"),
    ("x = pl.tile.gather_mask(f16c, pl.tile.MaskPattern.P0001)", "gives a [16, 4] pl.FP32 tile",
     "pl.tile.MaskPattern.P0001)"),
    ("x = pl.tile.gather_mask(u8, 1)", "tile.gather_mask moves 16- or 32-bit elements, but got pl.UINT8", "u8,"),
    ("x = pl.tile.gather_mask(dyn, 2)", "tile.gather_mask needs a static valid column count", "dyn,"),
    ("x = pl.tile.scatter_mask(f, small, 1)", "with P0101 fills 32 columns of each of the 16 rows of dst, but src is "
     "[8, 64]", "small,"),
    ("x = pl.tile.gatherb(f, i)", "tile.gatherb offsets are UINT32 byte offsets, but got pl.INT32", "i)"),
    ("x = pl.tile.gatherb(f, iu, output_dtype=pl.INT64)", "output_dtype must be a 1-, 2- or 4-byte dtype",
     "pl.INT64)"),
    ("x = pl.tile.mgather(a, ixr, target_memory=pl.Mem.Mat)", "target_memory=pl.Mem.Mat (a GM index tensor, NZ "
     "output) is not supported yet", "pl.Mem.Mat)"),
    ("x = pl.tile.mgather(a, ixr, scratch=a)", "scratch= is the GM workspace of the Mat element form", "a)"),
    ("x = pl.tile.mgather(a, ixr, valid_shape=[1, 8])", "valid_shape= belongs to the Mat form", "[1, 8])"),
    ("x = pl.tile.mgather(a, ixr, \"col\")", "pl.mgather coalesce must be one of 'row', 'elem' (or 0..1), but got "
     "'col'", "\"col\")"),
    ("x = pl.tile.mgather(a, ixr, 2)", "pl.mgather coalesce must be one of 'row', 'elem' (or 0..1), but got 2",
     "2)"),
    ("x = pl.tile.mgather(a, ixr, gather_oob=\"saturate\")",
     "gather_oob must be one of 'undefined', 'clamp', 'wrap', 'zero' (or 0..3)", "\"saturate\")"),
    ("x = pl.tile.mgather(a, i)", "coalesce='row' takes a [1, R] or [R, 1] index tile, but got [16, 64]", "i)"),
    ("x = pl.tile.mgather(a, s16, \"elem\")", "tile.mgather indices are INT32, but got pl.INT16", "s16,"),
    ("x = pl.tile.mgather(f, ixr)", "tile.mgather gathers from a tensor in global memory, but got pl.Tile", "f,"),
    ("pl.mscatter(u8, i, y)", "scatters FP16, FP32, INT16 or INT32 elements, but got pl.UINT8", "u8,"),
    ("pl.mscatter(f, smalli, y)", "takes an INT32 index tile shaped like the source [16, 64]", "smalli,"),
    ("pl.mscatter(f, i, a16)", "requires matching dtypes, but got tile pl.FP32 and tensor pl.FP16", "a16)"),
    ("x = pl.tile.scatter_update(f, 0, ixr, small)", "tile.scatter_update updates rows (dim=-2), but got dim=0",
     "0,"),
    ("x = pl.scatter_update(f, ixr, small, dim=1)", "updates rows (dim=-2), but got dim=1", "1)"),
    ("x = pl.scatter_update(f, -2, ixr, f)", "with a [1, 8] index and 64-column input needs a [8, 64] src (one row "
     "per index), but got [16, 64]", "f)"),
    ("x = pl.scatter_update(f, -2, ixr, h8)", "requires matching dtypes, but got input pl.FP32 and src pl.FP16",
     "h8)"),
    ("x = pl.scatter_update(f, -2, small, f)", "takes an INT32 or INT16 index tile, but got pl.FP32", "small,"),
    ("x = pl.scatter_update(u8, -2, ixr, u8)", "updates FP16, FP32, BF16, INT16 or INT32 rows, but got pl.UINT8",
     "u8,"),
    ("x = pl.scatter_update(f, -2, ixv, small)", "updates whole index and src tiles (no partial valid region)",
     "ixv,"),
    # dim= as a keyword selects the (input, index, src) form, so -2 and ixr are index and src here
    ("x = pl.scatter_update(f, -2, ixr, src=small, dim=-2)", "got two values for its 'src' argument", "small,"),
    # ---------------------------------------------------------------- sorting
    ("x = pl.sort32(i, iu)", "tile.sort32 sorts FP16 or FP32 values, but got pl.INT32", "i, iu"),
    ("x = pl.sort32(f16c, iu)", "the source's 16 columns must be a multiple of 32", "f16c,"),
    ("x = pl.sort32(f, i)", "idx is a UINT32 tile shaped like the source [16, 64]", "i)"),
    ("x = pl.sort32(dyn, iu)", "tile.sort32 needs a static valid column count", "dyn,"),
    ("x = pl.mrgsort(r1, r1, block_len=64)", "format 1 (block_len=...) and format 2 (src1, ..., tmp) exclude each "
     "other", "64)"),
    ("x = pl.mrgsort(r1)", "needs either block_len=<int> (format 1) or 2-4 sorted tiles (format 2)", "pl.mrgsort"),
    ("x = pl.mrgsort(r1, block_len=48)", "block_len=48 must be a positive multiple of 64", "48)"),
    ("x = pl.mrgsort(r1, block_len=64)", "so the source's 128 valid columns must be a multiple of 256", "64)"),
    ("x = pl.mrgsort(r1, block_len=1.5)", "pl.mrgsort block_len must be an integer or an integer scalar", "1.5)"),
    ("x = pl.mrgsort(f, f, tmp=t)", "tile.mrgsort merges one-row tiles of records, but got [16, 64]", "f, f"),
    ("x = pl.mrgsort(r1, r1, tmp=r1)", "tmp must hold the 256-column result, but got [1, 128]", "r1)"),
    ("x = pl.mrgsort(r1, rh)", "merges FP16 or FP32 records of one dtype, but got pl.FP16", "r1, rh"),
]


def _program(tmp_path, line: str):
    text = PRELUDE + f"        {line}\n        return y\n"
    name = "bad_c_" + hashlib.sha256(text.encode()).hexdigest()[:12]
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod.Bad, path, text.count("\n")


@pytest.mark.parametrize("line,message,caret", CASES, ids=[c[0][4:44] for c in CASES])
def test_located_rule_error(tmp_path, line, message, caret):
    prog, path, lineno = _program(tmp_path, line)
    with pytest.raises(CompileError) as info:
        prog.ir
    err = info.value
    assert message in str(err), str(err)
    assert err.loc is not None and err.loc.file == str(path) and err.loc.line == lineno - 1, err.loc
    shown = str(err).splitlines()[1]
    assert line in shown
    assert err.loc.col == len("        ") + line.index(caret) + 1, (err.loc.col, str(err))


VIEW_THEN_SET = """\
import ptokit.language as pl


@pl.program
class ViewThenSet:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        v = {view}
        y = pl.store(pl.set_validshape(v, 4, 4), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        y = self.k(a, y)
        return y
"""


@pytest.mark.parametrize("view", ["pl.reshape(pl.load(a, [0, 0], [16, 64]), [32, 32])",
                                  "pl.slice(pl.load(a, [0, 0], [16, 64]), [16, 32], [0, 0])"])
def test_set_validshape_of_a_view_or_slice_is_a_located_error(tmp_path, view):
    text = VIEW_THEN_SET.format(view=view)
    path = tmp_path / f"view_{hashlib.sha256(text.encode()).hexdigest()[:8]}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)
    with pytest.raises(CompileError) as info:
        ptokit.compile(mod.ViewThenSet, output_dir=tmp_path / "out")
    err = str(info.value)
    assert "pl.set_validshape of 'v', a view (reshape / reinterpret_view / transpose_view) or slice result" in err
    assert info.value.loc.line == 9 and "pl.set_validshape(v, 4, 4)" in err.splitlines()[1]


WINDOW_GATHER = """\
import ptokit.language as pl


@pl.program
class WindowGather:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, t: pl.Tensor[[64, 32], pl.FP32], r: pl.Tensor[[1, 8], pl.INT32], y: pl.Out[pl.Tensor[[8, 32], pl.FP32]]):
        y = pl.store(pl.tile.mgather(t[0:32, :], pl.load(r, [0, 0], [1, 8])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, t: pl.Tensor[[64, 32], pl.FP32], r: pl.Tensor[[1, 8], pl.INT32],
             y: pl.Out[pl.Tensor[[8, 32], pl.FP32]]):
        y = self.k(t, r, y)
        return y
"""


def test_mgather_of_a_tensor_window_is_a_located_error(tmp_path):
    path = tmp_path / "window_gather.py"
    path.write_text(WINDOW_GATHER)
    spec = importlib.util.spec_from_file_location("window_gather", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["window_gather"] = mod
    spec.loader.exec_module(mod)
    with pytest.raises(CompileError) as info:
        ptokit.compile(mod.WindowGather, output_dir=tmp_path / "out")
    assert "pl.mgather / pl.mscatter address a whole tensor parameter" in str(info.value)
    assert info.value.loc.line == 8


def test_none_written_for_an_optional_parameter_is_its_default(tmp_path):
    prog, _, _ = _program(tmp_path, "x = pl.move(pl.tile.create([16, 64], pl.FP32, None, transpose=None), "
                                    "target_memory=pl.Mem.Vec, blayout=None, slayout=None)\n"
                                    "        y = pl.store(x, [0, 0], y)")
    body = prog.ir.functions["k"].body
    x = next(s for s in body if getattr(s, "targets", None) and s.targets[0].name == "x")
    create = x.value.args[0]
    assert create.op == "create_tile" and create.type.memory.name == "Vec" and create.type.layout is None
    assert x.value.attrs["blayout"] is None and x.value.type.layout is None
