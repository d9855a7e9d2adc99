"""Cube-unit ops: matrix multiply (plain, accumulating, with a bias row, batched) and the one-row
GEMV forms into an Acc tile.  ``batch_matmul`` / ``batch_matmul_acc`` (and ``matmul`` /
``matmul_acc`` on a rank > 2 tensor) are expanded per batch by the front end (``language/cube.py``).

The tensor-only flags of ``pl.matmul`` / ``pl.matmul_acc`` (``a_trans``, ``b_trans``) are consumed by
the front end when the operand is a tensor (it loads the tensor, takes a ``transpose_view`` of the
Mat tile and moves that to Left/Right: ``Param.transposed_by``); with a tile operand they reach the
rule, which refuses them as pypto does (a transposed tile operand is a ``transpose_view``).
"""
from __future__ import annotations

from ..types import AtomicType, DType, MemorySpace, ScalarType, TensorType, TileType, fmt_shape
from ._core import OpTypeError, P, count_of, declare, infer, tile_of

_MATMUL_IN = {DType.FP16, DType.BF16, DType.FP32, DType.INT8}
_TRANSPOSE_REMEDY = ("at tile level a transposed operand is a zero-copy view, not a flag: pass "
                     "pl.tile.transpose_view(mat_tile) moved to Left/Right instead")
_NZ_REMEDY = "the result layout is the Acc tile's; ptokit stores matmul results in ND (row-major) order"


def acc_dtype(d: DType) -> DType:
    return DType.INT32 if d is DType.INT8 else DType.FP32


# where a matmul operand may sit when the program is typed: its own space (Left / Right) or one the
# InferTileMemorySpace pass (passes/memory_space.py) brings it from with moves, as pypto's pass does
# (Mat -> Left; Vec -> Mat -> Left through the cross-core FIFO; Acc -> Mat -> Left on the cube)
BROUGHT_FROM = frozenset({MemorySpace.Mat, MemorySpace.Vec, MemorySpace.Acc})


def _operands(ts, op: str, gemv: bool = False):
    lhs, rhs = tile_of(ts[0], op, "lhs", "lhs"), tile_of(ts[1], op, "rhs", "rhs")
    if lhs.memory is not MemorySpace.Left and lhs.memory not in BROUGHT_FROM:
        raise OpTypeError(f"tile.{op} requires lhs in Left, but got a {lhs.memory.name} tile", "lhs")
    if rhs.memory is not MemorySpace.Right and rhs.memory not in BROUGHT_FROM:
        raise OpTypeError(f"tile.{op} requires rhs in Right, but got a {rhs.memory.name} tile", "rhs")
    if gemv and lhs.rows != 1:
        raise OpTypeError(f"tile.{op} requires a one-row lhs [1, K], but got {fmt_shape(lhs.shape)}; use "
                          f"pl.matmul for more rows", "lhs")
    if lhs.cols != rhs.rows:
        raise OpTypeError(f"tile.{op} requires lhs columns to equal rhs rows, but got {fmt_shape(lhs.shape)} and "
                          f"{fmt_shape(rhs.shape)}")
    if lhs.dtype != rhs.dtype or lhs.dtype not in _MATMUL_IN:
        raise OpTypeError(f"tile.{op} requires both inputs of one dtype among FP16, BF16, FP32, INT8, but got "
                          f"{lhs.dtype!r} and {rhs.dtype!r}")
    return lhs, rhs


def valid_of(t: TileType) -> tuple:
    return tuple(t.valid) if t.valid else (t.rows, t.cols)


def _known_short(small, big) -> bool:
    """``big`` is provably smaller than ``small`` (both static): a valid extent that does not cover."""
    return isinstance(small, int) and isinstance(big, int) and big < small


def product_valid(lhs: TileType, rhs: TileType, shape, op: str):
    """The valid region of lhs @ rhs: lhs valid rows by rhs valid cols (None when that is the whole
    tile), as the cube computes it (TMATMUL: M, K from the Left tile's valid region, N from the Right
    tile's valid cols); the rhs valid rows must cover the lhs valid K."""
    lv, rv = valid_of(lhs), valid_of(rhs)
    if _known_short(lv[1], rv[0]):
        raise OpTypeError(f"tile.{op} requires the rhs valid rows to cover the lhs valid columns (K), but lhs has "
                          f"valid region {fmt_shape(lv)} and rhs {fmt_shape(rv)}", "rhs")
    for what, v, name in (("rows (M)", lv[0], "lhs"), ("columns (K)", lv[1], "lhs"), ("columns (N)", rv[1], "rhs")):
        if isinstance(v, int) and v < 1:
            raise OpTypeError(f"tile.{op}: the {name} has no valid {what}; the cube multiplies 1..4095 of each", name)
    valid = (lv[0], rv[1])
    return None if valid == tuple(shape) else valid


def _flags(attrs, op: str, ts=None) -> list:
    """The operand types as the cube reads them: a Vec or Acc operand whose a_trans / b_trans is set
    is transposed on its way through Mat (InferTileMemorySpace: a transpose_view there); on other
    tile operands the flags are refused as pypto does."""
    ts = list(ts or [])
    for i, flag in enumerate(("a_trans", "b_trans")):
        if attrs.get(flag):
            t = ts[i] if i < len(ts) else None
            if isinstance(t, TileType) and t.memory in (MemorySpace.Vec, MemorySpace.Acc):
                ts[i] = t.with_(shape=(t.cols, t.rows), valid=tuple(reversed(t.valid)) if t.valid else None,
                                layout=None)
                continue
            raise OpTypeError(f"pl.{op}: {flag}=True is not supported for tile operands; {_TRANSPOSE_REMEDY}", flag)
    if attrs.get("c_matrix_nz"):
        raise OpTypeError(f"pl.{op}: c_matrix_nz=True is not supported; {_NZ_REMEDY}", "c_matrix_nz")
    return ts


def _product(ts, attrs, op: str) -> TileType:
    lhs, rhs = _operands(_flags(attrs, op, ts[:2]), op)
    acc = acc_dtype(lhs.dtype)
    # out_dtype= is applied by the front end (language/cube.py: a cast of the product), never here
    if attrs.get("out_dtype") is not None:   # pragma: no cover - the front end takes it out
        raise OpTypeError(f"internal: pl.{op} out_dtype reached the type rule", "out_dtype")
    shape = (lhs.rows, rhs.cols)
    return TileType(shape, acc, MemorySpace.Acc, valid=product_valid(lhs, rhs, shape, op))


def _nd_operand(t, op: str, name: str, space: MemorySpace):
    """(batch dims, [rows, cols]) of one operand of a batch_matmul of N-D tiles: an N-D Mat tile
    (FlattenTileNdTo2D loads it per batch) or a 2-D tile, every batch's (in ``space``, or where
    InferTileMemorySpace brings it from)."""
    a = tile_of(t, op, name, name)
    if a.nd is not None:
        if a.memory is not MemorySpace.Mat:
            raise OpTypeError(f"tile.{op} of N-D tiles takes each N-D operand as loaded into Mat (pl.load(..., "
                              f"target_memory=pl.Mem.Mat), or its pl.tile.transpose_view), but {name} is a "
                              f"{a.memory.name} tile", name)
        return a, a.nd[:-2], a.nd[-2:]
    if a.memory is not space and a.memory not in BROUGHT_FROM:   # InferTileMemorySpace moves it per batch
        raise OpTypeError(f"tile.{op} requires {name} in {space.name}, but got a {a.memory.name} tile", name)
    return a, (), a.shape


def _batch_product(ts, attrs, op: str) -> TileType:
    """batch_matmul of N-D tiles: the products of each batch, rows stacked ([B * M, N] Acc)."""
    (lhs, lb, (m, k)), (rhs, rb, (k2, n)) = (_nd_operand(ts[0], op, "lhs", MemorySpace.Left),
                                             _nd_operand(ts[1], op, "rhs", MemorySpace.Right))
    if k != k2:
        raise OpTypeError(f"tile.{op} requires lhs columns to equal rhs rows, but got matrices [{m}, {k}] and "
                          f"[{k2}, {n}]")
    if lhs.dtype != rhs.dtype or lhs.dtype not in _MATMUL_IN:
        raise OpTypeError(f"tile.{op} requires both inputs of one dtype among FP16, BF16, FP32, INT8, but got "
                          f"{lhs.dtype!r} and {rhs.dtype!r}")
    batch = broadcast_batch(lb, rb)
    if batch is None:
        raise OpTypeError(f"tile.{op}: batch dimensions {list(lb)} and {list(rb)} do not broadcast (each must "
                          f"match or be 1)")
    return TileType.of_nd(batch + (m, n), acc_dtype(lhs.dtype), MemorySpace.Acc)


def broadcast_batch(*shapes):
    """numpy's broadcast of batch dimensions (a dimension of 1, or a missing one, repeats); None if
    they do not broadcast."""
    rank = max(len(s) for s in shapes)
    out = []
    for d in range(rank):
        dims = {s[len(s) - rank + d] for s in shapes if len(s) - rank + d >= 0} - {1}
        if len(dims) > 1:
            return None
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def _batch_matmul(ts, attrs):
    if any(getattr(t, "nd", None) is not None for t in ts[:2]):
        _flags(attrs, "batch_matmul")
        return _batch_product(ts, attrs, "batch_matmul")
    return _product(ts, attrs, "batch_matmul")


def _matmul(ts, attrs):
    return _product(ts, attrs, "matmul")


def _acc_like(acc_t, res: TileType, op: str) -> TileType:
    acc = tile_of(acc_t, op, "acc", "acc")
    if acc.memory is MemorySpace.Vec and acc.shape == res.shape and acc.dtype == res.dtype:
        # an accumulator the program made (pl.create_tensor / pl.create_tile / a zero pl.full in kernel
        # code, Vec by default): InferTileMemorySpace places it in Acc, or says why it cannot
        acc = acc.with_(memory=MemorySpace.Acc, layout=None)
    if acc.memory is not MemorySpace.Acc or acc.shape != res.shape or acc.dtype != res.dtype:
        raise OpTypeError(f"tile.{op} requires an Acc tile {fmt_shape(res.shape)} {res.dtype!r}, but got {acc}", "acc")
    av, pv = valid_of(acc), valid_of(res)
    if _known_short(pv[0], av[0]) or _known_short(pv[1], av[1]):
        raise OpTypeError(f"tile.{op}: the accumulator's valid region {fmt_shape(av)} does not cover the product's "
                          f"{fmt_shape(pv)} (lhs valid rows by rhs valid columns); the result keeps the "
                          f"accumulator's valid region", "acc")
    return acc


def _init_cond(ts, op: str) -> None:
    if len(ts) > 3:
        c = ts[3]
        if not isinstance(c, ScalarType) or c.dtype is not DType.BOOL:
            raise OpTypeError(f"pl.{op} init_cond must be a BOOL scalar (such as k == 0), but got {c}", "init_cond")


def _accumulate(op: str):
    def rule(ts, attrs):
        if any(getattr(t, "nd", None) is not None for t in ts[1:3]):
            raise OpTypeError(f"tile.{op} of N-D tiles is not supported: accumulate N-D tensors (pl.{op} of "
                              f"tensors, one matmul_acc per batch), or pl.batch_matmul the tiles and pl.add the "
                              f"product", "lhs")
        res = _product(ts[1:3], attrs, op)
        _init_cond(ts, op)
        return _acc_like(ts[0], res, op)
    return rule


_matmul_acc = _accumulate("matmul_acc")


def _bias_of(t, res: TileType, op: str) -> None:
    bias = tile_of(t, op, "bias", "bias")
    if bias.memory not in (MemorySpace.Bias, MemorySpace.Mat):     # a Mat row: InferTileMemorySpace moves it
        raise OpTypeError(f"tile.{op} requires the bias in Bias (a Mat tile is moved there), but got a "
                          f"{bias.memory.name} tile", "bias")
    if bias.shape != (1, res.cols):
        raise OpTypeError(f"tile.{op} requires a bias row [1, {res.cols}], but got {fmt_shape(bias.shape)}", "bias")
    bv, pv = valid_of(bias), valid_of(res)
    if _known_short(pv[1], bv[1]) or bv[0] == 0:
        raise OpTypeError(f"tile.{op} requires the bias's valid region to cover one row of the product's "
                          f"{pv[1]} valid columns, but it is {fmt_shape(bv)}", "bias")
    if bias.dtype is not res.dtype:
        raise OpTypeError(f"tile.{op} requires a {res.dtype!r} bias (the accumulator's dtype), but got "
                          f"{bias.dtype!r}", "bias")


def _matmul_bias(ts, attrs):
    res = _product(ts[:2], attrs, "matmul_bias")
    _bias_of(ts[2], res, "matmul_bias")
    return res


# GEMV: [1, K] @ [K, N]; the Acc tile has 16 physical rows (one fractal), of which row 0 is valid
GEMV_ROWS = 16


def _gemv_result(ts, op: str) -> TileType:
    lhs, rhs = _operands(ts, op, gemv=True)
    shape = (GEMV_ROWS, rhs.cols)
    return TileType(shape, acc_dtype(lhs.dtype), MemorySpace.Acc, valid=product_valid(lhs, rhs, shape, op))


def _gemv(ts, attrs):
    return _gemv_result(ts, "gemv")


def _gemv_acc(ts, attrs):
    res = _gemv_result(ts[1:3], "gemv_acc")
    _init_cond(ts, "gemv_acc")
    acc = tile_of(ts[0], "gemv_acc", "acc", "acc")
    if acc.memory is not MemorySpace.Acc or acc.cols != res.cols or acc.dtype != res.dtype \
            or acc.rows not in (1, GEMV_ROWS):
        raise OpTypeError(f"tile.gemv_acc requires an Acc tile [{GEMV_ROWS}, {res.cols}] (or [1, {res.cols}]) "
                          f"{res.dtype!r}, such as a pl.gemv result, but got {acc}", "acc")
    return acc


def _gemv_bias(ts, attrs):
    res = _gemv_result(ts[:2], "gemv_bias")
    _bias_of(ts[2], res, "gemv_bias")
    return res


_LEFT = P("lhs", space=MemorySpace.Left, transposed_by="a_trans")
_RIGHT = P("rhs", space=MemorySpace.Right, transposed_by="b_trans")
_BIAS = P("bias", space=MemorySpace.Bias)
_TRANS = (P("a_trans", "bool", False), P("b_trans", "bool", False))
_PHASES = ("unspecified", "partial", "final")
_PHASE = P("acc_phase", "choice", "unspecified", choices=_PHASES)


def _phase(attrs, args):
    p = attrs.get("acc_phase", "unspecified")
    return None if p == "unspecified" else p


declare("matmul", (_LEFT, _RIGHT, P("out_dtype", "dtype", None)) + _TRANS + (P("c_matrix_nz", "bool", False),),
        _matmul, pto="pto.tmatmul", form="binary", traits={"cube", "batched", "matmul"}, acc_form="matmul_acc",
        doc="lhs [M, K] (Left) @ rhs [K, N] (Right) -> [M, N] Acc (FP32, or INT32 for INT8 inputs); "
            "a_trans/b_trans transpose a tensor operand (tile operands: use pl.tile.transpose_view); "
            "rank > 2 tensors: batch_matmul")
declare("batch_matmul", (P("lhs", space=MemorySpace.Left), P("rhs", space=MemorySpace.Right)),
        _batch_matmul, pto="pto.tmatmul", form="binary", traits={"cube", "batched", "nd_batched"},
        doc="[..., M, K] @ [..., K, N] tensors in kernel code, batch dimensions broadcast: one matmul per batch, "
            "into an Acc tile [B * M, N] (the batch rows flattened); N-D Mat tiles (a load of an N-D window, or "
            "its transpose_view): the same, each batch loaded again (FlattenTileNdTo2D); 2-D tiles: matmul")
declare("matmul_acc", (P("acc"), _LEFT, _RIGHT) + _TRANS + (P("init_cond", "scalar", None),), _matmul_acc,
        pto="pto.tmatmul.acc", form="matmul_acc", traits={"cube", "shares_operand0", "batched", "matmul"},
        acc_form="matmul_acc", init_form="matmul", doc="acc + lhs @ rhs, in place; init_cond (BOOL scalar): where it holds, acc = lhs @ rhs instead; "
            "rank > 2 tensors: batch_matmul_acc")
declare("batch_matmul_acc", (P("acc"), P("lhs", space=MemorySpace.Left), P("rhs", space=MemorySpace.Right),
                             P("init_cond", "scalar", None)),
        _accumulate("batch_matmul_acc"), pto="pto.tmatmul.acc", form="matmul_acc",
        traits={"cube", "shares_operand0", "batched"}, init_form="matmul",
        doc="acc [B * M, N] (Acc, batch_matmul's layout) + [..., M, K] @ [..., K, N] tensors per batch, in "
            "place: rows b * M .. b * M + M take batch b (batch dimensions broadcast between lhs and rhs, "
            "their product B the acc's); init_cond as matmul_acc's; 2-D tiles: matmul_acc")
declare("matmul_bias", (_LEFT, _RIGHT, _BIAS), _matmul_bias, pto="pto.tmatmul.bias", form="ternary",
        traits={"cube", "matmul"}, acc_form="matmul_acc", doc="lhs @ rhs + bias, bias [1, N] in Bias (FP32; INT32 for INT8 inputs)")
declare("gemv", (_LEFT, _RIGHT, _PHASE), _gemv, pto="pto.tgemv", form="binary", traits={"cube"},
        pto_attrs=(("accPhase", _phase),), namespaces=("pl.tile",),
        doc="lhs [1, K] @ rhs [K, N] -> Acc [16, N] with row 0 valid (FP32; INT32 for INT8)")
declare("gemv_acc", (P("acc"), _LEFT, _RIGHT, _PHASE, P("init_cond", "scalar", None, keyword_only=True)),
        _gemv_acc, pto="pto.tgemv.acc", form="matmul_acc", traits={"cube", "shares_operand0"}, init_form="gemv",
        pto_attrs=(("accPhase", _phase),), namespaces=("pl.tile",),
        doc="acc += lhs [1, K] @ rhs [K, N], in place; init_cond as matmul_acc's")
declare("gemv_bias", (_LEFT, _RIGHT, _BIAS, _PHASE), _gemv_bias, pto="pto.tgemv.bias", form="ternary",
        traits={"cube"}, pto_attrs=(("accPhase", _phase),), namespaces=("pl.tile",),
        doc="lhs [1, K] @ rhs [K, N] + bias [1, N]")



# ----------------------------------------------------------------- MX block-scaled matmul (a5)
MX_GROUP = 32          # K elements per E8M0 scale
_FP4 = {DType.FP4, DType.FP4E2M1, DType.FP4E1M2, DType.FP4E2M1X2}


def _mx_data(t, op: str, name: str, space: MemorySpace) -> TileType:
    d = tile_of(t, op, name, name)
    if d.memory is not space:
        raise OpTypeError(f"tile.{op} requires {name} in {space.name}, but got a {d.memory.name} tile", name)
    if d.dtype in _FP4:
        raise OpTypeError(f"tile.{op}: an FP4 {name} must be cast to FP8E4M3FN first (pl.cast(t, pl.FP8E4M3FN)); "
                          f"the MX matmul multiplies FP8E4M3FN pairs", name)
    if d.dtype is not DType.FP8E4M3FN:
        extra = " (FP8E5M2 data is not an MX operand: convert it to FP8E4M3FN)" if d.dtype is DType.FP8E5M2 else ""
        raise OpTypeError(f"tile.{op} requires {name} of dtype FP8E4M3FN, but got {d.dtype!r}{extra}", name)
    return d


def _mx_scale(t, op: str, name: str, space: MemorySpace, shape) -> None:
    s = tile_of(t, op, name, name)
    if s.dtype is not DType.FP8E8M0:
        raise OpTypeError(f"tile.{op} requires {name} of dtype FP8E8M0 (one power-of-two scale per {MX_GROUP} of K), "
                          f"but got {s.dtype!r}", name)
    if s.memory is not space:
        raise OpTypeError(f"tile.{op} requires {name} in {space.name} (pl.move the loaded scales there), but got a "
                          f"{s.memory.name} tile", name)
    if s.shape != tuple(shape):
        raise OpTypeError(f"tile.{op} requires {name} of shape {fmt_shape(shape)} (one scale per {MX_GROUP} of K), "
                          f"but got {fmt_shape(s.shape)}", name)


def _mx_product(ts, op: str) -> TileType:
    lhs = _mx_data(ts[0], op, "lhs", MemorySpace.Left)
    rhs = _mx_data(ts[2], op, "rhs", MemorySpace.Right)
    m, k, n = lhs.rows, lhs.cols, rhs.cols
    if rhs.rows != k:
        raise OpTypeError(f"tile.{op} requires lhs columns to equal rhs rows, but got {fmt_shape(lhs.shape)} and "
                          f"{fmt_shape(rhs.shape)}")
    for what, v, mod, name in (("M", m, 16, "lhs"), ("K", k, 64, "lhs"), ("N", n, 32, "rhs")):
        if v % mod:
            raise OpTypeError(f"tile.{op} requires {what} to be a multiple of {mod} (the a5 MX cube), but "
                              f"{what} = {v} ({name} {fmt_shape((lhs if name == 'lhs' else rhs).shape)})", name)
    g = k // MX_GROUP
    _mx_scale(ts[1], op, "lhs_scale", MemorySpace.LeftScale, (m, g))
    _mx_scale(ts[3], op, "rhs_scale", MemorySpace.RightScale, (g, n))
    return TileType((m, n), DType.FP32, MemorySpace.Acc, valid=product_valid(lhs, rhs, (m, n), op))


def _matmul_mx(ts, attrs):
    return _mx_product(ts, "matmul_mx")


def _matmul_mx_acc(ts, attrs):
    res = _mx_product(ts[1:5], "matmul_mx_acc")
    return _acc_like(ts[0], res, "matmul_mx_acc")


def _matmul_mx_bias(ts, attrs):
    res = _mx_product(ts[:4], "matmul_mx_bias")
    _bias_of(ts[4], res, "matmul_mx_bias")
    return res


_MX_LEFT = (P("lhs", space=MemorySpace.Left), P("lhs_scale", space=MemorySpace.LeftScale))
_MX_RIGHT = (P("rhs", space=MemorySpace.Right), P("rhs_scale", space=MemorySpace.RightScale))
declare("matmul_mx", _MX_LEFT + _MX_RIGHT, _matmul_mx, pto="pto.tmatmul.mx", form="dps",
        traits={"cube", "a5_only"},
        doc="a5 MX block-scaled matmul: lhs [M, K] FP8E4M3FN (Left) with lhs_scale [M, K/32] FP8E8M0 (LeftScale), "
            "rhs [K, N] (Right) with rhs_scale [K/32, N] (RightScale) -> Acc [M, N] FP32, each product scaled by "
            "2^(e-127) of its 32-element K group; M % 16, K % 64, N % 32")
declare("matmul_mx_acc", (P("acc"),) + _MX_LEFT + _MX_RIGHT, _matmul_mx_acc, pto="pto.tmatmul.mx.acc",
        form="dps", traits={"cube", "shares_operand0", "a5_only"},
        doc="acc + matmul_mx(lhs, lhs_scale, rhs, rhs_scale), in place")
declare("matmul_mx_bias", _MX_LEFT + _MX_RIGHT + (_BIAS,), _matmul_mx_bias, pto="pto.tmatmul.mx.bias",
        form="dps", traits={"cube", "a5_only"},
        doc="matmul_mx(lhs, lhs_scale, rhs, rhs_scale) + bias, bias [1, N] FP32 in Bias")


# ----------------------------------------------------------------- L1 tiles filled from global memory
# create_l1 is a create_tile in Mat; gather_row a load of the window into acc's space (transpose_view'd
# for transpose=True) assembled into acc: ExpandComposites writes those ops.  paged_gather is read by
# the front end (language/cube.py, L1Mixin), which writes its loop of gathers.
_FRACTAL_ROWS = 16      # rows of one fractal box of a Mat tile


def _front_only(ts, attrs):   # pragma: no cover - the front end rewrites these calls
    raise OpTypeError("internal: read by the front end")


def _l1_attrs(attrs):
    return {"shape": attrs["shape"], "dtype": attrs["dtype"], "target_memory": MemorySpace.Mat,
            "transpose": True if attrs.get("transpose") else None, "flat_layout": None}


def _gather_window(acc, src, attrs):
    """The load of gather_row's window into acc's space, after the checks that name gather_row's own
    arguments: a transposed window fills a whole fractal of rows (its valid ones are read), so that
    its transpose_view is a legal ZN tile; the insert writes the valid region only."""
    if not isinstance(acc, TileType) or acc.memory not in (MemorySpace.Mat, MemorySpace.Vec):
        raise OpTypeError(f"pl.gather_row writes into an L1 tile (pl.create_l1) or a Vec tile, but acc is {acc}", "acc")
    if attrs.get("transpose") and acc.memory is not MemorySpace.Mat:
        raise OpTypeError("pl.gather_row transpose=True writes a GM row as a column of the transposed (ZN) L1 "
                          "layout; it needs an L1 tile (pl.create_l1(..., transpose=True)), not a Vec tile", "transpose")
    if not isinstance(src, TensorType):
        raise OpTypeError(f"pl.gather_row reads a tensor in global memory, but src is {src}", "src")
    shape, valid = list(attrs["shapes"]), attrs.get("valid_shape")
    if len(shape) != len(src.shape) or len(shape) < 2:
        raise OpTypeError(f"pl.gather_row shapes {list(shape)} must give one extent per dimension of the "
                          f"{len(src.shape)}-D src (at least 2)", "shapes")
    if attrs.get("transpose") and shape[-2] % _FRACTAL_ROWS:
        valid = tuple(valid) if valid is not None else tuple(shape)
        shape[-2] = -(-shape[-2] // _FRACTAL_ROWS) * _FRACTAL_ROWS
    return {"shape": shape, "valid": valid, "target_memory": acc.memory, "offsets_static": attrs["src_offset_static"]}


def _gather_row(ts, attrs):
    load = _gather_window(ts[0], ts[1], attrs)
    if count_of(ts[2]) != 2:
        raise OpTypeError("pl.gather_row dst_offset must be [row, col] in acc", "dst_offset")
    window = infer("load", [ts[1], ts[3]], load)
    if attrs.get("transpose"):
        window = infer("transpose_view", [window], {})
    return infer("assemble", [ts[0], window, ts[2]], {"offsets_static": attrs["dst_offset_static"],
                                                      "atomic": AtomicType.None_})


def _gather_row_expand(args, attrs, emit):
    acc, src, dst, src_offsets = args
    window = emit("load", [src, src_offsets], _gather_window(acc.type, src.type, attrs))
    if attrs.get("transpose"):
        window = emit("transpose_view", [window], {})
    return emit("assemble", [acc, window, dst], {"offsets_static": attrs["dst_offset_static"],
                                                 "atomic": AtomicType.None_})


declare("create_l1", (P("shape", "shape"), P("dtype", "dtype"), P("transpose", "bool", False)),
        lambda ts, attrs: infer("create_tile", [], _l1_attrs(attrs)), form="composite", namespaces=("pl",),
        expand=lambda args, attrs, emit: emit("create_tile", [], _l1_attrs(attrs)),
        doc="an uninitialised L1 (Mat) tile to fill with pl.gather_row and feed to pl.matmul; transpose=True: "
            "the transposed (ZN) layout, a b_trans operand as it is")
declare("gather_row", (P("acc"), P("src", "tensor"), P("dst_offset", "offsets", static_attr="dst_offset_static"),
                       P("src_offset", "offsets", static_attr="src_offset_static"),
                       P("shapes", "shape"), P("transpose", "bool", False),
                       P("valid_shape", "valid", None, keyword_only=True)),
        _gather_row, form="composite", namespaces=("pl",), traits={"shares_operand0"}, expand=_gather_row_expand,
        doc="acc (an L1 tile, or a Vec tile) with the window src[src_offset : + shapes] written at dst_offset "
            "(transpose=True, L1 only: its transpose, a GM row as a column), in place: a TLOAD into acc's "
            "memory and a TINSERT")
declare("paged_gather", (P("src", "tensor"), P("indices", "tensor"), P("block_table", "tensor"),
                         P("block_size", "int"), P("size", "int"), P("max_indices", "int"),
                         P("space", "memory", MemorySpace.Mat, keyword_only=True),
                         P("col_off", "int", 0, keyword_only=True), P("is_trans", "bool", False, keyword_only=True),
                         P("is_b_matrix", "bool", False, keyword_only=True)),
        _front_only, form="insert", front="paged_gather_call", namespaces=("pl",),
        doc="[max_indices, size] on chip, row k = src row block_table[i // block_size] * block_size + "
            "i % block_size (i = indices[k]) from column col_off: a loop of gathers (is_trans=True: the "
            "transposed [size, max_indices] ZN tile; is_b_matrix=True, a hint that the result is a matmul's B "
            "operand, gives the same tile)")
