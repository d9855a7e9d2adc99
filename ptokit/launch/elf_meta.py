"""The a5 launch gate: read ``.ascend.meta.<entry>`` records of a kernel ELF and judge them.

See runtime.md ("a5 launch gate") and docs/launch-gate.md.  Each
``.ascend.meta.<entry>`` section holds a TLV stream (``uint16 type; uint16 len;``
then ``len`` bytes, little-endian).  Type 7 is the unified-buffer share
(``COMPILER_ALLOC_UB_SIZE``), type 12 the AIV classification (``AIV_TYPE_FLAG``).

How an entry is known to be AIV or AIC, in order:
  1. an explicit ``entry_kinds`` mapping (CLI ``--aiv NAME`` / ``--aic NAME``);
  2. the name suffix: ``..._aiv`` (including ``_mix_aiv``) is AIV, ``..._aic``
     (including ``_mix_aic``) is AIC;
  3. a TLV 12 record present: AIV (the compiler tagged it as a vector entry);
  4. otherwise AIC, flagged in the report as an assumption.

Every problem reading the file or the records raises :class:`ElfMetaError` (a
``UserError``); nothing else escapes :func:`decode_tlv`, :func:`read_meta_sections`
or :func:`inspect_elf`.
"""
from __future__ import annotations

import io
import struct
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

from ..errors import UserError

META_PREFIX = ".ascend.meta."
TLV_UB_SIZE = 7          # COMPILER_ALLOC_UB_SIZE
TLV_AIV_TYPE = 12        # AIV_TYPE_FLAG
AIV_TYPES = {1: "NO_VF", 2: "SIMD_VF_ONLY", 3: "SIMT_VF_ONLY", 4: "SIMD_SIMT_MIX_VF"}
RECORD_NAMES = {TLV_UB_SIZE: "COMPILER_ALLOC_UB_SIZE", TLV_AIV_TYPE: "AIV_TYPE_FLAG"}
UB_TOTAL = 256 * 1024
DATA_CACHE = 32 * 1024
UB_BUDGET = UB_TOTAL - DATA_CACHE          # 224 KB = 229376
UB_FLOOR = 8 * 1024                        # the compiler never emits less
TOOLCHAIN_FUNCS = frozenset({"_init", "_fini", "_start", "main", "frame_dummy", "register_tm_clones",
                             "deregister_tm_clones", "__do_global_dtors_aux"})

# the reasons, in runtime.md's words
REASON_SIMT_ONLY = "AIV entry classified SIMT_VF_ONLY: the runtime rejects every SIMD launch (107000, param-invalid)"
REASON_NO_VF = "AIV entry classified NO_VF: SIMT path will not run"
REASON_SIMD_ONLY = "AIV entry classified SIMD_VF_ONLY: SIMT path will not run"
REASON_MISSING = "AIV entry has no AIV_TYPE_FLAG record (read as NO_VF): SIMT path will not run"
REASON_SIMT_GLOBAL = "registered as a second kernel, 107000 (give the SIMT anchor static linkage)"
REASON_EXTRA_GLOBAL = "GLOBAL function beyond the expected kernel entries: registered as a kernel too, 107000"
DISPATCHER_SUFFIXES = ("_mix_aiv", "_mix_aic")   # the two entries of a mixed kernel's dispatcher


class ElfMetaError(UserError):
    """A file or TLV stream the launch-gate checker cannot read."""


@dataclass
class TlvRecord:
    type: int
    length: int
    value: bytes
    offset: int

    @property
    def name(self) -> str:
        return RECORD_NAMES.get(self.type, f"unknown type {self.type}")

    def as_u32(self) -> int:
        if self.length != 4:
            raise ElfMetaError(f"{self.name} record at offset {self.offset} has length {self.length}, expected 4")
        return struct.unpack("<I", self.value)[0]


def decode_tlv(data: bytes, where: str = "TLV stream") -> list[TlvRecord]:
    """Decode a TLV stream.  Trailing zero bytes shorter than a record header are
    alignment padding; anything else that does not fit is an :class:`ElfMetaError`."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ElfMetaError(f"{where}: not a byte string ({type(data).__name__})")
    data = bytes(data)
    records = []
    pos = 0
    n = len(data)
    while pos < n:
        if n - pos < 4:
            if any(data[pos:]):
                raise ElfMetaError(f"{where}: truncated TLV header at offset {pos} "
                                   f"({n - pos} bytes left, a header needs 4)")
            break
        typ, length = struct.unpack_from("<HH", data, pos)
        if pos + 4 + length > n:
            raise ElfMetaError(f"{where}: TLV record type {typ} at offset {pos} has length {length}, "
                               f"past the end of the section ({n - pos - 4} bytes left)")
        records.append(TlvRecord(typ, length, data[pos + 4:pos + 4 + length], pos))
        pos += 4 + length
    return records


@dataclass
class Symbol:
    name: str
    bind: str          # GLOBAL | LOCAL | WEAK
    visibility: str    # DEFAULT | HIDDEN | ...
    section: str


@dataclass
class EntryReport:
    name: str
    section: str
    kind: str                       # "aiv" | "aic"
    kind_source: str                # how the kind was decided
    records: list = field(default_factory=list)     # [{"type", "name", "length", "value"}]
    ub_share: Optional[int] = None
    aiv_type: Optional[int] = None
    classification: str = "none"
    local_memory: int = 0
    budget_total: Optional[int] = None
    budget_ok: bool = True
    unknown_records: list = field(default_factory=list)
    reasons: list = field(default_factory=list)   # failures
    notes: list = field(default_factory=list)     # informational

    @property
    def passed(self) -> bool:
        return not self.reasons


@dataclass
class ElfReport:
    path: str
    entries: list
    global_functions: list
    local_functions: list
    symbol_problems: list
    local_memory: int = 0

    @property
    def passed(self) -> bool:
        return bool(self.entries) and all(e.passed for e in self.entries) and not self.symbol_problems

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "passed": self.passed,
            "local_memory": self.local_memory,
            "ub_budget": UB_BUDGET,
            "entries": [dict(asdict(e), passed=e.passed) for e in self.entries],
            "global_functions": [asdict(s) for s in self.global_functions],
            "local_functions": [asdict(s) for s in self.local_functions],
            "symbol_problems": list(self.symbol_problems),
        }


# ---------------------------------------------------------------------------
# ELF reading (pyelftools), every failure turned into ElfMetaError
# ---------------------------------------------------------------------------


def _open_elf(data: bytes, where: str):
    # lazy: pyelftools takes ~40 ms to import and only reading an ELF needs it (launch/ is also
    # loaded by every compile, for the SIMT anchor header)
    from elftools.elf.elffile import ELFFile
    if len(data) < 4 or data[:4] != b"\x7fELF":
        raise ElfMetaError(f"{where}: not an ELF file (no \\x7fELF magic)")
    try:
        return ELFFile(io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001 -- pyelftools raises many types on bad input
        raise ElfMetaError(f"{where}: malformed ELF: {exc}") from None


def read_meta_sections(data: bytes, where: str = "<elf>") -> dict[str, bytes]:
    """``{entry: section bytes}`` for every ``.ascend.meta.<entry>`` section."""
    elf = _open_elf(data, where)
    out: dict[str, bytes] = {}
    try:
        for sec in elf.iter_sections():
            name = sec.name
            if not name.startswith(META_PREFIX):
                continue
            entry = name[len(META_PREFIX):]
            if sec["sh_type"] == "SHT_NOBITS":
                raise ElfMetaError(f"{where}: section {name} has no contents (NOBITS)")
            size, off = sec["sh_size"], sec["sh_offset"]
            if off + size > len(data):
                raise ElfMetaError(f"{where}: section {name} ({size} bytes at {off}) runs past the end of the file")
            out[entry] = data[off:off + size]
    except ElfMetaError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise ElfMetaError(f"{where}: malformed ELF section table: {exc}") from None
    return out


def read_function_symbols(data: bytes, where: str = "<elf>") -> list[Symbol]:
    """Defined FUNC symbols of ``.symtab`` (or ``.dynsym`` when stripped)."""
    from elftools.elf.sections import SymbolTableSection   # lazy: see _open_elf
    elf = _open_elf(data, where)
    syms: list[Symbol] = []
    try:
        tables = [s for s in elf.iter_sections() if isinstance(s, SymbolTableSection)]
        tables.sort(key=lambda s: 0 if s.name == ".symtab" else 1)
        if not tables:
            return []
        table = tables[0]
        for sym in table.iter_symbols():
            if sym["st_info"]["type"] != "STT_FUNC" or sym["st_shndx"] == "SHN_UNDEF":
                continue
            bind = str(sym["st_info"]["bind"]).replace("STB_", "")
            vis = str(sym["st_other"]["visibility"]).replace("STV_", "")
            shndx = sym["st_shndx"]
            try:
                sec = elf.get_section(shndx).name if isinstance(shndx, int) else str(shndx)
            except Exception:  # noqa: BLE001
                sec = "?"
            syms.append(Symbol(sym.name, bind, vis, sec))
    except Exception as exc:  # noqa: BLE001
        raise ElfMetaError(f"{where}: malformed symbol table: {exc}") from None
    return syms


# ---------------------------------------------------------------------------
# verdicts
# ---------------------------------------------------------------------------


def entry_kind(name: str, has_aiv_type: bool, entry_kinds: Optional[dict] = None) -> tuple[str, str]:
    """(kind, how it was decided) -- see the module docstring."""
    if entry_kinds and name in entry_kinds:
        return entry_kinds[name], "given on the command line"
    if name.endswith("_aiv"):
        return "aiv", "name suffix _aiv"
    if name.endswith("_aic"):
        return "aic", "name suffix _aic"
    if has_aiv_type:
        return "aiv", "AIV_TYPE_FLAG record present"
    return "aic", "assumed (no _aiv/_aic suffix, no AIV_TYPE_FLAG record)"


def judge_entry(name: str, section_bytes: bytes, local_memory: int = 0,
                entry_kinds: Optional[dict] = None) -> EntryReport:
    """Decode one entry's records and give its verdict (raises ElfMetaError on a bad stream)."""
    where = f"section {META_PREFIX}{name}"
    records = decode_tlv(section_bytes, where)
    ub = aiv = None
    unknown = []
    for r in records:
        if r.type == TLV_UB_SIZE:
            if ub is not None:
                raise ElfMetaError(f"{where}: two COMPILER_ALLOC_UB_SIZE records")
            ub = r.as_u32()
        elif r.type == TLV_AIV_TYPE:
            if aiv is not None:
                raise ElfMetaError(f"{where}: two AIV_TYPE_FLAG records")
            aiv = r.as_u32()
        else:
            unknown.append({"type": r.type, "length": r.length, "value": r.value.hex()})
    kind, how = entry_kind(name, aiv is not None, entry_kinds)
    rep = EntryReport(name=name, section=META_PREFIX + name, kind=kind, kind_source=how,
                      records=[{"type": r.type, "name": r.name, "length": r.length, "value": r.value.hex()}
                               for r in records],
                      ub_share=ub, aiv_type=aiv, local_memory=local_memory, unknown_records=unknown)
    rep.classification = AIV_TYPES.get(aiv, f"invalid ({aiv})") if aiv is not None else "none"
    if how.startswith("assumed"):
        rep.notes.append("kind assumed AIC; pass --aiv " + name + " if this is the AIV dispatcher")
    if unknown:
        rep.notes.append(f"{len(unknown)} unknown record type(s): " + ", ".join(str(u["type"]) for u in unknown))
    if kind == "aiv":
        if aiv is None:
            rep.reasons.append(REASON_MISSING)
        elif aiv == 3:
            rep.reasons.append(REASON_SIMT_ONLY)
        elif aiv == 1:
            rep.reasons.append(REASON_NO_VF)
        elif aiv == 2:
            rep.reasons.append(REASON_SIMD_ONLY)
        elif aiv != 4:
            rep.reasons.append(f"AIV entry has an invalid AIV_TYPE_FLAG value {aiv} (valid: 1-4)")
    else:
        if aiv is not None:
            rep.reasons.append(f"AIC entry carries a VF tag (AIV_TYPE_FLAG = {aiv} {rep.classification}); "
                               "AIC entries must carry none")
    if ub is not None:
        rep.budget_total = ub + local_memory
        rep.budget_ok = rep.budget_total <= UB_BUDGET
        if not rep.budget_ok:
            rep.reasons.append(f"UB budget exceeded: TLV7 {ub} + local memory {local_memory} = {rep.budget_total} "
                               f"> {UB_BUDGET} (224 KB = 256 KB UB - 32 KB data cache)")
        if ub < UB_FLOOR:
            rep.notes.append(f"UB share {ub} is below the compiler's 8 KB floor (hand-written record?)")
    elif kind == "aiv":
        rep.notes.append("no COMPILER_ALLOC_UB_SIZE record: budget not checked")
    return rep


def inspect_elf_bytes(data: bytes, local_memory: int = 0, entry_kinds: Optional[dict] = None,
                      expected_globals: tuple = (), where: str = "<elf>") -> ElfReport:
    if not isinstance(local_memory, int) or local_memory < 0:
        raise ElfMetaError(f"local memory must be a non-negative byte count, got {local_memory!r}")
    sections = read_meta_sections(data, where)
    if not sections:
        raise ElfMetaError(f"{where}: no {META_PREFIX}<entry> sections: not a kernel ELF built for the a5 "
                           "launch path (or the records were stripped)")
    entries = [judge_entry(name, raw, local_memory, entry_kinds) for name, raw in sections.items()]
    funcs = read_function_symbols(data, where)
    globals_ = [s for s in funcs if s.bind in ("GLOBAL", "WEAK")]
    locals_ = [s for s in funcs if s.bind == "LOCAL"]
    exported = {s.name for s in globals_ if s.visibility in ("DEFAULT", "PROTECTED")}
    # The mixed dispatcher's two entries are the kernels the launch path registers, with or without an
    # .ascend.meta section of their own (an AIC entry needs no records; an AIV one without them reads
    # as NO_VF and fails as such): judged as entries, never as extra GLOBALs.
    have = {e.name for e in entries}
    for name in sorted(exported - have):
        if name.endswith(DISPATCHER_SUFFIXES):
            e = judge_entry(name, b"", local_memory, entry_kinds)
            e.section = "(none)"
            e.notes.append(f"no {META_PREFIX}{name} section: a mixed dispatcher entry without records of its own")
            entries.append(e)
    expected = {e.name for e in entries} | set(expected_globals)
    problems = []
    for s in globals_:
        if s.name in expected or s.name in TOOLCHAIN_FUNCS or s.visibility not in ("DEFAULT", "PROTECTED"):
            continue
        if s.name.endswith("_simt_entry"):
            problems.append(f"GLOBAL {s.name}: {REASON_SIMT_GLOBAL}")
        else:
            problems.append(f"GLOBAL {s.name}: {REASON_EXTRA_GLOBAL}")
    if funcs:  # with no symbol table at all, exports cannot be checked
        for e in entries:
            if e.name not in exported:
                e.reasons.append("the entry is not exported as a GLOBAL function symbol")
    return ElfReport(path=where, entries=entries, global_functions=globals_, local_functions=locals_,
                     symbol_problems=problems, local_memory=local_memory)


def inspect_elf(path, local_memory: int = 0, entry_kinds: Optional[dict] = None,
                expected_globals: tuple = ()) -> ElfReport:
    """Check every ``.ascend.meta.<entry>`` of the ELF at ``path`` (see module docstring)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ElfMetaError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return inspect_elf_bytes(data, local_memory, entry_kinds, tuple(expected_globals), where=str(p))


def format_report(rep: ElfReport) -> str:
    kb = lambda n: f"{n} ({n / 1024:g} KB)"  # noqa: E731
    out = [f"{rep.path}: {len(rep.entries)} kernel entr{'y' if len(rep.entries) == 1 else 'ies'}, "
           f"local memory {rep.local_memory}, UB budget {kb(UB_BUDGET)}"]
    for e in rep.entries:
        out.append(f"  entry {e.name}  [{e.kind.upper()}: {e.kind_source}]  {'PASS' if e.passed else 'FAIL'}")
        out.append(f"    classification: {e.classification}")
        out.append(f"    UB share (TLV7): {kb(e.ub_share) if e.ub_share is not None else 'none'}")
        if e.budget_total is not None:
            out.append(f"    budget: {e.ub_share} + {e.local_memory} = {e.budget_total} "
                       f"{'<=' if e.budget_ok else '>'} {UB_BUDGET}: {'ok' if e.budget_ok else 'EXCEEDED'}")
        for r in e.records:
            out.append(f"    record type {r['type']} ({r['name']}) len {r['length']}: {r['value']}")
        for why in e.reasons:
            out.append(f"    FAIL: {why}")
        for note in e.notes:
            out.append(f"    note: {note}")
    out.append("  GLOBAL functions: " + (", ".join(s.name for s in rep.global_functions) or "(none)"))
    out.append("  LOCAL functions: " + (", ".join(s.name for s in rep.local_functions) or "(none)"))
    for p in rep.symbol_problems:
        out.append(f"  FAIL: {p}")
    out.append(f"result: {'PASS' if rep.passed else 'FAIL'}")
    return "\n".join(out)


__all__ = [
    "ElfMetaError", "TlvRecord", "EntryReport", "ElfReport", "Symbol", "decode_tlv", "read_meta_sections",
    "read_function_symbols", "judge_entry", "inspect_elf", "inspect_elf_bytes", "format_report",
    "UB_BUDGET", "AIV_TYPES",
]
