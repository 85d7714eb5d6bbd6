// device_products<std::int32_t>: the products on device matrices over this value type
// (products_device_impl.hpp).
#include "products_device_impl.hpp"

template struct kleene::python::device_products<std::int32_t>;
