"""The op table agrees with the DSL's op registry, with the CPU tile library and with itself."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ptokit
from ptokit.ir.ops import OPS
from ptokit.pto import dialect

HEADERS = sorted((Path(ptokit.__file__).parent / "runtime" / "include" / "pto" / "cpu").glob("*.hpp"))
# what PTO codegen lays into ins(...) for each IR op form: operand kinds (tile, scalar, index, partition)
FORM_INS = {"binary": "TT", "scalar": "TS", "unary": "T", "reduce_tmp": "TT", "expand": "T", "slice": "TII",
            "insert": "TII", "load": "G", "store": "T", "ternary": "TTT"}


def _params(text: str, start: int):
    """(required, total) parameter counts of the parameter list opening at text[start] == '('."""
    depth, i, params, cur = 0, start, [], ""
    while True:
        c = text[i]
        if c in "(<":
            depth += 1
            if depth == 1 and c == "(":
                i += 1
                continue
        elif c in ")>":
            depth -= 1
            if depth == 0:
                break
        if c == "," and depth == 1:
            params.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        params.append(cur)
    return sum("=" not in p for p in params), len(params)


def cpu_library():
    """{name: [(required, total) per overload]} of the functions, templates and macro rows in the headers."""
    found = {}
    for h in HEADERS:
        text = h.read_text()
        macros = {}
        for m in re.finditer(r"#define\s+(PTO_CPU_\w+)\(NAME\b", text):
            f = re.compile(r"RecordEvent\s+NAME\s*\(").search(text, m.end())
            if f:
                macros[m.group(1)] = _params(text, f.end() - 1)
        for m in re.finditer(r"^(PTO_CPU_\w+)\(([A-Z][A-Z0-9_]*)\s*,", text, re.M):
            if m.group(1) in macros:
                found.setdefault(m.group(2), []).append(macros[m.group(1)])
        for m in re.finditer(r"\b(?:RecordEvent|void)\s+([A-Z][A-Z0-9_]*)\s*\(", text):
            found.setdefault(m.group(1), []).append(_params(text, m.end() - 1))
        # functions returning a value (TGETVAL, LOAD_SCALAR): inline T NAME( / inline typename X::DType NAME(
        for m in re.finditer(r"\binline\s+(?:typename\s+)?[\w:]+\s+([A-Z][A-Z0-9_]*)\s*\(", text):
            found.setdefault(m.group(1), []).append(_params(text, m.end() - 1))
        for m in re.finditer(r"\bstruct\s+([A-Z]\w*)", text):
            found.setdefault(m.group(1), [])
    return found


LIB = cpu_library()


def test_the_header_scan_finds_the_library():
    assert {"TADD", "TEXP", "TROWSUM", "TLOAD", "TASSIGN", "TRESHAPE", "TPUSH", "TPipe", "GlobalTensor"} <= set(LIB)
    assert LIB["TADD"] == [(3, 3)] and (2, 4) in LIB["TEXTRACT"]


def test_every_dsl_op_has_its_dialect_row():
    missing = sorted(f"{n} -> {op.pto}" for n, op in OPS.items() if op.pto and op.pto not in dialect.PTO_OPS)
    assert not missing


def test_dialect_rows_have_the_operands_codegen_lays_out():
    for name, op in OPS.items():
        if not op.pto or op.form not in FORM_INS:
            continue
        spec = dialect.spec(op.pto)
        required = spec.ins[:len(spec.ins) - spec.optional]
        assert "".join(o.kind for o in required) == FORM_INS[op.form], (name, op.pto)
        assert spec.form in ("dps", "view"), (name, spec.form)


@pytest.mark.parametrize("spec", sorted(dialect.PTO_OPS.values(), key=lambda s: s.name), ids=lambda s: s.name)
def test_every_cxx_name_is_in_the_cpu_library(spec):
    if spec.cxx is None:
        assert spec.form in ("tensor_view", "reserve", "array_declare")    # lower to no call
        return
    if spec.cxx.startswith("."):                           # a member call: tile.SetValidShape(vr, vc)
        tile_hpp = next(h for h in HEADERS if h.name == "tile.hpp").read_text()
        assert re.search(rf"\b{spec.cxx[1:]}\(", tile_hpp), spec.name
        return
    for row in spec.variants or (spec,):
        assert row.cxx in LIB, f"{spec.name} lowers to {row.cxx}, which ptokit/runtime/include/pto/cpu does not define"
        if spec.form in ("dps", "view"):
            # the emitter passes outs, then ins (an optional operand only when the row passes it), then the
            # attributes the row lowers to arguments (tcvt's RoundMode, tcmp's CmpMode, ...)
            ins = len(row.ins) - (0 if row.pass_optional else row.optional)
            args = len(row.outs) + ins + sum(a.cxx == "arg" for a in row.attrs)
            assert any(lo <= args <= hi for lo, hi in LIB[row.cxx]), (spec.name, args, LIB[row.cxx])
            if row.pass_optional:   # ... and the call without the optional operand exists too
                short = args - row.optional - sum(a.cxx == "arg" and a.cxx_default is None for a in row.attrs)
                assert any(lo <= short <= hi for lo, hi in LIB[row.cxx]), (spec.name, short, LIB[row.cxx])


def test_row_major_roles_are_operands_of_their_op():
    for spec in dialect.PTO_OPS.values():
        roles = {o.role for o in spec.operands}
        assert set(spec.row_major) <= roles, spec.name


def test_layout_messages_are_the_real_assembler_words():
    assert dialect.spec("pto.trsqrt").layout_message("src") == "'pto.trsqrt' op expects src to use the row_major blayout"
    assert dialect.spec("pto.tadd").layout_message("dst") == \
        "'pto.tadd' op expects src0, src1, and dst to use row-major layout"


def test_the_dialect_package_imports_nothing_from_the_ir():
    for path in (Path(ptokit.__file__).parent / "pto").glob("*.py"):
        assert not re.search(r"^\s*(from|import)\s+(\.\.ir|ptokit\.ir)\b", path.read_text(), re.M), path
    code = ("import sys, ptokit; before = set(sys.modules); "
            "import ptokit.pto.builder, ptokit.pto.parser, ptokit.pto.printer; "
            "print(sorted(m for m in set(sys.modules) - before if m.startswith('ptokit.') "
            "and not m.startswith('ptokit.pto')), 'ptokit.ir' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # ptokit.errors, the dialect's one ptokit import, is loaded by `import ptokit` already (the error
    # floor: ptokit.compile is an api_boundary)
    assert out.strip() == "[] False" and "ptokit.errors" in subprocess.run(
        [sys.executable, "-c", "import sys, ptokit; print(sorted(sys.modules))"], capture_output=True, text=True,
        check=True).stdout
