// libptosim's third translation unit: the tile operations for runtime shapes (pto/cpu/ops_hooks.hpp),
// the loops kernels built with -DPTO_CPU_OOL_OPS call, compiled once per cache beside the runtime
// (ptosim.cpp) and the cube (ptosim_cube.cpp) (runtime/sim/driver.py LIBRARY_UNITS). Only their
// extern "C" hooks are exported: the tile library's C++ functions stay private, so that a kernel's
// own copies of them (built with other defines) never bind to these.
#define PTO_CPU_SIM_HOOKS_IMPL 1
#include "pto/cpu_sim_hooks.h"
// the C and C++ library headers the tile library uses, declared here with their own visibility: a
// first inclusion inside the hidden region below would make stderr, getenv, ... hidden references
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <utility>
#pragma GCC visibility push(hidden)
#include "pto/cpu/ops_hooks.hpp"
#pragma GCC visibility pop
