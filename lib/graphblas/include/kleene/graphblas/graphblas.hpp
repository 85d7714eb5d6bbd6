#pragma once
// The bridge to SuiteSparse:GraphBLAS, kleene's oracle: conversions, semiring and operator
// mappings, the products computed by GraphBLAS, and result comparison.

#include <kleene/graphblas/compare.hpp>
#include <kleene/graphblas/context.hpp>
#include <kleene/graphblas/convert.hpp>
#include <kleene/graphblas/ops.hpp>
#include <kleene/graphblas/random.hpp>
#include <kleene/graphblas/traits.hpp>
