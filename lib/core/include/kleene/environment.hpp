#pragma once
// The one place kleene reads the environment: a context (context.hpp) whose tuning comes from
// KLEENE_* variables, for the command-line program and the benchmarks. The library itself never
// calls getenv (a test checks it: tests/check_no_getenv.sh); programs that embed kleene set the
// context's tuning in code instead.
//
//   KLEENE_MAX_DEVICE_BYTES  tune.max_device_bytes  device cap of apsp / closure / out-of-core
//                                                    (bytes: "4096", "64K", "512M", "60G", "1T")
//   KLEENE_OOC_ALGORITHM     tune.ooc_method        fw (or blocked-fw, floyd-warshall), rkleene,
//                                                    auto
//   KLEENE_OOC_BLOCK         tune.ooc_block         out-of-core Floyd-Warshall block (bytes syntax)
//   KLEENE_OOC_WIDTH         tune.ooc_width         its tile width
//   KLEENE_OOC_TILE          tune.ooc_tile          out-of-core R-Kleene output tile
//   KLEENE_OOC_DEPTH         tune.ooc_depth         its in-core depth
//   KLEENE_OOC_PROFILE       tune.ooc_profile       set and not starting with 0: profile R-Kleene
//   KLEENE_OOC_TIMELINE      tune.ooc_timeline      file for every span of a profiled run
//   KLEENE_BFS_LOOP_BLOCKS   tune.bfs_loop_blocks   4: four blocks a SM in the GPU BFS loop
//   KLEENE_JIT_CACHE         tune.jit_cache         directory of the JIT's compiled kernels
//
// An unset or empty variable leaves the default. A value that does not parse throws
// invalid_argument naming the variable.

#include <kleene/context.hpp>

namespace kleene {

/// A context for CUDA device `device` with its tuning read from the KLEENE_* variables above.
context context_from_environment(int device = 0);

}  // namespace kleene
