#pragma once
// SuiteSparse:GraphBLAS as kleene's oracle: initialisation and error checking shared by the
// bridge, the tests and `kleene compare`.

#include <string>

namespace kleene::graphblas {

/// Calls GrB_init once per process (non-blocking mode) and GrB_finalize at exit.
void ensure_initialized();
/// Throws kleene::error naming `call` when `info` is not GrB_SUCCESS / GrB_NO_VALUE.
void check(int info, char const* call);
/// "SuiteSparse:GraphBLAS 7.4.0"
std::string library_version();

}  // namespace kleene::graphblas
