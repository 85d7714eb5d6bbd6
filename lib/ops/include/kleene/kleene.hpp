#pragma once
// The umbrella header: everything in kleene's public API.

#include <kleene/apply.hpp>
#include <kleene/context.hpp>
#include <kleene/convert.hpp>
#include <kleene/csr_matrix.hpp>
#include <kleene/dense_matrix.hpp>
#include <kleene/error.hpp>
#include <kleene/ewise.hpp>
#include <kleene/extract_assign.hpp>
#include <kleene/kronecker.hpp>
#include <kleene/matrix.hpp>
#include <kleene/memory.hpp>
#include <kleene/mxm.hpp>
#include <kleene/operators.hpp>
#include <kleene/options.hpp>
#include <kleene/reduce.hpp>
#include <kleene/select.hpp>
#include <kleene/semiring.hpp>
#include <kleene/transpose.hpp>
#include <kleene/vector.hpp>
#include <kleene/version.hpp>
