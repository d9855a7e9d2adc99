// CPU tile library: what the out-of-line tile operations of cpu_sim_hooks.h (pto_cpu_op_*) share:
// the dispatch on element types and layouts. The operations themselves are defined in
// pto/cpu/ops_hooks_main.hpp and pto/cpu/ops_hooks_reduce.hpp (two headers, so that a runtime
// library can compile them as two units, each with its own optimisation flags); pto/cpu/ops_hooks.hpp
// includes both.
#ifndef PTO_CPU_OPS_HOOKS_COMMON_HPP
#define PTO_CPU_OPS_HOOKS_COMMON_HPP

#if !defined(PTO_CPU_SIM_HOOKS_IMPL) && !defined(PTO_CPU_OPS_IMPL)
#error "the out-of-line operations define hooks: #define PTO_CPU_OPS_IMPL (or PTO_CPU_SIM_HOOKS_IMPL) and include pto/cpu_sim_hooks.h first"
#endif

#include "pto/cpu/ops.hpp"
#include "pto/cpu/fifo.hpp"

namespace pto { namespace cpu { namespace ool {

// f(T{}) for the element type of datatype_code `code` among the arithmetic types (ool_arith).
template <typename F>
inline bool with_arith(int32_t code, F f) {
    switch (code) {
        case datatype_code<float>(): f(float{}); return true;
        case datatype_code<half>(): f(half{}); return true;
        case datatype_code<bfloat16_t>(): f(bfloat16_t{}); return true;
        case datatype_code<int32_t>(): f(int32_t{}); return true;
    }
    return false;
}
// An unsigned integer of the element size of `code`: copies of one type move bits (ool_bits).
template <typename F>
inline bool with_bits(int32_t code, F f) {
    switch (code) {
        case datatype_code<int8_t>(): case datatype_code<uint8_t>(): case datatype_code<bool>():
            f(uint8_t{}); return true;
        case datatype_code<half>(): case datatype_code<bfloat16_t>(): case datatype_code<int16_t>():
        case datatype_code<uint16_t>():
            f(uint16_t{}); return true;
        case datatype_code<float>(): case datatype_code<int32_t>(): case datatype_code<uint32_t>():
            f(uint32_t{}); return true;
        case datatype_code<int64_t>(): case datatype_code<uint64_t>():
            f(uint64_t{}); return true;
    }
    return false;
}

[[noreturn]] inline void unsupported(const char* instr, int32_t a, int32_t b) {
    fatal(instr, "the runtime library's out-of-line operation has no loop for element types %d and %d", a, b);
}

inline Ix ix_of(const PtoCpuTileRef* t) { return Ix{t->rows, t->cols, t->col_stored != 0}; }

// f(layout of a, layout of b, layout of c): IxRowMajor when the three are row-major (the loops then
// vectorise as the inlined ones do), else Ix.
template <typename F>
inline void with_layouts(const PtoCpuTileRef* a, const PtoCpuTileRef* b, const PtoCpuTileRef* c, F f) {
    if (!a->col_stored && !b->col_stored && !c->col_stored)
        f(IxRowMajor{a->rows, a->cols}, IxRowMajor{b->rows, b->cols}, IxRowMajor{c->rows, c->cols});
    else
        f(ix_of(a), ix_of(b), ix_of(c));
}

}}}  // namespace pto::cpu::ool

#endif
