#pragma once
// Between the JIT's front (lib/backend/cuda/src/jit.cpp: NVRTC, the cache, the modules a context
// has loaded) and its launchers (jit_products.cu): the kernels of one family for one semiring,
// loaded on the context's device, in the family's fixed order.

#include <kleene/context.hpp>
#include <kleene/cuda/jit.hpp>
#include <kleene/dense_matrix.hpp>

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kleene::cuda::jit::detail {

/// spmv: rows, long_slices, long_finish, long_whole (sparse/spmv.cuh's spmv_kernels).
/// spgemm: the three shared-memory tiers' numeric kernels, then the global one.
/// gemm with a 4-byte value type: gemm_kernel, pack_a_kernel, staged_kernel, combine_partials;
/// with an 8-byte one: gemm_kernel alone.
/// closure: close_block, add_into, finish_diagonal, find_nan (closure_kernels.cuh).
std::vector<void const*> const& kernels(context& ctx, family f, semiring_source const& s,
                                        std::string_view index_type, report* r);

/// The C++ spelling of s's value type ("float", "double", "std::int32_t", "std::int64_t");
/// throws invalid_argument for any other.
std::string value_type_of(semiring_source const& s);

/// The C++ spelling of T (float, double, std::int32_t, std::int64_t), as value_type_of spells
/// a semiring's and as the kernels' index types are named.
template <class T>
constexpr char const* cpp_name() {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, double>) return "double";
    else if constexpr (std::is_same_v<T, std::int32_t>) return "std::int32_t";
    else return "std::int64_t";
}

/// Throws invalid_argument unless T is s's value type (names both).
void check_value_type(semiring_source const& s, std::string_view cpp_type, char const* op);

/// jit::dense_gemm without its wait at the end: enqueued on ctx's stream (jit_products.cu). c
/// must share no element with a or b.
template <class T>
void enqueue_dense_gemm(dense_view<T const, device> a, dense_view<T const, device> b,
                        dense_view<T, device> c, bool accumulate, semiring_source const& s,
                        context& ctx, report* r);

}  // namespace kleene::cuda::jit::detail
