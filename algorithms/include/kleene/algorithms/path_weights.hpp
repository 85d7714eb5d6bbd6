#pragma once
// What a graph's weights let a shortest path weigh, checked before a path algorithm runs, so that
// a finite path never comes back infinite (or wrapped) because its sum left the value type.
//
// A simple path leaves each vertex at most once, so none weighs more, in absolute value, than
// B = the sum over vertices of the largest |weight| leaving it. Without a negative cycle (which is
// reported, never summed) shortest paths are simple and every partial sum an algorithm keeps is
// the weight of a real walk, at least the shortest one: so
// - when B <= the largest finite value of T (integers: max - 1, since max is infinity<T>()),
//   every shortest distance fits, and a candidate sum that saturates (plus_sat_op) or rounds to
//   +inf was heavier than the distance it competed for: the result is exact;
// - with negative weights two partial sums of at least -B meet: B <= largest / 2 keeps their sum
//   off the -infinity sentinel.
// Past that bound the algorithms do not guess: apsp computes in fp64 (exact for integers below
// 2^53) and narrows back, sssp checks its result (an edge from a reached vertex to an unreached
// one proves a saturated sum); a distance the type cannot hold raises kleene::overflow_error
// naming the type. NaN and infinite weights are refused (an absent edge is simply not stored).

#include <kleene/algorithms/cuda/graph_scans.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/semiring.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace kleene {

/// The weight bound of a graph (see above).
struct path_weight_bound {
    long double bound = 0;  ///< sum over vertices of the largest |weight| leaving it
    bool negative = false;  ///< some weight is < 0
};

/// The largest finite distance T holds: infinity<T>() - 1 for integers (max is "no path"), the
/// largest finite value for floating point.
template <class T>
constexpr long double largest_finite_distance() {
    if constexpr (std::is_floating_point_v<T>) return static_cast<long double>(std::numeric_limits<T>::max());
    else return static_cast<long double>(std::numeric_limits<T>::max()) - 1.0L;
}

namespace detail {
/// The CLI's name of a value type (-t).
template <class T>
constexpr std::string_view distance_type_name() {
    if constexpr (std::is_same_v<T, float>) return "fp32";
    else if constexpr (std::is_same_v<T, double>) return "fp64";
    else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
    else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
    else if constexpr (std::is_floating_point_v<T>) return "floating point";
    else return "integer";
}

template <class T>
std::string number(T x) {
    std::ostringstream s;
    s.precision(std::is_floating_point_v<T> ? 17 : 0);
    s << x;
    return s.str();
}
inline std::string long_number(long double x) {
    std::ostringstream s;
    s.precision(x < 1e18L ? 0 : 4);
    if (x < 1e18L) s << std::fixed;
    s << x;
    return s.str();
}
}  // namespace detail

/// What weight_bound finds, before it throws: B, and where a NaN or infinite weight is (a device
/// graph's one pass over its weights fills it on the device, cuda/graph_scans.hpp).
struct path_weight_scan {
    path_weight_bound bound;
    std::int64_t bad_row = -1;  ///< a row holding a non-finite weight (-1: none)
    std::int64_t bad_col = -1;  ///< that weight's column
    double bad_value = 0;       ///< the weight
    bool iso = false;           ///< every edge weighs bad_value (an iso matrix)
};

namespace detail {
[[noreturn]] inline void throw_non_finite_weight(std::string_view who, path_weight_scan const& s) {
    if (s.iso)
        throw invalid_argument(std::string(who) + ": every edge weighs " + number(s.bad_value) +
                               ": path weights must be finite");
    throw invalid_argument(std::string(who) + ": edge (" + std::to_string(s.bad_row + 1) + ", " +
                           std::to_string(s.bad_col + 1) + ") weighs " + number(s.bad_value) +
                           ": path weights must be finite (leave an absent edge out)");
}
}  // namespace detail

/// weight_bound's answer from a scan: B, or its invalid_argument for a non-finite weight.
inline path_weight_bound checked_bound(path_weight_scan const& s, std::string_view who) {
    if (s.bad_row >= 0) detail::throw_non_finite_weight(who, s);
    return s.bound;
}

/// B for `a`, refusing NaN and infinite weights: invalid_argument naming the edge (0-based in
/// the message as (row, col) + 1, i.e. 1-based like the files) and `who` (the caller's name).
template <class T, class Index>
path_weight_bound weight_bound(csr_matrix<T, Index> const& a, std::string_view who) {
    static_assert(std::is_arithmetic_v<T>, "path weights are numbers");
    path_weight_bound r;
    std::size_t const n = a.rows();
    if (a.nnz() == 0) return r;
    if (!a.has_values()) {
        T const w = a.iso_value();
        if constexpr (std::is_floating_point_v<T>)
            if (!std::isfinite(w)) {
                path_weight_scan s;
                s.bad_row = 0;
                s.bad_value = static_cast<double>(w);
                s.iso = true;
                detail::throw_non_finite_weight(who, s);
            }
        long double const aw = std::fabs(static_cast<long double>(w));
        std::size_t rows_with_edges = 0;
        for (std::size_t i = 0; i < n; ++i) rows_with_edges += a.row_end(i) > a.row_begin(i);
        r.bound = aw * static_cast<long double>(rows_with_edges);
        r.negative = w < T(0);
        return r;
    }
    T const* v = a.values();
    long double bound = 0;
    bool negative = false;
    std::int64_t bad_row = -1;
#pragma omp parallel for schedule(static) reduction(+ : bound) reduction(|| : negative) \
    reduction(max : bad_row) if (a.nnz() > 65536)
    for (std::size_t i = 0; i < n; ++i) {
        long double top = 0;
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k) {
            T const w = v[k];
            if constexpr (std::is_floating_point_v<T>)
                if (!std::isfinite(w)) bad_row = std::max(bad_row, static_cast<std::int64_t>(i));
            negative = negative || w < T(0);
            top = std::max(top, std::fabs(static_cast<long double>(w)));
        }
        bound += top;
    }
    if (bad_row >= 0) {
        // The first non-finite weight of that row, for the message.
        auto const i = static_cast<std::size_t>(bad_row);
        for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
            if (!std::isfinite(static_cast<double>(v[k]))) {
                path_weight_scan s;
                s.bad_row = bad_row;
                s.bad_col = static_cast<std::int64_t>(a.col_idx()[k]);
                s.bad_value = static_cast<double>(v[k]);
                detail::throw_non_finite_weight(who, s);
            }
    }
    r.bound = bound;
    r.negative = negative;
    return r;
}

/// True when every shortest distance and every kept partial sum fits T (see the file comment).
template <class T>
bool distances_fit(path_weight_bound const& b) {
    long double const top = largest_finite_distance<T>();
    return b.bound <= (b.negative ? top / 2 : top);
}

/// The explanation used in messages: "int32 distances could reach 4000000000, past int32's
/// largest finite value 2147483646".
template <class T>
std::string distance_range_note(path_weight_bound const& b) {
    std::string const t(detail::distance_type_name<T>());
    return t + " distances could reach " + (b.negative ? "+/-" : "") + detail::long_number(b.bound) +
           " (the sum of each vertex's heaviest edge), past " + t + "'s largest finite value " +
           detail::long_number(largest_finite_distance<T>()) +
           (b.negative ? " / 2 (negative weights)" : "");
}

/// A distance that T cannot hold: `value` from `from` to `to` (1-based in the message).
template <class T>
[[noreturn]] void throw_distance_overflow(std::string_view who, std::size_t from, std::size_t to,
                                          long double value) {
    std::string const t(detail::distance_type_name<T>());
    throw overflow_error(std::string(who) + ": the shortest distance from " + std::to_string(from + 1) +
                         " to " + std::to_string(to + 1) + " is " + detail::long_number(value) +
                         ", past " + t + "'s largest finite value " +
                         detail::long_number(largest_finite_distance<T>()) +
                         (std::is_integral_v<T> && sizeof(T) < 8 ? "; use int64 or fp64"
                                                                 : "; use fp64"));
}

namespace detail {
/// A's structure with its values as fp64 (the widened problem of apsp and distributed::apsp).
template <class T, index_type Index>
csr_matrix<double, Index> as_fp64(csr_matrix<T, Index> const& a) {
    buffer<Index> rp(a.rows() + 1), ci(a.nnz());
    buffer<double> v(a.has_values() ? a.nnz() : 0);
    std::copy(a.row_ptr(), a.row_ptr() + a.rows() + 1, rp.data());
    std::copy(a.col_idx(), a.col_idx() + a.nnz(), ci.data());
    if (a.has_values()) std::copy(a.values(), a.values() + a.nnz(), v.data());
    return csr_matrix<double, Index>(a.rows(), a.cols(), std::move(rp), std::move(ci),
                                     std::move(v), static_cast<double>(a.iso_value()), true);
}

/// One pass over the weights: what sssp() needs to choose a method and a bucket width, and a
/// quick bound on path weights (rows x the largest |weight|, at least weight_bound()'s B).
struct weight_summary {
    double min = 0, mean = 0;
    bool negative = false;
    bool non_finite = false;      ///< a NaN or infinite weight (weight_bound() names it)
    long double max_abs = 0;      ///< the largest |weight|
    long double quick_bound = 0;  ///< n * max_abs >= B (path_weights.hpp)
};

template <class T, class Index>
weight_summary summarise_weights(csr_matrix<T, Index> const& a) {
    weight_summary s;
    std::size_t const m = a.nnz();
    if (m == 0) return s;
    if (!a.has_values()) {
        T const w = a.iso_value();
        s.min = s.mean = static_cast<double>(w);
        s.non_finite = !std::isfinite(static_cast<double>(w));
        s.max_abs = std::fabs(static_cast<long double>(w));
    } else {
        // Min and max in T, the sum exact in int64 for narrow integers, else in double (a simd
        // reduction: a plain double sum is not reordered, hence not vectorised).
        T const* v = a.values();
        T lo = v[0], hi = v[0];
        using sum_type =
            std::conditional_t<std::is_integral_v<T> && sizeof(T) <= 4, std::int64_t, double>;
        sum_type sum = 0;
        bool bad = false;
#pragma omp parallel for simd schedule(static) reduction(min : lo) reduction(max : hi) \
    reduction(+ : sum) reduction(|| : bad) if (m > 65536)
        for (std::size_t k = 0; k < m; ++k) {
            T const x = v[k];
            if constexpr (std::is_floating_point_v<T>) bad = bad || !std::isfinite(x);
            lo = std::min(lo, x);
            hi = std::max(hi, x);
            sum += static_cast<sum_type>(x);
        }
        s.min = static_cast<double>(lo);
        s.mean = static_cast<double>(sum) / static_cast<double>(m);
        s.non_finite = bad;
        s.max_abs = std::max(std::fabs(static_cast<long double>(lo)),
                             std::fabs(static_cast<long double>(hi)));
    }
    s.negative = s.min < 0;
    s.quick_bound = s.max_abs * static_cast<long double>(a.rows());
    return s;
}

/// summarise_weights and weight_bound's scan from a device pass over the weights
/// (cuda::scan_weights): kleene::graph keeps them for a device graph, sssp makes them for a bare
/// device matrix.
template <class T, class Index, class Space>
std::pair<weight_summary, path_weight_scan> weights_of_pass(csr_matrix<T, Index, Space> const& a,
                                                            cuda::weight_pass<T> const& p) {
    std::pair<weight_summary, path_weight_scan> r;
    auto& [s, scan] = r;
    if (p.empty) return r;
    if (!a.has_values()) {  // as summarise_weights: the iso value itself, not a sum over it
        T const w = a.iso_value();
        s.min = s.mean = static_cast<double>(w);
        s.max_abs = std::fabs(static_cast<long double>(w));
    } else {
        s.min = static_cast<double>(p.min);
        s.mean = p.sum / static_cast<double>(a.nnz());
        s.max_abs = std::max(std::fabs(static_cast<long double>(p.min)),
                             std::fabs(static_cast<long double>(p.max)));
    }
    s.non_finite = p.non_finite;
    s.negative = s.min < 0;
    s.quick_bound = s.max_abs * static_cast<long double>(a.rows());
    scan.bound = {p.bound, s.negative};
    scan.bad_row = p.bad_row;
    scan.bad_col = p.bad_col;
    scan.bad_value = p.bad_value;
    scan.iso = !a.has_values();
    return r;
}

}  // namespace detail

}  // namespace kleene
