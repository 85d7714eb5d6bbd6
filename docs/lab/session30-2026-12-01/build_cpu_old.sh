#!/bin/bash
# bench_masked_tc_cpu_old: bench_masked_tc with HEAD's CPU masked dot products (header-only:
# sparse_products.hpp, masked_dot_model.hpp, mxm.hpp from old_cpu/ first), linked with the tree's
# libraries (its GPU rows are the tree's). For the CPU rows before/after in one call.
set -e
S=/work/main; B=$S/build-gpu
INC="-I$PWD/old_cpu -I$S/semirings/include -I$S/lib/core/include -I$S/lib/backend/common/include -I$S/lib/backend/cpu/include -I$S/lib/backend/cuda/include -I$S/lib/ops/include -I$S/matrix_io/include -I$S/algorithms/include -I$S/algorithms/cuda/include -I$B/generated/include -I$S/lib/graphblas/include -isystem /usr/local/cuda/include"
g++ -DFMT_SHARED -DKLEENE_HAVE_CUDA=1 -DKLEENE_HAVE_GRAPHBLAS=1 $INC -std=c++20 -O3 -DNDEBUG -fopenmp -c $S/bench/bench_masked_tc.cpp -o bench_cpu_old.o
cd $B && g++ -std=c++20 -O3 $OLDPWD/bench_cpu_old.o -o $OLDPWD/bench_masked_tc_cpu_old -L/usr/local/cuda/targets/x86_64-linux/lib -Wl,-rpath,/usr/local/cuda/lib libkleene.a libkleene_graphblas.a libkleene.a /usr/lib/x86_64-linux-gnu/libfmt.so.9.1.0 libkleene_io.a libkleene_cuda.a /usr/local/cuda/lib/libcudart.so -ldl libkleene_core.a /usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so /usr/lib/x86_64-linux-gnu/libgraphblas.so -lcudadevrt -lcudart_static -lrt -lpthread -ldl
