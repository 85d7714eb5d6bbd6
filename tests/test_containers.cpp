#define BOOST_TEST_MODULE containers
#include <boost/test/unit_test.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/kleene.hpp>
#include <kleene/vector_for_overwrite.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

BOOST_AUTO_TEST_CASE(coo_roundtrip) {
    std::vector<int> i{2, 0, 0, 1}, j{1, 2, 0, 1};
    std::vector<double> v{4, 2, 1, 3};
    auto a = kleene::csr_matrix<double>::from_coo(3, 3, i, j, v);
    BOOST_TEST(a.nnz() == 4u);
    BOOST_TEST(a.col_idx()[0] == 0);
    BOOST_TEST(a.value(1) == 2.0);
}

BOOST_AUTO_TEST_CASE(coo_duplicates) {
    std::vector<int> i{0, 0, 1}, j{1, 1, 0};
    std::vector<double> v{4, 2, 1};
    BOOST_CHECK_THROW(kleene::csr_matrix<double>::from_coo(2, 2, i, j, v), kleene::invalid_argument);
    auto s = kleene::csr_matrix<double>::from_coo(2, 2, i, j, v, kleene::duplicate_policy::sum);
    BOOST_TEST(s.nnz() == 2u);
    BOOST_TEST(s.value(0) == 6.0);
    auto m = kleene::csr_matrix<double>::from_coo(2, 2, i, j, v, kleene::duplicate_policy::min);
    BOOST_TEST(m.value(0) == 2.0);
    auto l = kleene::csr_matrix<double>::from_coo(2, 2, i, j, v, kleene::duplicate_policy::last);
    BOOST_TEST(l.value(0) == 2.0);
    auto x = kleene::csr_matrix<double>::from_coo(2, 2, i, j, v, kleene::duplicate_policy::max);
    BOOST_TEST(x.value(0) == 4.0);
}

BOOST_AUTO_TEST_CASE(coo_out_of_range) {
    std::vector<int> i{0, 2}, j{1, 0};
    std::vector<float> v{1, 1};
    BOOST_CHECK_THROW(kleene::csr_matrix<float>::from_coo(2, 2, i, j, v), kleene::invalid_argument);
}

BOOST_AUTO_TEST_CASE(validate_rejects_unsorted) {
    kleene::buffer<int> p{0, 2}, c{1, 0};
    kleene::buffer<float> v{1, 2};
    BOOST_CHECK_THROW(kleene::csr_matrix<float>(1, 2, p, c, v), kleene::invalid_argument);
}

BOOST_AUTO_TEST_CASE(validate_checks_row_pointers_before_reading_columns) {
    // row_ptr[1] = 1000 with 3 entries: the column check must not read col_idx[3..999].
    auto message = [](std::initializer_list<int> rp, std::initializer_list<int> ci) {
        kleene::buffer<int> p(rp), c(ci);
        kleene::buffer<float> v(c.size(), 1.0f);
        try {
            kleene::csr_matrix<float>(p.size() - 1, 4, p, c, v);
        } catch (kleene::invalid_argument const& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    BOOST_TEST(message({0, 1000, 3}, {0, 1, 2}) == "csr_matrix: row_ptr decreases at row 1");
    BOOST_TEST(message({0, -5, 3}, {0, 1, 2}) == "csr_matrix: row_ptr decreases at row 0");
    BOOST_TEST(message({0, 2, -1}, {0, 1, 2}) ==
               "csr_matrix: row_ptr[rows] = -1 but there are 3 entries");
    BOOST_TEST(message({1, 2, 3}, {0, 1, 2}) == "csr_matrix: row_ptr[0] must be 0");
    std::string const unsorted = "csr_matrix: columns of row 0 are not sorted and unique";
    BOOST_TEST(message({0, 2, 3}, {1, 1, 2}) == unsorted);
    BOOST_TEST(message({0, 2, 3}, {2, 1, 9}) == unsorted);
    BOOST_TEST(message({0, 2, 3}, {1, 2, 9}) == "csr_matrix: column 9 in row 1 is outside 0..3");
    BOOST_TEST(message({0, 2, 3}, {-1, 2, 3}) == "csr_matrix: column -1 in row 0 is outside 0..3");
    BOOST_TEST(message({0, 2, 3}, {1, 2, 3}) == "accepted");
}

BOOST_AUTO_TEST_CASE(validate_reports_the_first_bad_row_on_many_threads) {
    // Enough entries for the parallel check; rows 700 and 90000 are bad, 700 is reported.
    std::size_t const n = 100000;
    kleene::buffer<std::int64_t> p(n + 1), c(2 * n);
    for (std::size_t i = 0; i <= n; ++i) p[i] = static_cast<std::int64_t>(2 * i);
    for (std::size_t i = 0; i < n; ++i) {
        c[2 * i] = 0;
        c[2 * i + 1] = 1;
    }
    c[2 * 90000 + 1] = 0;
    c[2 * 700] = 5;
    kleene::buffer<double> v(2 * n, 1.0);
    try {
        kleene::csr_matrix<double, std::int64_t>(n, 2, p, c, v);
        BOOST_ERROR("a bad matrix was accepted");
    } catch (kleene::invalid_argument const& e) {
        BOOST_TEST(std::string(e.what()) == "csr_matrix: column 5 in row 700 is outside 0..1");
    }
    c[2 * 700] = 0;
    BOOST_CHECK_THROW((kleene::csr_matrix<double, std::int64_t>(n, 2, p, c, v)),
                      kleene::invalid_argument);
    c[2 * 90000 + 1] = 1;
    BOOST_CHECK_NO_THROW((kleene::csr_matrix<double, std::int64_t>(n, 2, p, c, v)));
}

BOOST_AUTO_TEST_CASE(borrowed_buffers_neither_copy_nor_free_and_keep_their_owner) {
    auto owner = std::make_shared<std::vector<int>>(std::vector<int>{0, 1, 3});
    std::weak_ptr<std::vector<int>> watch = owner;
    {
        auto b = kleene::buffer<int>::borrow(owner->data(), owner->size(), owner);
        owner.reset();  // the buffer's keeper holds the memory now
        BOOST_TEST(b.borrowed());
        BOOST_TEST(!watch.expired());
        BOOST_TEST(b.data() == watch.lock()->data());
        kleene::buffer<int> copy = b;  // a copy owns its memory
        BOOST_TEST(!copy.borrowed());
        BOOST_TEST(copy.data() != b.data());
        BOOST_TEST(copy[2] == 3);
        kleene::buffer<int> moved = std::move(b);  // a move keeps the borrow
        BOOST_TEST(moved.borrowed());
        BOOST_TEST(moved.data() == watch.lock()->data());
        // A matrix over borrowed arrays reads them in place.
        kleene::buffer<int> cols{0, 0, 1};
        kleene::csr_matrix<bool> m(2, 2, std::move(moved), std::move(cols), {});
        BOOST_TEST(m.row_ptr() == watch.lock()->data());
        BOOST_TEST(m.nnz() == 3u);
        auto m2 = m;  // copying the matrix copies into owned memory
        BOOST_TEST(!m2.row_ptr_storage().borrowed());
        BOOST_TEST(!watch.expired());
        m.row_ptr_storage().resize(5);  // growing leaves the borrowed memory for owned memory
        BOOST_TEST(!m.row_ptr_storage().borrowed());
        BOOST_TEST(m.row_ptr()[2] == 3);
        BOOST_TEST(watch.expired());  // ... and releases the owner at once
    }
    auto owner2 = std::make_shared<std::vector<double>>(4, 2.5);
    std::weak_ptr<std::vector<double>> watch2 = owner2;
    {
        auto b = kleene::buffer<double>::borrow(owner2->data(), 4, owner2);
        owner2.reset();
        kleene::buffer<double> other(2, 1.0);
        b.swap(other);  // the borrow moves with the memory
        BOOST_TEST(other.borrowed());
        BOOST_TEST(!b.borrowed());
        b = std::move(other);
        BOOST_TEST(b.borrowed());
        BOOST_TEST(!watch2.expired());
    }
    BOOST_TEST(watch2.expired());  // released with the last buffer that borrowed it
    BOOST_CHECK_THROW(kleene::buffer<int>::borrow(nullptr, 3, std::make_shared<int>(0)),
                      kleene::invalid_argument);
    BOOST_CHECK_THROW(kleene::buffer<int>::borrow(nullptr, 0, nullptr), kleene::invalid_argument);
}

BOOST_AUTO_TEST_CASE(dense_views_and_conversions) {
    using S = kleene::min_plus<float>;
    kleene::dense_matrix<float> d(3, 4, kleene::infinity<float>());
    d(0, 1) = 2;
    d(2, 3) = -1;
    auto blk = d.block(1, 1, 2, 3);
    BOOST_TEST(blk(1, 2) == -1.0f);
    BOOST_TEST(blk.ld == 4u);
    BOOST_CHECK_THROW(d.block(2, 2, 2, 2), kleene::dimension_mismatch);
    auto c = kleene::to_csr<S>(d);
    BOOST_TEST(c.nnz() == 2u);
    auto back = kleene::to_dense<S>(c);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 4; ++j) BOOST_TEST(back(i, j) == d(i, j));
    kleene::dense_vector<float> x{kleene::infinity<float>(), 3, kleene::infinity<float>()};
    auto sx = kleene::to_sparse<S>(x);
    BOOST_TEST(sx.nnz() == 1u);
    BOOST_TEST(sx.indices()[0] == 1);
}

BOOST_AUTO_TEST_CASE(device_without_gpu_is_an_error) {
    if (kleene::cuda::device_count() > 0) return;  // only meaningful on a machine without a GPU
    kleene::dense_matrix<float> d(2, 2, 1.0f);
    BOOST_CHECK_THROW(d.to_device(), kleene::no_device);
}

BOOST_AUTO_TEST_CASE(sizes_past_64_bits_are_errors_not_wrapped_allocations) {
    // (2^61 + 1) 8-byte values: the byte count wrapped to 8 and 8 bytes were allocated.
    std::size_t const n = (std::size_t(1) << 61) + 1;
    BOOST_CHECK_THROW((void)kleene::buffer<double>(n), kleene::out_of_memory);
    try {
        kleene::buffer<std::int64_t> b(n);
    } catch (kleene::out_of_memory const& e) {
        BOOST_TEST(std::string(e.what()).find("16.0 EiB, more than 64 bits address") !=
                   std::string::npos);
        BOOST_TEST(e.bytes() > 1.8e19L);
    }
    // rows * cols wrapped (2^62 * 4 = 2^64 -> 0 values).
    BOOST_CHECK_THROW(kleene::dense_matrix<float>(std::size_t(1) << 62, 4), kleene::out_of_memory);
    BOOST_CHECK_THROW(kleene::dense_matrix<float>(std::size_t(1) << 62, 4, 1.0f),
                      kleene::out_of_memory);
    try {
        kleene::csr_matrix<double, std::int64_t>(std::size_t(1) << 61, 1);
        BOOST_FAIL("no error");
    } catch (kleene::out_of_memory const& e) {
        BOOST_TEST(std::string(e.what()).find("row pointers of a 2305843009213693952x1 matrix") !=
                   std::string::npos);
    }
    // A request the allocator refuses (more than any machine has) says how much. ASan's operator
    // new aborts instead of throwing bad_alloc, so an ASan build cannot see this.
#if defined(__SANITIZE_ADDRESS__)
    BOOST_TEST_MESSAGE("skipped under ASan: its allocator aborts instead of throwing bad_alloc");
#else
    try {
        kleene::buffer<char> b(std::size_t(1) << 62);
        BOOST_FAIL("no error");
    } catch (kleene::out_of_memory const& e) {
        BOOST_TEST(std::string(e.what()) == "cannot allocate 4.0 EiB of host memory");
    }
#endif
    // Zero-sized shapes stay cheap whatever the other dimension.
    kleene::dense_matrix<double> z(0, std::size_t(1) << 62);
    BOOST_TEST(z.cols() == std::size_t(1) << 62);
    BOOST_TEST(kleene::detail::format_bytes(512) == "512 B");
    BOOST_TEST(kleene::detail::format_bytes(1536) == "1.5 KiB");
    BOOST_TEST(kleene::detail::host_memory_shortfall(1e30L) == "more than 64 bits address");
    BOOST_TEST(kleene::detail::host_memory_shortfall(1024).empty());
}

namespace {
/// The THPeligible flag of the mapping that holds address a in /proc/self/smaps: 1 or 0, or -1
/// when the kernel does not report it.
int thp_eligible(void const* a) {
    std::ifstream in("/proc/self/smaps");
    auto const at = reinterpret_cast<std::uintptr_t>(a);
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        unsigned long lo = 0, hi = 0;  // a mapping's first line: "lo-hi perms offset ..."
        if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2)
            inside = at >= lo && at < hi;
        else if (inside && line.rfind("THPeligible:", 0) == 0)
            return std::atoi(line.c_str() + 12);
    }
    return -1;
}

std::string thp_mode() {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string s;
    std::getline(in, s);
    return s;
}
}  // namespace

// Host arrays of 4 MiB or more ask for transparent huge pages (detail::advise_huge_pages): the
// mapping that holds the interior of a dense matrix and of a vector_for_overwrite is eligible
// where the kernel's mode is madvise (where it is always, every mapping is; never, none).
BOOST_AUTO_TEST_CASE(large_host_arrays_ask_for_huge_pages) {
    std::string const mode = thp_mode();
    if (mode.find("[madvise]") == std::string::npos) {
        BOOST_TEST_MESSAGE("transparent huge pages are '" << mode << "', not madvise: skipped");
        return;
    }
    kleene::dense_matrix<float> big(2048, 2048);  // 16 MiB
    kleene::vector_for_overwrite<double> v(std::size_t(1) << 21);  // 16 MiB
    kleene::dense_matrix<float> small(256, 256);  // 256 KiB: no advice
    int const e_big = thp_eligible(big.data() + big.rows() * big.cols() / 2);
    if (e_big < 0) {
        BOOST_TEST_MESSAGE("this kernel's smaps has no THPeligible: skipped");
        return;
    }
    BOOST_TEST(e_big == 1);
    BOOST_TEST(thp_eligible(v.data() + v.size() / 2) == 1);
    BOOST_TEST(thp_eligible(small.data() + 100) == 0);
}
