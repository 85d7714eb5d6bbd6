#include <kleene/error.hpp>
#include <kleene/graphblas/context.hpp>

extern "C" {
#include <GraphBLAS.h>
}

#include <cstdlib>
#include <mutex>

namespace kleene::graphblas {

void ensure_initialized() {
    static std::once_flag once;
    std::call_once(once, [] {
        check(GrB_init(GrB_NONBLOCKING), "GrB_init");
        std::atexit([] { GrB_finalize(); });
    });
}

void check(int info, char const* call) {
    if (info == GrB_SUCCESS || info == GrB_NO_VALUE) return;
    throw error(std::string("SuiteSparse:GraphBLAS: ") + call + " failed with GrB_Info " +
                std::to_string(info));
}

std::string library_version() {
    ensure_initialized();
    int v[3] = {0, 0, 0};
    GxB_Global_Option_get(GxB_LIBRARY_VERSION, v);
    return "SuiteSparse:GraphBLAS " + std::to_string(v[0]) + "." + std::to_string(v[1]) + "." +
           std::to_string(v[2]);
}

}  // namespace kleene::graphblas
