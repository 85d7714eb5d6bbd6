// products<double> and operations<double>: the semiring products and the
// other operations over this value type on host matrices (products.hpp, operations.hpp); one
// file a type, so that they build in parallel.
#include "operations_impl.hpp"
#include "products_impl.hpp"

template struct kleene::python::products<double>;
template struct kleene::python::operations<double>;
