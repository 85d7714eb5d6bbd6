#!/bin/bash
# bench_masked_tc_pp: bench_masked_tc with plus_pair<double> device instances (lab only).
set -e
S=/work/main; B=$S/build-gpu; G=$PWD/gen_pp/include
cp $B/generated/include/kleene/config.hpp $G/kleene/
python3 - "$B/generated/include/kleene/instance_lists.hpp" "$G/kleene/instance_lists.hpp" <<'PY'
import sys
s = open(sys.argv[1]).read()
line = '    X(plus_pair, double, std::int32_t, "plus_pair", "fp64", "int32", "builtin") \\\n'
assert line in s
s = s.replace(line, '')
inst = '#define KLEENE_SPARSE_INSTANCES(X) \\\n'
s = s.replace(inst, inst + '    X(plus_pair, double, std::int32_t, "plus_pair", "fp64", "int32") \\\n')
open(sys.argv[2], 'w').write(s)
PY
INC="-I$G -I$S/semirings/include -I$S/lib/core/include -I$S/lib/backend/common/include -I$S/lib/backend/cpu/include -I$S/lib/backend/cuda/include -I$S/lib/ops/include -I$S/matrix_io/include -I$S/algorithms/include -I$S/algorithms/cuda/include -I$B/generated/include -I$S/lib/graphblas/include -isystem /usr/local/cuda/include"
/usr/local/cuda/bin/nvcc -DKLEENE_HAVE_CUDA=1 $INC -std=c++20 -O3 -DNDEBUG --generate-code=arch=compute_90,code=[compute_90,sm_90] --expt-relaxed-constexpr -c pp_instances.cu -o pp_instances.o &
g++ -DKLEENE_HAVE_CUDA=1 $INC -std=c++20 -O3 -DNDEBUG -fopenmp -c $S/lib/backend/cuda/src/missing.cpp -o missing_pp.o
g++ -DFMT_SHARED -DKLEENE_HAVE_CUDA=1 -DKLEENE_HAVE_GRAPHBLAS=1 $INC -std=c++20 -O3 -DNDEBUG -fopenmp -c $S/bench/bench_masked_tc.cpp -o bench_pp.o
wait
cd $B && g++ -std=c++20 -O3 $OLDPWD/bench_pp.o $OLDPWD/pp_instances.o $OLDPWD/missing_pp.o -o $OLDPWD/bench_masked_tc_pp -L/usr/local/cuda/targets/x86_64-linux/lib -Wl,-rpath,/usr/local/cuda/lib libkleene.a libkleene_graphblas.a libkleene.a /usr/lib/x86_64-linux-gnu/libfmt.so.9.1.0 libkleene_io.a libkleene_cuda.a /usr/local/cuda/lib/libcudart.so -ldl libkleene_core.a /usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so /usr/lib/x86_64-linux-gnu/libgraphblas.so -lcudadevrt -lcudart_static -lrt -lpthread -ldl
