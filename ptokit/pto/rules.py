"""The real assembler's verifier rules on tile ops' element types, memory spaces and shapes.

A dialect row names the rules that apply to it (``OpSpec.verify``); both readers of a row use them:
the built-in assembler's sema (a ``.pto`` the real ptoas would refuse is refused, at the op) and PTO
codegen (a DSL program whose ``.pto`` the real ptoas would refuse is a CompileError at the DSL line).
Messages are the real tool's words, ``'pto.X' op expects ...``; rules differ per architecture
(``a2a3`` / ``a5``) where the tool's do.

``check(row, roles, arch)`` takes the operand types by role (``{"src": TileBufType, ...}``) and
returns ``(role, message)`` for the first rule broken, or None.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple

from .compat import ops_of, row_of     # the op walker and variant choice shared with the compat check
from .element_types import ELEMENT_TYPES, UNTAGGED
from .types import ScalarType, TileBufType

Roles = Dict[str, object]
Broken = Optional[Tuple[str, str]]


def _tag(arch: str) -> str:
    return "A5" if arch == "a5" else "A2/A3"


def _elem(ty) -> Optional[str]:
    if isinstance(ty, TileBufType):
        return ty.dtype
    if isinstance(ty, ScalarType):
        return ty.name
    return getattr(ty, "elem", None)


def _loc(ty) -> Optional[str]:
    return ty.loc if isinstance(ty, TileBufType) else None


def _acc_store(name: str, roles: Roles, arch: str) -> Broken:
    """tstore from an Acc tile: the fixpipe writes i32 / f32 accumulators only (into i32/f32/f16/bf16)."""
    src, dst = roles.get("src"), roles.get("dst")
    if _loc(src) != "acc":
        return None
    if _elem(src) not in ("i32", "f32"):
        return "src", f"'{name}' op expects {_tag(arch)} acc tstore src element type to be i32 or f32"
    if _elem(dst) not in ("i32", "f32", "f16", "bf16"):
        return "dst", f"'{name}' op expects {_tag(arch)} acc tstore dst element type to be i32/f32/f16/bf16"
    return None


def _vec_store(name: str, roles: Roles, arch: str) -> Broken:
    """tstore from a Vec (a2a3 also Mat) tile in ptoas 0.27: 8- to 64-bit integers, f16, bf16, f32 (no fp8;
    pypto HEAD stores a5's fp8 tiles for newer ptoas)."""
    src = roles.get("src")
    spaces = ("vec",) if arch == "a5" else ("vec", "mat")
    if _loc(src) not in spaces or _takes("i8/i16/i32/i64/f16/bf16/f32", _elem(src)):
        return None
    what = "vec" if arch == "a5" else "vec/mat"
    return "src", f"'{name}' op expects {_tag(arch)} {what} tstore src element type to be i8/i16/i32/i64/u64/f16/bf16/f32"


_A5_ONLY_WORDS = {"pto.trandom": "trandom is only supported for A5 targets"}


def _a5_only(name: str, roles: Roles, arch: str) -> Broken:
    """mgather / mscatter / trandom in ptoas 0.27: A5 targets only (pypto HEAD writes them for A2/A3 too)."""
    if arch != "a5":
        words = _A5_ONLY_WORDS.get(name, f"{name} is only supported on A5 targets")
        return ("src" if "src" in roles else next(iter(roles), None)), f"'{name}' op {words}"
    return None


def _extract(name: str, roles: Roles, arch: str) -> Broken:
    """textract: a window of a Mat tile into Left/Right (a5 also Vec -> Vec / Mat, Mat -> Scaling)."""
    src, dst = roles.get("src"), roles.get("dst")
    if _elem(src) != _elem(dst):
        return "dst", f"'{name}' op expects src and dst to have the same element type"
    if arch == "a5":
        pair = (_loc(src), _loc(dst))
        if not (pair[0] == "mat" and pair[1] in ("left", "right", "scaling")
                or pair[0] == "vec" and pair[1] in ("mat", "vec")):
            return "src", f"'{name}' op expects A5 textract to use a supported src/dst loc pair"
        if pair == ("vec", "vec") and not all(t.blayout == "row_major" and t.slayout == "none_box"
                                              for t in (src, dst)):
            return "src", (f"'{name}' op expects A5 vec->vec textract src/dst to use ND layout "
                           f"(blayout=row_major, slayout=none_box)")
        return None
    if not _takes("i8/f16/bf16/f32", _elem(src)):
        return "src", f"'{name}' op expects A2/A3 textract element type to be i8/f16/bf16/f32"
    if _loc(src) != "mat":
        return "src", f"'{name}' op expects A2/A3 textract src to use loc=mat"
    if _loc(dst) not in ("left", "right"):
        return "dst", f"'{name}' op expects A2/A3 textract dst to use loc=left or loc=right"
    return None


def _insert(name: str, roles: Roles, arch: str) -> Broken:
    """tinsert: an Acc tile into a Mat tile (a5 also Vec -> Mat), narrowing f32 on the way."""
    src, dst = roles.get("src"), roles.get("dst")
    pair = (_loc(src), _loc(dst), _elem(src), _elem(dst))
    if arch == "a5":
        if pair[:2] == ("acc", "mat"):
            if not (pair[2] == "f32" and pair[3] in ("f16", "bf16", "f32") or pair[2:] == ("i32", "i32")):
                return "src", (f"'{name}' op expects A5 acc->mat tinsert element types to be "
                               f"(src=f32,dst=f16/bf16/f32) or (src=i32,dst=i32)")
            return None
        if pair[:2] == ("vec", "mat"):
            return None
        return "src", f"'{name}' op expects A5 tinsert to use a supported src/dst loc pair"
    if pair[:2] != ("acc", "mat"):
        return "src", f"'{name}' op expects A2/A3 tinsert src to use loc=acc and dst to use loc=mat"
    if not (pair[2] == "f32" and pair[3] in ("f16", "bf16")):
        return "src", f"'{name}' op expects A2/A3 tinsert element types to be src=f32, dst=f16/bf16"
    return None


def _prelu_shape(name: str, roles: Roles, arch: str) -> Broken:
    """tprelu in ptoas 0.27: src0, src1, tmp and dst of one shape (pypto HEAD sizes the tmp by the
    hardware's need instead: rows >= valid rows + 1, cols >= valid cols / 8)."""
    shapes = {(t.rows, t.cols) for t in (roles.get(r) for r in ("src0", "src1", "tmp", "dst"))
              if isinstance(t, TileBufType)}
    if len(shapes) > 1:
        return "tmp", f"'{name}' op expects src0/src1/tmp/dst to have the same shape"
    return None


def _prelu_tmp(name: str, roles: Roles, arch: str) -> Broken:
    """tprelu on a2a3: the tmp is a u8 tile."""
    if arch != "a5" and _elem(roles.get("tmp")) != "ui8":
        return "tmp", f"'{name}' op expects A2/A3 tmp element type to be u8"
    return None


# integer widths by element type: the tool's ``isInteger(w)`` takes signed and unsigned alike
_INT_WIDTH = {"i8": 8, "ui8": 8, "i16": 16, "ui16": 16, "i32": 32, "ui32": 32, "i64": 64, "ui64": 64}


def _scalar_minmax(name: str, roles: Roles, arch: str) -> Broken:
    """tmaxs / tmins: 32- and 16-bit integer, f16 and f32 tiles (a5 also 8-bit integers)."""
    widths = (32, 16, 8) if arch == "a5" else (32, 16)
    elem = _elem(roles.get("src"))
    if not (elem in ("f16", "f32") or _INT_WIDTH.get(elem) in widths):
        short = name.split(".")[-1]
        words = "/".join([f"i{w}" for w in widths] + ["f16", "f32"])
        return "src", f"'{name}' op expects {_tag(arch)} {short} element type to be {words}"
    return None


def _float_scalar(name: str, roles: Roles, arch: str) -> Broken:
    """tmaxs / tmins in ptoas 0.27: its view-to-memref pass lowers only a float scalar; with an integer
    one it stops with "ins/outs are not memref yet" (the verifier itself takes i32/i16 tiles)."""
    scalar = _elem(roles.get("scalar"))
    if scalar is not None and scalar not in ("f16", "bf16", "f32"):
        return "scalar", (f"'{name}' op with a {scalar} scalar is not lowered by ptoas 0.27 "
                          f"(it stops with \"ins/outs are not memref yet\")")
    return None


def _signless_scalar(name: str, roles: Roles, arch: str) -> Broken:
    """ptoas 0.27 takes a tile op's scalar operand as a signless integer or a float only (its operand
    constraints); pypto HEAD writes the scalar of an unsigned tile with the tile's unsigned type."""
    scalar = _elem(roles.get("scalar"))
    if scalar is not None and scalar.startswith("ui"):
        return "scalar", f"'{name}' op takes no {scalar} scalar in ptoas 0.27 (signless integers and floats only)"
    return None


def _push_space(name: str, roles: Roles, arch: str) -> Broken:
    """tpush in ptoas 0.27: the producer pipe comes from the tile's space, Acc (FIX) or Vec (MTE3) only;
    a Mat tile maps to no pipe."""
    if _loc(roles.get("tile")) not in ("acc", "vec", None):
        return "tile", f"'{name}' op tile type must map to a supported producer pipe (ptoas 0.27 pushes Acc or Vec tiles)"
    return None


def _cmp_shape(name: str, roles: Roles, arch: str) -> Broken:
    """tcmp on a5 in ptoas 0.27: src0, src1 and the i8 mask of one shape; pypto HEAD (and ptokit) write the
    a5 mask packed, one bit per element ([R, C / 8] bytes padded to a 32-byte row)."""
    if arch != "a5":
        return None
    shapes = [(t.rows, t.cols) for t in (roles.get(r) for r in ("src0", "src1", "dst")) if isinstance(t, TileBufType)]
    if len(set(shapes)) > 1:
        return "dst", (f"'{name}' op expects src0, src1, and dst to have the same shape (ptoas 0.27's A5 rule; "
                       f"the packed A5 mask is written for newer ptoas)")
    return None


def _no_tmp(name: str, roles: Roles, arch: str) -> Broken:
    """ptoas 0.27 reads ``ins(%src0, %src1 : T0, T1)`` only; pypto HEAD also writes a tmp scratch tile."""
    if roles.get("tmp") is not None:
        return "tmp", f"'{name}' op takes no tmp operand in ptoas 0.27 (ins(%src0, %src1 : T0, T1) only)"
    return None


def _expands(name: str, roles: Roles, arch: str) -> Broken:
    """texpands: a Vec/Mat tile filled with a scalar of exactly its element type."""
    dst, scalar = roles.get("dst"), roles.get("scalar")
    if _loc(dst) not in ("vec", "mat"):
        return "dst", f"'{name}' op expects dst to be in the vec or mat address space"
    if _elem(scalar) != _elem(dst):
        return "scalar", f"'{name}' op expects scalar type == dst element type"
    allowed = (("i8",) if arch == "a5" else ()) + ("i16", "i32", "f16", "f32")
    elem = _elem(dst)
    if not (elem in ("f16", "f32") or f"i{_INT_WIDTH.get(elem)}" in allowed):
        return "dst", f"'{name}' op expects {_tag(arch)} texpands dst element type to be {'/'.join(allowed)}"
    return None


def _gather_index(name: str, roles: Roles, arch: str) -> Broken:
    """tgather by indices: i32 indices (a5 also i16)."""
    idx = roles.get("indices")
    if idx is None:
        return None
    if _INT_WIDTH.get(_elem(idx)) not in ((32, 16) if arch == "a5" else (32,)):
        return "indices", f"'{name}' op expects indices element type to be i32" + (" or i16" if arch == "a5" else "")
    return None


def _takes(words: str, elem: Optional[str]) -> bool:
    tokens = words.replace(" or ", "/").replace(", ", "/").replace(",", "/").split("/")
    width = _INT_WIDTH.get(elem or "")
    return any(t == elem if t in ("f16", "bf16", "f32") else
               width is not None and t.lstrip("iu").isdigit() and int(t.lstrip("iu")) == width for t in tokens)


def _element_types(name: str, roles: Roles, arch: str) -> Broken:
    role, words, a2a3, a5 = ELEMENT_TYPES[name]
    allowed = a5 if arch == "a5" else a2a3
    if allowed is None or role not in roles or _takes(allowed, _elem(roles[role])):
        return None
    if name in UNTAGGED:
        return role, f"'{name}' op expects {words} to be {allowed}"
    return role, f"'{name}' op expects {_tag(arch)} {name.split('.')[-1]} {words} to be {allowed}"


def _scalar_elem(name: str, roles: Roles, arch: str) -> Broken:
    """trems / tfmods: the scalar of exactly the tile's element type (PTO codegen narrows it so)."""
    scalar, src = _elem(roles.get("scalar")), _elem(roles.get("src"))
    if scalar is not None and src is not None and scalar != src:
        return "scalar", f"'{name}' op expects scalar type to match the tile element type"
    return None


RULES: Dict[str, Callable[[str, Roles, str], Broken]] = {
    "acc_store": _acc_store, "vec_store": _vec_store, "a5_only": _a5_only, "extract": _extract, "insert": _insert, "prelu_shape": _prelu_shape,
    "prelu_tmp": _prelu_tmp,
    "scalar_minmax": _scalar_minmax, "expands": _expands, "gather_index": _gather_index,
    "element_types": _element_types, "float_scalar": _float_scalar,
    "signless_scalar": _signless_scalar, "push_space": _push_space,
    "no_tmp": _no_tmp, "cmp_shape": _cmp_shape, "scalar_elem": _scalar_elem,
}
# Rules of ptoas 0.27 that pypto HEAD's forms or ptokit's own lowerings break where pypto HEAD writes
# another form: an f16/bf16 Acc tile stored as such (pypto keeps the Acc in f32 and converts on the
# store); a Mat -> Mat or Acc -> Acc window written with pto.tinsert / pto.textract (pypto writes
# pto.subview + pto.tmov, which 0.27 does not have); a tprelu tmp sized by the hardware's need (pypto
# HEAD's own, refused by 0.27's same-shape rule); a tmaxs / tmins with an integer scalar (0.27 lowers only a
# float one; pypto HEAD writes the integer scalar for an integer tile); an unsigned scalar operand (0.27 takes
# signless ones; pypto HEAD gives the scalar of an unsigned tile its type); a Mat tile pushed to the other
# core (0.27 pushes Acc and Vec tiles); a trowexpandadd tmp (0.27 reads two operands); an a5 tcmp whose mask
# is packed (0.27 wants the sources' shape); an a5 fp8 Vec tile stored (0.27's store lists no fp8); an A2/A3
# mgather / mscatter / trandom (0.27: A5 only). They are enforced when the module is written for
# ptoas 0.27 (ptoas_compat="0.27"); in pypto HEAD's mode the programs still build and run
# (docs/assembler.md "Checked against ptoas 0.27" lists them). The other rules are the device's:
# always enforced.
FORM_RULES = ("acc_store", "vec_store", "a5_only", "extract", "insert", "prelu_shape", "float_scalar", "signless_scalar", "push_space", "no_tmp",
              "cmp_shape")


def check(row, roles: Roles, arch: str, compat: Optional[str] = None) -> Broken:
    """The first of ``row.verify``'s rules that the operand types break: (role, message), else None.
    The rules of every mode come first, then (with ``compat`` only) the FORM_RULES of that release: a
    program broken both ways hears the same first error in either mode."""
    ordered = [r for r in row.verify if r not in FORM_RULES] + ([r for r in row.verify if r in FORM_RULES]
                                                                 if compat is not None else [])
    for rule in ordered:
        broken = RULES[rule](row.name, roles, "a5" if arch == "a5" else "a2a3")
        if broken is not None:
            return broken
    return None


def roles_of(row, op) -> Roles:
    """The operand types of a written ``dps`` op by role (its ins(...) and outs(...) groups)."""
    groups = {c.name: c for c in op.clauses if c.kind == "group"}
    roles: Roles = {}
    for grp, operands in (("ins", row.ins), ("outs", row.outs), ("", row.ins)):   # "": a push's (%tile : T)
        if grp in groups:
            roles.update((o.role, t) for o, t in zip(operands, groups[grp].types))
    return roles


INTER_CORE_SYNC = ("pto.sync.set", "pto.sync.wait")


def function_rule(func, arch: str):
    """(op, message) of the real tool's per-function rule: on a2a3 a function that sets or waits for a
    cross-core event also sets the FFTS base (``pto.set_ffts``)."""
    if arch == "a5" or func.body is None:
        return None
    ops = list(ops_of(func.body))
    sync = next((op for op in ops if op.name in INTER_CORE_SYNC), None)
    if sync is not None and not any(op.name == "pto.set_ffts" for op in ops):
        return sync, ("A3 inter-core sync requires explicit `pto.set_ffts` in the same function when using "
                      "`pto.sync.set`/`pto.sync.wait`")
    return None


POPS = ("pto.tpop_from_aic", "pto.tpop_from_aiv")


def form_function_rule(func, arch: str, compat: Optional[str]):
    """(op, message) of a per-function rule of ptoas 0.27 that pypto HEAD's forms break: 0.27 lowers a
    ``pto.set_validshape`` only on a tile the function allocates itself, not on one popped from the other
    core (pypto HEAD sets a popped tile's run-time valid rows so)."""
    if compat is None or func.body is None:
        return None
    popped = {r.name for op in ops_of(func.body) if op.name in POPS for r in op.results}
    for op in ops_of(func.body):
        if op.name == "pto.set_validshape" and op.operands and op.operands[0].name in popped:
            return op, ("'pto.set_validshape' of a tile popped from the other core is not lowered by ptoas 0.27 "
                        "(\"set_validshape requires a locally bound tile source\")")
    return None


def violations(func, arch: str, compat: Optional[str] = None):
    """(op, role, message) for each op of a built function that breaks a rule of its row (or a
    function rule, role None)."""
    for rule in (function_rule(func, arch), form_function_rule(func, arch, compat)):
        if rule is not None:
            yield rule[0], None, rule[1]
    for op in ops_of(func.body):
        row = row_of(op)
        if row is None or not row.verify or row.form not in ("dps", "push"):
            continue
        broken = check(row, roles_of(row, op), arch, compat)
        if broken is not None:
            yield op, broken[0], broken[1]
