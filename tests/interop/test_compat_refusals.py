"""Under ``ptoas_compat="0.27"`` an op or element type ptoas 0.27 does not know is a located compile
error naming it and the release, never a ``.pto`` that 0.27 would reject; without the option the same
programs compile (pypto HEAD's form)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError
from ptokit.pto import compat, dialect
from ptokit.pto.parser import parse

TESTS = Path(__file__).parents[1]


def _programs(rel: str):
    """A program module of another test folder, loaded by path (those folders are not on sys.path, and
    putting them there would shadow the shared tests/programs.py with tests/mixed/programs.py)."""
    path = TESTS / rel
    spec = importlib.util.spec_from_file_location(f"compat_refusals_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod          # the DSL reads a program's source through its module
    spec.loader.exec_module(mod)
    return mod


dsl_programs = _programs("distributed_dsl/dsl_programs.py")
element_programs = _programs("parity/element_programs.py")
fp4_programs = _programs("e2e/fp4_programs.py")
pipes_programs = _programs("mixed/pipes_programs.py")
prefetch_programs = _programs("e2e/prefetch_programs.py")

CASES = [
    # program, what the error names, the DSL line it points at
    (pipes_programs.SyncAll, "'pto.syncall'", 'pl.system.syncall(core_type="aiv_only")'),
    (element_programs.KernelArrays, "'pto.declare_local_array'", "rows = pl.array.create(4, pl.INT32)"),
    (prefetch_programs.Prefetch, "'pto.make_prefetch_async_context'", "ctx = pl.prefetch.make_context()"),
    (dsl_programs.PutGet, "'pto.comm.tnotify'", "pld.system.notify(sig, (r + 1) % w, [0, 0], 1"),
    (fp4_programs.Fp4Casts, "element type f4E2M1FN", "def k(self, e2: pl.Tensor[[1, W], pl.FP4E2M1]"),
]


@pytest.mark.parametrize("program, what, line", CASES, ids=[c[0].name for c in CASES])
def test_an_op_027_does_not_know_is_a_located_error(tmp_path, program, what, line):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "compat", ptoas_compat="0.27")
    err = info.value
    assert err.message.startswith(f"{what} is not known to ptoas 0.27"), err.message
    assert 'ptoas_compat="0.27"' in err.message
    assert err.loc is not None and line in err.loc.source_line, (err.loc, err.loc.source_line)
    assert not list((tmp_path / "compat").rglob("*.pto")), "no .pto is written for the release"


@pytest.mark.parametrize("program, what, line", CASES[:3], ids=[c[0].name for c in CASES[:3]])
def test_without_the_option_the_op_is_written(tmp_path, program, what, line):
    out = ptokit.compile(program, output_dir=tmp_path / "head").output_dir
    text = "".join(p.read_text() for p in (out / "ptoas").glob("*.pto"))
    assert what.strip("'") in text


def test_the_check_reads_the_table_rows(tmp_path):
    """pto.subview and the comm ops are rows 0.27 lacks; pto.textract (pl.slice's form) is not; the check
    finds the op in a written module and nothing for a release it has no entry for."""
    absent = {n for n, row in dialect.PTO_OPS.items() if "0.27" in row.absent_in}
    assert {"pto.subview", "pto.syncall", "pto.comm.tnotify", "pto.tprefetch_async"} <= absent
    # pld.rank / nranks / a peer's window are pto.load_scalar of the context + pto.addptr: 0.27 has both
    assert not absent & {"pto.textract", "pto.tload", "pto.load_scalar", "pto.addptr", "pto.aic_initialize_pipe"}
    out = ptokit.compile(pipes_programs.SyncAll, output_dir=tmp_path / "head").output_dir
    (pto,) = (out / "ptoas").glob("*.pto")
    func = parse(pto.read_text(), str(pto)).funcs[0]
    assert [what for _, what in compat.unknown_to(func, "0.27")] == ["'pto.syncall'"]
    assert list(compat.unknown_to(func, "0.57")) == []


@pl.program
class PackedMask:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[8, 64], pl.FP32], b: pl.Tensor[[8, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]):
        t = pl.load(a, [0, 0], [8, 64])
        u = pl.load(b, [0, 0], [8, 64])
        tmp = pl.tile.create_tile([1, 32], dtype=pl.UINT8)
        y = pl.store(pl.tile.sel(pl.cmp(t, u, cmp_type=2), t, u, tmp), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8, 64], pl.FP32], b: pl.Tensor[[8, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]):
        y = self.k(a, b, y)
        return y


def test_a5_packed_compare_mask_is_a_located_error_for_027(tmp_path):
    """0.27's A5 tcmp takes a mask of the sources' shape; ptokit (as pypto HEAD) writes the a5 mask packed."""
    with pytest.raises(CompileError) as info:
        ptokit.compile(PackedMask, output_dir=tmp_path / "compat", platform="a5sim", ptoas_compat="0.27")
    err = info.value
    assert "'pto.tcmp' op expects src0, src1, and dst to have the same shape" in err.message, err.message
    assert err.loc is not None and "pl.cmp(t, u, cmp_type=2)" in err.loc.source_line
    ptokit.compile(PackedMask, output_dir=tmp_path / "head", platform="a5sim")          # pypto HEAD's mode
    ptokit.compile(PackedMask, output_dir=tmp_path / "a2a3", ptoas_compat="0.27")        # a2a3: valid rows only


def test_valid_shape_set_on_a_popped_tile_is_a_located_error_for_027(tmp_path):
    """0.27 lowers pto.set_validshape only on a tile the function allocates ("requires a locally bound tile
    source"); a tile the vector core pops with a run-time valid region is pypto HEAD's form."""
    forms13 = _programs("parity/forms13_programs.py")
    with pytest.raises(CompileError) as info:
        ptokit.compile(forms13.MixedDynamicValid, output_dir=tmp_path / "compat", ptoas_compat="0.27")
    err = info.value
    assert "'pto.set_validshape' of a tile popped from the other core is not lowered by ptoas 0.27" in err.message
    assert err.loc is not None and "pl.TileView(valid_shape=[n, 64])" in err.loc.source_line, err.loc.source_line
    ptokit.compile(forms13.MixedDynamicValid, output_dir=tmp_path / "head")


def test_an_a2a3_mscatter_is_a_located_error_for_027(tmp_path):
    """0.27's verifier takes pto.mscatter (and pto.mgather) on A5 targets only."""
    rows = _programs("interop/row_programs.py")
    with pytest.raises(CompileError) as info:
        ptokit.compile(rows.RowsScatter, output_dir=tmp_path / "compat", ptoas_compat="0.27")
    err = info.value
    assert "'pto.mscatter' op pto.mscatter is only supported on A5 targets" in err.message, err.message
    assert err.loc is not None and "pl.mscatter(" in err.loc.source_line
    ptokit.compile(rows.RowsScatter, output_dir=tmp_path / "a5", platform="a5sim", ptoas_compat="0.27")
    ptokit.compile(rows.RowsScatter, output_dir=tmp_path / "head")          # pypto HEAD's mode


def test_the_refusal_is_by_design_for_the_real_tools():
    """A ToolRefusal: still a CompileError, and a VendorRefusal the suite's --real-tools reports as a skip."""
    from ptokit.errors import ToolRefusal, VendorRefusal
    with pytest.raises(ToolRefusal) as info:
        ptokit.compile(pipes_programs.SyncAll, ptoas_compat="0.27")
    assert isinstance(info.value, CompileError) and isinstance(info.value, VendorRefusal)


def test_ptokit_ptoas_compat_is_the_default_of_a_compile_naming_none(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_PTOAS_COMPAT", "0.27")
    with pytest.raises(CompileError, match="'pto.syncall' is not known to ptoas 0.27"):
        ptokit.compile(pipes_programs.SyncAll, output_dir=tmp_path / "t")
    monkeypatch.setenv("PTOKIT_PTOAS_COMPAT", "0.3")
    with pytest.raises(ValueError, match="PTOKIT_PTOAS_COMPAT: unknown ptoas_compat '0.3'"):
        ptokit.compile(pipes_programs.SyncAll, output_dir=tmp_path / "u")
