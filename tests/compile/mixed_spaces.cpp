// Not built: tests/compile/check_mixed_spaces.sh compiles it (syntax only) to check that a call
// mixing host and device containers is refused at compile time with kleene's message, and that
// the same calls on one memory space compile (KLEENE_CONTROL).

#include <kleene/apply.hpp>
#include <kleene/ewise.hpp>
#include <kleene/extract_assign.hpp>
#include <kleene/kronecker.hpp>
#include <kleene/mxm.hpp>
#include <kleene/reduce.hpp>
#include <kleene/select.hpp>
#include <kleene/semiring.hpp>
#include <kleene/transpose.hpp>

#include <cstdint>

using namespace kleene;
using h_csr = csr_matrix<float, std::int32_t, host>;
using d_csr = csr_matrix<float, std::int32_t, device>;
using h_vec = dense_vector<float, host>;
using d_vec = dense_vector<float, device>;

#ifdef KLEENE_CONTROL
using other_csr = d_csr;  // every container on the device
using other_vec = d_vec;
#else
using other_csr = h_csr;  // one container on the host
using other_vec = h_vec;
#endif

void calls(d_csr& c, d_csr const& a, other_csr const& b, d_vec& w, other_vec const& u,
           d_csr const& m) {
    mxm(c, a, b, plus_times<float>{});
    mxv(w, b, u, plus_times<float>{});
    ewise_add(c, plus_op<float>{}, a, b);
    ewise_mult(c, times_op<float>{}, b, a);
    apply(c, ainv_op<float>{}, b);
    select(c, tril{}, b);
    transpose(c, b);
    extract(c, b, all_indices, all_indices);
    assign(c, b, all_indices, all_indices);
    reduce(w, plus_monoid<float>{}, b);
    kronecker(c, times_op<float>{}, a, b);
    (void)m;
}

void masks(other_csr& c, d_csr const& a, d_csr const& m) {
    // A device mask over a host output, or (control) over a device one.
    mxm(c, mask(m), no_accum, c, c, plus_times<float>{});
    (void)a;
}
