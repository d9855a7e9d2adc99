"""``ptokit inspect-elf`` and ``ptokit callable-layout``: the a5 launch gate's checks."""
from __future__ import annotations

import argparse
import json
import sys

from ..errors import UserError
from ..launch.elf_meta import ElfMetaError, format_report, inspect_elf
from ..runtime import callable as cc
from .args import byte_count


def inspect_elf_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit inspect-elf",
                                 description="Check the .ascend.meta kernel classification of an a5 kernel ELF. "
                                             "Exit 0 only when every entry passes; 1 when one fails; "
                                             "2 when the file cannot be read.")
    ap.add_argument("file")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--local-memory", type=byte_count, default=0, metavar="N",
                    help="localMemorySize added to TLV7 for the 224 KB budget (bytes; 16K accepted)")
    ap.add_argument("--aiv", action="append", default=[], metavar="ENTRY", help="treat ENTRY as an AIV entry")
    ap.add_argument("--aic", action="append", default=[], metavar="ENTRY", help="treat ENTRY as an AIC entry")
    ap.add_argument("--expect-global", action="append", default=[], metavar="SYM",
                    help="a GLOBAL function symbol that is expected besides the entries")
    args = ap.parse_args(argv)
    kinds = {n: "aiv" for n in args.aiv}
    kinds.update({n: "aic" for n in args.aic})
    try:
        rep = inspect_elf(args.file, local_memory=args.local_memory, entry_kinds=kinds,
                          expected_globals=tuple(args.expect_global))
    except ElfMetaError as exc:
        if args.json:
            print(json.dumps({"path": args.file, "passed": False, "error": str(exc)}, indent=2))
        print(f"ptokit inspect-elf: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rep.to_dict(), indent=2))
    else:
        print(format_report(rep))
    return 0 if rep.passed else 1


def callable_layout_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit callable-layout",
                                 description="Print the ChipCallable field offsets, offsetof(storage) and the "
                                             "SIMT code-alignment verdict (the packer's asserts). "
                                             "Exit 0 when the layout may be emitted and SIMT-safe.")
    ap.add_argument("--chip-max-tensor-args", type=int, default=cc.CHIP_MAX_TENSOR_ARGS, metavar="N")
    ap.add_argument("--child-align", type=int, default=cc.CALLABLE_CHILD_ALIGN, metavar="A",
                    help="alignas() on storage; 0 or 1 = none (default %(default)s)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    try:
        rep = cc.layout_report(args.chip_max_tensor_args, args.child_align)
    except UserError as exc:
        print(f"ptokit callable-layout: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rep, indent=2))
    else:
        align = f"alignas({rep['child_align']})" if rep["child_align"] > 1 else "no alignas"
        print(f"ChipCallable (CHIP_MAX_TENSOR_ARGS={rep['chip_max_tensor_args']}, storage {align})")
        print(f"  {'offset':>6}  {'size':>6}  field")
        for f in rep["fields"]:
            decl = f"{f['ctype']} {f['name']}" + (f"[{f['count']}]" if f["count"] != 1 else "")
            if f["count"] == 0:
                decl = f"{f['ctype']} {f['name']}[]"
            print(f"  {f['offset']:>6}  {f['size']:>6}  {decl}")
        s = rep["storage_offset"]
        core = rep["core_callable"]
        print(f"offsetof(storage) = {s}   mod 8 = {rep['mod8']}   mod 16 = {rep['mod16']}")
        print(f"CoreCallable: header {core['header_size']} bytes, alignof {core['alignof']}, "
              f"binary_data_offset {core['binary_data_offset']}")
        print(f"packer asserts: {'ok' if rep['asserts_ok'] else 'FAIL'}")
        for p in rep["assert_problems"]:
            print(f"  - {p}")
        print(f"SIMT alignment: {rep['simt_verdict']}")
    return 0 if rep["asserts_ok"] and rep["simt_ok"] else 1
