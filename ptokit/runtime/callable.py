"""The callable image: one ``ChipCallable`` with a ``CoreCallable`` child per kernel.

The byte layout mirrors the C structs of runtime.md ("Callable image").  Field
offsets are *computed* from the field list (name, C type, count) with natural
alignment by :func:`chip_callable_layout`; the packer, the unpacker and the
``ptokit callable-layout`` report all use that one function, and the packer
refuses to emit an image whose layout fails :func:`layout_problems` (the two
asserts of the spec: ``CALLABLE_CHILD_ALIGN >= alignof(CoreCallable)`` and
``offsetof(storage) % CALLABLE_CHILD_ALIGN == 0``).

Image::

    ChipCallable header            (offsetof(storage) bytes)
    storage[0]                     orchestration .so (binary_size bytes)
    storage[child_offsets[i]]      CoreCallable i: 144-byte header, padding to 192,
                                   then the kernel binary (binary_size bytes)

Child offsets are relative to ``storage`` and are ``align_up(prev_end, 64)``.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..artifacts.kernel_config import is_scalar_param, param_direction
from ..errors import InternalError, UserError

CORE_MAX_TENSOR_ARGS = 32
CHIP_MAX_TENSOR_ARGS = 256
CALLABLE_ALIGN = 64
CALLABLE_CHILD_ALIGN = 16
CALLABLE_FUNC_NAME_MAX = 64
CALLABLE_MAX_CHILDREN = 1024

# ArgDirection (int32)
SCALAR, IN, OUT, INOUT = 0, 1, 2, 3
DIRECTION_CODES = {"SCALAR": SCALAR, "IN": IN, "OUT": OUT, "INOUT": INOUT}
DIRECTION_NAMES = {v: k for k, v in DIRECTION_CODES.items()}

# C type -> (size, alignment, struct format char)
C_TYPES = {
    "int32_t": (4, 4, "i"),
    "uint32_t": (4, 4, "I"),
    "uint64_t": (8, 8, "Q"),
    "char": (1, 1, "s"),
}


def align_up(value: int, align: int) -> int:
    if align <= 1:
        return value
    return (value + align - 1) // align * align


@dataclass(frozen=True)
class Field:
    name: str
    ctype: str
    count: int          # 1 for a scalar field, 0 for a flexible array member
    offset: int
    size: int           # count * sizeof(ctype)
    align: int          # effective alignment (alignas included)


@dataclass(frozen=True)
class StructLayout:
    name: str
    fields: tuple[Field, ...]
    alignof: int

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def offsetof(self, name: str) -> int:
        return self.field(name).offset

    @property
    def header_size(self) -> int:
        """Offset of the trailing flexible array (= the size of the fixed part)."""
        return self.fields[-1].offset


def layout_struct(name: str, spec: Sequence[tuple], ) -> StructLayout:
    """Natural-alignment layout of ``spec``: ``(name, ctype, count[, alignas])`` tuples."""
    offset = 0
    max_align = 1
    fields = []
    for item in spec:
        fname, ctype, count = item[:3]
        alignas = item[3] if len(item) > 3 else 0
        size, nat_align, _ = C_TYPES[ctype]
        eff = max(nat_align, alignas or 1)
        offset = align_up(offset, eff)
        fields.append(Field(fname, ctype, count, offset, size * count, eff))
        offset += size * count
        max_align = max(max_align, eff)
    return StructLayout(name, tuple(fields), max_align)


def core_callable_layout() -> StructLayout:
    return layout_struct("CoreCallable", [
        ("signature", "int32_t", CORE_MAX_TENSOR_ARGS),
        ("sig_count", "int32_t", 1),
        ("binary_size", "uint32_t", 1),
        ("resolved_addr", "uint64_t", 1),
        ("storage", "char", 0),
    ])


CORE_HEADER_SIZE = core_callable_layout().header_size          # 144
CORE_ALIGNOF = core_callable_layout().alignof                  # 8


def binary_data_offset() -> int:
    """Where a CoreCallable's binary starts inside its blob: align_up(144, 64) = 192."""
    return align_up(CORE_HEADER_SIZE, CALLABLE_ALIGN)


def chip_callable_layout(chip_max: int = CHIP_MAX_TENSOR_ARGS,
                         child_align: int = CALLABLE_CHILD_ALIGN) -> StructLayout:
    """ChipCallable field offsets; ``child_align`` is the ``alignas`` on ``storage``
    (0 or 1 = no ``alignas``)."""
    if chip_max < 1:
        raise UserError(f"CHIP_MAX_TENSOR_ARGS must be positive, got {chip_max}")
    if child_align < 0 or (child_align > 1 and child_align & (child_align - 1)):
        raise UserError(f"child alignment must be a power of two (or 0 for none), got {child_align}")
    return layout_struct("ChipCallable", [
        ("signature", "int32_t", chip_max),
        ("sig_count", "int32_t", 1),
        ("binary_size", "uint32_t", 1),
        ("func_name", "char", CALLABLE_FUNC_NAME_MAX),
        ("func_name_len", "uint32_t", 1),
        ("child_func_ids", "int32_t", CALLABLE_MAX_CHILDREN),
        ("child_offsets", "uint32_t", CALLABLE_MAX_CHILDREN),
        ("child_count", "int32_t", 1),
        ("config_name", "char", CALLABLE_FUNC_NAME_MAX),
        ("config_name_len", "uint32_t", 1),
        ("storage", "char", 0, child_align),
    ])


def layout_problems(layout: StructLayout, child_align: int) -> list[str]:
    """The packer's two asserts, as messages (empty list = the layout may be emitted)."""
    problems = []
    storage = layout.offsetof("storage")
    if child_align < CORE_ALIGNOF:
        problems.append(f"CALLABLE_CHILD_ALIGN ({child_align}) < alignof(CoreCallable) ({CORE_ALIGNOF}): "
                        "a child's uint64 resolved_addr would be misaligned")
    if child_align < 1 or storage % child_align != 0:
        problems.append(f"offsetof(storage) = {storage} is not a multiple of CALLABLE_CHILD_ALIGN ({child_align})")
    return problems


def simt_verdict(storage_offset: int) -> tuple[bool, str]:
    """Whether child binaries land on addresses SIMT code can run from.

    ``base`` is >= 512-aligned and child offsets and ``binary_data_offset`` are
    multiples of 64, so ``offsetof(storage)`` alone decides the alignment.
    """
    if storage_offset % 16 == 0:
        return True, "OK: child binaries are 16-byte aligned (SIMT needs 8 today, 16 on the next generation)"
    if storage_offset % 8 == 0:
        return False, ("FRAGILE: child binaries are 8-byte aligned only (8 mod 16): SIMT passes today by luck "
                       "and breaks on the next generation, which needs 16")
    return False, (f"BROKEN: child binaries are misaligned ({storage_offset % 8} mod 8): SIMT code address is "
                   "not 8-byte aligned, and the child's uint64 fields are undefined behaviour")


def check_layout(chip_max: int = CHIP_MAX_TENSOR_ARGS, child_align: int = CALLABLE_CHILD_ALIGN) -> StructLayout:
    """The layout, or InternalError if it breaks an assert (the packer refuses to emit)."""
    layout = chip_callable_layout(chip_max, child_align)
    problems = layout_problems(layout, child_align)
    if problems:
        raise InternalError("refusing to emit a callable image: " + "; ".join(problems))
    return layout


def layout_report(chip_max: int = CHIP_MAX_TENSOR_ARGS, child_align: int = CALLABLE_CHILD_ALIGN) -> dict:
    """Everything ``ptokit callable-layout`` prints, as data."""
    layout = chip_callable_layout(chip_max, child_align)
    storage = layout.offsetof("storage")
    ok, verdict = simt_verdict(storage)
    problems = layout_problems(layout, child_align)
    return {
        "chip_max_tensor_args": chip_max,
        "child_align": child_align,
        "fields": [{"name": f.name, "ctype": f.ctype, "count": f.count, "offset": f.offset, "size": f.size}
                   for f in layout.fields],
        "storage_offset": storage,
        "mod8": storage % 8,
        "mod16": storage % 16,
        "simt_ok": ok,
        "simt_verdict": verdict,
        "asserts_ok": not problems,
        "assert_problems": problems,
        "core_callable": {"header_size": CORE_HEADER_SIZE, "alignof": CORE_ALIGNOF,
                          "binary_data_offset": binary_data_offset()},
    }


# ---------------------------------------------------------------------------
# packing
# ---------------------------------------------------------------------------


def fnv1a64(data) -> int:
    """FNV-1a 64 of ``data`` (the image's content hash, used to dedup uploads)."""
    h = 0xCBF29CE484222325
    for b in bytes(data):
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def _put(buf: bytearray, layout: StructLayout, name: str, value, base: int = 0) -> None:
    f = layout.field(name)
    fmt = "<" + C_TYPES[f.ctype][2]
    struct.pack_into(fmt, buf, base + f.offset, value)


def _put_array(buf: bytearray, layout: StructLayout, name: str, values: Sequence[int], base: int = 0) -> None:
    f = layout.field(name)
    if len(values) > f.count:
        raise InternalError(f"{layout.name}.{name}: {len(values)} values for {f.count} slots")
    if values:
        struct.pack_into(f"<{len(values)}{C_TYPES[f.ctype][2]}", buf, base + f.offset, *values)


def _name_bytes(text: str, what: str) -> bytes:
    raw = text.encode("utf-8")
    if len(raw) >= CALLABLE_FUNC_NAME_MAX:
        raise UserError(f"{what} {text!r} is {len(raw)} bytes; at most {CALLABLE_FUNC_NAME_MAX - 1} fit")
    return raw


def _directions(sig: Sequence, limit: int, what: str) -> list[int]:
    out = []
    for d in sig:
        code = DIRECTION_CODES.get(d.upper()) if isinstance(d, str) else int(d)
        if code not in DIRECTION_NAMES:
            raise UserError(f"{what}: {d!r} is not an ArgDirection (SCALAR, IN, OUT, INOUT)")
        out.append(code)
    if len(out) > limit:
        raise UserError(f"{what}: {len(out)} arguments; at most {limit}")
    return out


def pack_core_callable(signature: Sequence, binary: bytes) -> bytes:
    """One CoreCallable blob: header, zero padding to 192, the binary. resolved_addr = 0."""
    core = core_callable_layout()
    sig = _directions(signature, CORE_MAX_TENSOR_ARGS, "kernel signature")
    buf = bytearray(binary_data_offset() + len(binary))
    _put_array(buf, core, "signature", sig)
    _put(buf, core, "sig_count", len(sig))
    _put(buf, core, "binary_size", len(binary))
    _put(buf, core, "resolved_addr", 0)
    buf[binary_data_offset():] = binary
    return bytes(buf)


def pack_chip_callable(orch_binary: bytes, children: Sequence[tuple], func_name: str, config_name: str,
                       chip_signature: Sequence, chip_max: int = CHIP_MAX_TENSOR_ARGS,
                       child_align: int = CALLABLE_CHILD_ALIGN) -> bytes:
    """Pack the program image.

    ``children``: ``(func_id, signature, binary)`` with ``signature`` a list of
    ArgDirection ints (or names).  Refuses (InternalError) to emit a layout that
    breaks the alignment asserts.
    """
    layout = check_layout(chip_max, child_align)
    if len(children) > CALLABLE_MAX_CHILDREN:
        raise UserError(f"{len(children)} kernels; a callable image holds at most {CALLABLE_MAX_CHILDREN}")
    storage = layout.offsetof("storage")
    orch_binary = bytes(orch_binary)
    blobs, offsets = [], []
    end = len(orch_binary)
    for func_id, sig, binary in children:
        off = align_up(end, CALLABLE_ALIGN)
        blob = pack_core_callable(sig, bytes(binary))
        offsets.append(off)
        blobs.append(blob)
        end = off + len(blob)
    if storage + end > 0xFFFFFFFF:
        raise UserError(f"callable image of {storage + end} bytes does not fit 32-bit offsets")
    buf = bytearray(storage + end)
    csig = _directions(chip_signature, chip_max, "orchestration signature")
    _put_array(buf, layout, "signature", csig)
    _put(buf, layout, "sig_count", len(csig))
    _put(buf, layout, "binary_size", len(orch_binary))
    fn = _name_bytes(func_name, "function name")
    buf[layout.offsetof("func_name"):layout.offsetof("func_name") + len(fn)] = fn
    _put(buf, layout, "func_name_len", len(fn))
    _put_array(buf, layout, "child_func_ids", [int(c[0]) for c in children])
    _put_array(buf, layout, "child_offsets", offsets)
    _put(buf, layout, "child_count", len(children))
    cn = _name_bytes(config_name, "config name")
    buf[layout.offsetof("config_name"):layout.offsetof("config_name") + len(cn)] = cn
    _put(buf, layout, "config_name_len", len(cn))
    buf[storage:storage + len(orch_binary)] = orch_binary
    for off, blob in zip(offsets, blobs):
        buf[storage + off:storage + off + len(blob)] = blob
    for i, off in enumerate(offsets):
        assert (storage + off + binary_data_offset()) % child_align == 0, i
    return bytes(buf)


def _tree_chip_signature(config) -> list[int]:
    orch = config.orchestration
    if orch.params:
        return [SCALAR if is_scalar_param(p) else DIRECTION_CODES[param_direction(p)] for p in orch.params]
    return [DIRECTION_CODES[d] for d in orch.signature]


def pack_tree(built) -> bytes:
    """The image of a built artifact tree (``ptokit.runtime.build.BuiltTree``)."""
    cfg = built.config
    children = [(k.func_id, [DIRECTION_CODES[d] for d in k.signature], Path(built.kernel_sos[k.func_id]).read_bytes())
                for k in cfg.kernels]
    config_name = Path(cfg.root).name.encode("utf-8")[:CALLABLE_FUNC_NAME_MAX - 1].decode("utf-8", "ignore")
    return pack_chip_callable(Path(built.orchestration_so).read_bytes(), children,
                              func_name=cfg.orchestration.function_name, config_name=config_name,
                              chip_signature=_tree_chip_signature(cfg))


# ---------------------------------------------------------------------------
# unpacking and patching
# ---------------------------------------------------------------------------


@dataclass
class CoreCallableView:
    func_id: int
    signature: list[int]
    binary: bytes
    offset: int            # child_offsets[i], relative to storage
    resolved_addr: int


@dataclass
class ChipCallableView:
    func_name: str
    config_name: str
    signature: list[int]
    orchestration: bytes
    children: list[CoreCallableView] = field(default_factory=list)
    storage_offset: int = 0

    def child(self, func_id: int) -> CoreCallableView:
        for c in self.children:
            if c.func_id == func_id:
                return c
        raise KeyError(func_id)


def _get(image, layout: StructLayout, name: str, base: int = 0) -> int:
    f = layout.field(name)
    return struct.unpack_from("<" + C_TYPES[f.ctype][2], image, base + f.offset)[0]


def _get_array(image, layout: StructLayout, name: str, n: int, base: int = 0) -> list[int]:
    f = layout.field(name)
    return list(struct.unpack_from(f"<{n}{C_TYPES[f.ctype][2]}", image, base + f.offset)) if n else []


def _bad(msg: str) -> UserError:
    return UserError(f"malformed callable image: {msg}")


def unpack_chip_callable(image: bytes, chip_max: int = CHIP_MAX_TENSOR_ARGS,
                         child_align: int = CALLABLE_CHILD_ALIGN) -> ChipCallableView:
    """Decode an image produced by :func:`pack_chip_callable` (validating every bound)."""
    layout = check_layout(chip_max, child_align)
    core = core_callable_layout()
    storage = layout.offsetof("storage")
    image = bytes(image)
    if len(image) < storage:
        raise _bad(f"{len(image)} bytes, shorter than the {storage}-byte header")
    sig_count = _get(image, layout, "sig_count")
    if not 0 <= sig_count <= chip_max:
        raise _bad(f"sig_count {sig_count} outside 0..{chip_max}")
    bin_size = _get(image, layout, "binary_size")
    if storage + bin_size > len(image):
        raise _bad(f"orchestration binary of {bin_size} bytes runs past the image end")
    names = []
    for fld, lfld in (("func_name", "func_name_len"), ("config_name", "config_name_len")):
        n = _get(image, layout, lfld)
        if n > CALLABLE_FUNC_NAME_MAX:
            raise _bad(f"{lfld} {n} > {CALLABLE_FUNC_NAME_MAX}")
        off = layout.offsetof(fld)
        names.append(image[off:off + n].decode("utf-8", "replace"))
    count = _get(image, layout, "child_count")
    if not 0 <= count <= CALLABLE_MAX_CHILDREN:
        raise _bad(f"child_count {count} outside 0..{CALLABLE_MAX_CHILDREN}")
    ids = _get_array(image, layout, "child_func_ids", count)
    offs = _get_array(image, layout, "child_offsets", count)
    children = []
    for i, (fid, off) in enumerate(zip(ids, offs)):
        base = storage + off
        if off % CALLABLE_ALIGN or base + binary_data_offset() > len(image):
            raise _bad(f"child {i} offset {off} misaligned or past the image end")
        n = _get(image, core, "sig_count", base)
        if not 0 <= n <= CORE_MAX_TENSOR_ARGS:
            raise _bad(f"child {i} sig_count {n} outside 0..{CORE_MAX_TENSOR_ARGS}")
        size = _get(image, core, "binary_size", base)
        start = base + binary_data_offset()
        if start + size > len(image):
            raise _bad(f"child {i} binary of {size} bytes runs past the image end")
        children.append(CoreCallableView(fid, _get_array(image, core, "signature", n, base),
                                         image[start:start + size], off,
                                         _get(image, core, "resolved_addr", base)))
    return ChipCallableView(func_name=names[0], config_name=names[1],
                            signature=_get_array(image, layout, "signature", sig_count),
                            orchestration=image[storage:storage + bin_size], children=children,
                            storage_offset=storage)


def patch_resolved_addrs(image: bytes, base: int, chip_max: int = CHIP_MAX_TENSOR_ARGS,
                         child_align: int = CALLABLE_CHILD_ALIGN) -> bytes:
    """A scratch copy of ``image`` with every child's ``resolved_addr`` set to
    ``base + offsetof(storage) + child_offset(i) + binary_data_offset()``.
    The caller's buffer is never modified."""
    view = unpack_chip_callable(image, chip_max, child_align)
    core = core_callable_layout()
    out = bytearray(image)
    for c in view.children:
        addr = base + view.storage_offset + c.offset + binary_data_offset()
        if not 0 <= addr <= 0xFFFFFFFFFFFFFFFF:
            raise UserError(f"resolved address {addr:#x} does not fit 64 bits")
        _put(out, core, "resolved_addr", addr, view.storage_offset + c.offset)
    return bytes(out)


__all__ = [
    "CORE_MAX_TENSOR_ARGS", "CHIP_MAX_TENSOR_ARGS", "CALLABLE_ALIGN", "CALLABLE_CHILD_ALIGN",
    "CALLABLE_FUNC_NAME_MAX", "CALLABLE_MAX_CHILDREN", "SCALAR", "IN", "OUT", "INOUT",
    "align_up", "binary_data_offset", "chip_callable_layout", "core_callable_layout", "check_layout",
    "layout_problems", "layout_report", "simt_verdict", "fnv1a64",
    "pack_core_callable", "pack_chip_callable", "pack_tree", "unpack_chip_callable", "patch_resolved_addrs",
    "ChipCallableView", "CoreCallableView",
]
