# The source tree's public include folders, relative to its root; sourced by the compile checks in
# this folder (one list, so a new folder is added once).
kleene_include_dirs=(semirings/include lib/include lib/cpu/include lib/cuda/include
                     matrix_io/include algorithms/include algorithms/cuda/include)
