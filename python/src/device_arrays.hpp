#pragma once
// Device memory seen from Python: DeviceArray (a kleene device buffer exposed through
// __cuda_array_interface__ and DLPack, keeping its owner alive) and the reading of another
// library's __cuda_array_interface__ (CuPy, PyTorch), shared by device.cpp (exchange) and the
// device products (vectors in and out).

#include "kleene_py.hpp"

namespace kleene::python {

/// DLPack's element type (dlpack.h, version 0.8), declared here from its specification.
struct dl_data_type {
    std::uint8_t code;  // 0 int, 1 uint, 2 float, 6 bool
    std::uint8_t bits;
    std::uint16_t lanes;
};

/// A one- or two-dimensional C-contiguous array in device memory, owned by `owner`.
struct device_array {
    void const* data = nullptr;
    std::vector<std::int64_t> shape;
    std::string typestr;  // "<f4", "<i8", "|b1", ...
    dl_data_type dtype{};
    std::shared_ptr<void const> owner;
};

template <class T>
device_array device_array_of(T const* p, std::vector<std::int64_t> shape,
                             std::shared_ptr<void const> owner) {
    device_array a;
    a.data = p;
    a.shape = std::move(shape);
    a.owner = std::move(owner);
    if constexpr (std::is_same_v<T, bool>) {
        a.typestr = "|b1";
        a.dtype = {6, 8, 1};
    } else {
        a.typestr = std::string("<") + (std::is_floating_point_v<T> ? "f" : "i") +
                    std::to_string(sizeof(T));
        a.dtype = {static_cast<std::uint8_t>(std::is_floating_point_v<T> ? 2 : 0),
                   static_cast<std::uint8_t>(8 * sizeof(T)), 1};
    }
    return a;
}

/// Pointer, shape and element type of an object with __cuda_array_interface__, and the object.
struct foreign_array {
    void const* data;
    std::vector<std::size_t> shape;
    std::string typestr;
    py::object owner;
};

/// Reads obj's __cuda_array_interface__ (C-contiguous, unmasked) and waits for the stream it
/// names, so the memory is ready to read once this returns.
foreign_array read_interface(py::handle obj, char const* what);

template <class T>
void check_type(foreign_array const& f, char const* what) {
    std::string const want = device_array_of<T>(nullptr, {}, nullptr).typestr;
    // '|' and '<' both mean "no byte swapping" for these types.
    if (f.typestr.substr(1) != want.substr(1))
        throw invalid_argument(std::string(what) + " has element type " + f.typestr +
                               ", expected " + want);
}

template <class T>
buffer<T, device> copy_in(foreign_array const& f, std::size_t count) {
    buffer<T, device> b(count);
    detail::copy_bytes<device, device>(b.data(), f.data, count * sizeof(T));
    return b;
}

/// The first `count` values of f as a kleene device buffer: f's own memory, borrowed with a
/// reference to its owner, unless `copy` asks for a copy or the pointer is misaligned for T
/// (copy_mode::never then raises).
template <class T>
buffer<T, device> import_device(foreign_array const& f, std::size_t count, copy_mode copy,
                                char const* what) {
    bool const aligned = reinterpret_cast<std::uintptr_t>(f.data) % alignof(T) == 0;
    if (aligned && copy != copy_mode::always)
        return buffer<T, device>::borrow(static_cast<T*>(const_cast<void*>(f.data)), count,
                                         keep_alive(f.owner));
    if (copy == copy_mode::never)
        throw invalid_argument(std::string(what) +
                               " cannot be shared (copy=False): its address is not aligned for " +
                               dtype_name<T>() + "; pass copy=None to let kleene copy it once");
    return copy_in<T>(f, count);
}

/// A one-dimensional device array of T copied (on the device) from an object with
/// __cuda_array_interface__ (CuPy, PyTorch, kleene.DeviceArray).
template <class T>
dense_vector<T, device> device_vector_of(py::handle obj, char const* what) {
    foreign_array const f = read_interface(obj, what);
    if (f.shape.size() != 1)
        throw invalid_argument(std::string(what) + " must be a one-dimensional device array");
    check_type<T>(f, what);
    dense_vector<T, device> v;
    v.storage() = copy_in<T>(f, f.shape[0]);
    return v;
}

/// A DeviceArray that owns the device vector v.
template <class T>
device_array adopt_device_vector(dense_vector<T, device>&& v) {
    auto owned = std::make_shared<dense_vector<T, device>>(std::move(v));
    return device_array_of<T>(owned->data(), {static_cast<std::int64_t>(owned->size())}, owned);
}

}  // namespace kleene::python
