// libFuzzer target for the edge-list reader: any input must either parse or raise a kleene::error;
// what parses holds the CSR invariants and survives a Matrix Market write / read unchanged.
// The last byte picks the options (0- or 1-based ids, directed or not, a duplicate policy, values
// or pattern, 32- or 64-bit indices, and whether the largest id or a fixed count gives the size).
// The TYPE on the shape line is sniffed first, as kleene convert and info do.

#include <cstdint>
#include <cstring>
#include <kleene/io/edge_list.hpp>
#include <kleene/io/matrix_market.hpp>
#include <string_view>

namespace {

template <class T, class Index>
void check(kleene::csr_matrix<T, Index> const& a) {
    try {
        a.validate();
    } catch (kleene::error const&) {
        __builtin_trap();
    }
    auto text = kleene::io::write_matrix_market_to_string(a);
    auto b = kleene::io::read_matrix_market_from_memory<T, Index>(text);
    if (a.rows() != b.rows() || a.cols() != b.cols() || a.nnz() != b.nnz()) __builtin_trap();
    for (std::size_t k = 0; k < a.nnz(); ++k) {
        T x = a.value(k), y = b.value(k);
        if (a.col_idx()[k] != b.col_idx()[k] || std::memcmp(&x, &y, sizeof x) != 0)
            __builtin_trap();
    }
}

/// Ids from 10^5 to 10^13 would size a matrix that can be allocated but passes the fuzzer's memory
/// limit. Smaller ids are cheap and larger ones are refused before any allocation (more memory
/// than the machine has), so only the middle is kept out when the largest id decides the size.
bool has_mid_sized_number(std::string_view t) {
    std::uint64_t v = 0;
    bool digits = false;
    auto mid = [&] { return digits && v >= 100000 && v < 10000000000000ull; };
    for (char c : t) {
        if (c >= '0' && c <= '9') {
            v = v > 100000000000000ull ? v : v * 10 + static_cast<unsigned>(c - '0');
            digits = true;
            continue;
        }
        if (mid()) return true;
        v = 0;
        digits = false;
    }
    return mid();
}

template <class T, class Index>
void read(std::string_view text, kleene::io::edge_list_options const& o) {
    try {
        check(kleene::io::read_edge_list_from_memory<T, Index>(text, o));
    } catch (kleene::error const&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
    if (size == 0) return 0;
    unsigned const mode = data[size - 1];
    std::string_view const text(reinterpret_cast<char const*>(data), size - 1);
    kleene::io::edge_list_options o;
    o.threads = 1;
    o.zero_based = mode & 1;
    o.undirected = mode & 2;
    o.pattern_only = mode & 4;
    o.duplicates = static_cast<kleene::duplicate_policy>((mode >> 3) % 5);
    o.vertices = (mode & 64) ? 0 : 4096;
    if (o.vertices == 0 && has_mid_sized_number(text)) o.vertices = 4096;
    try {
        (void)kleene::io::read_edge_list_type_from_memory(text);  // the shape line's TYPE
    } catch (kleene::error const&) {
    }
    if (mode & 128) {
        read<double, std::int64_t>(text, o);
        read<std::int64_t, std::int32_t>(text, o);
    } else {
        read<float, std::int32_t>(text, o);
        read<bool, std::int64_t>(text, o);
    }
    return 0;
}
