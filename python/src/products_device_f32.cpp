// device_products<float>: the products on device matrices over this value type
// (products_device_impl.hpp).
#include "products_device_impl.hpp"

template struct kleene::python::device_products<float>;
