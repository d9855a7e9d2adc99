// libptosim's unit of out-of-line row and column reductions (pto/cpu/ops_hooks_reduce.hpp): apart
// from the other tile operations (ptosim_ops.cpp) so that it keeps -O2 while they are built with
// cheaper flags (runtime/sim/driver.py LIBRARY_UNITS). Only the extern "C" hook is exported.
#include "ptosim_ops_prelude.h"
#pragma GCC visibility push(hidden)
#include "pto/cpu/ops_hooks_reduce.hpp"
#pragma GCC visibility pop
