#pragma once
// kleene::vector_for_overwrite<T>: a std::vector whose resize(n) and vector(n) leave the new
// values uninitialised (default-initialised), as std::make_unique_for_overwrite does for arrays.
// The algorithms return their per-vertex results (BFS levels and parents) in it so that all
// threads can fill a fresh result: a std::vector<std::int64_t>(n, -1) is written by the one
// calling thread, and at 2^22 vertices on 16 threads that first touch of the pages cost twice the
// search itself (docs/performance.md, "Graph-analytics kernels").
//
// Everything else is std::vector: iterators, data(), size(), ==. It compares equal to a
// std::vector of the same values, and std::vector(r.begin(), r.end()) or assign() copies it into
// one.

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <kleene/detail/huge_pages.hpp>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace kleene {

/// std::allocator, except that value-initialisation (construct(p) with no arguments) becomes
/// default-initialisation: no write for trivial types; and arrays of 4 MiB or more ask for
/// transparent huge pages (detail::advise_huge_pages), as kleene's own host arrays do.
template <class T>
struct overwrite_allocator : std::allocator<T> {
    using value_type = T;
    template <class U>
    struct rebind {
        using other = overwrite_allocator<U>;
    };

    overwrite_allocator() noexcept = default;
    template <class U>
    overwrite_allocator(overwrite_allocator<U> const&) noexcept {}

    T* allocate(std::size_t n) {
        T* const p = std::allocator<T>::allocate(n);
        if (n * sizeof(T) >= detail::huge_page_advice_bytes)
            detail::advise_huge_pages(p, n * sizeof(T));
        return p;
    }

    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

template <class T, class U>
bool operator==(overwrite_allocator<T> const&, overwrite_allocator<U> const&) noexcept {
    return true;
}

template <class T>
using vector_for_overwrite = std::vector<T, overwrite_allocator<T>>;

/// Equal to a std::vector (of any allocator) holding the same values (ADL finds it through the
/// allocator; C++20 also makes the reversed comparison and != from it).
template <class T, class Alloc>
    requires(!std::same_as<Alloc, overwrite_allocator<T>>)
bool operator==(vector_for_overwrite<T> const& a, std::vector<T, Alloc> const& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace kleene
