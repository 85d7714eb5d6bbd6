#pragma once
// What every device entry point does in a build without CUDA (lib/cuda/src/no_cuda*.cpp): a clear
// error, never a silent CPU fallback.

#include <kleene/error.hpp>

namespace kleene::cuda::no_cuda {

[[noreturn]] inline void unavailable() {
    throw no_device("kleene was built without CUDA (configure with -DKLEENE_CUDA=ON and nvcc)");
}

}  // namespace kleene::cuda::no_cuda
