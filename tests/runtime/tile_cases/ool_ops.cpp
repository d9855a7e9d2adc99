// The runtime library's out-of-line tile operations (pto/cpu/ops_hooks.hpp), linked into a test's
// shared object beside a case file built with -DPTO_CPU_OOL_OPS: its instructions then call these
// as a simulator kernel calls libptosim's.
#define PTO_CPU_OPS_IMPL
#include "pto/cpu_sim_hooks.h"
#include "pto/cpu/ops_hooks.hpp"
