// The include path of pto-isa's communication instructions (pto::comm). On the CPU they are
// part of ptokit's tile library: pto/cpu/comm.hpp.
#ifndef PTO_COMM_PTO_COMM_INST_HPP
#define PTO_COMM_PTO_COMM_INST_HPP

#include "pto/pto-inst.hpp"
#include "pto/cpu/comm.hpp"

#endif
