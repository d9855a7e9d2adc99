// libptosim's third translation unit: the tile operations for runtime shapes (pto/cpu/ops_hooks.hpp),
// the loops kernels built with -DPTO_CPU_OOL_OPS call, compiled once per cache beside the runtime
// (ptosim.cpp) and the cube (ptosim_cube.cpp) (runtime/sim/driver.py LIBRARY_UNITS). Only their
// extern "C" hooks are exported: the tile library's C++ functions stay private, so that a kernel's
// own copies of them (built with other defines) never bind to these.
#define PTO_CPU_SIM_HOOKS_IMPL 1
#include "pto/cpu_sim_hooks.h"
#pragma GCC visibility push(hidden)
#include "pto/cpu/ops_hooks.hpp"
#pragma GCC visibility pop
