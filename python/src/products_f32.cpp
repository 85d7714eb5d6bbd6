// products<float> and operations<float>: the semiring products and the
// other operations over this value type on host matrices (products.hpp, operations.hpp); one
// file a type, so that they build in parallel.
#include "operations_impl.hpp"
#include "products_impl.hpp"

template struct kleene::python::products<float>;
template struct kleene::python::operations<float>;
