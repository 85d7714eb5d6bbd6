#define BOOST_TEST_MODULE matrix_market
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <kleene/io/binary.hpp>
#include <kleene/io/edge_list.hpp>
#include <kleene/io/matrix_market.hpp>
#include <kleene/io/output_file.hpp>
#include <limits>
#include <map>
#include <random>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace fs = std::filesystem;
namespace io = kleene::io;
using kleene::csr_matrix;
using kleene::duplicate_policy;

namespace {

std::string const data_dir = std::string(KLEENE_TEST_DATA) + "/mm";

fs::path temp_dir() {
    auto d = fs::temp_directory_path() / ("kleene_mm_test_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
}

template <class F>
io::mm_errc error_of(F&& f, std::uint64_t* line = nullptr) {
    try {
        f();
    } catch (io::mm_error const& e) {
        if (line) *line = e.line();
        return e.code();
    }
    BOOST_FAIL("no mm_error was thrown");
    return io::mm_errc::bad_entry;
}

template <class T>
bool same_bits(T x, T y) {
    return std::memcmp(&x, &y, sizeof(T)) == 0;
}

template <class T, class Index>
void check_equal(csr_matrix<T, Index> const& a, csr_matrix<T, Index> const& b) {
    BOOST_REQUIRE_EQUAL(a.rows(), b.rows());
    BOOST_REQUIRE_EQUAL(a.cols(), b.cols());
    BOOST_REQUIRE_EQUAL(a.nnz(), b.nnz());
    for (std::size_t i = 0; i <= a.rows(); ++i) BOOST_REQUIRE_EQUAL(a.row_ptr()[i], b.row_ptr()[i]);
    for (std::size_t k = 0; k < a.nnz(); ++k) {
        BOOST_REQUIRE_EQUAL(a.col_idx()[k], b.col_idx()[k]);
        BOOST_REQUIRE(same_bits(a.value(k), b.value(k)));
    }
}

template <class T>
T random_value(std::mt19937_64& rng) {
    if constexpr (std::is_same_v<T, bool>)
        return rng() & 1;
    else if constexpr (std::is_integral_v<T>)
        return static_cast<T>(rng());
    else {
        // Random bit patterns (subnormals, huge, tiny) plus plain decimals; no NaN payloads.
        if (rng() % 2) return static_cast<T>(static_cast<int>(rng() % 2000) - 1000) / T(8);
        using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        U bits = static_cast<U>(rng());
        T x;
        std::memcpy(&x, &bits, sizeof x);
        return std::isnan(x) ? T(0.1) : x;
    }
}

/// A random n x n matrix with the given symmetry (values mirrored or negated).
template <class T, class Index>
csr_matrix<T, Index> random_matrix(std::size_t n, std::size_t m, io::mm_symmetry sym,
                                   std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::map<std::pair<Index, Index>, T> e;
    for (std::size_t k = 0; k < m; ++k) {
        Index i = static_cast<Index>(rng() % n), j = static_cast<Index>(rng() % n);
        T v = random_value<T>(rng);
        if (sym == io::mm_symmetry::general) {
            e[{i, j}] = v;
            continue;
        }
        if (sym == io::mm_symmetry::skew_symmetric) {
            if (i == j) continue;
            if constexpr (std::is_signed_v<T> && std::is_integral_v<T>)
                if (v == std::numeric_limits<T>::min()) v = 1;
            e[{i, j}] = v;
            if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>) e[{j, i}] = T(-v);
        } else {
            e[{i, j}] = v;
            e[{j, i}] = v;
        }
    }
    std::vector<Index> ii, jj;
    std::vector<T> vv;
    for (auto [ij, v] : e) {
        ii.push_back(ij.first);
        jj.push_back(ij.second);
        vv.push_back(v);
    }
    if constexpr (std::is_same_v<T, bool>) {
        auto* raw = new bool[vv.size()];
        std::copy(vv.begin(), vv.end(), raw);
        auto a =
            csr_matrix<T, Index>::from_coo(n, n, ii, jj, std::span<bool const>(raw, vv.size()));
        delete[] raw;
        return a;
    } else {
        return csr_matrix<T, Index>::from_coo(n, n, ii, jj, vv);
    }
}

}  // namespace

/// Each file of DIR is named ERRC-LINE-WHAT.EXT: read(path) must raise that error at that line.
template <class Read>
std::size_t check_bad_corpus(std::string const& dir, Read&& read) {
    std::size_t n = 0;
    for (auto const& f : fs::directory_iterator(dir)) {
        std::string const stem = f.path().stem().string();
        auto const d1 = stem.find('-'), d2 = stem.find('-', d1 + 1);
        std::string const want = stem.substr(0, d1);
        std::uint64_t const want_line = std::stoull(stem.substr(d1 + 1, d2 - d1 - 1));
        std::uint64_t line = 0;
        auto code = error_of([&] { read(f.path().string()); }, &line);
        BOOST_TEST_INFO("file " << f.path().filename());
        BOOST_TEST(std::string(io::to_string(code)) == want);
        BOOST_TEST_INFO("file " << f.path().filename());
        BOOST_TEST(line == want_line);
        ++n;
    }
    return n;
}

BOOST_AUTO_TEST_CASE(malformed_corpus_gives_the_right_error_class_and_line) {
    // Both index widths: sizes that fit 32 bits are refused by the index check first, so the
    // size checks of the 64-bit read are the ones that meet hostile dimensions.
    std::size_t const n = check_bad_corpus(
        data_dir + "/bad", [](std::string const& p) { io::read_matrix_market<double>(p); });
    BOOST_TEST(n >= 30u);
    check_bad_corpus(data_dir + "/bad",
                     [](std::string const& p) { io::read_matrix_market<double, std::int64_t>(p); });
}

BOOST_AUTO_TEST_CASE(malformed_edge_lists_give_the_right_error_class_and_line) {
    std::string const dir = std::string(KLEENE_TEST_DATA) + "/el/bad";
    std::size_t const n = check_bad_corpus(
        dir, [](std::string const& p) { io::read_edge_list<double, std::int64_t>(p); });
    BOOST_TEST(n >= 10u);
    check_bad_corpus(dir, [](std::string const& p) { io::read_edge_list<double>(p); });
    check_bad_corpus(dir, [](std::string const& p) {
        io::edge_list_options o;
        o.undirected = true;
        io::read_edge_list<float, std::int64_t>(p, o);
    });
}

BOOST_AUTO_TEST_CASE(hostile_sizes_are_refused_before_allocating) {
    using io::mm_errc;
    std::uint64_t line = 0;
    auto mm = [](std::string const& size_line, std::string const& field = "real") {
        return "%%MatrixMarket matrix coordinate " + field + " general\n" + size_line + "\n";
    };
    // 2^61 rows: (rows + 1) 8-byte row pointers wrapped to 8 bytes, then were written past.
    std::string const t = mm("2305843009213693952 1 0", "pattern");
    BOOST_TEST((error_of([&] { io::read_matrix_market_from_memory<bool, std::int64_t>(t); },
                         &line) == mm_errc::too_large));
    BOOST_TEST(line == 2u);
    try {
        io::read_matrix_market_from_memory<double, std::int64_t>(t);
    } catch (kleene::parse_error const& e) {
        BOOST_TEST(std::string(e.what()).find("<memory>:2: a 2305843009213693952x1 matrix needs") ==
                   0u);
        BOOST_TEST(std::string(e.what()).find("EiB, more than 64 bits address") !=
                   std::string::npos);
    }
    // A coordinate file read dense: rows * cols * 8 wrapped to 0 bytes, then was filled.
    std::string const wide = mm("1 4611686018427387904 0");
    BOOST_TEST((error_of([&] { io::read_matrix_market_dense_from_memory<double>(wide); }, &line) ==
                mm_errc::too_large));
    BOOST_TEST(line == 2u);
    // The entry count 2^64 - 1 was taken for "no count" and the file accepted.
    BOOST_TEST((error_of([&] {
                    io::read_matrix_market_from_memory<double>(mm("2 2 18446744073709551615") +
                                                               "1 1 1\n");
                }) == mm_errc::too_few_entries));
    // No rows: an array of any width holds nothing, reads at once and writes at once.
    std::string const none = "%%MatrixMarket matrix array real general\n0 4611686018427387904\n";
    auto d = io::read_matrix_market_dense_from_memory<double>(none);
    BOOST_TEST((d.rows() == 0u && d.cols() == 4611686018427387904u));
    auto back = io::write_matrix_market_to_string(d);
    BOOST_TEST(back.find("\n0 4611686018427387904\n") != std::string::npos);
    auto c = io::read_matrix_market_from_memory<double, std::int64_t>(none);
    BOOST_TEST((c.rows() == 0u && c.nnz() == 0u));
    // No columns, 2^62 rows: a dense read holds nothing, CSR needs 2^62 row pointers.
    std::string const tall = "%%MatrixMarket matrix array real general\n4611686018427387904 0\n";
    BOOST_TEST(io::read_matrix_market_dense_from_memory<double>(tall).rows() ==
               4611686018427387904u);
    BOOST_TEST((error_of([&] { io::read_matrix_market_from_memory<double, std::int64_t>(tall); },
                         &line) == mm_errc::too_large));
    BOOST_TEST(line == 2u);
    // Edge lists: the vertex count comes from the largest id, named with its line.
    try {
        io::read_edge_list_from_memory<double, std::int64_t>("1 2\n2305843009213693952 1\n");
        BOOST_FAIL("no error");
    } catch (io::mm_error const& e) {
        BOOST_TEST((e.code() == mm_errc::too_large && e.line() == 2u));
        BOOST_TEST(std::string(e.what()).find("vertex id 2305843009213693952") !=
                   std::string::npos);
    }
    io::edge_list_options z;
    z.zero_based = true;
    BOOST_TEST((error_of([&] {
                    io::read_edge_list_from_memory<double, std::int64_t>("0 18446744073709551614\n",
                                                                         z);
                }) == mm_errc::too_large));
}

BOOST_AUTO_TEST_CASE(messages_name_the_file_and_line) {
    std::string const p = data_dir + "/bad/index_out_of_range-4-past.mtx";
    try {
        io::read_matrix_market<double>(p);
        BOOST_FAIL("no error");
    } catch (kleene::parse_error const& e) {
        BOOST_TEST(std::string(e.what()).find(p + ":4: column index 4 is outside 1..3") == 0);
    }
    try {
        io::read_matrix_market<double>(data_dir + "/bad/unsupported-1-complex.mtx");
    } catch (kleene::parse_error const& e) {
        BOOST_TEST(std::string(e.what()).find("complex values are not supported") !=
                   std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(permissive_corpus_reads) {
    std::ifstream in(data_dir + "/good/expected.txt");
    std::string name;
    std::size_t r, c, n, count = 0;
    while (in >> name >> r >> c >> n) {
        auto a = io::read_matrix_market<double, std::int64_t>(data_dir + "/good/" + name + ".mtx");
        BOOST_TEST_INFO(name);
        BOOST_TEST((a.rows() == r && a.cols() == c && a.nnz() == n));
        ++count;
    }
    BOOST_TEST(count >= 14u);
}

BOOST_AUTO_TEST_CASE(values_and_symmetry_expansion) {
    auto s = io::read_matrix_market<double>(data_dir + "/good/symmetric.mtx");
    BOOST_TEST(s.value(s.find(0, 2)) == 3.0);
    BOOST_TEST(s.value(s.find(2, 0)) == 3.0);
    auto k = io::read_matrix_market<int>(data_dir + "/good/skew.mtx");
    BOOST_TEST(k.value(k.find(1, 0)) == 2);
    BOOST_TEST(k.value(k.find(0, 1)) == -2);
    BOOST_TEST(k.value(k.find(1, 2)) == 3);
    auto d = io::read_matrix_market_dense<double>(data_dir + "/good/array_symmetric.mtx");
    // Column-major lower triangle: (0,0)=1 (1,0)=2 (2,0)=3 (1,1)=4 (2,1)=5 (2,2)=6.
    BOOST_TEST(d(0, 1) == 2.0);
    BOOST_TEST(d(2, 1) == 5.0);
    BOOST_TEST(d(1, 2) == 5.0);
    auto ks = io::read_matrix_market_dense<int>(data_dir + "/good/array_skew.mtx");
    BOOST_TEST(ks(1, 0) == 1);
    BOOST_TEST(ks(0, 1) == -1);
    BOOST_TEST(ks(2, 1) == 3);
    BOOST_TEST(ks(1, 1) == 0);
    auto f = io::read_matrix_market<double>(data_dir + "/good/inf_nan.mtx");
    BOOST_TEST(std::isinf(f.value(0)));
    BOOST_TEST(f.value(1) < 0);
    BOOST_TEST(std::isnan(f.value(2)));
    auto p = io::read_matrix_market<double>(data_dir + "/good/plus_signs_and_exponents.mtx");
    BOOST_TEST(p.value(0) == 1.5);
    BOOST_TEST(p.value(1) == 1000.0);
    BOOST_TEST(p.value(3) == 0.0);
    auto pat = io::read_matrix_market<float>(data_dir + "/good/pattern.mtx");
    BOOST_TEST(pat.is_iso());
    auto v = io::read_matrix_market_vector<double>(data_dir + "/good/vector_coordinate.mtx");
    BOOST_TEST(v.size() == 5u);
    BOOST_TEST(v.indices()[1] == 3);
    BOOST_TEST(v.values()[1] == -1.0);
    auto dv = io::read_matrix_market_dense_vector<int>(data_dir + "/good/vector_array.mtx");
    BOOST_TEST(dv[2] == 9);
    auto h = io::read_matrix_market_header(data_dir + "/good/pattern.mtx");
    BOOST_TEST(h.graphblas_type.has_value());
    BOOST_TEST((h.natural_type() == io::value_type::bool_));
    BOOST_TEST(h.file_entries == 2u);
}

// LAGraph's files: a %%GraphBLAS line that is not a type line is a comment (LAGraph and
// SuiteSparse read it so); `%%GraphBLAS T` (older LAGraph) and `%%GraphBLAS type T` set the type;
// LAGraph's array size line may carry the count of values, which must then be right.
BOOST_AUTO_TEST_CASE(lagraph_graphblas_lines) {
    auto const full = io::read_matrix_market_dense<double>(data_dir + "/good/graphblas_comment_array.mtx");
    BOOST_TEST(full(0, 0) == 0.646);
    BOOST_TEST(full(1, 0) == 0.709);
    BOOST_TEST(full(2, 2) == 0.498);
    auto const h1 = io::read_matrix_market_header(data_dir + "/good/graphblas_comment_array.mtx");
    BOOST_TEST(!h1.graphblas_type.has_value());
    auto const h2 = io::read_matrix_market_header(data_dir + "/good/graphblas_old_type_line.mtx");
    BOOST_TEST((h2.graphblas_type == io::value_type::float64));
    BOOST_TEST(h2.file_entries == 9u);
    auto const old = io::read_matrix_market_dense<double>(data_dir + "/good/graphblas_old_type_line.mtx");
    BOOST_TEST(old(0, 1) == 0.276);
    auto const h3 = io::read_matrix_market_header(data_dir + "/good/graphblas_notes.mtx");
    BOOST_TEST((h3.graphblas_type == io::value_type::int32));
    auto const tree = io::read_matrix_market<std::int32_t>(data_dir + "/good/graphblas_notes.mtx");
    BOOST_TEST(tree.nnz() == 3u);
    // A type line with an unknown type is still refused, and so is a wrong array count.
    std::uint64_t line = 0;
    BOOST_TEST((error_of([&] { io::read_matrix_market<double>(data_dir + "/bad/unknown_graphblas_type-2-user.mtx"); }, &line) ==
                io::mm_errc::unknown_graphblas_type));
    BOOST_TEST((error_of([&] { io::read_matrix_market<double>(data_dir + "/bad/bad_size_line-2-array-count.mtx"); }, &line) ==
                io::mm_errc::bad_size_line));
    BOOST_TEST(line == 2u);
    BOOST_TEST((error_of([&] {
                    io::read_matrix_market_from_memory<double>(
                        "%%MatrixMarket matrix coordinate real general\n%%GraphBLAS type\n1 1 0\n");
                }) == io::mm_errc::unknown_graphblas_type));
}

BOOST_AUTO_TEST_CASE(duplicate_policies) {
    std::string const t =
        "%%MatrixMarket matrix coordinate integer general\n2 2 4\n1 2 5\n2 2 1\n1 2 3\n1 2 4\n";
    auto rd = [&](duplicate_policy p) {
        io::read_options o;
        o.duplicates = p;
        auto a = io::read_matrix_market_from_memory<int>(t, o);
        BOOST_REQUIRE_EQUAL(a.nnz(), 2u);
        return a.value(0);
    };
    BOOST_TEST(rd(duplicate_policy::sum) == 12);
    BOOST_TEST(rd(duplicate_policy::min) == 3);
    BOOST_TEST(rd(duplicate_policy::max) == 5);
    BOOST_TEST(rd(duplicate_policy::last) == 4);
    std::uint64_t line = 0;
    BOOST_TEST((error_of([&] { io::read_matrix_market_from_memory<int>(t); }, &line) ==
                io::mm_errc::duplicate_entry));
    BOOST_TEST(line == 5u);
}

BOOST_AUTO_TEST_CASE(integer_and_real_conversions_only_where_exact) {
    std::string const i =
        "%%MatrixMarket matrix coordinate integer general\n1 2 2\n1 1 16777216\n1 2 -7\n";
    auto f = io::read_matrix_market_from_memory<float>(i);
    BOOST_TEST(f.value(0) == 16777216.0f);
    std::string const i2 =
        "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 16777217\n";
    BOOST_TEST((error_of([&] { io::read_matrix_market_from_memory<float>(i2); }) ==
                io::mm_errc::value_overflow));
    std::string const r =
        "%%MatrixMarket matrix coordinate real general\n1 2 2\n1 1 2.0\n1 2 -3e2\n";
    auto n = io::read_matrix_market_from_memory<std::int32_t>(r);
    BOOST_TEST(n.value(1) == -300);
    std::string const r2 = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.5\n";
    BOOST_TEST((error_of([&] { io::read_matrix_market_from_memory<std::int32_t>(r2); }) ==
                io::mm_errc::value_overflow));
    std::string const big = "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 300\n";
    BOOST_TEST((error_of([&] { io::read_matrix_market_from_memory<std::uint8_t>(big); }) ==
                io::mm_errc::value_overflow));
    std::string const neg = "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 -1\n";
    BOOST_TEST((error_of([&] { io::read_matrix_market_from_memory<std::uint32_t>(neg); }) ==
                io::mm_errc::value_overflow));
    std::string const wide = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e300\n";
    BOOST_TEST((error_of([&] { io::read_matrix_market_from_memory<float>(wide); }) ==
                io::mm_errc::value_overflow));
}

BOOST_AUTO_TEST_CASE(large_dimensions_need_64_bit_indices) {
    std::string const t =
        "%%MatrixMarket matrix coordinate pattern general\n5000000000 3 1\n4999999999 2\n";
    BOOST_TEST((error_of([&] { io::read_matrix_market_from_memory<bool, std::int32_t>(t); }) ==
                io::mm_errc::too_large));
    auto h = io::read_matrix_market_header_from_memory(t, "x");
    BOOST_TEST(h.rows == 5000000000ull);
}

template <class T>
void round_trip_all_symmetries() {
    std::vector<io::mm_symmetry> syms{io::mm_symmetry::general, io::mm_symmetry::symmetric};
    if constexpr (std::is_signed_v<T> || std::is_floating_point_v<T>)
        syms.push_back(io::mm_symmetry::skew_symmetric);
    for (auto sym : syms)
        for (std::size_t n : {1u, 7u, 60u}) {
            auto a = random_matrix<T, std::int32_t>(n, n * 3, sym, n * 31 + std::size_t(sym));
            io::write_options wo;
            wo.symmetry = sym;
            auto text = io::write_matrix_market_to_string(a, wo);
            auto b = io::read_matrix_market_from_memory<T, std::int32_t>(text);
            BOOST_TEST_INFO(io::to_string(io::value_type_of<T>()) << " " << io::to_string(sym));
            check_equal(a, b);
            auto h = io::read_matrix_market_header_from_memory(text, "x");
            BOOST_TEST((h.symmetry == sym));
            BOOST_TEST((h.natural_type() == io::value_type_of<T>()));
            // Dense (array) round trip.
            if constexpr (!std::is_same_v<T, bool>) {
                kleene::dense_matrix<T> d(n, n, T(0));
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
                        d(i, a.col_idx()[k]) = a.value(k);
                auto dt = io::write_matrix_market_to_string(d, wo);
                auto e = io::read_matrix_market_dense_from_memory<T>(dt);
                // == rather than bits: a skew file's mirror of 0 is -0.
                BOOST_TEST(std::equal(d.data(), d.data() + n * n, e.data()));
            }
        }
}

BOOST_AUTO_TEST_CASE(round_trip_every_type_and_symmetry) {
    round_trip_all_symmetries<bool>();
    round_trip_all_symmetries<std::int8_t>();
    round_trip_all_symmetries<std::int16_t>();
    round_trip_all_symmetries<std::int32_t>();
    round_trip_all_symmetries<std::int64_t>();
    round_trip_all_symmetries<std::uint8_t>();
    round_trip_all_symmetries<std::uint16_t>();
    round_trip_all_symmetries<std::uint32_t>();
    round_trip_all_symmetries<std::uint64_t>();
    round_trip_all_symmetries<float>();
    round_trip_all_symmetries<double>();
}

BOOST_AUTO_TEST_CASE(pattern_round_trip_and_shortest_numbers) {
    auto a = io::read_matrix_market<bool>(data_dir + "/good/pattern.mtx");
    auto t = io::write_matrix_market_to_string(a);
    BOOST_TEST(t.find("coordinate pattern general") != std::string::npos);
    check_equal(a, io::read_matrix_market_from_memory<bool>(t));
    std::vector<int> i{0}, j{0};
    std::vector<double> v{0.1};
    auto b = csr_matrix<double>::from_coo(1, 1, i, j, v);
    BOOST_TEST(io::write_matrix_market_to_string(b).find("\n1 1 0.1\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(thread_count_does_not_change_the_result) {
    // ~3 MB so the entry section is split into many chunks; with duplicates to merge.
    std::mt19937_64 rng(7);
    std::string t = "%%MatrixMarket matrix coordinate real general\n1000 900 150000\n";
    for (int k = 0; k < 150000; ++k)
        t += std::to_string(rng() % 1000 + 1) + " " + std::to_string(rng() % 900 + 1) + " " +
             std::to_string(static_cast<double>(rng() % 100000) / 7) + "\n";
    io::read_options o;
    o.duplicates = duplicate_policy::last;
    o.threads = 1;
    auto a = io::read_matrix_market_from_memory<double>(t, o);
    for (int th : {2, 3, 8}) {
        o.threads = th;
        check_equal(a, io::read_matrix_market_from_memory<double>(t, o));
    }
    o.duplicates = duplicate_policy::error;
    std::uint64_t l1 = 0, l2 = 0;
    o.threads = 1;
    error_of([&] { io::read_matrix_market_from_memory<double>(t, o); }, &l1);
    o.threads = 4;
    error_of([&] { io::read_matrix_market_from_memory<double>(t, o); }, &l2);
    BOOST_TEST(l1 == l2);
    // Entry errors late in a big file report the right line with many chunks.
    std::string bad = t;
    bad.insert(bad.size() - 1, " 9");
    o.duplicates = duplicate_policy::sum;
    std::uint64_t line = 0;
    BOOST_TEST((error_of([&] { io::read_matrix_market_from_memory<double>(bad, o); }, &line) ==
                io::mm_errc::bad_entry));
    BOOST_TEST(line == 150002u);
}

BOOST_AUTO_TEST_CASE(edge_lists) {
    std::string const t = "# a graph\n% also a comment\n1 2 0.5\n\n2 3 1.5\n3 1 -1\n";
    auto a = io::read_edge_list_from_memory<double>(t);
    BOOST_TEST(a.rows() == 3u);
    BOOST_TEST(a.value(a.find(1, 2)) == 1.5);
    io::edge_list_options u;
    u.undirected = true;
    auto b = io::read_edge_list_from_memory<double>(t, u);
    BOOST_TEST(b.nnz() == 6u);
    io::edge_list_options z;
    z.zero_based = true;
    auto p = io::read_edge_list_from_memory<double>("0 1\n1 2\n", z);
    BOOST_TEST(p.is_iso());
    BOOST_TEST(p.rows() == 3u);
    std::uint64_t line = 0;
    BOOST_TEST((error_of([&] { io::read_edge_list_from_memory<double>("1 2\n2 3 4\n"); }, &line) ==
                io::mm_errc::bad_entry));
    BOOST_TEST(line == 2u);
    BOOST_TEST((error_of([&] { io::read_edge_list_from_memory<double>("1 0\n"); }) ==
                io::mm_errc::index_out_of_range));
    auto dir = temp_dir();
    io::write_edge_list((dir / "g.el").string(), a);
    check_equal(a, io::read_edge_list<double>((dir / "g.el").string()));
}

BOOST_AUTO_TEST_CASE(binary_round_trip_and_corruption) {
    auto dir = temp_dir();
    auto a = random_matrix<double, std::int32_t>(200, 2000, io::mm_symmetry::general, 3);
    std::string const p = (dir / "a.kbin").string();
    io::write_binary(p, a);
    check_equal(a, io::read_binary<double, std::int32_t>(p));
    auto wide = io::read_binary<double, std::int64_t>(p);
    BOOST_TEST(wide.nnz() == a.nnz());
    auto h = io::read_binary_header(p);
    BOOST_TEST((h.type == io::value_type::float64 && h.rows == 200u && h.nnz == a.nnz()));
    // Flip one payload byte: checksum mismatch.
    {
        std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(128 + 900);
        char c = 0;
        f.seekg(128 + 900);
        f.read(&c, 1);
        c = static_cast<char>(c ^ 0x40);
        f.seekp(128 + 900);
        f.write(&c, 1);
    }
    BOOST_TEST(
        (error_of([&] { io::read_binary<double, std::int32_t>(p); }) == io::mm_errc::bad_binary));
    fs::resize_file(p, 1000);
    BOOST_TEST(
        (error_of([&] { io::read_binary<double, std::int32_t>(p); }) == io::mm_errc::bad_binary));
    // Type conversion on load: exact only.
    auto ints = random_matrix<std::int32_t, std::int32_t>(50, 200, io::mm_symmetry::general, 4);
    io::write_binary(p, ints);
    auto as_double = io::read_binary<double, std::int64_t>(p);
    BOOST_TEST(as_double.value(3) == static_cast<double>(ints.value(3)));
    BOOST_TEST((error_of([&] { io::read_binary<std::int8_t, std::int32_t>(p); }) ==
                io::mm_errc::value_overflow));
    kleene::dense_matrix<float> d(3, 4, 1.5f);
    io::write_binary(p, d);
    auto e = io::read_binary_dense<float>(p);
    BOOST_TEST(e(2, 3) == 1.5f);
    BOOST_TEST(io::binary_checksum("abc", 3, 1) == io::binary_checksum("abc", 3, 4));
}

BOOST_AUTO_TEST_CASE(checksum_stream_equals_the_checksum_of_the_whole) {
    // Pieces of every size around the 1 MiB hashing blocks: whole blocks, straddling ones, empty.
    std::vector<unsigned char> bytes((std::size_t(5) << 20) + 12345);
    std::uint64_t x = 88172645463325252ull;
    for (auto& b : bytes) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        b = static_cast<unsigned char>(x);
    }
    for (std::size_t total : {std::size_t(0), std::size_t(1), std::size_t(1) << 20,
                              (std::size_t(1) << 20) + 1, bytes.size()}) {
        std::uint64_t const want = io::binary_checksum(bytes.data(), total, 2);
        for (std::size_t piece : {std::size_t(1), std::size_t(7), std::size_t(4096),
                                  (std::size_t(1) << 20) - 1, std::size_t(1) << 20,
                                  (std::size_t(3) << 20) + 5}) {
            io::binary_checksum_stream s;
            s.add(bytes.data(), 0);
            for (std::size_t at = 0; at < total && (piece > 1 || total < 100000); at += piece)
                s.add(bytes.data() + at, std::min(piece, total - at));
            if (piece == 1 && total >= 100000) s.add(bytes.data(), total);  // one piece instead
            BOOST_TEST(s.bytes() == total);
            BOOST_TEST(s.value() == want, "total " << total << ", pieces of " << piece);
        }
    }
    io::binary_checksum_stream s;
    s.add("ab", 2);
    BOOST_TEST(s.value() != io::binary_checksum("abc", 3));
    s.add("c", 1);
    BOOST_TEST(s.value() == io::binary_checksum("abc", 3));  // value() may be asked in between
}

/// Reads a .kbin as kleene info does: the header says dense or sparse and the type.
void read_kbin(std::string const& p) {
    auto h = io::read_binary_header(p);
    io::visit_value_type(h.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (h.dense) {
            io::read_binary_dense<T>(p, 1);
            io::read_binary_dense<double>(p, 4);
        } else {
            io::read_binary<T, std::int64_t>(p, 1);
            io::read_binary<T, std::int32_t>(p, 4);
            io::read_binary<double, std::int64_t>(p, 2);
        }
    });
}

BOOST_AUTO_TEST_CASE(crafted_binary_files_are_refused) {
    // tests/data/kbin/make_files.py: valid checksums, invalid headers or structure. Named
    // ERRC-WHAT.kbin; binary errors have no line, and the message is "file: what".
    std::size_t n = 0;
    for (auto const& f : fs::directory_iterator(std::string(KLEENE_TEST_DATA) + "/kbin/bad")) {
        std::string const p = f.path().string();
        std::string const stem = f.path().stem().string();
        BOOST_TEST_INFO("file " << f.path().filename());
        BOOST_TEST(std::string(io::to_string(error_of([&] { read_kbin(p); }))) ==
                   stem.substr(0, stem.find('-')));
        try {
            read_kbin(p);
        } catch (kleene::parse_error const& e) {
            BOOST_TEST_INFO("file " << f.path().filename() << ": " << e.what());
            BOOST_TEST(std::string(e.what()).rfind(p + ": ", 0) == 0u);
        }
        ++n;
    }
    BOOST_TEST(n >= 20u);
    auto const bad = std::string(KLEENE_TEST_DATA) + "/kbin/bad/";
    auto message = [](std::string const& p) {
        try {
            read_kbin(p);
        } catch (kleene::error const& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    BOOST_TEST(message(bad + "bad_binary-row_ptr_past_entries.kbin")
                   .find("row pointer 2 (byte offset 136) is 1, less than row pointer 1 "
                         "(2000000000)") != std::string::npos);
    BOOST_TEST(message(bad + "bad_binary-bool_byte_7.kbin")
                   .find("the value of entry 1 (byte offset 145) is 7, not a bool") !=
               std::string::npos);
    BOOST_TEST(message(bad + "bad_binary-columns_duplicate.kbin").find("not sorted and unique") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(good_binary_files_read) {
    auto const good = std::string(KLEENE_TEST_DATA) + "/kbin/good/";
    auto a = io::read_binary<double, std::int32_t>(good + "small_double.kbin");
    BOOST_TEST((a.rows() == 2u && a.cols() == 3u && a.nnz() == 3u));
    BOOST_TEST(a.value(a.find(1, 2)) == 4.0);
    auto b = io::read_binary<bool, std::int64_t>(good + "small_bool_iso.kbin");
    BOOST_TEST((b.is_iso() && b.iso_value() && b.find(0, 1) == 0));
    BOOST_TEST(io::read_binary<float>(good + "empty_0x0.kbin").rows() == 0u);
    // int64 values at payload offset 12 (4-byte indices), converted on load.
    auto c = io::read_binary<double, std::int64_t>(good + "int64_values_at_offset_12.kbin", 2);
    BOOST_TEST((c.nnz() == 1u && c.col_idx()[0] == 1 && c.value(0) == -5.0));
    // No rows, 2^62 columns: nothing is stored, so it reads (and its header says so) at once.
    auto d = io::read_binary_dense<double>(good + "dense_0_rows_huge_cols.kbin");
    BOOST_TEST((d.rows() == 0u && d.cols() == (std::size_t(1) << 62)));
    BOOST_TEST(io::read_binary_header(good + "dense_0_rows_huge_cols.kbin").nnz == 0u);
}

BOOST_AUTO_TEST_CASE(failed_writes_leave_no_partial_file) {
    auto dir = temp_dir();
    std::string const p = (dir / "keep.mtx").string();
    { std::ofstream(p) << "old"; }
    auto a = random_matrix<double, std::int32_t>(5, 10, io::mm_symmetry::general, 5);
    io::write_options wo;
    wo.symmetry = io::mm_symmetry::symmetric;
    BOOST_CHECK_THROW(io::write_matrix_market(p, a, wo), kleene::invalid_argument);
    std::ifstream in(p);
    std::string s;
    in >> s;
    BOOST_TEST(s == "old");
    std::size_t files = 0;
    for (auto const& f : fs::directory_iterator(dir))
        files += f.path().filename().string()[0] == '.';
    BOOST_TEST(files == 0u);
    BOOST_CHECK_THROW(io::write_matrix_market((dir / "no/such/dir/x.mtx").string(), a),
                      kleene::io_error);
    io::write_matrix_market(p, a);
    check_equal(a, io::read_matrix_market<double>(p));
    fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(edge_list_shape_line) {
    // Empty rows and columns at the end, and rectangles, survive the trip.
    auto const a = csr_matrix<double>::from_coo(5, 7, std::vector<int>{1}, std::vector<int>{2},
                                                std::vector<double>{1.5});
    std::string s;
    {
        auto dir = temp_dir();
        std::string const p = (dir / "r.el").string();
        io::write_edge_list(p, a);
        std::ifstream in(p);
        std::getline(in, s);
        BOOST_TEST(s == "# kleene edge list: 5 x 7, 1 entries, double values");
        check_equal(a, io::read_edge_list<double>(p));
        auto const info = io::read_edge_list_info(p);
        BOOST_TEST((info.rows == 5u && info.cols == 7u && info.edges == 1u));
        BOOST_TEST((info.type == io::value_type::float64));
    }
    std::uint64_t line = 0;
    BOOST_TEST((error_of([&] {
                    io::read_edge_list_from_memory<double>(
                        "# kleene edge list: 2 x 3, 1 entries\n3 1 1\n");
                }, &line) == io::mm_errc::index_out_of_range));
    BOOST_TEST(line == 2u);
    BOOST_TEST((error_of([&] {
                    io::read_edge_list_from_memory<double>(
                        "# kleene edge list: 2 x 3, 2 entries\n1 1 1\n");
                }) == io::mm_errc::too_few_entries));
    BOOST_TEST((error_of([&] {
                    io::read_edge_list_from_memory<double>(
                        "# kleene edge list: 2 x 3, 1 entries\n1 1 1\n2 2 2\n", {});
                }, &line) == io::mm_errc::too_many_entries));
    BOOST_TEST(line == 3u);
    BOOST_TEST((error_of([&] {
                    io::read_edge_list_from_memory<double>("# kleene edge list: 2 x\n1 1\n");
                }, &line) == io::mm_errc::bad_size_line));
    BOOST_TEST(line == 1u);
    io::edge_list_options u;
    u.undirected = true;
    BOOST_TEST((error_of([&] {
                    io::read_edge_list_from_memory<double>(
                        "# kleene edge list: 2 x 3, 1 entries\n1 1 1\n", u);
                }) == io::mm_errc::not_square));
    // A TYPE that is not one, or words after it, make the line malformed.
    for (char const* bad : {"# kleene edge list: 2 x 3, 1 entries, int33_t values\n1 1 1\n",
                            "# kleene edge list: 2 x 3, 1 entries, int32_t\n1 1 1\n",
                            "# kleene edge list: 2 x 3, 1 entries int32_t values\n1 1 1\n",
                            "# kleene edge list: 2 x 3, 1 entries, int32_t values x\n1 1 1\n"}) {
        BOOST_TEST((error_of([&] { io::read_edge_list_from_memory<double>(bad); }, &line) ==
                    io::mm_errc::bad_size_line), bad);
        BOOST_TEST(line == 1u);
        BOOST_TEST((error_of([&] { io::read_edge_list_type_from_memory(bad); }) ==
                    io::mm_errc::bad_size_line), bad);
    }
    // Only among the comments before the first edge; other comments are comments.
    auto const b = io::read_edge_list_from_memory<double>(
        "# a graph\n1 2 1\n# kleene edge list: 9 x 9, 1 entries\n");
    BOOST_TEST(b.rows() == 2u);
}

BOOST_AUTO_TEST_CASE(edge_list_keeps_the_value_type) {
    // The shape line names the type; read back as that type, integers past 2^53 survive (as
    // double they would not), and a pattern matrix names none.
    auto dir = temp_dir();
    std::int64_t const big = (std::int64_t(1) << 53) + 1;
    auto const a = csr_matrix<std::int64_t>::from_coo(
        4, 4, std::vector<int>{0, 3}, std::vector<int>{1, 2}, std::vector<std::int64_t>{big, -7});
    std::string const p = (dir / "i.el").string();
    io::write_edge_list(p, a);
    std::string s;
    {
        std::ifstream in(p);
        std::getline(in, s);
    }
    BOOST_TEST(s == "# kleene edge list: 4 x 4, 2 entries, int64_t values");
    BOOST_TEST((io::read_edge_list_type(p) == io::value_type::int64));
    BOOST_TEST((io::read_edge_list_info(p).type == io::value_type::int64));
    auto const back = io::read_edge_list<std::int64_t>(p);
    BOOST_TEST_REQUIRE(back.nnz() == 2u);
    BOOST_TEST(back.value(back.find(0, 1)) == big);
    BOOST_TEST(back.value(back.find(3, 2)) == -7);

    auto const f = csr_matrix<float>::from_coo(2, 2, std::vector<int>{1}, std::vector<int>{0},
                                               std::vector<float>{0.25f});
    io::write_edge_list(p, f);
    BOOST_TEST((io::read_edge_list_type(p) == io::value_type::float32));
    auto const pat = io::read_edge_list_from_memory<double>("1 2\n");  // no weights: a pattern
    io::write_edge_list(p, pat);
    BOOST_TEST(!io::read_edge_list_type(p).has_value());
    // Another program's file: no shape line, no type.
    BOOST_TEST(!io::read_edge_list_type_from_memory("1 2 3\n").has_value());
    BOOST_TEST((io::read_edge_list_type_from_memory(
                    "% from kleene\n# kleene edge list: 2 x 2, 1 entries, GrB_INT32 values\n1 2 3\n") ==
                io::value_type::int32));
    // The type is a hint: a value that is not one is refused by the integer reader.
    std::uint64_t line = 0;
    BOOST_TEST((error_of([&] {
                    io::read_edge_list_from_memory<std::int32_t>(
                        "# kleene edge list: 2 x 2, 1 entries, int32_t values\n1 2 2.5\n");
                }, &line) == io::mm_errc::bad_value));
    BOOST_TEST(line == 2u);
    fs::remove_all(dir);
}

namespace {
struct recording_observer final : io::temp_observer {
    std::vector<std::string> live;
    void add(std::string const& t) override { live.push_back(t); }
    void remove(std::string const& t) override { std::erase(live, t); }
};
std::string slurp(fs::path const& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), {}};
}
}  // namespace

BOOST_AUTO_TEST_CASE(output_file_targets) {
    auto dir = temp_dir() / "out";
    fs::create_directories(dir);
    // A link is followed; it stays a link. The temporary is announced, then gone.
    { std::ofstream(dir / "real") << "old"; }
    fs::create_symlink("real", dir / "link");
    recording_observer obs;
    {
        io::output_file f((dir / "link").string(), &obs);
        BOOST_TEST(f.target() == (dir / "real").string());
        BOOST_TEST(!f.direct());
        BOOST_REQUIRE(obs.live.size() == 1u);
        BOOST_TEST(fs::exists(obs.live[0]));
        f.write("new");
        f.commit();
    }
    BOOST_TEST(obs.live.empty());
    BOOST_TEST(fs::is_symlink(dir / "link"));
    BOOST_TEST(slurp(dir / "real") == "new");
    // Not committed: the target is untouched and the temporary removed.
    {
        io::output_file f((dir / "real").string(), &obs);
        f.write("lost");
    }
    BOOST_TEST(obs.live.empty());
    BOOST_TEST(slurp(dir / "real") == "new");
    // The mode of an existing file is kept.
    fs::permissions(dir / "real", fs::perms::owner_read | fs::perms::owner_write);
    io::write_matrix_market((dir / "real").string(), csr_matrix<double>(2, 2));
    BOOST_TEST((fs::status(dir / "real").permissions() ==
                (fs::perms::owner_read | fs::perms::owner_write)));
    // Hard links: replaced, and said.
    fs::create_hard_link(dir / "real", dir / "other");
    {
        io::output_file f((dir / "real").string());
        BOOST_TEST(f.hard_links() == 2u);
        f.write("x");
        f.commit();
    }
    BOOST_TEST(fs::hard_link_count(dir / "real") == 1u);
    BOOST_TEST(slurp(dir / "other") != "x");
    // Refused: a directory, an empty name.
    BOOST_CHECK_THROW(io::output_file(dir.string()), kleene::io_error);
    BOOST_CHECK_THROW(io::output_file(""), kleene::invalid_argument);
    // A FIFO is written through (its reader opened first, so that opening it does not wait).
    std::string const fifo = (dir / "fifo").string();
    BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    int const rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    BOOST_REQUIRE(rd >= 0);
    {
        io::output_file f(fifo);
        BOOST_TEST(f.direct());
        f.write("through");
        f.commit();
    }
    char buf[16] = {};
    BOOST_TEST(::read(rd, buf, sizeof buf) == 7);
    BOOST_TEST(std::string(buf) == "through");
    ::close(rd);
    BOOST_TEST(fs::is_fifo(fifo));
    // A device is written directly; a failed write is never committed. Root writes to a node of
    // its own (a broken output_file would replace only that), others to /dev/full.
    std::string full = "/dev/full";
    if (::geteuid() == 0) {
        full = (dir / "full").string();
        if (::mknod(full.c_str(), S_IFCHR | 0600, makedev(1, 7)) != 0) full.clear();
    }
    if (!full.empty() && fs::exists(full)) {
        io::output_file f(full);
        BOOST_TEST(f.direct());
        BOOST_CHECK_THROW(
            {
                f.write(std::string(1 << 21, 'x'));
                f.finish();
            },
            kleene::io_error);
        BOOST_CHECK_THROW(f.commit(), kleene::io_error);
        BOOST_TEST(fs::is_character_file(full));
    }
    fs::remove_all(dir);
}
