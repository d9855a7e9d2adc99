"""Fused runs of the built-in assembler (docs/assembler.md, "Fused runs").

The bit-identity test builds one kernel per dtype holding every row-local op of the dialect table
(every row that declares ``row_local``: element-wise, scalar, expand, row reduction and conversion
ops), all in one run on tiles with partial valid regions, and runs the same C++ built with and
without ``-DPTO_CPU_NO_FUSION`` (the unfused path is the C++ that ``fuse=False`` writes): every
result must be the same bytes. Other tests check what
breaks a run (loads, stores, column reductions, shifted aliases) and the debug switches.
"""
from __future__ import annotations

import ctypes
import re
import subprocess

import numpy as np
import pytest

from ptokit.backend.assembler import assemble_text
from ptokit.pto.element_types import ELEMENT_TYPES
from ptokit.backend.assembler.fusion import find_run
from ptokit.pto import dialect
from ptokit.runtime import build as B

R, C = 32, 16            # tiles of R rows: two chunks of 16
VR, VC = 27, 13          # valid region: the second chunk is partial, and so are the rows

FLOAT_ONLY = {"exp", "log", "sqrt", "rsqrt", "recip", "expdif"}
INT_ONLY = {"and", "or", "shl", "shr", "not"}
DTYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i16": np.int16}


def arch_of(dtype: str) -> str:
    """The architecture whose vector unit takes every integer op of the sweep (a2a3's verifier refuses
    integer tdiv / tand / ... : ptokit/pto/element_types.py); floats sweep on a2a3."""
    return "a5" if dtype.startswith("i") else "a2a3"


def takes(name: str, dtype: str) -> bool:
    """Whether the verifier of ``arch_of(dtype)`` takes ``dtype`` for op ``name`` (its element-type list)."""
    row = ELEMENT_TYPES.get(name)
    if row is None:
        return True
    listed = row[2] if arch_of(dtype) == "a2a3" else row[3]
    return listed is None or dtype in re.split(r"/| or |, ", listed)


def fusable_ops(dtype: str):
    """Every dialect row declared row-local that the CPU library implements for ``dtype`` and the
    sweep's architecture takes it for."""
    out = []
    for name, spec in sorted(dialect.PTO_OPS.items()):
        if not spec.row_local:
            continue
        stem = name[len("pto.t"):]
        base = stem[:-1] if spec.ins and spec.ins[-1].kind == "S" and stem.endswith("s") else stem
        for tag in ("rowexpand", "colexpand", "row", "col"):
            if base.startswith(tag) and base != tag:
                base = base[len(tag):]
                break
        isfloat = dtype.startswith("f")
        if (base in FLOAT_ONLY and not isfloat) or (base in INT_ONLY and isfloat):
            continue
        if base == "fmod" and not isfloat:
            continue
        if not takes(name, dtype):
            continue
        out.append(name)
    return out


def test_every_row_local_family_is_declared():
    names = set(fusable_ops("f32")) | set(fusable_ops("i32"))
    for n in ("pto.tadd", "pto.tmuls", "pto.texp", "pto.trowsum", "pto.trowmax", "pto.trowexpandsub",
              "pto.tcolexpandmul", "pto.trowexpand", "pto.tcolexpand", "pto.tcvt", "pto.tand", "pto.tpartadd"):
        assert n in names, n
    for n in ("pto.tcolsum", "pto.tload", "pto.tstore", "pto.tmov", "pto.tgather"):
        assert not dialect.PTO_OPS[n].row_local, n


def _build(tmp_path, cpp: str, stem: str, extra=()):
    name = f"{stem}{'_nf' if extra else ''}"
    src = tmp_path / f"{name}.cpp"     # a source of its own: the other build may still be reading its own
    src.write_text(cpp)
    so = tmp_path / f"{name}.so"
    cmd = ["g++", "-std=c++17", "-O1", "-Wall", "-Werror", "-fPIC", "-shared", "-D__CPU_SIM", "-D__DAV_VEC__",
           "-DPTO_CPU_STANDALONE", f"-I{B.INCLUDE_DIR}", *extra, str(src), "-o", str(so)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), so


def _finish(p):
    out, err = p.communicate()
    assert p.returncode == 0, err[-4000:]


def _both_builds(tmp_path, cpp: str, stem: str):
    """The kernel built with and without -DPTO_CPU_NO_FUSION."""
    jobs = [_build(tmp_path, "#define __global__\n" + cpp, stem),
            _build(tmp_path, "#define __global__\n" + cpp, stem, ("-DPTO_CPU_NO_FUSION",))]
    for p, _ in jobs:
        _finish(p)
    return jobs


def _two_inputs(dtype, rng):
    """a, b of [R, C]: floats with a NaN and a -0.0 in them, or small positive integers."""
    np_t = DTYPES[dtype]
    if dtype.startswith("f"):
        a = rng.uniform(0.25, 3.0, (R, C)).astype(np_t)
        b = rng.uniform(-2.0, 2.0, (R, C)).astype(np_t)
        a[1, 2] = np.nan
        b[3, 0] = -0.0
        return a, b
    return rng.integers(1, 50, (R, C)).astype(np_t), rng.integers(1, 7, (R, C)).astype(np_t)


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_fused_and_unfused_give_the_same_bytes(tmp_path, dtype):
    ops = fusable_ops(dtype)
    text, outputs = kernel_text(dtype, ops)
    cpp = assemble_text(text, filename="fuse.pto", arch=arch_of(dtype))
    assert cpp.count("// fused:") == 1, "every op in one run"
    assert f"// fused: {len(ops)} instructions" in cpp
    plain = assemble_text(text, filename="fuse.pto", fuse=False, arch=arch_of(dtype))
    assert "row_chunk" not in plain
    glue = _glue(dtype, outputs)
    jobs = _both_builds(tmp_path, cpp + glue, "fused")
    np_t = DTYPES[dtype]
    rng = np.random.default_rng(7)
    a, b = _two_inputs(dtype, rng)
    if dtype.startswith("f"):
        v = rng.uniform(0.5, 2.0, (R, 1)).astype(np_t)
        w = rng.uniform(-1.0, 1.0, (1, C)).astype(np_t)
    else:
        v = rng.integers(1, 9, (R, 1)).astype(np_t)
        w = rng.integers(-5, 5, (1, C)).astype(np_t)
    results = []
    for _, so in jobs:
        bufs = [a, b, v, w] + [_fill(shape, dt) for dt, shape in outputs]
        lib = ctypes.CDLL(str(so))
        arr = (ctypes.c_void_p * len(bufs))(*[x.ctypes.data for x in bufs])
        lib.run(arr)
        results.append([x.tobytes() for x in bufs[4:]])
    for k, (dt, shape) in enumerate(outputs):
        assert results[0][k] == results[1][k], f"{ops[k] if k < len(ops) else k}: fused != -DPTO_CPU_NO_FUSION"
    # the run really computed something: the first result is the op on the inputs' valid region
    first = np.frombuffer(results[0][0], dtype=np_t).reshape(R, C)
    assert not np.array_equal(first[:VR, :VC], _fill((R, C), dtype)[:VR, :VC])


def _fill(shape, dt):
    np_t = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i16": np.int16}[dt]
    return np.full(shape, 77, np_t)


def _glue(dtype, outputs):
    ct = {"f32": "float", "f16": "half", "i32": "int32_t", "i16": "int16_t"}
    types = [ct[dtype]] * 4 + [ct[dt] for dt, _ in outputs]
    args = ", ".join(f"({t}*)b[{i}]" for i, t in enumerate(types))
    return f'\nextern "C" void run(void** b) {{ kern({args}); }}\n'


def _tt(dt, rows, cols):
    lay = "col_major" if cols == 1 else "row_major"
    return (f"!pto.tile_buf<loc=vec, dtype={dt}, rows={rows}, cols={cols}, v_row=?, v_col=?, blayout={lay}, "
            f"slayout=none_box, fractal=512, pad=0>")


def _module(consts, args, body) -> str:
    """The vector kernel ``kern(args)``: its constants, then its body."""
    head = [f"  {v} = arith.constant {val}{'.0' if isinstance(val, float) and float(val).is_integer() else ''}"
            f" : {ty}" for (val, ty), v in consts.items()]
    return ("module {\n  func.func @kern(" + ", ".join(args) + ") attributes {pto.kernel_kind = "
            "#pto.kernel_kind<vector>} {\n" + "\n".join(head + body) + "\n  return\n  }\n}\n")


def kernel_text(dtype: str, ops):
    """A .pto kernel ``kern(a, b, v, w, out0, out1, ...)``: loads a, b ([R, C]), v ([R, 1]), w ([1, C]),
    runs every op of ``ops`` once (each into a tile of its own), then stores every result."""
    consts = {}

    def c(v, ty="index"):
        key = (v, ty)
        if key not in consts:
            consts[key] = f"%k{len(consts)}"
        return consts[key]

    body, outputs, results = [], [], []
    addr = [0]

    def alloc(name, dt, rows, cols, vr, vc):
        size = rows * cols * {"f32": 4, "i32": 4, "f16": 2, "i16": 2}[dt]
        a = addr[0]
        addr[0] += (size + 127) // 128 * 128
        body.append(f"  %{name} = pto.alloc_tile addr = {c(a, 'i64')} valid_row = {c(vr)} valid_col = {c(vc)} "
                    f": {_tt(dt, rows, cols)}")
        return f"%{name}", _tt(dt, rows, cols)

    args = []

    def gm(idx, dt, rows, cols, vr, vc):
        args.append(f"%arg{idx}: !pto.ptr<{dt}>")
        body.append(f"  %view{idx} = pto.make_tensor_view %arg{idx}, shape = [{c(rows)}, {c(cols)}], strides = "
                    f"[{c(cols)}, {c(1)}] {{layout = #pto.layout<nd>}} : !pto.tensor_view<?x?x{dt}>")
        pt = f"!pto.partition_tensor_view<{vr}x{vc}x{dt}>"
        body.append(f"  %part{idx} = pto.partition_view %view{idx}, offsets = [{c(0)}, {c(0)}], sizes = "
                    f"[{c(vr)}, {c(vc)}] : !pto.tensor_view<?x?x{dt}> -> {pt}")
        return f"%part{idx}", pt

    ins = {}
    for k, (nm, rows, cols, vr, vc) in enumerate((("a", R, C, VR, VC), ("b", R, C, VR, VC), ("v", R, 1, VR, 1),
                                                  ("w", 1, C, 1, VC))):
        p, pt = gm(k, dtype, rows, cols, vr, vc)
        t, tt = alloc(nm, dtype, rows, cols, vr, vc)
        body.append(f"  pto.tload ins({p} : {pt}) outs({t} : {tt})")
        ins[nm] = (t, tt)
    tmp = alloc("tmp", dtype, R, C, VR, VC)
    # the run: every op into a fresh tile; sources are the inputs (so each op is checked on its own)
    isfloat = dtype.startswith("f")
    scalar_ty = dtype
    scalar = c(1.5 if isfloat else 3, scalar_ty)
    cvt_to = {"f32": "f16", "f16": "f32", "i32": "f32", "i16": "i32"}[dtype]
    for n, name in enumerate(ops):
        spec = dialect.PTO_OPS[name]
        dst_dt = cvt_to if name == "pto.tcvt" else dtype
        if name.startswith("pto.trow") and not name.startswith("pto.trowexpand"):
            shape = (R, 1, VR, 1)
        else:
            shape = (R, C, VR, VC)
        d, dt_t = alloc(f"r{n}", dst_dt, *shape)
        operands, types = [], []
        for o in spec.ins[:len(spec.ins) - spec.optional]:   # an optional tmp is not row-local
            if o.kind == "S":
                operands.append(scalar)
                types.append(scalar_ty)
                continue
            if o.role == "tmp":
                t, tt = tmp
            elif name.startswith("pto.trowexpand") and o.role in ("src1", "src"):
                t, tt = ins["v"]
            elif name.startswith("pto.tcolexpand") and o.role in ("src1", "src"):
                t, tt = ins["w"]
            elif o.role in ("src1",):
                t, tt = ins["b"]
            else:
                t, tt = ins["a"]
            operands.append(t)
            types.append(tt)
        body.append(f"  {name} ins({', '.join(operands)} : {', '.join(types)}) outs({d} : {dt_t})")
        results.append((d, dt_t, dst_dt, shape))
    for n, (d, dt_t, dst_dt, (rows, cols, vr, vc)) in enumerate(results):
        p, pt = gm(4 + n, dst_dt, rows, cols, vr, vc)
        body.append(f"  pto.tstore ins({d} : {dt_t}) outs({p} : {pt})")
        outputs.append((dst_dt, (rows, cols)))
    return _module(consts, args, body), outputs


# ---------------------------------------------------------------- what makes and breaks a run
def _ops_of(text):
    from ptokit.pto.parser import parse
    from ptokit.backend.assembler.sema import Sema
    mod = parse(text, "t.pto")
    Sema(mod, mod.source).run()
    return mod.funcs[0].body.ops


def _two_op_kernel(first: str, second: str, allocs: str) -> str:
    t = _tt("f32", R, C)
    col = _tt("f32", R, 1)
    return f"""module {{
  func.func @k() attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  %c0 = arith.constant 0 : i64
  %r = arith.constant {R} : index
  %c = arith.constant {C} : index
  %one = arith.constant 1 : index
  %a = pto.alloc_tile addr = %c0 valid_row = %r valid_col = %c : {t}
{allocs}
  {first}
  {second}
  return
  }}
}}
""".replace("TT", t).replace("CT", col)


def _runs(text):
    cpp = assemble_text(text, filename="t.pto")
    return [line.strip() for line in cpp.splitlines() if "// fused:" in line]


@pytest.fixture
def small_runs(monkeypatch):
    """These kernels' tiles fit an L1 (no gain): fuse them anyway, to check what makes a run."""
    from ptokit.backend.assembler import fusion
    monkeypatch.setattr(fusion, "MIN_RUN_BYTES", 0)


def test_runs_that_fit_an_l1_are_not_fused():
    same = _two_op_kernel("pto.tadd ins(%a, %a : TT, TT) outs(%a : TT)", "pto.texp ins(%a : TT) outs(%a : TT)", "")
    assert _runs(same) == []


def test_a_row_aligned_alias_is_fused_a_shifted_one_is_not(small_runs):
    # in place (same address, same pitch): each row reads only its own row
    same = _two_op_kernel("pto.tadd ins(%a, %a : TT, TT) outs(%a : TT)", "pto.texp ins(%a : TT) outs(%a : TT)", "")
    assert _runs(same) == [f"// fused: 2 instructions over {R} rows in chunks of 16"]
    # %b is %a shifted by one row: the second op would overwrite rows of %a a later chunk still reads
    shifted = _two_op_kernel("pto.texp ins(%a : TT) outs(%d : TT)", "pto.tadd ins(%d, %d : TT, TT) outs(%b : TT)",
                             f"  %s = arith.constant {C * 4} : i64\n  %e = arith.constant 8192 : i64\n"
                             "  %b = pto.alloc_tile addr = %s valid_row = %r valid_col = %c : TT\n"
                             "  %d = pto.alloc_tile addr = %e valid_row = %r valid_col = %c : TT")
    assert _runs(shifted) == []
    # a row reduction whose [R, 1] result lies under the rows the next op writes
    under = _two_op_kernel("pto.trowsum ins(%a, %a : TT, TT) outs(%v : CT)",
                           "pto.trowexpandmul ins(%a, %v : TT, CT) outs(%d : TT)",
                           "  %e = arith.constant 8192 : i64\n"
                           "  %v = pto.alloc_tile addr = %e valid_row = %r valid_col = %one : CT\n"
                           "  %d = pto.alloc_tile addr = %e valid_row = %r valid_col = %c : TT")
    assert _runs(under) == []


def test_column_reductions_loads_and_other_shapes_break_a_run(small_runs):
    colsum = _two_op_kernel("pto.texp ins(%a : TT) outs(%a : TT)", "pto.tcolsum ins(%a : TT) outs(%w : RT)",
                            "  %e = arith.constant 8192 : i64\n"
                            "  %w = pto.alloc_tile addr = %e valid_row = %one valid_col = %c : RT"
                            ).replace("RT", _tt("f32", 1, C))
    assert _runs(colsum) == []
    other = _two_op_kernel("pto.texp ins(%a : TT) outs(%a : TT)", "pto.texp ins(%h : HT) outs(%h : HT)",
                           "  %e = arith.constant 8192 : i64\n  %h2 = arith.constant 16 : index\n"
                           "  %h = pto.alloc_tile addr = %e valid_row = %h2 valid_col = %c : HT"
                           ).replace("HT", _tt("f32", 16, C))
    assert _runs(other) == []
    # a different valid row count: not one run either
    partial = _two_op_kernel("pto.texp ins(%a : TT) outs(%a : TT)", "pto.texp ins(%p : TT) outs(%p : TT)",
                             "  %e = arith.constant 8192 : i64\n  %pr = arith.constant 5 : index\n"
                             "  %p = pto.alloc_tile addr = %e valid_row = %pr valid_col = %c : TT")
    assert _runs(partial) == []
    ops = _ops_of(_two_op_kernel("pto.texp ins(%a : TT) outs(%a : TT)", "pto.texp ins(%a : TT) outs(%a : TT)", ""))
    k = next(i for i, op in enumerate(ops) if op.name == "pto.texp")
    run, end = find_run(ops, k, {})
    assert (run.rows, run.chunk, end) == (R, 16, k + 2)


def test_the_build_switch_and_the_run_config_switch(monkeypatch):
    from ptokit.runtime.config import RunConfig
    monkeypatch.delenv("PTOKIT_NO_FUSION", raising=False)
    assert "-DPTO_CPU_NO_FUSION" not in B.tree_flags()
    monkeypatch.setenv("PTOKIT_NO_FUSION", "1")
    assert "-DPTO_CPU_NO_FUSION" in B.tree_flags()
    assert RunConfig().fusion is True and RunConfig(fusion=False).fusion is False
    with pytest.raises(ValueError, match="fusion"):
        RunConfig(fusion="no")


# ---------------------------------------------------------------- loads and stores absorbed
def _elementwise(dtype):
    """The row-local ops whose row operands all share one valid region (no reductions or expands)."""
    return [n for n in fusable_ops(dtype) if not n.startswith(("pto.trow", "pto.tcolexpand"))]


def gm_kernel_text(dtype: str, groups, reuse=False):
    """``kern(a, b, out0, out1, ...)``: per group, loads of a and b ([R, C], valid VR x VC) into tiles
    of its own, its ops, the store of each group's last result. A group is a list of
    (op, srcs) with names "a", "b", "tmp" (a scratch tile) and "t<k>" (the k-th result of the group). With ``reuse`` every
    group's tiles are read once more after the last group (a tile live outside the run)."""
    consts: dict = {}

    def c(v, ty="index"):
        if (v, ty) not in consts:
            consts[(v, ty)] = f"%k{len(consts)}"
        return consts[(v, ty)]

    esize = {"f32": 4, "i32": 4, "f16": 2, "i16": 2}
    cvt_to = {"f32": "f16", "f16": "f32", "i32": "f32", "i16": "i32"}[dtype]
    body, args, outputs = [], [], []
    addr = [0]
    nargs = [0]

    def alloc(name, dt, cols, vc):
        a = addr[0]
        addr[0] += (R * cols * esize[dt] + 127) // 128 * 128
        body.append(f"  %{name} = pto.alloc_tile addr = {c(a, 'i64')} valid_row = {c(VR)} valid_col = {c(vc)} "
                    f": {_tt(dt, R, cols)}")
        return f"%{name}", _tt(dt, R, cols)

    def gm(dt):
        i = nargs[0]
        nargs[0] += 1
        args.append(f"%arg{i}: !pto.ptr<{dt}>")
        body.append(f"  %view{i} = pto.make_tensor_view %arg{i}, shape = [{c(R)}, {c(C)}], strides = "
                    f"[{c(C)}, {c(1)}] {{layout = #pto.layout<nd>}} : !pto.tensor_view<?x?x{dt}>")
        pt = f"!pto.partition_tensor_view<{VR}x{VC}x{dt}>"
        body.append(f"  %part{i} = pto.partition_view %view{i}, offsets = [{c(0)}, {c(0)}], sizes = "
                    f"[{c(VR)}, {c(VC)}] : !pto.tensor_view<?x?x{dt}> -> {pt}")
        return f"%part{i}", pt

    src_a, src_b = gm(dtype), gm(dtype)
    scalar = c(1.5 if dtype.startswith("f") else 3, dtype)
    kept = []
    for g, ops in enumerate(groups):
        tiles = {}
        used = {x for _, srcs in ops for x in srcs}
        for nm, (p, pt) in (("a", src_a), ("b", src_b)):
            if nm not in used:
                continue
            t, tt = alloc(f"{nm}{g}", dtype, C, VC)
            body.append(f"  pto.tload ins({p} : {pt}) outs({t} : {tt})")
            tiles[nm] = (t, tt, dtype)
        if "tmp" in used:                     # a reduction's scratch tile, not loaded
            t, tt = alloc(f"tmp{g}", dtype, C, VC)
            tiles["tmp"] = (t, tt, dtype)
        for k, (name, srcs) in enumerate(ops):
            dt = cvt_to if name == "pto.tcvt" else dtype
            red = name.startswith("pto.trow") and not name.startswith("pto.trowexpand")
            d, dtt = alloc(f"g{g}t{k}", dt, 1 if red else C, 1 if red else VC)
            spec = dialect.PTO_OPS[name]
            operands, types = [], []
            it = iter(srcs)
            for o in spec.ins[:len(spec.ins) - spec.optional]:
                if o.kind == "S":
                    operands.append(scalar)
                    types.append(dtype)
                    continue
                t, tt, _ = tiles[next(it)]
                operands.append(t)
                types.append(tt)
            body.append(f"  {name} ins({', '.join(operands)} : {', '.join(types)}) outs({d} : {dtt})")
            tiles[f"t{k}"] = (d, dtt, dt)
        d, dtt, dt = tiles[f"t{len(ops) - 1}"]
        p, pt = gm(dt)
        body.append(f"  pto.tstore ins({d} : {dtt}) outs({p} : {pt})")
        outputs.append(dt)
        kept.append(tiles["a"])
    if reuse:                                 # read every group's a tile again: it must stay written
        for g, (t, tt, dt) in enumerate(kept):
            d, dtt = alloc(f"again{g}", dtype, C, VC)
            body.append(f"  pto.tadd ins({t}, {t} : {tt}, {tt}) outs({d} : {dtt})")
            p, pt = gm(dtype)
            body.append(f"  pto.tstore ins({d} : {dtt}) outs({p} : {pt})")
            outputs.append(dtype)
    return _module(consts, args, body), outputs


def _gm_groups(dtype):
    """One group per element-wise op (its sources a, b or a alone), a chain that reads a stored
    result again and writes in place, and a row reduction + row expand reading the loaded a."""
    groups = []
    for name in _elementwise(dtype):
        n = sum(1 for o in dialect.PTO_OPS[name].ins[:len(dialect.PTO_OPS[name].ins) - dialect.PTO_OPS[name].optional]
                if o.kind != "S")
        groups.append([(name, ["a", "b"][:n])])
    groups.append([("pto.tadd", ["a", "b"]), ("pto.tmul", ["t0", "a"]), ("pto.tsub", ["t1", "t0"])])
    red = "pto.trowmax" if "pto.trowmax" in fusable_ops(dtype) else "pto.trowsum"
    groups.append([(red, ["a", "tmp"]), ("pto.trowexpandsub", ["a", "t0"])])
    return groups


def _run_gm(tmp_path, dtype, text, outputs, stem):
    cpp = assemble_text(text, filename="gm.pto", arch=arch_of(dtype))
    glue_types = {"f32": "float", "f16": "half", "i32": "int32_t", "i16": "int16_t"}
    types = [glue_types[dtype]] * 2 + [glue_types[dt] for dt in outputs]
    glue = "\nextern \"C\" void run(void** b) { kern(" + ", ".join(
        f"({t}*)b[{i}]" for i, t in enumerate(types)) + "); }\n"
    jobs = _both_builds(tmp_path, cpp + glue, stem)
    a, b = _two_inputs(dtype, np.random.default_rng(11))
    results = []
    for _, so in jobs:
        bufs = [a, b] + [_fill((R, C), dt) for dt in outputs]
        lib = ctypes.CDLL(str(so))
        lib.run((ctypes.c_void_p * len(bufs))(*[x.ctypes.data for x in bufs]))
        results.append([x.tobytes() for x in bufs[2:]])
    return cpp, results


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_absorbed_loads_and_stores_give_the_same_bytes(tmp_path, small_runs, dtype):
    groups = _gm_groups(dtype)
    text, outputs = gm_kernel_text(dtype, groups)
    cpp, results = _run_gm(tmp_path, dtype, text, outputs, "gm")
    assert cpp.count("stores absorbed") == len(groups), "every group's loads and stores absorbed"
    for k, g in enumerate(groups):
        assert results[0][k] == results[1][k], f"{g}: fused (windows) != -DPTO_CPU_NO_FUSION"
    first = np.frombuffer(results[0][0], dtype=DTYPES[dtype]).reshape(R, C)
    assert not np.array_equal(first[:VR, :VC], _fill((R, C), dtype)[:VR, :VC])
    # outside the stored valid region the outputs keep their bytes
    assert (first[VR:] == _fill((R, C), dtype)[VR:]).all() and (first[:, VC:] == _fill((R, C), dtype)[:, VC:]).all()


def test_a_tile_read_after_the_run_keeps_its_load(tmp_path, small_runs):
    groups = [[("pto.tadd", ["a", "b"])], [("pto.texp", ["a"])]]
    text, outputs = gm_kernel_text("f32", groups, reuse=True)
    cpp, results = _run_gm(tmp_path, "f32", text, outputs, "live")
    # the a tiles are read again later: their loads stay; group 0's b load is still absorbed
    assert [ln.strip() for ln in cpp.splitlines() if "absorbed" in ln] == [
        f"// fused: 1 instructions over {R} rows in chunks of 16, 1 loads and 1 stores absorbed"]
    assert results[0] == results[1]
    text, _ = gm_kernel_text("f32", groups)
    assert assemble_text(text, filename="gm.pto").count("stores absorbed") == 2


def test_what_keeps_loads_and_stores_out_of_a_run(small_runs):
    text, _ = gm_kernel_text("f32", [[("pto.texp", ["a"])]])
    assert "1 loads and 1 stores absorbed" in assemble_text(text, filename="gm.pto")
    from ptokit.backend.assembler import fusion
    fusion.MIN_RUN_BYTES = 32 * 1024          # (the fixture restores it) tiles that fit an L1: plain C++
    assert "absorbed" not in assemble_text(text, filename="gm.pto")
    fusion.MIN_RUN_BYTES = 0
    t = _tt("f32", R, C)
    # a copy (the stored tile is the loaded one, unwritten): nothing to compute, plain TLOAD/TSTORE
    copy = text.replace(f"pto.tstore ins(%g0t0 : {t})", f"pto.tstore ins(%a0 : {t})")
    assert copy != text and "absorbed" not in assemble_text(copy, filename="gm.pto")
    # the op's result has a wider valid region than the loaded tile: it would read the window past it
    wide = text.replace(f"%g0t0 = pto.alloc_tile addr = %k8 valid_row = %k4 valid_col = %k5",
                        f"%g0t0 = pto.alloc_tile addr = %k8 valid_row = %k4 valid_col = %k1")
    assert wide != text and "absorbed" not in assemble_text(wide, filename="gm.pto")


def test_a_store_over_a_loaded_window_takes_the_unfused_path(tmp_path, small_runs):
    """y and a are one buffer (in place): the written window overlaps a read one, so the run checks
    at run time (gm_disjoint) and runs the instructions in order instead."""
    text, outputs = gm_kernel_text("f32", [[("pto.tadd", ["a", "b"]), ("pto.tmul", ["t0", "a"])]])
    cpp = assemble_text(text, filename="gm.pto")
    assert "2 loads and 1 stores absorbed" in cpp
    glue = '\nextern "C" void run(float* a, float* b) { kern(a, b, a); }\n'
    jobs = _both_builds(tmp_path, cpp + glue, "inplace")
    rng = np.random.default_rng(3)
    a0 = rng.uniform(-2, 2, (R, C)).astype(np.float32)
    b = rng.uniform(-2, 2, (R, C)).astype(np.float32)
    out = []
    for _, so in jobs:
        a = a0.copy()
        ctypes.CDLL(str(so)).run(a.ctypes.data_as(ctypes.c_void_p), b.ctypes.data_as(ctypes.c_void_p))
        out.append(a)
    ref = a0.copy()
    ref[:VR, :VC] = (a0[:VR, :VC] + b[:VR, :VC]) * a0[:VR, :VC]
    assert out[0].tobytes() == out[1].tobytes() == ref.tobytes()
