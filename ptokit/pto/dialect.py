"""The op table of the PTO dialect: every op a ``.pto`` module may hold, declared once.

Both sides read it: PTO codegen builds ops through ``ptokit.pto.builder``, which checks each
op against its row here, and the built-in assembler parses, checks (sema) and lowers
(emitter) by the same rows.  A ``pto.*`` row gives the op's syntactic *form*, its operands
(role and kind), the attributes it takes, the pipe that executes it and the C++ function it
lowers to; ``arith`` and ``scf`` ops have their own small tables below.

Operand kinds: ``T`` tile (``!pto.tile_buf``), ``S`` scalar, ``I`` integer or index scalar,
``G`` partition view, ``V`` tensor view, ``P`` pointer (``!pto.ptr``).

Adding an op is one row, usually through a family helper (``_binary``, ``_unary``,
``_row_reduce``, ...); see docs/adding-an-op.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from .types import LocalArrayType, PartitionViewType, PtrType, ScalarType, TensorViewType, TileBufType, VectorType


@dataclass(frozen=True)
class Operand:
    role: str                 # name used in messages ("src", "dst", "src0", "tmp", ...)
    kind: str                 # T S I G V P


@dataclass(frozen=True)
class AttrSpec:
    name: str
    kind: str                 # int | i32 | str | bool | symbol | round_mode | enum | address_space | layout
    required: bool = False
    allowed: Optional[Tuple] = None
    positive: bool = False
    prefix: str = ""          # round_mode / enum: the dialect attribute is #pto<prefix VALUE>
    dotted: bool = False      # ... or, when set, #pto.prefix<VALUE> (#pto.mask_pattern<P0101>)
    place: str = "op"         # where a writer puts it: "op" (after outs(...)) or "ins" (after the last ins operand)
    cxx: str = ""             # how it reaches C++: "" not at all, "arg" appended argument, "template" (OpSpec.template)
    cxx_values: Optional[Tuple[Tuple[object, str], ...]] = None   # value -> C++ text (default: the value as is)
    cxx_default: Optional[str] = None    # C++ text when the attribute is absent
    absent_in: Tuple[str, ...] = ()      # ptoas releases that do not know the attribute (ptoas_compat=)
    place_in: Tuple[Tuple[str, str], ...] = ()   # (release, place): where that ptoas release reads it instead


@dataclass(frozen=True)
class OpSpec:
    """One ``pto.*`` op.

    Forms (the syntax; ``%r =`` only where the op has a result):
      dps             ``pto.X ins(%a, ... : T, ...) outs(%d : T) [{attrs}]`` -> ``CXX(outs..., ins...)``
      view            ``%r = pto.X %src : T1 -> T2`` (metadata only: the result aliases the source)
      alloc           ``%t = pto.alloc_tile [addr = %a] [valid_row = %r] [valid_col = %c] : T``
      tensor_view     ``%v = pto.make_tensor_view %ptr, shape = [...], strides = [...] {layout} : T``
      partition_view  ``%p = pto.partition_view %v, offsets = [...], sizes = [...] : T1 -> T2``
      push            ``pto.X(%t : T) {split = N}``
      pop             ``%t = pto.X {split = N} -> T``
      free            ``pto.X {split = N}``
      reserve         ``%b = pto.X {name = "...", ...} -> i32``
      pipe_init       ``pto.X {dir_mask = D, slot_size = S[, slot_num = N]} (key = %v : T, ...)``
    """

    name: str
    form: str
    ins: Tuple[Operand, ...] = ()
    outs: Tuple[Operand, ...] = ()
    optional: int = 0                  # trailing ins that may be omitted (and are not passed to C++)
    attrs: Tuple[AttrSpec, ...] = ()
    pipe: Optional[str] = None         # executing pipe (--enable-insert-sync); refined per operand in the emitter
    cxx: Optional[str] = None          # C++ function (or type) of the CPU tile library it lowers to
    row_major: Tuple[str, ...] = ()    # operand roles the real assembler requires to be row_major tiles
    layout_error: str = "each"         # "each": one message per role; "all": one message naming every role
    # C++ template arguments, in order: "T:role" the operand's type, "E:role" its element type, "A:attr" an
    # attribute lowered by its cxx_values; emitted always, or only when attribute ``template_if`` is present
    template: Tuple[str, ...] = ()
    template_if: Optional[str] = None
    # one mnemonic with several operand shapes (pto.tgather's index and mask forms, ...): each variant
    # is a full ``dps`` row; readers and writers use the first whose operands match
    variants: Tuple["OpSpec", ...] = ()
    axis: Optional[str] = None         # a variant whose ins(...) types end with this string: ``: T, "row"``
    call: Tuple[str, ...] = ()         # the C++ arguments by role, when not outs then ins
    generic_if: Tuple[str, ...] = ()   # attributes that the op carries only in MLIR's generic form ("pto.x"(...))
    pass_optional: bool = False        # optional ins that are written are passed to C++ as well
    # row locality (the built-in assembler's fused runs, docs/assembler.md "Fused runs"): the tile roles
    # whose row r of the result depends only on row r of the operand (given as row chunks), and the tile
    # roles read whole by every row (a broadcast row, a tmp the CPU function ignores); empty: not fusable
    row_local: Tuple[str, ...] = ()
    row_whole: Tuple[str, ...] = ()
    # ptoas releases that do not know this op (ptoas_compat=): a writer for one of them refuses it
    absent_in: Tuple[str, ...] = ()
    # the real assembler's verifier rules on element types, spaces and shapes (pto/rules.py RULES)
    verify: Tuple[str, ...] = ()
    # estimated a2a3 device cycles (ptokit.pto.costs, docs/estimate.md); None: the op has no estimate
    cost: Optional[object] = None

    @property
    def operands(self) -> Tuple[Operand, ...]:
        return self.ins + self.outs

    def attr(self, name: str) -> Optional[AttrSpec]:
        """Attribute ``name`` of this row (of a many-form row: of whichever variant declares it)."""
        for a in self.attrs + tuple(a for v in self.variants for a in v.attrs):
            if a.name == name:
                return a
        return None

    def layout_message(self, role: str) -> str:
        """The real assembler's words when ``role`` is not a row-major tile (same reason, same text)."""
        if self.layout_error == "all":
            roles = list(self.row_major)
            joined = roles[0] if len(roles) == 1 else ", ".join(roles[:-1]) + ", and " + roles[-1]
            return f"'{self.name}' op expects {joined} to use row-major layout"
        return f"'{self.name}' op expects {role} to use the row_major blayout"


PTO_OPS: Dict[str, OpSpec] = {}


def _row(spec: OpSpec) -> None:
    if spec.name in PTO_OPS:  # pragma: no cover - a table typo, caught at import
        raise ValueError(f"duplicate dialect row {spec.name}")
    PTO_OPS[spec.name] = spec


def form_of(name: str) -> Optional[str]:
    """The syntax form of a pto op's row (None for a name the table does not have)."""
    spec = PTO_OPS.get(name)
    return spec.form if spec is not None else None


def _operands(text: str) -> Tuple[Operand, ...]:
    """``"src0:T src1:T"`` -> operands."""
    out = []
    for item in text.split():
        role, _, kind = item.partition(":")
        out.append(Operand(role, kind))
    return tuple(out)


def _dps(name: str, cxx: str, ins: str, outs: str = "dst:T", **kw) -> None:
    _row(OpSpec(name, "dps", _operands(ins), _operands(outs), cxx=cxx, pipe=kw.pop("pipe", "V"), **kw))


# ---------------------------------------------------------------- tile op families

def _binary(n: str) -> None:
    """``pto.t<n>``: element-wise on two tiles; row-major tiles only (the real assembler's rule)."""
    _dps(f"pto.t{n}", f"T{n.upper()}", "src0:T src1:T", row_major=("src0", "src1", "dst"), layout_error="all",
         row_local=("src0", "src1", "dst"))


def _scalar(n: str) -> None:
    """``pto.t<n>s``: tile and a scalar (last operand, typed); any layout."""
    _dps(f"pto.t{n}s", f"T{n.upper()}S", "src:T scalar:S", row_local=("src", "dst"))


def _unary(n: str, row_major: bool = True) -> None:
    _dps(f"pto.t{n}", f"T{n.upper()}", "src:T", row_major=("src", "dst") if row_major else (),
         row_local=("src", "dst"))


# row reductions whose tmp the real verifier checks as a row-major Vec tile (trowsum / trowmax do not)
_ROW_MAJOR_TMP = ("min", "prod")


def _row_reduce(n: str) -> None:
    """``pto.trow<n> ins(%src, %tmp) outs(%col)``; the source (and for some the tmp) must be row-major."""
    _dps(f"pto.trow{n}", f"TROW{n.upper()}", "src:T tmp:T", row_major=("src", "tmp") if n in _ROW_MAJOR_TMP else ("src",),
         row_local=("src", "dst"), row_whole=("tmp",))


def _col_reduce(n: str) -> None:
    """``pto.tcol<n> ins(%src[, %tmp]) outs(%row)``; the CPU API takes no tmp, so it is optional and dropped."""
    _dps(f"pto.tcol{n}", f"TCOL{n.upper()}", "src:T tmp:T", optional=1, row_major=("src", "dst"))


def _expand_binary(axis: str, n: str) -> None:
    """``pto.t<axis>expand<n> ins(%src, %vec) outs(%dst)``: broadcast a column (row axis) or a row."""
    _dps(f"pto.t{axis}expand{n}", f"T{axis.upper()}EXPAND{n.upper()}", "src0:T src1:T",
         row_local=("src0", "src1", "dst") if axis == "row" else ("src0", "dst"),
         row_whole=() if axis == "row" else ("src1",))


for _n in ("add", "sub", "mul", "div", "max", "min"):
    _binary(_n)
    _scalar(_n)
for _n in ("exp", "log", "sqrt", "rsqrt", "recip", "abs", "relu"):
    _unary(_n)
_unary("neg", row_major=False)
for _n in ("sum", "max", "min"):
    _row_reduce(_n)
    _col_reduce(_n)
for _n in ("add", "sub", "mul", "div", "max", "min"):
    _expand_binary("row", _n)
    _expand_binary("col", _n)
_dps("pto.trowexpand", "TROWEXPAND", "src:T", row_local=("src", "dst"))
_dps("pto.tcolexpand", "TCOLEXPAND", "src:T", row_local=("dst",), row_whole=("src",))

_ROUND_MODES = ("CAST_NONE", "CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ODD")
_dps("pto.tcvt", "TCVT", "src:T", attrs=(AttrSpec("rmode", "round_mode", allowed=_ROUND_MODES),),
     row_local=("src", "dst"))
_dps("pto.tload", "TLOAD", "src:G", pipe="MTE2")
_dps("pto.tstore", "TSTORE", "src:T", "dst:G", pipe="MTE3")
_dps("pto.tmov", "TMOV", "src:T", pipe="MTE1")
_dps("pto.tmatmul", "TMATMUL", "lhs:T rhs:T", pipe="M")
_dps("pto.tmatmul.acc", "TMATMUL_ACC", "acc:T lhs:T rhs:T", pipe="M")
_dps("pto.tmatmul.bias", "TMATMUL_BIAS", "lhs:T rhs:T bias:T", pipe="M")
# a5 MX block-scaled forms (one C++ name, overloaded as pto-isa's)
_dps("pto.tmatmul.mx", "TMATMUL_MX", "lhs:T lhs_scale:T rhs:T rhs_scale:T", pipe="M")
_dps("pto.tmatmul.mx.acc", "TMATMUL_MX", "acc:T lhs:T lhs_scale:T rhs:T rhs_scale:T", pipe="M")
_dps("pto.tmatmul.mx.bias", "TMATMUL_MX", "lhs:T lhs_scale:T rhs:T rhs_scale:T bias:T", pipe="M")
_ACC_PHASE = (AttrSpec("accPhase", "enum", allowed=("partial", "final"), prefix="acc_phase"),)
_dps("pto.tgemv", "TGEMV", "lhs:T rhs:T", pipe="M", attrs=_ACC_PHASE)
_dps("pto.tgemv.acc", "TGEMV_ACC", "acc:T lhs:T rhs:T", pipe="M", attrs=_ACC_PHASE)
_dps("pto.tgemv.bias", "TGEMV_BIAS", "lhs:T rhs:T bias:T", pipe="M", attrs=_ACC_PHASE)
_dps("pto.subview", "TEXTRACT", "src:T row:I col:I")
_dps("pto.textract", "TEXTRACT", "src:T row:I col:I")     # synonym of pto.subview
_dps("pto.tinsert", "TINSERT", "src:T row:I col:I")
_dps("pto.tconcat", "TCONCAT", "src0:T src1:T")
_dps("pto.tfillpad", "TFILLPAD", "src:T")
_row(OpSpec("pto.treshape", "view", _operands("src:T"), _operands("result:T"), cxx="TRESHAPE"))

# ================================================================ vector ops, part 2 (docs/language.md "More vector
# ops"): compare and select, bitwise and shifts, remainders, three-operand and partial arithmetic, products,
# arg-reductions, generators, and the attributes pypto gives existing ops.  Rows and row changes live here.
import dataclasses as _dataclasses  # noqa: E402


def _extend(name: str, **changes) -> None:
    """Give an existing row more: extra attributes, an optional operand (a row of this file, changed here)."""
    spec = PTO_OPS[name]
    if "attrs" in changes:
        changes["attrs"] = spec.attrs + tuple(changes["attrs"])
    PTO_OPS[name] = _dataclasses.replace(spec, **changes)


def _enum(name: str, prefix: str, values, cxx: str, place: str = "op", default: Optional[str] = None,
          cxx_of=None) -> AttrSpec:
    """``{name = #pto<prefix value>}``; ``cxx_of(value)`` is its C++ spelling (an appended argument when given)."""
    return AttrSpec(name, "enum", allowed=tuple(values), prefix=prefix, place=place, cxx=cxx,
                    cxx_values=tuple((v, cxx_of(v)) for v in values) if cxx_of else None, cxx_default=default)


CMP_MODES = ("eq", "ne", "lt", "le", "gt", "ge")       # cmp_type 0..5
_CMP = _enum("cmpMode", "cmp", CMP_MODES, "arg", place="ins", default="CmpMode::EQ",
             cxx_of=lambda m: f"CmpMode::{m.upper()}")
_dps("pto.tcmp", "TCMP", "src0:T src1:T", attrs=(_CMP,), row_major=("src0", "src1", "dst"))
_dps("pto.tcmps", "TCMPS", "src:T scalar:S", attrs=(_CMP,), row_major=("src", "dst"))
_dps("pto.tsel", "TSEL", "mask:T src0:T src1:T tmp:T", row_major=("mask", "src0", "src1", "tmp", "dst"))
_dps("pto.tsels", "TSELS", "mask:T src:T tmp:T scalar:S")

for _n in ("and", "or", "shl", "shr", "fmod", "partadd", "partmul", "partmax", "partmin"):
    _binary(_n)
for _n in ("and", "or", "shl", "shr", "fmod"):
    _scalar(_n)
_unary("not")
_dps("pto.txor", "TXOR", "src0:T src1:T tmp:T", row_major=("src0", "src1", "dst"), layout_error="all")
_dps("pto.txors", "TXORS", "src:T scalar:S tmp:T")
_dps("pto.trem", "TREM", "src0:T src1:T tmp:T", row_major=("src0", "src1", "dst"), layout_error="all")
_dps("pto.trems", "TREMS", "src:T scalar:S tmp:T")
_dps("pto.tlrelu", "TLRELU", "src:T scalar:S", row_major=("src", "dst"))
_dps("pto.tprelu", "TPRELU", "src0:T src1:T tmp:T")
for _n in ("addc", "subc"):
    _dps(f"pto.t{_n}", f"T{_n.upper()}", "src0:T src1:T src2:T")
for _n in ("addsc", "subsc"):
    _dps(f"pto.t{_n}", f"T{_n.upper()}", "src0:T scalar:S src1:T", row_major=("src0", "src1", "dst"))

_expand_binary("row", "expdif")
_expand_binary("col", "expdif")
_row_reduce("prod")
_dps("pto.tcolprod", "TCOLPROD", "src:T", row_major=("src", "dst"))
for _n in ("rowargmax", "rowargmin", "colargmax", "colargmin"):
    _dps(f"pto.t{_n}", f"T{_n.upper()}", "src:T tmp:T", row_major=("src", "tmp") if _n.startswith("row") else ("src",))

_dps("pto.texpands", "TEXPANDS", "scalar:S", row_major=("dst",))
_dps("pto.tci", "TCI", "start:S", template=("T:dst", "E:dst", "A:descending"),
     attrs=(AttrSpec("descending", "bool", cxx="template", cxx_values=((True, "1"), (False, "0")), cxx_default="0",
                     # 0.27's assembly format reads it inside ins(...) (pto.tci ins(%s {descending = true} : i32)),
                     # pypto HEAD writes it after outs(...)
                     place_in=(("0.27", "ins"),)),))
_dps("pto.ttri", "TTRI", "diagonal:S", template=("T:dst", "A:upperOrLower"), generic_if=("upperOrLower",),
     attrs=(AttrSpec("upperOrLower", "i32", required=True, allowed=(0, 1), cxx="template"),), row_major=("dst",))
_dps("pto.trandom", "TRANDOM", "key0:S key1:S counter0:S counter1:S counter2:S counter3:S", template=("A:rounds",),
     generic_if=("rounds",), attrs=(AttrSpec("rounds", "i32", allowed=(7, 10), cxx="template", cxx_default="10"),),
     row_major=("dst",))
_dps("pto.tfillpad_expand", "TFILLPAD_EXPAND", "src:T")

# pypto's round-mode names (cast(mode=...)) next to the CAST_* spellings, each lowered to its RoundMode
ROUND_MODES = ("NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD", "CAST_RINT")
PTO_OPS["pto.tcvt"] = _dataclasses.replace(PTO_OPS["pto.tcvt"], attrs=(AttrSpec(
    "rmode", "round_mode", allowed=ROUND_MODES + _ROUND_MODES, prefix="round_mode", place="ins", cxx="arg",
    cxx_values=tuple((m, f"RoundMode::{m if m.startswith('CAST_') else 'CAST_' + m}")
                     for m in ROUND_MODES + _ROUND_MODES), cxx_default="RoundMode::CAST_RINT"),))
for _n, _prefix in (("div", "div_precision"), ("log", "log_precision"), ("recip", "recip_precision")):
    _extend(f"pto.t{_n}", attrs=(_enum("precisionType", _prefix, ("high_precision",), ""),))
_extend("pto.trsqrt", ins=_operands("src:T tmp:T"), optional=1, pass_optional=True)
_extend("pto.trowexpandadd", ins=_operands("src0:T src1:T tmp:T"), optional=1, pass_optional=True)
_extend("pto.tcolsum", pass_optional=True,
        attrs=(AttrSpec("isBinary", "bool", place="ins", cxx="arg", cxx_values=((True, "true"), (False, "false"))),))
_extend("pto.tstore", template=("T:src", "T:dst", "A:atomicType"), template_if="atomicType",
        attrs=(_enum("atomicType", "atomic_type", ("atomic_none", "atomic_add"), "template",
                     cxx_of=lambda v: "AtomicType::AtomicAdd" if v == "atomic_add" else "AtomicType::AtomicNone"),))
# ================================================================ end of vector ops, part 2

# ---------------------------------------------------------------- tiles and views
_row(OpSpec("pto.alloc_tile", "alloc", _operands("addr:I valid_row:I valid_col:I"), _operands("tile:T"),
            cxx="TASSIGN"))
_row(OpSpec("pto.make_tensor_view", "tensor_view", _operands("ptr:P"), _operands("view:V"),
            attrs=(AttrSpec("layout", "layout", allowed=("nd", "dn", "nz", "mx_a_zz", "mx_b_nn")),)))
_row(OpSpec("pto.partition_view", "partition_view", _operands("view:V"), _operands("part:G"),
            cxx="GlobalTensor"))

# ---------------------------------------------------------------- cross-core FIFO (docs/mixed-kernels.md)
_SPLIT = (AttrSpec("id", "int"), AttrSpec("split", "int", required=True, allowed=(0, 1, 2)))
for _side, _peer in (("aiv", "aic"), ("aic", "aiv")):
    _row(OpSpec(f"pto.tpush_to_{_side}", "push", _operands("tile:T"), attrs=_SPLIT, cxx="TPUSH",
                verify=("push_space",)))
    _row(OpSpec(f"pto.tpop_from_{_peer}", "pop", (), _operands("tile:T"), attrs=_SPLIT, cxx="TPOP"))
    _row(OpSpec(f"pto.tfree_from_{_peer}", "free", attrs=_SPLIT, cxx="TFREE"))
    _row(OpSpec(f"pto.{_side}_initialize_pipe", "pipe_init",
                _operands("gm_slot_buffer:P c2v_consumer_buf:I v2c_consumer_buf:I"),
                attrs=(AttrSpec("id", "int"), AttrSpec("dir_mask", "int", required=True, allowed=(1, 2, 3)),
                       AttrSpec("slot_size", "int", required=True, positive=True),
                       AttrSpec("slot_num", "int", positive=True), AttrSpec("local_slot_num", "int", positive=True)),
                cxx="TPipe"))
_row(OpSpec("pto.reserve_buffer", "reserve", outs=_operands("base:I"),
            attrs=(AttrSpec("name", "str", required=True), AttrSpec("size", "int", required=True, positive=True),
                   AttrSpec("location", "address_space", allowed=("vec", "mat")), AttrSpec("auto", "bool"),
                   AttrSpec("base", "int"))))
_row(OpSpec("pto.import_reserved_buffer", "reserve", outs=_operands("base:I"),
            attrs=(AttrSpec("name", "str", required=True), AttrSpec("peer_func", "symbol", required=True))))

FIFO_FORMS = ("push", "pop", "free", "reserve", "pipe_init")

# ---------------------------------------------------------------- cross-core events and barriers (pto/events.py)
_row(OpSpec("pto.sync.set", "event", attrs=(AttrSpec("ffts_mode", "int", allowed=(0, 1, 2)),), cxx="SYNC_SET"))
_row(OpSpec("pto.sync.wait", "event", cxx="SYNC_WAIT"))
_row(OpSpec("pto.set_ffts", "event", cxx="SET_FFTS"))
_row(OpSpec("pto.syncall", "event", cxx="SYNCALL"))

# ---------------------------------------------------------------- asynchronous GM -> L2 prefetch (pto/prefetch.py;
# C++ in pto/cpu/prefetch.hpp): the context is a C++ object made over the SDMA workspace, the session its member
_row(OpSpec("pto.make_prefetch_async_context", "prefetch", cxx="PrefetchAsyncContext"))
_row(OpSpec("pto.tprefetch_async", "prefetch", cxx="TPREFETCH_ASYNC", pipe="MTE2"))
_row(OpSpec("pto.get_prefetch_async_session", "prefetch", cxx="GET_PREFETCH_ASYNC_SESSION"))
_row(OpSpec("pto.comm.wait_async_event", "prefetch", cxx="TWAIT_ASYNC_EVENT", pipe="S"))

# ------------------------------------------------------- section C vector ops: views, gathers/scatters, sorting
# (docs/language.md "Views and layouts", "Gathers and scatters", "Sorting"; C++ in pto/cpu/ops_view.hpp,
# ops_gather.hpp, ops_sort.hpp)
_dps("pto.ttrans", "TTRANS", "src:T tmp:T", row_major=("src", "tmp", "dst"))
# ``pto.set_validshape %t, %vr, %vc : T``: the tile's valid region changes in place (a member call in C++)
_row(OpSpec("pto.set_validshape", "plain", _operands("tile:T valid_row:I valid_col:I"), cxx=".SetValidShape"))

# one element of a tile or a tensor (pl.read / pl.write in kernel code; C++ in pto/cpu/ops_scalar.hpp):
#   %r = pto.tgetval ins(%src, %index : T, index) outs : E          flat row-major offset over rows x cols
#   pto.tsetval ins(%index, %value : index, E) outs(%dst : T)
#   %r = pto.load_scalar %ptr[%index] : !pto.ptr<E> -> E             element offset from the tensor's base
#   pto.store_scalar %value, %ptr[%index] : !pto.ptr<E>, E
_row(OpSpec("pto.tgetval", "getval", _operands("src:T index:I"), _operands("result:S"), cxx="TGETVAL", pipe="S"))
_dps("pto.tsetval", "TSETVAL", "index:I value:S", pipe="S")
_row(OpSpec("pto.load_scalar", "load_scalar", _operands("ptr:P index:I"), _operands("result:S"), cxx="LOAD_SCALAR",
            pipe="S"))
_row(OpSpec("pto.store_scalar", "store_scalar", _operands("value:S ptr:P index:I"), cxx="STORE_SCALAR", pipe="S"))
# a small array on the core's stack (pl.array in kernel code; C++ ``T a[N] = {}``, indices checked):
#   %a = pto.declare_local_array -> !pto.local_array<NxT>
#   %v = pto.local_array_get %a[%i] : !pto.local_array<NxT> -> T
#   pto.local_array_set %a[%i], %v : !pto.local_array<NxT>, T
_row(OpSpec("pto.declare_local_array", "array_declare", outs=_operands("array:A"), pipe="S"))
_row(OpSpec("pto.local_array_get", "array_get", _operands("array:A index:I"), _operands("result:S"),
            cxx="LOCAL_ARRAY_SLOT", pipe="S"))
_row(OpSpec("pto.local_array_set", "array_set", _operands("array:A index:I value:S"), cxx="LOCAL_ARRAY_SLOT",
            pipe="S"))
ELEMENT_FORMS = ("getval", "load_scalar", "store_scalar", "array_declare", "array_get", "array_set")

# distributed programs (pld in kernel code; C++ in pto/cpu/comm_dsl.hpp). The CommContext is a
# !pto.ptr<i64> parameter per window, read with pto.load_scalar (pypto HEAD's form: rank and nranks are the
# two halves of slot 2, a peer's copy of a window is pto.addptr by windowsIn[peer] - windowsIn[rank]);
#   %r = pto.addptr %ptr, %offset : !pto.ptr<T> -> !pto.ptr<T>            offset in elements (index)
#   pto.X %a, %b, ... : T1, T2, ...                                         the call form (signals)
_row(OpSpec("pto.addptr", "addptr", _operands("ptr:P offset:I"), _operands("result:P"), cxx="PTO_ADDPTR", pipe="S"))
_row(OpSpec("pto.comm.tnotify", "call", _operands("signal:P value:I op:I"), cxx="PTO_COMM_NOTIFY", pipe="S"))
_row(OpSpec("pto.comm.twait", "call", _operands("signal:P expected:I cmp:I"), cxx="PTO_COMM_WAIT", pipe="S"))
CALL_FORMS = ("call", "addptr")

_MASKS = ("P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111")
# #pto.mask_pattern<P0101>, written inside ins(...) after the source: ins(%src, {maskPattern = ...} : T, "row")
_MASK = AttrSpec("maskPattern", "enum", required=True, allowed=_MASKS, prefix="mask_pattern", dotted=True,
                 place="ins", cxx="template",
                 cxx_values=tuple((m, f"MaskPattern::{m}") for m in _MASKS))


def _variant(name: str, cxx: str, ins: str, outs: str = "dst:T", **kw) -> OpSpec:
    return OpSpec(name, "dps", _operands(ins), _operands(outs), cxx=cxx, pipe=kw.pop("pipe", "V"), **kw)


def _variants(name: str, *variants: OpSpec, pipe: str = "V") -> None:
    _row(OpSpec(name, "dps", variants[0].ins, variants[0].outs, cxx=variants[0].cxx, pipe=pipe, variants=variants))


# the mask forms with their "row" axis are pypto HEAD's: 0.27 reads no axis after the type (and has no
# mask form of pto.tscatter)
_variants("pto.tgather",
          _variant("pto.tgather", "TGATHER", "src:T indices:T tmp:T", row_major=("src", "indices", "dst")),
          _variant("pto.tgather", "TGATHER", "src:T", attrs=(_MASK,), axis="row", row_major=("src", "dst"),
                   template=("T:dst", "T:src", "A:maskPattern"), absent_in=("0.27",)))
_variants("pto.tscatter",
          _variant("pto.tscatter", "TSCATTER", "src:T indexes:T", row_major=("src", "indexes", "dst")),
          _variant("pto.tscatter", "TSCATTER", "src:T", attrs=(_MASK,), axis="row", row_major=("src", "dst"),
                   template=("A:maskPattern",), absent_in=("0.27",)))
_dps("pto.tgatherb", "TGATHERB", "src:T offset:T", row_major=("src", "offset", "dst"))
_dps("pto.mgather", "MGATHER", "src:G indices:T", pipe="MTE2", template=("A:coalesce", "A:gatherOob"),
     attrs=(AttrSpec("coalesce", "enum", required=True, allowed=("row", "elem"), prefix="coalesce", cxx="template",
                     cxx_values=(("row", "Coalesce::Row"), ("elem", "Coalesce::Elem"))),
            AttrSpec("gatherOob", "enum", allowed=("undefined", "clamp", "wrap", "zero"), prefix="gather_oob",
                     cxx="template", cxx_default="GatherOOB::Undefined",
                     cxx_values=(("undefined", "GatherOOB::Undefined"), ("clamp", "GatherOOB::Clamp"),
                                 ("wrap", "GatherOOB::Wrap"), ("zero", "GatherOOB::Zero")))))
_dps("pto.mscatter", "MSCATTER", "src:T indices:T", "dst:G", pipe="MTE3")
_dps("pto.tsort32", "TSORT32", "src:T idx:T tmp:T", optional=1, row_major=("src", "idx", "dst"))
# format 2: {exhausted} after tmp inside ins(...); the executed counts are a vector<4xi16> out
_EXHAUSTED = AttrSpec("exhausted", "bool", place="ins", cxx="template", cxx_values=((True, "true"), (False, "false")),
                      cxx_default="false")


def _format2(srcs: int) -> OpSpec:
    roles = [f"src{k}" for k in range(srcs)]
    return _variant("pto.tmrgsort", "TMRGSORT", " ".join(f"{r}:T" for r in roles) + " tmp:T", "dst:T executed:E",
                    attrs=(_EXHAUSTED,), template=tuple(f"T:{r}" for r in ["dst", "tmp"] + roles) + ("A:exhausted",),
                    call=("dst", "executed", "tmp", *roles))


_variants("pto.tmrgsort", _variant("pto.tmrgsort", "TMRGSORT", "src:T block_len:I", row_major=("src", "dst")),
          _format2(2), _format2(3), _format2(4))
# ---------------------------------------------------------------- end of section C vector ops

# ---------------------------------------------------------------- estimated device cost (docs/estimate.md)
# One cost per row, a2a3 numbers (ptokit.pto.costs): a vector intrinsic's start-up (head + tail) and cycles per
# 256-byte repeat, from the vendor's per-intrinsic cost model; its fitted per-shape table where it has one.
from . import costs as _c  # noqa: E402

_VENDOR = "pto-isa a2a3 intrinsic costs"


def _cost(names: str, cost) -> None:
    for name in names.split():
        PTO_OPS[name] = _dataclasses.replace(PTO_OPS[name], cost=cost)


_cost("pto.tadd", _c.Repeat(24, 2, floor=16, source=_VENDOR + " (vadd)"))
_cost("pto.tsub", _c.Repeat(24, 2, floor=16, fitted="TSUB", source=_VENDOR + " (vsub), fitted TSUB"))
_cost("pto.tmul", _c.Repeat(25, 2, floor=16, fitted="TMUL", source=_VENDOR + " (vmul), fitted TMUL"))
_cost("pto.tdiv", _c.Repeat(30, 4, floor=16, source=_VENDOR + " (vdiv)"))
_cost("pto.tmax pto.tmin", _c.Repeat(24, 2, floor=16, source=_VENDOR + " (vmax, vmin)"))
_cost("pto.tand pto.tor", _c.Repeat(20, 2, floor=16, source=_VENDOR + " (vand, vor)"))
_cost("pto.tshl pto.tshr", _c.Repeat(6, 2, source=_VENDOR + " (vshl, vshr: default intrinsic cost)"))
_cost("pto.tadds pto.tsubs", _c.Repeat(31, 1, fitted="TADDS", source=_VENDOR + " (vadds), fitted TADDS"))
_cost("pto.tmuls", _c.Repeat(26, 1, fitted="TMULS", source=_VENDOR + " (vmuls), fitted TMULS"))
_cost("pto.tdivs", _c.Repeat(30, 4, floor=16, fitted="TDIVS", source=_VENDOR + " (vdiv), fitted TDIVS"))
_cost("pto.tmaxs", _c.Repeat(23, 1, source=_VENDOR + " (vmaxs)"))
_cost("pto.tmins", _c.Repeat(30, 1, fitted="TMINS", source=_VENDOR + " (vmins), fitted TMINS"))
_cost("pto.tlrelu", _c.Repeat(26, 1, source=_VENDOR + " (vlrelu)"))
_cost("pto.tneg", _c.Repeat(26, 1, source=_VENDOR + " (vmuls by -1)"))
_cost("pto.texp", _c.Repeat(31, 2, shape="unary", source=_VENDOR + " (vexp)"))
_cost("pto.tlog", _c.Repeat(33, 2, shape="unary", source=_VENDOR + " (vln)"))
_cost("pto.tsqrt", _c.Repeat(39, 2, shape="unary", source=_VENDOR + " (vsqrt)"))
_cost("pto.trsqrt", _c.Repeat(24, 1, shape="unary", source=_VENDOR + " (vrsqrt)"))
_cost("pto.tabs", _c.Repeat(29, 1, shape="unary", source=_VENDOR + " (vabs)"))
_cost("pto.trelu", _c.Repeat(23, 1, shape="unary", source=_VENDOR + " (vrelu)"))
_cost("pto.tnot", _c.Repeat(20, 2, shape="unary", source=_VENDOR + " (vnot)"))
_cost("pto.tcvt", _c.Repeat(29, 1, shape="unary", wide=True,
                            source="fitted to the vendor's measured TCVT figures (f32<->f16)"))
_cost("pto.texpands", _c.Repeat(24, 1, shape="unary", source=_VENDOR + " (vector_dup)"))
_cost("pto.tcmp pto.tcmps", _c.Repeat(36, 2, source=_VENDOR + " (vcmpv ge/ne, for every mode)"))
_cost("pto.tsel", _c.Repeat(27, 2, source=_VENDOR + " (vsel)"))
_cost("pto.ttrans", _c.Repeat(6, 2, shape="bytes", operand="src", source=_VENDOR + " (scatter_vnchwconv)"))
_ROW_REDUCE = {"sum": "TROWSUM", "max": "TROWMAX", "min": None}
for _n, _key in _ROW_REDUCE.items():
    _cost(f"pto.trow{_n}", _c.Repeat(46, 7, shape="rows", operand="src", fitted=_key, interpolate=True,
                                     source=_VENDOR + " (vcadd)" + (f", fitted {_key}" if _key else "")))
for _n, _key in (("sum", "TCOLSUM"), ("max", "TCOLMAX"), ("min", None)):
    _cost(f"pto.tcol{_n}", _c.Repeat(24, 2, shape="cols", operand="src", fitted=_key, interpolate=True,
                                     source=_VENDOR + " (vadd/vmax per row)" + (f", fitted {_key}" if _key else "")))
_ROWEXPAND = _c.Repeat(24, 1, shape="unary", fitted="TROWEXPAND", interpolate=True,
                       source=_VENDOR + " (vector_dup), fitted TROWEXPAND")
_cost("pto.trowexpand", _ROWEXPAND)
_cost("pto.tcolexpand", _c.Repeat(24, 1, shape="rows", source=_VENDOR + " (vcopy per row)"))
for _n, _bin in (("add", "pto.tadd"), ("sub", "pto.tsub"), ("mul", "pto.tmul"), ("div", "pto.tdiv"),
                 ("max", "pto.tmax"), ("min", "pto.tmin")):
    _cost(f"pto.trowexpand{_n}", _c.Composite((_ROWEXPAND, PTO_OPS[_bin].cost),
                                             source="trowexpand then " + _bin[4:]))
    _cost(f"pto.tcolexpand{_n}", _c.Composite((PTO_OPS["pto.tcolexpand"].cost, PTO_OPS[_bin].cost),
                                             source="tcolexpand then " + _bin[4:]))
# ops the a2a3 tile library implements as a sequence of the ops above, each over the destination's shape
# (pto-isa include/pto/npu/a2a3: TBitwiseSOp.hpp, TXor.hpp, TPrelu.hpp): the sum of their costs


def _sequence(names: str, source: str):
    return _c.Composite(tuple(PTO_OPS[n].cost for n in names.split()), source=source)


_cost("pto.tshls", _c.Repeat(6, 2, source=_VENDOR + " (vshl by a scalar: default intrinsic cost)"))
_cost("pto.tshrs", _c.Repeat(6, 2, source=_VENDOR + " (vshr by a scalar: default intrinsic cost)"))
_cost("pto.tands", _sequence("pto.texpands pto.tand", "a2a3 TANDS: texpands then tand"))
_cost("pto.tors", _sequence("pto.texpands pto.tor", "a2a3 TORS: texpands then tor"))
_cost("pto.txor", _sequence("pto.tor pto.tand pto.tnot pto.tand", "a2a3 TXOR: tor, tand, tnot, tand"))
_cost("pto.txors", _sequence("pto.texpands pto.tor pto.texpands pto.tand pto.tnot pto.tand",
                             "a2a3 TXORS: tors, tands, tnot, tand"))
_cost("pto.tprelu", _sequence("pto.tmul pto.tcmps pto.tsel", "a2a3 TPRELU: tmul, tcmps, tsel"))
_cost("pto.tload", _c.Transfer(source="fitted to the vendor's measured TLOAD figures (GM->UB); vendor bandwidths"))
_cost("pto.tstore pto.tmov pto.textract pto.subview", _c.Transfer(source="vendor bandwidths per memory path"))
_cost("pto.tmatmul pto.tmatmul.acc pto.tmatmul.bias pto.tgemv pto.tgemv.acc pto.tgemv.bias",
      _c.Mad(source=_VENDOR + " (mad)"))
_cost("pto.tsetval", _c.Fixed(1, source=_VENDOR + " (scalar: 1 cycle)"))


def cost_of(name: str):
    """The estimated-cost entry of a ``pto.*`` op's row (None: no estimate)."""
    spec = PTO_OPS.get(name)
    return spec.cost if spec is not None else None


# ---------------------------------------------------------------- arith (C++: operators)
ARITH_INT_BINARY = {
    "arith.addi": "+", "arith.subi": "-", "arith.muli": "*", "arith.divsi": "/", "arith.divui": "/",
    "arith.remsi": "%", "arith.remui": "%", "arith.andi": "&", "arith.ori": "|", "arith.xori": "^",
    "arith.shli": "<<", "arith.shrsi": ">>", "arith.shrui": ">>",
    "arith.floordivsi": "floordiv", "arith.ceildivsi": "ceildiv",
    "arith.maxsi": "max", "arith.minsi": "min", "arith.maxui": "max", "arith.minui": "min",
}
ARITH_FLOAT_BINARY = {
    "arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/",
    "arith.maximumf": "max", "arith.minimumf": "min", "arith.maxnumf": "max", "arith.minnumf": "min",
}
ARITH_UNARY = {"arith.negf": "-"}
# scalar conversions, all written `%r = OP %a : T1 to T2`; MLIR's builtin.unrealized_conversion_cast is how
# an unsigned constant is written (arith.constant takes only signless integers: `%c = arith.constant 3 : i32`
# then `%u = builtin.unrealized_conversion_cast %c : i32 to ui32`, as pypto does)
UNSIGNED_BRIDGE = "builtin.unrealized_conversion_cast"
ARITH_CASTS = {
    "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci",
    "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf",
    UNSIGNED_BRIDGE,
}
CMPI_PREDS = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
              "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}
CMPF_PREDS = {"oeq": "==", "one": "!=", "olt": "<", "ole": "<=", "ogt": ">", "oge": ">=",
              "ueq": "==", "une": "!=", "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}

ARITH_OPS = (set(ARITH_INT_BINARY) | set(ARITH_FLOAT_BINARY) | set(ARITH_UNARY) | ARITH_CASTS
             | {"arith.constant", "arith.cmpi", "arith.cmpf", "arith.select"})
SCF_OPS = {"scf.for", "scf.if", "scf.while", "scf.condition", "scf.yield"}
RETURN_OPS = {"return", "func.return"}

KNOWN_OPS = set(PTO_OPS) | ARITH_OPS | SCF_OPS | RETURN_OPS


# ---------------------------------------------------------------- the real verifier's rules (pto/rules.py)
for _name, _rules in (("pto.tstore", ("acc_store", "vec_store")), ("pto.textract", ("extract",)), ("pto.subview", ("extract",)),
                      ("pto.tinsert", ("insert",)), ("pto.tprelu", ("prelu_tmp", "prelu_shape")), ("pto.tmaxs", ("scalar_minmax", "float_scalar")),
                      ("pto.tmins", ("scalar_minmax", "float_scalar")), ("pto.texpands", ("expands",)),
                      ("pto.trowexpandadd", ("no_tmp",)), ("pto.tcmp", ("cmp_shape",)),
                      ("pto.trems", ("scalar_elem",)), ("pto.tfmods", ("scalar_elem",)),
                      ("pto.mscatter", ("a5_only",)), ("pto.mgather", ("a5_only",)),
                      ("pto.trandom", ("a5_only",))):
    _extend(_name, verify=_rules)
from .element_types import ELEMENT_TYPES as _ELEMENT_TYPES  # noqa: E402

for _name, _spec in list(PTO_OPS.items()):       # 0.27 takes signless scalars only (a form rule, rules.FORM_RULES)
    if _spec.form == "dps" and any(o.role == "scalar" and o.kind == "S" for o in _spec.ins):
        _extend(_name, verify=_spec.verify + ("signless_scalar",))
for _name in _ELEMENT_TYPES:
    if _name in PTO_OPS:
        _extend(_name, verify=PTO_OPS[_name].verify + ("element_types",))
PTO_OPS["pto.tgather"] = _dataclasses.replace(PTO_OPS["pto.tgather"], variants=tuple(
    _dataclasses.replace(v, verify=("gather_index",)) if any(o.role == "indices" for o in v.ins) else v
    for v in PTO_OPS["pto.tgather"].variants))

# ---------------------------------------------------------------- ops newer than a ptoas release
# ptoas 0.27 (its PTOOps.td) has none of these: pypto HEAD's distributed, prefetch, local-array and
# all-core barrier ops, and pto.subview (0.27 spells the tile window pto.textract)
for _name in ("pto.comm.tnotify", "pto.comm.twait",
              "pto.comm.wait_async_event", "pto.declare_local_array", "pto.local_array_get", "pto.local_array_set",
              "pto.make_prefetch_async_context", "pto.get_prefetch_async_session", "pto.tprefetch_async",
              "pto.syncall", "pto.subview",
              # 0.27's pto.set_ffts takes a memref; pypto HEAD (and ptokit) write the workspace as a !pto.ptr<i64>
              "pto.set_ffts"):
    _extend(_name, absent_in=("0.27",))


def _attr_absent(name: str, attr: str, release: str) -> None:
    spec = PTO_OPS[name]

    def mark(a: AttrSpec) -> AttrSpec:
        return _dataclasses.replace(a, absent_in=a.absent_in + (release,)) if a.name == attr else a
    PTO_OPS[name] = _dataclasses.replace(spec, attrs=tuple(map(mark, spec.attrs)),
                                         variants=tuple(_dataclasses.replace(v, attrs=tuple(map(mark, v.attrs)))
                                                        for v in spec.variants))


# attributes pypto HEAD writes that 0.27 cannot parse (its dialect has no such enum)
for _name, _attr in (("pto.tgemv", "accPhase"), ("pto.tgemv.acc", "accPhase"), ("pto.tgemv.bias", "accPhase"),
                     ("pto.tdiv", "precisionType"), ("pto.tlog", "precisionType"), ("pto.trecip", "precisionType"),
                     ("pto.mgather", "coalesce"), ("pto.mgather", "gatherOob")):
    _attr_absent(_name, _attr, "0.27")
# hand-written pipes (pypto HEAD): 0.27's pipe ops read {dir_mask, slot_size[, nosplit]} and {split} only,
# one pipe per function with the slot counts it picks itself ("expected 'dir_mask'" at an id)
for _side, _peer in (("aiv", "aic"), ("aic", "aiv")):
    for _attr in ("id", "slot_num", "local_slot_num"):
        _attr_absent(f"pto.{_side}_initialize_pipe", _attr, "0.27")
    for _name in (f"pto.tpush_to_{_side}", f"pto.tpop_from_{_peer}", f"pto.tfree_from_{_peer}"):
        _attr_absent(_name, "id", "0.27")


def spec(name: str) -> OpSpec:
    """The row of a ``pto.*`` op (KeyError for an op that is not in the dialect)."""
    return PTO_OPS[name]


# ---------------------------------------------------------------- operand kinds

_KIND_NAMES = {"T": "a tile (!pto.tile_buf)", "G": "a partition view", "S": "a scalar", "I": "an index",
               "V": "a tensor view", "P": "a pointer (!pto.ptr)", "E": "a vector<4xi16> (executed counts)",
               "A": "a local array (!pto.local_array)"}


def accepts(kind: str, ty) -> bool:
    """Whether a value of type ``ty`` may stand where the table says ``kind``."""
    return {
        "T": isinstance(ty, TileBufType),
        "G": isinstance(ty, PartitionViewType),
        "V": isinstance(ty, TensorViewType),
        "P": isinstance(ty, PtrType),
        "S": isinstance(ty, ScalarType),
        "I": isinstance(ty, ScalarType) and ty.is_int,
        "E": isinstance(ty, VectorType) and ty.shape == (4,) and ty.elem == "i16",
        "A": isinstance(ty, LocalArrayType),
    }[kind]


CHECKED_KINDS = ("int", "i32", "str", "round_mode", "enum")   # kinds whose values are checked against allowed


def attr_word(a: AttrSpec, attr) -> object:
    """The value of a written attribute as its row's ``allowed`` and ``cxx_values`` spell it: the last word of
    ``#pto<prefix WORD>`` (or ``#pto.prefix<WORD>``) for round_mode / enum attributes, the Python value otherwise."""
    v = attr.value
    if a.kind in ("round_mode", "enum"):
        return v[1].split()[-1] if isinstance(v, tuple) and v[1] else None
    return v


def attr_parts(a: AttrSpec, word: str) -> Tuple[str, str]:
    """The (dialect, body) of round_mode / enum attribute ``a`` with value ``word``: ``#dialect<body>``."""
    return (f"pto.{a.prefix}", str(word)) if a.dotted else ("pto", f"{a.prefix} {word}")


def variant(spec: OpSpec, ins, outs, axis: Optional[str]) -> Optional[OpSpec]:
    """The row of ``spec`` (itself or one of its variants) whose operands fit the given types."""
    for v in spec.variants or (spec,):
        lo = len(v.ins) - v.optional
        if not (lo <= len(ins) <= len(v.ins) and len(outs) == len(v.outs) and axis == v.axis):
            continue
        if all(accepts(o.kind, t) for o, t in list(zip(v.ins, ins)) + list(zip(v.outs, outs))):
            return v
    return None


def kind_name(kind: str) -> str:
    return _KIND_NAMES[kind]
