#define BOOST_TEST_MODULE extract_assign
#include "ops_common.hpp"

// extract and assign against SuiteSparse:GraphBLAS: index lists (sorted, unsorted, repeated for
// extract), ranges and all indices; matrices, columns and vectors; every mask/accumulator/replace
// case (assign's mask covers all of C, as in GrB_assign).

using namespace ops_test;

namespace {

std::vector<i64> random_indices(std::size_t n, std::size_t count, bool unique, bool sorted,
                                std::mt19937& g) {
    std::vector<i64> out;
    if (n == 0) return out;
    if (unique) {
        std::vector<i64> all(n);
        for (std::size_t i = 0; i < n; ++i) all[i] = i64(i);
        std::shuffle(all.begin(), all.end(), g);
        out.assign(all.begin(), all.begin() + std::min(n, count));
    } else {
        std::uniform_int_distribution<i64> d(0, i64(n) - 1);
        for (std::size_t k = 0; k < count; ++k) out.push_back(d(g));
    }
    if (sorted) std::sort(out.begin(), out.end());
    return out;
}

/// Index selections of a dimension n: all, a range, sorted, unsorted (and repeated for extract).
std::vector<std::pair<index_selection, std::string>> selections(std::size_t n, bool unique,
                                                                std::mt19937& g) {
    std::vector<std::pair<index_selection, std::string>> s;
    s.emplace_back(all_indices, "all");
    s.emplace_back(index_range{n / 3, n - n / 4}, "range");
    s.emplace_back(random_indices(n, n / 2 + 1, true, true, g), "sorted list");
    s.emplace_back(random_indices(n, n / 2 + 1, true, false, g), "unsorted list");
    if (!unique) s.emplace_back(random_indices(n, n + 3, false, false, g), "repeated list");
    return s;
}

std::size_t size_of(index_selection const& s, std::size_t n) {
    return s.resolve(n, "test").size;
}

template <class T>
void extract_case(std::mt19937& g, bool all_masks) {
    T const absent = T(0);
    for (auto const& s : all_masks ? mask_shapes : shapes) {
        auto const a = random_csr<T>(s.m, s.n, s.density, s.holes, g);
        auto const ad = to_dense(a, absent);
        auto const rs = selections(s.m, false, g);
        auto const cs = selections(s.n, false, g);
        for (std::size_t x = 0; x < rs.size(); ++x) {
            auto const& [ri, rname] = rs[x];
            auto const& [ci, cname] = cs[(x * 3 + 1) % cs.size()];
            std::size_t const nr = size_of(ri, s.m), nc = size_of(ci, s.n);
            auto const c0 = random_csr<T>(nr, nc, 0.2, false, g);
            auto const m = random_mask<T>(nr, nc, g);
            std::string const w = describe(s) + " rows " + rname + ", cols " + cname;
            auto one = [&](auto const& c, auto const& in, std::string const& what) {
                auto k = [&](auto& out, auto const& mask, auto accum, options const& o) {
                    kleene::extract(out, mask, accum, in, ri, ci, o, absent);
                };
                auto gr = [&](auto& out, auto const& mask, auto accum, options const& o) {
                    grb::extract(out, mask, accum, in, ri, ci, o, absent);
                };
                if (all_masks)
                    check_all(c, m, plus_op<T>{}, k, gr, "extract " + what);
                else
                    check_plain(c, k, gr, "extract " + what);
            };
            one(c0, a, w + " csr -> csr");
            one(to_dense(c0, absent), ad, w + " dense -> dense");
            one(c0, ad, w + " dense -> csr");
            // A column (and, through the view, a row).
            if (s.n > 0) {
                std::size_t const j = s.n / 2;
                auto const wv0 = random_sparse_vector<T>(nr, 0.3, g, absent);
                auto const mv = random_sparse_vector<T>(nr, 0.5, g, T(1));
                auto k = [&](auto& out, auto const& mask, auto accum, options const& o) {
                    kleene::extract(out, mask, accum, a, ri, j, o, absent);
                };
                auto gr = [&](auto& out, auto const& mask, auto accum, options const& o) {
                    grb::extract(out, mask, accum, a, ri, j, o, absent);
                };
                if (all_masks)
                    check_all(wv0, mv, plus_op<T>{}, k, gr, "extract column " + w);
                else
                    check_plain(wv0, k, gr, "extract column " + w);
            }
        }
        // Vectors.
        auto const u = random_sparse_vector<T>(s.m, 0.4, g, absent);
        for (auto const& [ri, rname] : rs) {
            std::size_t const nr = size_of(ri, s.m);
            auto const w0 = random_sparse_vector<T>(nr, 0.3, g, absent);
            auto const mv = random_sparse_vector<T>(nr, 0.5, g, T(1));
            auto k = [&](auto& out, auto const& mask, auto accum, options const& o) {
                kleene::extract(out, mask, accum, u, ri, o, absent);
            };
            auto gr = [&](auto& out, auto const& mask, auto accum, options const& o) {
                grb::extract(out, mask, accum, u, ri, o, absent);
            };
            check_all(w0, mv, plus_op<T>{}, k, gr, "extract vector " + rname + " " + describe(s));
        }
    }
}

template <class T>
void assign_case(std::mt19937& g, bool all_masks) {
    T const absent = T(0);
    for (auto const& s : all_masks ? mask_shapes : shapes) {
        auto const c0 = random_csr<T>(s.m, s.n, 0.3, s.holes, g);
        auto const cd = to_dense(c0, absent);
        auto const m = random_mask<T>(s.m, s.n, g);
        auto const rs = selections(s.m, true, g);
        auto const cs = selections(s.n, true, g);
        for (std::size_t x = 0; x < rs.size(); ++x) {
            auto const& [ri, rname] = rs[x];
            auto const& [ci, cname] = cs[(x * 3 + 2) % cs.size()];
            std::size_t const nr = size_of(ri, s.m), nc = size_of(ci, s.n);
            auto const a = random_csr<T>(nr, nc, s.density + 0.2, false, g);
            std::string const w = describe(s) + " rows " + rname + ", cols " + cname;
            auto one = [&](auto const& c, auto const& in, std::string const& what) {
                auto k = [&](auto& out, auto const& mask, auto accum, options const& o) {
                    kleene::assign(out, mask, accum, in, ri, ci, o, absent);
                };
                auto gr = [&](auto& out, auto const& mask, auto accum, options const& o) {
                    grb::assign(out, mask, accum, in, ri, ci, o, absent);
                };
                if (all_masks)
                    check_all(c, m, plus_op<T>{}, k, gr, "assign " + what);
                else
                    check_plain(c, k, gr, "assign " + what);
            };
            one(c0, a, w + " csr into csr");
            one(cd, a, w + " csr into dense");
            one(c0, to_dense(a, absent), w + " dense into csr");
            one(cd, to_dense(a, absent), w + " dense into dense");
            one(c0, T(3), w + " scalar into csr");
            one(cd, T(3), w + " scalar into dense");
            auto const at = random_csr<T>(nc, nr, 0.3, false, g);
            one(c0, transpose(at), w + " transposed view into csr");
        }
        // Vectors.
        auto const w0 = random_sparse_vector<T>(s.m, 0.4, g, absent);
        auto const mv = random_sparse_vector<T>(s.m, 0.5, g, T(1));
        for (auto const& [ri, rname] : rs) {
            std::size_t const nr = size_of(ri, s.m);
            auto const u = random_sparse_vector<T>(nr, 0.5, g, absent);
            auto one = [&](auto const& w, auto const& in, std::string const& what) {
                auto k = [&](auto& out, auto const& mask, auto accum, options const& o) {
                    kleene::assign(out, mask, accum, in, ri, o, absent);
                };
                auto gr = [&](auto& out, auto const& mask, auto accum, options const& o) {
                    grb::assign(out, mask, accum, in, ri, o, absent);
                };
                check_all(w, mv, plus_op<T>{}, k, gr, "assign vector " + what + " " + describe(s));
            };
            one(w0, u, rname);
            one(to_dense(w0, absent), u, rname + " into dense");
            one(w0, T(-2), rname + " scalar");
        }
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(extract_lists_ranges_and_all) {
    std::mt19937 g(1);
    extract_case<double>(g, false);
    extract_case<i32>(g, false);
    extract_case<bool>(g, false);
}

BOOST_AUTO_TEST_CASE(extract_every_mask_accumulator_and_replace) {
    std::mt19937 g(2);
    extract_case<i64>(g, true);
}

BOOST_AUTO_TEST_CASE(assign_lists_ranges_all_and_scalars) {
    std::mt19937 g(3);
    assign_case<double>(g, false);
    assign_case<i32>(g, false);
    assign_case<bool>(g, false);
}

BOOST_AUTO_TEST_CASE(assign_every_mask_accumulator_and_replace) {
    std::mt19937 g(4);
    assign_case<float>(g, true);
}

BOOST_AUTO_TEST_CASE(bad_indices_are_reported) {
    csr_matrix<double> a(4, 5), c(2, 2);
    BOOST_CHECK_THROW(extract(c, a, {0, 4}, {0, 1}), invalid_argument);
    BOOST_CHECK_THROW(extract(c, a, index_range{3, 6}, {0, 1}), invalid_argument);
    BOOST_CHECK_THROW(extract(c, a, {0, 1, 2}, {0, 1}), dimension_mismatch);
    csr_matrix<double> big(4, 5);
    BOOST_CHECK_THROW(assign(big, c, {1, 1}, {0, 1}), invalid_argument);
    BOOST_CHECK_THROW(assign(big, c, {1, 2, 3}, {0, 1}), dimension_mismatch);
    assign(big, 2.0, {1, 3}, index_range{0, 5});
    BOOST_TEST(big.nnz() == 10u);
}
