"""Tokenizer for PTO-dialect MLIR text.

Every token carries its 1-based line and column so that any error can point at
the offending token.  Dialect type and attribute bodies (``!pto.tile_buf<...>``,
``#pto.kernel_kind<vector>``) are captured whole, balanced angle brackets
included, and parsed later by the type parser (as MLIR does for dialect types).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from ..errors import AssemblerError, SourceLoc

# token kinds
PERCENT = "percent"      # %name, %0, %r#1
AT = "at"                # @symbol
TYPE = "type"            # !dialect.name<body>  or !alias
HASH = "hash"            # #dialect.name<body>, #dialect<body>, #alias
IDENT = "ident"          # bare identifier: module, f32, arith.addi, ins, ...
INT = "int"
FLOAT = "float"
STRING = "string"
PUNCT = "punct"          # ( ) [ ] { } < > , : = -> ? *
EOF = "eof"

_ID_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_ID_CHARS = _ID_START | set("0123456789$.")
_SUFFIX_CHARS = _ID_CHARS | set("-#")


@dataclass
class Token:
    kind: str
    text: str
    line: int
    col: int
    # for TYPE / HASH tokens: the dialect name part and the raw <...> body
    name: str = ""
    body: Optional[str] = None
    body_line: int = 0
    body_col: int = 0

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Token({self.kind}, {self.text!r}, {self.line}:{self.col})"


class SourceText:
    """The source being assembled, for building located errors."""

    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename
        self.lines = text.split("\n")

    def loc(self, line: int, col: int) -> SourceLoc:
        src = self.lines[line - 1] if 1 <= line <= len(self.lines) else None
        return SourceLoc(self.filename, line, col, src)

    def error(self, message: str, line: int, col: int) -> AssemblerError:
        return AssemblerError(message, self.loc(line, col))


def tokenize(src: SourceText) -> List[Token]:
    text = src.text
    n = len(text)
    i = 0
    line = 1
    line_start = 0
    toks: List[Token] = []

    def col_of(pos: int) -> int:
        return pos - line_start + 1

    while i < n:
        c = text[i]
        if c == "\n":
            i += 1
            line += 1
            line_start = i
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        start = i
        col = col_of(i)
        tok_line = line
        if c in "%@":
            j = i + 1
            if j < n and text[j] == '"' and c == "@":
                # quoted symbol name
                k = text.find('"', j + 1)
                if k < 0 or "\n" in text[j:k]:
                    raise src.error("unterminated quoted symbol name", line, col)
                toks.append(Token(AT, text[j + 1:k], line, col))
                i = k + 1
                continue
            while j < n and text[j] in _SUFFIX_CHARS:
                j += 1
            if j == i + 1:
                raise src.error(f"expected a name after {c!r}", line, col)
            toks.append(Token(PERCENT if c == "%" else AT, text[i + 1:j], line, col))
            i = j
            continue
        if c in "!#":
            j = i + 1
            while j < n and text[j] in _SUFFIX_CHARS:
                j += 1
            name = text[i + 1:j]
            if not name:
                raise src.error(f"expected a dialect name after {c!r}", line, col)
            body = None
            bline = bcol = 0
            if j < n and text[j] == "<":
                # capture a balanced <...> body (may span lines, may nest)
                depth = 0
                k = j
                bline, bcol = line, col_of(j + 1)
                in_str = False
                while k < n:
                    ch = text[k]
                    if in_str:
                        if ch == "\\":
                            k += 2
                            continue
                        if ch == '"':
                            in_str = False
                    elif ch == '"':
                        in_str = True
                    elif ch == "<":
                        depth += 1
                    elif ch == ">":
                        # '->' inside a body is an arrow, not a closing bracket
                        if k > 0 and text[k - 1] == "-":
                            pass
                        else:
                            depth -= 1
                            if depth == 0:
                                break
                    k += 1
                if k >= n:
                    raise src.error(f"unexpected end of file: unterminated '<' in {c}{name}", line, col)
                body = text[j + 1:k]
                # advance line bookkeeping over newlines inside the body
                seg = text[i:k + 1]
                nl = seg.count("\n")
                if nl:
                    line += nl
                    line_start = i + seg.rfind("\n") + 1
                j = k + 1
            toks.append(Token(TYPE if c == "!" else HASH, text[start:j], tok_line, col,
                              name=name, body=body, body_line=bline, body_col=bcol))
            i = j
            continue
        if c == '"':
            j = i + 1
            buf = []
            while j < n and text[j] != '"':
                if text[j] == "\n":
                    raise src.error("unterminated string literal", line, col)
                if text[j] == "\\" and j + 1 < n:
                    buf.append(text[j:j + 2])
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            if j >= n:
                raise src.error("unterminated string literal", line, col)
            toks.append(Token(STRING, "".join(buf), line, col))
            i = j + 1
            continue
        if c.isdigit() or (c == "-" and i + 1 < n and text[i + 1].isdigit()):
            j = i + 1 if c == "-" else i
            if text.startswith(("0x", "0X"), j):
                j += 2
                while j < n and text[j] in "0123456789abcdefABCDEF":
                    j += 1
                if j == i + 2 + (c == "-"):
                    raise src.error("malformed hexadecimal literal", line, col)
                toks.append(Token(INT, text[i:j], line, col))
                i = j
                continue
            while j < n and text[j].isdigit():
                j += 1
            is_float = False
            if j < n and text[j] == "." and j + 1 <= n:
                is_float = True
                j += 1
                while j < n and text[j].isdigit():
                    j += 1
            if j < n and text[j] in "eE" and is_float:
                k = j + 1
                if k < n and text[k] in "+-":
                    k += 1
                if k < n and text[k].isdigit():
                    j = k
                    while j < n and text[j].isdigit():
                        j += 1
            toks.append(Token(FLOAT if is_float else INT, text[i:j], line, col))
            i = j
            continue
        if c == "^" and i + 1 < n and text[i + 1] in _ID_CHARS:      # a block label: ^bb0
            j = i + 1
            while j < n and text[j] in _ID_CHARS:
                j += 1
            toks.append(Token(IDENT, text[i:j], line, col))
            i = j
            continue
        if c in _ID_START:
            j = i + 1
            while j < n and text[j] in _ID_CHARS:
                j += 1
            toks.append(Token(IDENT, text[i:j], line, col))
            i = j
            continue
        if c == "-" and text.startswith("->", i):
            toks.append(Token(PUNCT, "->", line, col))
            i += 2
            continue
        if c in "()[]{}<>,:=?*+-":
            toks.append(Token(PUNCT, c, line, col))
            i += 1
            continue
        raise src.error(f"unexpected character {c!r}", line, col)
    toks.append(Token(EOF, "", line, col_of(i)))
    return toks


def int_value(text: str) -> int:
    """Value of an INT token (decimal, possibly with leading zeros, or 0x hex)."""
    neg = text.startswith("-")
    body = text[1:] if neg else text
    v = int(body, 16) if body[:2].lower() == "0x" else int(body, 10)
    return -v if neg else v
