"""The PTO dialect: what a ``.pto`` module may say, written and read by the same code.

- ``facts``    the tables: scalar names (with C++ types and sizes), the per-space layout
               defaults, pad codes, capacities and alignment.
- ``types``    ``!pto.ptr``, tensor/partition views, ``!pto.tile_buf`` (and the facts, re-exported).
- ``dialect``  the op table: each ``pto.*`` op's form, operands, attributes, pipe and C++
               lowering; the ``arith``/``scf`` tables.
- ``ast``      module, functions, ops, regions, attributes.
- ``lexer``, ``parser``  text -> AST (syntax only; located ``AssemblerError``\\s).
- ``printer``  AST -> text (the one printer).
- ``builder``  create ops/values/functions/modules from Python, checked against the op table.

PTO codegen (the writer) builds with ``builder`` and prints with ``printer``; the built-in
assembler (the reader, ``ptokit.backend.assembler``) parses with ``parser`` and checks and
lowers by the same table.  This package imports nothing from ``ptokit.ir``.
"""
from __future__ import annotations

__all__ = ["facts", "types", "dialect", "ast", "lexer", "parser", "printer", "builder"]
