#include "mm_read_impl.hpp"

namespace kleene::io {
KLEENE_IO_INSTANTIATE_READ(bool)
KLEENE_IO_INSTANTIATE_READ(std::int8_t)
KLEENE_IO_INSTANTIATE_READ(std::int16_t)
KLEENE_IO_INSTANTIATE_READ(std::int32_t)
KLEENE_IO_INSTANTIATE_READ(std::int64_t)
}  // namespace kleene::io
