# The source tree's public include folders, relative to its root; sourced by the compile checks in
# this folder (one list, so a new folder is added once).
kleene_include_dirs=(semirings/include lib/core/include lib/backend/common/include
                     lib/backend/cpu/include lib/backend/cuda/include lib/ops/include matrix_io/include
                     algorithms/include algorithms/cuda/include)
