// device_products<std::int32_t> and device_operations<std::int32_t>: the products and the
// other operations on device matrices over this value type (products_device_impl.hpp,
// operations_device_impl.hpp).
#include "operations_device_impl.hpp"
#include "products_device_impl.hpp"

template struct kleene::python::device_products<std::int32_t>;
template struct kleene::python::device_operations<std::int32_t>;
