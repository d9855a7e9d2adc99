"""Syntax of the cross-core event and barrier ops (pypto-parity E4), read and written here:

    pto.sync.set <PIPE_MTE3>, 0 {ffts_mode = 2 : i32}       (event: an integer or an index value %e)
    pto.sync.wait <PIPE_MTE2>, 0
    pto.set_ffts %ws : !pto.ptr<i64>
    pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<mix>
    pto.syncall(%ws[, %n] : !pto.ptr<i32>[, i32]) mode = #pto.sync_all_mode<soft>, core_type = ...

An op keeps its pipe in ``extra["pipe"]`` ("MTE3"), a constant event in ``extra["event"]``, and
syncall's words in ``extra["mode"]`` / ``extra["core_type"]``.
"""
from __future__ import annotations

from .ast import Op
from .lexer import HASH, IDENT, INT, PERCENT, int_value

PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL")
SYNCALL_MODES = ("hard", "soft")
SYNCALL_CORES = ("mix", "aiv_only", "aic_only")


def parse(p, op: Op) -> None:
    """Read the op's body after its name (``p`` is the .pto Parser)."""
    name = op.name
    if name in ("pto.sync.set", "pto.sync.wait"):
        p.expect("<", f"after {name} (the pipe, e.g. <PIPE_MTE2>)")
        t = p.tok
        if t.kind != IDENT or not t.text.startswith("PIPE_") or t.text[5:] not in PIPES:
            raise p.error(f"expected a pipe PIPE_{' | PIPE_'.join(PIPES)}, found '{t.text}'", t)
        p.next()
        op.extra["pipe"] = t.text[5:]
        p.expect(">", "after the pipe")
        p.expect(",", "before the event id")
        if p.tok.kind == INT:
            ev = int_value(p.next().text)
            if not 0 <= ev <= 15:
                raise p.error(f"event id {ev} is outside 0..15")
            op.extra["event"] = ev
        elif p.tok.kind == PERCENT:
            op.operands = [p.parse_use()]
        else:
            raise p.error("expected an event id (an integer or an index value)")
        p.parse_opt_attrs(op)
    elif name == "pto.set_ffts":
        op.operands = [p.parse_use()]
        p.expect(":", "before the workspace type")
        op.colon_types = [p.parse_type()]
    else:
        p.expect("(", "after pto.syncall")
        if p.tok.kind == PERCENT:
            op.operands = p.parse_operand_list()
            p.expect(":", "before the operand types")
            op.colon_types = p.parse_type_list()
        p.expect(")", "to close pto.syncall's operands")
        for i, (key, prefix, words) in enumerate((("mode", "#pto.sync_all_mode<", SYNCALL_MODES),
                                                  ("core_type", "#pto.sync_core_type<", SYNCALL_CORES))):
            if i:
                p.expect(",", f"before {key}")
            p.expect_ident(key)
            p.expect("=", f"after {key}")
            t = p.tok
            word = t.text[len(prefix):-1] if t.kind == HASH and t.text.startswith(prefix) and t.text.endswith(">") \
                else None
            if word not in words:
                raise p.error(f"expected {prefix}{'|'.join(words)}>, found '{t.text}'", t)
            p.next()
            op.extra[key] = word


def body(op: Op, use, types, attr_dict) -> str:
    """The op's text after its mnemonic (the printer's helpers passed in)."""
    if op.name in ("pto.sync.set", "pto.sync.wait"):
        ev = use(op.operands[0]) if op.operands else str(op.extra["event"])
        attrs = attr_dict(op.attrs, op.attr_order)
        return f" <PIPE_{op.extra['pipe']}>, {ev}" + (f" {attrs}" if attrs else "")
    if op.name == "pto.set_ffts":
        return f" {use(op.operands[0])} : {op.colon_types[0]}"
    inner = ""
    if op.operands:
        inner = ", ".join(map(use, op.operands)) + " : " + types(op.colon_types)
    return (f"({inner}) mode = #pto.sync_all_mode<{op.extra['mode']}>, "
            f"core_type = #pto.sync_core_type<{op.extra['core_type']}>")
