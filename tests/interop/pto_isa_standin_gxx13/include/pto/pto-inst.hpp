// A stand-in for pto-isa's CPU headers, for ptokit's tests only (NOT pto-isa): the one construct of
// pto-isa's CPU headers that g++ before 13 cannot compile -- static_assert(false) in a template that
// is never instantiated (pto-isa has one in pto/cpu/TReduceIdx.hpp; g++ 13+ and clang 17+ accept it,
// P2593) -- then ptokit's own tile library.
template <typename T>
inline void pto_standin_unsupported_element() {
    static_assert(false, "pto-isa stand-in: unsupported element type");
}
#include_next <pto/pto-inst.hpp>
