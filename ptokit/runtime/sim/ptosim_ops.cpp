// libptosim's units of tile operations for runtime shapes (pto/cpu/ops_hooks.hpp), the loops
// kernels built with -DPTO_CPU_OOL_OPS call, compiled once per cache beside the runtime (ptosim.cpp)
// and the cube (ptosim_cube.cpp) (runtime/sim/driver.py LIBRARY_UNITS). This one holds all but the
// reductions (ptosim_ops_reduce.cpp), which need other optimisation flags. Only their extern "C" hooks
// are exported: the tile library's C++ functions stay private, so that a kernel's own copies of them
// (built with other defines) never bind to these.
#include "ptosim_ops_prelude.h"
#pragma GCC visibility push(hidden)
#include "pto/cpu/ops_hooks_main.hpp"
#pragma GCC visibility pop
