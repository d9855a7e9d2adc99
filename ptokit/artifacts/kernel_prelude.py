"""The first lines of every generated kernel source, after its comment line.

``ptokit.backend.wrapper`` writes them; the build (``ptokit.runtime.pch``) recognises a kernel
that starts with them and gives it the tile library's precompiled header, which holds the same
headers (the two macros are the library's own definitions under ``__CPU_SIM``)."""

PRELUDE = (
    "#include <cstdint>",
    "",
    "#ifndef __gm__",
    "#define __gm__",
    "#endif",
    "#ifndef __aicore__",
    "#ifdef __CPU_SIM",
    "#define __aicore__",
    "#else",
    "#define __aicore__ [aicore]",
    "#endif",
    "#endif",
    "",
    "#include <pto/pto-inst.hpp>",
    '#include "tensor.h"',
)
# the prelude's headers, in its order: what the precompiled header holds
HEADERS = ("<cstdint>", "<pto/pto-inst.hpp>", '"tensor.h"')
