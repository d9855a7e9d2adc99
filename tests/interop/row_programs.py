"""Small kernels that use the dialect rows the test suite's corpus has only in files ptoas 0.27 refuses for
another op: each is compiled under ``ptoas_compat="0.27"`` and its ``.pto`` run through the real 0.27 to
record the row (tests/interop/fixtures/rows/, rows.tsv).

    python tests/interop/row_programs.py OUT     # writes OUT/compat-0.27/<sha>.pto and OUT/index.tsv

then ``python tests/interop/check_corpus.py OUT --ptoas ... --rows ROWS`` picks the recordings.
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parents[1]) not in sys.path:        # run as a script from anywhere: ptokit from this tree
    sys.path.insert(0, str(HERE.parents[1]))


def _vecgen():
    """tests/e2e/vecgen.py, loaded by path (putting tests/e2e on sys.path would shadow other tests' modules)."""
    name = "row_programs_vecgen"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE.parent / "e2e" / "vecgen.py")
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


V = _vecgen()
Op = V.Op

_NONE = None
# (program name, dtype, platform, ops): one kernel per group, types each row takes on that platform
GROUPS = [
    ("RowsFloat", "FP32", "a2a3sim", [
        Op("col_expand_div", "pl.tile.col_expand_div(a, pl.col_max(b))", _NONE),
        Op("col_expand_sub", "pl.tile.col_expand_sub(a, pl.col_max(b))", _NONE),
        Op("col_min", "pl.tile.col_min(a)", _NONE, "col"),
        Op("row_min", "pl.row_min(a, t)", _NONE, "row"),
        Op("divs", "pl.tile.divs(a, 2.0)", _NONE),
        Op("minimums", "pl.tile.minimums(a, 2.0)", _NONE),
        Op("lrelu", "pl.tile.lrelu(a, 0.25)", _NONE),
        Op("fmod", "pl.fmod(a, b)", _NONE),
        Op("fmods", "pl.tile.fmods(a, 2.5)", _NONE),
        Op("rem", "pl.tile.rem(a, b, t)", _NONE),
        Op("rems", "pl.tile.rems(a, 3.0, t)", _NONE),
    ]),
    ("RowsPrelu", "FP16", "a5sim", [
        Op("prelu", "pl.tile.prelu(a, b, t)", _NONE),
    ]),
]


import ptokit.language as pl   # noqa: E402


@pl.program
class RowsGemv:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, b: pl.Tensor[[64, 32], pl.FP16], v: pl.Tensor[[1, 64], pl.FP16], bias: pl.Tensor[[1, 32], pl.FP32],
          y0: pl.Out[pl.Tensor[[1, 32], pl.FP32]], y1: pl.Out[pl.Tensor[[1, 32], pl.FP32]],
          y2: pl.Out[pl.Tensor[[1, 32], pl.FP32]]):
        right = pl.move(pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        vl = pl.move(pl.load(v, [0, 0], [1, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        brow = pl.move(pl.load(bias, [0, 0], [1, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
        g = pl.tile.gemv(vl, right)
        y0 = pl.store(g, [0, 0], y0)
        g = pl.tile.gemv_acc(g, vl, right)
        y1 = pl.store(g, [0, 0], y1)
        y2 = pl.store(pl.tile.gemv_bias(vl, right, brow), [0, 0], y2)
        return y0, y1, y2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, b: pl.Tensor[[64, 32], pl.FP16], v: pl.Tensor[[1, 64], pl.FP16], bias: pl.Tensor[[1, 32], pl.FP32],
             y0: pl.Out[pl.Tensor[[1, 32], pl.FP32]], y1: pl.Out[pl.Tensor[[1, 32], pl.FP32]],
             y2: pl.Out[pl.Tensor[[1, 32], pl.FP32]]):
        y0, y1, y2 = self.k(b, v, bias, y0, y1, y2)
        return y0, y1, y2


@pl.program
class RowsMoves:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], off: pl.Tensor[[16, 8], pl.UINT32],
          y0: pl.Out[pl.Tensor[[8, 128], pl.FP32]], y1: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
          y2: pl.Out[pl.Tensor[[16, 64], pl.UINT32]], y3: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = pl.load(a, [0, 0], [16, 64])
        top = pl.slice(t, [8, 64], [0, 0])
        bottom = pl.slice(t, [8, 64], [8, 0])
        y0 = pl.store(pl.concat(top, bottom), [0, 0], y0)
        y1 = pl.store(pl.fillpad_expand(t, [32, 64]), [0, 0], y1)
        y2 = pl.store(pl.random(1, 2, 3, 4, 5, 6, [16, 64]), [0, 0], y2)
        y3 = pl.store(pl.tile.gatherb(t, pl.load(off, [0, 0], [16, 8])), [0, 0], y3)
        return y0, y1, y2, y3

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], off: pl.Tensor[[16, 8], pl.UINT32],
             y0: pl.Out[pl.Tensor[[8, 128], pl.FP32]], y1: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
             y2: pl.Out[pl.Tensor[[16, 64], pl.UINT32]], y3: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y0, y1, y2, y3 = self.k(a, off, y0, y1, y2, y3)
        return y0, y1, y2, y3


@pl.program
class RowsScatter:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], idx: pl.Tensor[[16, 64], pl.INT32],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = pl.mscatter(pl.load(a, [0, 0], [16, 64]), pl.load(idx, [0, 0], [16, 64]), y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], idx: pl.Tensor[[16, 64], pl.INT32],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(a, idx, y)
        return y


import ptokit.language.distributed as pld   # noqa: E402


@pl.program
class RowsPeer:
    """pld.rank / nranks / a peer's window without signals: pto.load_scalar of the CommContext and
    pto.addptr (the suite's other distributed kernels also notify or wait, rows 0.27 lacks)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, y: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
          src: pld.DistributedTensor[[1, 64], pl.FP32]) -> pl.Tensor[[1, 64], pl.FP32]:
        ctx = pld.get_comm_ctx(src)
        peer = (pld.rank(ctx) + 1) % pld.nranks(ctx)
        y = pl.store(pld.tile.remote_load(src, peer, [0, 0], [1, 64]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, y: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
             src: pld.DistributedTensor[[1, 64], pl.FP32]) -> pl.Tensor[[1, 64], pl.FP32]:
        y = self.k(y, src)
        return y


# each program alone (one kernel per file, so one op 0.27 refuses does not hide the others)
PROGRAMS = [(RowsGemv, "a2a3sim"), (RowsMoves, "a5sim"), (RowsScatter, "a5sim"), (RowsPeer, "a2a3sim")]   # 0.27: mscatter on A5 only      # a5: a Vec -> Vec window (pl.slice)


def compile_all(out: Path) -> None:
    import ptokit
    (out / "compat-0.27").mkdir(parents=True, exist_ok=True)
    index = []
    progs = [(V.program(out / "src", name, dtype, ops), name, platform) for name, dtype, platform, ops in GROUPS]
    progs += [(p, p.name, platform) for p, platform in PROGRAMS]
    for prog, name, platform in progs:
        try:
            tree = ptokit.compile(prog, output_dir=out / "trees" / name, platform=platform,
                                  ptoas_compat="0.27").output_dir
        except Exception as exc:        # noqa: BLE001 - a refusal under the option is reported, not recorded
            sys.stderr.write(f"{name}: {str(exc).splitlines()[0]}\n")
            continue
        for pto in sorted((tree / "ptoas").glob("*.pto")):
            text = pto.read_text()
            sha = hashlib.sha256(text.encode()).hexdigest()[:16] + ".pto"
            (out / "compat-0.27" / sha).write_text(text)
            index.append(f"compat-0.27\t{sha}\ttests/interop/row_programs.py::{name}\n")
    (out / "index.tsv").write_text("".join(index))


if __name__ == "__main__":
    (Path(sys.argv[1]) / "src").mkdir(parents=True, exist_ok=True)
    compile_all(Path(sys.argv[1]))
