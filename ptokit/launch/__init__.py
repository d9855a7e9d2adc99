"""The a5 launch gate: ``.ascend.meta`` checker (``inspect_elf``) and the SIMT anchor header."""
from .elf_meta import ElfMetaError, ElfReport, EntryReport, decode_tlv, inspect_elf
from .simt_anchor import ANCHOR_HEADER_NAME, write_anchor_header

__all__ = ["inspect_elf", "ElfReport", "EntryReport", "ElfMetaError", "decode_tlv",
           "write_anchor_header", "ANCHOR_HEADER_NAME"]
