// ptokit's CPU implementation of the PTO tile API (the subset assembler output uses).
// Source-compatible with the vendor's pto-isa library; see docs/tile-api.md.
//
//   g++ -std=c++17 -O2 -fPIC -shared -D__CPU_SIM [-D__DAV_VEC__|-D__DAV_CUBE__] -I<this folder's parent>
//
// Tiles are views into per-core buffers that the simulator provides through the hooks of
// pto/cpu_sim_hooks.h (a thread-local default core with a2a3 capacities when it does not).
#ifndef PTO_PTO_INST_HPP
#define PTO_PTO_INST_HPP

#include "pto/cpu/types.hpp"
#include "pto/cpu/core.hpp"
#include "pto/cpu/tile.hpp"
#include "pto/cpu/estimate.hpp"
#include "pto/cpu/ops.hpp"
#include "pto/cpu/fusion.hpp"
#include "pto/cpu/ops_view.hpp"
#include "pto/cpu/ops_gather.hpp"
#include "pto/cpu/ops_sort.hpp"
#include "pto/cpu/ops_compare.hpp"
#include "pto/cpu/ops_bitwise.hpp"
#include "pto/cpu/ops_arith.hpp"
#include "pto/cpu/ops_reduce2.hpp"
#include "pto/cpu/ops_gen.hpp"
#include "pto/cpu/ops_scalar.hpp"
#include "pto/cpu/ops_cube.hpp"
#include "pto/cpu/fifo.hpp"
#include "pto/cpu/events.hpp"
#include "pto/cpu/comm.hpp"
#include "pto/cpu/comm_dsl.hpp"
#include "pto/cpu/prefetch.hpp"

#endif
