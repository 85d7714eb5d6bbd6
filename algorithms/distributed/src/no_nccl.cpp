// Builds without CUDA: the NCCL transport is absent and says so.
#include <kleene/algorithms/distributed/nccl.hpp>

namespace kleene::distributed {

int use_device(int) {
    throw no_device("distributed: kleene was built without CUDA");
}

struct nccl_panels::impl {};
nccl_panels::nccl_panels(control&) {
    throw no_device("distributed: kleene was built without CUDA (no NCCL transport)");
}
nccl_panels::~nccl_panels() = default;
void nccl_panels::broadcast(axis, void*, std::size_t, int, cuda::stream const&) {
    throw no_device("distributed: kleene was built without CUDA");
}
void nccl_panels::abort() noexcept {}
void nccl_panels::wait(cuda::event const&, double) {
    throw no_device("distributed: kleene was built without CUDA");
}
std::string nccl_panels::name() const {
    return "none";
}

}  // namespace kleene::distributed
