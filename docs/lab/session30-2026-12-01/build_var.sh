#!/bin/bash
# dot_lab against a variant of the masked dot header: build_var.sh NAME (uses ./v_NAME first)
S=/work/main; B=$S/build-gpu
INC="-I$S/semirings/include -I$S/lib/core/include -I$S/lib/backend/common/include -I$S/lib/backend/cpu/include -I$S/lib/backend/cuda/include -I$S/lib/ops/include -I$S/matrix_io/include -I$S/algorithms/include -I$S/algorithms/cuda/include -I$B/generated/include"
FLAGS="-DKLEENE_HAVE_CUDA=1 -std=c++20 -O3 -DNDEBUG --generate-code=arch=compute_90,code=[compute_90,sm_90] -Xcompiler=-Wall,-Wextra,-fopenmp --expt-relaxed-constexpr -diag-suppress 1675"
LIBS="$B/libkleene.a $B/libkleene_cuda.a $B/libkleene_core.a -lcusparse -lcublas -lnvrtc -lcuda -lgomp"
/usr/local/cuda/bin/nvcc -I$PWD/v_$1 $INC $FLAGS dot_lab.cu -o dot_lab_$1 $LIBS
