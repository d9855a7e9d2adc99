"""Error paths of mixed kernels: the split pass and the assembler's cross-core forms."""
import pytest

import ptokit
import ptokit.language as pl
from ptokit.backend.assembler import assemble_text
from ptokit.errors import AssemblerError, CompileError, PtokitError

from .mixed_util import P


def test_mixed_kernel_without_boundary_is_a_located_error(tmp_path):
    @pl.program
    class NoBoundary:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[64, 64], pl.FP16], x: pl.Tensor[[64, 64], pl.FP32],
              c: pl.Out[pl.Tensor[[64, 64], pl.FP32]], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tb = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            c = pl.store(pl.matmul(ta, tb), [0, 0], c)
            y = pl.store(pl.exp(pl.load(x, [0, 0], [64, 64])), [0, 0], y)
            return c, y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 64], pl.FP16], x: pl.Tensor[[64, 64], pl.FP32],
                 c: pl.Out[pl.Tensor[[64, 64], pl.FP32]], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            c, y = self.k(a, x, c, y)
            return c, y

    with pytest.raises(CompileError) as ei:
        ptokit.compile(NoBoundary, output_dir=tmp_path)
    assert "never moves an Acc tile to Vec" in str(ei.value)
    assert ei.value.loc is not None and ei.value.loc.line > 0


def test_slot_buffer_that_does_not_fit_vec_is_an_error(tmp_path):
    @pl.program
    class Huge:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[64, 256], pl.FP16],
              x: pl.Tensor[[128, 256], pl.FP32], y: pl.Out[pl.Tensor[[128, 256], pl.FP32]]):
            ta = pl.move(pl.load(a, [0, 0], [128, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tb = pl.move(pl.load(b, [0, 0], [64, 256], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)      # 128 KB: the slot alone nearly fills UB
            y = pl.store(pl.add(v, pl.load(x, [0, 0], [128, 256])), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[64, 256], pl.FP16],
                 x: pl.Tensor[[128, 256], pl.FP32], y: pl.Out[pl.Tensor[[128, 256], pl.FP32]]):
            y = self.k(a, b, x, y)
            return y

    with pytest.raises(PtokitError) as ei:
        ptokit.compile(Huge, output_dir=tmp_path)
    assert "Vec (UB)" in str(ei.value)


_AIV_HEAD = ('module {\n  func.func @k_aiv(%lane: i32) attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {\n'
             '  %z = arith.constant 0 : i32\n')
_TB = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>"


@pytest.mark.parametrize("body,msg", [
    ('%b = pto.reserve_buffer {name = "s", size = 2048, location = #pto.address_space<vec>, auto = true} -> i32',
     "auto = true"),
    ('%b = pto.reserve_buffer {size = 2048, base = 0} -> i32', "needs a string attribute 'name'"),
    ('pto.aiv_initialize_pipe {dir_mask = 4, slot_size = 1024} (c2v_consumer_buf = %z : i32, v2c_consumer_buf = %z : i32)',
     "'dir_mask' must be one of [1, 2, 3]"),
    ('pto.aiv_initialize_pipe {dir_mask = 1, slot_size = 1024} (c2v_consumer_buf = %z : i32)',
     "missing operand 'v2c_consumer_buf'"),
    ('pto.aiv_initialize_pipe {dir_mask = 1, slot_size = 1024} (c2v_buf = %z : i32, v2c_consumer_buf = %z : i32)',
     "unknown operand 'c2v_buf'"),
    ('pto.aiv_initialize_pipe {dir_mask = 1, slot_size = 1024} (c2v_consumer_buf = %z i32)', "expected ':'"),
    (f'%t = pto.tpop_from_aic {{split = 5}} -> {_TB}', "'split' must be one of [0, 1, 2]"),
    ('%t = pto.tpop_from_aic {split = 0}', "expected '%t = pto.tpop_from_aic"),
    (f'%t = pto.tpop_from_aic {{split = 0}} -> {_TB}', "needs a C2V pipe"),
    ('pto.tfree_from_aic {split = 0} (%z : i32)', "no operands or results"),
    ('%b = pto.import_reserved_buffer {name = "s", peer_func = @nowhere} -> i32', "no pto.reserve_buffer named"),
])
def test_assembler_cross_core_errors_are_located(body, msg):
    text = _AIV_HEAD + "  " + body + "\n  return\n  }\n}\n"
    with pytest.raises(AssemblerError) as ei:
        assemble_text(text, "bad.pto")
    assert msg in str(ei.value)
    assert "bad.pto:4:" in str(ei.value) or "bad.pto:5:" in str(ei.value)


def test_assembler_push_in_a_vector_function_is_rejected():
    text = (_AIV_HEAD + f"  %t = pto.alloc_tile valid_row = %z valid_col = %z : {_TB}\n"
            f"  pto.tpush_to_aiv(%t : {_TB}) {{split = 0}}\n  return\n  }}\n}}\n")
    with pytest.raises(AssemblerError, match="belongs in a cube function"):
        assemble_text(text, "bad.pto")


def test_assembled_group_round_trips_through_the_printer(tmp_path):
    """The --mlir-print-ir dump of a mixed module is valid input again (keyword operand groups)."""
    ptokit.compile(P.MatmulExp, output_dir=tmp_path / "t")
    text = (tmp_path / "t" / "ptoas" / "mm_exp.pto").read_text()
    first = assemble_text(text, "mm_exp.pto", dump_dir=tmp_path / "dump")
    again = assemble_text((tmp_path / "dump" / "00_parsed.mlir").read_text(), "00_parsed.mlir")
    assert "TPOP<" in first and "TPUSH<" in first
    assert again.count("TPOP<") == first.count("TPOP<")
