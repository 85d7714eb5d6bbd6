#include "mm_read_impl.hpp"

namespace kleene::io {
KLEENE_IO_INSTANTIATE_READ(std::uint8_t)
KLEENE_IO_INSTANTIATE_READ(std::uint16_t)
KLEENE_IO_INSTANTIATE_READ(std::uint32_t)
KLEENE_IO_INSTANTIATE_READ(std::uint64_t)
}  // namespace kleene::io
