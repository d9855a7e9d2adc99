"""C++ spellings of DSL names: a parameter, local or dimension may be called ``new``, ``int`` or
``delete`` in Python, which generated C++ cannot declare.

``cxx_ident`` appends one ``_`` to every name whose stem (the name without trailing ``_``) is a
C++ keyword, a standard type or function name the generated code uses, or a name the generator
declares itself; every other name is spelled as written.  Because the choice depends on the stem
only, the mapping is one-to-one: ``new`` -> ``new_``, ``new_`` -> ``new__``, ``renew`` -> ``renew``.
The assembler (kernel function names), the kernel wrapper and the orchestration generator spell
names through it.
"""
from __future__ import annotations

import re
from typing import FrozenSet

CXX_KEYWORDS: FrozenSet[str] = frozenset({
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
    "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
    "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union",
    "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
})

# types, namespaces and macros generated code names: a local spelled like one would hide it
_USED_NAMES = frozenset({
    "std", "pto", "NULL", "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
    "uint64_t", "half", "bfloat16_t", "float16_t",
})

# names the generated functions declare or call themselves (orchestration and kernel entry)
_OWN_NAMES = frozenset({
    "args", "orch_args", "from_u64", "to_u64", "make_tensor_view", "make_tensor_reshape", "make_tensor_transpose", "get_block_idx", "get_block_num",
    "get_sub_block_id", "kernel_entry", "ChipTensor", "ChipTaskArgs", "CoreTaskArgs", "TensorCreateInfo",
})
_OWN_PATTERN = re.compile(r"(?:params_t|outs_t|argnames_|gm_pipe_t)\d+\w*|ext_\w*|rt_\w*|PTO2\w*|pto2\w*"
                          r"|\w+_(?:shapes|offs|ci|next|tensor|conv)")


def _reserved(stem: str) -> bool:
    return stem in CXX_KEYWORDS or stem in _USED_NAMES or stem in _OWN_NAMES or bool(_OWN_PATTERN.fullmatch(stem))


def cxx_ident(name: str) -> str:
    """``name`` as a C++ identifier that collides with no keyword, no name the generated code uses
    and no other DSL name (module docstring)."""
    stem = name.rstrip("_")
    return name + "_" if stem and _reserved(stem) else name
