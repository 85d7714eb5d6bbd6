#pragma once
// The checks and small helpers every operation's front end shares (mxm, mxv, vxm, ewise, apply,
// select, reduce, transpose, extract, assign, kronecker): the host container traits, the
// operands' descriptions for messages, the explain trace, the mask's and the product's shapes,
// the value types against the semiring, the host-only check with its thread scope, a pinned
// kernel that cannot run. They lived in mxm.hpp, which seven other operations included for
// them (issue 39, item 6).

#include <kleene/context.hpp>
#include <kleene/cpu/write_back.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/cuda/reduce_transpose.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/detail/device_dispatch.hpp>
#include <kleene/error.hpp>
#include <kleene/options.hpp>
#include <kleene/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene {

namespace detail {
/// A container or a transpose view of one, of either space, for messages and the explain trace:
/// "csr 3 x 4 (5 entries)", "device dense 3 x 4", "transpose of device csr ...".
template <class M>
std::string describe(M const& m) {
    if constexpr (is_transposed<M>) {
        return "transpose of " + describe(*m.m);
    } else {
        std::string const where = in_space<M, device> ? "device " : "";
        if constexpr (is_csr<M>)
            return where + "csr " + shape(m.rows(), m.cols()) + " (" + std::to_string(m.nnz()) +
                   " entries)";
        else if constexpr (is_dense<M>)
            return where + "dense " + shape(m.rows(), m.cols());
        else if constexpr (is_sparse_vec<M>)
            return where + "sparse vector " + std::to_string(m.size()) + " (" +
                   std::to_string(m.nnz()) + " entries)";
        else
            return where + "dense vector " + std::to_string(m.size());
    }
}
inline void trace(options const& opt, std::string line) {
    if (opt.explain) opt.explain->add(std::move(line));
}

template <class M>
std::size_t rows_of(M const& m) {
    if constexpr (requires { m.rows(); }) return m.rows();
    else return m.size();
}
template <class M>
std::size_t cols_of(M const& m) {
    if constexpr (requires { m.cols(); }) return m.cols();
    else return 1;
}

template <class Mask, class C>
void check_mask(char const* op, Mask const& mask, C const& c) {
    if constexpr (!std::is_same_v<Mask, no_mask_t>) {
        static_assert(std::is_same_v<space_of_t<Mask>, space_of_t<C>>,
                      "kleene: the mask and the output live in different memory spaces (host and "
                      "device); move the mask with to_device() or to_host() first");
        if (rows_of(*mask.m) != rows_of(c) || cols_of(*mask.m) != cols_of(c))
            throw dimension_mismatch(std::string(op) + ": mask is " + describe(*mask.m) +
                                     " but the output is " + describe(c));
    }
}

template <class S, class... Containers>
constexpr void check_types() {
    static_assert((std::is_same_v<typename Containers::value_type, typename S::value_type> && ...),
                  "kleene: the containers' value types must equal the semiring's value_type");
}

/// Checks that a host operation was not asked to run on the GPU; the returned scope runs the
/// operation's OpenMP regions with the context's thread count (context::threads).
[[nodiscard]] inline thread_scope check_host(char const* op, options const& opt) {
    if (opt.device == device_choice::gpu)
        throw invalid_argument(std::string(op) +
                               ": device=gpu was asked for host containers; move the operands with "
                               "to_device() first");
    return thread_scope(opt.ctx);
}

[[noreturn]] inline void bad_pin(char const* op, kernel_choice k, std::string const& operands) {
    throw invalid_argument(std::string(op) + ": kernel " + std::string(to_string(k)) +
                           " cannot compute " + operands);
}

/// C = A B's shapes: A's columns against B's rows, C's shape against the product's. `da` and `db`
/// describe A and B in the message (a transposed view says so).
template <class C, class A, class B>
void check_product_shapes(C const& c, A const& a, B const& b, std::string const& da,
                          std::string const& db) {
    if (a.cols() != b.rows())
        throw dimension_mismatch("mxm: cannot multiply A (" + da + ") by B (" + db + "): A has " +
                                 std::to_string(a.cols()) + " columns, B has " +
                                 std::to_string(b.rows()) + " rows");
    if (c.rows() != a.rows() || c.cols() != b.cols())
        throw dimension_mismatch("mxm: output C is " + shape(c.rows(), c.cols()) +
                                 " but A (+).(x) B is " + shape(a.rows(), b.cols()));
}

/// Whether the accumulator is the semiring's own add (then C (+)= A (x) B fuses into the GEMM).
template <class Accum, class S>
constexpr bool accum_is_add() {
    if constexpr (requires { typename S::add_monoid::op_type; })
        return std::is_same_v<Accum, typename S::add_monoid::op_type>;
    else
        return false;
}

/// A host vector operand as the CPU kernels read it (dense, or the sparse one's entries), and a
/// host mask's flags over n outputs (none without a mask).
template <class T, class V>
cpu::vector_result<T> load_vector(V const& v, T zero) {
    cpu::vector_result<T> r;
    cpu::load(r, v, zero);
    return r;
}
template <class Mask>
std::vector<std::uint8_t> prefilter(Mask const& mask, std::size_t n) {
    if constexpr (std::is_same_v<Mask, no_mask_t>) return {};
    else return cpu::mask_flags(mask, n);
}

/// A device operand as a device matrix: itself, or the transpose a view names, made on the device
/// (O(nnz) for CSR, a tiled copy for dense) and said in the trace.
template <class M>
decltype(auto) materialize_device(M const& m, options const& opt, char const* op) {
    if constexpr (device_matrix<M>) {
        return (m);
    } else {
        using A = std::remove_cvref_t<decltype(*m.m)>;
        trace(opt, std::string(op) + ": " + describe(m) + ": transpose made on the device");
        if constexpr (is_csr<A>) {
            return cuda::detail::transpose_csr(resolve(opt.ctx), *m.m);
        } else {
            A t(m.rows(), m.cols());
            cuda::transpose(t, *m.m, options{.ctx = opt.ctx});
            return t;
        }
    }
}
}  // namespace detail

}  // namespace kleene
