#include <cstdint>
#include <fstream>
#include <kleene/memory.hpp>
#include <limits>
#include <string>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace kleene::detail {

void device_unavailable() {
    throw no_device("kleene was built without CUDA (configure with -DKLEENE_CUDA=ON and nvcc)");
}

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    auto const a = reinterpret_cast<std::uintptr_t>(p);
    std::uintptr_t const lo = (a + huge - 1) / huge * huge, hi = (a + bytes) / huge * huge;
    if (hi > lo) (void)madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

std::uint64_t available_host_memory() noexcept {
    try {
        std::ifstream in("/proc/meminfo");
        std::string key, rest;
        unsigned long long kb = 0;
        while (in >> key >> kb) {
            std::getline(in, rest);
            if (key == "MemAvailable:") return static_cast<std::uint64_t>(kb) * 1024;
        }
    } catch (...) {
    }
    return 0;
}

std::string host_memory_shortfall(long double bytes) {
    if (bytes > static_cast<long double>(std::numeric_limits<std::size_t>::max()))
        return "more than 64 bits address";
    // Below 1 GiB the /proc read is not worth it (every read asks): a shortfall there still ends
    // as out_of_memory when the allocation is refused.
    if (bytes < static_cast<long double>(std::uint64_t{1} << 30)) return {};
    std::uint64_t const avail = available_host_memory();
    if (avail && bytes > static_cast<long double>(avail))
        return "more than the " + format_bytes(static_cast<long double>(avail)) +
               " of host memory the system has available";
    return {};
}

}  // namespace kleene::detail
