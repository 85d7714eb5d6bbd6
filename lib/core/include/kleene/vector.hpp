#pragma once
// Dense and sparse vectors. A dense vector holds every entry (absent ones hold the semiring's
// zero); a sparse vector holds sorted, unique indices and their values.

#include <kleene/csr_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/memory.hpp>

#include <cstddef>
#include <string>

namespace kleene {

template <class T, memory_space Space = host>
class dense_vector {
public:
    using value_type = T;
    using space = Space;

    dense_vector() = default;
    explicit dense_vector(std::size_t n) : data_(n) {}
    dense_vector(std::size_t n, T const& value) requires std::is_same_v<Space, host> : data_(n, value) {}
    dense_vector(std::initializer_list<T> init) requires std::is_same_v<Space, host> : data_(init) {}

    std::size_t size() const noexcept { return data_.size(); }
    T* data() noexcept { return data_.data(); }
    T const* data() const noexcept { return data_.data(); }
    T& operator[](std::size_t i) requires std::is_same_v<Space, host> { return data_[i]; }
    T const& operator[](std::size_t i) const requires std::is_same_v<Space, host> { return data_[i]; }
    T* begin() requires std::is_same_v<Space, host> { return data_.begin(); }
    T* end() requires std::is_same_v<Space, host> { return data_.end(); }
    T const* begin() const requires std::is_same_v<Space, host> { return data_.begin(); }
    T const* end() const requires std::is_same_v<Space, host> { return data_.end(); }
    void fill(T const& value) requires std::is_same_v<Space, host> { data_.fill(value); }

    buffer<T, Space>& storage() noexcept { return data_; }
    buffer<T, Space> const& storage() const noexcept { return data_; }

    dense_vector<T, device> to_device() const {
        dense_vector<T, device> out;
        out.storage() = data_.template copy_to<device>();
        return out;
    }
    dense_vector<T, host> to_host() const {
        dense_vector<T, host> out;
        out.storage() = data_.template copy_to<host>();
        return out;
    }

private:
    buffer<T, Space> data_;
};

template <class T, index_type Index = std::int32_t, memory_space Space = host>
class sparse_vector {
public:
    using value_type = T;
    using index_type = Index;
    using space = Space;

    sparse_vector() = default;
    /// An empty vector of dimension n.
    explicit sparse_vector(std::size_t n) : size_(n) {}
    /// Adopts sorted unique indices and their values (checked on the host).
    sparse_vector(std::size_t n, buffer<Index, Space> idx, buffer<T, Space> vals)
        : size_(n), idx_(std::move(idx)), vals_(std::move(vals)) {
        if (idx_.size() != vals_.size())
            throw invalid_argument("sparse_vector: " + std::to_string(idx_.size()) + " indices but " +
                                   std::to_string(vals_.size()) + " values");
        if constexpr (std::is_same_v<Space, host>) {
            for (std::size_t k = 0; k < idx_.size(); ++k) {
                if (idx_[k] < 0 || static_cast<std::size_t>(idx_[k]) >= n)
                    throw invalid_argument("sparse_vector: index " + std::to_string(idx_[k]) +
                                           " is outside 0.." + std::to_string(n) + "-1");
                if (k > 0 && idx_[k - 1] >= idx_[k])
                    throw invalid_argument("sparse_vector: indices are not sorted and unique");
            }
        }
    }

    std::size_t size() const noexcept { return size_; }
    std::size_t nnz() const noexcept { return idx_.size(); }
    Index const* indices() const noexcept { return idx_.data(); }
    T const* values() const noexcept { return vals_.data(); }
    Index* indices() noexcept { return idx_.data(); }
    T* values() noexcept { return vals_.data(); }

    buffer<Index, Space>& index_storage() noexcept { return idx_; }
    buffer<T, Space>& value_storage() noexcept { return vals_; }
    buffer<Index, Space> const& index_storage() const noexcept { return idx_; }
    buffer<T, Space> const& value_storage() const noexcept { return vals_; }

    sparse_vector<T, Index, device> to_device() const {
        return {size_, idx_.template copy_to<device>(), vals_.template copy_to<device>()};
    }
    sparse_vector<T, Index, host> to_host() const {
        return {size_, idx_.template copy_to<host>(), vals_.template copy_to<host>()};
    }

private:
    std::size_t size_ = 0;
    buffer<Index, Space> idx_;
    buffer<T, Space> vals_;
};

}  // namespace kleene
