#pragma once
// Where a container lives and what it stores: the one family of container traits every layer
// above uses (issue 39, item 6). What is here:
//
//   space_of_t<X>            host, device, or void (X is not a container: an operator, a scalar)
//   is_csr / is_dense / is_dense_vec / is_sparse_vec   the storage, in either space
//   in_space<X, Space>       whether X lives in Space
//   host_matrix / host_vector / device_matrix / device_vector / device_operand   the containers
//                            of one space an operation takes
//   mixed_spaces<X...>       one call names host and device containers
//
// The operations' device helpers (the mask as the backend reads it, the backend's value types and
// operators, the mixed-spaces refusal) are kleene/detail/device_dispatch.hpp, in lib/ops.

#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/memory.hpp>
#include <kleene/operators.hpp>
#include <kleene/options.hpp>
#include <kleene/transposed.hpp>
#include <kleene/vector.hpp>

#include <type_traits>

namespace kleene {
/// The matrix of either storage (kleene/matrix.hpp, lib/ops: its conversions are operations).
template <class T, index_type Index, class Space>
class matrix;
}  // namespace kleene

namespace kleene::detail {

template <class X>
struct space_of {
    using type = void;
};
template <class T, class I, class S>
struct space_of<csr_matrix<T, I, S>> {
    using type = S;
};
template <class T, class S>
struct space_of<dense_matrix<T, S>> {
    using type = S;
};
template <class T, class S>
struct space_of<dense_vector<T, S>> {
    using type = S;
};
template <class T, class I, class S>
struct space_of<sparse_vector<T, I, S>> {
    using type = S;
};
template <class T, class I, class S>
struct space_of<matrix<T, I, S>> {
    using type = S;
};
template <class M>
struct space_of<transposed<M>> : space_of<M> {};
template <class M>
struct space_of<mask_view<M>> : space_of<M> {};

template <class X>
using space_of_t = typename space_of<std::remove_cvref_t<X>>::type;

template <class... X>
inline constexpr bool any_host = (std::is_same_v<space_of_t<X>, host> || ...);
template <class... X>
inline constexpr bool any_device = (std::is_same_v<space_of_t<X>, device> || ...);

/// One call names containers in host memory and in device memory.
template <class... X>
concept mixed_spaces = any_host<X...> && any_device<X...>;

template <class...>
inline constexpr bool never = false;

/// The one family of container traits: what a container stores (is_csr, is_dense, is_dense_vec,
/// is_sparse_vec: a CSR matrix, a dense matrix, a dense vector, a sparse vector, in either space)
/// and where it lives (space_of_t above, in_space below). An operation's one body dispatches on
/// the space once and on the storage once; the concepts below say which containers a space's
/// operations take.
template <class X>
inline constexpr bool is_csr = false;
template <class T, class I, class Space>
inline constexpr bool is_csr<csr_matrix<T, I, Space>> = true;
template <class X>
inline constexpr bool is_dense = false;
template <class T, class Space>
inline constexpr bool is_dense<dense_matrix<T, Space>> = true;
template <class X>
inline constexpr bool is_dense_vec = false;
template <class T, class Space>
inline constexpr bool is_dense_vec<dense_vector<T, Space>> = true;
template <class X>
inline constexpr bool is_sparse_vec = false;
template <class T, class I, class Space>
inline constexpr bool is_sparse_vec<sparse_vector<T, I, Space>> = true;

/// Whether X is a container (or a transpose view or mask of one) in Space.
template <class X, class Space>
inline constexpr bool in_space = std::is_same_v<space_of_t<X>, Space>;

template <class M>
concept host_matrix = (is_csr<M> || is_dense<M>) && in_space<M, host>;
template <class V>
concept host_vector = (is_sparse_vec<V> || is_dense_vec<V>) && in_space<V, host>;

template <class M>
concept device_matrix = (is_csr<M> || is_dense<M>) && in_space<M, device>;
template <class V>
concept device_vector = (is_dense_vec<V> || is_sparse_vec<V>) && in_space<V, device>;
/// A device matrix or the view transpose(A) of one.
template <class M>
concept device_operand = device_matrix<M> || (is_transposed<M> && requires {
    requires device_matrix<std::remove_cvref_t<decltype(*std::declval<M>().m)>>;
});

}  // namespace kleene::detail
