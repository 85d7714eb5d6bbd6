#define BOOST_TEST_MODULE apply_select
#include "ops_common.hpp"

// apply (unary operators, bound binary operators, user operators) and select (positional and
// value predicates, user predicates) against SuiteSparse:GraphBLAS, every storage and mask case.

using namespace ops_test;

namespace {

template <class T>
struct square_op {  // a user unary operator
    using value_type = T;
    static constexpr T apply(T a) { return T(a * a); }
};

template <class C, class Op, class A>
void run_apply(C const& c0, csr_matrix<typename C::value_type> const& m, Op const& op, A const& a,
               bool all_masks, std::string const& what) {
    using T = typename C::value_type;
    auto k = [&](C& c, auto const& mask, auto accum, options const& o) {
        kleene::apply(c, mask, accum, op, a, o);
    };
    auto g = [&](C& c, auto const& mask, auto accum, options const& o) {
        grb::apply(c, mask, accum, op, a, o);
    };
    if (all_masks)
        check_all(c0, m, plus_op<T>{}, k, g, "apply " + what);
    else
        check_plain(c0, k, g, "apply " + what);
}

template <class C, class P, class A>
void run_select(C const& c0, csr_matrix<typename C::value_type> const& m, P const& p, A const& a,
                typename C::value_type absent, bool all_masks, std::string const& what) {
    using T = typename C::value_type;
    auto k = [&](C& c, auto const& mask, auto accum, options const& o) {
        kleene::select(c, mask, accum, p, a, o, absent);
    };
    auto g = [&](C& c, auto const& mask, auto accum, options const& o) {
        grb::select(c, mask, accum, p, a, o, absent);
    };
    if (all_masks)
        check_all(c0, m, plus_op<T>{}, k, g, "select " + what);
    else
        check_plain(c0, k, g, "select " + what);
}

template <class Op>
void apply_case(Op const& op, std::mt19937& g, bool all_masks) {
    using T = typename std::remove_cvref_t<decltype(unwrap_absent(op))>::value_type;
    T const absent = absent_of(op);
    for (auto const& s : all_masks ? mask_shapes : shapes) {
        auto const a = random_csr<T>(s.m, s.n, s.density, s.holes, g);
        auto const c0 = random_csr<T>(s.m, s.n, 0.2, false, g);
        auto const m = random_mask<T>(s.m, s.n, g);
        auto const ad = to_dense(a, absent), cd = to_dense(c0, absent);
        auto const at = random_csr<T>(s.n, s.m, s.density, s.holes, g);
        std::string const w = describe(s);
        run_apply(c0, m, op, a, all_masks, w + " csr -> csr");
        run_apply(cd, m, op, a, all_masks, w + " csr -> dense");
        run_apply(c0, m, op, ad, all_masks, w + " dense -> csr");
        run_apply(cd, m, op, ad, all_masks, w + " dense -> dense");
        run_apply(c0, m, op, transpose(at), all_masks, w + " csr' -> csr");
    }
    for (std::size_t n : {0, 1, 9, 200}) {
        auto const u = random_sparse_vector<T>(n, 0.4, g, absent);
        auto const w0 = random_sparse_vector<T>(n, 0.3, g, absent);
        auto const m = random_sparse_vector<T>(n, 0.5, g, T(1));
        auto kv = [&](auto& w, auto const& mask, auto accum, options const& o) {
            kleene::apply(w, mask, accum, op, u, o);
        };
        auto gv = [&](auto& w, auto const& mask, auto accum, options const& o) {
            grb::apply(w, mask, accum, op, u, o);
        };
        check_all(w0, m, plus_op<T>{}, kv, gv, "apply vector " + std::to_string(n));
        check_all(to_dense(w0, absent), m, plus_op<T>{}, kv, gv,
                  "apply vector -> dense " + std::to_string(n));
    }
}

template <class T, class P>
void select_case(P const& p, std::mt19937& g, bool all_masks) {
    T const absent = T(0);
    for (auto const& s : all_masks ? mask_shapes : shapes) {
        auto const a = random_csr<T>(s.m, s.n, s.density, s.holes, g);
        auto const c0 = random_csr<T>(s.m, s.n, 0.2, false, g);
        auto const m = random_mask<T>(s.m, s.n, g);
        auto const ad = to_dense(a, absent), cd = to_dense(c0, absent);
        auto const at = random_csr<T>(s.n, s.m, s.density, s.holes, g);
        std::string const w = describe(s);
        run_select(c0, m, p, a, absent, all_masks, w + " csr -> csr");
        run_select(cd, m, p, a, absent, all_masks, w + " csr -> dense");
        run_select(c0, m, p, ad, absent, all_masks, w + " dense -> csr");
        run_select(cd, m, p, ad, absent, all_masks, w + " dense -> dense");
        run_select(c0, m, p, transpose(at), absent, all_masks, w + " csr' -> csr");
    }
    for (std::size_t n : {0, 1, 9, 200}) {
        auto const u = random_sparse_vector<T>(n, 0.4, g, absent);
        auto const w0 = random_sparse_vector<T>(n, 0.3, g, absent);
        auto const m = random_sparse_vector<T>(n, 0.5, g, T(1));
        auto kv = [&](auto& w, auto const& mask, auto accum, options const& o) {
            kleene::select(w, mask, accum, p, u, o, absent);
        };
        auto gv = [&](auto& w, auto const& mask, auto accum, options const& o) {
            grb::select(w, mask, accum, p, u, o, absent);
        };
        check_all(w0, m, plus_op<T>{}, kv, gv, "select vector " + std::to_string(n));
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(unary_operators) {
    std::mt19937 g(1);
    apply_case(identity_op<double>{}, g, false);
    apply_case(ainv_op<i32>{}, g, false);
    apply_case(abs_op<float>{}, g, false);
    apply_case(minv_op<double>{}, g, false);
    apply_case(lnot_op<bool>{}, g, false);
    apply_case(one_op<i64>{}, g, false);
    apply_case(square_op<i64>{}, g, false);
}

BOOST_AUTO_TEST_CASE(bound_binary_operators) {
    std::mt19937 g(2);
    apply_case(bind_first(plus_op<double>{}, 2.5), g, false);
    apply_case(bind_second(min_op<i32>{}, 3), g, false);
    apply_case(bind_first(second_op<float>{}, 7.f), g, false);
    apply_case(bind_second(first_op<i64>{}, i64(-4)), g, false);
    apply_case(with_absent(bind_second(times_op<double>{}, 0.5), 0.0), g, false);
}

BOOST_AUTO_TEST_CASE(apply_every_mask_accumulator_and_replace) {
    std::mt19937 g(3);
    apply_case(ainv_op<double>{}, g, true);
    apply_case(bind_second(max_op<i32>{}, 0), g, true);
}

struct odd_sum {  // a user predicate: (i + j) odd and a positive value
    template <class T>
    bool operator()(T v, std::size_t i, std::size_t j) const {
        return (i + j) % 2 == 1 && v > T(0);
    }
};

BOOST_AUTO_TEST_CASE(positional_predicates) {
    std::mt19937 g(4);
    for (std::int64_t k : {0, 2, -3}) {
        select_case<double>(tril{k}, g, false);
        select_case<i32>(triu{k}, g, false);
        select_case<float>(diag{k}, g, false);
        select_case<i64>(offdiag{k}, g, false);
    }
    select_case<double>(row_le{5}, g, false);
    select_case<double>(row_gt{5}, g, false);
    select_case<i32>(col_le{3}, g, false);
    select_case<i32>(col_gt{3}, g, false);
}

BOOST_AUTO_TEST_CASE(value_and_user_predicates) {
    std::mt19937 g(5);
    select_case<double>(value_gt{0.5}, g, false);
    select_case<i32>(value_eq{3}, g, false);
    select_case<i32>(value_ne{3}, g, false);
    select_case<float>(value_lt{-1.f}, g, false);
    select_case<i64>(value_le{i64(2)}, g, false);
    select_case<i64>(value_ge{i64(2)}, g, false);
    select_case<bool>(value_eq{true}, g, false);
    select_case<double>(odd_sum{}, g, false);
    auto upper_positive = [](i32 v, std::size_t i, std::size_t j) { return j > i && v > 0; };
    select_case<i32>(upper_positive, g, false);
}

BOOST_AUTO_TEST_CASE(select_every_mask_accumulator_and_replace) {
    std::mt19937 g(6);
    select_case<double>(tril{-1}, g, true);
    select_case<i32>(value_ge{0}, g, true);
}

BOOST_AUTO_TEST_CASE(iso_input_stays_iso_and_shapes_are_checked) {
    buffer<i32> p{0, 2, 3}, c{0, 2, 1};
    csr_matrix<double> iso(2, 3, p, c, buffer<double>{}, 4.0);
    csr_matrix<double> out;
    out = csr_matrix<double>(2, 3);
    apply(out, bind_second(times_op<double>{}, 0.5), iso);
    BOOST_TEST(out.is_iso());
    BOOST_TEST(out.iso_value() == 2.0);
    csr_matrix<double> wrong(3, 3);
    BOOST_CHECK_THROW(apply(wrong, ainv_op<double>{}, iso), dimension_mismatch);
    BOOST_CHECK_THROW(select(wrong, tril{}, iso), dimension_mismatch);
}
