// libFuzzer target for the .kbin reader: any file must either load or raise a kleene::error; what
// loads must hold the CSR invariants and survive a write / read round trip unchanged.
// Each input is read twice: as it is (the checksum and the header checks), then with its checksum
// and payload-size fields recomputed, so that mutations reach the structure checks behind the
// checksum instead of dying at it.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <kleene/io/binary.hpp>
#include <kleene/io/matrix_market.hpp>
#include <string>
#include <vector>

namespace {

/// In memory (/dev/shm) where there is one: on a disk, writes and renames made most of the time.
std::string temp_path(char const* tag) {
    static std::string const dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return dir + "/kleene_fuzz_kbin_" + std::to_string(::getpid()) + tag;
}

void put(std::string const& path, std::uint8_t const* data, std::size_t size) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) __builtin_trap();
    if (size && std::fwrite(data, 1, size, f) != size) __builtin_trap();
    std::fclose(f);
}

template <class T>
bool same_bits(T x, T y) {
    return std::memcmp(&x, &y, sizeof x) == 0;
}

template <class T, class Index>
void check_csr(kleene::csr_matrix<T, Index> const& a) {
    try {
        a.validate();  // a loaded file holds the invariants every kernel assumes
    } catch (kleene::error const&) {
        __builtin_trap();
    }
    auto const p = temp_path(".rt.kbin");
    kleene::io::write_binary(p, a, 1);
    auto b = kleene::io::read_binary<T, Index>(p, 1);
    if (a.rows() != b.rows() || a.cols() != b.cols() || a.nnz() != b.nnz()) __builtin_trap();
    for (std::size_t k = 0; k < a.nnz(); ++k)
        if (a.col_idx()[k] != b.col_idx()[k] || !same_bits(a.value(k), b.value(k)))
            __builtin_trap();
    for (std::size_t i = 0; i <= a.rows(); ++i)
        if (a.row_ptr()[i] != b.row_ptr()[i]) __builtin_trap();
    // What kleene wrote as Matrix Market, kleene reads (a bool byte 7 once failed here).
    auto text = kleene::io::write_matrix_market_to_string(a);
    auto c = kleene::io::read_matrix_market_from_memory<T, Index>(text);
    if (c.nnz() != a.nnz()) __builtin_trap();
}

template <class T>
void check_dense(kleene::dense_matrix<T> const& d) {
    auto const p = temp_path(".rt.kbin");
    kleene::io::write_binary(p, d, 1);
    auto e = kleene::io::read_binary_dense<T>(p, 1);
    if (e.rows() != d.rows() || e.cols() != d.cols()) __builtin_trap();
    if (d.rows() * d.cols() != 0 &&
        std::memcmp(d.data(), e.data(), d.rows() * d.cols() * sizeof(T)) != 0)
        __builtin_trap();
    auto text = kleene::io::write_matrix_market_to_string(d);
    auto f = kleene::io::read_matrix_market_dense_from_memory<T>(text);
    if (f.rows() != d.rows() || f.cols() != d.cols()) __builtin_trap();
}

void read_all(std::string const& p) {
    using namespace kleene::io;
    binary_header h;
    try {
        h = read_binary_header(p);
    } catch (kleene::error const&) {
        return;
    }
    visit_value_type(h.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        try {
            if (h.dense) {
                check_dense(read_binary_dense<T>(p, 1));
                read_binary_dense<double>(p, 1);
            } else {
                check_csr(read_binary<T, std::int64_t>(p, 1));
                check_csr(read_binary<T, std::int32_t>(p, 1));
                read_binary<double, std::int64_t>(p, 1);
            }
        } catch (kleene::error const&) {
        }
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
    auto const p = temp_path(".kbin");
    put(p, data, size);
    read_all(p);
    if (size >= 128) {
        std::vector<std::uint8_t> fixed(data, data + size);
        std::uint64_t const payload = size - 128;
        std::uint64_t const sum = kleene::io::binary_checksum(fixed.data() + 128, payload, 1);
        std::memcpy(fixed.data() + 56, &sum, 8);
        std::memcpy(fixed.data() + 64, &payload, 8);
        put(p, fixed.data(), size);
        read_all(p);
    }
    return 0;
}
