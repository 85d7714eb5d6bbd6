// device_products<double> and device_operations<double>: the products and the
// other operations on device matrices over this value type (products_device_impl.hpp,
// operations_device_impl.hpp).
#include "operations_device_impl.hpp"
#include "products_device_impl.hpp"

template struct kleene::python::device_products<double>;
template struct kleene::python::device_operations<double>;
