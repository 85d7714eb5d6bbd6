// The 2D block-cyclic index arithmetic (block_cyclic.hpp) against a plain enumeration of blocks.
#define BOOST_TEST_MODULE block_cyclic
#include <array>
#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <kleene/algorithms/distributed/block_cyclic.hpp>
#include <vector>

using kleene::distributed::block_cyclic;
using kleene::distributed::choose_grid;
using kleene::distributed::process_grid;

BOOST_AUTO_TEST_CASE(grids_are_as_square_as_the_count_allows) {
    struct want {
        int p, r, c;
    };
    for (auto const w :
         {want{1, 1, 1}, want{2, 1, 2}, want{3, 1, 3}, want{4, 2, 2}, want{6, 2, 3}, want{8, 2, 4},
          want{9, 3, 3}, want{12, 3, 4}, want{7, 1, 7}, want{16, 4, 4}}) {
        process_grid const g = choose_grid(w.p);
        BOOST_TEST(g.rows == w.r, "p=" << w.p);
        BOOST_TEST(g.cols == w.c, "p=" << w.p);
        for (int r = 0; r < w.p; ++r) BOOST_TEST(g.rank_of(g.row_of(r), g.col_of(r)) == r);
    }
    BOOST_CHECK_THROW(choose_grid(0), kleene::invalid_argument);
}

BOOST_AUTO_TEST_CASE(every_entry_has_one_owner_and_local_place) {
    for (int p : {1, 2, 3, 4, 6, 9})
        for (std::size_t n : {0, 1, 5, 16, 17, 63, 64, 65, 200})
            for (std::size_t b : {1, 3, 16, 64, 100}) {
                process_grid const g = choose_grid(p);
                // Enumerate blocks by hand: block I has rows [I b, min(n, (I+1) b)).
                std::size_t const nb = (n + b - 1) / b;
                std::vector<std::size_t> rows_of(std::size_t(g.rows), 0),
                    cols_of(std::size_t(g.cols), 0);
                for (std::size_t I = 0; I < nb; ++I) {
                    std::size_t const h = std::min(b, n - I * b);
                    rows_of[I % std::size_t(g.rows)] += h;
                    cols_of[I % std::size_t(g.cols)] += h;
                }
                for (int r = 0; r < p; ++r) {
                    block_cyclic const d(n, b, g, r);
                    BOOST_TEST(d.blocks() == nb);
                    BOOST_TEST(d.local_rows() == rows_of[std::size_t(d.prow())]);
                    BOOST_TEST(d.local_cols() == cols_of[std::size_t(d.pcol())]);
                    // Local rows map back to distinct global rows owned by this process row.
                    std::vector<char> seen(n, 0);
                    for (std::size_t lr = 0; lr < d.local_rows(); ++lr) {
                        std::size_t const i = d.global_row(d.prow(), lr);
                        BOOST_REQUIRE(i < n);
                        BOOST_TEST(!seen[i]);
                        seen[i] = 1;
                        BOOST_TEST(d.owner_of_row(i) == d.prow());
                        BOOST_TEST(d.local_row(i) == lr);
                    }
                    for (std::size_t lc = 0; lc < d.local_cols(); ++lc) {
                        std::size_t const j = d.global_col(d.pcol(), lc);
                        BOOST_REQUIRE(j < n);
                        BOOST_TEST(d.owner_of_col(j) == d.pcol());
                        BOOST_TEST(d.local_col(j) == lc);
                    }
                    // Every block this process owns starts where local_offset says.
                    for (std::size_t l = 0; l < d.local_block_rows(d.prow()); ++l) {
                        std::size_t const I = d.global_block_row(d.prow(), l);
                        BOOST_TEST(d.owner_row(I) == d.prow());
                        BOOST_TEST(d.local_offset_row(I) == l * b);
                        BOOST_TEST(d.local_row(I * b) == l * b);
                    }
                }
            }
}

BOOST_AUTO_TEST_CASE(bad_arguments_are_refused) {
    BOOST_CHECK_THROW(block_cyclic(10, 0, process_grid{1, 1}, 0), kleene::invalid_argument);
    BOOST_CHECK_THROW(block_cyclic(10, 4, process_grid{2, 2}, 4), kleene::invalid_argument);
}

// The ranges a step's update covers (floyd_warshall_device): [a, z) less two ranges, against an
// entry-by-entry enumeration, for every placement of both ranges, empty and overlapping included.
BOOST_AUTO_TEST_CASE(ranges_without_two_others_are_what_is_left) {
    using kleene::distributed::detail::span;
    using kleene::distributed::detail::without;
    constexpr std::size_t len = 9;
    std::size_t cases = 0;
    for (std::size_t a = 0; a <= len; ++a)
        for (std::size_t z = 0; z <= len; ++z)
            for (std::size_t x0 = 0; x0 <= len + 1; ++x0)
                for (std::size_t x1 = 0; x1 <= len + 1; ++x1)
                    for (std::size_t y0 = 0; y0 <= len + 1; ++y0)
                        for (std::size_t y1 = 0; y1 <= len + 1; ++y1) {
                            auto const got = without(a, z, span{x0, x1}, span{y0, y1});
                            std::array<char, len + 2> want{}, have{};
                            for (std::size_t i = a; i < z; ++i)
                                want[i] = !(x0 <= i && i < x1) && !(y0 <= i && i < y1);
                            std::size_t last = 0;
                            bool ordered = true;
                            for (span const r : got) {
                                ordered = ordered && r.lo < r.hi && r.lo >= last && r.hi <= len + 1;
                                for (std::size_t i = r.lo; i < r.hi && i < have.size(); ++i)
                                    have[i] = char(have[i] + 1);
                                last = r.hi;
                            }
                            ++cases;
                            BOOST_TEST_REQUIRE((ordered && have == want),
                                               "[" << a << ", " << z << ") without [" << x0
                                                   << ", " << x1 << ") and [" << y0 << ", " << y1
                                                   << ")");
                        }
    BOOST_TEST(cases > 10000u);
}
