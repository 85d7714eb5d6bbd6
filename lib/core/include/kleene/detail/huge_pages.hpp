#pragma once
// Transparent huge pages for large host arrays (implemented in lib/core/src/memory.cpp).

#include <cstddef>

namespace kleene::detail {

/// Host allocations of at least this many bytes ask for transparent huge pages.
inline constexpr std::size_t huge_page_advice_bytes = std::size_t(4) << 20;

/// Asks the kernel to back the 2 MiB-aligned interior of [p, p + bytes) with transparent huge
/// pages (madvise MADV_HUGEPAGE; Linux, where THP is "madvise" or "always"): fewer page faults on
/// first touch, fewer TLB misses on random access, and page-locking (cudaHostRegister) of 2 MiB
/// pages instead of 4 KiB ones. Does nothing elsewhere, or when the kernel refuses.
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

}  // namespace kleene::detail
