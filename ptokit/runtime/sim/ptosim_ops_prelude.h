// What libptosim's units of out-of-line tile operations (ptosim_ops.cpp, ptosim_ops_reduce.cpp) include
// before the operations: the hook declarations, and the C and C++ library headers the tile library
// uses, declared here with their own visibility: a first inclusion inside the hidden region that
// follows would make stderr, getenv, ... hidden references.
#ifndef PTOSIM_OPS_PRELUDE_H
#define PTOSIM_OPS_PRELUDE_H
#define PTO_CPU_SIM_HOOKS_IMPL 1
#include "pto/cpu_sim_hooks.h"
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
#endif
