// libFuzzer target for the Matrix Market and edge-list readers: any input must either parse or
// raise a kleene::error; what parses must survive a write / read round trip unchanged.

#include <cstdint>
#include <cstring>
#include <kleene/io/edge_list.hpp>
#include <kleene/io/matrix_market.hpp>
#include <string_view>

namespace {

template <class T, class Index>
void round_trip(kleene::csr_matrix<T, Index> const& a) {
    auto text = kleene::io::write_matrix_market_to_string(a);
    auto b = kleene::io::read_matrix_market_from_memory<T, Index>(text);
    if (a.rows() != b.rows() || a.cols() != b.cols() || a.nnz() != b.nnz()) __builtin_trap();
    for (std::size_t k = 0; k < a.nnz(); ++k) {
        T x = a.value(k), y = b.value(k);
        if (a.col_idx()[k] != b.col_idx()[k] || std::memcmp(&x, &y, sizeof x) != 0)
            __builtin_trap();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
    using namespace kleene::io;
    std::string_view const text(reinterpret_cast<char const*>(data), size);
    read_options ro;
    ro.threads = 1;
    ro.duplicates = static_cast<kleene::duplicate_policy>(size % 5);
    try {
        auto h = read_matrix_market_header_from_memory(text, "fuzz");
        // Declared sizes decide allocations (by design): read small ones, and huge ones (2^44 and
        // up: the readers must refuse them before allocating); what lies between would be
        // allocated for real, past the fuzzer's memory limit.
        auto fine = [](std::uint64_t x) {
            return x <= (1u << 14) || x >= (std::uint64_t{1} << 44);
        };
        if (fine(h.rows) && fine(h.cols)) {
            try {
                round_trip(read_matrix_market_from_memory<double, std::int32_t>(text, ro));
            } catch (kleene::error const&) {
            }
            try {
                round_trip(read_matrix_market_from_memory<std::int64_t, std::int64_t>(text, ro));
            } catch (kleene::error const&) {
            }
            try {
                read_matrix_market_from_memory<bool, std::int32_t>(text, ro);
            } catch (kleene::error const&) {
            }
            unsigned __int128 const cells = static_cast<unsigned __int128>(h.rows) * h.cols;
            if (cells <= (1u << 16) || cells >= (static_cast<unsigned __int128>(1) << 44)) {
                try {
                    read_matrix_market_dense_from_memory<float>(text, 0.0f, ro);
                } catch (kleene::error const&) {
                }
            }
        }
    } catch (kleene::error const&) {
    }
    edge_list_options eo;
    eo.threads = 1;
    eo.vertices = 4096;
    eo.duplicates = ro.duplicates;
    eo.undirected = size % 2;
    try {
        round_trip(read_edge_list_from_memory<double, std::int32_t>(text, eo));
    } catch (kleene::error const&) {
    }
    return 0;
}
