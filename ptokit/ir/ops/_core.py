"""The op table's vocabulary: ``Param``, ``OpDef``, the registry and shared rule helpers.

An op is declared once, as data: its DSL parameters (pypto's names, defaults and how the front
end reads each argument), its attributes, its type rule, the dialect op it lowers to, and traits
the passes ask about.  Family modules (``elementwise``, ``reduce``, ``memory``, ...) declare ops
through small helpers; the front end, the jit, memory planning, classification, codegen and the
docs read ``OPS``.  No other module lists op names.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Optional, Tuple

from ..types import DType, MemorySpace, TileType, TupleType, fmt_shape


class OpTypeError(Exception):
    """A type rule failed; the front end turns it into a located CompileError.

    ``param`` names the DSL parameter at fault (the error is then located at that argument);
    without it the error points at the whole call."""

    def __init__(self, message: str, param: Optional[str] = None):
        super().__init__(message)
        self.param = param


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()


@dataclass(frozen=True)
class Scratch:
    """A parameter default: a scratch tile the front end makes when the argument is omitted,
    shaped like operand ``like`` (``pl.row_sum(t)`` without ``tmp_tile``), or of the type
    ``make(arg_types, attrs)`` gives (None: the call needs none; mrgsort's ``tmp``).
    ``tensor_level_only``: made only for a tensor-level call (pypto: ``pl.row_prod(tensor)`` omits
    it, ``pl.row_prod(tile, tmp)`` must pass it)."""

    like: str = ""
    make: Optional[Callable] = None
    tensor_level_only: bool = False

    def __repr__(self) -> str:
        return "<scratch>"

# How the front end reads an argument (language/binding.py implements each kind).
# Operand kinds become the op's IR arguments, in parameter order; the others become attributes.
OPERAND_KINDS = frozenset({
    "tile",        # an expression whose value is a tile (or, where the op allows it, a tensor)
    "tensor",      # an expression whose value is a tensor
    "scalar",      # a scalar expression; constants take the element kind of the op's tile operand
    "index",       # an integer scalar expression (a position or a count); constants stay integers
    "offsets",     # a list of integer expressions -> ListExpr (typed as a TupleType of its items)
    "array",       # an expression whose value is a pl.array
    "deps",        # a list of task ids and TASK_ID arrays (None entries dropped) -> ListExpr
})
ATTR_KINDS = frozenset({
    "shape",       # a list of compile-time positive ints
    "dims",        # a list of ints or dynamic dimension names (tensor shapes)
    "valid",       # a list of ints or integer scalar expressions (valid shapes)
    "dtype", "memory", "pad",   # constants of those enums
    "int", "bool", "str",       # compile-time constants
    "mode",        # a rounding-mode constant (string)
    "mask_pattern",  # a pl.tile.MaskPattern constant (or its integer code 1..7)
    "choice",      # one of the parameter's ``choices`` strings, or its index in them (pypto's int form)
    "dim",         # an int or an integer scalar expression; the ``dim`` parameters sharing one attribute
                   # key form a tuple in parameter order (set_validshape's valid_rows, valid_cols -> "valid")
    "layout",      # a pl.TileLayout constant
    "atomic",      # a pl.AtomicType constant
})


@dataclass(frozen=True)
class Param:
    """One DSL parameter.  ``attr`` is the IR attribute key (default: the parameter's name);
    ``aliases`` are other keyword spellings accepted for it (pypto spells some parameters
    differently between ``pl.x`` and ``pl.tile.x``)."""

    name: str
    kind: str
    default: object = REQUIRED
    attr: Optional[str] = None
    aliases: Tuple[str, ...] = ()
    keyword_only: bool = False
    static_attr: Optional[str] = None   # offsets / index: also record the constant value(s) under this attribute
    space: Optional[MemorySpace] = None  # tile operands: where a tensor (or Mat tile) argument is brought
                                         # in tensor-level kernel code (default Vec; cube operands Left/Right)
    choices: Optional[Tuple[str, ...]] = None   # kind "choice": the allowed strings (attribute = the string)
    # written as a keyword, the positional arguments skip it: pypto's scatter_update(input, dim, index, src)
    # is also scatter_update(input, index, src, dim=-2)
    skipped_when_keyword: bool = False
    # a cube operand: the bool attribute (pl.matmul's a_trans / b_trans) asking for the transpose of a
    # tensor argument; the front end consumes it there (loads, transpose_view, moves to ``space``)
    transposed_by: Optional[str] = None

    def __post_init__(self):
        if self.kind not in OPERAND_KINDS | ATTR_KINDS:
            raise ValueError(f"unknown parameter kind {self.kind!r} of {self.name!r}")
        if (self.kind == "choice") != (self.choices is not None):
            raise ValueError(f"parameter {self.name!r}: choices= goes with kind 'choice'")

    @property
    def is_operand(self) -> bool:
        return self.kind in OPERAND_KINDS

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def scratch(self) -> Optional[Scratch]:
        return self.default if isinstance(self.default, Scratch) else None

    @property
    def key(self) -> str:
        return self.attr or self.name


# Traits the passes and the front end ask about.
TRAITS = frozenset({
    "elementwise",   # per element over same-shaped tiles: may reuse a dying operand's buffer, and
                     # accepts whole tensors in tensor-level kernel code
    "float_only",    # needs a floating-point tile
    "cube",          # runs on the cube unit (the kernel is AIC or mixed)
    "fifo",          # a cross-core FIFO end (see OpDef.fifo)
    "orchestration", # allowed in orchestration code (creates or views tensors)
    "allocates",     # a new tensor the runtime allocates (and zero-fills) where the call stands
    "kernel_only",   # refused in orchestration code with a located error naming the kernel (pl.prefetch)
    "shares_operand0",  # the result lives in operand 0's storage (in-place update or a view)
    "spmd",          # reads the SPMD identity of the running block
    "scalar",        # scalar arithmetic (operands and result are scalars)
    "accepts_acc",   # takes an Acc tile as it is (a store to GM, a cast): no Acc->Vec hand-over first
    "positional",    # depends on positions in the whole tile: not on a split vector lane (ops/lanes.py)
    "batched",       # cube: a rank > 2 tensor operand in kernel code makes it one 2-D call per batch index
    "orchestration_only",  # task-graph values and host access (task ids, pl.read of a tensor): not in kernels
    "clamp",         # a tensor window with clamp=: the front end cuts its valid region to the tensor
    "mask_result",   # a packed-mask result: on tensor operands in kernel code it becomes 1/0 values (sels)
    "writes_operand0",  # a statement op that writes its tensor operand 0 (pld.tensor.get's dst)
    "writes_operand1",  # writes (and returns) its tensor operand 1, not the others (allgather's target)
    "a5_only",       # exists on the a5 chip family only (the MX matmul): a located error elsewhere
    "view",          # a window of its tensor operand 0: reads and writes nothing itself, its user does
    "nd_batched",    # of N-D tile operands: one 2-D call per batch index (FlattenTileNdTo2D)
    "nd_rebuilt",    # gives an N-D Mat tile that FlattenTileNdTo2D makes again per batch (load, transpose_view)
    "nd_swap",       # swaps the last two axes of an N-D tile: per batch (FlattenTileNdTo2D)
    "matmul",        # a 2-D [M, K] (Left) @ [K, N] (Right) product into Acc, plain, accumulating (operand 0
                     # the accumulator) or biased (a Bias operand): AutoTileMatmulL0 computes it in L0 tiles
})


@dataclass(frozen=True)
class OpDef:
    name: str                       # IR op name (and the DSL name unless ``dsl`` differs)
    params: Tuple[Param, ...]
    rule: Callable                  # (arg_types, attrs) -> result type; raises OpTypeError
    pto: Optional[str] = None       # dialect mnemonic it lowers to (None: lowered specially)
    form: str = "generic"           # how PTO codegen lays out the dialect op's operands
    traits: FrozenSet[str] = frozenset()
    scalar_form: Optional[str] = None      # the op used when the second operand is a scalar
    namespaces: Tuple[str, ...] = ("pl", "pl.tile")   # where the DSL exposes it
    fifo: Optional[Tuple[str, str]] = None  # ("c2v" | "v2c", "push" | "pop" | "free")
    operands: Optional[Tuple[str, ...]] = None   # IR argument order by parameter name (default: params)
    # tensor-level forms in kernel code (language/tensor_level.py):
    broadcast: Optional[Dict[str, str]] = None   # {"row": op for [M,N] . [M,1], "col": op for [M,N] . [1,N]}
    tensor_target: Optional[Tuple[str, Dict[str, str]]] = None  # operand 0 a tensor: (op, its param -> ours)
    kernel_form: Optional[str] = None            # the op this one is in kernel code (same parameters)
    on_scalar: Optional[str] = None              # the op used when operand 0 is a scalar (pl.cast(s, pl.INDEX))
    front: Optional[str] = None     # the front-end method that reads this op's call (language/tasks.py),
                                    # where the generic binding does not fit (pl.read's list-or-int index)
    doc: str = ""
    dsl_aliases: Tuple[str, ...] = ()   # other DSL spellings of the same op ("pl.tile.create" for create_tile)
    # dialect attributes of the lowered op: (dialect attribute name, getter(ir_attrs, ir_args) -> value or
    # None to leave it out); the value is the dialect-level spelling (enum word, bool or int)
    pto_attrs: Tuple[Tuple[str, Callable], ...] = ()
    # a composite op: expand(args, attrs, emit) -> result expr, where emit(op, args, attrs) binds one
    # primitive op to a fresh temporary and returns it (the ExpandComposites pass calls it)
    expand: Optional[Callable] = None
    # a "matmul" op: the op that adds a further product of its kind into its result (matmul -> matmul_acc),
    # what AutoTileMatmulL0 writes for the K blocks after the first
    acc_form: Optional[str] = None
    # an accumulating cube op: the plain product it is where its init_cond holds (matmul_acc -> matmul)
    init_form: Optional[str] = None

    def __post_init__(self):
        bad = set(self.traits) - TRAITS
        if bad:
            raise ValueError(f"op {self.name}: unknown traits {sorted(bad)}")

    @property
    def cube(self) -> bool:
        return "cube" in self.traits

    def has(self, trait: str) -> bool:
        return trait in self.traits

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name or name in p.aliases:
                return p
        raise KeyError(name)

    @property
    def operand_params(self) -> Tuple[Param, ...]:
        """The operand parameters in IR argument order."""
        ops = [p for p in self.params if p.is_operand]
        if self.operands is None:
            return tuple(ops)
        by_name = {p.name: p for p in ops}
        return tuple(by_name[n] for n in self.operands)


OPS: Dict[str, OpDef] = {}


def declare(name: str, params, rule, **kw) -> OpDef:
    """Add one op to the table (family modules call this through their helpers)."""
    if name in OPS:
        raise ValueError(f"op {name!r} declared twice")
    if "traits" in kw:
        kw["traits"] = frozenset(kw["traits"])
    for p in params:
        if p.scratch and p.scratch.make is None and p.scratch.like not in {q.name for q in params}:
            raise ValueError(f"op {name!r}: scratch {p.name!r} is like an unknown operand {p.scratch.like!r}")
    op = OpDef(name, tuple(params), rule, **kw)
    if op.scalar_form == name:
        raise ValueError(f"op {name!r} names itself as its scalar form")
    if op.operands is not None and sorted(op.operands) != sorted(p.name for p in params if p.is_operand):
        raise ValueError(f"op {name!r}: operands= must name each operand parameter once")
    OPS[name] = op
    return op


def dsl_name(name: str, namespace: str) -> str:
    """The name an op has in a DSL namespace: ``array.create`` is ``create`` in ``pl.array``."""
    prefix = namespace.rsplit(".", 1)[-1] + "."
    return name[len(prefix):] if namespace != "pl" and name.startswith(prefix) else name


def lookup(name: str) -> OpDef:
    return OPS[name]


# the ops that take 4-bit operands (FP4/FP4E2M1/INT4/UINT4): data movement, views and pl.cast.  The
# vector unit has no 4-bit arithmetic (the a5 cube takes FP4 only as an MX operand, after a cast to
# FP8E4M3FN), so every other op on one is refused: cast to a wider type first
FOUR_BIT_OPS = frozenset({"load", "store", "move", "cast", "create_tile", "reshape", "slice", "extract",
                          "set_validshape", "reinterpret_view", "transpose_view", "tile.remote_load"})


def infer(name: str, arg_types, attrs) -> object:
    result = OPS[name].rule(list(arg_types), attrs)
    if name not in FOUR_BIT_OPS:
        for t in arg_types:
            dt = getattr(t, "dtype", None)
            if isinstance(dt, DType) and dt.is_4bit:
                raise OpTypeError(f"{name} has no {dt!r} form: the hardware computes nothing on 4-bit values "
                                  f"(they are loaded, stored, moved and cast); pl.cast the tile to FP16, FP32 or "
                                  f"BF16 (FP4: FP8E4M3FN for pl.matmul_mx) first")
    return result


def ops_with(trait: str) -> FrozenSet[str]:
    return frozenset(n for n, op in OPS.items() if trait in op.traits)


def fifo_ops(direction: str) -> Dict[str, str]:
    """role -> op name of one FIFO direction ("c2v" or "v2c")."""
    return {op.fifo[1]: n for n, op in OPS.items() if op.fifo and op.fifo[0] == direction}


# ----------------------------------------------------------------- parameter helpers

def P(name: str, kind: str = "tile", default=REQUIRED, **kw) -> Param:
    """A parameter (see ``Param``)."""
    return Param(name, kind, default, **kw)


TILE = P("tile")
LHS, RHS = P("lhs"), P("rhs")


# ----------------------------------------------------------------- rule helpers

def tile_of(t, op: str, what: str = "operand", param: Optional[str] = None) -> TileType:
    if not isinstance(t, TileType):
        raise OpTypeError(f"tile.{op} requires a tile {what}, but got {t}", param)
    return t


def same_shape(a: TileType, b: TileType, op: str) -> None:
    if a.shape != b.shape:
        raise OpTypeError(f"tile.{op} requires compatible shapes, but got {fmt_shape(a.shape)} and {fmt_shape(b.shape)}")
    if a.dtype != b.dtype:
        raise OpTypeError(f"tile.{op} requires matching dtypes, but got {a.dtype!r} and {b.dtype!r}")


def vec_only(t: TileType, op: str) -> None:
    if t.memory is not MemorySpace.Vec:
        raise OpTypeError(f"tile.{op} runs on the vector unit and requires a Vec tile, but got a {t.memory.name} tile")


def float_only(t: TileType, op: str) -> None:
    if not t.dtype.is_float:
        raise OpTypeError(f"tile.{op} requires a floating-point tile, but got {t.dtype!r}")


def count_of(t) -> int:
    """How many items an ``offsets`` operand holds (its type is a TupleType)."""
    return len(t.items) if isinstance(t, TupleType) else -1
