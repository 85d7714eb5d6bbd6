// products<float>: the semiring products over this value type (products.hpp).
#include "products_impl.hpp"

template struct kleene::python::products<float>;
