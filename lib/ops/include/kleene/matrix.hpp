#pragma once
// A matrix whose storage the library picks: CSR, or dense when the entries are many. Products into
// a `matrix` choose the output format from the estimated output density (mxm.hpp), on the host or,
// for matrix<T, Index, device>, on the GPU.

#include <kleene/convert.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>

#include <type_traits>
#include <variant>

namespace kleene {

template <class T, index_type Index = std::int32_t, class Space = host>
class matrix {
public:
    using value_type = T;
    using index_type = Index;
    using space = Space;

    matrix() = default;
    matrix(std::size_t rows, std::size_t cols) : store_(csr_matrix<T, Index, Space>(rows, cols)) {}
    explicit matrix(csr_matrix<T, Index, Space> a) : store_(std::move(a)) {}
    /// Dense storage; entries equal to `absent` are absent.
    matrix(dense_matrix<T, Space> d, T absent) : store_(std::move(d)), absent_(absent) {}

    bool is_dense() const noexcept { return store_.index() == 1; }
    std::size_t rows() const { return std::visit([](auto const& m) { return m.rows(); }, store_); }
    std::size_t cols() const { return std::visit([](auto const& m) { return m.cols(); }, store_); }
    /// The value standing for "absent" in dense storage.
    T absent() const noexcept { return absent_; }

    csr_matrix<T, Index, Space> const& csr() const { return std::get<0>(store_); }
    dense_matrix<T, Space> const& dense() const { return std::get<1>(store_); }
    csr_matrix<T, Index, Space>& csr() { return std::get<0>(store_); }
    dense_matrix<T, Space>& dense() { return std::get<1>(store_); }

    /// A copy in host memory, in the same storage.
    matrix<T, Index, host> to_host() const requires std::is_same_v<Space, device> {
        if (is_dense()) return matrix<T, Index, host>(dense().to_host(), absent_);
        return matrix<T, Index, host>(csr().to_host());
    }

    /// The entries as CSR, converting from dense storage if need be.
    csr_matrix<T, Index> to_csr() const requires std::is_same_v<Space, host> {
        return is_dense() ? kleene::to_csr<T, Index>(dense(), absent_) : csr();
    }
    /// Stored entries (counted in dense storage).
    std::size_t nnz() const requires std::is_same_v<Space, host> {
        if (!is_dense()) return csr().nnz();
        std::size_t n = 0;
        for (std::size_t k = 0; k < rows() * cols(); ++k) n += !(dense().data()[k] == absent_);
        return n;
    }

private:
    std::variant<csr_matrix<T, Index, Space>, dense_matrix<T, Space>> store_;
    T absent_{};
};

}  // namespace kleene
